//! Resolving the commonest links without the URL parser: on documentation and most
//! other sites nearly every link is a plain relative path (`../api/x.html#y`), and
//! `Url::join` (which re-parses and re-serializes the whole URL) cost a third of the
//! parse. And [`Outlink`], the link the extraction hands out (and a segment row stores).

use memchr::{memchr, memrchr};
use serde::{Deserialize, Serialize};
use url::{Position, Url};

/// A link found in a page: the target resolved against the page's base URL, and the
/// link's anchor text (white space collapsed).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outlink {
    /// Absolute target URL.
    pub url: String,
    /// Anchor text (may be empty).
    pub anchor: String,
}

impl Outlink {
    /// The links of `(url, anchor)` pairs, in order.
    pub fn list(pairs: &[(&str, &str)]) -> Vec<Outlink> {
        pairs
            .iter()
            .map(|(url, anchor)| Outlink {
                url: url.to_string(),
                anchor: anchor.to_string(),
            })
            .collect()
    }
}

/// `base.join(href)` with the fragment removed, serialized, when `href` is a plain
/// relative reference: a path of ASCII letters, digits and `-._~/` (not starting with
/// `//`), then optionally a query of printable ASCII but `"'<>`, then optionally a
/// fragment; and `base` is an http or https URL. `None` for anything else (the caller
/// then asks the URL parser).
///
/// For such references the WHATWG URL parser does nothing but this: the path is the
/// base's (up to its last `/`, or none for a path starting with `/`) followed by the
/// reference's segments, `.` and `..` segments applied; nothing is percent-encoded
/// (no character of the reference is in the path or special-query percent-encode
/// sets), and there is no `%`, `\`, `:`, tab or newline that it would treat
/// specially.
pub(super) fn join_plain(base: &Url, href: &str) -> Option<String> {
    if !matches!(base.scheme(), "http" | "https") {
        return None;
    }
    let href = memchr(b'#', href.as_bytes()).map_or(href, |i| &href[..i]);
    let (path, query) = match memchr(b'?', href.as_bytes()) {
        Some(i) => href.split_at(i),
        None => (href, ""),
    };
    let p = path.as_bytes();
    if p.is_empty() || p.starts_with(b"//") {
        return None;
    }
    if !p
        .iter()
        .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~' | b'/'))
    {
        return None;
    }
    if !query
        .bytes()
        .all(|c| c.is_ascii_graphic() && !matches!(c, b'"' | b'\'' | b'<' | b'>'))
    {
        return None;
    }
    let origin = &base[..Position::BeforePath];
    let base_path = &base[Position::BeforePath..Position::AfterPath];
    let mut out = String::with_capacity(origin.len() + base_path.len() + href.len());
    out.push_str(origin);
    let rel = match path.strip_prefix('/') {
        Some(rest) => {
            out.push('/');
            rest
        }
        None => {
            // The base's directory: its path without the last segment (a special URL's
            // path always starts with `/`).
            out.push_str(memrchr(b'/', base_path.as_bytes()).map_or("/", |i| &base_path[..=i]));
            path
        }
    };
    // `out` ends with `/` after each step but the last: the path is
    // `out[origin.len()..]`.
    let mut segments = rel.split('/').peekable();
    while let Some(seg) = segments.next() {
        let last = segments.peek().is_none();
        match seg {
            ".." => {
                // Drop the last segment, never the root.
                let path_len = out.len() - origin.len();
                if path_len > 1 {
                    let trimmed = &out.as_bytes()[..out.len() - 1];
                    let cut = memrchr(b'/', trimmed).map_or(out.len(), |i| i + 1);
                    out.truncate(cut.max(origin.len() + 1));
                }
            }
            "." => {}
            _ => {
                out.push_str(seg);
                if !last {
                    out.push('/');
                }
            }
        }
    }
    out.push_str(query);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the URL parser makes of it.
    fn reference(base: &Url, href: &str) -> Option<String> {
        let mut u = base.join(href).ok()?;
        u.set_fragment(None);
        Some(u.into())
    }

    #[test]
    fn plain_references_resolve_as_the_url_parser_does() {
        let bases = [
            "http://example.com/dir/page.html",
            "http://example.com/dir/sub/",
            "http://example.com/",
            "http://example.com",
            "https://user:pw@Example.COM:8443/a/b/c?q=1#frag",
            "http://example.com/a/b/c/d/e.html?x#y",
            "http://example.com/only",
            "http://127.0.0.1:8765/tutorial/index.html",
            "http://example.com//double//slash/x",
        ];
        let hrefs = [
            "a.html",
            "a/b/c.html",
            "a/",
            "a//b",
            "./a.html",
            ".",
            "./",
            "..",
            "../",
            "../a.html",
            "../../../../../../a.html",
            "a/../b",
            "a/./b",
            "a/..",
            "a/.",
            "/",
            "/a/b",
            "/a/../../b/",
            "/..",
            "...",
            ".../x",
            "..a/b..",
            "a.html#sec",
            "a.html#",
            "a.html?x=1&y=2",
            "a.html?",
            "a.html?x=%zz&y=a|b^c`d{e}",
            "a.html?x=1#f?g",
            "/?x",
            "-_~.",
            "A-Z/a_z/0~9",
        ];
        for b in bases {
            let base = Url::parse(b).unwrap();
            for h in hrefs {
                let fast =
                    join_plain(&base, h).unwrap_or_else(|| panic!("{b} + {h}: no fast path"));
                assert_eq!(Some(fast), reference(&base, h), "{b} + {h}");
            }
        }
    }

    #[test]
    fn anything_else_is_left_to_the_url_parser() {
        let base = Url::parse("http://example.com/dir/page.html").unwrap();
        for h in [
            "",
            "?q",
            "#f",
            "//other.example/x",
            "http://other.example/x",
            "http:x",
            "mailto:a@b",
            "a b",
            "a%2e",
            "%2e%2e/x",
            "a\\b",
            "a\tb",
            "caf\u{e9}.html",
            "a.html?q='x'",
            "a.html?q=\"x\"",
            "a.html?q=<x>",
            "a.html?q=x y",
            "a.html?q=\u{e9}",
            "a:b",
            "a@b",
            "a+b",
        ] {
            assert_eq!(join_plain(&base, h), None, "{h}");
        }
        let ftp = Url::parse("ftp://example.com/dir/").unwrap();
        assert_eq!(join_plain(&ftp, "a.html"), None);
        let file = Url::parse("file:///c:/dir/").unwrap();
        assert_eq!(join_plain(&file, "a.html"), None);
    }
}
