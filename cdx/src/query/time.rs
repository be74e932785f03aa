//! Timestamps as warcio 1.7 reads them for pywb: `pad_timestamp` and `timestamp_to_sec`,
//! which never fail (a field that is not a number becomes its largest value, every field
//! is clamped to its range), so `closest=` accepts any text as pywb does.

use super::params::python_int;

/// `from` is padded with this (`PAD_14_DOWN`), `to` with [`PAD_14_UP`].
pub(crate) const PAD_14_DOWN: &str = "10000101000000";
/// The padding of `to`.
pub(crate) const PAD_14_UP: &str = "29991231235959";
const PAD_6_UP: &str = "299912";

/// `pad_timestamp(s, pad)`: `s` followed by the part of `pad` past its length (in
/// characters, as Python counts).
pub(crate) fn pad_timestamp(s: &str, pad: &str) -> String {
    let len = s.chars().count();
    let mut out = s.to_string();
    out.extend(pad.chars().skip(len));
    out
}

/// `timestamp_to_sec(s)`: seconds since 1970 of the padded, clamped timestamp.
pub fn timestamp_to_sec(s: &str) -> i64 {
    let padded: Vec<char> = pad_timestamp(s, PAD_6_UP).chars().collect();
    let extract = |start: usize, end: usize, min: i64, max: i64| -> i64 {
        if padded.len() < end {
            return max;
        }
        let field: String = padded[start..end].iter().collect();
        match python_int(&field) {
            Some(v) => v.clamp(min, max),
            None => max,
        }
    };
    let year = extract(0, 4, 1900, 2999);
    let month = extract(4, 6, 1, 12);
    let day = extract(6, 8, 1, days_in_month(year, month));
    let hour = extract(8, 10, 0, 23);
    let minute = extract(10, 12, 0, 59);
    let second = extract(12, 14, 0, 59);
    days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
}

fn is_leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warcio_doctests() {
        assert_eq!(timestamp_to_sec("20131226095010"), 1_388_051_410);
        assert_eq!(timestamp_to_sec("2014"), 1_420_070_399);
        // 2014-12-26 09:50:59, 2014-10-31 23:59:59, 2999-12-31 23:59:59.
        assert_eq!(timestamp_to_sec("201412260950"), 1_419_587_459);
        assert_eq!(timestamp_to_sec("201410"), 1_414_799_999);
        assert_eq!(timestamp_to_sec(""), 32_503_679_999);
        assert_eq!(timestamp_to_sec("3"), 32_503_679_999);
        // Bad month clamped to 12: 2013-12-09 00:56:01.
        assert_eq!(timestamp_to_sec("20131709005601"), 1_386_550_561);
        // Not a number: 2010-12-31 23:59:59.
        assert_eq!(timestamp_to_sec("2010abc"), 1_293_839_999);
        // 2999-12-31 23:24:59.
        assert_eq!(timestamp_to_sec("40001965252477"), 32_503_677_899);
        // February clamps its day: 2020-02-29.
        assert_eq!(timestamp_to_sec("20200231"), 1_583_020_799);
    }

    #[test]
    fn padding() {
        assert_eq!(pad_timestamp("2014", PAD_14_DOWN), "20140101000000");
        assert_eq!(pad_timestamp("2014", PAD_14_UP), "20141231235959");
        assert_eq!(
            pad_timestamp("201401011234567", PAD_14_UP),
            "201401011234567"
        );
    }
}
