//! The parallel dates index (`warcdex add-dates`, docs/design.md §4, docs/formats.md §4.8–4.9).
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
pub mod error;
pub mod records;
mod source;

use std::path::{Path, PathBuf};

use tantivy::schema::{Field, Schema, Value, FAST, INDEXED, STORED, STRING};
use tantivy::{DocAddress, DocId, Index, Searcher, TantivyDocument};

use crate::path_error::ResultAtPath;
use crate::pindex::align::check_dates_alignment;
use crate::pindex::keys::KEYHASH_FIELD;
use crate::pindex::open::{doc_count, open_parallel_index};
pub use error::{Error, Result};

/// Stored text field of the dates index (and of main): one 14-digit date per value.
pub const DATE_FIELD: &str = "date";
/// Unstored multi-valued u64 fast + indexed field of the dates index: the dates as
/// numbers, for range filters (`date:20071001-20071005`) without stored documents.
pub const DATE_VALUE_FIELD: &str = "date_value";
/// Unstored u64 fast field of the dates index: the position, the index's sort field.
pub const SEQ_FIELD: &str = "seq";
/// Unstored multi-valued text field (indexed, fast) of the dates index: the collections
/// of the document's captures that the lists named (`update` names every capture's), so
/// that a version belongs to every collection it was captured in; main's `collection`
/// (its first capture's) is the other. Absent from dates indexes built before.
pub const COLLECTION_FIELD: &str = "collection";
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
    /// `collection` (STRING | FAST, not stored).
    pub collection: Field,
}

/// The schema of `pindexes/<name>/dates`. Only `date` is stored, so that `dumpindex
/// dates` prints exactly NutchWAX's one column (docs/formats.md §5.4).
pub fn dates_schema() -> (Schema, DatesFields) {
    let mut b = Schema::builder();
    let f = DatesFields {
        date: b.add_text_field(DATE_FIELD, STRING | STORED),
        date_value: b.add_u64_field(DATE_VALUE_FIELD, FAST | INDEXED),
        keyhash: b.add_u64_field(KEYHASH_FIELD, FAST),
        seq: b.add_u64_field(SEQ_FIELD, FAST),
        collection: b.add_text_field(COLLECTION_FIELD, STRING | FAST),
    };
    (b.build(), f)
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

/// Opens `main` and, if given, its dates index, and checks that they align: the same
/// document count, the dates index's `key_checksum` equal to main's, and the `keyhash`
/// of main's key at a sample of positions. A misaligned pair is an error (kind
/// `InvalidData`) naming both directories.
pub fn open_set(main: &Path, dates: Option<&Path>) -> Result<ParallelSet> {
    open_set_with(main, dates, false)
}

/// [`open_set`]; with `released`, through `pindex::directory::ReleasingDirectory`, for
/// commands that read the set through once (`near-dups`): the pages read do not stay
/// resident.
pub fn open_set_with(main: &Path, dates: Option<&Path>, released: bool) -> Result<ParallelSet> {
    let open = |dir: &Path| {
        if released {
            crate::pindex::open::open_parallel_index_released(dir)
        } else {
            open_parallel_index(dir)
        }
    };
    let (main_index, main_searcher) = open(main)?;
    let (dates_index, dates_searcher) = match dates {
        None => (None, None),
        Some(d) => {
            let (i, s) = open(d)?;
            check_dates_alignment(main, &main_searcher, d, &s, false)?;
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
    pub fn dates_of(&self, doc: DocId) -> Result<Vec<String>> {
        let (searcher, dir) = match (&self.dates_searcher, &self.dates_dir) {
            (Some(s), Some(d)) => (s, d.as_path()),
            _ => (&self.main_searcher, self.main_dir.as_path()),
        };
        if doc >= doc_count(searcher) {
            return Err(Error::NoDocument {
                dir: dir.to_path_buf(),
                doc,
                docs: Some(doc_count(searcher)),
            });
        }
        let field = searcher.schema().get_field(DATE_FIELD).at(dir)?;
        let d: TantivyDocument = searcher.doc(DocAddress::new(0, doc)).at(dir)?;
        Ok(d.get_all(field)
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect())
    }
}
