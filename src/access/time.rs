//! Timestamps and periods as pywb 2.10 reads them in access rules and embargoes: a
//! timestamp of up to 14 digits padded *up* (`2020` is the last second of 2020, warcio's
//! `timestamp_to_datetime`), a period of years, months, weeks and days taken from now as
//! `dateutil.relativedelta` does (months first, the day clamped to the month's end).

//!
//! A timestamp is read by [`Date14::pad_up`], as the CDX API reads one.

use warcdex_cdx::date::{civil_from_days, days_from_civil, days_in_month, Date14};

/// Seconds since the epoch of a capture date held as a 14-digit number, read as a rule's
/// timestamp is ([`Date14::pad_up`]).
pub fn capture_seconds(date: u64) -> i64 {
    Date14::pad_up(&format!("{date:014}")).unix_seconds()
}

/// The 14-digit date (`YYYYMMDDhhmmss` as a number) of seconds since the epoch; 0 past
/// the year 9999.
pub fn seconds_date14(secs: i64) -> u64 {
    Date14::from_unix(secs).map_or(0, |d| d.number())
}

/// A period as pywb's `newer` and `older` name it: `{"years": 1, "months": 6}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Period {
    /// Whole years.
    pub years: i64,
    /// Whole months.
    pub months: i64,
    /// Whole weeks.
    pub weeks: i64,
    /// Whole days.
    pub days: i64,
}

impl Period {
    /// `now` (seconds since the epoch) less the period, as `now - relativedelta(...)`:
    /// years and months first, the day clamped to the month's length, then weeks and days.
    pub fn before(&self, now: i64) -> i64 {
        let (days, secs) = (now.div_euclid(86_400), now.rem_euclid(86_400));
        let (y, m, d) = civil_from_days(days);
        let months = y * 12 + (m - 1) - (self.years * 12 + self.months);
        let (y, m) = (months.div_euclid(12), months.rem_euclid(12) + 1);
        let d = d.min(days_in_month(y, m));
        (days_from_civil(y, m, d) - self.weeks * 7 - self.days) * 86_400 + secs
    }

    /// Reads `{"years": …, "months": …, "weeks": …, "days": …}` (each optional).
    pub fn from_json(v: &serde_json::Value) -> Result<Period, String> {
        let obj = v
            .as_object()
            .ok_or_else(|| format!("a period is an object such as {{\"days\": 365}}, not {v}"))?;
        let mut p = Period::default();
        for (k, n) in obj {
            let n = n
                .as_i64()
                .ok_or_else(|| format!("{k} must be a whole number, not {n}"))?;
            match k.as_str() {
                "years" => p.years = n,
                "months" => p.months = n,
                "weeks" => p.weeks = n,
                "days" => p.days = n,
                other => return Err(format!("unknown period field {other:?}")),
            }
        }
        Ok(p)
    }

    /// Reads `1y6m`, `2w`, `365d` (years, months, weeks, days; at least one).
    pub fn parse_short(s: &str) -> Result<Period, String> {
        let mut p = Period::default();
        let mut num = String::new();
        let mut any = false;
        for c in s.chars() {
            if c.is_ascii_digit() {
                num.push(c);
                continue;
            }
            let n: i64 = num
                .parse()
                .map_err(|_| format!("{s:?}: a period is numbers with y, m, w or d, as 1y6m"))?;
            num.clear();
            match c {
                'y' => p.years += n,
                'm' => p.months += n,
                'w' => p.weeks += n,
                'd' => p.days += n,
                _ => {
                    return Err(format!(
                        "{s:?}: a period is numbers with y, m, w or d, as 1y6m"
                    ))
                }
            }
            any = true;
        }
        if !num.is_empty() || !any {
            return Err(format!(
                "{s:?}: a period is numbers with y, m, w or d, as 1y6m"
            ));
        }
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_pad_up_as_warcio_does() {
        let at = |y, m, d, hh: i64, mm: i64, ss: i64| {
            days_from_civil(y, m, d) * 86_400 + hh * 3600 + mm * 60 + ss
        };
        let timestamp_seconds = |s| Date14::pad_up(s).unix_seconds();
        assert_eq!(
            timestamp_seconds("20141226095010"),
            at(2014, 12, 26, 9, 50, 10)
        );
        assert_eq!(
            timestamp_seconds("2014122609501"),
            at(2014, 12, 26, 9, 50, 59)
        );
        assert_eq!(timestamp_seconds("20141226"), at(2014, 12, 26, 23, 59, 59));
        assert_eq!(timestamp_seconds("201410"), at(2014, 10, 31, 23, 59, 59));
        assert_eq!(timestamp_seconds("2014"), at(2014, 12, 31, 23, 59, 59));
        assert_eq!(timestamp_seconds("201"), at(2019, 12, 31, 23, 59, 59));
        assert_eq!(timestamp_seconds(""), at(2999, 12, 31, 23, 59, 59));
        assert_eq!(
            timestamp_seconds("20130009005601"),
            at(2013, 1, 9, 0, 56, 1)
        );
        assert_eq!(timestamp_seconds("20130229"), at(2013, 2, 28, 23, 59, 59));
        assert_eq!(timestamp_seconds("19700101000000"), 0);
        assert_eq!(
            seconds_date14(timestamp_seconds("20240229235958")),
            20240229235958
        );
    }

    #[test]
    fn periods_subtract_months_first_then_days() {
        let at = |y, m, d| days_from_civil(y, m, d) * 86_400 + 3600;
        let p = |years, months, weeks, days| Period {
            years,
            months,
            weeks,
            days,
        };
        assert_eq!(p(0, 1, 0, 0).before(at(2024, 3, 31)), at(2024, 2, 29));
        assert_eq!(p(1, 0, 0, 0).before(at(2024, 2, 29)), at(2023, 2, 28));
        assert_eq!(p(0, 0, 1, 1).before(at(2024, 3, 1)), at(2024, 2, 22));
        assert_eq!(p(0, 14, 0, 0).before(at(2024, 1, 15)), at(2022, 11, 15));
        assert_eq!(Period::parse_short("1y6m2w3d"), Ok(p(1, 6, 2, 3)));
        assert!(Period::parse_short("1x").is_err() && Period::parse_short("12").is_err());
        for z in [-1000, 0, 19_000, 400_000] {
            let (y, m, d) = civil_from_days(z);
            assert_eq!(days_from_civil(y, m, d), z);
        }
    }
}
