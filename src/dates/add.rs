//! `warcdex add-dates`: a streaming merge-join of main's documents, in (URL key,
//! digest) order, with a dates list sorted the same way, writing one dates document per
//! main document at the same DocId (docs/formats.md §4.8).
//!
//! A dates list given as a file is first joined as if it were sorted; if a key goes
//! backwards the half-built index is discarded and the list goes through the external
//! sorter instead (stdin always does). Memory: the sorter's budget, tantivy's writer
//! budget and a few stored-document blocks per source, whatever the sizes.

use std::cmp::Ordering;
use std::io::{self, BufRead};
use std::path::{Path, PathBuf};

use tantivy::{DocId, Index, IndexWriter, TantivyDocument};
use warcdex_cdx::sort::{ExternalSorter, SortOptions};

use super::compat::JavaHashSet;
use super::records::{is_date14, parse_line, DateRecord, MalformedLine};
use super::source::Source;
use super::{dates_schema, DatesFields, Error, Result, SEQ_FIELD};
use crate::path_error::ResultAtPath;
use crate::pindex::align::{check_dates_alignment, misaligned};
use crate::pindex::directory::ReleasingDirectory;
use crate::pindex::info::{read_info, read_main_info, write_info};
use crate::pindex::keys::{KeyWindow, MainKeys};
use crate::pindex::open::{doc_count, open_parallel_index_released, searcher_without_reload};
use crate::pindex::{DatesCounts, DatesInfo, PindexInfo};
use crate::progress::Progress;

/// Where the dates list comes from: a file (joined as sorted first, sorted externally
/// if it is not) or `-`, standard input (always sorted externally: it cannot be read
/// twice). The same input type as the CDX lists'.
pub use warcdex_cdx::dedup::Input as DatesInput;

/// How to run add-dates.
#[derive(Debug, Clone)]
pub struct AddDatesOptions {
    /// Reproduce NutchWAX DateAdder: sources' dates in Java HashSet order, then every
    /// date of the list appended, duplicates included.
    pub compat: bool,
    /// A malformed line stops the run.
    pub strict: bool,
    /// DEST is one of the sources: build beside it and swap it in by rename.
    pub in_place: bool,
    /// Memory budget in bytes: half for the external sort, a quarter for the writer.
    pub memory: usize,
    /// Where the external sort's runs go.
    pub tmp_dir: Option<PathBuf>,
}

impl Default for AddDatesOptions {
    fn default() -> Self {
        AddDatesOptions {
            compat: false,
            strict: false,
            in_place: false,
            memory: 256 << 20,
            tmp_dir: None,
        }
    }
}

/// How many malformed lines and unmatched lines a report keeps as examples.
pub const MALFORMED_SHOWN: usize = 20;
/// How many unmatched lines a report keeps as examples.
pub const UNMATCHED_SHOWN: usize = 5;

/// What add-dates did.
#[derive(Debug, Clone)]
pub struct AddDatesReport {
    /// The `pindex.json` written (with the counts).
    pub info: DatesInfo,
    /// The first malformed lines (all are counted in `info.counts`).
    pub malformed: Vec<MalformedLine>,
    /// The first lines that matched no document (`URLKEY DIGEST DATE`).
    pub unmatched: Vec<String>,
    /// The list was not sorted by (URL key, digest) and went through the external sort.
    pub external_sort: bool,
}

/// Builds the dates index `dest` for the main index `key_index` from the dates of
/// `sources` (main or dates indexes aligned with `key_index`) and the list `dates`.
pub fn add_dates(
    key_index: &Path,
    sources: &[PathBuf],
    dest: &Path,
    dates: &DatesInput,
    opts: &AddDatesOptions,
) -> Result<AddDatesReport> {
    add_dates_with_progress(key_index, sources, dest, dates, opts, &())
}

/// [`add_dates`], reporting the documents written to `progress` (main's documents are
/// the total; a list found unsorted restarts the count for the external sort).
pub fn add_dates_with_progress(
    key_index: &Path,
    sources: &[PathBuf],
    dest: &Path,
    dates: &DatesInput,
    opts: &AddDatesOptions,
    progress: &dyn Progress,
) -> Result<AddDatesReport> {
    check_dest(key_index, sources, dest, opts.in_place)?;
    let (_main, main_s) = open_parallel_index_released(key_index)?;
    let main_info = read_main_info(key_index)?;
    let keys = MainKeys::open(key_index, &main_s)?;
    let n = doc_count(&main_s);
    let mut opened = Vec::with_capacity(sources.len());
    for s in sources {
        let (_i, ss) = open_parallel_index_released(s)?;
        match read_info(s)? {
            PindexInfo::Dates(_) => check_dates_alignment(key_index, &main_s, s, &ss, false)?,
            PindexInfo::Main(info) => {
                if doc_count(&ss) != n {
                    return Err(misaligned(
                        key_index,
                        s,
                        format!("{} documents against {n}", doc_count(&ss)),
                    ));
                }
                if info.key_checksum != main_info.key_checksum {
                    return Err(misaligned(
                        key_index,
                        s,
                        "a main index with other keys (key_checksum differs)",
                    ));
                }
            }
        }
        opened.push(Source::open(s, &ss)?);
    }
    let ctx = Ctx {
        main_dir: key_index,
        keys: &keys,
        sources: &opened,
        n,
        opts,
        input_name: dates.name(),
    };
    let mut built = None;
    if let DatesInput::File(_) = dates {
        match ctx.build(dest, progress, |j| stream(dates, j)) {
            Ok(b) => built = Some(b),
            Err(JoinError::Unsorted) => {}
            Err(JoinError::Failed(e)) => return Err(e),
        }
    }
    let external_sort = built.is_none();
    let built = match built {
        Some(b) => b,
        None => ctx
            .build(dest, progress, |j| external(dates, j))
            .map_err(JoinError::into_error)?,
    };
    progress.finish();
    // Unmap main and the sources before the merge reads the new segments: mapped pages
    // count in the resident size.
    drop(opened);
    drop(keys);
    drop(main_s);
    drop(_main);
    let (tmp, joined) = built.finish()?;
    let info = DatesInfo {
        documents: u64::from(n),
        key_checksum: main_info.key_checksum.clone(),
        main: key_index.display().to_string(),
        sources: sources.iter().map(|s| s.display().to_string()).collect(),
        dates: vec![dates.name()],
        compat: opts.compat,
        counts: joined.counts,
    };
    let info = PindexInfo::Dates(info);
    write_info(tmp.path(), &info)?;
    let PindexInfo::Dates(info) = info else {
        unreachable!("written as dates")
    };
    crate::output::replace_dir(tmp, dest)?;
    Ok(AddDatesReport {
        info,
        malformed: joined.malformed,
        unmatched: joined.unmatched,
        external_sort,
    })
}

/// Refuses a DEST that would overwrite main, or a source without `--in-place`.
fn check_dest(key_index: &Path, sources: &[PathBuf], dest: &Path, in_place: bool) -> Result<()> {
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    };
    if same(key_index, dest) {
        return Err(Error::DestIsKeyIndex(dest.to_path_buf()));
    }
    let is_source = sources.iter().any(|s| same(s, dest));
    if in_place && !is_source {
        return Err(Error::InPlaceNotSource(dest.to_path_buf()));
    }
    if !in_place && dest.exists() {
        return Err(Error::DestExists {
            dest: dest.to_path_buf(),
            is_source,
        });
    }
    Ok(())
}

/// Why a join stopped.
enum JoinError {
    /// The list went backwards (only while joining a file as sorted).
    Unsorted,
    Failed(Error),
}

/// `?` on every error a join meets.
macro_rules! join_error_from {
    ($($t:ty),*) => {$(
        impl From<$t> for JoinError {
            fn from(e: $t) -> Self {
                JoinError::Failed(e.into())
            }
        }
    )*};
}
join_error_from!(
    Error,
    io::Error,
    crate::path_error::AtPath<io::Error>,
    crate::path_error::AtPath<tantivy::TantivyError>
);

impl JoinError {
    fn into_error(self) -> Error {
        match self {
            JoinError::Failed(e) => e,
            JoinError::Unsorted => Error::DatesBackwards,
        }
    }
}

/// What one join produced besides the index.
struct Joined {
    counts: DatesCounts,
    malformed: Vec<MalformedLine>,
    unmatched: Vec<String>,
}

/// What every build shares.
struct Ctx<'a> {
    main_dir: &'a Path,
    keys: &'a MainKeys,
    sources: &'a [Source],
    n: u32,
    opts: &'a AddDatesOptions,
    input_name: String,
}

impl Ctx<'_> {
    /// Builds a dates index in a temporary directory beside `dest`, `feed` pushing the
    /// list's records into the joiner. The index is not renamed here.
    fn build(
        &self,
        dest: &Path,
        progress: &dyn Progress,
        feed: impl FnOnce(&mut Joiner<'_>) -> Result<(), JoinError>,
    ) -> Result<Built, JoinError> {
        let tmp = crate::output::temp_dir_beside(dest)?;
        let (schema, f) = dates_schema();
        // No index sort: one indexing thread keeps each segment in insertion order and
        // `finish` merges the segments in `seq` order (sorting costs memory at flush).
        let dir = ReleasingDirectory::open(tmp.path())?;
        let index =
            Index::create(dir.clone(), schema, tantivy::IndexSettings::default()).at(tmp.path())?;
        let writer = index
            .writer_with_num_threads::<TantivyDocument>(1, writer_budget(self.opts.memory))
            .at(tmp.path())?;
        writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
        let mut j = Joiner::new(self, writer, dir.clone(), f, progress)?;
        feed(&mut j)?;
        while j.next < self.n {
            j.emit()?;
        }
        let Joiner {
            mut writer,
            counts,
            malformed,
            unmatched,
            ..
        } = j;
        writer.commit().map_err(|e| failed(&dir, tmp.path(), e))?;
        Ok(Built {
            tmp,
            dir,
            index,
            writer,
            joined: Joined {
                counts,
                malformed,
                unmatched,
            },
        })
    }
}

/// The error to report when tantivy failed writing the dates index in `dir` (at
/// `path`): the first write that failed, naming its file (a full disk), where one did,
/// since tantivy then only says a writer thread was killed; else `e`.
fn failed(dir: &ReleasingDirectory, path: &Path, e: tantivy::TantivyError) -> Error {
    match dir.take_write_error() {
        Some(w) => Error::File(w),
        None => Error::Tantivy(crate::path_error::AtPath {
            path: path.to_path_buf(),
            source: e,
        }),
    }
}

/// [`failed`] for a document the writer refused (`Error::WritingDates` when no write failed).
fn refused(dir: &ReleasingDirectory, e: tantivy::TantivyError) -> Error {
    dir.take_write_error()
        .map_or(Error::WritingDates(e), Error::File)
}

/// tantivy's indexing budget: an eighth of the memory (a segment flush briefly needs
/// about twice its budget), at least tantivy's minimum.
fn writer_budget(memory: usize) -> usize {
    (memory / 8).clamp(16 << 20, 256 << 20)
}

/// A dates index written and committed in a temporary directory, maybe in several
/// segments.
struct Built {
    tmp: tempfile::TempDir,
    dir: ReleasingDirectory,
    index: Index,
    writer: IndexWriter,
    joined: Joined,
}

impl Built {
    /// Merges the segments into one, in `seq` order, and checks that DocId = `seq`
    /// everywhere: the one property a parallel index cannot do without.
    fn finish(self) -> Result<(tempfile::TempDir, Joined)> {
        let Built {
            tmp,
            dir: written_to,
            index,
            mut writer,
            joined,
        } = self;
        let dir = tmp.path().to_path_buf();
        let first_seqs = |index: &Index| -> Result<Vec<(u64, tantivy::index::SegmentId)>> {
            let searcher = searcher_without_reload(index, &dir)?;
            let mut v = Vec::new();
            for seg in searcher.segment_readers() {
                let seq = seg.fast_fields().u64(SEQ_FIELD).at(&dir)?;
                v.push((seq.first(0).unwrap_or(0), seg.segment_id()));
            }
            v.sort();
            Ok(v)
        };
        let segs = first_seqs(&index)?;
        if segs.len() > 1 {
            // The merge stacks segments in the order given.
            let ids: Vec<_> = segs.iter().map(|(_, id)| *id).collect();
            writer
                .merge(&ids)
                .wait()
                .map_err(|e| failed(&written_to, &dir, e))?;
        }
        writer
            .wait_merging_threads()
            .map_err(|e| failed(&written_to, &dir, e))?;
        let searcher = searcher_without_reload(&index, &dir)?;
        if let Some(seg) = searcher.segment_readers().first() {
            let seq = seg.fast_fields().u64(SEQ_FIELD).at(&dir)?;
            if searcher.segment_readers().len() != 1
                || (0..seg.max_doc()).any(|d| seq.first(d) != Some(u64::from(d)))
            {
                return Err(Error::MergedOutOfOrder(dir.clone()));
            }
        }
        Ok((tmp, joined))
    }
}

/// The merge-join state: documents before `next` are written; `cur` is the key of
/// document `next` and `extra` the list's dates for it so far.
struct Joiner<'a> {
    ctx: &'a Ctx<'a>,
    writer: IndexWriter,
    /// The new index's directory, which keeps the first write that failed.
    dir: ReleasingDirectory,
    f: DatesFields,
    next: DocId,
    cur: (String, String),
    /// [`crate::pindex::keys::keyhash`] of document `next`'s key.
    cur_hash: u64,
    extra: Vec<String>,
    last: Option<(Vec<u8>, Vec<u8>)>,
    counts: DatesCounts,
    malformed: Vec<MalformedLine>,
    unmatched: Vec<String>,
    /// Documents written (each build starts it again).
    progress: &'a dyn Progress,
    /// main's keys of the documents around `next`.
    window: KeyWindow,
    held: Vec<String>,
    /// The bound of a possible capture date ([`crate::reader::date::capture_micros`]).
    now: i64,
}

/// Documents whose keys are read from main's dictionaries at once (about 10 MiB of keys).
const KEY_WINDOW: u32 = 1 << 16;

/// Documents per segment of the new index (committed every so many). Without a cap the
/// writer fills its whole budget before flushing, and a flush needs about as much again,
/// so a large index peaked at twice the memory of one that never reached the budget
/// (1,000,000 versions: 110 MB against 56 MB for 100,000); with it, every segment is
/// about the same size whatever the index's, and so is the peak.
const SEGMENT_DOCS: u32 = 1 << 16;

impl<'a> Joiner<'a> {
    fn new(
        ctx: &'a Ctx<'a>,
        writer: IndexWriter,
        dir: ReleasingDirectory,
        f: DatesFields,
        progress: &'a dyn Progress,
    ) -> Result<Joiner<'a>> {
        progress.start(u64::from(ctx.n));
        let mut j = Joiner {
            ctx,
            writer,
            dir,
            f,
            next: 0,
            cur: (String::new(), String::new()),
            cur_hash: 0,
            extra: Vec::new(),
            last: None,
            counts: DatesCounts::default(),
            malformed: Vec::new(),
            unmatched: Vec::new(),
            progress,
            window: KeyWindow::default(),
            held: Vec::new(),
            now: crate::reader::date::now_micros(),
        };
        if ctx.n > 0 {
            j.load_key(0)?;
        }
        Ok(j)
    }

    /// Makes document `doc` (the next one) current: its urlkey and digest in `cur`.
    fn load_key(&mut self, doc: DocId) -> Result<()> {
        if !self.window.holds(doc) {
            let end = (doc + KEY_WINDOW).min(self.ctx.n);
            self.ctx.keys.fill(doc, end, &mut self.window)?;
        }
        let (hash, urlkey, digest) = self.window.get(doc);
        let prev = std::mem::take(&mut self.cur);
        self.cur.0.push_str(urlkey);
        self.cur.1.push_str(digest);
        self.cur_hash = hash;
        // The join relies on main's order; a main out of order would silently lose dates.
        if doc > 0
            && key_cmp(
                (prev.0.as_bytes(), prev.1.as_bytes()),
                (self.cur.0.as_bytes(), self.cur.1.as_bytes()),
            ) != Ordering::Less
        {
            return Err(Error::MainOutOfOrder {
                dir: self.ctx.main_dir.to_path_buf(),
                doc,
                urlkey: self.cur.0.clone(),
                digest: self.cur.1.clone(),
            });
        }
        Ok(())
    }

    /// A line that could not be used: counted, kept as an example, fatal with `--strict`.
    fn malformed(&mut self, m: MalformedLine) -> Result<()> {
        self.counts.malformed_lines += 1;
        if self.ctx.opts.strict {
            return Err(Error::MalformedLine(m.to_string()));
        }
        if self.malformed.len() < MALFORMED_SHOWN {
            self.malformed.push(m);
        }
        Ok(())
    }

    /// Joins one record of the list, which must not be before the previous one.
    fn feed(&mut self, r: DateRecord<'_>) -> Result<(), JoinError> {
        if let Some((u, d)) = &mut self.last {
            match key_cmp((u.as_slice(), d.as_slice()), (r.urlkey, r.digest)) {
                Ordering::Greater => return Err(JoinError::Unsorted),
                Ordering::Equal => {}
                Ordering::Less => {
                    u.clear();
                    u.extend_from_slice(r.urlkey);
                    d.clear();
                    d.extend_from_slice(r.digest);
                }
            }
        } else {
            self.last = Some((r.urlkey.to_vec(), r.digest.to_vec()));
        }
        loop {
            if self.next >= self.ctx.n {
                self.unmatched(&r);
                return Ok(());
            }
            match key_cmp(
                (self.cur.0.as_bytes(), self.cur.1.as_bytes()),
                (r.urlkey, r.digest),
            ) {
                Ordering::Less => self.emit()?,
                Ordering::Equal => {
                    self.extra.push(r.date.to_string());
                    self.counts.matched_lines += 1;
                    return Ok(());
                }
                Ordering::Greater => {
                    self.unmatched(&r);
                    return Ok(());
                }
            }
        }
    }

    fn unmatched(&mut self, r: &DateRecord<'_>) {
        self.counts.unmatched_lines += 1;
        if self.unmatched.len() < UNMATCHED_SHOWN {
            self.unmatched.push(format!(
                "{} {} {}",
                String::from_utf8_lossy(r.urlkey),
                String::from_utf8_lossy(r.digest),
                r.date
            ));
        }
    }

    /// Writes document `next` and moves to the next one.
    fn emit(&mut self) -> Result<()> {
        let doc = self.next;
        let kh = self.cur_hash;
        self.held.clear();
        for s in self.ctx.sources {
            if let Some(h) = s.keyhash(doc) {
                if h != Some(kh) {
                    let mut key = String::new();
                    self.ctx.keys.key(doc, &mut key)?;
                    return Err(misaligned(
                        self.ctx.main_dir,
                        &s.dir,
                        format!("document {doc} was built for another key than {key:?}"),
                    ));
                }
            }
            s.dates(doc, &mut self.held)?;
        }
        let mut d = TantivyDocument::default();
        let mut written = 0u64;
        let mut add = |d: &mut TantivyDocument, date: &str| {
            d.add_text(self.f.date, date);
            // The searchable value only for a possible capture date: a date such as
            // 29991231235959 (warcio's reading of an ARC date that is not one) stays in
            // the stored dates but out of date filters, timelines and replay links.
            if is_date14(date.as_bytes())
                && crate::reader::date::capture_micros(date, self.now).is_some()
            {
                d.add_u64(self.f.date_value, date.parse().expect("14 digits"));
            }
            written += 1;
        };
        if self.ctx.opts.compat {
            let mut set = JavaHashSet::new();
            for h in &self.held {
                set.insert(h);
            }
            for h in set.iter() {
                add(&mut d, h);
            }
            for e in &self.extra {
                add(&mut d, e);
            }
            self.counts.dates_added += self.extra.len() as u64;
            if !self.extra.is_empty() {
                self.counts.documents_with_dates_added += 1;
            }
        } else {
            self.held.sort_unstable();
            self.held.dedup();
            let had = self.held.len();
            self.extra.sort_unstable();
            self.extra.dedup();
            for e in self.extra.drain(..) {
                if self.held[..had].binary_search(&e).is_err() {
                    self.held.push(e);
                }
            }
            let added = (self.held.len() - had) as u64;
            self.held.sort_unstable();
            for h in &self.held {
                add(&mut d, h);
            }
            self.counts.dates_added += added;
            if added > 0 {
                self.counts.documents_with_dates_added += 1;
            }
        }
        self.extra.clear();
        d.add_u64(self.f.keyhash, kh);
        d.add_u64(self.f.seq, u64::from(doc));
        self.writer
            .add_document(d)
            .map_err(|e| refused(&self.dir, e))?;
        if (doc + 1).is_multiple_of(SEGMENT_DOCS) {
            // See SEGMENT_DOCS.
            self.writer.commit().map_err(|e| refused(&self.dir, e))?;
        }
        self.counts.documents += 1;
        self.counts.dates_written += written;
        if written > 0 {
            self.counts.documents_with_dates += 1;
        }
        self.progress.advance(1);
        self.next += 1;
        if self.next < self.ctx.n {
            self.load_key(self.next)?;
        }
        Ok(())
    }
}

/// (URL key, digest) order, field by field, bytewise: main's document order.
fn key_cmp(a: (&[u8], &[u8]), b: (&[u8], &[u8])) -> Ordering {
    a.0.cmp(b.0).then_with(|| a.1.cmp(b.1))
}

/// Calls `f` with every line (end of line removed, as Java's `readLine`) and its number.
fn for_lines(
    input: &DatesInput,
    mut f: impl FnMut(&[u8], u64) -> Result<(), JoinError>,
) -> Result<(), JoinError> {
    let mut r = input.open()?;
    let mut buf = Vec::with_capacity(256);
    let mut n = 0u64;
    loop {
        buf.clear();
        if r.read_until(b'\n', &mut buf).at(Path::new(&input.name()))? == 0 {
            return Ok(());
        }
        n += 1;
        let mut line = buf.as_slice();
        if let Some(l) = line.strip_suffix(b"\n") {
            line = l;
        }
        if let Some(l) = line.strip_suffix(b"\r") {
            line = l;
        }
        f(line, n)?;
    }
}

fn malformed_line(
    input: &str,
    n: u64,
    line: &[u8],
    reason: super::records::Malformed,
) -> MalformedLine {
    MalformedLine {
        input: input.to_string(),
        line: n,
        text: String::from_utf8_lossy(line).into_owned(),
        reason,
    }
}

/// Joins a list read as sorted.
fn stream(input: &DatesInput, j: &mut Joiner<'_>) -> Result<(), JoinError> {
    let name = j.ctx.input_name.clone();
    for_lines(input, |line, n| {
        j.counts.lines += 1;
        match parse_line(line) {
            Ok(r) => j.feed(r),
            Err(m) => Ok(j.malformed(malformed_line(&name, n, line, m))?),
        }
    })
}

/// Sorts the list by (URL key, digest, line number) and joins it. Fields are separated
/// by NUL in the sorter so that byte order of the lines is (URL key, digest) order; the
/// line number keeps the file order of one key's dates (`--compat` appends them so).
fn external(input: &DatesInput, j: &mut Joiner<'_>) -> Result<(), JoinError> {
    let opts = j.ctx.opts;
    let mut sorter = ExternalSorter::new(SortOptions {
        memory: (opts.memory / 2).max(8 << 20),
        tmp_dir: opts.tmp_dir.clone(),
        unique: false,
    });
    let name = j.ctx.input_name.clone();
    let mut buf = Vec::with_capacity(256);
    for_lines(input, |line, n| {
        j.counts.lines += 1;
        match parse_line(line) {
            Ok(r) => {
                buf.clear();
                buf.extend_from_slice(r.urlkey);
                buf.push(0);
                buf.extend_from_slice(r.digest);
                buf.push(0);
                buf.extend_from_slice(format!("{n:020}").as_bytes());
                buf.push(0);
                buf.extend_from_slice(r.date.as_bytes());
                Ok(sorter.push(&buf)?)
            }
            Err(m) => Ok(j.malformed(malformed_line(&name, n, line, m))?),
        }
    })?;
    sorter.finish_with(|line| {
        let mut parts = line.splitn(4, |b| *b == 0);
        let (Some(urlkey), Some(digest), Some(_), Some(date)) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(Error::BrokenSortLine.into());
        };
        let date = std::str::from_utf8(date).map_err(io::Error::other)?;
        j.feed(DateRecord {
            urlkey,
            digest,
            date,
        })
        .map_err(|e| io::Error::from(e.into_error()))
    })?;
    Ok(())
}
