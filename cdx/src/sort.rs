//! External sort and k-way merge of text lines in C byte order.
//!
//! CDX files must be sorted the way `LC_ALL=C sort` sorts them: whole lines
//! (without the `\n`) compared byte by byte, so that binary search and merges
//! agree with every other CDX tool. Inputs can be far larger than RAM, so the
//! sorter keeps at most [`SortOptions::memory`] bytes of lines, spills sorted
//! runs to temporary files and merges those at the end.
//!
//! Runs are unnamed temporary files (`tempfile::tempfile_in`): the operating
//! system deletes them when their handle is closed, which happens when the
//! sorter is finished or dropped, on error paths, and even if the process is
//! killed.

use std::cmp::Ordering;
use std::collections::binary_heap::PeekMut;
use std::collections::BinaryHeap;
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};
use std::mem;
use std::path::PathBuf;

use rayon::slice::ParallelSliceMut;

/// Runs merged at once; more would need more file handles and read buffers
/// than the memory budget can pay for, so merging becomes multi-pass.
const FAN_IN: usize = 64;
/// Read/write buffer of a run file when memory is plentiful.
const MAX_IO_BUF: usize = 256 * 1024;
/// Below this, buffered I/O degenerates into a syscall every few lines, so
/// tiny memory budgets are allowed to overshoot by this much per file.
const MIN_IO_BUF: usize = 8 * 1024;
/// What one in-memory line costs besides its bytes.
const ENTRY_SIZE: usize = mem::size_of::<Entry>();

/// Options of an external sort.
#[derive(Debug, Clone)]
pub struct SortOptions {
    /// Bytes of line data held in memory before a sorted run is written to
    /// disk (default 128 MiB). The per-line index counts against it too; read
    /// buffers of the final merge are kept to about a quarter of it.
    pub memory: usize,
    /// Where temporary runs go (default: [`std::env::temp_dir`]).
    pub tmp_dir: Option<PathBuf>,
    /// Drop repeated identical lines (like `sort -u`).
    pub unique: bool,
}

impl Default for SortOptions {
    fn default() -> Self {
        SortOptions {
            memory: 128 * 1024 * 1024,
            tmp_dir: None,
            unique: false,
        }
    }
}

/// One line in the arena. The first bytes are copied in as a big-endian
/// integer so that most comparisons during the in-memory sort are decided
/// without touching the (cache-cold) arena. Sixteen bytes, not eight: URL keys
/// share their first eight bytes often (`com,exam`, a collection of one site's
/// hosts): on scripts/bench-scale.sh's million versions, 16 bytes took a third
/// off `sort-cdx`'s user time (2.15 s to 1.41 s), a fifth at 100,000.
#[derive(Clone, Copy)]
struct Entry {
    prefix: u128,
    start: usize,
    len: usize,
}

/// Bytes of a line held in [`Entry::prefix`].
const PREFIX_LEN: usize = 16;

/// Runs of at least this many lines are sorted on all cores (below it, starting the
/// threads costs more than they save).
const PARALLEL_SORT_MIN: usize = 1 << 16;

/// Zero padding is sound here: a line that runs out within the prefix is a
/// prefix of any line it ties with, so it must sort first anyway, and a real
/// byte can never compare below the padding's 0.
fn prefix_of(line: &[u8]) -> u128 {
    let mut buf = [0u8; PREFIX_LEN];
    let n = line.len().min(PREFIX_LEN);
    buf[..n].copy_from_slice(&line[..n]);
    u128::from_be_bytes(buf)
}

fn cmp_entries(arena: &[u8], a: &Entry, b: &Entry) -> Ordering {
    match a.prefix.cmp(&b.prefix) {
        Ordering::Equal => {
            let x = &arena[a.start..a.start + a.len];
            let y = &arena[b.start..b.start + b.len];
            if a.len >= PREFIX_LEN && b.len >= PREFIX_LEN {
                x[PREFIX_LEN..].cmp(&y[PREFIX_LEN..])
            } else {
                x.cmp(y)
            }
        }
        unequal => unequal,
    }
}

/// Collects lines, spills sorted runs to temporary files, then merges them.
///
/// ```
/// use warcdex_cdx::{ExternalSorter, SortOptions};
/// let mut sorter = ExternalSorter::new(SortOptions::default());
/// for line in ["b", "a b", "ab", "a"] {
///     sorter.push(line.as_bytes()).unwrap();
/// }
/// let mut out = Vec::new();
/// sorter.finish_into(&mut out).unwrap();
/// assert_eq!(out, b"a\na b\nab\nb\n");
/// ```
pub struct ExternalSorter {
    opts: SortOptions,
    arena: Vec<u8>,
    index: Vec<Entry>,
    /// Sorted runs on disk, oldest first, each positioned at its start.
    runs: Vec<File>,
    pushed: u64,
    /// See [`ExternalSorter::merging_last_lines_from_memory`].
    last_from_memory: bool,
}

impl fmt::Debug for ExternalSorter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExternalSorter")
            .field("opts", &self.opts)
            .field("buffered_lines", &self.index.len())
            .field("buffered_bytes", &self.arena.len())
            .field("runs", &self.runs.len())
            .field("pushed", &self.pushed)
            .finish()
    }
}

impl ExternalSorter {
    /// Creates an empty sorter; nothing is allocated or written until lines
    /// arrive.
    pub fn new(opts: SortOptions) -> Self {
        ExternalSorter {
            opts,
            arena: Vec::new(),
            index: Vec::new(),
            runs: Vec::new(),
            pushed: 0,
            last_from_memory: false,
        }
    }

    /// Merges the lines still in memory at the end with the runs as they are, instead of
    /// writing them as one more run first: for a caller whose consumer of the sorted
    /// lines holds little (`sort-cdx`, `dedup-cdx`), as the lines' memory stays taken
    /// during the merge. At 1,000,000 versions that spared a third of the runs' bytes
    /// and took `sort-cdx` from 4.4–5.1 s to 3.2–3.3 s; `import` and `index`, whose
    /// consumers build a segment or an index, peaked 100 MiB higher with it.
    pub fn merging_last_lines_from_memory(mut self) -> Self {
        self.last_from_memory = true;
        self
    }

    /// Adds one line (without its line terminator; a trailing `"\n"` or
    /// `"\r\n"` is NOT stripped by push — the caller passes the bare line).
    ///
    /// A line containing `\n` is refused with [`io::ErrorKind::InvalidInput`]:
    /// runs are newline-separated, so it would come back as two lines.
    pub fn push(&mut self, line: &[u8]) -> io::Result<()> {
        if memchr::memchr(b'\n', line).is_some() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "line to sort contains a newline",
            ));
        }
        let needed = self.arena.len() + line.len() + (self.index.len() + 1) * ENTRY_SIZE;
        if needed > self.opts.memory && !self.index.is_empty() {
            self.spill()?;
        }
        // Vec's doubling could leave capacity at nearly twice the budget;
        // growing by hand keeps each buffer within `memory` (or one line).
        let limit = self.opts.memory;
        if self.arena.capacity() - self.arena.len() < line.len() {
            let min = self.arena.len() + line.len();
            let cap = (self.arena.capacity() * 2).max(4096).min(limit).max(min);
            self.arena.reserve_exact(cap - self.arena.len());
        }
        if self.index.capacity() == self.index.len() {
            let min = self.index.len() + 1;
            let cap = (self.index.capacity() * 2)
                .max(256)
                .min(limit / ENTRY_SIZE)
                .max(min);
            self.index.reserve_exact(cap - self.index.len());
        }
        self.index.push(Entry {
            prefix: prefix_of(line),
            start: self.arena.len(),
            len: line.len(),
        });
        self.arena.extend_from_slice(line);
        self.pushed += 1;
        Ok(())
    }

    /// Number of lines pushed so far.
    pub fn len(&self) -> u64 {
        self.pushed
    }

    /// Whether no line has been pushed yet.
    pub fn is_empty(&self) -> bool {
        self.pushed == 0
    }

    /// Sorts what is left and calls `f` with every line in order (`unique`
    /// applied). Returns the number of lines passed to `f`.
    ///
    /// An error from `f` stops the sort and is returned as is.
    pub fn finish_with(mut self, mut f: impl FnMut(&[u8]) -> io::Result<()>) -> io::Result<u64> {
        if self.runs.is_empty() {
            self.sort_index();
            let unique = self.opts.unique;
            let mut emitted = 0;
            let mut last: Option<&[u8]> = None;
            for e in &self.index {
                let line = &self.arena[e.start..e.start + e.len];
                if unique && last == Some(line) {
                    continue;
                }
                f(line)?;
                emitted += 1;
                last = Some(line);
            }
            return Ok(emitted);
        }
        if self.last_from_memory && !self.index.is_empty() && self.runs.len() < FAN_IN {
            // The runs read through small buffers, so the merge stays within the budget
            // the lines were held in.
            self.sort_index();
            let arena = mem::take(&mut self.arena);
            let index = mem::take(&mut self.index);
            let runs = mem::take(&mut self.runs);
            let mut readers: Vec<Box<dyn BufRead + '_>> = runs
                .into_iter()
                .map(|file| Box::new(BufReader::with_capacity(MERGE_WITH_MEMORY_BUF, file)) as _)
                .collect();
            let in_memory = SortedLines {
                arena: &arena,
                index: &index,
                next: 0,
                partial: 0,
            };
            readers.push(Box::new(BufReader::with_capacity(
                MERGE_WITH_MEMORY_BUF,
                in_memory,
            )));
            return merge_sorted(readers, self.opts.unique, f);
        }
        if !self.index.is_empty() {
            self.spill()?;
        }
        // The merge needs the memory that held lines for its buffers.
        self.arena = Vec::new();
        self.index = Vec::new();
        self.reduce_runs()?;
        let runs = mem::take(&mut self.runs);
        let buf = io_buf_size(self.opts.memory, runs.len());
        let readers = runs
            .into_iter()
            .map(|file| BufReader::with_capacity(buf, file))
            .collect();
        merge_sorted(readers, self.opts.unique, f)
    }

    /// Writes each line followed by `b'\n'` to `out` (buffered here, so an
    /// unbuffered writer is fine) and returns the number of lines written.
    pub fn finish_into<W: Write>(self, out: W) -> io::Result<u64> {
        let mut out = BufWriter::with_capacity(64 * 1024, out);
        let n = self.finish_with(|line| {
            out.write_all(line)?;
            out.write_all(b"\n")
        })?;
        out.flush()?;
        Ok(n)
    }

    fn sort_index(&mut self) {
        let arena = &self.arena;
        let cmp = |a: &Entry, b: &Entry| cmp_entries(arena, a, b);
        // On every core when the run is large: lines that compare equal are equal
        // bytes, so an unstable sort, parallel or not, writes the same run. (The sort
        // of the links in `index` was a third of its single-threaded pass 2.)
        if self.index.len() >= PARALLEL_SORT_MIN {
            self.index.par_sort_unstable_by(cmp);
        } else {
            self.index.sort_unstable_by(cmp);
        }
    }

    fn new_run(&self) -> io::Result<File> {
        temp_file(self.opts.tmp_dir.as_deref())
    }

    /// Writes the buffered lines as one sorted run and empties the buffer
    /// (keeping its capacity for the next run).
    fn spill(&mut self) -> io::Result<()> {
        self.sort_index();
        let file = self.new_run()?;
        let mut w = BufWriter::with_capacity(io_buf_size(self.opts.memory, 1), file);
        let mut last: Option<&[u8]> = None;
        for e in &self.index {
            let line = &self.arena[e.start..e.start + e.len];
            if self.opts.unique && last == Some(line) {
                continue;
            }
            w.write_all(line)?;
            w.write_all(b"\n")?;
            last = Some(line);
        }
        let file = finish_run(w)?;
        self.runs.push(file);
        self.arena.clear();
        self.index.clear();
        Ok(())
    }

    /// Merges runs until at most [`FAN_IN`] are left. Oldest runs go first
    /// and results join the back of the queue, so every line is rewritten
    /// about log_64(runs) times; the last merge of a pass only takes as many
    /// runs as needed to reach [`FAN_IN`], sparing a full extra pass.
    fn reduce_runs(&mut self) -> io::Result<()> {
        while self.runs.len() > FAN_IN {
            let take = FAN_IN.min(self.runs.len() - FAN_IN + 1);
            let group: Vec<File> = self.runs.drain(..take).collect();
            let buf = io_buf_size(self.opts.memory, take + 1);
            let readers = group
                .into_iter()
                .map(|file| BufReader::with_capacity(buf, file))
                .collect();
            let mut w = BufWriter::with_capacity(buf, self.new_run()?);
            merge_sorted(readers, self.opts.unique, |line| {
                w.write_all(line)?;
                w.write_all(b"\n")
            })?;
            let file = finish_run(w)?;
            self.runs.push(file);
        }
        Ok(())
    }
}

/// Read buffer of each run when the last lines are merged from memory.
const MERGE_WITH_MEMORY_BUF: usize = 64 * 1024;

/// Sorted lines held in memory, read as a run's bytes (each line and its `\n`).
struct SortedLines<'a> {
    arena: &'a [u8],
    index: &'a [Entry],
    /// The entry being read.
    next: usize,
    /// Bytes of it already read (its `\n` is byte `len`).
    partial: usize,
}

impl io::Read for SortedLines<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut n = 0;
        while n < buf.len() {
            let Some(e) = self.index.get(self.next) else {
                break;
            };
            let line = &self.arena[e.start..e.start + e.len];
            if self.partial < e.len {
                let take = (e.len - self.partial).min(buf.len() - n);
                buf[n..n + take].copy_from_slice(&line[self.partial..self.partial + take]);
                self.partial += take;
                n += take;
            } else {
                buf[n] = b'\n';
                n += 1;
                self.next += 1;
                self.partial = 0;
            }
        }
        Ok(n)
    }
}

/// Flushes a run and rewinds it for reading.
fn finish_run(w: BufWriter<File>) -> io::Result<File> {
    let mut file = w.into_inner().map_err(|e| e.into_error())?;
    file.seek(SeekFrom::Start(0))?;
    Ok(file)
}

/// Buffer per file when `files` files are open at once: all of them together
/// stay within a quarter of the budget, the rest is left to the caller's
/// output and allocator slack.
fn io_buf_size(memory: usize, files: usize) -> usize {
    (memory / 4 / files.max(1)).clamp(MIN_IO_BUF, MAX_IO_BUF)
}

/// Reads the next line into `buf` without its `\n` (a `\r` stays, as with
/// `sort`); false at end of input. A final line without newline still counts.
fn read_line<R: BufRead>(r: &mut R, buf: &mut Vec<u8>) -> io::Result<bool> {
    buf.clear();
    if r.read_until(b'\n', buf)? == 0 {
        return Ok(false);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
    }
    Ok(true)
}

/// Current line of one merge input. Ordered in reverse so that
/// `BinaryHeap`, a max-heap, yields the smallest line first.
struct Head {
    line: Vec<u8>,
    src: usize,
}

impl PartialEq for Head {
    fn eq(&self, other: &Self) -> bool {
        self.line == other.line
    }
}

impl Eq for Head {}

impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Head {
    fn cmp(&self, other: &Self) -> Ordering {
        other.line.cmp(&self.line)
    }
}

/// Merges inputs that are each already sorted (C byte order) into one sorted
/// stream, calling `f` with every line; returns the number of lines passed to
/// `f`.
///
/// Reads lines split on `b'\n'` (a trailing `"\r"` is kept as part of the
/// line, as `sort` does); a final line without newline is still a line.
/// With `unique`, a line equal to the one emitted before it is skipped.
/// Inputs that are not sorted are not detected (see [`check_sorted`]); the
/// output is then merely some interleaving of them.
pub fn merge_sorted<R: BufRead>(
    mut inputs: Vec<R>,
    unique: bool,
    mut f: impl FnMut(&[u8]) -> io::Result<()>,
) -> io::Result<u64> {
    let mut heap = BinaryHeap::with_capacity(inputs.len());
    for (src, input) in inputs.iter_mut().enumerate() {
        let mut line = Vec::new();
        if read_line(input, &mut line)? {
            heap.push(Head { line, src });
        }
    }
    let mut emitted = 0;
    let mut last = Vec::new();
    // Each head's buffer is refilled in place and sifted down once, so the
    // loop neither allocates nor pops and pushes per line.
    while let Some(mut top) = heap.peek_mut() {
        if !(unique && emitted > 0 && top.line == last) {
            f(&top.line)?;
            emitted += 1;
            if unique {
                last.clear();
                last.extend_from_slice(&top.line);
            }
        }
        let src = top.src;
        if !read_line(&mut inputs[src], &mut top.line)? {
            PeekMut::pop(top);
        }
    }
    Ok(emitted)
}

/// An unnamed temporary file in `dir` (the system's temporary directory by default);
/// an error names the directory.
pub fn temp_file(dir: Option<&std::path::Path>) -> io::Result<File> {
    let dir = dir.map_or_else(std::env::temp_dir, std::path::Path::to_path_buf);
    tempfile::tempfile_in(&dir).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("cannot create a temporary file in {}: {e}", dir.display()),
        )
    })
}

/// [`merge_sorted`] (without `unique`) that also checks each input's order as it reads
/// it: `Ok(Err((input index, where)))` at the first line of an input that is smaller
/// than the line before it in that input (the lines before it have been passed to `f`).
pub fn merge_sorted_checked<R: BufRead>(
    mut inputs: Vec<R>,
    mut f: impl FnMut(&[u8]) -> io::Result<()>,
) -> io::Result<Result<u64, (usize, OrderError)>> {
    let mut heap = BinaryHeap::with_capacity(inputs.len());
    let mut numbers = vec![0u64; inputs.len()];
    let mut previous = vec![Vec::new(); inputs.len()];
    for (src, input) in inputs.iter_mut().enumerate() {
        let mut line = Vec::new();
        if read_line(input, &mut line)? {
            numbers[src] = 1;
            heap.push(Head { line, src });
        }
    }
    let mut emitted = 0;
    while let Some(mut top) = heap.peek_mut() {
        f(&top.line)?;
        emitted += 1;
        let src = top.src;
        mem::swap(&mut previous[src], &mut top.line);
        if !read_line(&mut inputs[src], &mut top.line)? {
            PeekMut::pop(top);
            continue;
        }
        numbers[src] += 1;
        if previous[src].as_slice() > top.line.as_slice() {
            let error = OrderError {
                line: numbers[src],
                previous: mem::take(&mut previous[src]),
                current: mem::take(&mut top.line),
            };
            return Ok(Err((src, error)));
        }
    }
    Ok(Ok(emitted))
}

/// Where an input is out of order: 1-based line number, the previous line,
/// and the offending line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "line {line} is out of order: {:?} after {:?}",
    crate::message::echo_bytes(current),
    crate::message::echo_bytes(previous)
)]
pub struct OrderError {
    /// 1-based number of the offending line.
    pub line: u64,
    /// The line before it (without `\n`).
    pub previous: Vec<u8>,
    /// The offending line (without `\n`).
    pub current: Vec<u8>,
}

/// Checks that lines are in C byte order (with `unique`, strictly
/// increasing); `Ok(number of lines)` or the first violation.
///
/// The outer `Result` is for read errors, the inner one for the verdict, so
/// that callers can tell a broken disk from a badly sorted file.
pub fn check_sorted<R: BufRead>(mut input: R, unique: bool) -> io::Result<Result<u64, OrderError>> {
    let mut previous = Vec::new();
    let mut current = Vec::new();
    let mut n: u64 = 0;
    while read_line(&mut input, &mut current)? {
        n += 1;
        if n > 1 {
            let bad = match previous.as_slice().cmp(current.as_slice()) {
                Ordering::Less => false,
                Ordering::Equal => unique,
                Ordering::Greater => true,
            };
            if bad {
                return Ok(Err(OrderError {
                    line: n,
                    previous,
                    current,
                }));
            }
        }
        mem::swap(&mut previous, &mut current);
    }
    Ok(Ok(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(memory: usize, unique: bool, dir: &tempfile::TempDir) -> SortOptions {
        SortOptions {
            memory,
            tmp_dir: Some(dir.path().to_path_buf()),
            unique,
        }
    }

    fn sort_lines(lines: &[&[u8]], o: SortOptions) -> Vec<Vec<u8>> {
        let mut s = ExternalSorter::new(o);
        for l in lines {
            s.push(l).unwrap();
        }
        assert_eq!(s.len(), lines.len() as u64);
        let mut out = Vec::new();
        let n = s
            .finish_with(|l| {
                out.push(l.to_vec());
                Ok(())
            })
            .unwrap();
        assert_eq!(n, out.len() as u64);
        out
    }

    fn assert_dir_empty(dir: &tempfile::TempDir) {
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(left.is_empty(), "temporary files left: {left:?}");
    }

    /// Deterministic pseudo-random lines sharing prefixes, so tests need no
    /// extra crates.
    fn lines(n: usize) -> Vec<Vec<u8>> {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let len = (x % 12) as usize;
                (0..len)
                    .map(|i| [b'a', b'b', b' ', b'\r', 0x80, 0xff][((x >> (i * 3)) % 6) as usize])
                    .collect()
            })
            .collect()
    }

    #[test]
    fn empty_input() {
        let dir = tempfile::tempdir().unwrap();
        let s = ExternalSorter::new(opts(64, false, &dir));
        assert!(s.is_empty());
        let mut out = Vec::new();
        assert_eq!(s.finish_into(&mut out).unwrap(), 0);
        assert!(out.is_empty());
        assert_dir_empty(&dir);
    }

    /// The last lines merged from memory with the runs give what spilling them gives, with
    /// and without `unique`, for budgets from one line a run to everything in memory
    /// (lines longer than the 16-byte prefix included), and leave no file behind.
    #[test]
    fn last_lines_merged_from_memory_as_when_spilled() {
        let dir = tempfile::tempdir().unwrap();
        let mut input = lines(3000);
        input
            .extend((0..500).map(|i| format!("org,example)/a/very/long/path/{i:04}").into_bytes()));
        for unique in [false, true] {
            let mut expected = input.clone();
            expected.sort();
            if unique {
                expected.dedup();
            }
            for memory in [0, 700, 4096, 1 << 20] {
                let mut s = ExternalSorter::new(opts(memory, unique, &dir))
                    .merging_last_lines_from_memory();
                for l in &input {
                    s.push(l).unwrap();
                }
                let mut got = Vec::new();
                s.finish_with(|l| {
                    got.push(l.to_vec());
                    Ok(())
                })
                .unwrap();
                assert_eq!(got, expected, "memory {memory}, unique {unique}");
            }
        }
        assert_dir_empty(&dir);
    }

    /// A run large enough to be sorted on all cores gives the lines in byte order, with
    /// and without `unique`, whether it is spilled or merged from memory.
    #[test]
    fn runs_sorted_in_parallel_as_in_one_thread() {
        let dir = tempfile::tempdir().unwrap();
        let mut input = lines(PARALLEL_SORT_MIN + 5_000);
        input
            .extend((0..3_000).map(|i| format!("com,example)/long/path/{}", i % 700).into_bytes()));
        for unique in [false, true] {
            let mut expected = input.clone();
            expected.sort();
            if unique {
                expected.dedup();
            }
            let refs: Vec<&[u8]> = input.iter().map(Vec::as_slice).collect();
            let got = sort_lines(&refs, opts(64 << 20, unique, &dir));
            assert_eq!(got, expected, "in memory, unique {unique}");
        }
        assert_dir_empty(&dir);
    }

    #[test]
    fn single_line() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = ExternalSorter::new(opts(1 << 20, false, &dir));
        s.push(b"org,example)/ 20240101000000 x").unwrap();
        assert_eq!(s.len(), 1);
        assert!(!s.is_empty());
        let mut out = Vec::new();
        assert_eq!(s.finish_into(&mut out).unwrap(), 1);
        assert_eq!(out, b"org,example)/ 20240101000000 x\n");
    }

    #[test]
    fn empty_lines_are_lines() {
        let dir = tempfile::tempdir().unwrap();
        let got = sort_lines(&[b"b", b"", b""], opts(1 << 20, false, &dir));
        assert_eq!(got, vec![b"".to_vec(), b"".to_vec(), b"b".to_vec()]);
        let got = sort_lines(&[b"b", b"", b""], opts(0, true, &dir));
        assert_eq!(got, vec![b"".to_vec(), b"b".to_vec()]);
    }

    #[test]
    fn duplicates_kept_without_unique() {
        let dir = tempfile::tempdir().unwrap();
        let input: &[&[u8]] = &[b"b", b"a", b"b", b"a", b"b"];
        let got = sort_lines(input, opts(1 << 20, false, &dir));
        assert_eq!(got, [&b"a"[..], b"a", b"b", b"b", b"b"]);
        // Same through spilled runs.
        let got = sort_lines(input, opts(40, false, &dir));
        assert_eq!(got, [&b"a"[..], b"a", b"b", b"b", b"b"]);
    }

    #[test]
    fn unique_drops_duplicates() {
        let dir = tempfile::tempdir().unwrap();
        let input: &[&[u8]] = &[b"b", b"a", b"b", b"a", b"b", b"c"];
        for memory in [1 << 20, 60, 0] {
            let got = sort_lines(input, opts(memory, true, &dir));
            assert_eq!(got, [&b"a"[..], b"b", b"c"], "memory {memory}");
        }
    }

    #[test]
    fn prefixes_sort_first() {
        let dir = tempfile::tempdir().unwrap();
        let input: &[&[u8]] = &[
            b"ab",
            b"a b",
            b"a",
            b"abcdefgh",
            b"abcdefg",
            b"abcdefghi",
            b"abcdefg\0",
        ];
        let want: &[&[u8]] = &[
            b"a",
            b"a b",
            b"ab",
            b"abcdefg",
            b"abcdefg\0",
            b"abcdefgh",
            b"abcdefghi",
        ];
        assert_eq!(sort_lines(input, opts(1 << 20, false, &dir)), want);
        assert_eq!(sort_lines(input, opts(50, false, &dir)), want);
    }

    #[test]
    fn high_bytes_sort_after_ascii() {
        let dir = tempfile::tempdir().unwrap();
        let input: &[&[u8]] = &[b"\xc3\xa9", b"z", b"\x80", b"\xff", b"Z", b"a\r", b"a"];
        let want: &[&[u8]] = &[b"Z", b"a", b"a\r", b"z", b"\x80", b"\xc3\xa9", b"\xff"];
        assert_eq!(sort_lines(input, opts(1 << 20, false, &dir)), want);
    }

    #[test]
    fn push_rejects_newline() {
        let mut s = ExternalSorter::new(SortOptions::default());
        let err = s.push(b"a\nb").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(s.len(), 0);
        // A carriage return is just a byte.
        s.push(b"a\r").unwrap();
        let mut out = Vec::new();
        s.finish_into(&mut out).unwrap();
        assert_eq!(out, b"a\r\n");
    }

    #[test]
    fn in_memory_sort_writes_no_files() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = ExternalSorter::new(opts(1 << 20, false, &dir));
        for l in lines(1000) {
            s.push(&l).unwrap();
        }
        assert!(s.runs.is_empty());
        s.finish_with(|_| Ok(())).unwrap();
    }

    #[test]
    fn memory_budget_bounds_buffers() {
        let mut s = ExternalSorter::new(SortOptions {
            memory: 10_000,
            ..SortOptions::default()
        });
        for l in lines(5000) {
            s.push(&l).unwrap();
            assert!(s.arena.len() + s.index.len() * ENTRY_SIZE <= 10_000);
            assert!(s.arena.capacity() <= 10_000);
            assert!(s.index.capacity() * ENTRY_SIZE <= 10_000);
        }
        assert!(!s.runs.is_empty());
    }

    #[test]
    fn tiny_memory_multi_pass_merge() {
        let dir = tempfile::tempdir().unwrap();
        let input = lines(5000);
        let mut want = input.clone();
        want.sort();
        for unique in [false, true] {
            let mut s = ExternalSorter::new(opts(100, unique, &dir));
            for l in &input {
                s.push(l).unwrap();
            }
            assert!(s.runs.len() > 4 * FAN_IN, "runs: {}", s.runs.len());
            let mut got = Vec::new();
            let n = s
                .finish_with(|l| {
                    got.push(l.to_vec());
                    Ok(())
                })
                .unwrap();
            let mut want = want.clone();
            if unique {
                want.dedup();
            }
            assert_eq!(n, want.len() as u64);
            assert_eq!(got, want, "unique {unique}");
            assert_dir_empty(&dir);
        }
    }

    #[test]
    fn reduce_runs_leaves_fan_in() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = ExternalSorter::new(opts(100, false, &dir));
        for l in lines(400) {
            s.push(&l).unwrap();
        }
        s.spill().unwrap();
        assert!(s.runs.len() > FAN_IN);
        s.reduce_runs().unwrap();
        assert_eq!(s.runs.len(), FAN_IN);
    }

    #[test]
    fn temp_files_removed_after_finish_drop_and_error() {
        let dir = tempfile::tempdir().unwrap();
        let fill = |s: &mut ExternalSorter| {
            for l in lines(300) {
                s.push(&l).unwrap();
            }
            assert!(!s.runs.is_empty());
        };

        let mut s = ExternalSorter::new(opts(100, false, &dir));
        fill(&mut s);
        s.finish_into(io::sink()).unwrap();
        assert_dir_empty(&dir);

        let mut s = ExternalSorter::new(opts(100, false, &dir));
        fill(&mut s);
        drop(s);
        assert_dir_empty(&dir);

        let mut s = ExternalSorter::new(opts(100, false, &dir));
        fill(&mut s);
        let mut calls = 0;
        let err = s
            .finish_with(|_| {
                calls += 1;
                if calls == 10 {
                    Err(io::Error::other("stop"))
                } else {
                    Ok(())
                }
            })
            .unwrap_err();
        assert_eq!(err.to_string(), "stop");
        assert_dir_empty(&dir);
    }

    #[test]
    fn missing_tmp_dir_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = ExternalSorter::new(SortOptions {
            memory: 0,
            tmp_dir: Some(dir.path().join("nope")),
            unique: false,
        });
        s.push(b"a").unwrap();
        assert!(s.push(b"b").is_err());
    }

    #[test]
    fn merge_three_inputs() {
        let a: &[u8] = b"a\nc\nc\ne\n";
        let b: &[u8] = b"";
        let c: &[u8] = b"b\nc\nd\r\nf";
        let mut got = Vec::new();
        let n = merge_sorted(vec![a, b, c], false, |l| {
            got.push(l.to_vec());
            Ok(())
        })
        .unwrap();
        assert_eq!(n, 8);
        assert_eq!(got, [&b"a"[..], b"b", b"c", b"c", b"c", b"d\r", b"e", b"f"]);

        let mut got = Vec::new();
        let n = merge_sorted(vec![a, b, c], true, |l| {
            got.push(l.to_vec());
            Ok(())
        })
        .unwrap();
        assert_eq!(n, 6);
        assert_eq!(got, [&b"a"[..], b"b", b"c", b"d\r", b"e", b"f"]);
    }

    #[test]
    fn merge_nothing() {
        let n = merge_sorted(Vec::<&[u8]>::new(), true, |_| unreachable!()).unwrap();
        assert_eq!(n, 0);
        let n = merge_sorted(vec![&b""[..], b""], false, |_| unreachable!()).unwrap();
        assert_eq!(n, 0);
    }

    #[test]
    fn merge_checked_finds_the_input_and_line_out_of_order() {
        let a: &[u8] = b"a\nc\ne\n";
        let b: &[u8] = b"b\nd\nc\nf\n";
        let mut out = Vec::new();
        let r = merge_sorted_checked(vec![a, b], |l| {
            out.push(l.to_vec());
            Ok(())
        })
        .unwrap();
        let (src, e) = r.unwrap_err();
        assert_eq!((src, e.line), (1, 3));
        assert_eq!((e.previous, e.current), (b"d".to_vec(), b"c".to_vec()));
        let good: Vec<&[u8]> = vec![b"a\nc\n", b"b\nb\n"];
        let mut out = Vec::new();
        let r = merge_sorted_checked(good, |l| {
            out.push(String::from_utf8(l.to_vec()).unwrap());
            Ok(())
        });
        assert_eq!(r.unwrap(), Ok(4));
        assert_eq!(out, ["a", "b", "b", "c"]);
    }

    #[test]
    fn order_error_caps_the_lines_it_shows() {
        let long = vec![b'z'; 10_000];
        let e = OrderError {
            line: 2,
            previous: long.clone(),
            current: b"a".to_vec(),
        };
        let s = e.to_string();
        assert!(s.len() < 300, "{s}");
        assert!(s.contains(&format!("{}…", "z".repeat(200))), "{s}");
    }

    #[test]
    fn check_sorted_accepts_sorted() {
        let input: &[u8] = b"a\na\na b\nab\n\x80\n\xff";
        assert_eq!(check_sorted(input, false).unwrap(), Ok(6));
        assert_eq!(check_sorted(&b""[..], true).unwrap(), Ok(0));
        assert_eq!(check_sorted(&b"x"[..], true).unwrap(), Ok(1));
        assert_eq!(check_sorted(&b"\n\n"[..], false).unwrap(), Ok(2));
    }

    #[test]
    fn check_sorted_finds_first_bad_line() {
        let input: &[u8] = b"a\nb\nb\nab\nc\na\n";
        let err = check_sorted(input, false).unwrap().unwrap_err();
        assert_eq!(
            err,
            OrderError {
                line: 4,
                previous: b"b".to_vec(),
                current: b"ab".to_vec(),
            }
        );
        assert_eq!(
            err.to_string(),
            "line 4 is out of order: \"ab\" after \"b\""
        );
        let err = check_sorted(input, true).unwrap().unwrap_err();
        assert_eq!(err.line, 3);
        assert_eq!(err.previous, b"b");
        assert_eq!(err.current, b"b");
        // "a\r" sorts after "a": the carriage return is part of the line.
        let err = check_sorted(&b"a\r\na\n"[..], false).unwrap().unwrap_err();
        assert_eq!((err.line, err.current), (2, b"a".to_vec()));
    }
}
