//! Indexing several archives: in parallel with output in argument order, optionally
//! sorted in C byte order in bounded memory, with counts per file and in total.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use warcdex_cdx::sort::{ExternalSorter, SortOptions};
use warcdex_cdx::CdxLine;

use super::pieces::{self, Piece};
use super::{index_archive, CdxOptions, CdxReport};
use crate::progress::Progress;
use crate::reader::wacz::{archive_parts, filename_column, ArchivePart};
use crate::reader::{ArchiveReader, Input, ReaderOptions};

/// How to run `cdx` over several files.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// What to index and how to write it.
    pub cdx: CdxOptions,
    /// Sort the whole output in C byte order (`LC_ALL=C sort`).
    pub sort: bool,
    /// Memory for the sort's in-memory runs, in bytes.
    pub sort_memory: usize,
    /// Where sort runs and spilled per-file output go (default: the system temp dir).
    pub tmp_dir: Option<PathBuf>,
    /// Files indexed at the same time.
    pub jobs: usize,
    /// Messages printed per file and anomaly kind (counts are always complete).
    pub max_messages: usize,
    /// Check each WACZ's `datapackage.json` (sizes and SHA-256) before indexing it; a
    /// WACZ that fails is not indexed and counts as unopened.
    pub verify_wacz: bool,
    /// With several threads and few files, gzip WARCs of at least twice this many bytes
    /// are cut into pieces indexed side by side (`pieces.rs`); tests set it small.
    pub min_piece: u64,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            cdx: CdxOptions::default(),
            sort: false,
            sort_memory: 256 << 20,
            tmp_dir: None,
            jobs: 1,
            max_messages: 5,
            verify_wacz: false,
            min_piece: pieces::MIN_PIECE,
        }
    }
}

/// What a run gave.
#[derive(Debug, Default)]
pub struct RunReport {
    /// Files given.
    pub files: u64,
    /// Files that could not be read: not opened (missing, a directory, a WACZ that
    /// does not open or verify), or stopped by an error before their first record (no
    /// archive, a zstd dictionary that does not load). They fail the run.
    pub unopened: u64,
    /// Files read with damage: a gzip member or zstd frame that did not decode, a
    /// record lost or cut short, or an error after their first record (their lines
    /// before it are written). They fail the run only with `--strict`.
    pub damaged: u64,
    /// Totals over all files.
    pub total: CdxReport,
    /// Pieces that files were cut into (0 when no file was cut).
    pub pieces: u64,
    /// Pieces whose reading was not clean, after which the rest of their file was
    /// indexed again by one reader.
    pub pieces_redone: u64,
}

/// Indexes `files` and writes the CDX (legend first for classic layouts) to `out`.
/// Problems are described through `log`, one message per call, in file order;
/// `progress` advances by the stored bytes read (from several threads).
pub fn run_cdx(
    files: &[PathBuf],
    opts: &RunOptions,
    out: &mut dyn Write,
    progress: &dyn Progress,
    log: &mut dyn FnMut(&str),
) -> io::Result<RunReport> {
    if let Some(legend) = opts.cdx.format.legend() {
        out.write_all(legend.as_bytes())?;
        out.write_all(b"\n")?;
    }
    let mut sorter = opts.sort.then(|| {
        ExternalSorter::new(SortOptions {
            memory: opts.sort_memory,
            tmp_dir: opts.tmp_dir.clone(),
            unique: false,
        })
    });
    let mut report = RunReport {
        files: files.len() as u64,
        ..RunReport::default()
    };
    let units = plan_units(files, opts)?;
    report.pieces = units.iter().filter(|u| u.piece.is_some()).count() as u64;
    let jobs = opts.jobs.clamp(1, units.len().max(1));
    if jobs == 1 {
        for path in files {
            let mut sink = |bytes: &[u8]| write_line(sorter.as_mut(), &mut *out, bytes);
            let r = index_file(path, opts, &mut sink, &mut |m| log(m), progress)?;
            tally(&mut report, r);
        }
    } else {
        // The file whose pieces are being written: its counts so far, and whether the
        // rest of it was indexed again in one piece (its later pieces are then dropped).
        let mut cut: Option<(usize, CdxReport, bool)> = None;
        run_parallel(
            files,
            &units,
            opts,
            jobs,
            progress,
            &mut |done: UnitDone| {
                let unit = &units[done.unit];
                let mut write = |output: SpillBuffer| match sorter.as_mut() {
                    Some(s) => output.for_each_line(|l| s.push(l)),
                    None => output.copy_to(&mut *out),
                };
                let Some(piece) = unit.piece else {
                    for m in &done.messages {
                        log(m);
                    }
                    write(done.output)?;
                    tally(&mut report, done.result);
                    return Ok(());
                };
                if cut.as_ref().is_none_or(|c| c.0 != unit.file) {
                    cut = Some((unit.file, CdxReport::default(), false));
                }
                let (_, so_far, redone) = cut.as_mut().expect("set above");
                if *redone {
                    return Ok(());
                }
                let path = &files[unit.file];
                let last = piece.end == unit.size;
                let part = match done.result {
                    FileResult::Indexed(r) if done.clean || last => {
                        for m in &done.messages {
                            log(m);
                        }
                        write(done.output)?;
                        *r
                    }
                    // Not clean: the cut after this piece is not proven, so the rest of
                    // the file is indexed again by one reader from this piece's start.
                    _ => {
                        *redone = true;
                        report.pieces_redone += 1;
                        let rest = Piece {
                            start: piece.start,
                            end: unit.size,
                        };
                        let mut sink = |bytes: &[u8]| write_line(sorter.as_mut(), &mut *out, bytes);
                        // Its bytes were counted by the pieces' progress already.
                        match index_piece(path, rest, opts, &mut sink, &mut |m| log(m), &())? {
                            FileResult::Indexed(r) => *r,
                            FileResult::Unopened => CdxReport::default(),
                        }
                    }
                };
                so_far.merge(&part);
                if part.error.is_some() {
                    so_far.error = part.error;
                }
                if last || *redone {
                    let whole = std::mem::take(so_far);
                    summarize(&path.display().to_string(), &whole, &mut |m| log(m));
                    tally(&mut report, FileResult::Indexed(Box::new(whole)));
                }
                Ok(())
            },
        )?;
    }
    if let Some(s) = sorter {
        s.finish_into(&mut *out)?;
    }
    out.flush()?;
    Ok(report)
}

/// One formatted line (ending in a newline) into the sorter when sorting, else to `out`.
fn write_line(
    sorter: Option<&mut ExternalSorter>,
    out: &mut dyn Write,
    bytes: &[u8],
) -> io::Result<()> {
    match sorter {
        Some(s) => s.push(bytes.strip_suffix(b"\n").unwrap_or(bytes)),
        None => out.write_all(bytes),
    }
}

fn tally(report: &mut RunReport, r: FileResult) {
    match r {
        FileResult::Unopened => report.unopened += 1,
        FileResult::Indexed(r) => {
            match &r.error {
                // Nothing was read of it: it is no archive, or none that can be read.
                Some(_) if r.records == 0 => report.unopened += 1,
                Some(_) => report.damaged += 1,
                None if r.counts.damage() > 0 => report.damaged += 1,
                None => {}
            }
            report.total.merge(&r);
        }
    }
}

enum FileResult {
    Unopened,
    Indexed(Box<CdxReport>),
}

/// Indexes one file (each WARC of a WACZ in turn), passing each formatted line to
/// `sink` and each message to `log`.
fn index_file(
    path: &Path,
    opts: &RunOptions,
    sink: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    log: &mut dyn FnMut(&str),
    progress: &dyn Progress,
) -> io::Result<FileResult> {
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let unopened = |log: &mut dyn FnMut(&str), message: &str| {
        log(message);
        progress.advance(size);
        Ok(FileResult::Unopened)
    };
    let parts = match archive_parts(path) {
        Ok(p) => p,
        Err(e) => return unopened(log, &e.to_string()),
    };
    if opts.verify_wacz {
        if let Some((wacz, _)) = &parts[0].in_wacz {
            match wacz.verify(opts.max_messages) {
                Ok(v) if v.is_whole() => log(&format!(
                    "{}: datapackage.json: {} resources verified (SHA-256 and size){}",
                    path.display(),
                    v.checked,
                    if v.unchecked_count == 0 {
                        String::new()
                    } else {
                        format!("; not checked: {}", v.unchecked_line())
                    }
                )),
                Ok(v) => {
                    let m = format!(
                        "{}: not indexed, verification failed: {}",
                        path.display(),
                        v.problems_line()
                    );
                    return unopened(log, &m);
                }
                Err(e) => return unopened(log, &e.to_string()),
            }
        }
    }
    let mut total: Option<CdxReport> = None;
    for part in &parts {
        let r = match index_part(part, opts, sink, log, progress)? {
            // One WARC of a WACZ that cannot be opened: the others still count.
            FileResult::Unopened if parts.len() == 1 => return Ok(FileResult::Unopened),
            FileResult::Unopened => continue,
            FileResult::Indexed(r) => r,
        };
        match total.as_mut() {
            None => total = Some(*r),
            Some(t) => {
                t.merge(&r);
                if t.error.is_none() {
                    t.error = r.error;
                }
            }
        }
    }
    Ok(match total {
        Some(t) => FileResult::Indexed(Box::new(t)),
        None => FileResult::Unopened,
    })
}

/// Indexes one archive (a file, or a WARC of a WACZ).
fn index_part(
    part: &ArchivePart,
    opts: &RunOptions,
    sink: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    log: &mut dyn FnMut(&str),
    progress: &dyn Progress,
) -> io::Result<FileResult> {
    let source = Source {
        filename: part.filename(),
        display: part.display_path().display().to_string(),
        stored: 0..part.stored_len(),
    };
    let opened = part.open(ReaderOptions::default());
    let result = index_opened(opened, &source, opts, sink, log, progress)?;
    if let FileResult::Indexed(r) = &result {
        summarize(&source.display, r, log);
    }
    Ok(result)
}

/// Indexes the piece `piece` of the gzip WARC at `path` (see `pieces.rs`); the file's
/// closing messages are the caller's, once all its pieces are in.
fn index_piece(
    path: &Path,
    piece: Piece,
    opts: &RunOptions,
    sink: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    log: &mut dyn FnMut(&str),
    progress: &dyn Progress,
) -> io::Result<FileResult> {
    let len = piece.end - piece.start;
    let opened = ArchiveReader::open_range(path, piece.start, len, ReaderOptions::default());
    let source = Source {
        filename: filename_column(path),
        display: path.display().to_string(),
        stored: piece.start..piece.end,
    };
    index_opened(opened, &source, opts, sink, log, progress)
}

/// What an indexed archive is called and where its bytes lie.
struct Source {
    /// The CDX filename column.
    filename: String,
    /// The path messages name.
    display: String,
    /// The file's bytes that hold it (the whole file, or a piece of it).
    stored: std::ops::Range<u64>,
}

/// Indexes an opened reader with [`index_reader`], or counts an archive that did not
/// open (its stored bytes then count as read).
fn index_opened(
    opened: crate::reader::error::Result<ArchiveReader<Input>>,
    source: &Source,
    opts: &RunOptions,
    sink: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    log: &mut dyn FnMut(&str),
    progress: &dyn Progress,
) -> io::Result<FileResult> {
    let mut reader = match opened {
        Ok(r) => r,
        Err(e) => {
            log(&format!("{e}"));
            progress.advance(source.stored.end - source.stored.start);
            return Ok(FileResult::Unopened);
        }
    };
    let result = index_reader(&mut reader, source, opts, sink, log, progress)?;
    Ok(FileResult::Indexed(Box::new(result)))
}

/// Indexes what `reader` reads, which is stored in the file's bytes `stored`, writing
/// each line to `sink` and (at most `max_messages` of a kind) each problem to `log`.
fn index_reader(
    reader: &mut ArchiveReader<Input>,
    source: &Source,
    opts: &RunOptions,
    sink: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    log: &mut dyn FnMut(&str),
    progress: &dyn Progress,
) -> io::Result<CdxReport> {
    let Source {
        filename,
        display,
        stored,
    } = source;
    let format = opts.cdx.format;
    // Both callbacks below print through one limiter.
    let limiter = std::cell::RefCell::new((BTreeMap::<&'static str, usize>::new(), log));
    let say = |kind: &'static str, msg: &dyn std::fmt::Display| {
        let mut l = limiter.borrow_mut();
        let n = l.0.entry(kind).or_insert(0);
        *n += 1;
        if *n <= opts.max_messages {
            (l.1)(&format!("{display}: {msg}"));
        }
    };
    let mut buf = Vec::with_capacity(512);
    // Progress moves every 1 MiB of stored input, so one huge file shows progress too.
    let mut reported = stored.start;
    let result = index_archive(
        reader,
        filename,
        &opts.cdx,
        &mut |line: &CdxLine, pos: u64| {
            if pos >= reported + (1 << 20) {
                progress.advance(pos - reported);
                reported = pos;
            }
            buf.clear();
            line.write(format, &mut buf);
            sink(&buf)
        },
        &mut |a| say(a.kind.name(), a),
        &mut |p| say("unindexable", &p),
    )?;
    progress.advance(stored.end.saturating_sub(reported));
    Ok(result)
}

/// The closing messages of a file: the error that stopped it, and its counts when it
/// had anomalies or an error.
fn summarize(display: &str, result: &CdxReport, log: &mut dyn FnMut(&str)) {
    if let Some(e) = &result.error {
        log(&format!("{e} (kept {} lines before it)", result.lines));
    }
    if result.counts.total() > 0 || result.error.is_some() {
        log(&format!(
            "{display}: {} records, {} lines; anomalies: {}",
            result.records, result.lines, result.counts
        ));
    }
}

/// One unit of a parallel run: a whole file, or a piece of one.
struct Unit {
    /// Index in the files given.
    file: usize,
    /// The file's size when it is cut (a piece ending there is its last), else 0.
    size: u64,
    /// The piece, when the file is cut.
    piece: Option<Piece>,
}

/// The units of a run: with fewer files than twice the threads, each large gzip WARC
/// is cut into pieces (`pieces.rs`) so that all threads work on it.
fn plan_units(files: &[PathBuf], opts: &RunOptions) -> io::Result<Vec<Unit>> {
    let cut = opts.jobs > 1 && files.len() < 2 * opts.jobs && !opts.cdx.post_append;
    let mut units = Vec::new();
    for (file, path) in files.iter().enumerate() {
        // Only regular files are cut (not `-`, not a pipe); others are not even looked at.
        let size = match cut.then(|| std::fs::metadata(path)) {
            Some(Ok(m)) if m.is_file() && path.as_os_str() != "-" => m.len(),
            _ => 0,
        };
        let pieces = if size > 0 {
            pieces::plan(path, size, opts.jobs as u64, opts.min_piece)?
        } else {
            Vec::new()
        };
        if pieces.len() > 1 {
            units.extend(pieces.into_iter().map(|p| Unit {
                file,
                size,
                piece: Some(p),
            }));
        } else {
            units.push(Unit {
                file,
                size,
                piece: None,
            });
        }
    }
    Ok(units)
}

/// One finished unit of a parallel run.
struct UnitDone {
    /// Index in the units.
    unit: usize,
    output: SpillBuffer,
    messages: Vec<String>,
    result: FileResult,
    /// Read with no anomaly, problem, message or error (a piece's end is then proven).
    clean: bool,
}

fn run_parallel(
    files: &[PathBuf],
    units: &[Unit],
    opts: &RunOptions,
    jobs: usize,
    progress: &dyn Progress,
    deliver: &mut dyn FnMut(UnitDone) -> io::Result<()>,
) -> io::Result<()> {
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(usize, io::Result<UnitDone>)>();
    std::thread::scope(|scope| -> io::Result<()> {
        for _ in 0..jobs {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= units.len() {
                    break;
                }
                let done = (|| {
                    let mut output = SpillBuffer::new(opts.tmp_dir.clone());
                    let mut messages = Vec::new();
                    let path = &files[units[i].file];
                    let mut sink = |b: &[u8]| output.write(b);
                    let mut log = |m: &str| messages.push(m.to_string());
                    let result = match units[i].piece {
                        None => index_file(path, opts, &mut sink, &mut log, progress)?,
                        Some(p) => index_piece(path, p, opts, &mut sink, &mut log, progress)?,
                    };
                    let clean = messages.is_empty()
                        && matches!(&result, FileResult::Indexed(r)
                            if r.error.is_none() && r.counts.total() == 0);
                    Ok(UnitDone {
                        unit: i,
                        output,
                        messages,
                        result,
                        clean,
                    })
                })();
                let failed = done.is_err();
                if tx.send((i, done)).is_err() || failed {
                    break;
                }
            });
        }
        drop(tx);
        // Deliver in order; later units wait (spilled to disk when large).
        let mut pending: BTreeMap<usize, UnitDone> = BTreeMap::new();
        let mut want = 0usize;
        for (i, done) in rx {
            pending.insert(i, done?);
            while let Some(d) = pending.remove(&want) {
                deliver(d)?;
                want += 1;
            }
        }
        if want != units.len() {
            return Err(io::Error::other("an indexing worker stopped early"));
        }
        Ok(())
    })
}

/// A file's output held in memory up to a limit, then in a temporary file.
struct SpillBuffer {
    mem: Vec<u8>,
    file: Option<BufWriter<File>>,
    tmp_dir: Option<PathBuf>,
}

const SPILL_AT: usize = 4 << 20;

impl SpillBuffer {
    fn new(tmp_dir: Option<PathBuf>) -> Self {
        SpillBuffer {
            mem: Vec::new(),
            file: None,
            tmp_dir,
        }
    }

    fn write(&mut self, b: &[u8]) -> io::Result<()> {
        if let Some(f) = self.file.as_mut() {
            return f.write_all(b);
        }
        self.mem.extend_from_slice(b);
        if self.mem.len() >= SPILL_AT {
            let f = match &self.tmp_dir {
                Some(d) => tempfile::tempfile_in(d)?,
                None => tempfile::tempfile()?,
            };
            let mut w = BufWriter::with_capacity(1 << 16, f);
            w.write_all(&self.mem)?;
            self.mem = Vec::new();
            self.file = Some(w);
        }
        Ok(())
    }

    fn into_reader(self) -> io::Result<Box<dyn BufRead>> {
        match self.file {
            None => Ok(Box::new(io::Cursor::new(self.mem))),
            Some(w) => {
                let mut f = w.into_inner().map_err(|e| e.into_error())?;
                f.seek(SeekFrom::Start(0))?;
                Ok(Box::new(BufReader::with_capacity(1 << 16, f)))
            }
        }
    }

    fn copy_to(self, out: &mut dyn Write) -> io::Result<()> {
        let mut r = self.into_reader()?;
        io::copy(&mut r, out)?;
        Ok(())
    }

    fn for_each_line(self, mut f: impl FnMut(&[u8]) -> io::Result<()>) -> io::Result<()> {
        let mut r = self.into_reader()?;
        let mut line = Vec::new();
        loop {
            line.clear();
            if r.read_until(b'\n', &mut line)? == 0 {
                return Ok(());
            }
            f(line.strip_suffix(b"\n").unwrap_or(&line))?;
        }
    }
}
