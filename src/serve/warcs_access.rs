//! `/warcs/NAME` under access rules: a range is sent only when every record it holds is
//! a capture the asker may see, read from the archive itself (its target URI and date),
//! so no request can fetch a blocked or excluded capture by its offset. Whole archives
//! are not sent while rules are in force: an archive mixes captures of many URLs.

use std::path::Path;

use axum::http::StatusCode;
use warcdex_cdx::surt::surt_key;

use crate::access::{Access, Viewer};
use crate::reader::{ArchiveReader, ReaderOptions};

/// Why a range is refused.
pub(crate) type Refused = (StatusCode, String);

/// Whether bytes `start..start + len` of the archive at `path` may be sent to `viewer`:
/// the range must start at a record, and every record starting in it must be allowed.
/// Blocked: 451; excluded: 404, as if the record were not there; not at a record: 403.
pub(crate) fn check_range(
    path: &Path,
    start: u64,
    len: u64,
    viewer: &Viewer,
) -> Result<(), Refused> {
    let opts = ReaderOptions {
        buffer_size: 64 * 1024,
        max_header: 1 << 20,
    };
    let unreadable = |e: &dyn std::fmt::Display| {
        eprintln!("warcdex serve: checking a range of {}: {e}", path.display());
        (
            StatusCode::FORBIDDEN,
            "with access rules in force, archives are served one record at a time, \
             from the offset the CDX gives"
                .to_string(),
        )
    };
    let mut reader =
        ArchiveReader::open_range(path, start, len, opts).map_err(|e| unreadable(&e))?;
    let mut first = true;
    loop {
        let rec = match reader.next_record() {
            Ok(Some(r)) => r,
            Ok(None) if first => return Err(unreadable(&"no record there")),
            Ok(None) => return Ok(()),
            // A record cut by the range's end: its head was read and judged already.
            Err(_) if !first => return Ok(()),
            Err(e) => return Err(unreadable(&e)),
        };
        // A compressed archive's records carry the file's offsets, an uncompressed one's
        // the range's own: either way the first record must be where the range starts.
        if first && rec.offset() != start && rec.offset() != 0 {
            return Err(unreadable(&format!(
                "no record starts at {start} (one at {})",
                rec.offset()
            )));
        }
        first = false;
        let h = rec.header();
        let (Some(uri), Some(date)) = (h.target_uri(), h.date14()) else {
            // A record of no URL (warcinfo) is no capture.
            continue;
        };
        let uri = String::from_utf8_lossy(uri);
        let key = surt_key(uri.trim()).unwrap_or_else(|_| uri.trim().to_string());
        let date: u64 = date.parse().unwrap_or(0);
        match viewer.access(key.as_bytes(), date) {
            Access::Block => {
                return Err((
                    StatusCode::UNAVAILABLE_FOR_LEGAL_REASONS,
                    "access to this capture is blocked".into(),
                ))
            }
            Access::Exclude => {
                return Err((
                    StatusCode::NOT_FOUND,
                    "no such record in this collection".into(),
                ))
            }
            Access::Allow | Access::AllowIgnoreEmbargo => {}
        }
    }
}
