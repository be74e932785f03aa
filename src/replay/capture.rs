//! The captures of one URL, read from the collection's sorted CDX as they stream past:
//! the one nearest a date with its neighbours (for the capture view and the TimeGate),
//! and the capture a revisit stands for. Memory is a few captures, however many a URL has.

use std::io;

use warcdex_cdx::line::CdxLine;

/// One capture of a URL: where its record is, and what the CDX says of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capture {
    /// The SURT key.
    pub urlkey: String,
    /// 14 digits.
    pub timestamp: String,
    /// The URL as captured.
    pub original: String,
    /// The MIME type, `warc/revisit` for a revisit.
    pub mime: String,
    /// The HTTP status (`-` for none).
    pub status: String,
    /// The payload digest, without `sha1:`.
    pub digest: String,
    /// The stored record's length.
    pub length: u64,
    /// The stored record's offset in its archive.
    pub offset: u64,
    /// The archive's name, as `collection.json` records it.
    pub filename: String,
}

impl Capture {
    /// Parses a CDX line of any layout; `None` for a legend line, a malformed one, or a
    /// capture without the archive name and offset a replay needs.
    pub fn parse(line: &[u8]) -> Option<Capture> {
        let line = std::str::from_utf8(line).ok()?;
        let (_, l) = CdxLine::parse(line).ok()?;
        let num = |v: &Option<String>| v.as_deref().and_then(|s| s.parse::<u64>().ok());
        Some(Capture {
            offset: num(&l.offset)?,
            length: num(&l.length).unwrap_or(0),
            filename: l.filename?,
            original: l.original.unwrap_or_default(),
            mime: l.mime.unwrap_or_else(|| "-".into()),
            status: l.status.unwrap_or_else(|| "-".into()),
            digest: l
                .digest
                .map(|d| d.strip_prefix("sha1:").map(str::to_string).unwrap_or(d))
                .unwrap_or_default(),
            urlkey: l.urlkey,
            timestamp: l.timestamp,
        })
    }

    /// A revisit record: its payload is that of an earlier capture of the same digest.
    pub fn is_revisit(&self) -> bool {
        self.mime == "warc/revisit"
    }

    /// Seconds since 1970 of the capture date (`None` when it is no date).
    pub fn seconds(&self) -> Option<i64> {
        seconds(&self.timestamp)
    }
}

/// Seconds since 1970-01-01 UTC of a 14-digit date; `None` when it is not one.
pub fn seconds(date14: &str) -> Option<i64> {
    let b = date14.as_bytes();
    if b.len() != 14 || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n = |r: std::ops::Range<usize>| -> i64 { date14[r].parse().unwrap_or(0) };
    let (y, mo, d) = (n(0..4), n(4..6).clamp(1, 12), n(6..8).clamp(1, 31));
    let days = crate::reader::date::days_from_civil(y, mo, d);
    Some(((days * 24 + n(8..10)) * 60 + n(10..12)) * 60 + n(12..14))
}

/// The capture of a URL nearest a date, with what a banner shows about the others.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Nearest {
    /// The nearest capture (ties go to the earlier); `None` when the URL has none.
    pub capture: Option<Capture>,
    /// The latest capture before it (with an earlier date).
    pub previous: Option<Capture>,
    /// The earliest capture after it (with a later date).
    pub next: Option<Capture>,
    /// The first and last capture of the URL.
    pub first: Option<Capture>,
    /// The last capture of the URL.
    pub last: Option<Capture>,
    /// How many captures the URL has.
    pub count: u64,
}

/// The lines of one URL key from `lines` (which start at the key's first line, as a
/// sorted CDX's lookup gives them), as captures, ending at the first line of another key.
pub fn captures_of<'a, I>(
    lines: I,
    urlkey: &'a str,
) -> impl Iterator<Item = io::Result<Capture>> + 'a
where
    I: Iterator<Item = io::Result<Vec<u8>>> + 'a,
{
    let prefix = format!("{urlkey} ");
    lines
        .take_while(move |l| match l {
            Ok(l) => l.starts_with(prefix.as_bytes()),
            Err(_) => true,
        })
        .filter_map(|l| match l {
            Ok(l) => Capture::parse(&l).map(Ok),
            Err(e) => Some(Err(e)),
        })
}

/// The capture nearest `date14` among `captures` (in date order, as a sorted CDX holds
/// them), and its neighbours, in one pass.
pub fn nearest(
    captures: impl Iterator<Item = io::Result<Capture>>,
    date14: &str,
) -> io::Result<Nearest> {
    let want = seconds(date14).unwrap_or(0);
    let mut out = Nearest::default();
    let mut best_gap = i64::MAX;
    // The latest capture dated before the one being read, and the one read before it.
    let mut before: Option<Capture> = None;
    let mut last: Option<Capture> = None;
    for c in captures {
        let c = c?;
        out.count += 1;
        if out.first.is_none() {
            out.first = Some(c.clone());
        }
        if let Some(l) = last.take() {
            if l.timestamp < c.timestamp {
                before = Some(l);
            }
        }
        let gap = c.seconds().map_or(i64::MAX, |s| (s - want).abs());
        if gap < best_gap {
            best_gap = gap;
            out.previous = before.clone();
            out.capture = Some(c.clone());
            out.next = None;
        } else if out.next.is_none()
            && (out.capture.as_ref()).is_some_and(|b| c.timestamp > b.timestamp)
        {
            out.next = Some(c.clone());
        }
        last = Some(c);
    }
    out.last = last;
    Ok(out)
}

/// The capture a revisit stands for among `captures` (the same URL's, or the URL its
/// record names): the latest capture of `digest` that is not a revisit and is not later
/// than `date14`, or else the earliest after it.
pub fn original_of(
    captures: impl Iterator<Item = io::Result<Capture>>,
    digest: &str,
    date14: &str,
) -> io::Result<Option<Capture>> {
    let mut before: Option<Capture> = None;
    for c in captures {
        let c = c?;
        if c.is_revisit() || c.digest != digest {
            continue;
        }
        if c.timestamp.as_str() <= date14 {
            before = Some(c);
        } else {
            return Ok(before.or(Some(c)));
        }
    }
    Ok(before)
}

/// A capture of `http://example.org/` at `ts`, for the replay modules' tests.
#[cfg(test)]
pub(crate) fn test_capture(ts: &str) -> Capture {
    Capture {
        urlkey: "org,example)/".into(),
        timestamp: ts.into(),
        original: "http://example.org/".into(),
        mime: "text/html".into(),
        status: "200".into(),
        digest: "A".into(),
        length: 1,
        offset: 0,
        filename: "a.warc.gz".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(ts: &str, mime: &str, digest: &str) -> Vec<u8> {
        format!(
            "org,example)/ {ts} http://example.org/ {mime} 200 {digest} - - 100 {} a.warc.gz",
            ts[8..].parse::<u64>().unwrap()
        )
        .into_bytes()
    }

    fn key_lines() -> Vec<io::Result<Vec<u8>>> {
        vec![
            Ok(line("20070101000000", "text/html", "AAA")),
            Ok(line("20070102000000", "warc/revisit", "AAA")),
            Ok(line("20070105000000", "text/html", "BBB")),
            Ok(line("20070110000000", "text/html", "AAA")),
            Ok(b"org,example)/a 20070101000000 http://example.org/a text/html 200 CCC - - 1 2 a.warc.gz".to_vec()),
        ]
    }

    fn near(date: &str) -> Nearest {
        nearest(captures_of(key_lines().into_iter(), "org,example)/"), date).unwrap()
    }

    #[test]
    fn nearest_capture_and_its_neighbours() {
        let n = near("20070104000000");
        assert_eq!(n.count, 4);
        assert_eq!(n.capture.unwrap().timestamp, "20070105000000");
        assert_eq!(n.previous.unwrap().timestamp, "20070102000000");
        assert_eq!(n.next.unwrap().timestamp, "20070110000000");
        assert_eq!(n.first.unwrap().timestamp, "20070101000000");
        assert_eq!(n.last.unwrap().timestamp, "20070110000000");
        let first = near("19990101000000");
        assert_eq!(first.capture.unwrap().timestamp, "20070101000000");
        assert!(first.previous.is_none());
        assert_eq!(first.next.unwrap().timestamp, "20070102000000");
        let last = near("20300101000000");
        assert_eq!(last.capture.unwrap().timestamp, "20070110000000");
        assert_eq!(last.previous.unwrap().timestamp, "20070105000000");
        assert!(last.next.is_none());
        // A tie goes to the earlier capture.
        assert_eq!(
            near("20070103120000").capture.unwrap().timestamp,
            "20070102000000"
        );
        assert_eq!(
            near("20070101000000").capture.unwrap().timestamp,
            "20070101000000"
        );
    }

    #[test]
    fn a_url_without_captures() {
        let n = nearest(
            captures_of(key_lines().into_iter(), "org,example)/b"),
            "2007",
        )
        .unwrap();
        assert_eq!(n, Nearest::default());
    }

    #[test]
    fn a_revisit_resolves_to_the_latest_original_before_it() {
        let o = original_of(
            captures_of(key_lines().into_iter(), "org,example)/"),
            "AAA",
            "20070102000000",
        )
        .unwrap()
        .unwrap();
        assert_eq!(o.timestamp, "20070101000000");
        let later = original_of(
            captures_of(key_lines().into_iter(), "org,example)/"),
            "BBB",
            "20070101000000",
        )
        .unwrap()
        .unwrap();
        assert_eq!(later.timestamp, "20070105000000");
        assert!(original_of(
            captures_of(key_lines().into_iter(), "org,example)/"),
            "ZZZ",
            "2007"
        )
        .unwrap()
        .is_none());
    }

    #[test]
    fn seconds_of_dates() {
        assert_eq!(seconds("19700101000000"), Some(0));
        assert_eq!(seconds("20000301000000"), Some(951_868_800));
        assert_eq!(seconds("2000"), None);
    }
}
