//! `warcdex import`: archives to a segment of parsed documents, one per version
//! (canonical URL key + payload digest), never one per URL (docs/design.md §2).
//!
//! Each capture is selected (WARC response/resource, ARC records after the filedesc),
//! filtered by HTTP status and the exclusion list (`URLKEY sha1:DIGEST DATE14`), parsed
//! (HTML title/text/links, plain text), and merged with other captures of the same
//! version: one row with every date, the earliest capture's metadata and content.

pub mod body;
pub mod exclusions;
pub mod language;
pub mod manifest;
pub mod pdf;
pub mod segment_dir;
mod versions;

use std::collections::{BTreeMap, HashMap};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use sha1::{Digest, Sha1};
use warcdex_cdx::{url_key, KeyStyle};

use crate::reader::error::AnomalyCounts;
use crate::reader::header::decode;
use crate::reader::wacz::archive_parts;
use crate::reader::{ArchiveReader, ReaderOptions, Record};
pub use crate::segment::layout::{SourceReport, StatusFilter};
use crate::segment::SegmentRow;
use exclusions::Exclusions;
use manifest::ManifestEntry;
use versions::{Order, Versions};
use warcdex_cdx::message::MESSAGES_PER_FILE;

/// How to import.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// The URL canonicalizer for keys (must match the exclusion list's).
    pub key: KeyStyle,
    /// Statuses imported.
    pub status: StatusFilter,
    /// Bytes of each payload kept for parsing, and of extracted text.
    pub content_limit: usize,
    /// The collection of archives whose manifest line names none.
    pub collection: String,
    /// Bytes for what the import gathers: three quarters for the external sort of dates
    /// and parsed rows (sorted runs go to disk beyond it), a quarter for the cache of
    /// recent versions.
    pub memory: usize,
    /// Directory for those runs (default: the system's).
    pub tmp_dir: Option<PathBuf>,
    /// The import manifest's folder: each row's `archive` is its archive's path
    /// relative to it (absolute for an archive outside it). `None`: the path as given.
    pub archive_base: Option<PathBuf>,
    /// Check each WACZ's `datapackage.json` (sizes and SHA-256) first; a WACZ that fails
    /// is not imported and is reported as an archive with an error.
    pub verify_wacz: bool,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            key: KeyStyle::Surt,
            status: StatusFilter::default(),
            content_limit: 1 << 20,
            collection: "default".into(),
            memory: 192 << 20,
            tmp_dir: None,
            archive_base: None,
            verify_wacz: false,
        }
    }
}

/// Imports every archive of `entries` (in parallel) and merges the captures into one row
/// per version, ordered by (URL key, digest), in memory. Messages about problems go to
/// `log`. [`import_versions`] is the same without holding the rows.
pub fn import_archives(
    entries: &[ManifestEntry],
    exclusions: Option<&Exclusions>,
    opts: &ImportOptions,
    on_done: &(dyn Fn(&Path) + Sync),
    log: &(dyn Fn(&str) + Sync),
) -> io::Result<(Vec<SegmentRow>, Vec<SourceReport>)> {
    let (versions, reports) = import_versions(entries, exclusions, opts, on_done, log);
    let mut rows = Vec::new();
    versions.rows(|r| {
        rows.push(r);
        Ok(())
    })?;
    Ok((rows, reports))
}

/// What an import found, before it is written: the versions, whose rows wait in an
/// external sort (`ImportOptions::memory`) until [`ImportedVersions::rows`] reads them.
pub struct ImportedVersions(Versions);

impl ImportedVersions {
    /// Calls `f` with each version's row in (URL key, digest) order, with every date of
    /// the version; returns the number of rows.
    pub fn rows(self, f: impl FnMut(SegmentRow) -> io::Result<()>) -> io::Result<u64> {
        self.0.into_rows(f)
    }
}

/// Imports every archive of `entries` (in parallel) into versions whose rows are sorted
/// within `opts.memory`, spilling to disk beyond it. Messages about problems go to `log`.
pub fn import_versions(
    entries: &[ManifestEntry],
    exclusions: Option<&Exclusions>,
    opts: &ImportOptions,
    on_done: &(dyn Fn(&Path) + Sync),
    log: &(dyn Fn(&str) + Sync),
) -> (ImportedVersions, Vec<SourceReport>) {
    use rayon::prelude::*;
    let versions = Versions::new(warcdex_cdx::sort::SortOptions {
        memory: opts.memory,
        tmp_dir: opts.tmp_dir.clone(),
        unique: false,
    });
    let reports: Vec<SourceReport> = entries
        .par_iter()
        .enumerate()
        .map(|(i, e)| {
            let r = import_one(i, e, exclusions, opts, &versions, log);
            on_done(&e.path);
            r
        })
        .collect();
    (ImportedVersions(versions), reports)
}

/// A capture that is the earliest of its version so far: its key, order and row.
struct Claimed {
    key: (String, String),
    order: Order,
    row: SegmentRow,
    /// The first `content_limit` bytes of the payload, parsed later in a batch.
    body: Vec<u8>,
    facts: HttpFacts,
}

/// Parse jobs are gathered until this many payload bytes wait, then parsed on the
/// thread pool: reading an archive is sequential, parsing its pages need not be.
const PARSE_BATCH_BYTES: usize = 16 << 20;

/// A batch is also parsed once this many captures wait (pages of a few bytes each).
const PARSE_BATCH_CAPTURES: usize = 1024;

/// Parses a batch of claimed captures in parallel and offers their rows; returns the
/// number of parse failures and the PDF outcomes by kind.
fn parse_batch(
    batch: &mut Vec<Claimed>,
    limit: usize,
    versions: &Versions,
    titles: &HashMap<String, String>,
) -> (u64, BTreeMap<String, u64>) {
    use rayon::prelude::*;
    batch
        .par_drain(..)
        .map(|mut c| {
            let parsed = parse_into(&mut c.row, &c.body, &c.facts, limit);
            if parsed.ok {
                c.row.set_fingerprint();
            }
            if c.row.title.as_deref().is_none_or(|t| t.trim().is_empty()) {
                if let Some(t) = titles.get(&c.row.url) {
                    c.row.title = Some(t.clone());
                }
            }
            versions.offer(&c.key, &c.order, c.row);
            let mut pdf = BTreeMap::new();
            if let Some(kind) = parsed.pdf {
                pdf.insert(kind.to_string(), 1);
            }
            if parsed.element_cap {
                pdf.insert(ELEMENT_CAP.to_string(), 1);
            }
            (u64::from(!parsed.ok), pdf)
        })
        .reduce(
            || (0, BTreeMap::new()),
            |(fa, mut pa), (fb, pb)| {
                for (k, n) in pb {
                    *pa.entry(k).or_default() += n;
                }
                (fa + fb, pa)
            },
        )
}

/// An archive's path relative to `base` (the manifest's folder) when it lies inside
/// it; absolute when it lies outside, so that the row does not depend on the working
/// directory import ran in; without a base (or when the path cannot be resolved), the
/// path as the manifest gave it.
fn archive_name(path: &Path, base: Option<&Path>) -> String {
    let resolved = base.and_then(|b| {
        let p = std::fs::canonicalize(path).ok()?;
        let b = std::fs::canonicalize(if b.as_os_str().is_empty() {
            Path::new(".")
        } else {
            b
        })
        .ok()?;
        Some(match p.strip_prefix(&b) {
            Ok(inside) => inside.to_path_buf(),
            Err(_) => p,
        })
    });
    resolved
        .as_deref()
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

fn import_one(
    index: usize,
    entry: &ManifestEntry,
    exclusions: Option<&Exclusions>,
    opts: &ImportOptions,
    versions: &Versions,
    log: &(dyn Fn(&str) + Sync),
) -> SourceReport {
    let name = entry.path.display().to_string();
    let collection = entry
        .collection
        .clone()
        .unwrap_or_else(|| opts.collection.clone());
    let mut report = SourceReport {
        path: name.clone(),
        collection: collection.clone(),
        ..SourceReport::default()
    };
    let parts = match archive_parts(&entry.path) {
        Ok(p) => p,
        Err(e) => {
            log(&format!("{e}"));
            report.error = Some(e.to_string());
            return report;
        }
    };
    if opts.verify_wacz {
        if let Some((wacz, _)) = &parts[0].in_wacz {
            // Import has no --max-messages: the cap of its other per-file messages.
            let problems = match wacz.verify(MESSAGES_PER_FILE as usize) {
                Ok(v) if v.is_whole() => None,
                Ok(v) => Some(v.problems_line()),
                Err(e) => Some(e.to_string()),
            };
            if let Some(problems) = problems {
                let e = format!("{name}: not imported, verification failed: {problems}");
                log(&e);
                report.error = Some(e);
                return report;
            }
        }
    }
    // A WACZ's page list titles the pages whose own title is missing.
    let titles = match &parts[0].in_wacz {
        Some((wacz, _)) => match wacz.page_titles() {
            Ok(pt) => {
                for m in &pt.messages {
                    log(m);
                }
                let more = pt.long_lines - pt.messages.len() as u64;
                if more > 0 {
                    log(&format!(
                        "{name}: … and {more} more page list lines longer than {} MiB skipped",
                        crate::reader::wacz::MAX_PAGE_LINE_BYTES >> 20
                    ));
                }
                if pt.over > 0 {
                    log(&format!(
                        "{name}: {} page titles past the first {} (or {} MiB) not used",
                        pt.over,
                        crate::reader::wacz::MAX_PAGE_TITLES,
                        crate::reader::wacz::MAX_PAGE_TITLE_BYTES >> 20
                    ));
                }
                pt.titles
            }
            Err(e) => {
                log(&format!("{e}; page titles not used"));
                HashMap::new()
            }
        },
        None => HashMap::new(),
    };
    let archive = archive_name(&entry.path, opts.archive_base.as_deref());
    for (part_index, part) in parts.iter().enumerate() {
        let reader = match part.open(ReaderOptions::default()) {
            Ok(r) => r,
            Err(e) => {
                log(&format!("{e}"));
                report.error.get_or_insert_with(|| e.to_string());
                continue;
            }
        };
        let filename = part.filename();
        let part_name = part.display_path();
        let ctx = Ctx {
            index,
            part: part_index,
            filename: &filename,
            archive: &archive,
            now: crate::reader::date::now_micros(),
            collection: &collection,
            exclusions,
            opts,
            versions,
        };
        let shown_name = part_name.display().to_string();
        let mut reading = Reading {
            reader,
            name: &shown_name,
            path: &part_name,
            shown: 0,
            done: false,
        };
        // Double-buffered: the next batch is read (a sequential inflate) while the pool
        // parses this one, so the threads are not idle while one of them reads.
        let mut batch = reading.next_batch(&ctx, &mut report, log);
        while !batch.is_empty() {
            let (failures, next) = rayon::join(
                || parse_batch(&mut batch, opts.content_limit, versions, &titles),
                || reading.next_batch(&ctx, &mut report, log),
            );
            report.parse_failures += failures.0;
            for (k, n) in failures.1 {
                if k == ELEMENT_CAP {
                    report.element_cap += n;
                } else {
                    *report.pdf.entry(k).or_default() += n;
                }
            }
            batch = next;
        }
        let reader = reading.reader;
        for (kind, n) in anomaly_map(reader.counts()) {
            *report.anomalies.entry(kind).or_default() += n;
        }
    }
    report
}

/// An archive being read in batches of captures to parse.
struct Reading<'a> {
    reader: ArchiveReader<crate::reader::Input>,
    name: &'a str,
    path: &'a Path,
    /// Anomalies logged so far (the first five are).
    shown: usize,
    /// The archive ended, or an error stopped it.
    done: bool,
}

impl Reading<'_> {
    /// Reads on until [`PARSE_BATCH_BYTES`] of payload or [`PARSE_BATCH_CAPTURES`]
    /// captures wait to be parsed, or the archive ends (an empty batch then).
    fn next_batch(
        &mut self,
        ctx: &Ctx<'_>,
        report: &mut SourceReport,
        log: &(dyn Fn(&str) + Sync),
    ) -> Vec<Claimed> {
        let (mut pending, mut pending_bytes) = (Vec::new(), 0usize);
        while !self.done
            && pending_bytes < PARSE_BATCH_BYTES
            && pending.len() < PARSE_BATCH_CAPTURES
        {
            let outcome = match self.reader.next_record() {
                Ok(None) => {
                    self.done = true;
                    break;
                }
                Ok(Some(mut rec)) => {
                    report.records += 1;
                    match capture_of(&mut rec, ctx, report) {
                        Ok(claimed) => match rec.finish() {
                            Ok(span) => Ok((claimed, span)),
                            // Its bytes were in a damaged gzip member (the reader counts
                            // it as `lost-record`): not a record read, not a capture.
                            Err(e) if e.is_record_lost() => {
                                report.records -= 1;
                                if let Some(c) = claimed {
                                    report.imported -= 1;
                                    ctx.versions.withdraw(&c.key, &c.order);
                                }
                                Ok((
                                    None,
                                    crate::reader::Span {
                                        offset: 0,
                                        length: 0,
                                    },
                                ))
                            }
                            Err(e) => Err(e),
                        },
                        Err(e) => Err(e),
                    }
                }
                Err(e) => Err(e),
            };
            for a in self.reader.take_anomalies() {
                self.shown += 1;
                if self.shown <= 5 {
                    log(&format!("{}: {a}", self.name));
                }
            }
            match outcome {
                Ok((Some(mut c), span)) => {
                    c.row.offset = span.offset;
                    c.row.length = span.length;
                    pending_bytes += c.body.len();
                    pending.push(c);
                }
                Ok((None, _)) => {}
                Err(e) => {
                    let e = e.with_path(self.path);
                    log(&format!(
                        "{e} (kept {} captures before it)",
                        report.imported
                    ));
                    report.error = Some(e.to_string());
                    self.done = true;
                }
            }
        }
        pending
    }
}

/// The anomaly counted for a capture whose date is not a possible capture date (a year
/// before 1991 or in the future: warcio's rules make 2999 of an ARC date that is not a
/// date).
pub const IMPOSSIBLE_DATE: &str = "impossible-date";

fn anomaly_map(c: &AnomalyCounts) -> BTreeMap<String, u64> {
    c.nonzero()
        .map(|(k, n)| (k.name().to_string(), n))
        .collect()
}

struct Ctx<'a> {
    index: usize,
    /// The WARC's place in its WACZ (0 for an archive file).
    part: usize,
    filename: &'a str,
    archive: &'a str,
    /// The bound of a possible capture date ([`crate::reader::date::capture_micros`]).
    now: i64,
    collection: &'a str,
    exclusions: Option<&'a Exclusions>,
    opts: &'a ImportOptions,
    versions: &'a Versions,
}

impl Ctx<'_> {
    /// Whether a capture of version `urlkey` + `digest` goes on: not when the exclusion
    /// list names it (counted as excluded); otherwise it is counted as imported, its date
    /// goes to its version, and it goes on only when it is the version's earliest capture
    /// so far (the one parsed).
    fn admit(
        &self,
        report: &mut SourceReport,
        urlkey: &str,
        digest: &str,
        date: &str,
        order: &Order,
    ) -> bool {
        if self
            .exclusions
            .is_some_and(|ex| ex.contains(urlkey, digest, date))
        {
            report.excluded += 1;
            return false;
        }
        report.imported += 1;
        self.versions
            .claim(&(urlkey.to_string(), digest.to_string()), order)
    }
}

/// The HTTP facts a capture's row needs.
#[derive(Default)]
struct HttpFacts {
    status: Option<u16>,
    content_type: Option<String>,
    transfer_encoding: Option<String>,
    content_encoding: Option<String>,
}

fn skip(report: &mut SourceReport, why: &str) -> crate::Result<Option<Claimed>> {
    *report.skipped.entry(why.to_string()).or_insert(0) += 1;
    Ok(None)
}

/// Applies selection, status filter and exclusion to one record, records its date
/// with its version, and parses it when it is the version's earliest capture so far.
fn capture_of<R: Read>(
    rec: &mut Record<'_, R>,
    ctx: &Ctx<'_>,
    report: &mut SourceReport,
) -> crate::Result<Option<Claimed>> {
    let h = rec.header();
    let is_arc = h.format().is_arc();
    let rtype = h.type_name().into_owned();
    let wanted = if is_arc {
        rtype == "response"
    } else {
        rtype == "response" || rtype == "resource"
    };
    if !wanted {
        let why = if is_arc { "filedesc" } else { rtype.as_str() };
        return skip(report, if why.is_empty() { "untyped" } else { why });
    }
    let Some(url) = h.target_uri().map(|u| decode(u).into_owned()) else {
        return skip(report, "no-url");
    };
    let Some(date) = h.date14() else {
        return skip(report, "no-date");
    };
    if crate::reader::date::capture_micros(&date, ctx.now).is_none() {
        // Imported (a capture is never dropped), but counted: the index keeps the date
        // out of search dates and replay links (src/dates/add.rs).
        *report
            .anomalies
            .entry(IMPOSSIBLE_DATE.to_string())
            .or_default() += 1;
    }
    let record_ct = h.content_type().map(|v| decode(v).into_owned());
    let header_digest = h.payload_sha1();
    let facts = match rec.http()? {
        Some(head) if !head.is_blank() => HttpFacts {
            status: head.status(),
            content_type: head.get_str("Content-Type").map(|v| v.into_owned()),
            transfer_encoding: head.get_str("Transfer-Encoding").map(|v| v.into_owned()),
            content_encoding: head.get_str("Content-Encoding").map(|v| v.into_owned()),
        },
        // A resource record is stored content: there was no HTTP exchange to fail.
        _ if rtype == "resource" => HttpFacts {
            status: Some(200),
            content_type: record_ct.clone(),
            ..HttpFacts::default()
        },
        _ => HttpFacts {
            content_type: if is_arc { record_ct.clone() } else { None },
            ..HttpFacts::default()
        },
    };
    if !ctx.opts.status.allows(facts.status) {
        report.status_filtered += 1;
        return Ok(None);
    }
    let urlkey = url_key(&url, ctx.opts.key).unwrap_or_else(|_| url.clone());
    let order: Order = (date.clone(), ctx.index, ctx.part, rec.offset());
    // When the digest is in the header, exclusion and the version's earlier captures
    // are known before the body: a repeated capture is never read or parsed.
    if let Some(d) = &header_digest {
        if !ctx.admit(report, &urlkey, &format!("sha1:{d}"), &date, &order) {
            return Ok(None);
        }
    }
    // A PDF is read whole up to its own cap: its cross-reference table and fonts are at
    // the end, so a cut one gives no text.
    let is_pdf = facts
        .content_type
        .as_deref()
        .is_some_and(|ct| ct.trim_start().to_ascii_lowercase().starts_with(PDF_MIME));
    let cap = if is_pdf {
        ctx.opts.content_limit.max(PDF_LIMITS.max_input + 1)
    } else {
        ctx.opts.content_limit
    };
    let (kept, computed) = read_payload(rec, cap, header_digest.is_none())?;
    let digest = match (&header_digest, computed) {
        (Some(d), _) => format!("sha1:{d}"),
        (None, Some(c)) => format!("sha1:{c}"),
        (None, None) => unreachable!("digest computed when the header has none"),
    };
    if header_digest.is_none() && !ctx.admit(report, &urlkey, &digest, &date, &order) {
        return Ok(None);
    }
    let mime = facts
        .content_type
        .as_deref()
        .and_then(|ct| ct.split(';').next())
        .map(|m| m.trim().to_ascii_lowercase())
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| "unk".to_string());
    let row = SegmentRow {
        key: format!("{url} {digest}"),
        url,
        urlkey: urlkey.clone(),
        digest,
        dates: vec![date.clone()],
        first_date: date,
        collection: ctx.collection.to_string(),
        filename: ctx.filename.to_string(),
        archive: ctx.archive.to_string(),
        mime,
        status: facts.status,
        ..SegmentRow::default()
    };
    Ok(Some(Claimed {
        key: (urlkey, row.digest.clone()),
        order,
        row,
        body: kept,
        facts,
    }))
}

/// Reads the payload: keeps its first `cap` bytes and, when asked, hashes all of it
/// (base32 SHA-1 of the bytes as stored).
fn read_payload<R: Read>(
    rec: &mut Record<'_, R>,
    cap: usize,
    hash: bool,
) -> crate::Result<(Vec<u8>, Option<String>)> {
    let mut kept = Vec::new();
    let mut sha = hash.then(Sha1::new);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = rec.read(&mut buf).map_err(crate::Error::from)?;
        if n == 0 {
            break;
        }
        if let Some(s) = sha.as_mut() {
            s.update(&buf[..n]);
        }
        if kept.len() < cap {
            let take = n.min(cap - kept.len());
            kept.extend_from_slice(&buf[..take]);
        } else if sha.is_none() {
            break;
        }
    }
    Ok((
        kept,
        sha.map(|s| data_encoding::BASE32.encode(&s.finalize())),
    ))
}

/// The key an HTML page stopped at the open-element cap is counted under while a batch
/// is parsed (it goes to [`SourceReport::element_cap`]).
const ELEMENT_CAP: &str = "html-element-cap";

/// The MIME type of PDF documents.
const PDF_MIME: &str = "application/pdf";

/// Limits of a PDF capture's extraction: 32 MiB of PDF (a larger one is counted as
/// `too-large`), 10 s, a stream inflating to at most 16 MiB (src/import/pdf.rs).
static PDF_LIMITS: std::sync::LazyLock<pdf::PdfLimits> =
    std::sync::LazyLock::new(pdf::PdfLimits::default);

/// What parsing a capture gave.
struct ParseResult {
    /// False when the parser failed (the row keeps its metadata).
    ok: bool,
    /// For a PDF: `text`, `no-text`, `failed`, `panicked`, `timed-out` or `too-large`.
    pdf: Option<&'static str>,
    /// An HTML page whose parse stopped at the open-element cap.
    element_cap: bool,
}

/// Fills title, text, outlinks and charset for text types, and title and text for PDFs.
fn parse_into(row: &mut SegmentRow, stored: &[u8], facts: &HttpFacts, limit: usize) -> ParseResult {
    let is_html = matches!(row.mime.as_str(), "text/html" | "application/xhtml+xml");
    let is_text = row.mime == "text/plain";
    let is_pdf = row.mime == PDF_MIME;
    if !is_html && !is_text && !is_pdf {
        return ParseResult {
            ok: true,
            pdf: None,
            element_cap: false,
        };
    }
    let mut body: std::borrow::Cow<[u8]> = std::borrow::Cow::Borrowed(stored);
    if facts
        .transfer_encoding
        .as_deref()
        .is_some_and(|t| t.to_ascii_lowercase().contains("chunked"))
    {
        if let Some(d) = crate::reader::chunked::dechunk(&body) {
            body = d.into();
        }
    }
    let decoded_cap = if is_pdf {
        PDF_LIMITS.max_input + 1
    } else {
        limit.saturating_mul(4)
    };
    if let Some(ce) = facts.content_encoding.as_deref() {
        if let Some(d) = body::decode_content(&body, ce, decoded_cap) {
            body = d.into();
        }
    }
    if is_pdf {
        return parse_pdf(row, &body, limit);
    }
    let ct = facts.content_type.clone();
    let url = row.url.clone();
    // Isolation: one bad page must never stop an import.
    let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if is_html {
            let (p, extras) = crate::html::parse_html_main(&body, ct.as_deref(), &url, limit);
            let lang = extras.declared_lang;
            let capped = extras.element_cap;
            (
                p.title,
                p.text,
                Some(extras.main),
                p.outlinks,
                p.charset,
                lang,
                capped,
            )
        } else {
            let (text, charset, _) = crate::html::plain_text(&body, ct.as_deref(), limit);
            (None, text, None, Vec::new(), charset, None, false)
        }
    }));
    match parsed {
        Ok((title, text, main_text, outlinks, charset, declared, capped)) => {
            // The language of the main content: navigation is often in another (an
            // English menu around a page in Dutch).
            let sample = main_text
                .as_deref()
                .filter(|m| !m.is_empty())
                .unwrap_or(&text);
            row.lang = language::detect_declared(sample, declared.as_deref()).map(str::to_string);
            row.main_text = main_text;
            row.title = title;
            row.text = text;
            row.outlinks = outlinks;
            row.charset = Some(charset.to_string());
            ParseResult {
                ok: true,
                pdf: None,
                element_cap: capped,
            }
        }
        Err(_) => ParseResult {
            ok: false,
            pdf: None,
            element_cap: false,
        },
    }
}

/// A PDF capture's title and text (src/import/pdf.rs runs the parser on a thread of its
/// own, under a size and a time cap, its panics caught); its outcome is counted.
fn parse_pdf(row: &mut SegmentRow, body: &[u8], limit: usize) -> ParseResult {
    let limits = pdf::PdfLimits {
        max_text: limit,
        ..PDF_LIMITS.clone()
    };
    let (ok, kind) = match pdf::extract_pdf(body, &limits) {
        pdf::PdfOutcome::Text { title, text, .. } => {
            row.lang = language::detect(&text).map(str::to_string);
            row.title = title;
            let kind = if text.is_empty() { "no-text" } else { "text" };
            row.text = text;
            (true, kind)
        }
        pdf::PdfOutcome::TooLarge => (false, "too-large"),
        pdf::PdfOutcome::Failed(_) => (false, "failed"),
        pdf::PdfOutcome::Panicked => (false, "panicked"),
        pdf::PdfOutcome::TimedOut => (false, "timed-out"),
    };
    ParseResult {
        ok,
        pdf: Some(kind),
        element_cap: false,
    }
}

/// Reads an exclusion list from `path` (`-` = stdin), reporting malformed lines.
pub fn load_exclusions(
    path: &Path,
    key: KeyStyle,
    log: &mut dyn FnMut(&str),
) -> io::Result<Exclusions> {
    let name = path.display().to_string();
    let mut on_bad = |n: u64, m: &str| log(&format!("{name}: line {n}: {m}"));
    if name == "-" {
        Exclusions::load(io::stdin().lock(), key, &mut on_bad)
    } else {
        let f = std::fs::File::open(path)
            .map_err(|e| io::Error::new(e.kind(), format!("{name}: {e}")))?;
        Exclusions::load(io::BufReader::new(f), key, &mut on_bad)
    }
}
