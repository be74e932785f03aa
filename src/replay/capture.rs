//! The captures of one URL, read from the collection's sorted CDX as they stream past:
//! the one nearest a date with its neighbours (for the capture view and the TimeGate),
//! and the capture a revisit stands for. Memory is a few captures, however many a URL has.

use std::io;

use warcdex_cdx::date::Date14;
use warcdex_cdx::line::CdxLine;
use warcdex_cdx::lookup::SortedCdx;

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

    /// Seconds since 1970 of the capture date (`None` when it is not 14 digits).
    pub fn seconds(&self) -> Option<i64> {
        seconds(&self.timestamp)
    }
}

/// Seconds since 1970 of a date of 14 digits ([`Date14::unix_seconds`], so that a CDX
/// from elsewhere with a date that is no calendar date still has a place in time); `None`
/// when it is not 14 digits.
fn seconds(date14: &str) -> Option<i64> {
    Date14::parse(date14).ok().map(|d| d.unix_seconds())
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
    /// How many captures the URL has (at most the number counting stopped at, see
    /// [`Nearest::more`]).
    pub count: u64,
    /// Counting stopped before the last capture: the URL has more than `count`.
    pub more: bool,
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

/// [`nearest`] by lookups in the sorted CDX `cdx` instead of a reading of every capture
/// of `urlkey` (a URL of 600,000 captures took a second of CPU per request that way):
/// the captures shown (`shown`) nearest `date14` on either side, found by one binary
/// search, their neighbours, and the first and last, each read from where it lies. Only
/// the count walks the captures, and only up to `count_at_most` (0: not counted);
/// beyond it [`Nearest::more`] says so. The answer is [`nearest`]'s over the captures
/// shown, but for the count. `shown` sees every capture read, so one that is never
/// called for a capture shown means that no capture of the key is shown.
pub fn nearest_in(
    cdx: &SortedCdx,
    urlkey: &str,
    date14: &str,
    shown: &mut dyn FnMut(&Capture) -> bool,
    count_at_most: u64,
) -> io::Result<Nearest> {
    let want = seconds(date14).unwrap_or(0);
    let gap = |c: &Capture| c.seconds().map_or(i64::MAX, |s| (s - want).abs());
    let at = format!("{urlkey} {date14}");
    // Captures from the date on, and before it backwards: together every capture once.
    let mut after_it = captures_of(cdx.lines_from(at.as_bytes())?, urlkey);
    let mut before_it = captures_of(cdx.lines_before(at.as_bytes())?, urlkey);
    let mut next_shown = |it: &mut dyn Iterator<Item = io::Result<Capture>>| {
        for c in it {
            let c = c?;
            if shown(&c) {
                return Ok::<_, io::Error>(Some(c));
            }
        }
        Ok(None)
    };
    let after = next_shown(&mut after_it)?;
    let before = next_shown(&mut before_it)?;
    let mut out = Nearest::default();
    // A tie goes to the earlier capture, as a reading in date order finds it first.
    let take_before = match (&before, &after) {
        (Some(b), Some(a)) => gap(b) <= gap(a),
        (b, _) => b.is_some(),
    };
    match (before, after) {
        (Some(mut c), after) if take_before => {
            // Of several captures of its date, the first in the file.
            let mut previous = None;
            while let Some(p) = next_shown(&mut before_it)? {
                if p.timestamp == c.timestamp {
                    c = p;
                } else {
                    previous = Some(p);
                    break;
                }
            }
            out.capture = Some(c);
            out.previous = previous;
            out.next = after;
        }
        (before, Some(c)) => {
            let mut next = None;
            while let Some(n) = next_shown(&mut after_it)? {
                if n.timestamp > c.timestamp {
                    next = Some(n);
                    break;
                }
            }
            out.capture = Some(c);
            out.previous = before;
            out.next = next;
        }
        _ => return Ok(out),
    }
    let first = format!("{urlkey} ");
    out.first = next_shown(&mut captures_of(cdx.lines_from(first.as_bytes())?, urlkey))?;
    // Every line of the key sorts before `KEY!` (`!` follows the space).
    let end = format!("{urlkey}!");
    out.last = next_shown(&mut captures_of(cdx.lines_before(end.as_bytes())?, urlkey))?;
    if count_at_most > 0 {
        for c in captures_of(cdx.lines_from(first.as_bytes())?, urlkey) {
            if shown(&c?) {
                if out.count == count_at_most {
                    out.more = true;
                    break;
                }
                out.count += 1;
            }
        }
    }
    Ok(out)
}

/// [`original_of`] by lookups in the sorted CDX `cdx` among the captures of `urlkey`:
/// read backwards from `date14` to the first capture of `digest`, and only when there is
/// none, forwards from it; never every capture of a URL.
pub fn original_in(
    cdx: &SortedCdx,
    urlkey: &str,
    digest: &str,
    date14: &str,
) -> io::Result<Option<Capture>> {
    // Every line of a date sorts before `KEY DATE!` (`!` follows the space).
    let at = format!("{urlkey} {date14}!");
    let is_it = |c: &Capture| !c.is_revisit() && c.digest == digest;
    for c in captures_of(cdx.lines_before(at.as_bytes())?, urlkey) {
        let c = c?;
        if is_it(&c) {
            return Ok(Some(c));
        }
    }
    for c in captures_of(cdx.lines_from(at.as_bytes())?, urlkey) {
        let c = c?;
        if is_it(&c) {
            return Ok(Some(c));
        }
    }
    Ok(None)
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

    /// A sorted CDX of `dates` for `org,example)/` between captures of other keys.
    fn cdx_of(dates: &[&str]) -> (tempfile::TempDir, SortedCdx) {
        let d = tempfile::tempdir().unwrap();
        let mut lines: Vec<Vec<u8>> = (dates.iter().enumerate())
            .map(|(i, ts)| {
                let digest = ["AAA", "BBB", "CCC"][i % 3];
                // Lines of one date apart by their offsets.
                format!("org,example)/ {ts} http://example.org/ text/html 200 {digest} - - 100 {i} a.warc.gz")
                    .into_bytes()
            })
            .collect();
        lines.push(
            b"org,examp)/ 20070101000000 http://examp.org/ text/html 200 X - - 1 2 a".to_vec(),
        );
        lines.push(
            b"org,example)/a 20070101000000 http://example.org/a text/html 200 X - - 1 2 a"
                .to_vec(),
        );
        lines.sort();
        let path = d.path().join("all.cdx");
        std::fs::write(&path, lines.join(&b"\n"[..])).unwrap();
        let cdx = SortedCdx::open(&path).unwrap();
        (d, cdx)
    }

    /// Every capture of `key` in `cdx`, by a reading of the whole file: what the lookups
    /// are checked against.
    fn every_capture(cdx: &SortedCdx, key: &str) -> Vec<Capture> {
        let prefix = format!("{key} ");
        captures_of(
            std::fs::read(cdx.path())
                .unwrap()
                .split(|&b| b == b'\n')
                .filter(|l| l.starts_with(prefix.as_bytes()))
                .map(|l| Ok(l.to_vec())),
            key,
        )
        .map(Result::unwrap)
        .collect()
    }

    #[test]
    fn lookups_find_what_a_reading_of_every_capture_finds() {
        let dates = [
            "20070101000000",
            "20070101000000",
            "20070102000000",
            "20070105000000",
            "20070105000000",
            "20070105000000",
            "20070110000000",
            "20080101000000",
            "20080101000000",
        ];
        let (_d, cdx) = cdx_of(&dates);
        let key = "org,example)/";
        let mut asked: Vec<String> = vec![
            "19990101000000".into(),
            "20300101000000".into(),
            "20070103120000".into(),
            "20070107120000".into(),
        ];
        for d in dates {
            let s = seconds(d).unwrap();
            for delta in [-86_400 * 3, -1, 0, 1, 86_400] {
                asked.push(crate::access::time::seconds_date14(s + delta).to_string());
            }
        }
        // Shown: all; none; every capture but some by their offsets (one of a date kept).
        let filters: [&dyn Fn(&Capture) -> bool; 4] =
            [&|_| true, &|_| false, &|c| c.offset % 3 != 0, &|c| {
                c.timestamp != "20070105000000" || c.offset == 5
            }];
        for f in filters {
            let all: Vec<Capture> = every_capture(&cdx, key)
                .into_iter()
                .filter(|c| f(c))
                .collect();
            for date in &asked {
                let want = nearest(all.iter().cloned().map(Ok), date).unwrap();
                let mut shown = |c: &Capture| f(c);
                let got = nearest_in(&cdx, key, date, &mut shown, 1000).unwrap();
                assert_eq!(got, want, "{date}");
                let capped = nearest_in(&cdx, key, date, &mut shown, 2).unwrap();
                assert_eq!(capped.more, want.count > 2, "{date}");
                assert_eq!(capped.count, want.count.min(2), "{date}");
                let uncounted = nearest_in(&cdx, key, date, &mut shown, 0).unwrap();
                assert_eq!(uncounted.capture, want.capture, "{date}");
                assert_eq!(uncounted.count, 0);
            }
        }
        let mut shown = |_: &Capture| true;
        let none = nearest_in(&cdx, "org,example)/b", "2007", &mut shown, 10).unwrap();
        assert_eq!(none, Nearest::default());
    }

    #[test]
    fn a_lookup_reads_a_few_captures_of_many() {
        let dates: Vec<String> = (0..20_000u64)
            .map(|i| {
                crate::access::time::seconds_date14(1_200_000_000 + i as i64 * 3600).to_string()
            })
            .collect();
        let refs: Vec<&str> = dates.iter().map(String::as_str).collect();
        let (_d, cdx) = cdx_of(&refs);
        let mut read = 0;
        let mut shown = |_: &Capture| {
            read += 1;
            true
        };
        let n = nearest_in(&cdx, "org,example)/", &dates[12_345], &mut shown, 0).unwrap();
        assert_eq!(n.capture.unwrap().timestamp, dates[12_345]);
        assert_eq!(n.previous.unwrap().timestamp, dates[12_344]);
        assert_eq!(n.next.unwrap().timestamp, dates[12_346]);
        assert_eq!(n.first.unwrap().timestamp, dates[0]);
        assert_eq!(n.last.unwrap().timestamp, dates[19_999]);
        assert!(read < 10, "{read} captures read");
    }

    #[test]
    fn a_revisits_original_by_lookups_is_the_one_a_reading_finds() {
        let dates = [
            "20070101000000",
            "20070101000000",
            "20070102000000",
            "20070105000000",
            "20070105000000",
            "20070110000000",
        ];
        let (_d, cdx) = cdx_of(&dates);
        let key = "org,example)/";
        let all: Vec<Capture> = every_capture(&cdx, key);
        for digest in ["AAA", "BBB", "CCC", "DDD"] {
            for date in [
                "19990101000000",
                "20070101000000",
                "20070103000000",
                "20070105000000",
                "20300101000000",
            ] {
                let want = original_of(all.iter().cloned().map(Ok), digest, date).unwrap();
                let got = original_in(&cdx, key, digest, date).unwrap();
                assert_eq!(got, want, "{digest} {date}");
            }
        }
    }
}
