//! Sorted-CDX plumbing: sort any CDX in C byte order in bounded memory, merge sorted
//! CDX files, check that a file is sorted. One legend line (the first seen) is kept
//! at the top; it sorts first anyway because it starts with a space.

use std::io::{self, BufRead, Write};
use std::path::PathBuf;

use crate::line::CdxLine;
use crate::sort::{check_sorted, merge_sorted_checked, ExternalSorter, OrderError, SortOptions};

/// What a sort or merge wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SortReport {
    /// Capture lines written.
    pub lines: u64,
    /// The legend written at the top, if any input had one.
    pub legend: Option<String>,
    /// Legend lines that differed from the first (dropped; the layouts may not match).
    pub conflicting_legends: u64,
}

/// Keeps the first legend line and counts different ones.
#[derive(Default)]
struct Legends {
    first: Option<Vec<u8>>,
    conflicting: u64,
}

impl Legends {
    /// True when `line` is a legend (and so not a capture).
    fn take(&mut self, line: &[u8]) -> bool {
        // `CdxLine::is_legend` on bytes: no UTF-8 check of every line (a tenth of
        // `sort-cdx`'s time at a million versions, measured with perf).
        if !line.starts_with(CdxLine::LEGEND_PREFIX.as_bytes()) {
            return false;
        }
        match &self.first {
            None => self.first = Some(line.to_vec()),
            Some(f) if f != line => self.conflicting += 1,
            Some(_) => {}
        }
        true
    }
}

fn strip_eol(line: &[u8]) -> &[u8] {
    let l = line.strip_suffix(b"\n").unwrap_or(line);
    l.strip_suffix(b"\r").unwrap_or(l)
}

/// Sorts the lines of `inputs` in C byte order (as `LC_ALL=C sort`), keeping
/// duplicates, in at most about `memory` bytes plus temporary runs in `tmp_dir`.
pub fn sort_cdx(
    inputs: Vec<Box<dyn BufRead + '_>>,
    out: &mut dyn Write,
    memory: usize,
    tmp_dir: Option<PathBuf>,
) -> io::Result<SortReport> {
    let mut sorter = ExternalSorter::new(SortOptions {
        memory,
        tmp_dir,
        unique: false,
    })
    .merging_last_lines_from_memory();
    let mut legends = Legends::default();
    let mut raw = Vec::with_capacity(512);
    for mut input in inputs {
        loop {
            raw.clear();
            if input.read_until(b'\n', &mut raw)? == 0 {
                break;
            }
            let line = strip_eol(&raw);
            if line.is_empty() || legends.take(line) {
                continue;
            }
            sorter.push(line)?;
        }
    }
    let mut report = SortReport {
        legend: legends
            .first
            .as_ref()
            .map(|l| String::from_utf8_lossy(l).into_owned()),
        conflicting_legends: legends.conflicting,
        ..SortReport::default()
    };
    let mut w = io::BufWriter::with_capacity(1 << 16, out);
    if let Some(l) = &legends.first {
        w.write_all(l)?;
        w.write_all(b"\n")?;
    }
    report.lines = sorter.finish_into(&mut w)?;
    w.flush()?;
    Ok(report)
}

/// An input of [`merge_cdx`] that is not sorted: which input (0-based, in argument
/// order) and where. Carried inside the `io::Error` (kind `InvalidData`) that
/// `merge_cdx` returns, so a caller can name the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "input {}: {error}; merge-cdx needs sorted inputs (sort-cdx sorts them)",
    input + 1
)]
pub struct MergeOrderError {
    /// Index of the input in the list given to [`merge_cdx`].
    pub input: usize,
    /// The first line out of order in that input.
    pub error: OrderError,
}

impl MergeOrderError {
    /// The `MergeOrderError` inside an error returned by [`merge_cdx`], if that is what
    /// it is.
    pub fn find(e: &io::Error) -> Option<&MergeOrderError> {
        e.get_ref().and_then(|e| e.downcast_ref())
    }
}

/// Merges CDX inputs that are each sorted into one sorted output, checking each input's
/// order as it goes: the first line out of order fails the merge with a
/// [`MergeOrderError`] (a merge of unsorted inputs would silently be unsorted).
pub fn merge_cdx(
    inputs: Vec<Box<dyn BufRead + '_>>,
    out: &mut dyn Write,
) -> io::Result<SortReport> {
    merge_cdx_with(inputs, out, false)
}

/// [`merge_cdx`] writing each distinct line once: a line equal to the one before is
/// dropped. Two inputs that list the same capture under the same file name (the same
/// WARC, plain in one and packed in a WACZ in the other, whose lines name the inner
/// WARC) then give one line, as a replay index should (pywb would list the capture
/// twice); the same record in two archives of different names stays two lines.
pub fn merge_cdx_distinct(
    inputs: Vec<Box<dyn BufRead + '_>>,
    out: &mut dyn Write,
) -> io::Result<SortReport> {
    merge_cdx_with(inputs, out, true)
}

fn merge_cdx_with(
    inputs: Vec<Box<dyn BufRead + '_>>,
    out: &mut dyn Write,
    distinct: bool,
) -> io::Result<SortReport> {
    let mut legends = Legends::default();
    let mut last: Vec<u8> = Vec::new();
    let mut w = io::BufWriter::with_capacity(1 << 16, out);
    let mut lines = 0u64;
    let checked = merge_sorted_checked(inputs, |line| {
        let line = strip_eol(line);
        if line.is_empty() {
            return Ok(());
        }
        let was_first = legends.first.is_none();
        if legends.take(line) {
            // Legends sort before every capture, so the first one is still at the top.
            if was_first {
                w.write_all(line)?;
                w.write_all(b"\n")?;
            }
            return Ok(());
        }
        if distinct {
            if lines > 0 && line == last.as_slice() {
                return Ok(());
            }
            last.clear();
            last.extend_from_slice(line);
        }
        lines += 1;
        w.write_all(line)?;
        w.write_all(b"\n")
    })?;
    if let Err((input, error)) = checked {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            MergeOrderError { input, error },
        ));
    }
    w.flush()?;
    Ok(SortReport {
        lines,
        legend: legends
            .first
            .as_ref()
            .map(|l| String::from_utf8_lossy(l).into_owned()),
        conflicting_legends: legends.conflicting,
    })
}

/// Checks that `input` is in C byte order; the first line out of order otherwise.
pub fn check_cdx(input: impl BufRead) -> io::Result<Result<u64, OrderError>> {
    check_sorted(input, false)
}
