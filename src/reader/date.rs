//! Capture dates: WARC-Date to 14 digits, and ARC dates (which real crawlers wrote
//! with 10 to 18 digits, or worse) to ISO, with warcio's clamping rules.

use warcdex_cdx::date::{days_in_month, Date14};

/// Converts an ISO WARC-Date (`2014-01-03T03:03:21Z`, fractions allowed) to
/// `YYYYMMDDhhmmss` by taking its digits; missing parts are padded as pywb pads them.
pub fn iso_to_14(s: &str) -> String {
    let digits: String = s
        .split(|c: char| !c.is_ascii_digit())
        .filter(|p| !p.is_empty())
        .take(6)
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join("");
    pad14(&digits)
}

fn pad14(d: &str) -> String {
    // Missing fields are filled as warcio fills them: each takes its maximum
    // (month 12, day 31, 23:59:59), via the same clamping as ARC dates.
    arc_date(d).to_string()
}

/// Converts an ARC archive-date to 14 digits (with [`arc_date_to_iso`]'s rules).
pub fn arc_date_to_14(s: &str) -> String {
    arc_date(s).to_string()
}

/// warcio's `timestamp_to_iso_date`: each field is cut by position and clamped to its
/// range; a field that is missing or not a number becomes its maximum.
///
/// The same rules as [`Date14::pad_up`], but read over bytes as the ARC header holds
/// them (a field cut inside a multi-byte character is unreadable, Unicode white space is
/// trimmed), where `pad_up` reads characters: the CDX of an ARC with such a date is the
/// one cdx-writer's peers have agreed on, so the two readings are kept apart.
pub fn arc_date_to_iso(s: &str) -> String {
    arc_date(s).iso()
}

/// The date of [`arc_date_to_iso`].
fn arc_date(s: &str) -> Date14 {
    // warcio pads strings shorter than 6 characters with "299912".
    let mut s = s.to_string();
    const PAD6: &str = "299912";
    if s.len() < PAD6.len() {
        s.push_str(&PAD6[s.len()..]);
    }
    let b = s.as_bytes();
    let field = |start: usize, end: usize, min: i64, max: i64| -> i64 {
        if b.len() >= end {
            match py_int(&b[start..end]) {
                Some(v) => v.clamp(min, max),
                None => max,
            }
        } else {
            max
        }
    };
    let year = field(0, 4, 1900, 2999);
    let month = field(4, 6, 1, 12);
    let day = field(6, 8, 1, days_in_month(year, month));
    let (hour, minute, second) = (
        field(8, 10, 0, 23),
        field(10, 12, 0, 59),
        field(12, 14, 0, 59),
    );
    // Every field is clamped to its range, so the fields are a calendar date.
    Date14::from_fields(year, month, day, hour, minute, second).unwrap_or(Date14::EPOCH)
}

/// Python's `int()` on a short string: surrounding white space, an optional sign,
/// digits with single underscores between them.
fn py_int(b: &[u8]) -> Option<i64> {
    let s = std::str::from_utf8(b).ok()?.trim();
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    if body.is_empty() || body.starts_with('_') || body.ends_with('_') || body.contains("__") {
        return None;
    }
    let mut v: i64 = 0;
    for c in body.chars() {
        if c == '_' {
            continue;
        }
        v = v * 10 + c.to_digit(10)? as i64;
    }
    Some(if neg { -v } else { v })
}

/// The earliest year a web capture can have: the first web server went up in 1990, and
/// the oldest archives (the Internet Archive's, from 1996) are later.
pub const FIRST_CAPTURE_YEAR: i64 = 1991;

/// A 14-digit capture date as microseconds since 1970-01-01 UTC, or `None` when it is
/// not a possible capture date: not 14 digits, not a calendar date, before
/// [`FIRST_CAPTURE_YEAR`] or more than a day after `now` (microseconds, as
/// [`warcdex_cdx::date::now_micros`] gives it). warcio's rules
/// turn an ARC date that is not a date at all into one (`a0d1fdddf3165d`, a hex digest
/// written where cdx-writer's `hex_instead_of_date.arc.gz` has its date, becomes
/// 2999-12-31T23:16:59): such a date is kept in the CDX as the peers keep it, but it
/// must not reach search dates or replay links.
pub fn capture_micros(date14: &str, now: i64) -> Option<i64> {
    let d = Date14::parse(date14).ok()?;
    if i64::from(d.year()) < FIRST_CAPTURE_YEAR || !d.is_calendar_date() {
        return None;
    }
    let micros = d.unix_seconds() * 1_000_000;
    (micros <= now.saturating_add(86_400 * 1_000_000)).then_some(micros)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arc_dates_like_warcio() {
        // Expected values are warcio 1.8.1's output on the CDX-Writer test ARCs.
        assert_eq!(arc_date_to_iso("2016020900"), "2016-02-09T00:59:59Z");
        assert_eq!(arc_date_to_iso("201512000000000"), "2015-12-01T00:00:00Z");
        assert_eq!(arc_date_to_iso("2000082305410049"), "2000-08-23T05:41:00Z");
        assert_eq!(arc_date_to_iso("20160211000000jpg"), "2016-02-11T00:00:00Z");
        assert_eq!(
            arc_date_to_iso("a0d1fdddf3165d0447b1f7a285c61c1c9"),
            "2999-12-31T23:16:59Z"
        );
        assert_eq!(arc_date_to_iso("63.241.16.130"), "2999-12-31T23:13:59Z");
        assert_eq!(arc_date_to_iso("200011101120"), "2000-11-10T11:20:59Z");
        assert_eq!(arc_date_to_iso("20040230120000"), "2004-02-29T12:00:00Z");
    }

    #[test]
    fn capture_times_only_for_possible_dates() {
        let now = capture_micros("20261124000000", i64::MAX).unwrap();
        assert_eq!(capture_micros("19700101000000", i64::MAX), None);
        assert_eq!(
            capture_micros("19910101000000", now),
            Some(662_688_000_000_000)
        );
        assert_eq!(
            capture_micros("20000229123456", now),
            Some(951_827_696_000_000)
        );
        assert_eq!(capture_micros("20010229000000", now), None);
        assert_eq!(capture_micros(&arc_date_to_14("a0d1fdddf3165d"), now), None);
        assert_eq!(arc_date_to_14("a0d1fdddf3165d"), "29991231231659");
        assert_eq!(capture_micros("2026112500000", now), None);
        assert!(capture_micros("20261124235959", now).is_some());
        assert_eq!(capture_micros("20261126000000", now), None);
    }

    #[test]
    fn warc_dates_to_14() {
        assert_eq!(iso_to_14("2014-01-03T03:03:21Z"), "20140103030321");
        assert_eq!(iso_to_14("2020-04-10T15:55:40.123456Z"), "20200410155540");
        assert_eq!(
            iso_to_14("2020-04-10T15:55:40.123456789Z"),
            "20200410155540"
        );
    }
}
