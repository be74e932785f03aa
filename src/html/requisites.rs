//! A page's requisites: the URLs a browser loads to show it (stylesheets, scripts,
//! images, fonts, media, frames), resolved against the page's base, in document order,
//! without repeats. An export holds them beside the page so that it replays styled
//! (src/export/requisites.rs). Links a reader follows (`<a href>`, forms) are not
//! requisites, nor `<link>`s that load nothing (`canonical`, `alternate`, `next`).
//! CSS's own requisites (`url(…)`, `@import`) come from [`css_urls`].

use std::cell::RefCell;
use std::sync::LazyLock;

use lol_html::{element, text, HtmlRewriter, MemorySettings, Settings};
use regex::bytes::Regex;
use url::Url;

/// Requisites of one page kept at most: a page listing more is cut there.
pub const MAX_REQUISITES: usize = 500;

/// The parser's memory bound (lol_html buffers one tag or text run at most).
const PARSER_MEMORY: usize = 4 << 20;

/// `(element, attribute)` pairs whose value is a URL the page loads.
const LOADED: &[(&str, &str)] = &[
    ("img", "src"),
    ("script", "src"),
    ("iframe", "src"),
    ("frame", "src"),
    ("source", "src"),
    ("video", "src"),
    ("video", "poster"),
    ("audio", "src"),
    ("track", "src"),
    ("embed", "src"),
    ("object", "data"),
    ("input", "src"),
    ("body", "background"),
    ("table", "background"),
    ("td", "background"),
    ("th", "background"),
    ("image", "href"),
    ("image", "xlink:href"),
];

/// `<link rel>` values that make the browser load the link.
const LOADED_RELS: &[&str] = &[
    "stylesheet",
    "icon",
    "shortcut",
    "apple-touch-icon",
    "preload",
    "modulepreload",
    "prefetch",
    "manifest",
];

/// `url(x)`, `url("x")`, `url('x')`, and `@import "x"` / `@import 'x'` (the same forms
/// the capture view rewrites).
pub static CSS_URL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)(url\(\s*)(?:"([^"]*)"|'([^']*)'|([^)'"\s]*))(\s*\))|(@import\s*)(?:"([^"]*)"|'([^']*)')"#,
    )
    .expect("a valid pattern")
});

/// The URLs a stylesheet loads, as written (`url(…)` and `@import`).
pub fn css_urls(css: &[u8]) -> Vec<String> {
    CSS_URL
        .captures_iter(css)
        .filter_map(|c| {
            [2, 3, 4, 7, 8]
                .iter()
                .find_map(|&i| c.get(i))
                .and_then(|m| std::str::from_utf8(m.as_bytes()).ok())
                .map(str::to_string)
        })
        .collect()
}

/// The requisites of the HTML page `html` (UTF-8 or an ASCII-compatible encoding: only
/// URLs are read) whose address is `base`.
pub fn html_requisites(html: &[u8], base: &Url) -> Vec<String> {
    let found = RefCell::new(Found {
        base: base.clone(),
        urls: Vec::new(),
    });
    let style = RefCell::new(Vec::<u8>::new());
    let settings = Settings::new()
        .with_strict(false)
        .with_memory_settings(MemorySettings::new().with_max_allowed_memory_usage(PARSER_MEMORY))
        .append_element_content_handler(element!("*", |el| {
            let tag = el.tag_name();
            let mut f = found.borrow_mut();
            if tag == "base" {
                if let Some(b) = el.get_attribute("href").and_then(|h| f.base.join(&h).ok()) {
                    f.base = b;
                }
                return Ok(());
            }
            if tag == "link" {
                let rel = el
                    .get_attribute("rel")
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                if rel
                    .split_ascii_whitespace()
                    .any(|r| LOADED_RELS.contains(&r))
                {
                    if let Some(href) = el.get_attribute("href") {
                        f.add(&href);
                    }
                }
            }
            for &(t, attr) in LOADED {
                if t == tag {
                    if let Some(v) = el.get_attribute(attr) {
                        f.add(&v);
                    }
                }
            }
            for attr in ["srcset", "imagesrcset"] {
                if let Some(v) = el.get_attribute(attr) {
                    for candidate in v.split(',') {
                        if let Some(u) = candidate.split_ascii_whitespace().next() {
                            f.add(u);
                        }
                    }
                }
            }
            if let Some(css) = el.get_attribute("style") {
                for u in css_urls(css.as_bytes()) {
                    f.add(&u);
                }
            }
            Ok(())
        }))
        .append_element_content_handler(text!("style", |t| {
            let mut s = style.borrow_mut();
            if s.len() < PARSER_MEMORY {
                s.extend_from_slice(t.as_str().as_bytes());
            }
            if t.last_in_text_node() {
                for u in css_urls(&s) {
                    found.borrow_mut().add(&u);
                }
                s.clear();
            }
            Ok(())
        }));
    {
        let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
        // Past the parser's bound the page is read no further: what was found stands.
        if rewriter.write(html).is_ok() {
            let _ = rewriter.end();
        }
    }
    found.into_inner().urls
}

/// The URLs found so far and what they resolve against.
struct Found {
    base: Url,
    urls: Vec<String>,
}

impl Found {
    fn add(&mut self, raw: &str) {
        if self.urls.len() >= MAX_REQUISITES {
            return;
        }
        let Some(url) = resolve(&self.base, raw) else {
            return;
        };
        if !self.urls.contains(&url) {
            self.urls.push(url);
        }
    }
}

/// `raw` resolved against `base`, without its fragment; `None` for what loads nothing
/// from the web (`data:`, `javascript:`, an empty value, a fragment alone).
pub fn resolve(base: &Url, raw: &str) -> Option<String> {
    let t = raw.trim_matches(|c: char| c.is_ascii_whitespace());
    if t.is_empty() || t.starts_with('#') {
        return None;
    }
    let mut u = base.join(t).ok()?;
    if !matches!(u.scheme(), "http" | "https") {
        return None;
    }
    u.set_fragment(None);
    Some(u.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_page_loads_and_not_what_it_links_to() {
        let html = br#"<html><head><base href="/docs/">
<link rel="stylesheet" href="site.css"><link rel=canonical href="/other">
<link rel="icon" href="/favicon.ico"><script src="app.js"></script>
<style>body { background: url('img/bg.png') } @import "print.css";</style></head>
<body><a href="page2.html">next</a><img src="a.png" srcset="a-2x.png 2x, a-3x.png 3x">
<div style="background-image: url(tile.gif)"></div><img src="data:image/png;base64,AA">
<img src="a.png#again"><iframe src="https://other.example/frame.html"></iframe></body></html>"#;
        let base = Url::parse("https://example.org/index.html").unwrap();
        let got = html_requisites(html, &base);
        let want = [
            "https://example.org/docs/site.css",
            "https://example.org/favicon.ico",
            "https://example.org/docs/app.js",
            "https://example.org/docs/img/bg.png",
            "https://example.org/docs/print.css",
            "https://example.org/docs/a.png",
            "https://example.org/docs/a-2x.png",
            "https://example.org/docs/a-3x.png",
            "https://example.org/docs/tile.gif",
            "https://other.example/frame.html",
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn a_stylesheets_urls() {
        let css = b"@import 'base.css'; @font-face { src: url(\"f.woff2\") } a { b: url( x.png ) }";
        assert_eq!(css_urls(css), ["base.css", "f.woff2", "x.png"]);
    }

    #[test]
    fn a_page_listing_too_many_is_cut() {
        let mut html = String::new();
        for i in 0..(MAX_REQUISITES + 50) {
            html.push_str(&format!("<img src=\"i{i}.png\">"));
        }
        let base = Url::parse("http://example.org/").unwrap();
        assert_eq!(
            html_requisites(html.as_bytes(), &base).len(),
            MAX_REQUISITES
        );
    }
}
