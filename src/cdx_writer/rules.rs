//! Which records get a CDX line and what goes in each field, as pywb 2.10
//! `cdx-indexer` (classic layouts) and `cdxj-indexer` 1.5 (CDXJ) decide it.
//!
//! Both tools read through warcio, whose quirks matter here: an HTTP head with
//! neither status text nor headers counts as absent, and pywb then invents
//! `200 OK` with the WARC Content-Type (`ensure_http_headers`), while
//! cdxj-indexer leaves mime and status out.

use std::io::Read;

use warcdex_cdx::{url_key, CdxFormat, CdxLine, KeyStyle};

use super::CdxOptions;
use crate::reader::date::{arc_date_to_14, iso_to_14};
use crate::reader::error::{Anomaly, AnomalyKind, Result};
use crate::reader::header::decode;
use crate::reader::{ArchiveReader, Record};

/// What one record gave.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The CDX line, unless the record is not indexed.
    pub line: Option<Box<CdxLine>>,
    /// Why the record is not indexed.
    pub skipped: Option<&'static str>,
    /// A problem with the record that did not stop it being indexed.
    pub warning: Option<Anomaly>,
    /// Why a capture could not be indexed, for a message naming its offset.
    pub problem: Option<String>,
    /// With POST append: what pairing a request with its response needs.
    pub join: Option<JoinInfo>,
    /// A request line kept only for POST append (not written without `--all-records`).
    pub hidden: bool,
}

/// A record's part in POST append (pywb `join_request_records`).
#[derive(Debug, Default)]
pub struct JoinInfo {
    /// The target URI.
    pub url: String,
    /// WARC-Record-ID.
    pub record_id: Option<String>,
    /// WARC-Concurrent-To.
    pub concurrent_to: Option<String>,
    /// For a request: the method/body query to append (`None` for GET).
    pub request_query: Option<Option<String>>,
}

impl Outcome {
    fn skip(why: &'static str) -> Self {
        Outcome {
            skipped: Some(why),
            ..Outcome::default()
        }
    }

    fn unindexable(why: &'static str, problem: &str) -> Self {
        Outcome {
            skipped: Some(why),
            problem: Some(problem.to_string()),
            ..Outcome::default()
        }
    }
}

/// Reads the next record and applies the rules of `opts.format`. `Ok(None)` at the end.
pub fn next_line<R: Read>(
    reader: &mut ArchiveReader<R>,
    filename: &str,
    opts: &CdxOptions,
) -> Result<Option<Outcome>> {
    let Some(mut rec) = reader.next_record()? else {
        return Ok(None);
    };
    let mut out = match record_head(&rec) {
        None => Outcome::skip("arc-header"),
        Some(head) => match opts.format {
            CdxFormat::Cdxj => cdxj_indexer_line(&mut rec, head, filename, opts)?,
            _ => pywb_line(&mut rec, head, filename, opts)?,
        },
    };
    let offset = rec.offset();
    if let Some(p) = out.problem.take() {
        out.problem = Some(format!("offset {offset}: {p}"));
    }
    if let Some(line) = out.line.as_deref_mut() {
        let span = rec.finish()?;
        line.length = Some(span.length.to_string());
        line.offset = Some(span.offset.to_string());
    } else {
        rec.finish()?;
    }
    Ok(Some(out))
}

/// The HTTP head as warcio presents it to the indexers.
struct HttpView {
    /// The status code (first word of the status text), as written.
    code: String,
    /// The status line after the protocol.
    status_text: String,
    /// The Content-Type header, if any.
    content_type: Option<String>,
}

/// The parsed HTTP head, unless absent or blank (warcio treats a blank one as absent).
fn parsed_http<R: Read>(rec: &mut Record<'_, R>) -> Result<Option<HttpView>> {
    Ok(rec.http()?.filter(|h| !h.is_blank()).map(|h| HttpView {
        code: decode(h.status_code()).into_owned(),
        status_text: decode(h.status_line_rest()).into_owned(),
        content_type: h.get_str("Content-Type").map(|v| v.into_owned()),
    }))
}

/// What both rule sets read first from a record's header.
struct RecordHead {
    is_arc: bool,
    /// The WARC-Type, or the type an ARC record is read as.
    rtype: String,
    /// The WARC record's own Content-Type (not the HTTP one).
    warc_ct: Option<String>,
}

/// The record's head; `None` for an ARC file header (its version block), which neither
/// tool indexes.
fn record_head<R: Read>(rec: &Record<'_, R>) -> Option<RecordHead> {
    let h = rec.header();
    let is_arc = h.format().is_arc();
    let rtype = h.type_name().into_owned();
    if is_arc && rtype == "warcinfo" {
        return None;
    }
    Some(RecordHead {
        is_arc,
        rtype,
        warc_ct: h.content_type().map(|v| decode(v).into_owned()),
    })
}

/// pywb `cdx-indexer` (archiveindexer.py DefaultRecordParser + cdxindexer.py writers).
fn pywb_line<R: Read>(
    rec: &mut Record<'_, R>,
    head: RecordHead,
    filename: &str,
    opts: &CdxOptions,
) -> Result<Outcome> {
    let (is_arc, rtype, warc_ct) = (head.is_arc, head.rtype, head.warc_ct);
    let h = rec.header();
    if !is_arc {
        if rtype == "warcinfo" {
            return Ok(Outcome::skip("warcinfo"));
        }
        if rtype == "request" && !opts.all_records && !opts.post_append {
            return Ok(Outcome::skip("request"));
        }
        if !opts.all_records && warc_ct.as_deref() == Some("application/warc-fields") {
            return Ok(Outcome::skip("warc-fields"));
        }
    }
    // pywb reads ARC URLs as written; warcio rewrites spaces only in WARC headers.
    let url = if is_arc {
        h.target_uri().map(|u| decode(u).into_owned())
    } else {
        target_uri(h)
    };
    let date = h.date().map(|d| decode(d).into_owned());
    let header_digest = h.get_str("WARC-Payload-Digest").map(|v| v.into_owned());

    // warcio's ensure_http_headers: no usable head means "200 OK" plus the record's
    // own Content-Type.
    let http = parsed_http(rec)?;
    let (code, status_text, http_ct) = match http {
        Some(v) => (v.code, v.status_text, v.content_type),
        None => ("200".to_string(), "200 OK".to_string(), warc_ct.clone()),
    };
    if !opts.all_records && code == "-" {
        return Ok(Outcome::skip("status-dash"));
    }
    let Some(url) = url.filter(|u| !u.is_empty()) else {
        return Ok(Outcome::unindexable("no-url", "no target URI: not indexed"));
    };
    // pywb percent-encodes these in ARC URLs; a NUL is percent-encoded in WARC URLs too,
    // so that no CDX line carries a raw NUL (docs/cdx-differences.md).
    let url = if is_arc {
        url.replace('\r', "%0D")
            .replace('\n', "%0A")
            .replace('\x0c', "%0C")
            .replace('\0', "%00")
    } else if url.contains('\0') {
        url.replace('\0', "%00")
    } else {
        url
    };
    let extract_status = || -> String {
        if code.is_empty() || (code == "204" && status_text.contains("Error")) {
            "-".to_string()
        } else {
            code.clone()
        }
    };
    let mut line = CdxLine {
        original: Some(url.clone()),
        filename: Some(filename.to_string()),
        ..CdxLine::default()
    };
    let mut compute = false;
    if is_arc {
        let d = date.unwrap_or_default();
        line.timestamp = d.chars().take(14).collect();
        line.mime = Some(pywb_mime(warc_ct.as_deref(), "unk"));
        line.status = Some(extract_status());
        compute = true;
    } else {
        let Some(d) = date else {
            return Ok(Outcome::unindexable("no-date", "no WARC-Date: not indexed"));
        };
        line.timestamp = warc_timestamp(&d);
        line.mime = Some(if rtype == "revisit" {
            "warc/revisit".to_string()
        } else {
            let def = if rtype == "request" { "-" } else { "unk" };
            pywb_mime(http_ct.as_deref(), def)
        });
        line.status = Some(if rtype == "response" {
            extract_status()
        } else {
            "-".to_string()
        });
        match header_digest.as_deref() {
            Some(d) if d.starts_with("sha1:") => line.digest = Some(d[5..].to_string()),
            Some(d) if !d.is_empty() => line.digest = Some(d.to_string()),
            _ => compute = !matches!(rtype.as_str(), "revisit" | "request" | "warcinfo"),
        }
        if rtype == "metadata" && line.mime.as_deref() == Some("text/anvl") {
            return Ok(Outcome::skip("metadata-text-anvl"));
        }
    }
    if compute {
        line.digest = rec.compute_payload_digest()?;
    }
    let mut out = Outcome::default();
    if opts.post_append && !is_arc {
        out.join = Some(join_info(rec, &url, &rtype)?);
        out.hidden = rtype == "request" && !opts.all_records;
    }
    line.urlkey = key_or_raw(&url, opts.key, rec.offset(), &mut out);
    out.line = Some(Box::new(line));
    Ok(out)
}

/// Record ids and, for a request, the query its method and body give (reads the body).
fn join_info<R: Read>(rec: &mut Record<'_, R>, url: &str, rtype: &str) -> Result<JoinInfo> {
    let h = rec.header();
    let mut info = JoinInfo {
        url: url.to_string(),
        record_id: h.get_str("WARC-Record-ID").map(|v| v.into_owned()),
        concurrent_to: h.get_str("WARC-Concurrent-To").map(|v| v.into_owned()),
        request_query: None,
    };
    if rtype != "request" {
        return Ok(info);
    }
    let Some(head) = rec.http()? else {
        info.request_query = Some(None);
        return Ok(info);
    };
    let method = decode(head.protocol()).into_owned();
    let content_type = head.get_str("Content-Type").map(|v| v.into_owned());
    // The body is what Content-Length says (a bad length: no body), as pywb reads it.
    let len = head
        .get_str("Content-Length")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(0);
    let mut body = Vec::new();
    std::io::Read::by_ref(rec)
        .take(len.min(MAX_POST_BODY))
        .read_to_end(&mut body)
        .map_err(crate::reader::error::Error::from)?;
    info.request_query = Some(super::post::method_query(
        &method,
        content_type.as_deref(),
        Some(&body),
    ));
    Ok(info)
}

/// Request bodies beyond this are not read into the key (a key is not a file store).
const MAX_POST_BODY: u64 = 1 << 20;

/// `cdxj-indexer` (warcio Indexer with arc2warc, CDXJIndexer.get_field).
fn cdxj_indexer_line<R: Read>(
    rec: &mut Record<'_, R>,
    head: RecordHead,
    filename: &str,
    opts: &CdxOptions,
) -> Result<Outcome> {
    let (is_arc, rtype, warc_ct) = (head.is_arc, head.rtype, head.warc_ct);
    let h = rec.header();
    let wanted = matches!(
        rtype.as_str(),
        "response" | "revisit" | "resource" | "metadata"
    ) || (opts.all_records && rtype == "request");
    if !wanted {
        return Ok(Outcome::skip(match rtype.as_str() {
            "warcinfo" => "warcinfo",
            "request" => "request",
            _ => "other-record-type",
        }));
    }
    if !is_arc
        && matches!(rtype.as_str(), "resource" | "metadata")
        && warc_ct.as_deref() == Some("application/warc-fields")
    {
        return Ok(Outcome::skip("warc-fields"));
    }
    let url = target_uri(h);
    let date = h.date().map(|d| decode(d).into_owned());
    let header_digest = h.get_str("WARC-Payload-Digest").map(|v| v.into_owned());
    let http = parsed_http(rec)?;
    let Some(url) = url else {
        return Ok(Outcome::unindexable("no-url", "no target URI: not indexed"));
    };
    let Some(date) = date else {
        return Ok(Outcome::unindexable("no-date", "no WARC-Date: not indexed"));
    };
    let mut line = CdxLine {
        original: Some(url.clone()),
        filename: Some(filename.to_string()),
        timestamp: if is_arc {
            arc_date_to_14(&date)
        } else {
            warc_timestamp(&date)
        },
        ..CdxLine::default()
    };
    let mime = match rtype.as_str() {
        "revisit" => Some("warc/revisit".to_string()),
        "response" | "request" => http.as_ref().and_then(|v| v.content_type.clone()),
        _ => warc_ct,
    };
    line.mime = mime.map(|m| {
        if m.is_empty() {
            m
        } else {
            let first = m.split([';', ' ', '\t', '\r', '\n', '\x0b', '\x0c']).next();
            first.unwrap_or("").trim().to_string()
        }
    });
    if matches!(rtype.as_str(), "response" | "revisit") {
        line.status = http.as_ref().map(|v| v.code.clone());
    }
    line.digest = match header_digest.filter(|d| !d.is_empty()) {
        Some(d) => Some(d),
        // warcio's ensure_digest leaves a revisit without a digest as it is.
        None if rtype == "revisit" => None,
        None => rec.compute_payload_digest()?.map(|d| format!("sha1:{d}")),
    };
    let mut out = Outcome::default();
    line.urlkey = key_or_raw(&url, opts.key, rec.offset(), &mut out);
    out.line = Some(Box::new(line));
    Ok(out)
}

/// The target URI as warcio hands it on: spaces written as `%20` (warcio 1.8.1 does
/// this for WARC headers, and for ARC records it converts to WARC).
fn target_uri(h: &crate::reader::RecordHeader) -> Option<String> {
    h.target_uri().map(|u| decode(u).replace(' ', "%20"))
}

/// pywb's `extract_mime`: the Content-Type up to the first `;` or space, or `default`
/// when there is none.
fn pywb_mime(ct: Option<&str>, default: &str) -> String {
    match ct {
        Some(ct) if !ct.is_empty() => ct.split([';', ' ']).next().unwrap_or("").to_string(),
        _ => default.to_string(),
    }
}

/// The URL key; when the canonicalizer rejects the URL (pywb stops the whole file
/// there) the URL itself is the key, as cdxj-indexer does, and a warning says so.
pub(crate) fn key_or_raw(url: &str, style: KeyStyle, offset: u64, out: &mut Outcome) -> String {
    match url_key(url, style) {
        Ok(k) => k,
        Err(e) => {
            out.warning = Some(Anomaly {
                kind: AnomalyKind::UncanonicalizableUrl,
                offset,
                message: format!("{e}; the URL is used as its key"),
            });
            // The key must not carry a raw NUL either (the canonical key has `%00`).
            url.replace('\0', "%00")
        }
    }
}

/// warcio's `iso_date_to_timestamp`: the digit groups of the date as year, month,
/// day, hour, minute, second (fractions dropped). A date it would reject is read
/// leniently instead (pywb stops the file on it).
pub fn warc_timestamp(date: &str) -> String {
    plain_iso_timestamp(date)
        .or_else(|| strict_iso_timestamp(date))
        .unwrap_or_else(|| iso_to_14(date))
}

/// The date every WARC writer puts in WARC-Date, `YYYY-MM-DDThh:mm:ssZ` (WARC 1.1 §5.4),
/// perhaps with a fraction of a second (`.` and digits before the `Z`): its 14 digits,
/// when they make a valid date, as [`strict_iso_timestamp`] would give them, without
/// splitting and parsing (that was 1.5 % of `cdx`'s time). Anything else is
/// left to it.
fn plain_iso_timestamp(date: &str) -> Option<String> {
    let b = date.as_bytes();
    let shape = b"dddd-dd-ddTdd:dd:dd";
    if b.len() < shape.len() + 1 || b[b.len() - 1] != b'Z' {
        return None;
    }
    let (head, tail) = b.split_at(shape.len());
    let fits = shape.iter().zip(head).all(|(&s, &c)| match s {
        b'd' => c.is_ascii_digit(),
        _ => c == s,
    });
    let tail = &tail[..tail.len() - 1];
    // The fraction: `.` and at least one digit (an empty digit group sends it to the
    // general rule, which rejects it).
    let fraction = tail.is_empty()
        || (tail.len() >= 2 && tail[0] == b'.' && tail[1..].iter().all(u8::is_ascii_digit));
    if !fits || !fraction {
        return None;
    }
    // Where year, month, day, hour, minute and second are in the shape.
    let groups = [(0, 4), (5, 2), (8, 2), (11, 2), (14, 2), (17, 2)];
    let [y, mo, d, hh, mm, ss] = groups.map(|(at, n): (usize, usize)| {
        head[at..at + n]
            .iter()
            .fold(0u32, |v, &c| v * 10 + u32::from(c - b'0'))
    });
    if !valid_date(y, mo, d, hh, mm, ss) {
        return None;
    }
    Some(groups.iter().map(|&(at, n)| &date[at..at + n]).collect())
}

/// A calendar date and a time of day that [`strict_iso_timestamp`] accepts.
fn valid_date(y: u32, mo: u32, d: u32, hh: u32, mm: u32, ss: u32) -> bool {
    let leap = (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400);
    let dim = match mo {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=9999).contains(&y) && d != 0 && d <= dim && hh <= 23 && mm <= 59 && ss <= 59
}

fn strict_iso_timestamp(date: &str) -> Option<String> {
    let mut nums: Vec<&str> = date.split(|c: char| !c.is_ascii_digit()).collect();
    if nums.last() == Some(&"") {
        nums.pop();
    }
    if !(3..=7).contains(&nums.len()) || nums.iter().any(|n| n.is_empty()) {
        return None;
    }
    let v: Vec<u32> = nums
        .iter()
        .take(6)
        .map(|n| n.parse().ok())
        .collect::<Option<_>>()?;
    let get = |i: usize| v.get(i).copied().unwrap_or(0);
    let (y, mo, d, hh, mm, ss) = (get(0), get(1), get(2), get(3), get(4), get(5));
    if !valid_date(y, mo, d, hh, mm, ss) {
        return None;
    }
    Some(format!("{y:04}{mo:02}{d:02}{hh:02}{mm:02}{ss:02}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plain_date_shortcut_agrees_with_the_general_rule() {
        let taken = [
            "2014-01-03T03:03:21Z",
            "2014-01-03T03:03:21.123456Z",
            "2000-02-29T23:59:59Z",
            "0001-12-31T00:00:00.5Z",
        ];
        for d in taken {
            let fast = plain_iso_timestamp(d);
            assert!(fast.is_some(), "{d}");
            assert_eq!(fast, strict_iso_timestamp(d), "{d}");
        }
        // Invalid or unusual dates go to the general rule (and then to iso_to_14).
        let left = [
            "1900-02-29T00:00:00Z",
            "0000-01-01T00:00:00Z",
            "2014-13-03T03:03:21Z",
            "2014-01-03T24:03:21Z",
            "2014-01-03T03:03:21.Z",
            "2014-01-03T03:03:21",
            "2014-01-03 03:03:21Z",
            "2014-1-03T03:03:21Z",
            "2014-01-03T03:03:21+01:00",
            "20140103030321",
            "2014-01-03T03:03:21.12aZ",
        ];
        for d in left {
            assert_eq!(plain_iso_timestamp(d), None, "{d}");
        }
        assert_eq!(
            warc_timestamp("1900-02-29T00:00:00Z"),
            iso_to_14("1900-02-29T00:00:00Z")
        );
    }

    #[test]
    fn timestamps_as_warcio() {
        assert_eq!(warc_timestamp("2014-01-03T03:03:21Z"), "20140103030321");
        assert_eq!(
            warc_timestamp("2014-01-03T03:03:21.123456Z"),
            "20140103030321"
        );
        assert_eq!(warc_timestamp("2014-01-03"), "20140103000000");
        // Rejected by warcio (month 13): read leniently.
        assert_eq!(warc_timestamp("2014-13-03T03:03:21Z").len(), 14);
    }

    #[test]
    fn pywb_mime_rules() {
        assert_eq!(
            pywb_mime(Some("text/html; charset=utf-8"), "unk"),
            "text/html"
        );
        assert_eq!(pywb_mime(Some("text/html charset"), "unk"), "text/html");
        assert_eq!(pywb_mime(Some(""), "unk"), "unk");
        assert_eq!(pywb_mime(None, "-"), "-");
        assert_eq!(pywb_mime(Some(";x"), "unk"), "");
    }
}
