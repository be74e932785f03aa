//! What the full-text index needs from an archived HTML page: title, visible text,
//! outlinks with anchor text, robots directives and the charset (Nutch's parse-html).
//!
//! The payload is decoded to UTF-8 with the encoding chosen by [`detect_charset`]
//! (borrowed, not copied, when it already is UTF-8 or ASCII) and read by a tokenizer
//! of our own (`tokenizer.rs`) that finds exactly the text, tags and element ends
//! lol_html 3.0 found (the extraction was built on lol_html first; a rewriter
//! serializes every token and runs a selector engine on every element, which cost
//! more than half the parse). Text and attribute values come out raw, so character
//! references are decoded here.
//!
//! One job a module: `handler.rs` tells what each element and text node means for the
//! extraction, `outlinks.rs` collects the links and their anchor text (`links.rs`
//! resolves the commonest ones fast), `text_sink.rs` collapses white space into capped
//! text, and `main_content.rs` tells the main content from the page chrome. The test
//! oracles (the lol_html and html5ever reference extractions) are in `tests/`.

mod charset;
mod entities;
mod entity_table;
mod handler;
mod links;
mod main_content;
mod outlinks;
pub mod requisites;
mod text_sink;
mod tokenizer;

use encoding_rs::Encoding;
use url::Url;

use handler::State;
pub use links::Outlink;
use text_sink::TextSink;

/// Robots directives from `<meta name="robots">` (and X-Robots-Tag passed in by the
/// caller later).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Robots {
    /// `noindex` (or `none`): the page asked not to be indexed.
    pub noindex: bool,
    /// `nofollow` (or `none`): the page asked that its links not be followed.
    pub nofollow: bool,
    /// `noarchive`: the page asked not to be shown from a cache.
    pub noarchive: bool,
}

impl Robots {
    /// Adds the directives of a robots value (`noindex, nofollow`), case-insensitive;
    /// unknown tokens are ignored.
    pub fn add(&mut self, value: &str) {
        for tok in value
            .split(|c: char| c == ',' || c.is_ascii_whitespace())
            .filter(|t| !t.is_empty())
        {
            if tok.eq_ignore_ascii_case("noindex") {
                self.noindex = true;
            } else if tok.eq_ignore_ascii_case("nofollow") {
                self.nofollow = true;
            } else if tok.eq_ignore_ascii_case("noarchive") {
                self.noarchive = true;
            } else if tok.eq_ignore_ascii_case("none") {
                self.noindex = true;
                self.nofollow = true;
            }
        }
    }
}

/// Where the charset came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CharsetSource {
    /// The HTTP Content-Type `charset` parameter.
    Http,
    /// A byte order mark (it wins over HTTP, as in the WHATWG decode algorithm).
    Bom,
    /// `<meta charset>` or `<meta http-equiv=Content-Type>` in the first 1024 bytes.
    Meta,
    /// chardetng's guess from the bytes.
    Detected,
    /// Nothing to go on (the bytes are all ASCII): windows-1252.
    #[default]
    Default,
}

/// The parsed page.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParsedHtml {
    /// The first HTML `<title>`, white space collapsed and trimmed; `None` if absent or
    /// empty.
    pub title: Option<String>,
    /// Visible text: no `<script>`, `<style>`, `<noscript>`, `<template>`, `<title>`
    /// or comments; white space runs collapsed to one space; block boundaries (`p`,
    /// `div`, `br`, `li`, `h1`–`h6`, `tr`, `td`, ...) separate words; capped at the
    /// limit in bytes, cut on a char boundary.
    pub text: String,
    /// `<a href>`, `<area href>`, `<frame src>` and `<iframe src>` targets in document
    /// order, resolved against the base URL (the document URL, or an earlier
    /// `<base href>`), fragment removed; only http, https and ftp targets; anchor =
    /// the link's text, or the alt text of its images (or of the `<area>`).
    pub outlinks: Vec<Outlink>,
    /// Directives from `<meta name="robots">`.
    pub robots: Robots,
    /// The encoding_rs name of the charset used (`UTF-8`, `windows-1252`, ...).
    pub charset: &'static str,
    /// Where the charset came from.
    pub charset_source: CharsetSource,
    /// `text` hit the limit.
    pub truncated: bool,
}

/// At most this many outlinks per page: a link farm page must not grow a segment row
/// without bound.
pub const MAX_OUTLINKS: usize = 10_000;
/// Cap in bytes on each anchor text.
pub const MAX_ANCHOR: usize = 1024;
/// Cap in bytes on the title.
pub const MAX_TITLE: usize = 1024;
/// Size of the pieces `text/plain` payloads are decoded in.
const DECODE_CHUNK: usize = 64 * 1024;
/// Longest `href` worth resolving: longer ones are inline data, not links.
const MAX_HREF: usize = 64 * 1024;
/// The most bytes of a `<noscript>`'s content parsed for links.
pub(super) const MAX_NOSCRIPT: usize = 1 << 20;

/// The charset decision alone: BOM, HTTP `charset`, `<meta>` prescan, chardetng (with
/// the URL's top-level domain as a hint), windows-1252.
pub fn detect_charset(
    body: &[u8],
    content_type: Option<&str>,
    url: Option<&str>,
) -> (&'static Encoding, CharsetSource) {
    let tld = url
        .and_then(|u| Url::parse(u).ok())
        .and_then(|u| charset::tld_of(&u));
    charset::choose(body, content_type, tld.as_deref(), true)
}

/// Decodes and parses an HTML payload. `content_type` is the HTTP Content-Type header
/// value if any; `url` the page URL (for resolving links); `limit` the cap on `text` in
/// bytes. Never fails: garbage gives whatever text and links could be found.
pub fn parse_html(body: &[u8], content_type: Option<&str>, url: &str, limit: usize) -> ParsedHtml {
    parse_html_main(body, content_type, url, limit).0
}

/// [`parse_html`], and the page's main content: its text without the boilerplate
/// (navigation, headers, footers, link lists; `main_content.rs` says how it is told),
/// capped at `limit` too.
pub fn parse_html_main(
    body: &[u8],
    content_type: Option<&str>,
    url: &str,
    limit: usize,
) -> (ParsedHtml, PageExtras) {
    let doc_url = Url::parse(url).ok();
    let tld = doc_url.as_ref().and_then(charset::tld_of);
    let (enc, source) = charset::choose(body, content_type, tld.as_deref(), true);
    let body = strip_bom(body, source);
    // In one piece: the page is in memory already, and the tokenizer hands whole text
    // nodes over, so no character reference is cut in two. (In the ASCII-compatible
    // encodings this finds the same tokens as tokenizing the raw bytes: see
    // `tokenizer`.)
    let (html, _) = enc.decode_without_bom_handling(body);

    let mut st = State::new(doc_url, limit);
    tokenizer::tokenize(&html, &mut st);
    st.close_anchor(None);
    let title = st.title.finish();
    let truncated = st.text.truncated;
    let main = st.main.finish(&st.text.out);
    let text = st.text.finish();
    let parsed = ParsedHtml {
        title: (!title.is_empty()).then_some(title),
        truncated,
        text,
        outlinks: st.outlinks,
        robots: st.robots,
        charset: enc.name(),
        charset_source: source,
    };
    let extras = PageExtras {
        main,
        declared_lang: st.declared_lang,
        element_cap: st.element_cap,
    };
    (parsed, extras)
}

/// What [`parse_html_main`] gives beside [`ParsedHtml`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageExtras {
    /// The main content (`main_content.rs`).
    pub main: String,
    /// The first `<html lang>` (or `xml:lang`), as written.
    pub declared_lang: Option<String>,
    /// The parse stopped where one more element would have been open than 2^17 (as
    /// lol_html's memory limit stopped it): the rest of the page is not in the text.
    pub element_cap: bool,
}

/// `text/plain` payloads: decoded (BOM, HTTP `charset`, chardetng, windows-1252) and
/// white space collapsed, capped at `limit` bytes. Returns the text, the encoding_rs
/// charset name and whether the cap was hit.
pub fn plain_text(
    body: &[u8],
    content_type: Option<&str>,
    limit: usize,
) -> (String, &'static str, bool) {
    let (enc, source) = charset::choose(body, content_type, None, false);
    let body = strip_bom(body, source);
    let mut sink = TextSink::new(limit);
    decode_chunks(enc, body, |s| {
        sink.push(s);
        !sink.full
    });
    let truncated = sink.truncated;
    (sink.finish(), enc.name(), truncated)
}

fn strip_bom(body: &[u8], source: CharsetSource) -> &[u8] {
    match (source, Encoding::for_bom(body)) {
        (CharsetSource::Bom, Some((_, n))) => &body[n..],
        _ => body,
    }
}

/// Decodes `body` in pieces of at most [`DECODE_CHUNK`] bytes of UTF-8 and hands each to
/// `f`, until the input ends or `f` returns false.
fn decode_chunks(enc: &'static Encoding, body: &[u8], mut f: impl FnMut(&str) -> bool) {
    let mut dec = enc.new_decoder_without_bom_handling();
    let mut buf = String::with_capacity(DECODE_CHUNK.min(body.len().saturating_mul(3) + 16));
    let mut rest = body;
    loop {
        buf.clear();
        let (res, read, _) = dec.decode_to_string(rest, &mut buf, true);
        rest = &rest[read..];
        if !buf.is_empty() && !f(&buf) {
            return;
        }
        if res == encoding_rs::CoderResult::InputEmpty {
            return;
        }
        if buf.capacity() < DECODE_CHUNK {
            buf.reserve(DECODE_CHUNK);
        }
    }
}

#[cfg(test)]
mod tests;
