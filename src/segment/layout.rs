//! A segment on disk: `segment.json` (what was imported, how, and the counts) and
//! `documents.parquet` (the rows), written under a temporary name beside the
//! destination and renamed when complete, so a crash leaves no half segment.
//!
//! Everything that is written into `segment.json` is defined here, so that the index
//! reads a segment without depending on the import that wrote it.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::rows::RowWriter;
use super::{Error, Result, SegmentRow};
use crate::path_error::ResultAtPath;

/// The rows file inside a segment.
pub const ROWS_FILE: &str = "documents.parquet";
/// The manifest file inside a segment.
pub const MANIFEST_FILE: &str = "segment.json";

/// The format version of the segments written now, in `segment.json`'s `version`
/// (every `segment.json` has one): 3 records the rows file's CRC-32
/// ([`SegmentManifest::rows_crc32`]); 2 has signed integers and capture times; 1 is the
/// first. Versions 1 to 3 are read ([`read_manifest`]); a later one is refused.
pub const SEGMENT_VERSION: u32 = 3;

/// `segment.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SegmentManifest {
    /// Format version of the segment ([`SEGMENT_VERSION`] when written now).
    pub version: u32,
    /// `surt` or `url`: the canonicalizer of every `urlkey` (exclusions and dates lists
    /// must use the same).
    pub canonicalizer: String,
    /// When the import ran (UTC, 14 digits).
    pub created: String,
    /// The exclusion list used, if any, and how many entries it had.
    pub exclusions: Option<ExclusionsInfo>,
    /// Statuses imported.
    pub status_filter: StatusFilter,
    /// Bytes of payload and text kept per document.
    pub content_limit: usize,
    /// One entry per archive, in manifest order.
    pub sources: Vec<SourceReport>,
    /// Rows (versions) in `documents.parquet`.
    pub documents: u64,
    /// Captures imported (a version crawled ten times counts ten).
    pub captures: u64,
    /// `K/N` when the segment holds only the versions of shard K of N (`import
    /// --shards N` writes one such segment per shard; its `sources` and `captures` are
    /// those of the whole import).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// The CRC-32 of `documents.parquet`, checked before it is read
    /// ([`super::rows::verify_rows`]); `None` in segments written before format version
    /// 3, which are read unchecked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows_crc32: Option<u32>,
}

/// The exclusion list of an import.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExclusionsInfo {
    /// Its path as given.
    pub path: String,
    /// Distinct entries.
    pub entries: u64,
    /// Malformed lines skipped.
    pub malformed: u64,
}

/// Which HTTP statuses are imported: ranges and single codes, plus `unknown` for
/// captures without an HTTP status (ARC `dns:` records, for example). Every range is
/// honoured (NutchWAX tested only the first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusFilter {
    /// Inclusive ranges.
    pub ranges: Vec<(u16, u16)>,
    /// Import captures that have no HTTP status.
    pub unknown: bool,
}

impl Default for StatusFilter {
    fn default() -> Self {
        StatusFilter {
            ranges: vec![(200, 299)],
            unknown: false,
        }
    }
}

impl StatusFilter {
    /// Parses `200-299,304,unknown`.
    pub fn parse(spec: &str) -> Result<StatusFilter, String> {
        let mut f = StatusFilter {
            ranges: Vec::new(),
            unknown: false,
        };
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            if part == "unknown" {
                f.unknown = true;
                continue;
            }
            let (a, b) = part.split_once('-').unwrap_or((part, part));
            let a: u16 = a
                .trim()
                .parse()
                .map_err(|_| format!("bad status {part:?}"))?;
            let b: u16 = b
                .trim()
                .parse()
                .map_err(|_| format!("bad status {part:?}"))?;
            if a > b {
                return Err(format!("bad status range {part:?}"));
            }
            f.ranges.push((a, b));
        }
        Ok(f)
    }

    /// True when a capture with `status` is imported.
    pub fn allows(&self, status: Option<u16>) -> bool {
        match status {
            None => self.unknown,
            Some(s) => self.ranges.iter().any(|&(a, b)| a <= s && s <= b),
        }
    }
}

/// What one archive gave.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SourceReport {
    /// The archive as the manifest names it.
    pub path: String,
    /// Its collection.
    pub collection: String,
    /// Records read.
    pub records: u64,
    /// Captures imported (before merging versions).
    pub imported: u64,
    /// Captures the exclusion list named.
    pub excluded: u64,
    /// Captures whose HTTP status the filter refused.
    pub status_filtered: u64,
    /// Records not imported by type (`request`, `revisit`, `warcinfo`, ...).
    pub skipped: BTreeMap<String, u64>,
    /// Captures whose content could not be parsed (imported with metadata only).
    pub parse_failures: u64,
    /// PDF captures parsed, by outcome: `text`, `no-text` (opened, no text: a scan),
    /// `failed`, `panicked`, `timed-out`, `too-large` (the last four are also parse
    /// failures).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pdf: BTreeMap<String, u64>,
    /// HTML pages whose parse stopped at 2^17 open elements (the rest of their text is
    /// not indexed; a page nested that deep is almost always broken or hostile).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub element_cap: u64,
    /// Reader anomalies by kind name.
    pub anomalies: BTreeMap<String, u64>,
    /// The error that stopped the archive early, if any (captures before it are kept).
    pub error: Option<String>,
}

/// Whether a count is zero (left out of `segment.json`).
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Writes a segment to `dest` (which must not exist yet): `rows` to the rows file and
/// `manifest`, its `documents` set to the rows written, beside them.
pub fn write_segment(
    dest: &Path,
    rows: &[SegmentRow],
    manifest: SegmentManifest,
) -> Result<SegmentManifest> {
    write_segment_with(dest, manifest, |w| rows.iter().try_for_each(|r| w.write(r)))
}

/// The error for a segment directory that is already there: a segment is never
/// overwritten.
fn refuse_existing(dest: &Path) -> Result<()> {
    if dest.exists() {
        return Err(Error::SegmentExists(dest.to_path_buf()));
    }
    Ok(())
}

/// [`write_segment`] with the rows written by `fill`, in (URL key, digest) order, so a
/// caller streams them from disk instead of holding them.
pub fn write_segment_with(
    dest: &Path,
    manifest: SegmentManifest,
    fill: impl FnOnce(&mut RowWriter) -> Result<()>,
) -> Result<SegmentManifest> {
    write_segment_within(dest, manifest, super::rows::DEFAULT_ROW_GROUP_BYTES, fill)
}

/// [`write_segment_with`] holding a row group of at most `row_group_bytes` before it is
/// encoded and flushed: an import gives a share of its memory budget, so that the rows
/// it writes, outlinks included, do not take the writer past it (a
/// fixed 64 MiB row group made an import's peak follow its links up to that size).
pub fn write_segment_within(
    dest: &Path,
    mut manifest: SegmentManifest,
    row_group_bytes: usize,
    fill: impl FnOnce(&mut RowWriter) -> Result<()>,
) -> Result<SegmentManifest> {
    refuse_existing(dest)?;
    let tmp = crate::output::temp_dir_beside(dest)?;
    let rows = tmp.path().join(ROWS_FILE);
    let opts = super::rows::RowWriterOptions {
        row_group_bytes: row_group_bytes.max(1),
        ..super::rows::RowWriterOptions::default()
    };
    let mut w = RowWriter::create_with(&rows, opts)?;
    fill(&mut w)?;
    manifest.documents = w.finish()?;
    seal(&mut manifest, &rows)?;
    let json = serde_json::to_string_pretty(&manifest).at(dest)?;
    let path = tmp.path().join(MANIFEST_FILE);
    std::fs::write(&path, json + "\n").at(&path)?;
    crate::output::install_dir(tmp, dest)?;
    Ok(manifest)
}

/// [`write_segment_with`] split by URL key into `count` segments, `dest/shard-<k>` for
/// shard k (`warcdex_cdx::shard`), installed together: `fill` writes every row, in
/// (URL key, digest) order, and each goes to its shard's segment. Each of the `count`
/// writers holds a row group of at most `64 MiB / count` (at least 4 MiB) before
/// flushing it, so the import's memory does not grow with the shards.
pub fn write_sharded_segment_with(
    dest: &Path,
    count: u32,
    manifest: SegmentManifest,
    fill: impl FnOnce(&mut dyn FnMut(&SegmentRow) -> Result<()>) -> Result<()>,
) -> Result<Vec<SegmentManifest>> {
    refuse_existing(dest)?;
    let count = count.max(1);
    let tmp = crate::output::temp_dir_beside(dest)?;
    let opts = super::rows::RowWriterOptions {
        row_group_bytes: (super::rows::DEFAULT_ROW_GROUP_BYTES / count as usize).max(4 << 20),
        ..super::rows::RowWriterOptions::default()
    };
    let mut writers = Vec::with_capacity(count as usize);
    for k in 0..count {
        let dir = tmp.path().join(shard_segment_name(k));
        std::fs::create_dir(&dir).at(&dir)?;
        writers.push(RowWriter::create_with(&dir.join(ROWS_FILE), opts)?);
    }
    fill(&mut |row| {
        let k = warcdex_cdx::shard::shard_of(&row.urlkey, count);
        writers[k as usize].write(row)
    })?;
    let mut out = Vec::with_capacity(count as usize);
    for (k, w) in writers.into_iter().enumerate() {
        let mut m = manifest.clone();
        m.documents = w.finish()?;
        m.shard = Some(format!("{k}/{count}"));
        let dir = tmp.path().join(shard_segment_name(k as u32));
        seal(&mut m, &dir.join(ROWS_FILE))?;
        let path = dir.join(MANIFEST_FILE);
        let json = serde_json::to_string_pretty(&m).at(&path)?;
        std::fs::write(&path, json + "\n").at(&path)?;
        out.push(m);
    }
    crate::output::install_dir(tmp, dest)?;
    Ok(out)
}

/// Records the finished rows file's checksum in `manifest`, at the format version that
/// has one.
fn seal(manifest: &mut SegmentManifest, rows: &Path) -> Result<()> {
    manifest.rows_crc32 = Some(super::rows::crc32_of(rows)?);
    manifest.version = manifest.version.max(SEGMENT_VERSION);
    Ok(())
}

/// The directory of shard `k`'s segment in a sharded import (`shard-<k>`).
pub fn shard_segment_name(k: u32) -> String {
    format!("shard-{k}")
}

/// Reads `segment.json`, of any version up to [`SEGMENT_VERSION`]; a later one is
/// refused, as made by a newer warcdex.
pub fn read_manifest(segment: &Path) -> Result<SegmentManifest> {
    let p = segment.join(MANIFEST_FILE);
    let text = std::fs::read_to_string(&p).at(&p)?;
    let m: SegmentManifest = serde_json::from_str(&text).at(&p)?;
    if m.version > SEGMENT_VERSION {
        return Err(Error::NewerFormat {
            path: p,
            version: m.version,
            read: SEGMENT_VERSION,
        });
    }
    Ok(m)
}
