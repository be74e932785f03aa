//! The per-record step: a record selected (or skipped, counted why), filtered by status
//! and the exclusion list, its date given to its version, and its payload kept when it
//! is the earliest capture of its version so far.

use std::io::Read;
use std::sync::Mutex;

use sha1::{Digest, Sha1};
use warcdex_cdx::date::Date14;
use warcdex_cdx::rendered::{page_key_of, rendered_target, RenderedTarget, TextSource};
use warcdex_cdx::url_key;

use super::exclusions::Exclusions;
use super::parse::{PDF_LIMITS, PDF_MIME};
use super::rendered::{PageJoin, Text};
use super::versions::{Order, VersionKey, Versions};
use super::{ImportOptions, SourceReport, IMPOSSIBLE_DATE};
use crate::reader::content_type::ContentType;
use crate::reader::header::decode;
use crate::reader::Record;
use crate::segment::SegmentRow;

/// A capture that is the earliest of its version so far: its key, order and row.
pub(super) struct Claimed {
    pub(super) key: (String, String),
    pub(super) order: Order,
    pub(super) row: SegmentRow,
    /// The first `content_limit` bytes of the payload, parsed later in a batch.
    pub(super) body: Vec<u8>,
    pub(super) facts: HttpFacts,
}

pub(super) struct Ctx<'a> {
    pub(super) index: usize,
    /// The WARC's place in its WACZ (0 for an archive file).
    pub(super) part: usize,
    pub(super) filename: &'a str,
    pub(super) archive: &'a str,
    /// The bound of a possible capture date ([`crate::reader::date::capture_micros`]).
    pub(super) now: i64,
    pub(super) collection: &'a str,
    pub(super) exclusions: Option<&'a Exclusions>,
    pub(super) opts: &'a ImportOptions,
    pub(super) versions: &'a Versions,
    /// The archive's page captures and the rendered texts waiting for theirs.
    pub(super) join: &'a Mutex<PageJoin>,
}

/// Seconds since 1970 of a 14-digit date (0 for one that is not a date).
pub(super) fn seconds_of(date: &str) -> i64 {
    Date14::parse(date).map_or(0, |d| d.unix_seconds())
}

impl Ctx<'_> {
    /// Whether a capture of version `urlkey` + `digest` goes on: not when the exclusion
    /// list names it (counted as excluded); otherwise it is counted as imported, its date
    /// goes to its version, and it goes on only when it is the version's earliest capture
    /// so far (the one parsed). An admitted `page` (HTML) is one a rendered text may
    /// join.
    pub(super) fn admit(
        &self,
        report: &mut SourceReport,
        version: &VersionKey,
        date: &str,
        order: &Order,
        page: bool,
    ) -> bool {
        let (urlkey, digest) = version;
        // Before the exclusion list: a page whose capture is a duplicate (an identical
        // shell crawled again) still has its rendered text joined to its version.
        if page {
            let mut join = self.join.lock().expect("page join lock");
            join.page(urlkey, seconds_of(date), version, &mut self.offer_text());
        }
        if self
            .exclusions
            .is_some_and(|ex| ex.contains(urlkey, digest, date, self.filename))
        {
            report.excluded += 1;
            return false;
        }
        report.imported += 1;
        self.versions.claim(version, order)
    }

    /// Hands a joined rendered text to its version.
    pub(super) fn offer_text(
        &self,
    ) -> impl FnMut(&VersionKey, &Order, TextSource, String) + use<'_> {
        |version: &VersionKey, order: &Order, source: TextSource, text: String| {
            self.versions.offer_text(version, order, source, &text)
        }
    }
}

/// The HTTP facts a capture's row needs.
#[derive(Default)]
pub(super) struct HttpFacts {
    pub(super) status: Option<u16>,
    pub(super) content_type: Option<String>,
    pub(super) transfer_encoding: Option<String>,
    pub(super) content_encoding: Option<String>,
}

fn skip(report: &mut SourceReport, why: &str) -> crate::Result<Option<Claimed>> {
    *report.skipped.entry(why.to_string()).or_insert(0) += 1;
    Ok(None)
}

/// Applies selection, status filter and exclusion to one record, records its date
/// with its version, and parses it when it is the version's earliest capture so far.
pub(super) fn capture_of<R: Read>(
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
    if rtype == "resource" {
        if let Some(target) = rendered_target(&url) {
            return rendered_text(rec, &target, &date, ctx, report);
        }
        // What browser crawlers record about a page beside it (Browsertrix's
        // `urn:pageinfo:URL`, `urn:view:URL` screenshots, `urn:thumbnail:URL`): not a page
        // a reader looks for. Counted; the CDX keeps their lines, as pywb's does. A URN
        // that names no page (wpull's `urn:x-wpull:log`) is a document as before.
        if page_key_of(&url).is_some() {
            return skip(report, "urn-resource");
        }
    }
    if crate::reader::date::capture_micros(&date, ctx.now).is_none() {
        // Imported (a capture is never dropped), but counted: the index keeps the date
        // out of search dates and replay links (src/dates/add/join.rs).
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
    let mime = (facts.content_type.as_deref())
        .map(|ct| ContentType::new(ct).media_type())
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| "unk".to_string());
    let page = matches!(mime.as_str(), "text/html" | "application/xhtml+xml");
    // When the digest is in the header, exclusion and the version's earlier captures
    // are known before the body: a repeated capture is never read or parsed.
    if let Some(d) = &header_digest {
        let version = (urlkey.clone(), format!("sha1:{d}"));
        if !ctx.admit(report, &version, &date, &order, page) {
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
    if header_digest.is_none()
        && !ctx.admit(
            report,
            &(urlkey.clone(), digest.clone()),
            &date,
            &order,
            page,
        )
    {
        return Ok(None);
    }
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

/// A record of rendered text (`urn:text:URL`, `urn:textFinal:URL`): not a capture, but
/// the text of its page's capture, handed to the archive's join (src/import/rendered.rs)
/// and counted as skipped `rendered-text`.
fn rendered_text<R: Read>(
    rec: &mut Record<'_, R>,
    target: &RenderedTarget<'_>,
    record_date: &str,
    ctx: &Ctx<'_>,
    report: &mut SourceReport,
) -> crate::Result<Option<Claimed>> {
    let urlkey = url_key(target.url, ctx.opts.key).unwrap_or_else(|_| target.url.to_string());
    let date = target.date.unwrap_or(record_date);
    let ct = rec.header().content_type().map(|v| decode(v).into_owned());
    let (kept, _) = read_payload(rec, ctx.opts.content_limit, false)?;
    let (words, _, _) = crate::html::plain_text(&kept, ct.as_deref(), ctx.opts.content_limit);
    let text = Text {
        seconds: seconds_of(date),
        order: (date.to_string(), ctx.index, ctx.part, rec.offset()),
        source: target.source,
        text: words,
    };
    let mut join = ctx.join.lock().expect("page join lock");
    join.text(&urlkey, text, true, &mut ctx.offer_text());
    skip(report, "rendered-text")
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
