//! `/warcs/NAME` under access rules: a byte range is sent only when every byte of it lies
//! inside records the asker may see, by the offsets and lengths the collection's CDX
//! gives, never by reading the archive. Reading judged only the
//! records whose heads were read whole: a range ending inside a hidden record's gzip
//! trailer, or starting before a shown record, carried hidden bytes that no head
//! vouched for. Bytes of no capture (a warcinfo record, a request, the gap a damaged
//! member leaves) are no one's to see either.
//!
//! Every refusal is the same answer, whatever made it: a status or message that told
//! "hidden here" from "not a record here" would map where the hidden records are.
//!
//! The records are looked up by (file, offset) in `all.pos`, which `update` writes
//! beside `all.cdx` (`warcdex_cdx::positions`); for a collection without one, or with one
//! made from another `all.cdx`, the server makes its own in a temporary file once per
//! `all.cdx` it sees (an external sort: memory bounded whatever the collection's size).

use std::io::{self, BufReader, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};

use crate::collection::Collection;
use axum::http::StatusCode;
use warcdex_cdx::positions::{write_positions, Positions, POSITIONS_FILE};
use warcdex_cdx::SortOptions;

use crate::access::{Access, Viewer};

/// The one answer to a range that is not sent.
pub(crate) fn refused() -> (StatusCode, String) {
    (
        StatusCode::FORBIDDEN,
        "with access rules in force, archives are sent only as byte ranges that lie wholly \
         inside captures you may see, at the offsets and lengths the CDX gives"
            .to_string(),
    )
}

/// Memory of the sort that makes a missing `all.pos`.
const SORT_MEMORY: usize = 64 << 20;

/// Whether bytes `start..end` of the archive whose CDX file name is `file` lie wholly
/// inside captures `viewer` may see, by `positions`: every record the range touches is
/// shown, and they leave no byte of it uncovered.
pub(crate) fn range_allowed(
    positions: &Positions,
    file: &str,
    start: u64,
    end: u64,
    viewer: &Viewer,
) -> io::Result<bool> {
    if start >= end {
        return Ok(false);
    }
    // Bytes start..covered lie in shown records.
    let mut covered = start;
    for span in positions.spans(file, start, end)? {
        let span = span?;
        if span.end() <= start {
            // The record before the range ends before it.
            continue;
        }
        let date = span.date.parse().unwrap_or(0);
        match viewer.access(span.urlkey.as_bytes(), date) {
            Access::Allow | Access::AllowIgnoreEmbargo => {}
            Access::Block | Access::Exclude => return Ok(false),
        }
        if span.offset > covered {
            // Bytes of no capture before this one; later ones start later still.
            return Ok(false);
        }
        covered = covered.max(span.end());
    }
    Ok(covered >= end)
}

/// What tells one `all.cdx` from the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    inode: u64,
}

/// A list of positions in use, with the temporary file it lives in when the server
/// made it (removed when the last request using it is done).
pub(crate) struct InUse {
    /// The list.
    pub positions: Positions,
    _made: Option<tempfile::TempPath>,
}

/// The collection's positions, found or made again when `all.cdx` changes.
pub(crate) struct PositionsCache {
    /// The collection's `all.cdx`.
    cdx: PathBuf,
    /// Its `all.pos`.
    listed: PathBuf,
    current: Mutex<Option<(Stamp, Arc<InUse>)>>,
}

impl PositionsCache {
    /// The positions of `collection` (looked for at the first request).
    pub(crate) fn new(collection: &Collection) -> PositionsCache {
        PositionsCache {
            cdx: collection.cdx_path(),
            listed: collection.layout().list(POSITIONS_FILE),
            current: Mutex::new(None),
        }
    }

    /// The positions of the captures of `all.cdx` as it is now (blocking: it may sort the
    /// whole CDX once). Requests wait for one another here while a list is being made.
    pub(crate) fn get(&self) -> io::Result<Arc<InUse>> {
        use std::os::unix::fs::MetadataExt;
        let cdx = &self.cdx;
        let m = std::fs::metadata(cdx).map_err(|e| at(cdx, e))?;
        let stamp = Stamp {
            len: m.len(),
            modified: m.modified().ok(),
            inode: m.ino(),
        };
        let mut current = self.current.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((s, p)) = current.as_ref() {
            if *s == stamp {
                return Ok(p.clone());
            }
        }
        let listed = &self.listed;
        let found = match Positions::open(listed) {
            Ok(p) if p.source_len() == Some(stamp.len) => Some(p),
            Ok(_) => {
                eprintln!(
                    "warcdex serve: {} was made from another all.cdx; making one for this one",
                    listed.display()
                );
                None
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => {
                eprintln!("warcdex serve: {e}; making the positions again");
                None
            }
        };
        let in_use = match found {
            Some(positions) => InUse {
                positions,
                _made: None,
            },
            None => make(cdx, stamp.len)?,
        };
        let in_use = Arc::new(in_use);
        *current = Some((stamp, in_use.clone()));
        Ok(in_use)
    }
}

/// Makes the positions of `cdx` (of `len` bytes) in a temporary file.
fn make(cdx: &Path, len: u64) -> io::Result<InUse> {
    let t0 = Instant::now();
    let tmp = tempfile::NamedTempFile::new()?;
    let input = std::fs::File::open(cdx).map_err(|e| at(cdx, e))?;
    let opts = SortOptions {
        memory: SORT_MEMORY,
        ..SortOptions::default()
    };
    let n = write_positions(
        BufReader::with_capacity(1 << 16, input),
        len,
        BufWriter::new(tmp.as_file()),
        opts,
    )
    .map_err(|e| at(cdx, e))?;
    let path = tmp.into_temp_path();
    let positions = Positions::open(&path)?;
    eprintln!(
        "warcdex serve: {} has no {POSITIONS_FILE} of its own (an older collection): the \
         positions of its {n} captures made in {:.1} s",
        cdx.display(),
        t0.elapsed().as_secs_f64()
    );
    Ok(InUse {
        positions,
        _made: Some(path),
    })
}

fn at(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}
