//! Timestamps padded as warcio 1.7 pads them for pywb's `from=` and `to=` (`pad_timestamp`);
//! `closest=` is read by [`crate::date::Date14::pad_up`], which never fails, so that it
//! accepts any text as pywb does.

/// `from` is padded with this (`PAD_14_DOWN`), `to` with [`PAD_14_UP`].
pub(crate) const PAD_14_DOWN: &str = "10000101000000";
/// The padding of `to`.
pub(crate) const PAD_14_UP: &str = "29991231235959";

/// `pad_timestamp(s, pad)`: `s` followed by the part of `pad` past its length (in
/// characters, as Python counts).
pub(crate) fn pad_timestamp(s: &str, pad: &str) -> String {
    let len = s.chars().count();
    let mut out = s.to_string();
    out.extend(pad.chars().skip(len));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
