//! Memento (RFC 7089): HTTP dates, the `Link` header of a memento and of a TimeGate's
//! answer, and TimeMaps in link format (RFC 6690) and in the JSON form of the Internet
//! Archive and MemGator, written as the captures stream past (one held back, to know
//! the last).

use std::io::{self, Write};
use std::time::UNIX_EPOCH;

use warcdex_cdx::date::Date14;

use super::archival_url::{format as archival, Mode};
use super::capture::{Capture, Nearest};

/// The addresses of one URL's Memento resources on this server.
#[derive(Debug, Clone)]
pub struct MementoUrls {
    /// This server's base (`http://host:port`, no trailing slash).
    pub base: String,
    /// The original resource's URL.
    pub original: String,
}

impl MementoUrls {
    /// The TimeGate: `BASE/timegate/URL`.
    pub fn timegate(&self) -> String {
        format!("{}/timegate/{}", self.base, self.original)
    }
    /// The TimeMap in link format: `BASE/timemap/link/URL`.
    pub fn timemap_link(&self) -> String {
        format!("{}/timemap/link/{}", self.base, self.original)
    }
    /// The TimeMap as JSON: `BASE/timemap/json/URL`.
    pub fn timemap_json(&self) -> String {
        format!("{}/timemap/json/{}", self.base, self.original)
    }
    /// A memento: the capture view of the capture at `date14`.
    pub fn memento(&self, date14: &str) -> String {
        archival(
            &format!("{}/web", self.base),
            date14,
            Mode::Frame,
            &self.original,
        )
    }
}

/// A 14-digit date as an HTTP date (`Mon, 15 Jan 2024 03:00:00 GMT`): the epoch for
/// text that is not 14 digits or a date before it (an HTTP date has none earlier).
pub fn http_date(date14: &str) -> String {
    Date14::parse(date14)
        .ok()
        .filter(|d| d.unix_seconds() >= 0)
        .unwrap_or(Date14::EPOCH)
        .http_date()
}

/// An HTTP date (`Accept-Datetime`, in any of the three forms HTTP allows) as 14
/// digits; `None` when it is not one.
pub fn parse_http_date(v: &str) -> Option<String> {
    let t = httpdate::parse_http_date(v.trim()).ok()?;
    let s = t.duration_since(UNIX_EPOCH).ok()?.as_secs();
    Some(Date14::from_unix(i64::try_from(s).ok()?)?.to_string())
}

/// A link value: `<uri>; rel="REL"` with a `datetime` when given.
fn link(uri: &str, rel: &str, date14: Option<&str>) -> String {
    match date14 {
        Some(d) => format!("<{uri}>; rel=\"{rel}\"; datetime=\"{}\"", http_date(d)),
        None => format!("<{uri}>; rel=\"{rel}\""),
    }
}

/// The `Link` header of a memento (or of a TimeGate's redirect to it): the original,
/// the TimeGate, the TimeMap, and the first, previous, next and last mementos known.
pub fn memento_links<'a>(u: &MementoUrls, this: &'a Capture, n: &'a Nearest) -> String {
    let mut parts = vec![
        link(&u.original, "original", None),
        link(&u.timegate(), "timegate", None),
        format!(
            "<{}>; rel=\"timemap\"; type=\"application/link-format\"",
            u.timemap_link()
        ),
    ];
    let mut rels: Vec<(&'a Capture, Vec<&str>)> = Vec::new();
    let mut add = |c: Option<&'a Capture>, rel: &'static str| {
        let Some(c) = c else { return };
        match rels.iter_mut().find(|(k, _)| k.timestamp == c.timestamp) {
            Some((_, r)) => r.push(rel),
            None => rels.push((c, vec![rel])),
        }
    };
    add(n.first.as_ref(), "first");
    add(n.previous.as_ref(), "prev");
    add(Some(this), "");
    add(n.next.as_ref(), "next");
    add(n.last.as_ref(), "last");
    rels.sort_by(|a, b| a.0.timestamp.cmp(&b.0.timestamp));
    for (c, r) in rels {
        let words: Vec<&str> = r.into_iter().filter(|w| !w.is_empty()).collect();
        let rel = match words.is_empty() {
            true => "memento".to_string(),
            false => format!("{} memento", words.join(" ")),
        };
        parts.push(link(&u.memento(&c.timestamp), &rel, Some(&c.timestamp)));
    }
    parts.join(", ")
}

/// Writes the TimeMap of `captures` (one URL's, in date order) in link format.
/// Captures with the same date are one memento. Returns how many mementos it listed.
pub fn write_timemap_link(
    u: &MementoUrls,
    captures: impl Iterator<Item = io::Result<Capture>>,
    out: &mut dyn Write,
) -> io::Result<u64> {
    write!(
        out,
        "{},\n<{}>; rel=\"self\"; type=\"application/link-format\",\n{}",
        link(&u.original, "original", None),
        u.timemap_link(),
        link(&u.timegate(), "timegate", None)
    )?;
    each_memento(captures, |date, first, last| {
        let rel = match (first, last) {
            (true, true) => "first last memento",
            (true, false) => "first memento",
            (false, true) => "last memento",
            (false, false) => "memento",
        };
        write!(out, ",\n{}", link(&u.memento(date), rel, Some(date)))
    })
    .and_then(|n| out.write_all(b"\n").map(|_| n))
}

/// Writes the TimeMap of `captures` as JSON (the Internet Archive's and MemGator's form).
pub fn write_timemap_json(
    u: &MementoUrls,
    captures: impl Iterator<Item = io::Result<Capture>>,
    out: &mut dyn Write,
) -> io::Result<u64> {
    let s = |v: &str| serde_json::Value::String(v.to_string()).to_string();
    write!(
        out,
        "{{\"original_uri\":{},\"timegate_uri\":{},\"timemap_uri\":{{\"link_format\":{},\"json_format\":{}}},\"mementos\":{{\"list\":[",
        s(&u.original),
        s(&u.timegate()),
        s(&u.timemap_link()),
        s(&u.timemap_json())
    )?;
    let mut ends: (Option<String>, Option<String>) = (None, None);
    let item = |d: &str| {
        format!(
            "{{\"datetime\":{},\"uri\":{}}}",
            s(&iso_date(d)),
            s(&u.memento(d))
        )
    };
    let n = each_memento(captures, |date, first, _| {
        if first {
            ends.0 = Some(item(date));
        } else {
            out.write_all(b",")?;
        }
        ends.1 = Some(item(date));
        out.write_all(item(date).as_bytes())
    })?;
    write!(out, "]")?;
    if let (Some(f), Some(l)) = ends {
        write!(out, ",\"first\":{f},\"last\":{l}")?;
    }
    writeln!(out, "}}}}")?;
    Ok(n)
}

/// `2024-01-15T03:00:00Z` (the date as given when it is not 14 digits).
pub fn iso_date(d: &str) -> String {
    Date14::parse(d).map_or_else(|_| d.to_string(), |date| date.iso())
}

/// Calls `f(date, is_first, is_last)` for each distinct date of `captures`.
fn each_memento(
    captures: impl Iterator<Item = io::Result<Capture>>,
    mut f: impl FnMut(&str, bool, bool) -> io::Result<()>,
) -> io::Result<u64> {
    let mut held: Option<String> = None;
    let mut n = 0u64;
    for c in captures {
        let c = c?;
        if c.timestamp.len() != 14 || held.as_deref() == Some(c.timestamp.as_str()) {
            continue;
        }
        if let Some(h) = held.replace(c.timestamp) {
            f(&h, n == 0, false)?;
            n += 1;
        }
    }
    if let Some(h) = held {
        f(&h, n == 0, true)?;
        n += 1;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::replay::capture::test_capture as cap;

    fn urls() -> MementoUrls {
        MementoUrls {
            base: "http://127.0.0.1:8080".into(),
            original: "http://example.org/".into(),
        }
    }

    #[test]
    fn dates_both_ways() {
        assert_eq!(http_date("20071001120000"), "Mon, 01 Oct 2007 12:00:00 GMT");
        assert_eq!(
            parse_http_date("Mon, 01 Oct 2007 12:00:00 GMT").unwrap(),
            "20071001120000"
        );
        assert_eq!(
            parse_http_date("Tue, 29 Feb 2000 23:59:59 GMT").unwrap(),
            "20000229235959"
        );
        assert_eq!(parse_http_date("yesterday"), None);
        // RFC 850 and asctime forms are read too.
        assert_eq!(
            parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT").unwrap(),
            "19941106084937"
        );
        assert_eq!(
            parse_http_date("Sun Nov  6 08:49:37 1994").unwrap(),
            "19941106084937"
        );
        // No date, or one before 1970, is the epoch; no calendar date, the one it
        // carries into.
        assert_eq!(http_date("2007"), "Thu, 01 Jan 1970 00:00:00 GMT");
        assert_eq!(http_date("19691231235959"), "Thu, 01 Jan 1970 00:00:00 GMT");
        assert_eq!(http_date("20010229000000"), "Thu, 01 Mar 2001 00:00:00 GMT");
        assert_eq!(iso_date("20071001120000"), "2007-10-01T12:00:00Z");
        assert_eq!(iso_date("2007"), "2007");
    }

    #[test]
    fn timemap_in_link_format() {
        let caps = [
            "20070101000000",
            "20070101000000",
            "20070105000000",
            "20080101000000",
        ];
        let mut out = Vec::new();
        let n = write_timemap_link(&urls(), caps.iter().map(|t| Ok(cap(t))), &mut out).unwrap();
        assert_eq!(n, 3);
        let text = String::from_utf8(out).unwrap();
        let want = "<http://example.org/>; rel=\"original\",\n\
<http://127.0.0.1:8080/timemap/link/http://example.org/>; rel=\"self\"; type=\"application/link-format\",\n\
<http://127.0.0.1:8080/timegate/http://example.org/>; rel=\"timegate\",\n\
<http://127.0.0.1:8080/web/20070101000000/http://example.org/>; rel=\"first memento\"; datetime=\"Mon, 01 Jan 2007 00:00:00 GMT\",\n\
<http://127.0.0.1:8080/web/20070105000000/http://example.org/>; rel=\"memento\"; datetime=\"Fri, 05 Jan 2007 00:00:00 GMT\",\n\
<http://127.0.0.1:8080/web/20080101000000/http://example.org/>; rel=\"last memento\"; datetime=\"Tue, 01 Jan 2008 00:00:00 GMT\"\n";
        assert_eq!(text, want);
    }

    #[test]
    fn timemap_as_json_parses() {
        let caps = ["20070101000000", "20080101000000"];
        let mut out = Vec::new();
        write_timemap_json(&urls(), caps.iter().map(|t| Ok(cap(t))), &mut out).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["mementos"]["list"].as_array().unwrap().len(), 2);
        assert_eq!(v["mementos"]["first"]["datetime"], "2007-01-01T00:00:00Z");
        assert_eq!(
            v["mementos"]["last"]["uri"],
            "http://127.0.0.1:8080/web/20080101000000/http://example.org/"
        );
    }

    #[test]
    fn memento_link_header() {
        let (a, b, c) = (
            cap("20070101000000"),
            cap("20070105000000"),
            cap("20080101000000"),
        );
        let n = Nearest {
            capture: Some(b.clone()),
            previous: Some(a.clone()),
            next: Some(c.clone()),
            first: Some(a.clone()),
            last: Some(c.clone()),
            count: 3,
            more: false,
        };
        let h = memento_links(&urls(), &b, &n);
        assert_eq!(
            h,
            "<http://example.org/>; rel=\"original\", \
<http://127.0.0.1:8080/timegate/http://example.org/>; rel=\"timegate\", \
<http://127.0.0.1:8080/timemap/link/http://example.org/>; rel=\"timemap\"; type=\"application/link-format\", \
<http://127.0.0.1:8080/web/20070101000000/http://example.org/>; rel=\"first prev memento\"; datetime=\"Mon, 01 Jan 2007 00:00:00 GMT\", \
<http://127.0.0.1:8080/web/20070105000000/http://example.org/>; rel=\"memento\"; datetime=\"Fri, 05 Jan 2007 00:00:00 GMT\", \
<http://127.0.0.1:8080/web/20080101000000/http://example.org/>; rel=\"next last memento\"; datetime=\"Tue, 01 Jan 2008 00:00:00 GMT\""
        );
    }
}
