//! A URL's history as its CDX lines tell it: when it was captured, with what status and
//! content digest, in date order. From it: the intervals between captures of content with
//! whether the content changed (`rate::estimate` reads them), and whether the URL is dead
//! (its latest captures 404 or 410) or redirects.
//!
//! A revisit record (`warc/revisit`, its digest the content's) counts as content unchanged;
//! a capture with another status (3xx, 4xx, 5xx) is not content and ends no interval.

use warcdex_cdx::date::Date14;

use super::rate::Interval;

/// One capture of a URL, from its CDX line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capture {
    /// When, in seconds since 1970.
    pub seconds: i64,
    /// The HTTP status (0 when the line has none, as a revisit's `-`).
    pub status: u16,
    /// The content digest.
    pub digest: String,
    /// A revisit record: the content unchanged since an earlier capture.
    pub revisit: bool,
    /// Where a redirect led, when the line says (its `redirect` field).
    pub redirect: Option<String>,
}

impl Capture {
    /// The URL key and the capture of a classic CDX line (CDX11 or CDX9:
    /// `urlkey timestamp original mime status digest …`); `None` for any other line.
    pub fn from_cdx_line(line: &str) -> Option<(&str, Capture)> {
        let f: Vec<&str> = line.split(' ').collect();
        Self::from_cdx_fields(&f)
    }

    /// [`Capture::from_cdx_line`] of a line already split at its spaces.
    pub fn from_cdx_fields<'a>(f: &[&'a str]) -> Option<(&'a str, Capture)> {
        if f.len() < 9 {
            return None;
        }
        let seconds = Date14::parse(f[1]).ok()?.unix_seconds();
        let redirect = (f.len() >= 11 && f[6] != "-").then(|| f[6].to_string());
        Some((
            f[0],
            Capture {
                seconds,
                status: f[4].parse().unwrap_or(0),
                digest: f[5].to_string(),
                revisit: f[3] == "warc/revisit",
                redirect,
            },
        ))
    }

    /// Whether it holds the URL's content: a 2xx response, or a revisit of one.
    pub fn is_content(&self) -> bool {
        holds_content(self.status, self.revisit)
    }
}

/// Whether a capture of HTTP `status` (0: none), a revisit record or not, holds the URL's
/// content: a 2xx response, or a revisit (which repeats content captured before).
pub fn holds_content(status: u16, revisit: bool) -> bool {
    revisit || (200..300).contains(&status)
}

/// What the captures of one URL say for planning its next fetch.
#[derive(Debug, Clone, PartialEq)]
pub struct History {
    /// The intervals between consecutive captures of content, in days.
    pub intervals: Vec<Interval>,
    /// Captures in all.
    pub captures: usize,
    /// The latest capture's date (seconds) and status.
    pub last_seconds: i64,
    /// The latest capture's status (0: a revisit's).
    pub last_status: u16,
    /// How many of the latest captures in a row answered 404 or 410.
    pub gone_streak: usize,
    /// The latest capture's redirect target, when it was a redirect that says where.
    pub redirect: Option<String>,
}

const SECONDS_A_DAY: f64 = 86_400.0;

/// The history of a URL from its captures in date order (`None` without one).
pub fn history(captures: &[Capture]) -> Option<History> {
    let last = captures.last()?;
    let mut intervals = Vec::new();
    // The previous capture of content: its date, and the digest of the content it held
    // (a revisit holds the content it repeats, whatever its own digest field says).
    let mut previous: Option<(i64, &str)> = None;
    for c in captures.iter().filter(|c| c.is_content()) {
        let digest = match (c.revisit, previous) {
            (true, Some((_, d))) => d,
            _ => c.digest.as_str(),
        };
        if let Some((at, d)) = previous {
            let days = (c.seconds - at) as f64 / SECONDS_A_DAY;
            if days > 0.0 {
                intervals.push(Interval {
                    days,
                    changed: digest != d,
                });
            }
        }
        previous = Some((c.seconds, digest));
    }
    let gone_streak = captures
        .iter()
        .rev()
        .take_while(|c| matches!(c.status, 404 | 410))
        .count();
    Some(History {
        intervals,
        captures: captures.len(),
        last_seconds: last.seconds,
        last_status: last.status,
        gone_streak,
        redirect: (300..400)
            .contains(&last.status)
            .then(|| last.redirect.clone())
            .flatten(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(ts: &str, mime: &str, status: &str, digest: &str, redirect: &str) -> String {
        format!("org,example)/a {ts} http://example.org/a {mime} {status} {digest} {redirect} - 100 0 crawl.warc.gz")
    }

    fn caps(lines: &[String]) -> Vec<Capture> {
        lines
            .iter()
            .map(|l| Capture::from_cdx_line(l).unwrap().1)
            .collect()
    }

    #[test]
    fn intervals_say_when_the_content_changed_revisits_unchanged() {
        let c = caps(&[
            line("20240101000000", "text/html", "200", "AAA", "-"),
            line("20240111000000", "warc/revisit", "-", "AAA", "-"),
            line("20240121000000", "text/html", "200", "BBB", "-"),
            line("20240122000000", "text/html", "503", "ZZZ", "-"),
            line("20240131000000", "text/html", "200", "BBB", "-"),
        ]);
        let h = history(&c).unwrap();
        let got: Vec<(f64, bool)> = h.intervals.iter().map(|i| (i.days, i.changed)).collect();
        // The 503 is no content: the last interval runs from the 21st to the 31st.
        assert_eq!(got, [(10.0, false), (10.0, true), (10.0, false)]);
        assert_eq!((h.captures, h.last_status, h.gone_streak), (5, 200, 0));
        assert_eq!(h.redirect, None);
    }

    #[test]
    fn a_dead_url_and_a_redirect_are_told() {
        let dead = caps(&[
            line("20240101000000", "text/html", "200", "AAA", "-"),
            line("20240201000000", "text/html", "404", "NNN", "-"),
            line("20240301000000", "text/html", "410", "NNN", "-"),
        ]);
        let h = history(&dead).unwrap();
        assert_eq!((h.gone_streak, h.last_status), (2, 410));
        assert!(h.intervals.is_empty());
        let moved = caps(&[line(
            "20240101000000",
            "text/html",
            "301",
            "RRR",
            "http://example.org/b",
        )]);
        let h = history(&moved).unwrap();
        assert_eq!(h.redirect.as_deref(), Some("http://example.org/b"));
        assert_eq!(history(&[]), None);
        assert!(Capture::from_cdx_line(" CDX N b a m s k r M S V g").is_none());
    }
}
