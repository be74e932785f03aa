//! NutchWAX's de-duplication lists from CDX, in bounded memory:
//!
//! - [`dedup_cdx`]: every capture of a URL key + digest except the earliest, as
//!   `URLKEY sha1:DIGEST DATE14 FILE` (the exclusion list for import and the dates
//!   list for add-dates; docs/formats.md §4.2);
//! - [`revisits`]: every revisit as `URLKEY sha1:DIGEST DATE14` (§4.3, §1.7).
//!
//! Both project each capture to a line, sort the lines in C byte order without
//! duplicates (as the scripts' `sort -u`), and walk them. CDX files are normally
//! sorted already: then the inputs are merged and each URL key's lines sorted on their
//! own, which streams. If an input turns out not to be sorted, the run starts again
//! with an external sort of everything (stdin, which cannot be read twice, always
//! takes that path).

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::PathBuf;

use crate::line::CdxLine;
use crate::sort::{ExternalSorter, SortOptions};

/// Where CDX lines come from: a file, or `-` for stdin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// A file.
    File(PathBuf),
    /// Standard input.
    Stdin,
}

impl Input {
    /// `-` is stdin, anything else a path.
    pub fn from_arg(arg: &str) -> Input {
        if arg == "-" {
            Input::Stdin
        } else {
            Input::File(PathBuf::from(arg))
        }
    }

    /// The name used in messages.
    pub fn name(&self) -> String {
        match self {
            Input::File(p) => p.display().to_string(),
            Input::Stdin => "-".into(),
        }
    }

    /// Opens it for reading, buffered (the error names the file).
    pub fn open(&self) -> io::Result<Box<dyn BufRead>> {
        match self {
            Input::File(p) => {
                let f = File::open(p)
                    .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", p.display())))?;
                Ok(Box::new(BufReader::with_capacity(1 << 18, f)))
            }
            Input::Stdin => Ok(Box::new(BufReader::with_capacity(1 << 18, io::stdin()))),
        }
    }
}

/// Options shared by `dedup-cdx` and `revisits`.
#[derive(Debug, Clone)]
pub struct ListOptions {
    /// Memory for sorting, in bytes (the whole process stays near this).
    pub memory: usize,
    /// Where temporary sort runs go.
    pub tmp_dir: Option<PathBuf>,
    /// Stop at the first broken line instead of skipping it.
    pub strict: bool,
}

impl Default for ListOptions {
    fn default() -> Self {
        ListOptions {
            memory: 256 << 20,
            tmp_dir: None,
            strict: false,
        }
    }
}

/// A line that could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokenLine {
    /// The input's name.
    pub input: String,
    /// 1-based line number.
    pub line: u64,
    /// What is wrong.
    pub reason: String,
}

impl std::fmt::Display for BrokenLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: line {}: {}", self.input, self.line, self.reason)
    }
}

/// What a run read and wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListReport {
    /// Lines read (legend lines included).
    pub lines: u64,
    /// Legend lines skipped.
    pub legends: u64,
    /// Broken lines skipped.
    pub broken: u64,
    /// Lines written.
    pub written: u64,
    /// True when the inputs were not sorted and everything went through the external sort.
    pub external_sort: bool,
}

/// One capture's fields that the lists need, borrowed from its line where possible.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capture<'a> {
    /// URL key (field 1).
    pub urlkey: Cow<'a, str>,
    /// Digest without `sha1:`.
    pub digest: Cow<'a, str>,
    /// The 14-digit date.
    pub date: Cow<'a, str>,
    /// The file-name column (`-` when absent).
    pub filename: Cow<'a, str>,
    /// True for a revisit: mime `warc/revisit`, or a Wayback 1.x 9-field line whose
    /// filename is `-`.
    pub revisit: bool,
}

/// Parses one CDX line (9, 10 or 11 fields, or CDXJ) into what the lists need.
/// `Ok(None)` for a legend line. Fields are split on runs of white space, as awk does;
/// a URL holding spaces (pywb writes ARC URLs verbatim) is taken from the middle.
pub fn parse_capture(line: &str) -> Result<Option<Capture<'_>>, String> {
    let trimmed = line.trim_end_matches(['\n', '\r']);
    if CdxLine::is_legend(trimmed) {
        return Ok(None);
    }
    let (urlkey, date, digest, filename, revisit): (Cow<str>, Cow<str>, Cow<str>, Cow<str>, bool) =
        if is_cdxj(trimmed) {
            let (_, l) = CdxLine::parse(trimmed).map_err(|e| e.reason)?;
            let revisit = l.mime.as_deref() == Some("warc/revisit");
            (
                l.urlkey.into(),
                l.timestamp.into(),
                l.digest.unwrap_or_default().into(),
                l.filename.unwrap_or_else(|| "-".into()).into(),
                revisit,
            )
        } else {
            let (f, n) = classic_fields(trimmed);
            if n < 9 {
                return Err(format!("{n} fields; a CDX line has 9, 10 or 11"));
            }
            // Legend positions: N b a m s k ... g (g last).
            let filename = f[n.min(11) - 1];
            (
                f[0].into(),
                f[1].into(),
                f[5].into(),
                filename.into(),
                f[3] == "warc/revisit" || (n == 9 && filename == "-"),
            )
        };
    if date.len() != 14 || !date.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "bad date {:?}: not 14 digits",
            crate::message::echo(&date)
        ));
    }
    let digest = match digest {
        Cow::Borrowed(d) => Cow::Borrowed(d.strip_prefix("sha1:").unwrap_or(d)),
        Cow::Owned(d) => Cow::Owned(d.strip_prefix("sha1:").unwrap_or(&d).to_string()),
    };
    if digest.is_empty() || digest == "-" {
        return Err(format!("bad digest {:?}", crate::message::echo(&digest)));
    }
    Ok(Some(Capture {
        urlkey,
        digest,
        date,
        filename,
        revisit,
    }))
}

/// True when the third space-separated field opens a JSON object.
fn is_cdxj(line: &str) -> bool {
    let b = line.as_bytes();
    let mut spaces = memchr::memchr_iter(b' ', b);
    match (spaces.next(), spaces.next()) {
        (Some(_), Some(second)) => b.get(second + 1) == Some(&b'{'),
        _ => false,
    }
}

/// The first two and the last nine fields of a classic line (a URL with spaces only adds
/// fields in the middle) and the field count. Split on runs of white space as awk does.
fn double_space() -> &'static memchr::memmem::Finder<'static> {
    static F: std::sync::OnceLock<memchr::memmem::Finder<'static>> = std::sync::OnceLock::new();
    F.get_or_init(|| memchr::memmem::Finder::new(b"  "))
}

fn classic_fields(line: &str) -> ([&str; 11], usize) {
    fn push<'a>(f: &mut [&'a str; 11], n: &mut usize, field: &'a str) {
        if *n < 11 {
            f[*n] = field;
        } else {
            f.copy_within(3..11, 2);
            f[10] = field;
        }
        *n += 1;
    }
    let mut f = [""; 11];
    let mut n = 0;
    let b = line.as_bytes();
    // Indexers write single spaces: count them (a loop the compiler vectorizes), then
    // find the few fields needed with memchr. Tabs, runs of spaces or edge spaces, which
    // awk also treats as separators, take the general split.
    let spaces = b.iter().filter(|&&c| c == b' ').count();
    let odd = b.first() == Some(&b' ')
        || b.last() == Some(&b' ')
        || memchr::memchr3(b'\t', b'\x0b', b'\x0c', b).is_some()
        || double_space().find(b).is_some();
    if odd {
        for field in line.split_ascii_whitespace() {
            push(&mut f, &mut n, field);
        }
        return (f, n);
    }
    n = spaces + 1;
    // The first two fields from the front, the last nine (or fewer) from the back.
    let mut it = memchr::memchr_iter(b' ', b);
    let mut start = 0;
    for slot in f.iter_mut().take(2.min(n)) {
        let end = it.next().unwrap_or(b.len());
        *slot = &line[start..end];
        start = end + 1;
    }
    let tail = n.min(11) - 2.min(n);
    let mut end = b.len();
    let mut back = memchr::memrchr_iter(b' ', b);
    for k in (0..tail).rev() {
        let sp = back.next();
        let from = sp.map_or(0, |p| p + 1);
        f[2 + k] = &line[from..end];
        end = sp.unwrap_or(0);
    }
    (f, n)
}

/// Writes the exclusion list: every capture of a URL key + digest but the earliest.
pub fn dedup_cdx(
    inputs: &[Input],
    out: &mut dyn Write,
    opts: &ListOptions,
    on_broken: &mut dyn FnMut(&BrokenLine),
) -> io::Result<ListReport> {
    run_list(
        inputs,
        out,
        opts,
        on_broken,
        &mut Dedup { group: Vec::new() },
    )
}

/// Writes the revisit list: `URLKEY sha1:DIGEST DATE14` for every revisit, unique.
pub fn revisits(
    inputs: &[Input],
    out: &mut dyn Write,
    opts: &ListOptions,
    on_broken: &mut dyn FnMut(&BrokenLine),
) -> io::Result<ListReport> {
    run_list(inputs, out, opts, on_broken, &mut Revisits)
}

/// What a list keeps of each capture, and which of its sorted unique lines it writes.
trait ListKind {
    /// Appends the capture's projected line to `buf`; false to leave it out.
    fn project(&self, c: &Capture<'_>, buf: &mut Vec<u8>) -> bool {
        (self.projector())(c, buf)
    }
    /// The projection as a plain function (it runs on the reading thread).
    fn projector(&self) -> Projector;
    /// Sees the next line in order; writes it when it belongs to the list.
    fn emit(&mut self, line: &[u8], out: &mut dyn Write) -> io::Result<bool>;
    /// Forgets what `emit` saw (the run starts again).
    fn reset(&mut self);
}

/// Appends a capture's projected line to the buffer; false to leave it out.
type Projector = fn(&Capture<'_>, &mut Vec<u8>) -> bool;

/// `dedup-cdx`: the scripts' `print $1, "sha1:" $6, $2, FILE | sort -u`, then every
/// line whose URL key and digest equal the previous line's.
struct Dedup {
    group: Vec<u8>,
}

/// Appends the line `dedup-cdx` sorts for a capture, `URLKEY sha1:DIGEST DATE14 FILE`, to
/// `buf` (also used by `warcdex update`'s identity walk, src/collection/identity.rs).
pub fn project_dedup(c: &Capture<'_>, buf: &mut Vec<u8>) -> bool {
    for part in [
        &*c.urlkey,
        " sha1:",
        &*c.digest,
        " ",
        &*c.date,
        " ",
        &*c.filename,
    ] {
        buf.extend_from_slice(part.as_bytes());
    }
    true
}

fn project_revisit(c: &Capture<'_>, buf: &mut Vec<u8>) -> bool {
    if !c.revisit {
        return false;
    }
    for part in [&*c.urlkey, " sha1:", &*c.digest, " ", &*c.date] {
        buf.extend_from_slice(part.as_bytes());
    }
    true
}

impl ListKind for Dedup {
    fn projector(&self) -> Projector {
        project_dedup
    }

    fn emit(&mut self, line: &[u8], out: &mut dyn Write) -> io::Result<bool> {
        // The group is "URLKEY sha1:DIGEST": everything before the second space.
        let g = group_prefix(line);
        if !self.group.is_empty() && self.group == g {
            out.write_all(line)?;
            out.write_all(b"\n")?;
            return Ok(true);
        }
        self.group.clear();
        self.group.extend_from_slice(g);
        Ok(false)
    }

    fn reset(&mut self) {
        self.group.clear();
    }
}

/// `revisits`: `print $1 " sha1:" $6 " " $2` for revisit lines, `sort -u`.
struct Revisits;

impl ListKind for Revisits {
    fn projector(&self) -> Projector {
        project_revisit
    }

    fn emit(&mut self, line: &[u8], out: &mut dyn Write) -> io::Result<bool> {
        out.write_all(line)?;
        out.write_all(b"\n")?;
        Ok(true)
    }

    fn reset(&mut self) {}
}

fn group_prefix(line: &[u8]) -> &[u8] {
    match memchr::memchr_iter(b' ', line).nth(1) {
        Some(i) => &line[..i],
        None => line,
    }
}

/// Why the streaming pass gave up.
enum StreamOutcome {
    Done(ListReport),
    Unsorted,
}

fn run_list(
    inputs: &[Input],
    out: &mut dyn Write,
    opts: &ListOptions,
    on_broken: &mut dyn FnMut(&BrokenLine),
    kind: &mut dyn ListKind,
) -> io::Result<ListReport> {
    let can_retry = inputs.iter().all(|i| matches!(i, Input::File(_)));
    if can_retry {
        // Output waits in a temporary file until the streaming pass is known to hold.
        let mut spool = spool_file(opts)?;
        let mut broken = Vec::new();
        let outcome = {
            let mut w = io::BufWriter::with_capacity(1 << 16, &mut spool);
            let r = stream_sorted(inputs, &mut w, opts, &mut broken, kind)?;
            w.flush()?;
            r
        };
        if let StreamOutcome::Done(report) = outcome {
            for b in &broken {
                on_broken(b);
            }
            spool.seek(SeekFrom::Start(0))?;
            io::copy(&mut spool, out)?;
            out.flush()?;
            return Ok(report);
        }
        kind.reset();
    }
    external(inputs, out, opts, on_broken, kind)
}

fn spool_file(opts: &ListOptions) -> io::Result<File> {
    crate::sort::temp_file(opts.tmp_dir.as_deref())
}

/// Parses one raw line for the lists: counts it, and records a broken one (an error
/// with `strict`). `Ok(None)` for legend, blank and broken lines.
fn capture_of<'a>(
    raw: &'a [u8],
    text: &'a mut String,
    at: (&Input, u64),
    report: &mut ListReport,
    strict: bool,
    broken: &mut dyn FnMut(BrokenLine),
) -> io::Result<Option<Capture<'a>>> {
    report.lines += 1;
    // Invalid UTF-8 is kept as U+FFFD, as the awk scripts would pass it through.
    let line: &str = match std::str::from_utf8(raw) {
        Ok(s) => s,
        Err(_) => {
            *text = String::from_utf8_lossy(raw).into_owned();
            text
        }
    };
    if line.trim().is_empty() {
        return Ok(None);
    }
    match parse_capture(line) {
        Ok(None) => {
            report.legends += 1;
            Ok(None)
        }
        Ok(Some(c)) => Ok(Some(c)),
        Err(reason) => {
            report.broken += 1;
            let b = BrokenLine {
                input: at.0.name(),
                line: at.1,
                reason,
            };
            if strict {
                return Err(io::Error::new(io::ErrorKind::InvalidData, b.to_string()));
            }
            broken(b);
            Ok(None)
        }
    }
}

/// The external path: every projected line into one sorter, then walked.
fn external(
    inputs: &[Input],
    out: &mut dyn Write,
    opts: &ListOptions,
    on_broken: &mut dyn FnMut(&BrokenLine),
    kind: &mut dyn ListKind,
) -> io::Result<ListReport> {
    let mut report = ListReport {
        external_sort: true,
        ..ListReport::default()
    };
    let mut sorter = ExternalSorter::new(SortOptions {
        memory: opts.memory / 2,
        tmp_dir: opts.tmp_dir.clone(),
        unique: true,
    })
    .merging_last_lines_from_memory();
    let (mut buf, mut raw, mut text) = (Vec::with_capacity(256), Vec::new(), String::new());
    for input in inputs {
        let mut r = input.open()?;
        let mut n = 0u64;
        loop {
            raw.clear();
            if !read_line(&mut *r, &mut raw)? {
                break;
            }
            n += 1;
            let c = capture_of(
                &raw,
                &mut text,
                (input, n),
                &mut report,
                opts.strict,
                &mut |b| on_broken(&b),
            )?;
            if let Some(c) = c {
                buf.clear();
                if kind.project(&c, &mut buf) {
                    sorter.push(&buf)?;
                }
            }
        }
    }
    let mut w = io::BufWriter::with_capacity(1 << 16, out);
    let mut written = 0u64;
    sorter.finish_with(|line| {
        if kind.emit(line, &mut w)? {
            written += 1;
        }
        Ok(())
    })?;
    w.flush()?;
    report.written = written;
    Ok(report)
}

/// The streaming path for sorted inputs: a merge by line, the lines of one URL key
/// gathered, sorted and walked together. Gives up when a URL key goes backwards.
/// Reading, parsing and projecting run on a second thread, in chunks of lines.
fn stream_sorted(
    inputs: &[Input],
    out: &mut dyn Write,
    opts: &ListOptions,
    broken: &mut Vec<BrokenLine>,
    kind: &mut dyn ListKind,
) -> io::Result<StreamOutcome> {
    let project = kind.projector();
    let mut report = ListReport::default();
    let mut block = Block::new(opts);
    let mut current_key: Vec<u8> = Vec::new();
    let mut written = 0u64;
    let (tx, rx) = std::sync::mpsc::sync_channel::<Chunk>(4);
    std::thread::scope(|scope| -> io::Result<StreamOutcome> {
        scope.spawn(move || produce_chunks(inputs, opts.strict, project, tx));
        for chunk in rx {
            if let Some(e) = chunk.error {
                return Err(e);
            }
            report.lines += chunk.report.lines;
            report.legends += chunk.report.legends;
            report.broken += chunk.report.broken;
            broken.extend(chunk.broken);
            for &(a, l) in &chunk.spans {
                let line = &chunk.arena[a..a + l];
                let key = match memchr::memchr(b' ', line) {
                    Some(i) => &line[..i],
                    None => line,
                };
                if key != current_key.as_slice() {
                    written += block.flush(out, kind)?;
                    current_key.clear();
                    current_key.extend_from_slice(key);
                }
                block.push(line)?;
            }
            if chunk.unsorted {
                // Dropping the receiver stops the reading thread.
                return Ok(StreamOutcome::Unsorted);
            }
        }
        written += block.flush(out, kind)?;
        report.written = written;
        Ok(StreamOutcome::Done(report))
    })
}

/// Projected lines of consecutive input lines, and what reading them found.
#[derive(Default)]
struct Chunk {
    arena: Vec<u8>,
    spans: Vec<(usize, usize)>,
    report: ListReport,
    broken: Vec<BrokenLine>,
    /// A URL key went backwards: the inputs are not sorted.
    unsorted: bool,
    error: Option<io::Error>,
}

const CHUNK_LINES: usize = 16 * 1024;

/// The reading thread: merges the inputs, parses and projects each line, checks the
/// order, and sends chunks until the end, an error or a line out of order.
fn produce_chunks(
    inputs: &[Input],
    strict: bool,
    project: Projector,
    tx: std::sync::mpsc::SyncSender<Chunk>,
) {
    let mut chunk = Chunk::default();
    let result = (|| -> io::Result<()> {
        let mut readers = Vec::with_capacity(inputs.len());
        for input in inputs {
            readers.push(input.open()?);
        }
        let mut merged = MergedLines::new(readers)?;
        let (mut current_key, mut text) = (Vec::new(), String::new());
        while let Some((idx, line_no)) = merged.next_line()? {
            if merged.out_of_order {
                chunk.unsorted = true;
                return Ok(());
            }
            let mut found = Vec::new();
            let c = capture_of(
                &merged.current,
                &mut text,
                (&inputs[idx], line_no),
                &mut chunk.report,
                strict,
                &mut |b| found.push(b),
            )?;
            chunk.broken.extend(found);
            if let Some(c) = c {
                let key = c.urlkey.as_bytes();
                if key < current_key.as_slice() {
                    chunk.unsorted = true;
                    return Ok(());
                }
                if key != current_key.as_slice() {
                    current_key.clear();
                    current_key.extend_from_slice(key);
                }
                let start = chunk.arena.len();
                if project(&c, &mut chunk.arena) {
                    chunk.spans.push((start, chunk.arena.len() - start));
                }
            }
            if chunk.report.lines as usize >= CHUNK_LINES {
                let full = std::mem::take(&mut chunk);
                if tx.send(full).is_err() {
                    return Ok(());
                }
            }
        }
        Ok(())
    })();
    if let Err(e) = result {
        chunk.error = Some(e);
    }
    let _ = tx.send(chunk);
}

/// The projected lines of one URL key; spills to an external sorter if one key has
/// more lines than memory allows.
struct Block {
    arena: Vec<u8>,
    spans: Vec<(usize, usize)>,
    limit: usize,
    spill: Option<ExternalSorter>,
    opts: SortOptions,
}

impl Block {
    fn new(opts: &ListOptions) -> Self {
        Block {
            arena: Vec::new(),
            spans: Vec::new(),
            limit: (opts.memory / 4).max(1 << 16),
            spill: None,
            opts: SortOptions {
                memory: opts.memory / 4,
                tmp_dir: opts.tmp_dir.clone(),
                unique: true,
            },
        }
    }

    fn push(&mut self, line: &[u8]) -> io::Result<()> {
        if let Some(s) = self.spill.as_mut() {
            return s.push(line);
        }
        self.spans.push((self.arena.len(), line.len()));
        self.arena.extend_from_slice(line);
        if self.arena.len() + self.spans.len() * 16 > self.limit {
            let mut s = ExternalSorter::new(self.opts.clone());
            for &(a, l) in &self.spans {
                s.push(&self.arena[a..a + l])?;
            }
            self.arena.clear();
            self.spans.clear();
            self.spill = Some(s);
        }
        Ok(())
    }

    fn flush(&mut self, out: &mut dyn Write, kind: &mut dyn ListKind) -> io::Result<u64> {
        let mut written = 0;
        if let Some(s) = self.spill.take() {
            s.finish_with(|l| {
                if kind.emit(l, out)? {
                    written += 1;
                }
                Ok(())
            })?;
            return Ok(written);
        }
        let arena = &self.arena;
        self.spans
            .sort_unstable_by(|a, b| arena[a.0..a.0 + a.1].cmp(&arena[b.0..b.0 + b.1]));
        let mut prev: Option<&[u8]> = None;
        for &(a, l) in &self.spans {
            let line = &arena[a..a + l];
            if prev == Some(line) {
                continue;
            }
            prev = Some(line);
            if kind.emit(line, out)? {
                written += 1;
            }
        }
        self.arena.clear();
        self.spans.clear();
        Ok(written)
    }
}

/// Lines of several inputs merged in byte order, each input assumed sorted; notices
/// when one is not. Buffers are reused: no allocation per line.
struct MergedLines {
    readers: Vec<Box<dyn BufRead>>,
    heads: Vec<Vec<u8>>,
    live: Vec<bool>,
    line_nos: Vec<u64>,
    current: Vec<u8>,
    out_of_order: bool,
}

impl MergedLines {
    fn new(mut readers: Vec<Box<dyn BufRead>>) -> io::Result<Self> {
        let n = readers.len();
        let mut heads = vec![Vec::with_capacity(512); n];
        let mut live = vec![false; n];
        for i in 0..n {
            live[i] = read_line(&mut *readers[i], &mut heads[i])?;
        }
        Ok(MergedLines {
            readers,
            heads,
            live,
            line_nos: vec![0; n],
            current: Vec::with_capacity(512),
            out_of_order: false,
        })
    }

    /// Moves the smallest head into `current`; returns its input and line number.
    fn next_line(&mut self) -> io::Result<Option<(usize, u64)>> {
        // Few inputs in practice: a linear scan beats a heap's bookkeeping.
        let mut best: Option<usize> = None;
        for i in 0..self.heads.len() {
            if self.live[i] && best.is_none_or(|b| self.heads[i] < self.heads[b]) {
                best = Some(i);
            }
        }
        let Some(i) = best else {
            return Ok(None);
        };
        std::mem::swap(&mut self.current, &mut self.heads[i]);
        self.heads[i].clear();
        self.live[i] = read_line(&mut *self.readers[i], &mut self.heads[i])?;
        if self.live[i] && self.heads[i] < self.current && !self.heads[i].starts_with(b" CDX ") {
            self.out_of_order = true;
        }
        self.line_nos[i] += 1;
        Ok(Some((i, self.line_nos[i])))
    }
}

/// Appends one line (with its `\n`, if any) to `out`; false at the end of input.
/// `BufRead::read_until` with the `memchr` crate's search, which is much faster on
/// long lines than the standard library's.
fn read_line(r: &mut dyn BufRead, out: &mut Vec<u8>) -> io::Result<bool> {
    let mut any = false;
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Ok(any);
        }
        any = true;
        match memchr::memchr(b'\n', buf) {
            Some(i) => {
                out.extend_from_slice(&buf[..=i]);
                r.consume(i + 1);
                return Ok(true);
            }
            None => {
                let n = buf.len();
                out.extend_from_slice(buf);
                r.consume(n);
            }
        }
    }
}
