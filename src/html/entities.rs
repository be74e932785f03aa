//! HTML character references (`&amp;`, `&#233;`, `&eacute`), decoded as the WHATWG
//! tokenizer decodes them: our tokenizer hands text and attribute values over raw.

use std::borrow::Cow;

use super::entity_table::ENTITIES;

/// Where a reference stands: in attribute values a legacy name without `;` followed by
/// `=` or an alphanumeric stays as written (`?a=1&copy=2` is a query, not `©=2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Context {
    /// Text content (`Data` and `RCDATA`).
    Text,
    /// An attribute value.
    Attribute,
}

/// The longest name in the table (`CounterClockwiseContourIntegral;`).
const MAX_NAME: usize = 32;
/// The longest name that may appear without `;` (`frac34`, `middot`, ...).
const MAX_LEGACY_NAME: usize = 6;

/// What a reference stands for.
enum Replacement {
    Str(&'static str),
    Char(char),
}

/// `s` with every character reference replaced; borrowed when there is none.
pub(super) fn decode(s: &str, ctx: Context) -> Cow<'_, str> {
    if memchr::memchr(b'&', s.as_bytes()).is_none() {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    decode_into(s, ctx, &mut out);
    Cow::Owned(out)
}

/// Appends `s` to `out` with every character reference replaced.
pub(super) fn decode_into(s: &str, ctx: Context, out: &mut String) {
    let b = s.as_bytes();
    let mut copied = 0;
    let mut i = 0;
    while let Some(p) = memchr::memchr(b'&', &b[i..]) {
        let amp = i + p;
        match reference_at(s, amp + 1, ctx) {
            Some((r, end)) => {
                out.push_str(&s[copied..amp]);
                match r {
                    Replacement::Str(v) => out.push_str(v),
                    Replacement::Char(c) => out.push(c),
                }
                copied = end;
                i = end;
            }
            None => i = amp + 1,
        }
    }
    out.push_str(&s[copied..]);
}

/// The reference whose name starts at `start` (just after `&`) and where it ends.
fn reference_at(s: &str, start: usize, ctx: Context) -> Option<(Replacement, usize)> {
    let b = s.as_bytes();
    if b.get(start) == Some(&b'#') {
        return numeric_at(b, start + 1);
    }
    let run = b[start..]
        .iter()
        .take(MAX_NAME)
        .take_while(|c| c.is_ascii_alphanumeric())
        .count();
    if run == 0 {
        return None;
    }
    if b.get(start + run) == Some(&b';') {
        if let Some(v) = lookup(&s[start..start + run + 1]) {
            return Some((Replacement::Str(v), start + run + 1));
        }
    }
    // Without `;` only the legacy names count, and the longest one that prefixes the run
    // wins (`&notit;` is `¬it;`).
    for n in (2..=run.min(MAX_LEGACY_NAME)).rev() {
        if let Some(v) = lookup(&s[start..start + n]) {
            let next = b.get(start + n).copied();
            if ctx == Context::Attribute
                && next.is_some_and(|c| c == b'=' || c.is_ascii_alphanumeric())
            {
                return None;
            }
            return Some((Replacement::Str(v), start + n));
        }
    }
    None
}

/// `&#233;`, `&#xE9;` (the `;` optional), starting after `#`.
fn numeric_at(b: &[u8], start: usize) -> Option<(Replacement, usize)> {
    let (hex, digits_start) = match b.get(start) {
        Some(b'x' | b'X') => (true, start + 1),
        _ => (false, start),
    };
    let radix = if hex { 16 } else { 10 };
    let mut value: u32 = 0;
    let mut end = digits_start;
    while let Some(d) = b.get(end).and_then(|&c| (c as char).to_digit(radix)) {
        // Saturate: anything past U+10FFFF becomes U+FFFD whatever its length.
        value = value.saturating_mul(radix).saturating_add(d).min(0x11_0000);
        end += 1;
    }
    if end == digits_start {
        return None;
    }
    if b.get(end) == Some(&b';') {
        end += 1;
    }
    Some((Replacement::Char(numeric_char(value)), end))
}

/// The character a numeric reference stands for, with the spec's replacements: C1
/// controls are read as windows-1252 (pages written on Windows meant `&#147;` as `“`).
fn numeric_char(v: u32) -> char {
    const C1: [u16; 32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
        0x2039, 0x0152, 0x8D, 0x017D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013,
        0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ];
    match v {
        0 => '\u{FFFD}',
        0x80..=0x9F => char::from_u32(u32::from(C1[(v - 0x80) as usize])).unwrap_or('\u{FFFD}'),
        _ => char::from_u32(v).unwrap_or('\u{FFFD}'),
    }
}

fn lookup(name: &str) -> Option<&'static str> {
    ENTITIES
        .binary_search_by(|(n, _)| n.as_bytes().cmp(name.as_bytes()))
        .ok()
        .map(|i| ENTITIES[i].1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> String {
        decode(s, Context::Text).into_owned()
    }

    fn attr(s: &str) -> String {
        decode(s, Context::Attribute).into_owned()
    }

    #[test]
    fn table_is_sorted_for_binary_search() {
        assert!(ENTITIES
            .windows(2)
            .all(|w| w[0].0.as_bytes() < w[1].0.as_bytes()));
    }

    #[test]
    fn named_and_numeric() {
        assert_eq!(text("a &amp; b &lt;c&gt; &quot;"), "a & b <c> \"");
        assert_eq!(
            text("caf&eacute; caf&#233; caf&#xe9; caf&#XE9;"),
            "café café café café"
        );
        assert_eq!(text("&nbsp;"), "\u{A0}");
        assert_eq!(
            text("&rarr;&hellip;&CounterClockwiseContourIntegral;"),
            "→…∳"
        );
        assert_eq!(text("&NotEqualTilde;"), "\u{2242}\u{338}");
    }

    #[test]
    fn legacy_names_without_semicolon() {
        assert_eq!(text("&copy 2001 &amp co"), "© 2001 & co");
        assert_eq!(text("&notit; &notin;"), "¬it; ∉");
        assert_eq!(text("&eacutex"), "éx");
        // Not legacy: needs the semicolon.
        assert_eq!(text("&hellip x"), "&hellip x");
    }

    #[test]
    fn attribute_rule_keeps_query_strings() {
        assert_eq!(attr("/x?a=1&copy=2&amp;b=3"), "/x?a=1&copy=2&b=3");
        assert_eq!(attr("/x?a=1&amp=2"), "/x?a=1&amp=2");
        assert_eq!(attr("/x?a=1&copy;=2"), "/x?a=1©=2");
        assert_eq!(text("&copy=2"), "©=2");
    }

    #[test]
    fn numeric_edge_cases() {
        assert_eq!(
            text("&#0;&#xD800;&#x110000;&#99999999999999999999;"),
            "\u{FFFD}".repeat(4)
        );
        assert_eq!(text("&#147;q&#148; &#x80;"), "“q” €");
        assert_eq!(text("&#65&#66;"), "AB");
        assert_eq!(text("&#; &#x; &# &"), "&#; &#x; &# &");
        assert_eq!(text("&unknown; &;"), "&unknown; &;");
    }
}
