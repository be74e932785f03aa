//! `warcdex add-dates`: a streaming merge-join of main's documents, in (URL key,
//! digest) order, with a dates list sorted the same way, writing one dates document per
//! main document at the same DocId (docs/formats.md §4.8).
//!
//! A dates list given as a file is first joined as if it were sorted; if a key goes
//! backwards the half-built index is discarded and the list goes through the external
//! sorter instead (stdin always does). Memory: the sorter's budget, tantivy's writer
//! budget and a few stored-document blocks per source, whatever the sizes.
//!
//! - `build`: the dates index written in a temporary directory, merged to one segment
//!   and checked (DocId = `seq`).
//! - `join`: the merge-join of main's keys with the list, one dates document per main
//!   document.
//! - `input`: the list's lines, joined as sorted or through the external sort.

mod build;
pub(crate) mod docs;
mod input;
mod join;

use std::path::{Path, PathBuf};

use super::records::MalformedLine;
use super::source::Source;
use super::{Error, Result};
use crate::pindex::align::{check_dates_alignment, misaligned};
use crate::pindex::info::{read_info, read_main_info, write_info};
use crate::pindex::keys::MainKeys;
use crate::pindex::open::{doc_count, open_parallel_index_released};
use crate::pindex::{DatesInfo, PindexInfo, PINDEX_VERSION};
use crate::progress::Progress;
use build::{Ctx, JoinError};
use docs::{Dates, SegmentDocs};
use input::{external, stream};

/// Where the dates list comes from: a file (joined as sorted first, sorted externally
/// if it is not) or `-`, standard input (always sorted externally: it cannot be read
/// twice). The same input type as the CDX lists'.
pub use warcdex_cdx::dedup::Input as DatesInput;

/// How to run add-dates.
#[derive(Debug, Clone)]
pub struct AddDatesOptions {
    /// Reproduce NutchWAX DateAdder: sources' dates in Java HashSet order, then every
    /// date of the list appended, duplicates included.
    pub compat: bool,
    /// A malformed line stops the run.
    pub strict: bool,
    /// DEST is one of the sources: build beside it and swap it in by rename.
    pub in_place: bool,
    /// Memory budget in bytes: half for the external sort, a quarter for the writer.
    pub memory: usize,
    /// Where the external sort's runs go.
    pub tmp_dir: Option<PathBuf>,
}

impl Default for AddDatesOptions {
    fn default() -> Self {
        AddDatesOptions {
            compat: false,
            strict: false,
            in_place: false,
            memory: 256 << 20,
            tmp_dir: None,
        }
    }
}

/// How many malformed lines and unmatched lines a report keeps as examples.
pub const MALFORMED_SHOWN: usize = 20;
/// How many unmatched lines a report keeps as examples.
pub const UNMATCHED_SHOWN: usize = 5;

/// What add-dates did.
#[derive(Debug, Clone)]
pub struct AddDatesReport {
    /// The `pindex.json` written (with the counts).
    pub info: DatesInfo,
    /// The first malformed lines (all are counted in `info.counts`).
    pub malformed: Vec<MalformedLine>,
    /// The first lines that matched no document (`URLKEY DIGEST DATE`).
    pub unmatched: Vec<String>,
    /// The list was not sorted by (URL key, digest) and went through the external sort.
    pub external_sort: bool,
}

/// Builds the dates index `dest` for the main index `key_index` from the dates of
/// `sources` (main or dates indexes aligned with `key_index`) and the list `dates`.
pub fn add_dates(
    key_index: &Path,
    sources: &[PathBuf],
    dest: &Path,
    dates: &DatesInput,
    opts: &AddDatesOptions,
) -> Result<AddDatesReport> {
    add_dates_with_progress(key_index, sources, dest, dates, opts, &())
}

/// [`add_dates`], reporting the documents written to `progress` (main's documents are
/// the total; a list found unsorted restarts the count for the external sort).
pub fn add_dates_with_progress(
    key_index: &Path,
    sources: &[PathBuf],
    dest: &Path,
    dates: &DatesInput,
    opts: &AddDatesOptions,
    progress: &dyn Progress,
) -> Result<AddDatesReport> {
    check_dest(key_index, sources, dest, opts.in_place)?;
    let (_main, main_s) = open_parallel_index_released(key_index)?;
    let main_info = read_main_info(key_index)?;
    let keys = MainKeys::open(key_index, &main_s)?;
    let n = doc_count(&main_s);
    let mut opened = Vec::with_capacity(sources.len());
    for s in sources {
        let (_i, ss) = open_parallel_index_released(s)?;
        match read_info(s)? {
            PindexInfo::Dates(_) => check_dates_alignment(key_index, &main_s, s, &ss, false)?,
            PindexInfo::Main(info) => {
                if doc_count(&ss) != n {
                    return Err(misaligned(
                        key_index,
                        s,
                        format!("{} documents against {n}", doc_count(&ss)),
                    ));
                }
                if info.key_checksum != main_info.key_checksum {
                    return Err(misaligned(
                        key_index,
                        s,
                        "a main index with other keys (key_checksum differs)",
                    ));
                }
            }
        }
        opened.push(Source::open(s, &ss)?);
    }
    let refs: Vec<&dyn Dates> = opened.iter().map(|s| s as &dyn Dates).collect();
    let ctx = Ctx {
        main_dir: key_index,
        keys: &keys,
        sources: &refs,
        n,
        opts,
        input_name: dates.name(),
    };
    let mut built = None;
    if let DatesInput::File(_) = dates {
        match ctx.build(dest, progress, |j| stream(dates, j)) {
            Ok(b) => built = Some(b),
            Err(JoinError::Unsorted) => {}
            Err(JoinError::Failed(e)) => return Err(e),
        }
    }
    let external_sort = built.is_none();
    let built = match built {
        Some(b) => b,
        None => ctx
            .build(dest, progress, |j| external(dates, j))
            .map_err(JoinError::into_error)?,
    };
    progress.finish();
    // Unmap main and the sources before the merge reads the new segments: mapped pages
    // count in the resident size.
    drop(refs);
    drop(opened);
    drop(keys);
    drop(main_s);
    drop(_main);
    let written = Written {
        main: key_index,
        sources,
        n,
        key_checksum: main_info.key_checksum.clone(),
        external_sort,
    };
    written.install(built, dest, dates, opts)
}

/// [`add_dates`] of a new set's dates index, with main (`main`) its only source, while
/// main is still being written from the one segment `segment`: main's keys and stored
/// dates are the segment's rows' (row N is document N, `index` writes each row's
/// dates), so they are read from the segment, and the index is the one `add_dates(main,
/// [main], dest, dates)` makes once main is done, byte for byte, with the same
/// `pindex.json`. `update` runs it beside the end of main's indexing.
///
/// `Ok(None)` when the list is not a sorted file (it would need the external sort, which
/// reads main twice): the caller adds the dates once main is done. A segment whose rows
/// do not increase is an error (`MainOutOfOrder`), as main would not hold them in that
/// order; the caller checks that main has the segment's document count.
pub fn add_dates_of_segment(
    segment: &Path,
    main: &Path,
    dest: &Path,
    dates: &DatesInput,
    opts: &AddDatesOptions,
) -> Result<Option<AddDatesReport>> {
    if !matches!(dates, DatesInput::File(_)) {
        return Ok(None);
    }
    check_dest(main, &[main.to_path_buf()], dest, false)?;
    let documents = crate::segment::layout::read_manifest(segment)?.documents;
    let n = u32::try_from(documents).map_err(|_| Error::NoDocument {
        dir: segment.to_path_buf(),
        doc: u32::MAX,
        docs: None,
    })?;
    let docs = SegmentDocs::open(segment, main)?;
    let sources: [&dyn Dates; 1] = [&docs];
    let ctx = Ctx {
        main_dir: main,
        keys: &docs,
        sources: &sources,
        n,
        opts,
        input_name: dates.name(),
    };
    let built = match ctx.build(dest, &(), |j| stream(dates, j)) {
        Ok(b) => b,
        Err(JoinError::Unsorted) => return Ok(None),
        Err(JoinError::Failed(e)) => return Err(e),
    };
    let written = Written {
        main,
        sources: &[main.to_path_buf()],
        n,
        key_checksum: docs.key_checksum(),
        external_sort: false,
    };
    written.install(built, dest, dates, opts).map(Some)
}

/// What a join wrote, for the dates index's `pindex.json`.
struct Written<'a> {
    main: &'a Path,
    sources: &'a [PathBuf],
    n: u32,
    key_checksum: String,
    external_sort: bool,
}

impl Written<'_> {
    /// Merges the built index, writes its `pindex.json` and puts it at `dest`.
    fn install(
        self,
        built: build::Built,
        dest: &Path,
        dates: &DatesInput,
        opts: &AddDatesOptions,
    ) -> Result<AddDatesReport> {
        let (tmp, joined) = built.finish()?;
        let info = DatesInfo {
            version: PINDEX_VERSION,
            documents: u64::from(self.n),
            key_checksum: self.key_checksum,
            main: self.main.display().to_string(),
            sources: self
                .sources
                .iter()
                .map(|s| s.display().to_string())
                .collect(),
            dates: vec![dates.name()],
            compat: opts.compat,
            counts: joined.counts,
        };
        let info = PindexInfo::Dates(info);
        write_info(tmp.path(), &info)?;
        let PindexInfo::Dates(info) = info else {
            unreachable!("written as dates")
        };
        crate::output::replace_dir(tmp, dest)?;
        Ok(AddDatesReport {
            info,
            malformed: joined.malformed,
            unmatched: joined.unmatched,
            external_sort: self.external_sort,
        })
    }
}

/// Refuses a DEST that would overwrite main, or a source without `--in-place`.
fn check_dest(key_index: &Path, sources: &[PathBuf], dest: &Path, in_place: bool) -> Result<()> {
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    };
    if same(key_index, dest) {
        return Err(Error::DestIsKeyIndex(dest.to_path_buf()));
    }
    let is_source = sources.iter().any(|s| same(s, dest));
    if in_place && !is_source {
        return Err(Error::InPlaceNotSource(dest.to_path_buf()));
    }
    if !in_place && dest.exists() {
        return Err(Error::DestExists {
            dest: dest.to_path_buf(),
            is_source,
        });
    }
    Ok(())
}
