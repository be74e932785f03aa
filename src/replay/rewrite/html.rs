//! An archived HTML page rewritten while it streams (lol_html, Cloudflare's streaming
//! rewriter): every URL that loads something or navigates points back into the
//! collection (`url.rs`), CSS in `style` attributes and elements is rewritten (`css.rs`),
//! links open at the top (so the banner follows them), and what would defeat the
//! rewriting is removed: subresource `integrity` (the rewritten stylesheet's hash differs)
//! and the page's own Content-Security-Policy `<meta>`.

use std::cell::RefCell;
use std::io::{self, Read};
use std::rc::Rc;

use encoding_rs::Encoding;
use lol_html::html_content::{ContentType, Element, TextChunk};
use lol_html::{element, text, AsciiCompatibleEncoding, HtmlRewriter, MemorySettings, Settings};

use super::css::rewrite_css;
use super::url::UrlRewriter;
use crate::replay::archival_url::Mode;

/// The parser's memory bound per page (lol_html buffers a tag or a text run at most).
const PARSER_MEMORY: usize = 4 << 20;
/// The most text of one `<style>` element gathered to rewrite; a longer one is passed on
/// as it is from there.
const MAX_STYLE: usize = 1 << 20;

/// `(element, attribute, mode)`: the attributes holding a URL.
const URL_ATTRS: &[(&str, &str, Mode)] = &[
    ("a", "href", Mode::Frame),
    ("area", "href", Mode::Frame),
    ("form", "action", Mode::Frame),
    ("link", "href", Mode::Page),
    ("img", "src", Mode::Page),
    ("script", "src", Mode::Page),
    ("iframe", "src", Mode::Page),
    ("frame", "src", Mode::Page),
    ("source", "src", Mode::Page),
    ("video", "src", Mode::Page),
    ("video", "poster", Mode::Page),
    ("audio", "src", Mode::Page),
    ("track", "src", Mode::Page),
    ("embed", "src", Mode::Page),
    ("object", "data", Mode::Page),
    ("input", "src", Mode::Page),
    ("body", "background", Mode::Page),
    ("table", "background", Mode::Page),
    ("td", "background", Mode::Page),
    ("th", "background", Mode::Page),
    ("image", "href", Mode::Page),
    ("image", "xlink:href", Mode::Page),
    ("use", "href", Mode::Page),
    ("use", "xlink:href", Mode::Page),
];

/// Rewrites the HTML read from `input` (in `encoding`), handing the output to `sink` as
/// it is produced. Stops at the first error of `sink` (the client went away) and returns
/// it; input the parser cannot hold (a tag over [`PARSER_MEMORY`]) ends the page there.
pub fn rewrite_html(
    input: &mut dyn Read,
    encoding: &'static Encoding,
    rw: UrlRewriter,
    sink: &mut dyn FnMut(&[u8]) -> io::Result<()>,
) -> io::Result<()> {
    let rw = Rc::new(RefCell::new(rw));
    let (r_el, r_style) = (Rc::clone(&rw), Rc::clone(&rw));
    let style_text: Rc<RefCell<Option<String>>> = Rc::new(RefCell::new(Some(String::new())));
    let settings = base_settings(encoding)
        .append_element_content_handler(element!("*", move |el| {
            on_element(&r_el, el);
            Ok(())
        }))
        .append_element_content_handler(text!("style", move |t| {
            on_style_text(&r_style, &style_text, t);
            Ok(())
        }));
    stream(settings, input, sink)
}

/// Streams `input` through lol_html with `settings` into `sink`. Past the parser's memory
/// limit, what was written stands and the rest is not sent.
pub(super) fn stream(
    settings: Settings<'_, '_>,
    input: &mut dyn Read,
    sink: &mut dyn FnMut(&[u8]) -> io::Result<()>,
) -> io::Result<()> {
    let failed: RefCell<Option<io::Error>> = RefCell::new(None);
    let mut rewriter = HtmlRewriter::new(settings, |out: &[u8]| {
        if failed.borrow().is_none() {
            if let Err(e) = sink(out) {
                *failed.borrow_mut() = Some(e);
            }
        }
    });
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = input.read(&mut buf)?;
        if n == 0 {
            break;
        }
        if rewriter.write(&buf[..n]).is_err() {
            return failed.into_inner().map_or(Ok(()), Err);
        }
        if let Some(e) = failed.borrow_mut().take() {
            return Err(e);
        }
    }
    let _ = rewriter.end();
    failed.into_inner().map_or(Ok(()), Err)
}

/// The parser settings every pass over an archived page starts from: lenient, its
/// memory bounded, in the page's encoding.
pub(super) fn base_settings<'h, 's>(encoding: &'static Encoding) -> Settings<'h, 's> {
    let settings = Settings::new()
        .with_strict(false)
        .with_memory_settings(MemorySettings::new().with_max_allowed_memory_usage(PARSER_MEMORY));
    match AsciiCompatibleEncoding::new(encoding) {
        Some(e) => settings.with_encoding(e),
        None => settings,
    }
}

fn on_element(rw: &Rc<RefCell<UrlRewriter>>, el: &mut Element<'_, '_>) {
    let tag = el.tag_name();
    if tag == "base" {
        if let Some(href) = el.get_attribute("href") {
            let mut r = rw.borrow_mut();
            if let Ok(b) = r.base.join(href.trim()) {
                r.base = b;
            }
            let new = r.rewrite(&href, Mode::Page).unwrap_or_default();
            let _ = el.set_attribute("href", &new);
        }
        return;
    }
    if tag == "meta" {
        let equiv = el
            .get_attribute("http-equiv")
            .unwrap_or_default()
            .to_ascii_lowercase();
        if equiv.starts_with("content-security-policy") {
            el.remove();
            return;
        }
        if equiv == "refresh" {
            if let Some(new) = el
                .get_attribute("content")
                .and_then(|c| rw.borrow().rewrite_refresh(&c))
            {
                let _ = el.set_attribute("content", &new);
            }
        }
        return;
    }
    let r = rw.borrow();
    for &(t, attr, mode) in URL_ATTRS {
        if t != tag {
            continue;
        }
        if let Some(v) = el.get_attribute(attr) {
            if let Some(new) = r.rewrite(&v, mode) {
                let _ = el.set_attribute(attr, &new);
            }
        }
    }
    for attr in ["srcset", "imagesrcset"] {
        if let Some(v) = el.get_attribute(attr) {
            let _ = el.set_attribute(attr, &r.rewrite_srcset(&v, Mode::Page));
        }
    }
    if let Some(style) = el.get_attribute("style") {
        if let std::borrow::Cow::Owned(new) = rewrite_css(style.as_bytes(), &r) {
            let _ = el.set_attribute("style", &String::from_utf8_lossy(&new));
        }
    }
    el.remove_attribute("integrity");
    // Links and forms open at the top, where the banner is (unless the page says where).
    if matches!(tag.as_str(), "a" | "area" | "form") && !el.has_attribute("target") {
        let _ = el.set_attribute("target", "_top");
    }
}

/// Gathers a `<style>` element's text (lol_html hands it over in pieces) and writes it
/// back rewritten in place of its last piece.
fn on_style_text(
    rw: &Rc<RefCell<UrlRewriter>>,
    gathered: &Rc<RefCell<Option<String>>>,
    t: &mut TextChunk<'_>,
) {
    let mut g = gathered.borrow_mut();
    let Some(text) = g.as_mut() else {
        // Over the bound: the rest of this element goes out as it is.
        if t.last_in_text_node() {
            *g = Some(String::new());
        }
        return;
    };
    text.push_str(t.as_str());
    if text.len() > MAX_STYLE {
        let all = std::mem::take(text);
        t.replace(&all, ContentType::Html);
        *g = if t.last_in_text_node() {
            Some(String::new())
        } else {
            None
        };
        return;
    }
    if !t.last_in_text_node() {
        t.remove();
        return;
    }
    let all = std::mem::take(text);
    let new = rewrite_css(all.as_bytes(), &rw.borrow()).into_owned();
    t.replace(&String::from_utf8_lossy(&new), ContentType::Html);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(html: &str) -> String {
        let rw = UrlRewriter {
            base: url::Url::parse("http://example.org/docs/index.html").unwrap(),
            date: "20240115030000".into(),
            prefix: "/web".into(),
        };
        let mut out = Vec::new();
        // Fed in small pieces, so tags and style text are split across writes.
        let mut input = Pieces(html.as_bytes(), 7);
        rewrite_html(&mut input, encoding_rs::UTF_8, rw, &mut |b| {
            out.extend_from_slice(b);
            Ok(())
        })
        .unwrap();
        String::from_utf8(out).unwrap()
    }

    struct Pieces<'a>(&'a [u8], usize);
    impl Read for Pieces<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.0.len().min(self.1).min(out.len());
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn rewrites_links_embeds_styles_and_base() {
        let out = run(concat!(
            "<html><head><meta http-equiv=Content-Security-Policy content=\"default-src *\">",
            "<link rel=stylesheet href=\"s.css\" integrity=\"sha384-x\">",
            "<style>body{background:url(bg.png)}</style></head>",
            "<body><a href=\"/about\">About</a> <a href=\"#x\" target=\"_self\">x</a>",
            "<img src=\"//cdn.example.net/i.png\" srcset=\"a.png 2x\" style=\"background:url('b.png')\">",
            "<base href=\"http://other.org/sub/\"><img src=\"c.png\"></body></html>"
        ));
        let want = concat!(
            "<html><head>",
            "<link rel=stylesheet href=\"/web/20240115030000mp_/http://example.org/docs/s.css\">",
            "<style>body{background:url(/web/20240115030000mp_/http://example.org/docs/bg.png)}</style></head>",
            "<body><a href=\"/web/20240115030000/http://example.org/about\" target=\"_top\">About</a> <a href=\"#x\" target=\"_self\">x</a>",
            "<img src=\"/web/20240115030000mp_/http://cdn.example.net/i.png\" srcset=\"/web/20240115030000mp_/http://example.org/docs/a.png 2x\" style=\"background:url('/web/20240115030000mp_/http://example.org/docs/b.png')\">",
            "<base href=\"/web/20240115030000mp_/http://other.org/sub/\"><img src=\"/web/20240115030000mp_/http://other.org/sub/c.png\"></body></html>"
        );
        assert_eq!(out, want);
    }

    #[test]
    fn a_sink_error_stops_the_page() {
        let rw = UrlRewriter {
            base: url::Url::parse("http://example.org/").unwrap(),
            date: "20240115030000".into(),
            prefix: "/web".into(),
        };
        let page = "<p>x</p>".repeat(10_000);
        let mut calls = 0;
        let r = rewrite_html(&mut page.as_bytes(), encoding_rs::UTF_8, rw, &mut |_| {
            calls += 1;
            Err(io::Error::new(io::ErrorKind::BrokenPipe, "gone"))
        });
        assert_eq!(r.unwrap_err().kind(), io::ErrorKind::BrokenPipe);
        assert_eq!(calls, 1);
    }
}
