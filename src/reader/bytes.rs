//! Byte-string helpers for header text: decoding, and trimming white space the way
//! warcio's Python `str.strip()` does (SP, HT, CR, LF, VT, FF).

use std::borrow::Cow;

/// Python's white space on ASCII: what `str.strip()` removes.
fn is_space(b: &u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c)
}

/// Decodes header bytes as UTF-8, or as Latin-1 when they are not UTF-8 (as warcio does).
pub fn decode(v: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(v) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(v.iter().map(|&b| b as char).collect()),
    }
}

/// Trims ASCII white space (SP, HT, CR, LF, FF, VT) from both ends.
pub fn trim(v: &[u8]) -> &[u8] {
    trim_end(trim_start(v))
}

/// Python's `str.lstrip()` on ASCII white space.
pub(crate) fn trim_start(v: &[u8]) -> &[u8] {
    let s = v.iter().position(|b| !is_space(b)).unwrap_or(v.len());
    &v[s..]
}

/// Python's `str.rstrip()` on ASCII white space.
pub(crate) fn trim_end(v: &[u8]) -> &[u8] {
    let end = v.iter().rposition(|b| !is_space(b)).map_or(0, |e| e + 1);
    &v[..end]
}

/// Removes trailing SP and HT only (RFC 9112's optional white space before a colon).
pub(crate) fn trim_end_sp_ht(v: &[u8]) -> &[u8] {
    let end = v
        .iter()
        .rposition(|b| !matches!(b, b' ' | b'\t'))
        .map_or(0, |e| e + 1);
    &v[..end]
}

/// Skips the blank lines (SP, HT, CR and LF) before a record header; unlike
/// [`trim_start`], a VT or FF is not blank here but text that is no header.
pub(crate) fn skip_blank_lines(v: &[u8]) -> &[u8] {
    let s = v
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
        .unwrap_or(v.len());
    &v[s..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_like_python() {
        assert_eq!(trim(b" \x0b a b \r\n"), b"a b");
        assert_eq!(trim(b" \t "), b"");
        assert_eq!(trim_start(b"\x0c x "), b"x ");
        assert_eq!(trim_end(b" x \x0c"), b" x");
        assert_eq!(trim_end_sp_ht(b"a \t\r"), b"a \t\r");
        assert_eq!(skip_blank_lines(b"\r\n \x0cWARC"), b"\x0cWARC");
        assert_eq!(decode(b"caf\xe9"), "caf\u{e9}");
    }
}
