//! The parallel dates index (`warcdex add-dates`, design.md §4, formats.md §4.8–4.9).
//!
//! A dates index has exactly one document per document of its main index, at the same
//! DocId, holding every capture date of that main document. It is joined to main by
//! position, like NutchWAX's ArchiveParallelReader; the stored `keyhash` of main's key
//! at each position and main's `key_checksum` in `pindex.json` make a misaligned pair an
//! error instead of wrong answers.
//!
//! - [`open_set`] opens a main index with (optionally) its dates index and checks that
//!   they align; [`ParallelSet::dates_of`] gives the dates of one document.
//! - [`add::add_dates`] builds a dates index (a streaming merge-join of main's keys with a
//!   sorted dates list).

pub mod add;
pub mod compat;
pub mod records;
mod source;

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha1::{Digest, Sha1};
use tantivy::schema::{Field, Schema, Value, FAST, INDEXED, STORED, STRING};
use tantivy::{DocAddress, DocId, Index, ReloadPolicy, Searcher, TantivyDocument};

use crate::index::{read_pindex, PINDEX_FILE};

/// Stored text field of the dates index (and of main): one 14-digit date per value.
pub const DATE_FIELD: &str = "date";
/// Unstored multi-valued u64 fast + indexed field of the dates index: the dates as
/// numbers, for range filters (`date:20071001-20071005`) without stored documents.
pub const DATE_VALUE_FIELD: &str = "date_value";
/// Unstored u64 fast field of the dates index: [`keyhash`] of main's key at that position.
pub const KEYHASH_FIELD: &str = "keyhash";
/// Unstored u64 fast field of the dates index: the position, the index's sort field.
pub const SEQ_FIELD: &str = "seq";
/// `pindex.json` `kind` of a dates index.
pub const DATES_KIND: &str = "dates";

/// The fields of a dates index.
#[derive(Debug, Clone, Copy)]
pub struct DatesFields {
    /// `date` (STRING | STORED): what `dumpindex` prints.
    pub date: Field,
    /// `date_value` (u64, FAST | INDEXED, not stored).
    pub date_value: Field,
    /// `keyhash` (u64, FAST, not stored).
    pub keyhash: Field,
    /// `seq` (u64, FAST, not stored).
    pub seq: Field,
}

/// The schema of `pindexes/<name>/dates`. Only `date` is stored, so that `dumpindex
/// dates` prints exactly NutchWAX's one column (formats.md §5.4).
pub fn dates_schema() -> (Schema, DatesFields) {
    let mut b = Schema::builder();
    let f = DatesFields {
        date: b.add_text_field(DATE_FIELD, STRING | STORED),
        date_value: b.add_u64_field(DATE_VALUE_FIELD, FAST | INDEXED),
        keyhash: b.add_u64_field(KEYHASH_FIELD, FAST),
        seq: b.add_u64_field(SEQ_FIELD, FAST),
    };
    (b.build(), f)
}

/// The first 8 bytes (big-endian) of SHA-1 of main's `key`: the per-document alignment
/// check of a dates index.
pub fn keyhash(key: &str) -> u64 {
    let d = Sha1::digest(key.as_bytes());
    u64::from_be_bytes(d[..8].try_into().expect("8 bytes"))
}

/// Counts of one add-dates run, kept in the dates index's `pindex.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatesCounts {
    /// Documents written (= main's documents).
    pub documents: u64,
    /// Documents holding at least one date.
    pub documents_with_dates: u64,
    /// Documents that got at least one date from the dates lists that no source held.
    pub documents_with_dates_added: u64,
    /// Dates values written in total.
    pub dates_written: u64,
    /// Dates taken from the lists that no source held for that document (in `--compat`
    /// mode: every date appended from the lists).
    pub dates_added: u64,
    /// Lines read from the dates lists.
    pub lines: u64,
    /// Well-formed lines whose key matched a document.
    pub matched_lines: u64,
    /// Well-formed lines whose key matched no document.
    pub unmatched_lines: u64,
    /// Lines with fewer than three fields or a third field that is not a 14-digit date.
    pub malformed_lines: u64,
}

/// `pindex.json` of a dates index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatesInfo {
    /// Always `dates`.
    pub kind: String,
    /// Documents (= main's).
    pub documents: u64,
    /// main's `key_checksum` when this index was built.
    pub key_checksum: String,
    /// The key index (main) as given on the command line.
    pub main: String,
    /// The source indexes, in argument order.
    pub sources: Vec<String>,
    /// The dates lists (`-` = stdin).
    pub dates: Vec<String>,
    /// Whether NutchWAX's DateAdder order and duplicates were reproduced.
    pub compat: bool,
    /// What the run did.
    pub counts: DatesCounts,
}

/// Reads `pindex.json` of a dates index.
pub fn read_dates_info(dir: &Path) -> io::Result<DatesInfo> {
    let p = dir.join(PINDEX_FILE);
    let text = std::fs::read_to_string(&p)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", p.display())))?;
    serde_json::from_str(&text)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("{}: {e}", p.display())))
}

/// A main index and, optionally, its dates index, checked to align.
pub struct ParallelSet {
    /// The main index.
    pub main: Index,
    /// The dates index, when there is one.
    pub dates: Option<Index>,
    /// Where main is.
    pub main_dir: PathBuf,
    /// Where the dates index is.
    pub dates_dir: Option<PathBuf>,
    main_searcher: Searcher,
    dates_searcher: Option<Searcher>,
}

impl std::fmt::Debug for ParallelSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParallelSet")
            .field("main_dir", &self.main_dir)
            .field("dates_dir", &self.dates_dir)
            .finish()
    }
}

/// An error about the index in `dir`, naming it.
pub(crate) fn other(dir: &Path, e: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("{}: {e}", dir.display()))
}

/// A tantivy error about the index in `dir`, naming it. A file or directory that does
/// not exist keeps the kind `NotFound`: that is what a reader sees when `add-dates
/// --in-place` swaps the dates directory between reading `meta.json` and opening the
/// segment files, and `search` retries the open on it (`src/search/mod.rs`).
pub(crate) fn tantivy_error(dir: &Path, e: tantivy::TantivyError) -> io::Error {
    use tantivy::directory::error::{OpenDirectoryError, OpenReadError};
    use tantivy::TantivyError as T;
    let missing = match &e {
        T::OpenReadError(OpenReadError::FileDoesNotExist(_))
        | T::OpenDirectoryError(OpenDirectoryError::DoesNotExist(_)) => true,
        T::OpenReadError(OpenReadError::IoError { io_error, .. }) => {
            io_error.kind() == io::ErrorKind::NotFound
        }
        T::IoError(io_error) => io_error.kind() == io::ErrorKind::NotFound,
        _ => false,
    };
    let kind = if missing {
        io::ErrorKind::NotFound
    } else {
        io::ErrorKind::Other
    };
    io::Error::new(kind, format!("{}: {e}", dir.display()))
}

/// A searcher over `index` as it is now, with no reload thread (`dir` names it in
/// errors).
pub(crate) fn searcher_of(index: &Index, dir: &Path) -> io::Result<Searcher> {
    let reader: tantivy::IndexReader = index
        .reader_builder()
        .reload_policy(ReloadPolicy::Manual)
        .try_into()
        .map_err(|e| tantivy_error(dir, e))?;
    Ok(reader.searcher())
}

/// Opens an index and a searcher over it (no reload thread: indexes are immutable).
pub(crate) fn open_index(dir: &Path) -> io::Result<(Index, Searcher)> {
    let index = Index::open_in_dir(dir).map_err(|e| tantivy_error(dir, e))?;
    let searcher = searcher_of(&index, dir)?;
    let segments = searcher.segment_readers().len();
    if segments > 1 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{}: {segments} segments; a parallel index has one",
                dir.display()
            ),
        ));
    }
    if let Some(s) = searcher.segment_readers().first() {
        if s.num_docs() != s.max_doc() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{}: has deleted documents; a parallel index has none",
                    dir.display()
                ),
            ));
        }
    }
    Ok((index, searcher))
}

/// The document count of a one-segment searcher.
pub(crate) fn doc_count(s: &Searcher) -> u32 {
    s.segment_readers().first().map_or(0, |r| r.max_doc())
}

/// How many positions of a large pair [`open_set`] compares (evenly spaced, plus the
/// last); all of them when there are fewer.
const ALIGN_SAMPLE: u32 = 4096;

/// Opens `main` and, if given, its dates index, and checks that they align: the same
/// document count, the dates index's `key_checksum` equal to main's, and the `keyhash`
/// of main's key at a sample of positions. A misaligned pair is an error (kind
/// `InvalidData`) naming both directories.
pub fn open_set(main: &Path, dates: Option<&Path>) -> io::Result<ParallelSet> {
    let (main_index, main_searcher) = open_index(main)?;
    let (dates_index, dates_searcher) = match dates {
        None => (None, None),
        Some(d) => {
            let (i, s) = open_index(d)?;
            check_alignment(main, &main_searcher, d, &s, false)?;
            (Some(i), Some(s))
        }
    };
    Ok(ParallelSet {
        main: main_index,
        dates: dates_index,
        main_dir: main.to_path_buf(),
        dates_dir: dates.map(Path::to_path_buf),
        main_searcher,
        dates_searcher,
    })
}

/// An error saying that `dates` is not the dates index of `main`, and why.
pub(crate) fn misaligned(main: &Path, dates: &Path, why: impl std::fmt::Display) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!(
            "{} is not a dates index of {}: {why}",
            dates.display(),
            main.display()
        ),
    )
}

/// Checks that the dates index at `dates` was built for the main index at `main`; with
/// `all`, every position's keyhash is compared, otherwise a sample.
pub(crate) fn check_alignment(
    main: &Path,
    main_s: &Searcher,
    dates: &Path,
    dates_s: &Searcher,
    all: bool,
) -> io::Result<()> {
    let (n_main, n_dates) = (doc_count(main_s), doc_count(dates_s));
    if n_main != n_dates {
        return Err(misaligned(
            main,
            dates,
            format!("{n_dates} documents against {n_main}"),
        ));
    }
    let info = read_dates_info(dates).map_err(|e| misaligned(main, dates, e))?;
    if info.kind != DATES_KIND {
        return Err(misaligned(
            main,
            dates,
            format!("its pindex.json kind is {:?}", info.kind),
        ));
    }
    let main_info = read_pindex(main)?;
    if info.key_checksum != main_info.key_checksum {
        return Err(misaligned(
            main,
            dates,
            format!(
                "built for key checksum {} but main's is {}",
                info.key_checksum, main_info.key_checksum
            ),
        ));
    }
    if n_main == 0 {
        return Ok(());
    }
    let keys = source::KeyColumns::open(main, main_s)?;
    let hashes = dates_s.segment_readers()[0]
        .fast_fields()
        .u64(KEYHASH_FIELD)
        .map_err(|e| other(dates, e))?;
    let step = if all || n_main <= ALIGN_SAMPLE {
        1
    } else {
        n_main / ALIGN_SAMPLE
    };
    let mut key = String::new();
    let positions = (0..n_main).step_by(step as usize).chain([n_main - 1]);
    for doc in positions {
        keys.key(doc, &mut key)?;
        if hashes.first(doc) != Some(keyhash(&key)) {
            return Err(misaligned(
                main,
                dates,
                format!("document {doc} was built for another key than {key:?}"),
            ));
        }
    }
    Ok(())
}

impl ParallelSet {
    /// The number of documents (of main, and of dates).
    pub fn documents(&self) -> u32 {
        doc_count(&self.main_searcher)
    }

    /// A searcher over main (one segment, segment ordinal 0).
    pub fn main_searcher(&self) -> &Searcher {
        &self.main_searcher
    }

    /// A searcher over the dates index, when there is one.
    pub fn dates_searcher(&self) -> Option<&Searcher> {
        self.dates_searcher.as_ref()
    }

    /// The dates of document `doc`, as stored: from the dates index when there is one
    /// (sorted and unique unless it was built with `--compat`), else main's `date` values.
    pub fn dates_of(&self, doc: DocId) -> io::Result<Vec<String>> {
        let (searcher, dir) = match (&self.dates_searcher, &self.dates_dir) {
            (Some(s), Some(d)) => (s, d.as_path()),
            _ => (&self.main_searcher, self.main_dir.as_path()),
        };
        if doc >= doc_count(searcher) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{}: no document {doc} ({} documents)",
                    dir.display(),
                    doc_count(searcher)
                ),
            ));
        }
        let field = searcher
            .schema()
            .get_field(DATE_FIELD)
            .map_err(|e| other(dir, e))?;
        let d: TantivyDocument = searcher
            .doc(DocAddress::new(0, doc))
            .map_err(|e| other(dir, e))?;
        Ok(d.get_all(field)
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect())
    }
}

/// Checks that indexes opened side by side (dumpindex, search) belong together: every
/// dates index against every main index among them, and mains against each other, by
/// their `pindex.json`. Directories without one (foreign indexes) are only counted.
pub fn check_parallel(dirs: &[(&Path, &Searcher)]) -> io::Result<()> {
    let kind = |d: &Path| -> Option<(String, String)> {
        let text = std::fs::read_to_string(d.join(PINDEX_FILE)).ok()?;
        let v: serde_json::Value = serde_json::from_str(&text).ok()?;
        Some((
            v["kind"].as_str()?.to_string(),
            v["key_checksum"].as_str()?.to_string(),
        ))
    };
    let kinds: Vec<Option<(String, String)>> = dirs.iter().map(|(d, _)| kind(d)).collect();
    for (i, (m, ms)) in dirs.iter().enumerate() {
        let Some((k, sum)) = &kinds[i] else { continue };
        if k == DATES_KIND {
            continue;
        }
        for (j, (o, os)) in dirs.iter().enumerate() {
            match &kinds[j] {
                Some((k2, _)) if k2 == DATES_KIND => check_alignment(m, ms, o, os, false)?,
                Some((_, sum2)) if j > i && sum2 != sum => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!(
                            "{} and {} hold different documents (key checksums differ): \
                             not parallel indexes",
                            m.display(),
                            o.display()
                        ),
                    ))
                }
                _ => {}
            }
        }
    }
    Ok(())
}
