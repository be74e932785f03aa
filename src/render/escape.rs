//! Escaping for HTML and XML output. Archived pages carry any bytes at all in their
//! titles and text, so every value goes through here on its way out.

use crate::search::ascii_words::{HIGH, ONES};
use crate::search::Snippet;

/// Whether `c` may appear in an XML 1.0 document (the `Char` production): no control
/// characters but tab, newline and carriage return, no U+FFFE/U+FFFF. NutchWAX's
/// OpenSearch servlet strips the others too (docs/formats.md §4.11).
pub fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// Appends `s` to `out`, escaped for XML or HTML text and attribute values (both
/// quotes escaped), with characters illegal in XML dropped.
///
/// Runs of bytes that need nothing are copied whole: character by character this was 3 %
/// of a loaded server's cycles. A byte stops a run when it is markup, a control
/// character, or 0xEF, the first byte of U+FFFE and U+FFFF (every other character of two
/// or more bytes is legal: `str` holds no surrogates). Runs are stepped over eight bytes
/// at a time ([`stops_a_run`]): a byte at a time, that was still 2.3 % of the cycles, all
/// of it on the thread that writes every response.
pub fn push_escaped(out: &mut String, s: &str) {
    let b = s.as_bytes();
    let mut run = 0;
    let mut i = 0;
    while i < b.len() {
        while let Some(eight) = b.get(i..i + 8) {
            if stops_a_run(u64::from_le_bytes(eight.try_into().expect("eight bytes"))) {
                break;
            }
            i += 8;
        }
        let Some(&x) = b.get(i) else {
            break;
        };
        let plain = match x {
            b'&' | b'<' | b'>' | b'"' | b'\'' | 0xEF => false,
            b'\t' | b'\n' | b'\r' => true,
            _ => x >= 0x20,
        };
        if plain {
            i += 1;
            continue;
        }
        out.push_str(&s[run..i]);
        let c = s[i..]
            .chars()
            .next()
            .expect("a run stops on a character's first byte");
        push_escaped_char(out, c);
        i += c.len_utf8();
        run = i;
    }
    out.push_str(&s[run..]);
}

/// Whether any of the eight bytes of `x` may stop a run of [`push_escaped`]: below 0x20,
/// or one of `&<>"'` and 0xEF. Tab, newline and carriage return are below 0x20 but plain:
/// they send the word to the byte rule, which steps over them. Both tests are exact for
/// "any byte": `v - lo` borrows into a byte's high bit, with that bit clear in `v`, for
/// some byte exactly when some byte is below `lo` (a borrow only starts at such a byte);
/// equality is "below 1" after an XOR.
fn stops_a_run(x: u64) -> bool {
    let below = |v: u64, lo: u8| v.wrapping_sub(u64::from(lo) * ONES) & !v;
    let equal = |v: u8| below(x ^ (u64::from(v) * ONES), 1);
    let any = below(x, 0x20)
        | equal(b'&')
        | equal(b'<')
        | equal(b'>')
        | equal(b'"')
        | equal(b'\'')
        | equal(0xEF);
    any & HIGH != 0
}

/// One character as [`push_escaped`] writes it.
fn push_escaped_char(out: &mut String, c: char) {
    match c {
        '&' => out.push_str("&amp;"),
        '<' => out.push_str("&lt;"),
        '>' => out.push_str("&gt;"),
        '"' => out.push_str("&quot;"),
        '\'' => out.push_str("&#39;"),
        c if is_xml_char(c) => out.push(c),
        _ => {}
    }
}

/// `s` escaped for XML or HTML (see [`push_escaped`]).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    push_escaped(&mut out, s);
    out
}

/// A snippet's fragment as HTML: escaped, highlights in `<b>`.
pub fn snippet_html(s: &Snippet) -> String {
    s.render(push_escaped, "<b>", "</b>")
}

/// Whether `url` may be the target of a link: only `http://` and `https://` URLs (any
/// case). An archive holds captures of `javascript:`, `data:` and `vbscript:` URLs too;
/// as links they would run in the search page's origin when clicked.
pub fn is_web_url(url: &str) -> bool {
    let b = url.as_bytes();
    let starts = |p: &str| b.len() >= p.len() && b[..p.len()].eq_ignore_ascii_case(p.as_bytes());
    starts("http://") || starts("https://")
}

/// Percent-encodes `s` for a URL query value (RFC 3986 unreserved characters kept).
pub fn url_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule character by character, as `push_escaped` was first written.
    fn escaped_by_chars(s: &str) -> String {
        let mut out = String::new();
        s.chars().for_each(|c| push_escaped_char(&mut out, c));
        out
    }

    #[test]
    fn runs_escape_as_characters_do() {
        let pieces = [
            "a", "<", ">", "&", "\"", "'", "\u{0}", "\u{1b}", "\t", "\n", "\r", "\u{7f}", "é",
            "\u{fffe}", "\u{ffff}", "\u{fffd}", "\u{feff}", "\u{e000}", "𝄞", "ﬁ", " ",
        ];
        let mut rng = crate::test_rng::XorShift::new(0x9e37_79b9_7f4a_7c15);
        for _ in 0..2000 {
            let mut t = String::new();
            let seed = rng.next_u64();
            for k in 0..(seed % 24) {
                t.push_str(pieces[((seed >> (k % 40)) as usize + k as usize) % pieces.len()]);
            }
            assert_eq!(escape(&t), escaped_by_chars(&t), "{t:?}");
        }
    }

    #[test]
    fn every_ascii_byte_at_every_place_of_a_word_escapes_as_characters_do() {
        // Each ASCII byte, and characters of two to four bytes (0xEF-led ones among
        // them), at each offset across two words, in plain text of several lengths.
        let mut specials: Vec<String> = (0u8..0x80).map(|b| (b as char).to_string()).collect();
        specials
            .extend(["é", "\u{fffe}", "\u{ffff}", "\u{fffd}", "\u{feff}", "𝄞"].map(String::from));
        for special in &specials {
            for before in 0..17 {
                for after in [0, 1, 7, 8, 9] {
                    let t = format!("{}{special}{}", "a".repeat(before), "b".repeat(after));
                    assert_eq!(escape(&t), escaped_by_chars(&t), "{t:?}");
                }
            }
        }
        // Bytes at and around the tests' limits, where a borrow could mislead.
        for x in [
            0x1F, 0x20, 0x21, 0x25, 0x28, 0x3B, 0x3D, 0x3F, 0x7F, 0xC3, 0xEE, 0xF0,
        ] {
            let word = u64::from_le_bytes([x, b'a', 0x20, b'a', b'a', b'a', b'a', 0x7E]);
            let stops = x < 0x20 || b"&<>\"'\xEF".contains(&x);
            assert_eq!(stops_a_run(word), stops, "{x:#x}");
        }
    }

    #[test]
    fn a_snippet_with_impossible_ranges_renders_without_them() {
        let s = Snippet {
            text: "café au lait".into(),
            // Reversed, inside the é, past the end; then a good one.
            highlighted: vec![(5, 2), (4, 5), (9, 99), (9, 13)],
        };
        assert_eq!(snippet_html(&s), "café au <b>lait</b>");
    }

    #[test]
    fn escapes_and_strips() {
        assert_eq!(
            escape("<b>\"a\" & 'b'</b>\u{0}\u{1b}\u{fffe}ok\t"),
            "&lt;b&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/b&gt;ok\t"
        );
        assert_eq!(url_encode("a b&c=d/é"), "a%20b%26c%3Dd%2F%C3%A9");
        for u in ["http://a/", "HTTPS://a/b", "Http://x"] {
            assert!(is_web_url(u), "{u}");
        }
        for u in [
            "javascript:alert(1)",
            " http://a/",
            "data:,x",
            "vbscript:x",
            "ftp://a/",
            "http:/a",
            "",
        ] {
            assert!(!is_web_url(u), "{u}");
        }
    }
}
