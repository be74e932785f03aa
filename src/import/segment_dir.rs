//! A segment on disk: `segment.json` (what was imported, how, and the counts) and
//! `documents.parquet` (the rows), written under a temporary name beside the
//! destination and renamed when complete, so a crash leaves no half segment.

use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{ImportOptions, SourceReport, StatusFilter};
use crate::segment::rows::RowWriter;
use crate::segment::SegmentRow;

/// The rows file inside a segment.
pub const ROWS_FILE: &str = "documents.parquet";
/// The manifest file inside a segment.
pub const MANIFEST_FILE: &str = "segment.json";

/// `segment.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SegmentManifest {
    /// Format version of the segment.
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

/// The current UTC time as 14 digits (the default segment name, as NutchWAX's).
pub fn timestamp14() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0) as i64;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}{m:02}{d:02}{:02}{:02}{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Writes a segment to `dest` (which must not exist yet).
pub fn write_segment(
    dest: &Path,
    rows: &[SegmentRow],
    sources: Vec<SourceReport>,
    opts: &ImportOptions,
    exclusions: Option<ExclusionsInfo>,
) -> io::Result<SegmentManifest> {
    if dest.exists() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!(
                "{} already exists; choose another segment name",
                dest.display()
            ),
        ));
    }
    let tmp = crate::output::temp_dir_beside(dest)?;
    let mut w = RowWriter::create(&tmp.path().join(ROWS_FILE)).map_err(io::Error::other)?;
    for r in rows {
        w.write(r).map_err(io::Error::other)?;
    }
    let documents = w.finish().map_err(io::Error::other)?;
    let manifest = SegmentManifest {
        version: 1,
        canonicalizer: match opts.key {
            warcdex_cdx::KeyStyle::Surt => "surt".into(),
            warcdex_cdx::KeyStyle::Url => "url".into(),
        },
        created: timestamp14(),
        exclusions,
        status_filter: opts.status.clone(),
        content_limit: opts.content_limit,
        captures: sources.iter().map(|s| s.imported).sum(),
        sources,
        documents,
    };
    let json = serde_json::to_string_pretty(&manifest).map_err(io::Error::other)?;
    std::fs::write(tmp.path().join(MANIFEST_FILE), json + "\n")?;
    crate::output::install_dir(tmp, dest)?;
    Ok(manifest)
}

/// Reads `segment.json`.
pub fn read_manifest(segment: &Path) -> io::Result<SegmentManifest> {
    let p = segment.join(MANIFEST_FILE);
    let text = std::fs::read_to_string(&p)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", p.display())))?;
    serde_json::from_str(&text)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("{}: {e}", p.display())))
}

#[cfg(test)]
mod tests {
    #[test]
    fn timestamp_has_14_digits() {
        let t = super::timestamp14();
        assert_eq!(t.len(), 14);
        assert!(t.starts_with("20"));
    }
}
