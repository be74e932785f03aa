//! The versions an import has seen, shared by the archive workers: each version's dates
//! and the order of its earliest capture, in memory; the parsed rows in an external sort
//! (`--memory`), so the rows of a large import never all sit in memory at once.
//!
//! Only a capture that is the earliest of its version so far is parsed, so repeated
//! captures cost no HTML parsing. A parsed row goes to the sort keyed by its version and
//! capture order, and comes back in (URL key, digest) order when the segment is written;
//! a row whose capture was superseded by an earlier one meanwhile is dropped then.

use std::collections::HashMap;
use std::io;
use std::sync::Mutex;

use warcdex_cdx::sort::{ExternalSorter, SortOptions};

use crate::segment::{sort_safe, SegmentRow};

/// Where a capture sits in the import: (date, archive index, offset). The earliest
/// capture of a version gives the version its metadata and content.
pub(super) type Order = (String, usize, u64);

/// A version: (URL key, digest).
pub(super) type VersionKey = (String, String);

struct Version {
    best: Order,
    dates: Vec<String>,
}

/// The parsed rows on their way to the segment, and the first error writing them.
struct RowSpill {
    sorter: ExternalSorter,
    line: Vec<u8>,
    error: Option<io::Error>,
}

/// See the module documentation.
pub(super) struct Versions {
    map: Mutex<HashMap<VersionKey, Version>>,
    rows: Mutex<RowSpill>,
}

impl Versions {
    /// No version yet; parsed rows are sorted within `sort` (memory, temporary directory).
    pub(super) fn new(sort: SortOptions) -> Self {
        Versions {
            map: Mutex::default(),
            rows: Mutex::new(RowSpill {
                sorter: ExternalSorter::new(SortOptions {
                    unique: false,
                    ..sort
                }),
                line: Vec::new(),
                error: None,
            }),
        }
    }

    /// Records a capture's date; true when it is the earliest capture so far (so it
    /// must be parsed and offered).
    pub(super) fn claim(&self, key: &VersionKey, order: &Order) -> bool {
        let mut m = self.map.lock().expect("versions lock");
        match m.get_mut(key) {
            None => {
                m.insert(
                    key.clone(),
                    Version {
                        best: order.clone(),
                        dates: vec![order.0.clone()],
                    },
                );
                true
            }
            Some(v) => {
                v.dates.push(order.0.clone());
                if order < &v.best {
                    v.best = order.clone();
                    true
                } else {
                    false
                }
            }
        }
    }

    /// Takes back the claim of a capture whose record turned out to be lost (a damaged
    /// gzip member found after its header): its date goes, and so does a version that
    /// has no other capture.
    pub(super) fn withdraw(&self, key: &VersionKey, order: &Order) {
        let mut m = self.map.lock().expect("versions lock");
        if let Some(v) = m.get_mut(key) {
            if let Some(i) = v.dates.iter().position(|d| d == &order.0) {
                v.dates.swap_remove(i);
            }
            if v.dates.is_empty() {
                m.remove(key);
            }
        }
    }

    /// Sends a parsed row to the sort unless an earlier capture claimed the version
    /// meanwhile (a later one is dropped when the rows are read back).
    pub(super) fn offer(&self, key: &VersionKey, order: &Order, row: SegmentRow) {
        let best = self
            .map
            .lock()
            .expect("versions lock")
            .get(key)
            .is_some_and(|v| &v.best == order);
        if !best {
            return;
        }
        let mut spill = self.rows.lock().expect("rows lock");
        let RowSpill {
            sorter,
            line,
            error,
        } = &mut *spill;
        if error.is_some() {
            return;
        }
        line.clear();
        push_sort_key(line, key, order);
        // serde_json escapes control characters, so the JSON holds no newline.
        let pushed = serde_json::to_writer(&mut *line, &row)
            .map_err(io::Error::other)
            .and_then(|()| sorter.push(line));
        if let Err(e) = pushed {
            *error = Some(e);
        }
    }

    /// Calls `f` with each version's row in (URL key, digest) order, its dates sorted and
    /// unique; a version whose earliest capture has no row (lost, or its record ended
    /// early) is left out. Returns the number of rows.
    pub(super) fn into_rows(
        self,
        mut f: impl FnMut(SegmentRow) -> io::Result<()>,
    ) -> io::Result<u64> {
        let mut map = self.map.into_inner().expect("versions lock");
        let spill = self.rows.into_inner().expect("rows lock");
        if let Some(e) = spill.error {
            return Err(e);
        }
        let mut want = Vec::new();
        let mut rows = 0u64;
        spill.sorter.finish_with(|line| {
            let json = nth_field(line, 3)?;
            let mut row: SegmentRow = serde_json::from_slice(json).map_err(io::Error::other)?;
            let key = (
                std::mem::take(&mut row.urlkey),
                std::mem::take(&mut row.digest),
            );
            let Some(v) = map.get(&key) else {
                // Already written: a row offered twice for one capture.
                return Ok(());
            };
            want.clear();
            push_sort_key(&mut want, &key, &v.best);
            if !line.starts_with(&want) {
                return Ok(());
            }
            let mut v = map.remove(&key).expect("looked up above");
            v.dates.sort();
            v.dates.dedup();
            (row.urlkey, row.digest) = key;
            row.dates = v.dates;
            rows += 1;
            f(row)
        })?;
        Ok(rows)
    }
}

/// `URLKEY \x01 DIGEST \x01 DATE \x02 ARCHIVE \x02 OFFSET \x01`: byte order is version
/// order (`\x01` sorts below every byte a key holds once [`sort_safe`] made it safe), and
/// the capture's order is part of the key, so the row of the earliest capture can be
/// recognised when it comes back.
fn push_sort_key(line: &mut Vec<u8>, key: &VersionKey, order: &Order) {
    line.extend_from_slice(sort_safe(&key.0).as_bytes());
    line.push(1);
    line.extend_from_slice(sort_safe(&key.1).as_bytes());
    line.push(1);
    line.extend_from_slice(sort_safe(&order.0).as_bytes());
    line.extend_from_slice(format!("\x02{:020}\x02{:020}", order.1, order.2).as_bytes());
    line.push(1);
}

/// The bytes after the `n`-th `\x01` of a sort line.
fn nth_field(line: &[u8], n: usize) -> io::Result<&[u8]> {
    let at = memchr::memchr_iter(1, line)
        .nth(n - 1)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "corrupt row sort line"))?;
    Ok(&line[at + 1..])
}
