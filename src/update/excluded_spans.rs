//! The records of a new archive that the batch's exclusion list excludes, found in the
//! archive's CDX, so that the import passes over them unread
//! ([`crate::import::ImportOptions::excluded_spans`]): a capture of a version the
//! collection or the batch already holds gives the import nothing but its count, yet
//! reading it meant decompressing its whole gzip member again after the cdx stage had.
//!
//! Only what is certain is passed over: an archive the cdx stage read without any
//! anomaly, with no rendered-text (`urn:`) records, whose CDX spans do not overlap; and in
//! it a response whose status the filter allows and whose date is possible (the
//! import's other counts), excluded by the same list and rule the import applies, whose
//! span starts a gzip member and is followed by another member or the end of the file.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::os::unix::fs::FileExt;
use std::path::Path;

use warcdex_cdx::{CdxFormat, CdxLine};

use crate::import::exclusions::Exclusions;
use crate::segment::layout::StatusFilter;

/// The gzip member header's first bytes: magic and deflate (RFC 1952).
const GZIP_MEMBER: [u8; 3] = [0x1f, 0x8b, 0x08];

/// The spans `(offset, length)` of `archive`'s records that `exclusions` excludes and the
/// import may pass over, from `cdx` (the archive's CDX11, as the cdx stage wrote it); an
/// empty list when none may be.
pub fn excluded_spans(
    cdx: &Path,
    archive: &Path,
    exclusions: &Exclusions,
    status: &StatusFilter,
) -> std::io::Result<Vec<(u64, u64)>> {
    let now = warcdex_cdx::date::now_micros();
    let mut all = Vec::new();
    let mut excluded = Vec::new();
    for line in BufReader::with_capacity(1 << 16, File::open(cdx)?).lines() {
        let line = line?;
        if CdxLine::is_legend(&line) {
            continue;
        }
        let Ok(l) = CdxLine::parse_classic(CdxFormat::Cdx11, &line) else {
            return Ok(Vec::new());
        };
        if l.original.as_deref().is_some_and(|u| u.starts_with("urn:")) {
            // Rendered texts join pages, excluded ones too: read everything.
            return Ok(Vec::new());
        }
        let number = |v: &Option<String>| v.as_deref().and_then(|v| v.parse::<u64>().ok());
        let (Some(length), Some(offset)) = (number(&l.length), number(&l.offset)) else {
            return Ok(Vec::new());
        };
        all.push((offset, length));
        let code = l.status.as_deref().and_then(|c| c.parse::<u16>().ok());
        let (Some(digest), Some(filename)) = (&l.digest, &l.filename) else {
            continue;
        };
        if l.mime.as_deref() == Some("warc/revisit")
            || !code.is_some_and(|c| status.allows(Some(c)))
            || crate::reader::date::capture_micros(&l.timestamp, now).is_none()
        {
            continue;
        }
        let digest = format!("sha1:{digest}");
        if exclusions.contains(&l.urlkey, &digest, &l.timestamp, filename) {
            excluded.push((offset, length));
        }
    }
    // One record a span: spans that share bytes (records in one member) are not passed over.
    all.sort_unstable();
    if all.iter().any(|&(_, l)| l == 0) || all.windows(2).any(|w| w[0].0 + w[0].1 > w[1].0) {
        return Ok(Vec::new());
    }
    let file = File::open(archive)?;
    let size = file.metadata()?.len();
    let starts_member = |at: u64| {
        let mut head = [0u8; 3];
        file.read_exact_at(&mut head, at).is_ok() && head == GZIP_MEMBER
    };
    excluded.sort_unstable();
    excluded.retain(|&(o, l)| starts_member(o) && (o + l == size || starts_member(o + l)));
    Ok(excluded)
}
