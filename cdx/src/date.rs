//! Capture dates: [`Date14`], the 14 digits `YYYYMMDDhhmmss` of a CDX line, and the
//! calendar arithmetic behind it (the proleptic Gregorian calendar, UTC, no leap
//! seconds). Every conversion of a capture date to seconds or to text goes through here,
//! so that a page, a Memento header and a CDX answer cannot disagree on one date.
//!
//! ```
//! use warcdex_cdx::date::Date14;
//! let d: Date14 = "19941106084937".parse().unwrap();
//! assert_eq!(d.http_date(), "Sun, 06 Nov 1994 08:49:37 GMT");
//! assert_eq!(d.iso(), "1994-11-06T08:49:37Z");
//! assert_eq!(d.human(), "1994-11-06 08:49:37");
//! assert_eq!(Date14::from_unix(d.unix_seconds()), Some(d));
//! ```

use std::fmt;
use std::str::FromStr;

use crate::query::python_int;

const SECS_PER_DAY: i64 = 86_400;

/// A capture date as a CDX holds it: 14 decimal digits `YYYYMMDDhhmmss`, UTC.
///
/// The digits are kept as written, so a CDX from elsewhere whose date is not a calendar
/// date (`20010231…`, hour `24`) still prints back unchanged;
/// [`Date14::is_calendar_date`] tells the two apart. The constructors are the readings
/// the callers need: [`Date14::parse`] (exactly 14 digits), [`Date14::pad_up`] (warcio's
/// reading of any timestamp, used by pywb's CDX API and access rules),
/// [`Date14::from_unix`] and [`Date14::now`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date14 {
    year: u16,
    month: u8,
    day: u8,
    hour: u8,
    minute: u8,
    second: u8,
}

/// Why text or a number is not a [`Date14`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Date14Error {
    /// The text is not exactly 14 ASCII digits.
    NotFourteenDigits(String),
    /// The number has more than 14 digits.
    TooLarge(u64),
}

impl fmt::Display for Date14Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Date14Error::NotFourteenDigits(s) => {
                write!(f, "{s:?} is not a date of 14 digits (YYYYMMDDhhmmss)")
            }
            Date14Error::TooLarge(n) => write!(f, "{n} has more than 14 digits"),
        }
    }
}

impl std::error::Error for Date14Error {}

impl Date14 {
    /// 1970-01-01 00:00:00, the Unix epoch.
    pub const EPOCH: Date14 = Date14 {
        year: 1970,
        month: 1,
        day: 1,
        hour: 0,
        minute: 0,
        second: 0,
    };

    /// Exactly 14 ASCII digits, taken as written (not necessarily a calendar date).
    pub fn parse(s: &str) -> Result<Date14, Date14Error> {
        let b = s.as_bytes();
        if b.len() != 14 || !b.iter().all(u8::is_ascii_digit) {
            return Err(Date14Error::NotFourteenDigits(s.to_string()));
        }
        let n = |at: usize| (b[at] - b'0') * 10 + (b[at + 1] - b'0');
        Ok(Date14 {
            year: u16::from(n(0)) * 100 + u16::from(n(2)),
            month: n(4),
            day: n(6),
            hour: n(8),
            minute: n(10),
            second: n(12),
        })
    }

    /// A date held as a number (`20071001120000`), as the search index stores it.
    pub fn from_number(n: u64) -> Result<Date14, Date14Error> {
        if n > 99_999_999_999_999 {
            return Err(Date14Error::TooLarge(n));
        }
        Date14::parse(&format!("{n:014}"))
    }

    /// warcio's reading of a timestamp (`timestamp_to_datetime`, which pywb's CDX API
    /// and access rules use): padded to six characters with `299912`, each field cut by
    /// position (in characters) and read as Python's `int()` reads it, clamped to its
    /// range (years 1900 to 2999, the day to the month's length); a missing or unreadable
    /// field takes its greatest value, so `2014` is the last second of 2014. Never fails:
    /// pywb accepts any text there.
    pub fn pad_up(s: &str) -> Date14 {
        const PAD_6_UP: &str = "299912";
        let mut padded: Vec<char> = s.chars().collect();
        padded.extend(PAD_6_UP.chars().skip(padded.len()));
        let field = |start: usize, end: usize, min: i64, max: i64| -> i64 {
            if padded.len() < end {
                return max;
            }
            let text: String = padded[start..end].iter().collect();
            python_int(&text).map_or(max, |v| v.clamp(min, max))
        };
        let year = field(0, 4, 1900, 2999);
        let month = field(4, 6, 1, 12);
        let day = field(6, 8, 1, days_in_month(year, month));
        // Every field is within its range here, so the narrowing is exact.
        Date14 {
            year: year as u16,
            month: month as u8,
            day: day as u8,
            hour: field(8, 10, 0, 23) as u8,
            minute: field(10, 12, 0, 59) as u8,
            second: field(12, 14, 0, 59) as u8,
        }
    }

    /// A calendar date from its fields; `None` when they are not one or the year is not
    /// of four digits.
    pub fn from_fields(
        year: i64,
        month: i64,
        day: i64,
        hour: i64,
        minute: i64,
        second: i64,
    ) -> Option<Date14> {
        let calendar = (0..=9999).contains(&year)
            && (1..=12).contains(&month)
            && (1..=days_in_month(year, month)).contains(&day)
            && (0..=23).contains(&hour)
            && (0..=59).contains(&minute)
            && (0..=59).contains(&second);
        // Every field is within its range when `calendar` holds.
        calendar.then_some(Date14 {
            year: year as u16,
            month: month as u8,
            day: day as u8,
            hour: hour as u8,
            minute: minute as u8,
            second: second as u8,
        })
    }

    /// The date of seconds since 1970-01-01 UTC; `None` outside the years 0 to 9999.
    pub fn from_unix(secs: i64) -> Option<Date14> {
        let (days, rem) = (secs.div_euclid(SECS_PER_DAY), secs.rem_euclid(SECS_PER_DAY));
        let (y, m, d) = civil_from_days(days);
        Date14::from_fields(y, m, d, rem / 3600, rem % 3600 / 60, rem % 60)
    }

    /// Now, to the second.
    pub fn now() -> Date14 {
        // Only a clock past the year 9999 has no date.
        Date14::from_unix(now_seconds()).unwrap_or(Date14::EPOCH)
    }

    /// Whether the digits are a calendar date (a month of 1 to 12, a day the month has,
    /// a time up to 23:59:59).
    pub fn is_calendar_date(&self) -> bool {
        Date14::from_fields(
            self.year.into(),
            self.month.into(),
            self.day.into(),
            self.hour.into(),
            self.minute.into(),
            self.second.into(),
        )
        .is_some()
    }

    /// The year, of four digits.
    pub fn year(&self) -> u16 {
        self.year
    }

    /// Seconds since 1970-01-01 UTC. For a date that is not a calendar date, the month
    /// is first clamped to 1 to 12 and the day to 1 to 31, and what is then past a
    /// field's range carries into the next (February 30 is March 1 or 2, hour 24 the
    /// next day), so that any 14 digits a CDX holds have a place in time.
    pub fn unix_seconds(&self) -> i64 {
        let month = i64::from(self.month).clamp(1, 12);
        let day = i64::from(self.day).clamp(1, 31);
        let days = days_from_civil(self.year.into(), month, day);
        ((days * 24 + i64::from(self.hour)) * 60 + i64::from(self.minute)) * 60
            + i64::from(self.second)
    }

    /// The date as a number (`20071001120000`).
    pub fn number(&self) -> u64 {
        u64::from(self.year) * 10_000_000_000
            + u64::from(self.month) * 100_000_000
            + u64::from(self.day) * 1_000_000
            + u64::from(self.hour) * 10_000
            + u64::from(self.minute) * 100
            + u64::from(self.second)
    }

    /// ISO 8601 as WARC-Date writes it: `2007-10-01T12:00:00Z` (the digits as written).
    pub fn iso(&self) -> String {
        let Date14 {
            year: y,
            month: mo,
            day: d,
            hour: h,
            minute: mi,
            second: s,
        } = self;
        format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
    }

    /// The form a page shows: `2007-10-01 12:00:00` (the digits as written).
    pub fn human(&self) -> String {
        let Date14 {
            year: y,
            month: mo,
            day: d,
            hour: h,
            minute: mi,
            second: s,
        } = self;
        format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}")
    }

    /// An HTTP date (RFC 7231's IMF-fixdate): `Sun, 06 Nov 1994 08:49:37 GMT`, of the
    /// moment [`Date14::unix_seconds`] names (so a date that is not a calendar date is
    /// written as the one it carries into).
    pub fn http_date(&self) -> String {
        const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
        const MONTHS: [&str; 12] = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ];
        let secs = self.unix_seconds();
        let (days, rem) = (secs.div_euclid(SECS_PER_DAY), secs.rem_euclid(SECS_PER_DAY));
        let (y, m, d) = civil_from_days(days);
        // 1970-01-01 was a Thursday.
        let weekday = DAYS[(days + 4).rem_euclid(7) as usize];
        format!(
            "{weekday}, {d:02} {} {y:04} {:02}:{:02}:{:02} GMT",
            MONTHS[(m - 1) as usize],
            rem / 3600,
            rem % 3600 / 60,
            rem % 60
        )
    }
}

impl fmt::Display for Date14 {
    /// The 14 digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:014}", self.number())
    }
}

impl FromStr for Date14 {
    type Err = Date14Error;

    /// As [`Date14::parse`].
    fn from_str(s: &str) -> Result<Date14, Date14Error> {
        Date14::parse(s)
    }
}

/// Now, in microseconds since 1970-01-01 UTC (0 for a clock set before then).
pub fn now_micros() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
}

/// Now, in whole seconds since 1970-01-01 UTC (0 for a clock set before then).
pub fn now_seconds() -> i64 {
    now_micros().div_euclid(1_000_000)
}

/// Whether a year of the proleptic Gregorian calendar has a February 29.
pub fn is_leap_year(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

/// The days of a month of the proleptic Gregorian calendar.
pub fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap_year(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm; a day
/// past the month's end counts on into the next month).
pub fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date `(year, month, day)` of a day number since 1970-01-01
/// (Howard Hinnant's algorithm, the inverse of [`days_from_civil`]).
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Date14 {
        Date14::parse(s).unwrap()
    }

    #[test]
    fn http_and_iso_dates_of_known_dates() {
        // RFC 7231's own example.
        assert_eq!(
            d("19941106084937").http_date(),
            "Sun, 06 Nov 1994 08:49:37 GMT"
        );
        assert_eq!(
            d("19700101000000").http_date(),
            "Thu, 01 Jan 1970 00:00:00 GMT"
        );
        assert_eq!(
            d("20071001120000").http_date(),
            "Mon, 01 Oct 2007 12:00:00 GMT"
        );
        assert_eq!(
            d("20000229235959").http_date(),
            "Tue, 29 Feb 2000 23:59:59 GMT"
        );
        assert_eq!(
            d("20241231235959").http_date(),
            "Tue, 31 Dec 2024 23:59:59 GMT"
        );
        assert_eq!(d("19941106084937").iso(), "1994-11-06T08:49:37Z");
        assert_eq!(d("20000229235959").iso(), "2000-02-29T23:59:59Z");
        assert_eq!(d("20071001120000").human(), "2007-10-01 12:00:00");
        assert_eq!(d("00010101000000").iso(), "0001-01-01T00:00:00Z");
        assert_eq!(d("19941106084937").unix_seconds(), 784_111_777);
        assert_eq!(d("20071001120000").number(), 20_071_001_120_000);
        assert_eq!(d("20071001120000").to_string(), "20071001120000");
    }

    #[test]
    fn round_trips_through_seconds_and_numbers() {
        for s in [
            0,
            59,
            86_399,
            86_400,
            951_782_400,
            951_868_799,
            1_700_000_000,
            -1,
        ] {
            let date = Date14::from_unix(s).unwrap();
            assert_eq!(date.unix_seconds(), s);
            assert!(date.is_calendar_date());
            assert_eq!(Date14::parse(&date.to_string()), Ok(date));
            assert_eq!(Date14::from_number(date.number()), Ok(date));
        }
        assert_eq!(Date14::from_unix(-1).unwrap().to_string(), "19691231235959");
        assert_eq!(Date14::from_unix(253_402_300_800), None);
        assert_eq!(
            Date14::from_unix(253_402_300_799).unwrap().to_string(),
            "99991231235959"
        );
        for z in [-1000, 0, 19_000, 400_000] {
            let (y, m, day) = civil_from_days(z);
            assert_eq!(days_from_civil(y, m, day), z);
        }
    }

    #[test]
    fn leap_years() {
        assert!(is_leap_year(2000) && is_leap_year(2024) && is_leap_year(1996));
        assert!(!is_leap_year(1900) && !is_leap_year(2100) && !is_leap_year(2023));
        assert!(d("20000229000000").is_calendar_date());
        assert!(d("20240229000000").is_calendar_date());
        assert!(!d("19000229000000").is_calendar_date());
        assert!(!d("20230229000000").is_calendar_date());
        let feb29 = d("20240229120000").unix_seconds();
        assert_eq!(d("20240301120000").unix_seconds() - feb29, 86_400);
        assert_eq!(Date14::from_unix(feb29).unwrap(), d("20240229120000"));
    }

    #[test]
    fn fourteen_digits_or_nothing() {
        for bad in [
            "",
            "2007",
            "2007100112000",
            "200710011200000",
            "2007100112000a",
            "２００７１００１１２００００",
        ] {
            assert_eq!(
                Date14::parse(bad),
                Err(Date14Error::NotFourteenDigits(bad.to_string()))
            );
        }
        assert_eq!(
            Date14::from_number(100_000_000_000_000),
            Err(Date14Error::TooLarge(100_000_000_000_000))
        );
        assert_eq!(
            Date14::from_number(1_001_000_000).unwrap().to_string(),
            "00001001000000"
        );
    }

    #[test]
    fn digits_that_are_no_calendar_date_keep_their_text_and_carry_in_time() {
        let odd = d("20010231250000");
        assert!(!odd.is_calendar_date());
        assert_eq!(odd.to_string(), "20010231250000");
        assert_eq!(odd.human(), "2001-02-31 25:00:00");
        // February 31 is March 3 in 2001; hour 25 is 01:00 of the next day.
        assert_eq!(odd.unix_seconds(), d("20010304010000").unix_seconds());
        assert_eq!(odd.http_date(), "Sun, 04 Mar 2001 01:00:00 GMT");
        // Month 0 and 13 are clamped, day 0 is the 1st.
        assert_eq!(
            d("20010000000000").unix_seconds(),
            d("20010101000000").unix_seconds()
        );
        assert_eq!(
            d("20011300000000").unix_seconds(),
            d("20011201000000").unix_seconds()
        );
    }

    #[test]
    fn pad_up_reads_timestamps_as_warcio() {
        let p = |s| Date14::pad_up(s).to_string();
        assert_eq!(p("20141226095010"), "20141226095010");
        assert_eq!(p("2014122609501"), "20141226095059");
        assert_eq!(p("20141226"), "20141226235959");
        assert_eq!(p("201410"), "20141031235959");
        assert_eq!(p("2014"), "20141231235959");
        assert_eq!(p("201"), "20191231235959");
        assert_eq!(p(""), "29991231235959");
        assert_eq!(p("20130009005601"), "20130109005601");
        assert_eq!(p("20130229"), "20130228235959");
        assert_eq!(p("20240229"), "20240229235959");
        assert_eq!(p("18000101000000"), "19000101000000");
        assert_eq!(p("2010abc"), "20101231235959");
        assert_eq!(p("40001965252477"), "29991231232459");
        assert_eq!(p("201401011234567"), "20140101123456");
        assert_eq!(Date14::pad_up("19700101000000").unix_seconds(), 0);
    }

    #[test]
    fn pad_up_seconds_are_warcios_doctests() {
        let secs = |s| Date14::pad_up(s).unix_seconds();
        assert_eq!(secs("20131226095010"), 1_388_051_410);
        assert_eq!(secs("2014"), 1_420_070_399);
        // 2014-12-26 09:50:59, 2014-10-31 23:59:59, 2999-12-31 23:59:59.
        assert_eq!(secs("201412260950"), 1_419_587_459);
        assert_eq!(secs("201410"), 1_414_799_999);
        assert_eq!(secs(""), 32_503_679_999);
        assert_eq!(secs("3"), 32_503_679_999);
        // Bad month clamped to 12: 2013-12-09 00:56:01.
        assert_eq!(secs("20131709005601"), 1_386_550_561);
        // Not a number: 2010-12-31 23:59:59.
        assert_eq!(secs("2010abc"), 1_293_839_999);
        // 2999-12-31 23:24:59.
        assert_eq!(secs("40001965252477"), 32_503_677_899);
        // February clamps its day: 2020-02-29.
        assert_eq!(secs("20200231"), 1_583_020_799);
    }

    #[test]
    fn now_is_a_calendar_date_after_2020() {
        let now = Date14::now();
        assert!(now.is_calendar_date() && now.year() >= 2020);
        assert!((now.unix_seconds() - now_seconds()).abs() <= 1);
    }
}
