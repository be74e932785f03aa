//! Title and text of a PDF capture, extracted in isolation from the importer.
//!
//! PDFs in web archives are often truncated (a crawler's size cap), damaged, or hostile,
//! and PDF parsers are large: a parse may panic, loop, or recurse without end. So
//! [`extract_pdf`] runs each parse on its own worker thread, catches a panic there, and
//! waits at most [`PdfLimits::timeout`] for it (see [`extract_pdf`] for what happens to a
//! parse that does not finish).
//!
//! The file is parsed by `lopdf` (cross-reference repair for truncated files, a bound on
//! what one stream may inflate to, and reference-cycle limits). The text is taken by the
//! small content-stream interpreter below rather than by `lopdf::Document::extract_text`,
//! which has no glyph positions and so glues or splits words wherever a line is drawn in
//! several pieces; here a word break is inferred from the gap between one piece of text
//! and the next, as `pdftotext` does. `pdf-extract` does the same but sits on lopdf 0.42,
//! which has no inflation bound and cannot open a truncated file, and it recurses into a
//! self-referencing form XObject until the stack overflows (an abort, which no
//! `catch_unwind` can stop).

use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Once};
use std::thread;
use std::time::Duration;

use lopdf::content::Content;
use lopdf::{Dictionary, Document, Encoding, FilterFunc, LoadOptions, Object, ObjectId};

/// Limits of one PDF extraction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PdfLimits {
    /// Bytes of PDF accepted; a larger payload is [`PdfOutcome::TooLarge`] without parsing.
    pub max_input: usize,
    /// Bytes of (whitespace-collapsed) text kept; the parse stops once it has them.
    pub max_text: usize,
    /// Bytes that any one stream (object stream, page content, font CMap, form) may
    /// inflate to; a larger one is skipped, or fails the document if it holds objects
    /// (lopdf's `max_decompressed_size`). This keeps a small deflate bomb from taking
    /// gigabytes; a page's content is also parsed whole, at up to some 25 bytes of
    /// memory per byte.
    pub max_stream: usize,
    /// Estimated bytes of memory that the file's objects may take once parsed (lopdf
    /// holds them all); past it the document is [`PdfOutcome::Failed`]. Real files take
    /// one to a few times their inflated size; a file of tiny objects (`[0 0 0 …]`),
    /// some 25 times.
    pub max_objects: usize,
    /// How long the caller waits for one parse.
    pub timeout: Duration,
}

impl Default for PdfLimits {
    fn default() -> Self {
        PdfLimits {
            max_input: 32 << 20,
            max_text: 1 << 20,
            max_stream: 16 << 20,
            max_objects: 512 << 20,
            timeout: Duration::from_secs(10),
        }
    }
}

/// What one extraction gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PdfOutcome {
    /// The document opened. `text` may be empty (a scanned PDF has only images).
    Text {
        /// The document information dictionary's `/Title`, whitespace-collapsed;
        /// `None` when absent or blank.
        title: Option<String>,
        /// The text of the pages in order, whitespace runs collapsed to one space,
        /// at most [`PdfLimits::max_text`] bytes (cut on a char boundary).
        text: String,
        /// Pages whose content could not be read (or whose parse panicked); their
        /// text is missing, the other pages' is kept.
        failed_pages: usize,
    },
    /// The payload is larger than [`PdfLimits::max_input`].
    TooLarge,
    /// The document could not be opened, or no parse could be started; the message says why.
    Failed(String),
    /// The parser panicked before any text was had (the panic was caught).
    Panicked,
    /// The parse did not finish within [`PdfLimits::timeout`]; its thread was abandoned.
    TimedOut,
}

/// How many abandoned (timed-out, still running) parse threads may exist at once in the
/// process. Rust cannot kill a thread, so each one keeps its core and memory until its
/// parse ends by itself, if ever; past this many, new PDFs are refused rather than
/// letting the stuck threads pile up.
pub const MAX_STUCK_PARSES: usize = 4;

/// Abandoned parse threads still running (see [`MAX_STUCK_PARSES`]).
static STUCK: AtomicUsize = AtomicUsize::new(0);

/// Stack of a worker thread. The interpreter below recurses only into form XObjects (at
/// most [`MAX_FORM_DEPTH`] deep); lopdf's object parser nests at most 100 deep.
const WORKER_STACK: usize = 8 << 20;

/// Longest title kept, in bytes: a `/Title` is a label, not a text field.
const MAX_TITLE: usize = 1024;

/// Extracts the title and text of the PDF `bytes`, never panicking and never waiting
/// longer than `limits.timeout`.
///
/// The parse runs on a new worker thread. A panic inside it is caught and reported as
/// [`PdfOutcome::Panicked`] (or, when it hit only some pages, counted in
/// `failed_pages`), and its message is not printed: while a worker runs, a process-wide
/// panic hook installed on first use stays silent for panics on worker threads and
/// passes every other thread's panics to the hook that was there before. (If other code
/// replaces the hook later, the messages are printed again; nothing else changes.)
///
/// If the worker has not answered after `limits.timeout`, the caller returns
/// [`PdfOutcome::TimedOut`] and abandons the thread: it cannot be killed, so it runs on
/// until its parse ends, holding its copy of the input and whatever the parser has
/// allocated. At most [`MAX_STUCK_PARSES`] abandoned threads may exist at once (a few
/// more only if several callers time out at the same moment); while that many are
/// still running, every call returns `Failed("too many stuck PDF parses")` without
/// parsing, and calls parse again once one of them has ended.
///
/// Memory: the input is copied (twice when a truncated file is retried with a stand-in
/// catalog), each stream inflates to at most `limits.max_stream` bytes, and the parsed
/// objects are held to about `limits.max_objects` bytes. Two things escape that count:
/// one object is parsed whole before it is counted (a 30 MiB array of zeros peaked at
/// 1.9 GB before it was refused), and an encrypted file's objects are not counted at
/// all (lopdf does not apply its object filter, which does the counting, to those). A
/// stack overflow (which aborts the process) is not expected: lopdf limits its own
/// nesting and this module limits form nesting.
pub fn extract_pdf(bytes: &[u8], limits: &PdfLimits) -> PdfOutcome {
    if bytes.len() > limits.max_input {
        return PdfOutcome::TooLarge;
    }
    let input = bytes.to_vec();
    let worker_limits = limits.clone();
    isolated(limits.timeout, move || parse(&input, &worker_limits))
}

/// Runs `parse` on a new thread: its panic becomes [`PdfOutcome::Panicked`], and after
/// `timeout` the thread is abandoned (see [`extract_pdf`]).
fn isolated<F>(timeout: Duration, parse: F) -> PdfOutcome
where
    F: FnOnce() -> PdfOutcome + Send + 'static,
{
    if STUCK.load(Ordering::Acquire) >= MAX_STUCK_PARSES {
        return PdfOutcome::Failed("too many stuck PDF parses".to_string());
    }
    install_quiet_panic_hook();

    let state = Arc::new(AtomicU8::new(RUNNING));
    let worker_state = Arc::clone(&state);
    // Capacity 1: the worker's one send never blocks, even when nobody listens any more.
    let (tx, rx) = mpsc::sync_channel(1);
    let spawned = thread::Builder::new()
        .name("warcdex-pdf".to_string())
        .stack_size(WORKER_STACK)
        .spawn(move || {
            QUIET_PANICS.with(|quiet| quiet.set(true));
            // The closure owns the input, so it is freed before the answer is sent.
            let outcome =
                panic::catch_unwind(AssertUnwindSafe(parse)).unwrap_or(PdfOutcome::Panicked);
            // Sent before the state changes, so a caller that finds DONE finds the answer.
            let _ = tx.send(outcome);
            if worker_state
                .compare_exchange(RUNNING, DONE, Ordering::AcqRel, Ordering::Acquire)
                .is_err()
            {
                // The caller gave up on this parse and counted it as stuck.
                STUCK.fetch_sub(1, Ordering::AcqRel);
            }
        });
    if let Err(err) = spawned {
        return PdfOutcome::Failed(format!("could not start a PDF parse thread: {err}"));
    }

    match rx.recv_timeout(timeout) {
        Ok(outcome) => outcome,
        // Only a panic outside catch_unwind drops the sender unsent.
        Err(RecvTimeoutError::Disconnected) => PdfOutcome::Panicked,
        Err(RecvTimeoutError::Timeout) => {
            // Counted before the state changes, so the worker's decrement cannot come first.
            STUCK.fetch_add(1, Ordering::AcqRel);
            match state.compare_exchange(RUNNING, ABANDONED, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => PdfOutcome::TimedOut,
                Err(_) => {
                    // The worker finished in the meantime: its answer is in the channel.
                    STUCK.fetch_sub(1, Ordering::AcqRel);
                    rx.recv().unwrap_or(PdfOutcome::Panicked)
                }
            }
        }
    }
}

/// Worker states: running, finished (answer sent), abandoned by the caller.
const RUNNING: u8 = 0;
const DONE: u8 = 1;
const ABANDONED: u8 = 2;

thread_local! {
    /// Set on PDF worker threads, whose panics are expected and caught.
    static QUIET_PANICS: Cell<bool> = const { Cell::new(false) };
}

static QUIET_HOOK: Once = Once::new();

/// Wraps the current panic hook, once per process, so that it says nothing for panics on
/// PDF worker threads. The hook is process-wide, hence the per-thread flag.
fn install_quiet_panic_hook() {
    QUIET_HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            // try_with: a panic during thread teardown must not panic again in here.
            if !QUIET_PANICS.try_with(Cell::get).unwrap_or(false) {
                previous(info);
            }
        }));
    });
}

/// The parse proper, on the worker thread.
fn parse(bytes: &[u8], limits: &PdfLimits) -> PdfOutcome {
    let doc = match open(bytes, limits) {
        Ok(doc) => doc,
        Err(message) => return PdfOutcome::Failed(message),
    };
    let title = info_title(&doc);

    let mut sink = TextSink::new(limits.max_text);
    let mut interpreter = Interpreter::new(&doc, limits.max_stream);
    let mut failed_pages = 0;
    let mut panicked_pages = 0;
    let mut pages: Vec<_> = doc.get_pages().into_values().collect();
    if pages.is_empty() {
        pages = loose_pages(&doc);
    }
    for page_id in pages {
        sink.push_break();
        // Words are not joined across pages.
        sink.hyphen_at = None;
        // A panic on one page loses that page only; lopdf's Document is not changed by
        // reading, so the next page sees the same document.
        match panic::catch_unwind(AssertUnwindSafe(|| interpreter.page(page_id, &mut sink))) {
            Ok(Ok(())) => {}
            Ok(Err(Stop::Full)) => break,
            Ok(Err(Stop::Failed)) => failed_pages += 1,
            Err(_) => {
                failed_pages += 1;
                panicked_pages += 1;
            }
        }
    }
    if panicked_pages > 0 && sink.text.is_empty() {
        return PdfOutcome::Panicked;
    }
    PdfOutcome::Text {
        title,
        text: sink.text,
        failed_pages,
    }
}

/// Opens the document. A truncated capture has lost the cross-reference table at its
/// end, or has one whose offsets run past the end: then lopdf rebuilds it by scanning
/// the file for objects, and if the catalog is lost too (often written last), the scan
/// is given a stand-in catalog and the pages are found without their page tree (see
/// [`loose_pages`]).
fn open(bytes: &[u8], limits: &PdfLimits) -> Result<Document, String> {
    // The outer Err ends the attempts: the objects alone are over the budget.
    let load = |bytes: &[u8], force_reconstruct| {
        let options = LoadOptions {
            max_decompressed_size: Some(limits.max_stream),
            force_reconstruct,
            filter: Some(count_object as FilterFunc),
            ..LoadOptions::default()
        };
        OBJECT_BUDGET.set((0, limits.max_objects));
        let loaded = Document::load_mem_with_options(bytes, options);
        let (used, max) = OBJECT_BUDGET.get();
        if used > max {
            return Err(format!(
                "PDF objects take more than {max} bytes (max_objects)"
            ));
        }
        Ok(loaded)
    };
    let first = match load(bytes, false)? {
        // lopdf opens a file encrypted with the empty user password (common: "no
        // copying" files) by itself; any other password leaves it with no objects.
        Ok(doc) if doc.trailer.has(b"Encrypt") && doc.encryption_state.is_none() => {
            return Err("encrypted PDF: a password is needed".to_string())
        }
        Ok(doc) if !doc.get_pages().is_empty() => return Ok(doc),
        other => other,
    };
    let second = match load(bytes, true)? {
        Ok(doc) if !doc.get_pages().is_empty() => return Ok(doc),
        other => other,
    };
    if let Ok(doc) = load(&with_stand_in_catalog(bytes), true)? {
        if !loose_pages(&doc).is_empty() {
            return Ok(doc);
        }
    }
    // Opened, but without pages: an empty text rather than an error.
    match (first, second) {
        (Ok(doc), _) | (_, Ok(doc)) => Ok(doc),
        (Err(err), _) => Err(format!("unreadable PDF: {err}")),
    }
}

thread_local! {
    /// Estimated bytes of the objects loaded so far, and the most allowed, for the load
    /// running on this thread (lopdf's object filter is a plain `fn`, so its state is
    /// here; with lopdf's `rayon` feature off, the load runs on the calling thread).
    static OBJECT_BUDGET: Cell<(usize, usize)> = const { Cell::new((0, usize::MAX)) };
}

/// lopdf's object filter: counts each loaded object against [`OBJECT_BUDGET`] and drops
/// those past it (the load is then failed). It runs before the members of an object
/// stream are kept, so memory stays near the budget plus one object stream's objects.
fn count_object(id: ObjectId, object: &mut Object) -> Option<(ObjectId, Object)> {
    let (used, max) = OBJECT_BUDGET.get();
    let used = used.saturating_add(object_weight(object));
    OBJECT_BUDGET.set((used, max));
    // lopdf keeps the object returned for a member of an object stream, and the one it
    // passed in for any other; a clone serves both.
    (used <= max).then(|| (id, object.clone()))
}

/// Estimated bytes an object takes in memory: a node per value (with some allowance
/// for vector and map slack) plus its bytes. lopdf nests values at most 100 deep.
fn object_weight(object: &Object) -> usize {
    OBJECT_NODE
        + match object {
            Object::Name(bytes) | Object::String(bytes, _) => bytes.len(),
            Object::Array(items) => items.iter().map(object_weight).sum(),
            Object::Dictionary(dict) => dictionary_weight(dict),
            Object::Stream(stream) => dictionary_weight(&stream.dict) + stream.content.len(),
            _ => 0,
        }
}

fn dictionary_weight(dict: &Dictionary) -> usize {
    dict.iter()
        .map(|(key, value)| OBJECT_NODE + key.len() + object_weight(value))
        .sum()
}

const OBJECT_NODE: usize = std::mem::size_of::<Object>() + 16;

/// Object number of the stand-in catalog: the highest lopdf's scan accepts, so that it
/// shadows no object of the file's own.
const STAND_IN_CATALOG: u32 = 999_999;

/// `bytes` with an empty catalog and a trailer naming it appended, for a file whose own
/// trailer and catalog were lost (lopdf's scan needs a `/Root` to load anything).
fn with_stand_in_catalog(bytes: &[u8]) -> Vec<u8> {
    let tail = format!(
        "\n{STAND_IN_CATALOG} 0 obj\n<< /Type /Catalog >>\nendobj\n\
         trailer\n<< /Root {STAND_IN_CATALOG} 0 R >>\nstartxref\n0\n%%EOF\n"
    );
    let mut patched = Vec::with_capacity(bytes.len() + tail.len());
    patched.extend_from_slice(bytes);
    patched.extend_from_slice(tail.as_bytes());
    patched
}

/// The page objects of a document whose page tree is lost, in object-number order
/// (for the files seen, the order they were written in).
fn loose_pages(doc: &Document) -> Vec<ObjectId> {
    doc.objects
        .iter()
        .filter(|(_, object)| {
            object
                .as_dict()
                .is_ok_and(|d| d.get(b"Type").and_then(Object::as_name).ok() == Some(b"Page"))
        })
        .map(|(&id, _)| id)
        .collect()
}

/// The document information dictionary's `/Title`.
fn info_title(doc: &Document) -> Option<String> {
    let info = deref(doc, doc.trailer.get(b"Info").ok()?)?.as_dict().ok()?;
    let Object::String(bytes, _) = deref(doc, info.get(b"Title").ok()?)? else {
        return None;
    };
    let mut sink = TextSink::new(MAX_TITLE);
    sink.push_str(&decode_text_string(bytes));
    (!sink.text.is_empty()).then_some(sink.text)
}

/// Decodes a PDF text string (ISO 32000-2 §7.9.2.2): UTF-16BE or UTF-8 after a byte
/// order mark, else PDFDocEncoding. Lossy, unlike `lopdf::decode_text_string`, which
/// rejects a whole title for one unpaired surrogate.
fn decode_text_string(bytes: &[u8]) -> String {
    if let Some(utf16) = bytes.strip_prefix(b"\xFE\xFF") {
        let units: Vec<u16> = utf16
            .chunks_exact(2)
            .map(|pair| u16::from_be_bytes([pair[0], pair[1]]))
            .collect();
        String::from_utf16_lossy(&units)
    } else if let Some(utf8) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        String::from_utf8_lossy(utf8).into_owned()
    } else {
        bytes.iter().map(|&byte| pdf_doc_char(byte)).collect()
    }
}

/// One byte of PDFDocEncoding (ISO 32000-2 Annex D.2): Latin-1 except for 0x18–0x1F and
/// 0x7F–0xA0; undefined codes become U+FFFD, which the text sink drops.
fn pdf_doc_char(byte: u8) -> char {
    const LOW: [char; 8] = ['˘', 'ˇ', 'ˆ', '˙', '˝', '˛', '˚', '˜'];
    const HIGH: [char; 34] = [
        '\u{FFFD}', '•', '†', '‡', '…', '—', '–', 'ƒ', '⁄', '‹', '›', '−', '‰', '„', '“', '”', '‘',
        '’', '‚', '™', 'ﬁ', 'ﬂ', 'Ł', 'Œ', 'Š', 'Ÿ', 'Ž', 'ı', 'ł', 'œ', 'š', 'ž', '\u{FFFD}', '€',
    ];
    match byte {
        0x18..=0x1F => LOW[usize::from(byte - 0x18)],
        0x7F..=0xA0 => HIGH[usize::from(byte - 0x7F)],
        0xAD => '\u{FFFD}',
        _ => char::from(byte),
    }
}

/// Follows references (lopdf bounds the chain).
fn deref<'a>(doc: &'a Document, object: &'a Object) -> Option<&'a Object> {
    doc.dereference(object).ok().map(|(_, object)| object)
}

/// Collects text, collapsing whitespace, up to a byte cap.
struct TextSink {
    text: String,
    cap: usize,
    /// A break (whitespace, or a gap between pieces of text) is due before the next char.
    pending_space: bool,
    /// The cap was reached: later text is dropped and the parse may stop.
    full: bool,
    /// Where a hyphen ending the last line starts, if it may be a word's hyphenation.
    hyphen_at: Option<usize>,
}

impl TextSink {
    fn new(cap: usize) -> Self {
        TextSink {
            text: String::new(),
            cap,
            pending_space: false,
            full: false,
            hyphen_at: None,
        }
    }

    fn push_break(&mut self) {
        self.pending_space = !self.text.is_empty();
    }

    /// A break that ends a line. A line ending in a letter and a hyphen may be a word
    /// hyphenated across lines: if the next line starts with a lower-case letter, the
    /// hyphen goes and the halves are joined ("humani-" + "ties"), as `pdftotext` does.
    /// (A compound such as "well-known" split there loses its hyphen too.)
    fn push_line_break(&mut self) {
        self.push_break();
        let mut tail = self.text.char_indices().rev();
        if let (Some((at, '-' | '\u{00AD}' | '\u{2010}')), Some((_, letter))) =
            (tail.next(), tail.next())
        {
            if letter.is_alphabetic() {
                self.hyphen_at = Some(at);
            }
        }
    }

    fn push_str(&mut self, s: &str) {
        for c in s.chars() {
            if self.full {
                return;
            }
            // Control chars and U+FFFD (an unmapped glyph) carry no text: treated as breaks.
            if c.is_whitespace() || c.is_control() || c == '\u{FFFD}' {
                self.push_break();
                continue;
            }
            // Typographic ligatures (U+FB00–FB06), as NFKC would map them, so that
            // "ﬁle" is found as "file".
            match c {
                '\u{FB00}' => self.push_chars("ff"),
                '\u{FB01}' => self.push_chars("fi"),
                '\u{FB02}' => self.push_chars("fl"),
                '\u{FB03}' => self.push_chars("ffi"),
                '\u{FB04}' => self.push_chars("ffl"),
                '\u{FB05}' | '\u{FB06}' => self.push_chars("st"),
                _ => self.push_char(c),
            }
        }
    }

    fn push_chars(&mut self, s: &str) {
        s.chars().for_each(|c| self.push_char(c));
    }

    fn push_char(&mut self, c: char) {
        if let Some(at) = self.hyphen_at.take() {
            if c.is_lowercase() {
                self.text.truncate(at);
                self.pending_space = false;
            }
        }
        let space = usize::from(self.pending_space);
        if self.full || self.text.len() + space + c.len_utf8() > self.cap {
            self.full = true;
            return;
        }
        if self.pending_space {
            self.text.push(' ');
            self.pending_space = false;
        }
        self.text.push(c);
    }
}

/// Why the interpretation of a page stopped early.
#[derive(Debug)]
enum Stop {
    /// The text cap was reached: the document is done.
    Full,
    /// The page's content could not be read.
    Failed,
}

/// Deepest nesting of form XObjects followed; a form that draws itself stops here.
const MAX_FORM_DEPTH: usize = 12;
/// Form XObjects run per page: a form drawing another one twice, 30 levels down, would
/// otherwise be run 2^30 times.
const MAX_FORMS_PER_PAGE: usize = 2048;
/// Deepest `q` nesting kept; further saves are ignored (and so are their restores'
/// effects, which only makes positions approximate).
const MAX_SAVED_STATES: usize = 256;
/// A gap wider than this many text heights between two pieces of text on one line is a
/// word break; `pdftotext` and pdf-extract use about a tenth.
const WORD_GAP: f64 = 0.15;
/// A shift across the line of more than this many text heights is a line break.
const LINE_SHIFT: f64 = 0.5;
/// Glyph width (in text space units, i.e. of the font size) for a font without widths,
/// such as the standard 14 fonts in older files: an average Latin glyph.
const DEFAULT_GLYPH_WIDTH: f64 = 0.5;

/// An affine matrix `[a b c d e f]` as in PDF (row vectors: `p' = p × M`).
type Matrix = [f64; 6];
const IDENTITY: Matrix = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];

/// `m` then `n`.
fn mul(m: &Matrix, n: &Matrix) -> Matrix {
    [
        m[0] * n[0] + m[1] * n[2],
        m[0] * n[1] + m[1] * n[3],
        m[2] * n[0] + m[3] * n[2],
        m[2] * n[1] + m[3] * n[3],
        m[4] * n[0] + m[5] * n[2] + n[4],
        m[4] * n[1] + m[5] * n[3] + n[5],
    ]
}

fn translate(tx: f64, ty: f64) -> Matrix {
    [1.0, 0.0, 0.0, 1.0, tx, ty]
}

fn number(object: Option<&Object>) -> f64 {
    object
        .and_then(|o| o.as_float().ok())
        .map_or(0.0, f64::from)
}

fn matrix(operands: &[Object]) -> Option<Matrix> {
    if operands.len() < 6 {
        return None;
    }
    let mut m = IDENTITY;
    for (slot, operand) in m.iter_mut().zip(operands) {
        *slot = f64::from(operand.as_float().ok()?);
    }
    Some(m)
}

/// A font as far as text needs it: how its codes map to Unicode and how wide they are.
struct Font<'a> {
    /// `None`: no way to Unicode (a CID font without `/ToUnicode`); its text is skipped,
    /// but its glyphs still advance the position.
    encoding: Option<Encoding<'a>>,
    /// Codes are two bytes (Type0 fonts; Identity-H and nearly every CMap in use).
    two_byte: bool,
    widths: Widths,
}

/// Glyph widths in text space units (thousandths of glyph space already divided out).
enum Widths {
    Simple {
        first: i64,
        widths: Vec<f64>,
        missing: f64,
    },
    /// Start code → (end code, width), from a descendant font's `/W`.
    Cid {
        default: f64,
        ranges: BTreeMap<u32, (u32, f64)>,
    },
}

impl Font<'_> {
    fn width(&self, code: u32) -> f64 {
        match &self.widths {
            Widths::Simple {
                first,
                widths,
                missing,
            } => usize::try_from(i64::from(code) - first)
                .ok()
                .and_then(|i| widths.get(i).copied())
                .unwrap_or(*missing),
            Widths::Cid { default, ranges } => match ranges.range(..=code).next_back() {
                Some((_, &(end, width))) if code <= end => width,
                _ => *default,
            },
        }
    }

    /// The codes of a string: one or two bytes each.
    fn codes<'s>(&self, bytes: &'s [u8]) -> impl Iterator<Item = u32> + 's {
        let step = if self.two_byte { 2 } else { 1 };
        bytes
            .chunks(step)
            .map(|code| code.iter().fold(0u32, |acc, &b| acc << 8 | u32::from(b)))
    }
}

/// Graphics state, the part that places text (ISO 32000-2 §8.4, §9.3).
#[derive(Clone)]
struct GraphicsState<'a> {
    ctm: Matrix,
    char_spacing: f64,
    word_spacing: f64,
    horizontal_scale: f64,
    leading: f64,
    font: Option<Rc<Font<'a>>>,
    font_size: f64,
}

impl Default for GraphicsState<'_> {
    fn default() -> Self {
        GraphicsState {
            ctm: IDENTITY,
            char_spacing: 0.0,
            word_spacing: 0.0,
            horizontal_scale: 1.0,
            leading: 0.0,
            font: None,
            font_size: 0.0,
        }
    }
}

/// Where the last piece of text ended, in device space.
#[derive(Clone, Copy)]
struct Pen {
    x: f64,
    y: f64,
    /// Unit vector along the baseline.
    dir: (f64, f64),
}

/// The resource dictionaries in force, nearest first (a page's own and its ancestors').
type Resources<'a> = Vec<&'a Dictionary>;

/// Runs content streams and feeds the text shown to a [`TextSink`].
struct Interpreter<'a> {
    doc: &'a Document,
    max_stream: usize,
    /// Fonts by the address of their dictionary, which lives as long as the document.
    fonts: HashMap<usize, Rc<Font<'a>>>,
    forms_left: usize,
    pen: Option<Pen>,
}

impl<'a> Interpreter<'a> {
    fn new(doc: &'a Document, max_stream: usize) -> Self {
        Interpreter {
            doc,
            max_stream,
            fonts: HashMap::new(),
            forms_left: MAX_FORMS_PER_PAGE,
            pen: None,
        }
    }

    fn page(&mut self, page_id: ObjectId, sink: &mut TextSink) -> Result<(), Stop> {
        self.forms_left = MAX_FORMS_PER_PAGE;
        self.pen = None;
        // A page whose ancestors are lost (a truncated file) keeps its own resources.
        let (direct, ids) = match self.doc.get_page_resources(page_id) {
            Ok(found) => found,
            Err(_) => {
                let own = self.doc.get_dictionary(page_id).map_err(|_| Stop::Failed)?;
                match own.get(b"Resources").map_err(|_| Stop::Failed)? {
                    Object::Reference(id) => (None, vec![*id]),
                    Object::Dictionary(dict) => (Some(dict), Vec::new()),
                    _ => return Err(Stop::Failed),
                }
            }
        };
        let resources: Resources<'a> = direct
            .into_iter()
            .chain(
                ids.into_iter()
                    .filter_map(|id| self.doc.get_dictionary(id).ok()),
            )
            .collect();
        let content = self
            .doc
            .get_page_content_with_limit(page_id, self.max_stream)
            .map_err(|_| Stop::Failed)?;
        self.run(&content, &resources, GraphicsState::default(), 0, sink)
    }

    /// Interprets one content stream.
    fn run(
        &mut self,
        content: &[u8],
        resources: &[&'a Dictionary],
        mut gs: GraphicsState<'a>,
        depth: usize,
        sink: &mut TextSink,
    ) -> Result<(), Stop> {
        let content = Content::decode(content).map_err(|_| Stop::Failed)?;
        let mut saved = Vec::new();
        let mut tm = IDENTITY;
        let mut tlm = IDENTITY;
        for op in &content.operations {
            let args = &op.operands;
            match op.operator.as_str() {
                "q" if saved.len() < MAX_SAVED_STATES => saved.push(gs.clone()),
                "Q" => gs = saved.pop().unwrap_or(gs),
                "cm" => {
                    if let Some(m) = matrix(args) {
                        gs.ctm = mul(&m, &gs.ctm);
                    }
                }
                "BT" => {
                    tm = IDENTITY;
                    tlm = IDENTITY;
                }
                "Tc" => gs.char_spacing = number(args.first()),
                "Tw" => gs.word_spacing = number(args.first()),
                "Tz" => gs.horizontal_scale = number(args.first()) / 100.0,
                "TL" => gs.leading = number(args.first()),
                "Tf" => {
                    gs.font = args
                        .first()
                        .and_then(|name| name.as_name().ok())
                        .and_then(|name| self.font(resources, name));
                    gs.font_size = number(args.get(1));
                }
                "Td" | "TD" => {
                    let (tx, ty) = (number(args.first()), number(args.get(1)));
                    if op.operator == "TD" {
                        gs.leading = -ty;
                    }
                    tlm = mul(&translate(tx, ty), &tlm);
                    tm = tlm;
                }
                "Tm" => {
                    if let Some(m) = matrix(args) {
                        tlm = m;
                        tm = m;
                    }
                }
                "T*" => {
                    tlm = mul(&translate(0.0, -gs.leading), &tlm);
                    tm = tlm;
                }
                "Tj" => self.show(args.first(), &gs, &mut tm, sink)?,
                "'" | "\"" => {
                    let string = if op.operator == "'" {
                        args.first()
                    } else {
                        gs.word_spacing = number(args.first());
                        gs.char_spacing = number(args.get(1));
                        args.get(2)
                    };
                    tlm = mul(&translate(0.0, -gs.leading), &tlm);
                    tm = tlm;
                    self.show(string, &gs, &mut tm, sink)?;
                }
                "TJ" => {
                    let Some(Ok(items)) = args.first().map(Object::as_array) else {
                        continue;
                    };
                    for item in items {
                        match item {
                            Object::String(..) => self.show(Some(item), &gs, &mut tm, sink)?,
                            // A number moves the next glyph left by thousandths of the size.
                            _ => {
                                let adjust = -number(Some(item)) / 1000.0
                                    * gs.font_size
                                    * gs.horizontal_scale;
                                tm = mul(&translate(adjust, 0.0), &tm);
                            }
                        }
                    }
                }
                "Do" => {
                    if let Some(Ok(name)) = args.first().map(Object::as_name) {
                        self.form(name, resources, &gs, depth, sink)?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Shows one string: decides whether a break precedes it, emits its text, and
    /// advances the text matrix by its glyphs' widths.
    fn show(
        &mut self,
        string: Option<&Object>,
        gs: &GraphicsState<'a>,
        tm: &mut Matrix,
        sink: &mut TextSink,
    ) -> Result<(), Stop> {
        let (Some(Object::String(bytes, _)), Some(font)) = (string, gs.font.as_ref()) else {
            return Ok(());
        };
        let start = mul(tm, &gs.ctm);
        // Height of the text in device space: the font size scaled by the matrix.
        let height = gs.font_size.abs() * start[2].hypot(start[3]);
        if let Some(pen) = self.pen {
            let (dx, dy) = (start[4] - pen.x, start[5] - pen.y);
            let along = dx * pen.dir.0 + dy * pen.dir.1;
            let across = dy * pen.dir.0 - dx * pen.dir.1;
            // Off the line: a new line. Far ahead, or back by more than a glyph: a new word.
            if across.abs() > LINE_SHIFT * height {
                sink.push_line_break();
            } else if along > WORD_GAP * height || along < -height {
                sink.push_break();
            }
        }

        if let Some(encoding) = &font.encoding {
            let mut text = String::new();
            // A code the encoding cannot map loses the string, not the page.
            if encoding.write_to_string(bytes, &mut text).is_ok() {
                sink.push_str(&text);
            }
        }

        let mut advance = 0.0;
        for code in font.codes(bytes) {
            let word = if !font.two_byte && code == 32 {
                gs.word_spacing
            } else {
                0.0
            };
            advance += font.width(code) * gs.font_size + gs.char_spacing + word;
        }
        *tm = mul(&translate(advance * gs.horizontal_scale, 0.0), tm);

        let end = mul(tm, &gs.ctm);
        let len = start[0].hypot(start[1]);
        let dir = if len > 0.0 {
            (start[0] / len, start[1] / len)
        } else {
            (1.0, 0.0)
        };
        self.pen = Some(Pen {
            x: end[4],
            y: end[5],
            dir,
        });
        if sink.full {
            return Err(Stop::Full);
        }
        Ok(())
    }

    /// Runs the form XObject `name` (`Do`); images and unreadable forms are skipped.
    fn form(
        &mut self,
        name: &[u8],
        resources: &[&'a Dictionary],
        gs: &GraphicsState<'a>,
        depth: usize,
        sink: &mut TextSink,
    ) -> Result<(), Stop> {
        if depth >= MAX_FORM_DEPTH || self.forms_left == 0 {
            return Ok(());
        }
        self.forms_left -= 1;
        let Some(Ok(stream)) = self
            .resource(resources, b"XObject", name)
            .map(Object::as_stream)
        else {
            return Ok(());
        };
        if stream.dict.get(b"Subtype").and_then(Object::as_name).ok() != Some(b"Form") {
            return Ok(());
        }
        let Ok(content) = stream.get_plain_content_with_limit(self.max_stream) else {
            return Ok(());
        };
        // A form without resources of its own uses those of whatever draws it (allowed
        // in PDF 1.1 and still found).
        let own: Resources<'a> = stream
            .dict
            .get(b"Resources")
            .ok()
            .and_then(|r| deref(self.doc, r))
            .and_then(|r| r.as_dict().ok())
            .into_iter()
            .collect();
        let form_resources = if own.is_empty() { resources } else { &own };
        let mut form_gs = gs.clone();
        if let Some(m) = stream
            .dict
            .get(b"Matrix")
            .ok()
            .and_then(|m| m.as_array().ok())
            .and_then(|m| matrix(m))
        {
            form_gs.ctm = mul(&m, &form_gs.ctm);
        }
        match self.run(&content, form_resources, form_gs, depth + 1, sink) {
            // A broken form loses its own text only.
            Err(Stop::Failed) => Ok(()),
            other => other,
        }
    }

    /// Looks `name` up in a resource category (`/Font`, `/XObject`), nearest dictionary first.
    fn resource(
        &self,
        resources: &[&'a Dictionary],
        category: &[u8],
        name: &[u8],
    ) -> Option<&'a Object> {
        resources.iter().find_map(|dict| {
            let entries = deref(self.doc, dict.get(category).ok()?)?.as_dict().ok()?;
            deref(self.doc, entries.get(name).ok()?)
        })
    }

    fn font(&mut self, resources: &[&'a Dictionary], name: &[u8]) -> Option<Rc<Font<'a>>> {
        let dict = self.resource(resources, b"Font", name)?.as_dict().ok()?;
        let key = std::ptr::from_ref(dict) as usize;
        if let Some(font) = self.fonts.get(&key) {
            return Some(Rc::clone(font));
        }
        let font = Rc::new(self.load_font(dict));
        self.fonts.insert(key, Rc::clone(&font));
        Some(font)
    }

    fn load_font(&self, dict: &'a Dictionary) -> Font<'a> {
        let doc = self.doc;
        let get = |d: &'a Dictionary, key: &[u8]| d.get(key).ok().and_then(|o| deref(doc, o));
        let subtype = dict
            .get(b"Subtype")
            .and_then(Object::as_name)
            .unwrap_or(b"");
        let two_byte = subtype == b"Type0";

        // /ToUnicode first, as pdftotext does: lopdf prefers /Encoding when both exist,
        // and for subset fonts with custom encodings only the CMap gives real Unicode.
        let mut encoding = None;
        if get(dict, b"ToUnicode").is_some() {
            let mut without_encoding = dict.clone();
            without_encoding.remove(b"Encoding");
            if let Ok(Encoding::UnicodeMapEncoding(cmap)) =
                without_encoding.get_font_encoding_with_limit(doc, self.max_stream)
            {
                encoding = Some(Encoding::UnicodeMapEncoding(cmap));
            }
        }
        if encoding.is_none() {
            let predefined_unicode = matches!(
                dict.get(b"Encoding").and_then(Object::as_name),
                Ok(b"UniGB-UCS2-H" | b"UniGB-UTF16-H")
            );
            // Other CID fonts without a CMap: lopdf would read them as one-byte
            // StandardEncoding, i.e. garbage.
            if !two_byte || predefined_unicode {
                encoding = dict.get_font_encoding_with_limit(doc, self.max_stream).ok();
            }
        }

        let widths = if two_byte {
            let descendant = get(dict, b"DescendantFonts")
                .and_then(|d| d.as_array().ok())
                .and_then(|d| d.first())
                .and_then(|d| deref(doc, d))
                .and_then(|d| d.as_dict().ok());
            cid_widths(doc, descendant)
        } else {
            // Type3 glyph space is the font's own (/FontMatrix); the others' is 1/1000.
            let scale = get(dict, b"FontMatrix")
                .and_then(|m| m.as_array().ok())
                .and_then(|m| m.first())
                .and_then(|a| a.as_float().ok())
                .map_or(0.001, f64::from);
            let missing = get(dict, b"FontDescriptor")
                .and_then(|d| d.as_dict().ok())
                .and_then(|d| d.get(b"MissingWidth").ok())
                .and_then(|w| w.as_float().ok())
                .filter(|&w| w > 0.0)
                .map_or(DEFAULT_GLYPH_WIDTH, |w| f64::from(w) * scale);
            let widths = get(dict, b"Widths")
                .and_then(|w| w.as_array().ok())
                .map(|w| {
                    w.iter()
                        .map(|v| deref(doc, v).map_or(0.0, |v| number(Some(v)) * scale))
                        .collect()
                })
                .unwrap_or_default();
            let first = get(dict, b"FirstChar")
                .and_then(|f| f.as_i64().ok())
                .unwrap_or(0);
            Widths::Simple {
                first,
                widths,
                missing,
            }
        };
        Font {
            encoding,
            two_byte,
            widths,
        }
    }
}

/// A CID font's widths: `/DW` and `/W` (ISO 32000-2 §9.7.4.3), whose entries are
/// `c [w1 w2 …]` or `c_first c_last w`.
fn cid_widths(doc: &Document, font: Option<&Dictionary>) -> Widths {
    let mut ranges = BTreeMap::new();
    let default = font
        .and_then(|f| f.get(b"DW").ok())
        .and_then(|w| w.as_float().ok())
        .map_or(1.0, |w| f64::from(w) / 1000.0);
    let w = font
        .and_then(|f| f.get(b"W").ok())
        .and_then(|w| deref(doc, w))
        .and_then(|w| w.as_array().ok());
    let code = |o: &Object| o.as_i64().ok().and_then(|c| u32::try_from(c).ok());
    let mut items = w.map(|w| w.as_slice()).unwrap_or_default().iter();
    while let Some(first) = items.next().and_then(code) {
        match items.next().and_then(|o| deref(doc, o)) {
            Some(Object::Array(list)) => {
                for (i, width) in list.iter().enumerate() {
                    let Some(c) = u32::try_from(i).ok().and_then(|i| first.checked_add(i)) else {
                        break;
                    };
                    ranges.insert(c, (c, number(Some(width)) / 1000.0));
                }
            }
            Some(last) => {
                let Some(last) = code(last) else { break };
                ranges.insert(first, (last, number(items.next()) / 1000.0));
            }
            None => break,
        }
    }
    Widths::Cid { default, ranges }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Mutex, MutexGuard};
    use std::time::Instant;

    /// The tests share the process-wide count of stuck parses: the one that fills it
    /// must not run beside the others, which it would make refuse their PDFs.
    static SERIAL: Mutex<()> = Mutex::new(());

    fn serial() -> MutexGuard<'static, ()> {
        SERIAL
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn extract(bytes: &[u8], limits: &PdfLimits) -> PdfOutcome {
        let _guard = serial();
        extract_pdf(bytes, limits)
    }

    /// A PDF of the given objects (numbered from 1; object 1 is the catalog) with a
    /// correct cross-reference table.
    fn pdf(objects: &[&str], trailer_extra: &str) -> Vec<u8> {
        let mut out = b"%PDF-1.4\n%\xE2\xE3\xCF\xD3\n".to_vec();
        let mut offsets = Vec::new();
        for (i, body) in objects.iter().enumerate() {
            offsets.push(out.len());
            out.extend_from_slice(format!("{} 0 obj\n{body}\nendobj\n", i + 1).as_bytes());
        }
        let xref = out.len();
        out.extend_from_slice(
            format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
        );
        for offset in offsets {
            out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
        }
        out.extend_from_slice(
            format!(
                "trailer\n<< /Size {} /Root 1 0 R{trailer_extra} >>\nstartxref\n{xref}\n%%EOF\n",
                objects.len() + 1
            )
            .as_bytes(),
        );
        out
    }

    fn stream(dict: &str, data: &str) -> String {
        format!(
            "<< /Length {}{dict} >>\nstream\n{data}\nendstream",
            data.len()
        )
    }

    /// One page showing `content` with Helvetica (WinAnsi) as /F1, plus `extra` objects
    /// from number 6 on, and page resources `resources_extra`.
    fn one_page(content: &str, resources_extra: &str, extra: &[&str], trailer: &str) -> Vec<u8> {
        let page = format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] \
             /Resources << /Font << /F1 5 0 R >>{resources_extra} >> /Contents 4 0 R >>"
        );
        let content = stream("", content);
        let mut objects = vec![
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            &page,
            &content,
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        ];
        objects.extend_from_slice(extra);
        pdf(&objects, trailer)
    }

    /// A small two-line document with a title, the stand-in for a real capture.
    fn sample() -> Vec<u8> {
        one_page(
            "BT /F1 12 Tf 72 720 Td (The Cost of a WARC:) Tj 0 -14 Td \
             [(Analyzing) -300 (Web) -300 (Archi) 20 (ves)] TJ ET",
            "",
            &["<< /Title (Cost of a \\(WARC\\)) /Producer (hand) >>"],
            " /Info 6 0 R",
        )
    }

    fn text_of(outcome: PdfOutcome) -> (Option<String>, String, usize) {
        match outcome {
            PdfOutcome::Text {
                title,
                text,
                failed_pages,
            } => (title, text, failed_pages),
            other => panic!("expected text, got {other:?}"),
        }
    }

    #[test]
    fn text_and_title() {
        let (title, text, failed) = text_of(extract(&sample(), &PdfLimits::default()));
        assert_eq!(title.as_deref(), Some("Cost of a (WARC)"));
        // TJ gaps of 0.3 em are word breaks; the 0.02 em kern inside "Archives" is not.
        assert_eq!(text, "The Cost of a WARC: Analyzing Web Archives");
        assert_eq!(failed, 0);
    }

    #[test]
    fn truncated_pdf_fails_without_panicking() {
        let whole = sample();
        // Every prefix: an error or (once the page is in) some text, never a panic or a hang.
        for len in 0..whole.len() {
            match extract(&whole[..len], &PdfLimits::default()) {
                PdfOutcome::Text { .. } | PdfOutcome::Failed(_) => {}
                other => panic!("prefix of {len} bytes: {other:?}"),
            }
        }
        // Cut inside the header: nothing to read.
        assert!(matches!(
            extract(&whole[..20], &PdfLimits::default()),
            PdfOutcome::Failed(_)
        ));
        // Cut before the cross-reference table: the scan still finds the page.
        let xref = whole.windows(4).position(|w| w == b"xref").unwrap();
        let (_, text, _) = text_of(extract(&whole[..xref], &PdfLimits::default()));
        assert!(text.contains("Analyzing"), "{text}");
    }

    #[test]
    fn garbage_fails() {
        let mut state = 0x2545_f491_u32;
        let garbage: Vec<u8> = (0..100_000)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                state.to_le_bytes()[0]
            })
            .collect();
        assert!(matches!(
            extract(&garbage, &PdfLimits::default()),
            PdfOutcome::Failed(_)
        ));
        assert!(matches!(
            extract(b"", &PdfLimits::default()),
            PdfOutcome::Failed(_)
        ));
    }

    #[test]
    fn oversized_input_is_refused_unparsed() {
        let limits = PdfLimits {
            max_input: 100,
            ..PdfLimits::default()
        };
        assert_eq!(extract(&sample(), &limits), PdfOutcome::TooLarge);
        // At the limit it is parsed.
        assert!(matches!(
            extract(&[b'x'; 100], &limits),
            PdfOutcome::Failed(_)
        ));
    }

    #[test]
    fn text_is_capped_on_a_char_boundary() {
        // \351 is é in WinAnsiEncoding: two bytes of UTF-8 each.
        let bytes = one_page(
            "BT /F1 12 Tf (\\351\\351\\351  \\351\\351) Tj ET",
            "",
            &[],
            "",
        );
        let limits = |max_text| PdfLimits {
            max_text,
            ..PdfLimits::default()
        };
        assert_eq!(text_of(extract(&bytes, &limits(100))).1, "ééé éé");
        assert_eq!(text_of(extract(&bytes, &limits(5))).1, "éé");
        assert_eq!(text_of(extract(&bytes, &limits(6))).1, "ééé");
        // The space is not kept alone at the end.
        assert_eq!(text_of(extract(&bytes, &limits(7))).1, "ééé");
        assert_eq!(text_of(extract(&bytes, &limits(0))).1, "");
    }

    #[test]
    fn a_form_that_draws_itself_ends() {
        let form = stream(
            " /Type /XObject /Subtype /Form /BBox [0 0 612 792] \
             /Resources << /Font << /F1 5 0 R >> /XObject << /X1 6 0 R >> >>",
            "BT /F1 12 Tf (loop) Tj ET /X1 Do",
        );
        let bytes = one_page("/X1 Do", " /XObject << /X1 6 0 R >>", &[&form], "");
        let (_, text, _) = text_of(extract(&bytes, &PdfLimits::default()));
        // Drawn at every level down to the depth limit, each time back at the same spot.
        assert_eq!(text, ["loop"; MAX_FORM_DEPTH].join(" "));
    }

    #[test]
    fn a_stream_over_max_stream_is_skipped() {
        let limits = PdfLimits {
            max_stream: 1 << 20,
            ..PdfLimits::default()
        };
        // A content stream of 4 MiB of spaces stored uncompressed: over max_stream.
        let content = " ".repeat(4 << 20) + "BT /F1 12 Tf (after) Tj ET";
        let (_, text, failed) = text_of(extract(&one_page(&content, "", &[], ""), &limits));
        assert_eq!((text.as_str(), failed), ("", 1));
    }

    #[test]
    fn objects_over_the_memory_budget_fail() {
        let array = format!("[{}]", "0 ".repeat(100_000));
        let bytes = one_page("BT /F1 12 Tf (small) Tj ET", "", &[&array], "");
        let limits = PdfLimits {
            max_objects: 1 << 20,
            ..PdfLimits::default()
        };
        assert_eq!(
            extract(&bytes, &limits),
            PdfOutcome::Failed(format!(
                "PDF objects take more than {} bytes (max_objects)",
                1 << 20
            ))
        );
        let (_, text, _) = text_of(extract(&bytes, &PdfLimits::default()));
        assert_eq!(text, "small");
    }

    #[test]
    fn a_panic_is_caught_and_silent() {
        let _guard = serial();
        let outcome = isolated(Duration::from_secs(10), || panic!("parser bug"));
        assert_eq!(outcome, PdfOutcome::Panicked);
    }

    #[test]
    fn stuck_parses_time_out_and_are_bounded() {
        let _guard = serial();
        let slow = || {
            thread::sleep(Duration::from_millis(300));
            PdfOutcome::Panicked
        };
        for _ in 0..MAX_STUCK_PARSES {
            assert_eq!(isolated(Duration::ZERO, slow), PdfOutcome::TimedOut);
        }
        assert_eq!(
            isolated(Duration::ZERO, slow),
            PdfOutcome::Failed("too many stuck PDF parses".to_string())
        );
        // The abandoned threads end by themselves and free their places.
        let start = Instant::now();
        while STUCK.load(Ordering::Acquire) > 0 {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "stuck parses not released"
            );
            thread::sleep(Duration::from_millis(10));
        }
        let quick = isolated(Duration::from_secs(10), || PdfOutcome::TooLarge);
        assert_eq!(quick, PdfOutcome::TooLarge);
    }

    #[test]
    fn title_encodings() {
        assert_eq!(
            decode_text_string(b"\xFE\xFF\x00H\x00i\x03\xA9\xD8\x3D\xDE\x00"),
            "HiΩ😀"
        );
        // An unpaired surrogate costs one char, not the title.
        assert_eq!(
            decode_text_string(b"\xFE\xFF\x00A\xD8\x00\x00B"),
            "A\u{FFFD}B"
        );
        assert_eq!(decode_text_string(b"\xEF\xBB\xBFna\xC3\xAFve"), "naïve");
        assert_eq!(
            decode_text_string(b"Caf\xE9 \x80 \x93 \x84 \x18"),
            "Café • ﬁ — ˘"
        );
        let bytes = one_page(
            "",
            "",
            &["<< /Title <FEFF0020004400410020000A00200020> >>"],
            " /Info 6 0 R",
        );
        assert_eq!(
            text_of(extract(&bytes, &PdfLimits::default())).0.as_deref(),
            Some("DA")
        );
        let untitled = one_page("", "", &["<< /Title (  ) >>"], " /Info 6 0 R");
        assert_eq!(text_of(extract(&untitled, &PdfLimits::default())).0, None);
    }

    #[test]
    fn sink_collapses_joins_and_expands() {
        let mut sink = TextSink::new(100);
        sink.push_str("  a\t\n b\u{0}c\u{FFFD}d ");
        sink.push_break();
        sink.push_str("\u{FB01}le humani-");
        sink.push_line_break();
        sink.push_str("ties well-");
        sink.push_line_break();
        sink.push_str("Known");
        assert_eq!(sink.text, "a b c d file humanities well- Known");
    }
}
