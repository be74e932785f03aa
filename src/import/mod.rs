//! `warcdex import`: archives to a segment of parsed documents, one per version
//! (canonical URL key + payload digest), never one per URL (docs/design.md §2).
//!
//! Each capture is selected (WARC response/resource, ARC records after the filedesc),
//! filtered by HTTP status and the exclusion list (`URLKEY sha1:DIGEST DATE14`), parsed
//! (HTML title/text/links, plain text), and merged with other captures of the same
//! version: one row with every date, the earliest capture's metadata and content.
//!
//! One job a module: `archive.rs` reads each archive and feeds the parse in batches,
//! `capture.rs` selects, filters and admits each record, `parse.rs` parses the admitted
//! captures (with [`crate::extract`] for content codings, PDFs and languages),
//! `rendered.rs` joins the rendered text a browser crawler recorded (`urn:text:` records,
//! a WACZ's `pages.jsonl` text) to its page, and `versions.rs` merges the captures of
//! each version.

mod archive;
mod capture;
pub mod exclusions;
pub mod manifest;
mod parse;
mod rendered;
pub mod segment_dir;
mod versions;

use std::io;
use std::path::{Path, PathBuf};

use warcdex_cdx::KeyStyle;

pub use crate::segment::layout::{SourceReport, StatusFilter};
use crate::segment::SegmentRow;
use exclusions::Exclusions;
use manifest::ManifestEntry;
use versions::Versions;

/// How to import.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// The URL canonicalizer for keys (must match the exclusion list's).
    pub key: KeyStyle,
    /// Statuses imported.
    pub status: StatusFilter,
    /// Bytes of each payload kept for parsing, and of extracted text.
    pub content_limit: usize,
    /// The collection of archives whose manifest line names none.
    pub collection: String,
    /// Bytes for what the import gathers: three quarters for the external sort of dates
    /// and parsed rows (sorted runs go to disk beyond it), a quarter for the cache of
    /// recent versions.
    pub memory: usize,
    /// Directory for those runs (default: the system's).
    pub tmp_dir: Option<PathBuf>,
    /// The import manifest's folder: each row's `archive` is its archive's path
    /// relative to it (absolute for an archive outside it). `None`: the path as given.
    pub archive_base: Option<PathBuf>,
    /// Check each WACZ's `datapackage.json` (sizes and SHA-256) first; a WACZ that fails
    /// is not imported and is reported as an archive with an error.
    pub verify_wacz: bool,
    /// For an archive file (by its path as the entry gives it, not a WACZ): the records
    /// the exclusion list excludes, `(offset, length)` as its CDX gives them, each a
    /// whole gzip member holding one response with a status the filter allows (`update`
    /// finds them, [`crate::update`]). They are passed over unread and counted as read
    /// and excluded, as they would have been: an excluded capture gives the import
    /// nothing else.
    pub excluded_spans: std::collections::BTreeMap<PathBuf, Vec<(u64, u64)>>,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            key: KeyStyle::Surt,
            status: StatusFilter::default(),
            content_limit: 1 << 20,
            collection: "default".into(),
            memory: 192 << 20,
            tmp_dir: None,
            archive_base: None,
            verify_wacz: false,
            excluded_spans: Default::default(),
        }
    }
}

/// Imports every archive of `entries` (in parallel) and merges the captures into one row
/// per version, ordered by (URL key, digest), in memory. Messages about problems go to
/// `log`. [`import_versions`] is the same without holding the rows.
pub fn import_archives(
    entries: &[ManifestEntry],
    exclusions: Option<&Exclusions>,
    opts: &ImportOptions,
    on_done: &(dyn Fn(&Path) + Sync),
    log: &(dyn Fn(&str) + Sync),
) -> io::Result<(Vec<SegmentRow>, Vec<SourceReport>)> {
    let (versions, reports) = import_versions(entries, exclusions, opts, on_done, log);
    let mut rows = Vec::new();
    versions.rows(|r| {
        rows.push(r);
        Ok(())
    })?;
    Ok((rows, reports))
}

/// What an import found, before it is written: the versions, whose rows wait in an
/// external sort (`ImportOptions::memory`) until [`ImportedVersions::rows`] reads them.
pub struct ImportedVersions(Versions);

impl ImportedVersions {
    /// Calls `f` with each version's row in (URL key, digest) order, with every date of
    /// the version; returns the number of rows.
    pub fn rows(self, f: impl FnMut(SegmentRow) -> io::Result<()>) -> io::Result<u64> {
        self.0.into_rows(f)
    }
}

/// Imports every archive of `entries` (in parallel) into versions whose rows are sorted
/// within `opts.memory`, spilling to disk beyond it. Messages about problems go to `log`.
pub fn import_versions(
    entries: &[ManifestEntry],
    exclusions: Option<&Exclusions>,
    opts: &ImportOptions,
    on_done: &(dyn Fn(&Path) + Sync),
    log: &(dyn Fn(&str) + Sync),
) -> (ImportedVersions, Vec<SourceReport>) {
    use rayon::prelude::*;
    let versions = Versions::new(warcdex_cdx::sort::SortOptions {
        memory: opts.memory,
        tmp_dir: opts.tmp_dir.clone(),
        unique: false,
    });
    let reports: Vec<SourceReport> = entries
        .par_iter()
        .enumerate()
        .map(|(i, e)| {
            let r = archive::import_one(i, e, exclusions, opts, &versions, log);
            on_done(&e.path);
            r
        })
        .collect();
    (ImportedVersions(versions), reports)
}

/// The anomaly counted for a capture whose date is not a possible capture date (a year
/// before 1991 or in the future: warcio's rules make 2999 of an ARC date that is not a
/// date).
pub const IMPOSSIBLE_DATE: &str = "impossible-date";

/// Reads an exclusion list from `path` (`-` = stdin), reporting malformed lines.
pub fn load_exclusions(
    path: &Path,
    key: KeyStyle,
    log: &mut dyn FnMut(&str),
) -> io::Result<Exclusions> {
    let name = path.display().to_string();
    let mut on_bad = |n: u64, m: &str| log(&format!("{name}: line {n}: {m}"));
    if name == "-" {
        Exclusions::load(io::stdin().lock(), key, &mut on_bad)
    } else {
        let f = std::fs::File::open(path)
            .map_err(|e| io::Error::new(e.kind(), format!("{name}: {e}")))?;
        Exclusions::load(io::BufReader::new(f), key, &mut on_bad)
    }
}
