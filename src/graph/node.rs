//! What a link's ends become at each level (a URL, a host, a registered domain), and
//! the anchor text an edge keeps. Every name and anchor that leaves here is safe in a
//! sort line (no `\x00`, `\x01`, `\n`) and in XML 1.0 (no character XML forbids), so
//! that the writers never alter a name and two names never become one.

use std::borrow::Cow;
use std::fmt::Write as _;

use url::{Host, Url};

use super::GraphLevel;

/// Bytes of one anchor text kept (cut at a character boundary): ten of them joined by
/// `" | "` stay within [`super::MAX_ANCHOR_BYTES`].
pub const ANCHOR_BYTES: usize = 96;

/// Whether `c` cannot stand in a name as it is: a control character (XML 1.0 allows
/// only tab, line feed and carriage return of them, and the sort lines none) or one of
/// the two noncharacters XML 1.0 forbids.
fn unsafe_char(c: char) -> bool {
    c.is_control() || c == '\u{FFFE}' || c == '\u{FFFF}'
}

/// `s` with every unsafe character percent-encoded (its UTF-8 bytes, `%07`), as a
/// browser sends it: the same URL for a server, and a name XML and sort lines can hold.
pub fn safe_name(s: &str) -> Cow<'_, str> {
    if !s.chars().any(unsafe_char) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if unsafe_char(c) {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                let _ = write!(out, "%{b:02X}");
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The node a URL is at `level`, or `None` when the URL is no http or https URL with a
/// host (`mailto:`, `javascript:`, `dns:`, unparseable): such links are skipped.
///
/// - page: the URL as the segment stores it (targets are already resolved against
///   their page and without fragment), unsafe characters percent-encoded;
/// - host: the host in lower case, without port or user (an IPv6 address in brackets);
///   `www.` is kept;
/// - domain: the registered domain (the public suffix and one label more, by the Public
///   Suffix List of the `psl` crate, private suffixes included, an unlisted top-level
///   label counted as a suffix); an IP address, or a host that is itself a public
///   suffix or has a single label, keeps its host.
pub fn node_of(url: &str, level: GraphLevel) -> Option<String> {
    let parsed = Url::parse(url).ok()?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return None;
    }
    let host = parsed.host()?;
    let name = match (level, host) {
        (GraphLevel::Page, _) => return Some(safe_name(url).into_owned()),
        (_, Host::Ipv4(a)) => a.to_string(),
        (_, Host::Ipv6(a)) => format!("[{a}]"),
        (GraphLevel::Host, Host::Domain(d)) => d.to_ascii_lowercase(),
        (GraphLevel::Domain, Host::Domain(d)) => {
            let d = d.to_ascii_lowercase();
            match psl::domain_str(&d) {
                Some(reg) => reg.to_string(),
                None => d,
            }
        }
    };
    Some(safe_name(&name).into_owned())
}

/// An anchor text as an edge keeps it: white space collapsed to single spaces and
/// trimmed, control characters dropped, cut to [`ANCHOR_BYTES`] bytes at a character
/// boundary (and trimmed again); empty when nothing is left.
pub fn anchor_text(anchor: &str) -> String {
    let mut out = String::with_capacity(anchor.len().min(ANCHOR_BYTES + 4));
    for word in anchor.split_whitespace() {
        let mut kept = word.chars().filter(|&c| !unsafe_char(c)).peekable();
        if kept.peek().is_none() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(kept);
        if out.len() > ANCHOR_BYTES {
            break;
        }
    }
    if out.len() > ANCHOR_BYTES {
        let mut cut = ANCHOR_BYTES;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_at_each_level() {
        let u = "http://User@WWW.Example.co.uk:8080/a?b=1&c=\"2\"";
        assert_eq!(node_of(u, GraphLevel::Page).unwrap(), u);
        assert_eq!(node_of(u, GraphLevel::Host).unwrap(), "www.example.co.uk");
        assert_eq!(node_of(u, GraphLevel::Domain).unwrap(), "example.co.uk");
        let ip = "https://192.168.0.1/x";
        assert_eq!(node_of(ip, GraphLevel::Domain).unwrap(), "192.168.0.1");
        assert_eq!(
            node_of("http://[::1]:80/", GraphLevel::Domain).unwrap(),
            "[::1]"
        );
        assert_eq!(
            node_of("http://localhost/", GraphLevel::Domain).unwrap(),
            "localhost"
        );
        assert_eq!(
            node_of("http://a.b.example.org/", GraphLevel::Domain).unwrap(),
            "example.org"
        );
        for skipped in [
            "mailto:a@example.org",
            "javascript:void(0)",
            "ftp://x/",
            "nope",
        ] {
            for level in [GraphLevel::Page, GraphLevel::Host, GraphLevel::Domain] {
                assert_eq!(node_of(skipped, level), None, "{skipped}");
            }
        }
    }

    #[test]
    fn unsafe_characters_are_percent_encoded() {
        assert_eq!(
            safe_name("http://a/\u{7}b\u{FFFF}"),
            "http://a/%07b%EF%BF%BF"
        );
        assert!(matches!(safe_name("http://a/é"), Cow::Borrowed(_)));
    }

    #[test]
    fn anchors_are_collapsed_and_cut() {
        assert_eq!(anchor_text("  Latest \n\t news \u{7} "), "Latest news");
        assert_eq!(anchor_text(" \u{7} "), "");
        assert_eq!(anchor_text("a \u{7} b"), "a b");
        let long = "é".repeat(100);
        let cut = anchor_text(&long);
        assert_eq!(cut.len(), ANCHOR_BYTES);
        let words = "word ".repeat(40);
        let cut = anchor_text(&words);
        assert!(cut.len() <= ANCHOR_BYTES && !cut.ends_with(' '), "{cut:?}");
    }
}
