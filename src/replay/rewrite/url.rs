//! One URL found in an archived page, made to point back into the collection: resolved
//! against the page's base, then written in archival form at the page's date, so the
//! server answers with the capture nearest it. What is not a web URL (`#top`,
//! `javascript:`, `data:`, `mailto:`) is left as it is.

use crate::replay::archival_url::{format, Mode};

/// The archival form of the URLs of one page.
#[derive(Debug, Clone)]
pub struct UrlRewriter {
    /// What relative URLs resolve against: the page's URL, or its `<base href>`.
    pub base: url::Url,
    /// The page's capture date (14 digits): links ask for the capture nearest it.
    pub date: String,
    /// The view's path prefix (`/web`).
    pub prefix: String,
}

/// Schemes that load nothing from the web, kept as written.
const KEPT_SCHEMES: &[&str] = &["javascript:", "data:", "mailto:", "tel:", "about:", "blob:"];

impl UrlRewriter {
    /// `raw` in archival form for `mode`; `None` to keep it as written.
    pub fn rewrite(&self, raw: &str, mode: Mode) -> Option<String> {
        let t = raw.trim_matches(|c: char| c.is_ascii_whitespace());
        if t.is_empty() || t.starts_with('#') {
            return None;
        }
        let lower = t.get(..12).unwrap_or(t).to_ascii_lowercase();
        if KEPT_SCHEMES.iter().any(|s| lower.starts_with(s)) {
            return None;
        }
        // Already in archival form (a page saved from a Wayback, or rewritten twice).
        if t.starts_with(&format!("{}/", self.prefix)) {
            return None;
        }
        let abs = match self.base.join(t) {
            Ok(u) => u,
            // Unparseable: pointing it nowhere is safer than leaving a live-web reference.
            Err(_) => return Some(String::new()),
        };
        match abs.scheme() {
            "http" | "https" => Some(format(&self.prefix, &self.date, mode, abs.as_str())),
            // ftp: and the like: nothing the view can replay, and nothing to leave live.
            _ => Some(String::new()),
        }
    }

    /// A `srcset` (`url 1x, url 2x`) with each URL rewritten for `mode`.
    pub fn rewrite_srcset(&self, raw: &str, mode: Mode) -> String {
        raw.split(',')
            .map(|candidate| {
                let c = candidate.trim();
                let (u, descriptor) = match c.find(char::is_whitespace) {
                    Some(i) => (&c[..i], &c[i..]),
                    None => (c, ""),
                };
                let u = self.rewrite(u, mode).unwrap_or_else(|| u.to_string());
                format!("{u}{descriptor}")
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A `<meta http-equiv=refresh content="5; url=…">` value with its URL rewritten.
    pub fn rewrite_refresh(&self, raw: &str) -> Option<String> {
        let lower = raw.to_ascii_lowercase();
        let at = lower.find("url=")?;
        let url = raw[at + 4..].trim().trim_matches(['\'', '"']);
        let new = self.rewrite(url, Mode::Frame)?;
        Some(format!("{}{new}", &raw[..at + 4]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rw() -> UrlRewriter {
        UrlRewriter {
            base: url::Url::parse("http://example.org/docs/page.html").unwrap(),
            date: "20240115030000".into(),
            prefix: "/web".into(),
        }
    }

    #[test]
    fn relative_absolute_and_protocol_relative_urls() {
        let r = rw();
        assert_eq!(
            r.rewrite("style.css", Mode::Page).unwrap(),
            "/web/20240115030000mp_/http://example.org/docs/style.css"
        );
        assert_eq!(
            r.rewrite("/a/b?c=d#e", Mode::Frame).unwrap(),
            "/web/20240115030000/http://example.org/a/b?c=d#e"
        );
        assert_eq!(
            r.rewrite(" //cdn.example.net/x.png ", Mode::Page).unwrap(),
            "/web/20240115030000mp_/http://cdn.example.net/x.png"
        );
        assert_eq!(
            r.rewrite("https://other.org/", Mode::Frame).unwrap(),
            "/web/20240115030000/https://other.org/"
        );
    }

    #[test]
    fn kept_and_neutralised_urls() {
        let r = rw();
        for kept in [
            "#top",
            "",
            "javascript:void(0)",
            "data:image/png;base64,AA",
            "mailto:a@b.org",
            "/web/2007/http://x.org/",
        ] {
            assert_eq!(r.rewrite(kept, Mode::Page), None, "{kept}");
        }
        assert_eq!(
            r.rewrite("ftp://example.org/file", Mode::Frame).unwrap(),
            ""
        );
    }

    #[test]
    fn srcset_and_refresh() {
        let r = rw();
        assert_eq!(
            r.rewrite_srcset("a.png 1x, /b.png 2x", Mode::Page),
            "/web/20240115030000mp_/http://example.org/docs/a.png 1x, /web/20240115030000mp_/http://example.org/b.png 2x"
        );
        assert_eq!(
            r.rewrite_refresh("0; URL=http://example.org/new").unwrap(),
            "0; URL=/web/20240115030000/http://example.org/new"
        );
        assert_eq!(r.rewrite_refresh("30"), None);
    }
}
