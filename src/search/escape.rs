//! Escaping for HTML and XML output. Archived pages carry any bytes at all in their
//! titles and text, so every value goes through here on its way out.

/// Whether `c` may appear in an XML 1.0 document (the `Char` production): no control
/// characters but tab, newline and carriage return, no U+FFFE/U+FFFF. NutchWAX's
/// OpenSearch servlet strips the others too (docs/formats.md §4.11).
pub fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// Appends `s` to `out`, escaped for XML or HTML text and attribute values (both
/// quotes escaped), with characters illegal in XML dropped.
pub fn push_escaped(out: &mut String, s: &str) {
    for c in s.chars() {
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
}

/// `s` escaped for XML or HTML (see [`push_escaped`]).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    push_escaped(&mut out, s);
    out
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
