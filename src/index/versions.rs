//! Versions in (URL key, digest) order, in bounded memory, so `index` and `merge` hold one
//! version at a time, not the collection: up to 16 sorted segments are merged as they are
//! read (`merge_sorted_segments`); more, or a segment out of order, go through an external sort
//! ([`warcdex_cdx::sort::ExternalSorter`]) and come back grouped by version.
//!
//! A sort line is `URLKEY \x01 DIGEST \x01 FIRST_DATE \x01 INPUT \x01 JSON`. Byte order
//! of the line is the order of the tuple (URL key, digest, first date, input number),
//! because `\x01` sorts below every byte a key holds (keys are made sort-safe by
//! [`sort_safe`]). So within a version the earliest capture comes first, and on a tie the
//! input named first: the row [`SegmentRow::absorb`] keeps.

use std::io;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use warcdex_cdx::sort::{ExternalSorter, SortOptions};

use super::Error;
use crate::segment::layout::ROWS_FILE;
use crate::segment::rows::{read_rows_with, Columns, RowReader};
use crate::segment::SegmentRow;

/// One input row, with what a merged index carries besides the row.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct VersionRecord {
    /// The row (outlinks included when the input is a segment).
    pub row: SegmentRow,
    /// Anchor texts already inverted (an index being merged); empty for segments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub anchors: Vec<String>,
    /// The source of each anchor ([`crate::schema::anchor_source`]), in the same order;
    /// empty for segments and for an index built before anchors had sources.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub anchor_sources: Vec<u64>,
    /// Whether each anchor is from the same host, in the same order; empty when all are
    /// external (segments, and indexes built before internal anchors were kept).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub anchor_internal: Vec<bool>,
    /// Link boost already computed (an index being merged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boost: Option<f64>,
}

/// Every record of one version, earliest capture first, each with its input number.
pub type VersionGroup = Vec<(u32, VersionRecord)>;

pub use crate::segment::sort_safe;

/// Sorts records into versions.
#[derive(Debug)]
pub struct VersionSorter {
    sorter: ExternalSorter,
    line: Vec<u8>,
}

impl VersionSorter {
    /// An empty sorter with the given memory and temporary directory.
    pub fn new(opts: SortOptions) -> Self {
        VersionSorter {
            sorter: ExternalSorter::new(SortOptions {
                unique: false,
                ..opts
            }),
            line: Vec::new(),
        }
    }

    /// Adds a record read from input number `input`.
    pub fn push(&mut self, input: u32, rec: &VersionRecord) -> io::Result<()> {
        let r = &rec.row;
        self.line.clear();
        self.line.extend_from_slice(sort_safe(&r.urlkey).as_bytes());
        self.line.push(1);
        self.line.extend_from_slice(sort_safe(&r.digest).as_bytes());
        self.line.push(1);
        self.line
            .extend_from_slice(sort_safe(&r.first_date).as_bytes());
        self.line.push(1);
        self.line
            .extend_from_slice(format!("{input:08}").as_bytes());
        self.line.push(1);
        // serde_json escapes control characters, so the JSON holds no newline.
        serde_json::to_writer(&mut self.line, rec).map_err(io::Error::other)?;
        self.sorter.push(&self.line)
    }

    /// Calls `f` with each version's records in (URL key, digest) order. Returns the
    /// number of versions.
    pub fn finish(self, mut f: impl FnMut(VersionGroup) -> io::Result<()>) -> io::Result<u64> {
        let mut group: VersionGroup = Vec::new();
        let mut group_key: Vec<u8> = Vec::new();
        let mut versions = 0u64;
        self.sorter.finish_with(|line| {
            let (key, input, json) = split_line(line)?;
            if key != group_key.as_slice() && !group.is_empty() {
                versions += 1;
                f(std::mem::take(&mut group))?;
            }
            if group.is_empty() {
                group_key.clear();
                group_key.extend_from_slice(key);
            }
            let rec: VersionRecord = serde_json::from_slice(json).map_err(io::Error::other)?;
            group.push((input, rec));
            Ok(())
        })?;
        if !group.is_empty() {
            versions += 1;
            f(group)?;
        }
        Ok(versions)
    }
}

/// Splits a sort line into the version key (URL key and digest), the input number and
/// the JSON record.
fn split_line(line: &[u8]) -> io::Result<(&[u8], u32, &[u8])> {
    let bad = || io::Error::from(Error::Corrupt("version sort line"));
    let mut seps = memchr::memchr_iter(1, line);
    let _urlkey_end = seps.next().ok_or_else(bad)?;
    let digest_end = seps.next().ok_or_else(bad)?;
    let date_end = seps.next().ok_or_else(bad)?;
    let input_end = seps.next().ok_or_else(bad)?;
    let input = std::str::from_utf8(&line[date_end + 1..input_end])
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(bad)?;
    Ok((&line[..digest_end], input, &line[input_end + 1..]))
}

/// [`merge_sorted_segments`]'s error when a segment is not in (URL key, digest) order.
#[derive(Debug, thiserror::Error)]
#[error("{}: segment rows out of (URL key, digest) order", .0.display())]
struct OutOfOrder(PathBuf);

/// Whether `e` is [`merge_sorted_segments`] finding a segment out of order (the caller
/// then sorts instead).
pub fn is_out_of_order(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<OutOfOrder>())
}

/// Calls `f` with each version of the segments, in (URL key, digest) order, by merging
/// the segments' rows, which `import` writes in that order: no sort, no copy. A
/// segment whose rows go backwards stops it with an error [`is_out_of_order`] knows
/// (nothing is lost: the caller starts again with [`sort_segments`]).
pub fn merge_sorted_segments(
    segments: &[PathBuf],
    columns: Columns,
    f: &mut dyn FnMut(VersionGroup) -> io::Result<()>,
) -> io::Result<()> {
    let mut readers = Vec::new();
    for seg in segments {
        readers.push(read_rows_with(&seg.join(ROWS_FILE), columns)?);
    }
    // The next row of each segment, with its sort key.
    let mut heads: Vec<Option<(String, SegmentRow)>> = Vec::with_capacity(readers.len());
    for r in &mut readers {
        heads.push(next_keyed(r)?);
    }
    loop {
        // The smallest key, the first segment holding it on a tie: the input order of
        // the external sort, so both paths fold a version the same way.
        let Some(min) = heads
            .iter()
            .enumerate()
            .filter_map(|(i, h)| h.as_ref().map(|(k, _)| (k, i)))
            .min()
            .map(|(k, _)| k.clone())
        else {
            return Ok(());
        };
        let mut group: VersionGroup = Vec::new();
        for (i, head) in heads.iter_mut().enumerate() {
            if head.as_ref().is_some_and(|(k, _)| *k == min) {
                let (_, row) = head.take().expect("checked");
                group.push((
                    i as u32,
                    VersionRecord {
                        row,
                        ..VersionRecord::default()
                    },
                ));
                let next = next_keyed(&mut readers[i])?;
                if next.as_ref().is_some_and(|(k, _)| *k <= min) {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        OutOfOrder(segments[i].clone()),
                    ));
                }
                *head = next;
            }
        }
        // Earliest capture first, as the external sort gives them.
        group.sort_by(|(ia, a), (ib, b)| (&a.row.first_date, ia).cmp(&(&b.row.first_date, ib)));
        f(group)?;
    }
}

/// A row and its version sort key (sort-safe URL key, `\x01`, digest).
fn next_keyed(r: &mut RowReader) -> io::Result<Option<(String, SegmentRow)>> {
    Ok(r.next().transpose()?.map(|row| (version_key(&row), row)))
}

/// A version's place in (URL key, digest) order, as segments are merged by it:
/// `URLKEY \x01 DIGEST`, both sort-safe.
pub(crate) fn version_key(row: &SegmentRow) -> String {
    format!("{}\x01{}", sort_safe(&row.urlkey), sort_safe(&row.digest))
}

/// Calls `f` with each version of the segments, in (URL key, digest) order, through
/// the external version sort: for segments in any order.
pub fn sort_segments(
    segments: &[PathBuf],
    sort: &SortOptions,
    columns: Columns,
    f: &mut dyn FnMut(VersionGroup) -> io::Result<()>,
) -> io::Result<()> {
    let mut versions = VersionSorter::new(sort.clone());
    for (input, seg) in segments.iter().enumerate() {
        for row in read_rows_with(&seg.join(ROWS_FILE), columns)? {
            let rec = VersionRecord {
                row: row?,
                ..VersionRecord::default()
            };
            versions.push(input as u32, &rec)?;
        }
    }
    versions.finish(f)?;
    Ok(())
}

/// Folds a version's records into one row: dates unioned, the earliest capture kept.
pub fn absorb_all(group: VersionGroup) -> SegmentRow {
    let mut it = group.into_iter();
    let mut row = it.next().map(|(_, r)| r.row).unwrap_or_default();
    for (_, rec) in it {
        row.absorb(rec.row);
    }
    row
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    fn rec(urlkey: &str, digest: &str, date: &str) -> VersionRecord {
        VersionRecord {
            row: SegmentRow {
                key: format!("{urlkey} {digest}"),
                urlkey: urlkey.into(),
                digest: digest.into(),
                dates: vec![date.into()],
                first_date: date.into(),
                ..SegmentRow::default()
            },
            ..VersionRecord::default()
        }
    }

    /// Versions come out in (URL key, digest) order with a prefix key first, each group
    /// earliest first, ties by input number; tiny memory forces spills and a merge.
    #[test]
    fn groups_in_key_order_earliest_first() {
        let mut s = VersionSorter::new(SortOptions {
            memory: 200,
            ..SortOptions::default()
        });
        s.push(1, &rec("a,b)/x", "sha1:B", "2007")).unwrap();
        s.push(0, &rec("a,b)/xy", "sha1:A", "2006")).unwrap();
        s.push(1, &rec("a,b)/x", "sha1:A", "2005")).unwrap();
        s.push(0, &rec("a,b)/x", "sha1:B", "2007")).unwrap();
        s.push(0, &rec("a,b)/x", "sha1:B", "2001")).unwrap();
        let mut seen = Vec::new();
        let n = s
            .finish(|g| {
                seen.push(
                    g.iter()
                        .map(|(i, r)| {
                            format!("{} {} {} {i}", r.row.urlkey, r.row.digest, r.row.first_date)
                        })
                        .collect::<Vec<_>>(),
                );
                Ok(())
            })
            .unwrap();
        assert_eq!(n, 3);
        assert_eq!(
            seen,
            [
                vec!["a,b)/x sha1:A 2005 1"],
                vec![
                    "a,b)/x sha1:B 2001 0",
                    "a,b)/x sha1:B 2007 0",
                    "a,b)/x sha1:B 2007 1"
                ],
                vec!["a,b)/xy sha1:A 2006 0"],
            ]
        );
    }

    #[test]
    fn separators_in_keys_are_escaped() {
        assert_eq!(sort_safe("a\x01b\nc"), "a%01b%0Ac");
        assert!(matches!(sort_safe("plain"), Cow::Borrowed(_)));
    }
}
