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

mod charset;
mod entities;
mod entity_table;
#[cfg(test)]
mod html5ever_reference;
#[cfg(test)]
mod html5ever_tests;
mod links;
#[cfg(test)]
mod lol_reference;
mod main_content;
mod tokenizer;

use encoding_rs::Encoding;
use url::Url;

use entities::Context;
pub use links::Outlink;
use tokenizer::{tag, StartTag, TextKind};

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

/// What to do when an element ends: a set of `END_*` actions.
#[derive(Debug, Clone, Copy, Default)]
struct Mark {
    actions: u16,
    /// The anchor to close ([`END_ANCHOR`]).
    anchor: u64,
}

/// A word boundary.
const END_BOUNDARY: u16 = 1;
/// The end of an `<svg>`.
const END_SVG: u16 = 2;
/// The end of a `<template>`.
const END_TEMPLATE: u16 = 4;
/// The end of the first `<title>`.
const END_FIRST_TITLE: u16 = 8;
/// The end of a later `<title>`.
const END_OTHER_TITLE: u16 = 16;
/// The end of an `<a href>` whose text is collected.
const END_ANCHOR: u16 = 32;
/// The end of a `<noscript>` whose content (raw text) is parsed for links.
const END_NOSCRIPT: u16 = 64;

/// The end of an element of page chrome (`main_content.rs`).
const END_CHROME: u16 = 128;
/// The end of an `<article>` or `<main>`.
const END_ARTICLE: u16 = 256;
/// The end of a `<style>` or `<script>` inside an `<svg>`.
const END_SVG_RAW: u16 = 512;

/// The most bytes of a `<noscript>`'s content parsed for links.
pub(super) const MAX_NOSCRIPT: usize = 1 << 20;

impl Mark {
    fn add(&mut self, action: u16) {
        self.actions |= action;
    }
}

impl tokenizer::Handler for State {
    type Mark = Mark;

    fn text(&mut self, text: &str, kind: TextKind) {
        self.on_text(text, kind);
    }

    fn start_tag(&mut self, tag: &StartTag<'_>) -> Option<Mark> {
        let mut mark = Mark::default();
        self.on_element(tag, &mut mark);
        // (For an element that cannot have content, which never ends, the tokenizer
        // drops the mark.)
        (mark.actions != 0).then_some(mark)
    }

    fn open_element_cap(&mut self) {
        self.element_cap = true;
    }

    fn br_end_tag(&mut self) {
        // `</br>` is a `<br>` to HTML5 (and to browsers): words on either side are two.
        self.boundary();
    }

    fn end_element(&mut self, mark: Mark) {
        let a = mark.actions;
        if a & END_BOUNDARY != 0 {
            self.boundary();
        }
        if a & END_SVG != 0 {
            self.svg_depth = self.svg_depth.saturating_sub(1);
            if self.svg_depth == 0 {
                // A `<style/>` that never ended stops at the end of its `<svg>`.
                self.svg_raw = 0;
            }
        }
        if a & END_TEMPLATE != 0 {
            self.template_depth = self.template_depth.saturating_sub(1);
        }
        if a & END_FIRST_TITLE != 0 {
            self.title_state = TitleState::Done;
        }
        if a & END_OTHER_TITLE != 0 {
            self.other_title = false;
        }
        if a & END_ANCHOR != 0 {
            self.close_anchor(Some(mark.anchor));
        }
        if a & END_NOSCRIPT != 0 {
            self.noscript_links();
        }
        if a & END_CHROME != 0 {
            self.main.chrome_depth = self.main.chrome_depth.saturating_sub(1);
        }
        if a & END_SVG_RAW != 0 {
            self.svg_raw = self.svg_raw.saturating_sub(1);
        }
        if a & END_ARTICLE != 0 {
            self.main.article_depth = self.main.article_depth.saturating_sub(1);
        }
    }
}

impl State {
    /// What an element means for the extraction; `mark` collects what to do at its end.
    /// An element left open does that at the end of an enclosing element, or never
    /// (at the end of the document): every use copes with that.
    fn on_element(&mut self, el: &StartTag<'_>, mark: &mut Mark) {
        // A `<template>`'s content is inert: its links lead nowhere and its `<base>`
        // sets nothing (HTML5 parses it into a fragment of its own).
        let inert = self.template_depth > 0;
        self.chrome_or_article(el, mark);
        match el.name() {
            tag::A | tag::AREA | tag::BASE if inert => {}
            tag::A => self.on_anchor(el, mark),
            tag::AREA => {
                let Some(href) = el.attr("href") else {
                    return;
                };
                let alt = el.attr("alt").unwrap_or_default();
                if let Some(u) = self.resolve(href) {
                    let mut sink = TextSink::new(MAX_ANCHOR);
                    sink.push(&entities::decode(alt, Context::Attribute));
                    self.push_outlink(href, u, sink.finish());
                }
            }
            tag::FRAME | tag::IFRAME => {
                self.block(mark);
                if let Some(src) = el.attr("src").filter(|_| !inert) {
                    if let Some(u) = self.resolve(src) {
                        self.push_outlink(src, u, String::new());
                    }
                }
            }
            tag::IMG => {
                self.block(mark);
                if let Some(a) = self.anchor.as_mut() {
                    if let Some(alt) = el.attr("alt") {
                        a.alt.boundary();
                        a.alt.push(&entities::decode(alt, Context::Attribute));
                        a.alt.boundary();
                    }
                }
            }
            tag::BASE => {
                if self.base_seen {
                    return;
                }
                let Some(href) = el.attr("href") else {
                    return;
                };
                // Only the first `<base href>` counts, even when it does not parse.
                self.base_seen = true;
                let href = entities::decode(href, Context::Attribute);
                let joined = match &self.doc_url {
                    Some(d) => d.join(href.trim()).ok(),
                    None => Url::parse(href.trim()).ok(),
                };
                if joined.is_some() {
                    self.base = joined;
                    self.rebase();
                }
                self.before_base = Vec::new();
            }
            tag::META => {
                let is_robots = el
                    .attr("name")
                    .is_some_and(|n| n.trim().eq_ignore_ascii_case("robots"));
                if let (true, Some(content)) = (is_robots, el.attr("content")) {
                    self.robots
                        .add(&entities::decode(content, Context::Attribute));
                }
            }
            tag::TITLE => self.on_title(mark),
            tag::HTML if self.declared_lang.is_none() => {
                self.declared_lang = el
                    .attr("lang")
                    .or_else(|| el.attr("xml:lang"))
                    .map(|l| entities::decode(l, Context::Attribute).into_owned())
                    .filter(|l| !l.trim().is_empty());
            }
            tag::TEMPLATE => {
                self.template_depth += 1;
                mark.add(END_TEMPLATE);
            }
            tag::NOSCRIPT if !inert => {
                self.noscript = Some(String::new());
                mark.add(END_NOSCRIPT);
            }
            // Inside an `<svg>` a `<style>` or `<script>` is not raw text to the tokenizer
            // (foreign content), but it is no more visible than in HTML.
            tag::STYLE | tag::SCRIPT if self.svg_depth > 0 => {
                self.svg_raw += 1;
                mark.add(END_SVG_RAW);
            }
            tag::SVG => {
                self.block(mark);
                // A self-closing `<svg/>` never ends, so its depth stays counted (as
                // it did with lol_html).
                self.svg_depth += 1;
                mark.add(END_SVG);
            }
            n if is_block(n) => self.block(mark),
            _ => {}
        }
    }

    /// Counts an element that is page chrome, or an `<article>` or `<main>`, for the
    /// main content (`main_content.rs`).
    fn chrome_or_article(&mut self, el: &StartTag<'_>, mark: &mut Mark) {
        let chrome = match el.name() {
            tag::ARTICLE | tag::MAIN => {
                self.main.article_depth += 1;
                mark.add(END_ARTICLE);
                false
            }
            tag::NAV | tag::ASIDE | tag::MENU => true,
            tag::HEADER | tag::FOOTER => self.main.article_depth == 0,
            // Chrome by role, class or id is looked for on the containers a layout is
            // made of only: the three attribute lookups on every element (links, spans,
            // list items) cost 7 % of an import (scripts/bench-import.sh, perf).
            tag::DIV | tag::SECTION | tag::UL | tag::OL | tag::TABLE | tag::TD | tag::FORM => {
                el.attr("role").is_some_and(main_content::role_is_chrome)
                    || el.attr("class").is_some_and(main_content::names_chrome)
                    || el.attr("id").is_some_and(main_content::names_chrome)
            }
            _ => false,
        };
        if chrome {
            self.main.chrome_depth += 1;
            mark.add(END_CHROME);
        }
    }

    /// A word boundary at the element's start and at its end.
    fn block(&mut self, mark: &mut Mark) {
        self.boundary();
        mark.add(END_BOUNDARY);
    }

    fn on_title(&mut self, mark: &mut Mark) {
        // An SVG `<title>` is a tooltip, not the page's title (the tokenizer reports
        // it in the HTML namespace, as an integration point, so the `<svg>` depth
        // tells).
        // A `<template>`'s `<title>` is inert content, not the document's title.
        if self.svg_depth > 0 || self.template_depth > 0 {
            return;
        }
        if self.title_state == TitleState::NotSeen {
            self.title_state = TitleState::Open;
            mark.add(END_FIRST_TITLE);
        } else {
            self.other_title = true;
            mark.add(END_OTHER_TITLE);
        }
    }

    fn on_anchor(&mut self, el: &StartTag<'_>, mark: &mut Mark) {
        // An `<a>` inside an open `<a>` closes it, as the tree builder does.
        self.close_anchor(None);
        let Some(href) = el.attr("href") else {
            return;
        };
        let Some(url) = self.resolve(href) else {
            return;
        };
        let Some(index) = self.push_outlink(href, url, String::new()) else {
            return;
        };
        self.next_anchor_id += 1;
        let id = self.next_anchor_id;
        let text = TextSink::with_buffer(MAX_ANCHOR, self.spare.pop().unwrap_or_default());
        let alt = TextSink::with_buffer(MAX_ANCHOR, self.spare.pop().unwrap_or_default());
        self.anchor = Some(OpenAnchor {
            id,
            index,
            text,
            alt,
        });
        mark.add(END_ANCHOR);
        mark.anchor = id;
    }
}

/// Elements whose start and end separate words in the text: blocks, table cells, list
/// items, and replaced elements (an image between two words takes room on screen,
/// as ia-web-commons' text-extraction test expects). `frame`, `iframe`, `img` and
/// `svg` are handled with their other duties.
fn is_block(name: tokenizer::NameHash) -> bool {
    use tag::*;
    matches!(
        name,
        ADDRESS
            | ARTICLE
            | ASIDE
            | AUDIO
            | BLOCKQUOTE
            | BODY
            | BR
            | BUTTON
            | CANVAS
            | CAPTION
            | CENTER
            | DD
            | DETAILS
            | DIALOG
            | DIR
            | DIV
            | DL
            | DT
            | EMBED
            | FIELDSET
            | FIGCAPTION
            | FIGURE
            | FOOTER
            | FORM
            | H1
            | H2
            | H3
            | H4
            | H5
            | H6
            | HEAD
            | HEADER
            | HGROUP
            | HR
            | HTML
            | INPUT
            | LEGEND
            | LI
            | MAIN
            | MENU
            | NAV
            | OBJECT
            | OL
            | OPTGROUP
            | OPTION
            | P
            | PRE
            | SECTION
            | SELECT
            | SUMMARY
            | TABLE
            | TBODY
            | TD
            | TEXTAREA
            | TFOOT
            | TH
            | THEAD
            | TR
            | UL
            | VIDEO
    )
}

/// Appends words to a capped string, collapsing white space; a separator is written
/// only between two words, so the result has no leading or trailing space.
struct TextSink {
    out: String,
    limit: usize,
    /// White space or a block boundary was seen since the last word.
    space: bool,
    /// The cap was reached: nothing more is taken.
    full: bool,
    /// A word was cut or dropped at the cap.
    truncated: bool,
}

/// How [`TextSink::push`] reads a byte.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ByteClass {
    /// Part of a word: printable ASCII, a UTF-8 continuation byte, or the lead byte of
    /// a character that cannot be white space or a control character.
    Word,
    /// ASCII white space or control character: a separator.
    Sep,
    /// The lead byte of a character that may be a separator (C1 controls, U+0085,
    /// U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000).
    Check,
}

/// [`ByteClass`] of every byte.
static BYTE_CLASS: [ByteClass; 256] = {
    let mut t = [ByteClass::Word; 256];
    let mut i = 0;
    while i <= 0x20 {
        t[i] = ByteClass::Sep;
        i += 1;
    }
    t[0x7F] = ByteClass::Sep;
    t[0xC2] = ByteClass::Check;
    t[0xE1] = ByteClass::Check;
    t[0xE2] = ByteClass::Check;
    t[0xE3] = ByteClass::Check;
    t
};

/// For the 8 bytes of `x` (little-endian): the high bit of each byte set in `.0` if
/// it is printable ASCII (`0x21..=0x7E`, part of a word), in `.1` if it is ASCII white
/// space or a control character (a separator). Exact for every byte (no carry crosses
/// a byte), so the lowest set bit finds the first such byte.
#[inline]
fn ascii_classes(x: u64) -> (u64, u64) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const LOW7: u64 = 0x7F * ONES;
    let low = x & LOW7;
    // low + 0x5F reaches 0x80 exactly when low >= 0x21; t + 0x7F does when t != 0.
    let ge21 = (low + 0x5F * ONES) & HIGH;
    let t = low ^ LOW7;
    let not_del = (t + LOW7) & HIGH;
    let ascii = !x & HIGH;
    let graphic = ge21 & not_del;
    (ascii & graphic, ascii & !graphic)
}

/// The 8 bytes of `b` at `i` as a little-endian word.
#[inline]
fn word_at(b: &[u8], i: usize) -> u64 {
    let mut w = [0; 8];
    w.copy_from_slice(&b[i..i + 8]);
    u64::from_le_bytes(w)
}

/// The high bits of a mask byte.
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

impl TextSink {
    fn new(limit: usize) -> Self {
        Self::with_buffer(limit, String::new())
    }

    /// A sink that writes into `buf` (cleared), to reuse its allocation.
    fn with_buffer(limit: usize, mut buf: String) -> Self {
        buf.clear();
        TextSink {
            out: buf,
            limit,
            space: false,
            full: false,
            truncated: false,
        }
    }

    fn boundary(&mut self) {
        self.space = true;
    }

    fn push(&mut self, s: &str) {
        if self.full {
            return;
        }
        let mut i = 0;
        while i < s.len() {
            i = self.skip_separators(s, i);
            if i == s.len() {
                return;
            }
            let end = run_end(s, i);
            self.run(&s[i..end]);
            if self.full {
                return;
            }
            i = end;
        }
    }

    /// Words separated by single spaces (as most text is): copied in one piece when
    /// they fit, which is what adding them word by word would do.
    fn run(&mut self, run: &str) {
        let sep = self.space && !self.out.is_empty();
        if self.out.len() + usize::from(sep) + run.len() <= self.limit {
            self.space = false;
            if sep {
                self.out.push(' ');
            }
            self.out.push_str(run);
            return;
        }
        for (k, w) in run.split(' ').enumerate() {
            if k > 0 {
                self.space = true;
            }
            self.word(w);
            if self.full {
                return;
            }
        }
    }

    /// Where the separators starting at `i` end (noting that there were some).
    fn skip_separators(&mut self, s: &str, mut i: usize) -> usize {
        let b = s.as_bytes();
        let start = i;
        loop {
            // Eight at a time to the first byte that is not an ASCII separator.
            while i + 8 <= b.len() {
                let other = !ascii_classes(word_at(b, i)).1 & HIGH_BITS;
                if other != 0 {
                    i += (other.trailing_zeros() / 8) as usize;
                    break;
                }
                i += 8;
            }
            let Some(&c) = b.get(i) else { break };
            match BYTE_CLASS[usize::from(c)] {
                ByteClass::Sep => i += 1,
                ByteClass::Check => match separator_len(s, i) {
                    0 => break,
                    len => i += len,
                },
                ByteClass::Word => break,
            }
        }
        if i > start {
            self.space = true;
        }
        i
    }

    fn word(&mut self, w: &str) {
        let sep = self.space && !self.out.is_empty();
        self.space = false;
        if self.out.len() + usize::from(sep) + w.len() <= self.limit {
            if sep {
                self.out.push(' ');
            }
            self.out.push_str(w);
            return;
        }
        self.full = true;
        self.truncated = true;
        let mut room = self.limit.saturating_sub(self.out.len());
        if sep {
            if room <= 1 {
                return;
            }
            self.out.push(' ');
            room -= 1;
        }
        let mut cut = room.min(w.len());
        while !w.is_char_boundary(cut) {
            cut -= 1;
        }
        self.out.push_str(&w[..cut]);
    }

    fn finish(mut self) -> String {
        let end = self.out.trim_end_matches(' ').len();
        self.out.truncate(end);
        self.out
    }

    /// A copy of what [`finish`](Self::finish) returns (allocated to size), and the
    /// buffer back for reuse.
    fn finish_copy(mut self) -> (String, String) {
        let text = self.out.trim_end_matches(' ').to_owned();
        self.out.clear();
        (text, self.out)
    }
}

/// Where the words starting at `i` (not a separator) and separated by single spaces
/// end.
fn run_end(s: &str, i: usize) -> usize {
    let b = s.as_bytes();
    let mut end = word_end(s, i);
    while b.get(end) == Some(&b' ') && starts_word(s, end + 1) {
        end = word_end(s, end + 1);
    }
    end
}

/// Whether a word starts at `i` (a char boundary, or the end).
fn starts_word(s: &str, i: usize) -> bool {
    match s.as_bytes().get(i) {
        None => false,
        Some(&c) => match BYTE_CLASS[usize::from(c)] {
            ByteClass::Word => true,
            ByteClass::Sep => false,
            ByteClass::Check => separator_len(s, i) == 0,
        },
    }
}

/// Where the word starting at `i` (not a separator) ends.
fn word_end(s: &str, mut i: usize) -> usize {
    let b = s.as_bytes();
    loop {
        // Eight at a time to the first byte that is not printable ASCII.
        while i + 8 <= b.len() {
            let other = !ascii_classes(word_at(b, i)).0 & HIGH_BITS;
            if other != 0 {
                i += (other.trailing_zeros() / 8) as usize;
                break;
            }
            i += 8;
        }
        let Some(&c) = b.get(i) else { return i };
        match BYTE_CLASS[usize::from(c)] {
            ByteClass::Sep => return i,
            ByteClass::Check => {
                if separator_len(s, i) > 0 {
                    return i;
                }
                i += utf8_len(c);
            }
            ByteClass::Word => {
                // Printable ASCII, or a run of non-ASCII characters (continuation
                // bytes are never `Check`, so stepping byte by byte stays on track).
                i += 1;
                while b
                    .get(i)
                    .is_some_and(|&c| c >= 0x80 && BYTE_CLASS[usize::from(c)] == ByteClass::Word)
                {
                    i += 1;
                }
            }
        }
    }
}

/// The length of the separator at `s[i..]` (`i` on a char boundary), or 0: white
/// space, and control characters (NUL padding, stray C1 bytes), which are no text.
fn separator_len(s: &str, i: usize) -> usize {
    let c = s.as_bytes()[i];
    if c < 0x80 {
        return usize::from(c <= b' ' || c == 0x7F);
    }
    match s[i..].chars().next() {
        Some(ch) if ch.is_whitespace() || ch.is_control() => ch.len_utf8(),
        _ => 0,
    }
}

/// The length of the UTF-8 sequence a lead byte starts.
fn utf8_len(lead: u8) -> usize {
    match lead {
        0xF0.. => 4,
        0xE0.. => 3,
        _ => 2,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TitleState {
    NotSeen,
    Open,
    Done,
}

/// The `<a href>` whose text is being collected.
struct OpenAnchor {
    /// Tells its end tag handler apart from those of earlier, implicitly closed anchors.
    id: u64,
    /// Its entry in `outlinks`, pushed at the start tag to keep document order.
    index: usize,
    text: TextSink,
    alt: TextSink,
}

/// What the handlers collect, shared between them.
struct State {
    text: TextSink,
    /// The main content (`main_content.rs`).
    main: main_content::MainContent,
    /// The first `<html lang>`.
    declared_lang: Option<String>,
    /// The parse stopped at the open-element cap.
    element_cap: bool,
    title: TextSink,
    title_state: TitleState,
    anchor: Option<OpenAnchor>,
    next_anchor_id: u64,
    outlinks: Vec<Outlink>,
    robots: Robots,
    doc_url: Option<Url>,
    base: Option<Url>,
    base_seen: bool,
    /// Outlinks pushed before the first `<base href>`, with their targets as written.
    before_base: Vec<(usize, String)>,
    /// Inside a `<noscript>`: its content so far.
    noscript: Option<String>,
    template_depth: u32,
    svg_depth: u32,
    /// `<style>` and `<script>` elements open inside an `<svg>`: their text is not shown.
    svg_raw: u32,
    /// Inside a `<title>` after the first: its text is not shown either.
    other_title: bool,
    /// Room for decoding character references.
    scratch: String,
    /// Buffers of closed anchors' sinks, for the next ones (anchor texts are short:
    /// growing each from nothing cost more than copying it out).
    spare: Vec<String>,
}

impl State {
    fn new(doc_url: Option<Url>, limit: usize) -> Self {
        State {
            text: TextSink::new(limit),
            main: main_content::MainContent::new(),
            declared_lang: None,
            element_cap: false,
            title: TextSink::new(MAX_TITLE),
            title_state: TitleState::NotSeen,
            anchor: None,
            next_anchor_id: 0,
            outlinks: Vec::new(),
            robots: Robots::default(),
            doc_url,
            base: None,
            base_seen: false,
            before_base: Vec::new(),
            noscript: None,
            template_depth: 0,
            svg_depth: 0,
            svg_raw: 0,
            other_title: false,
            scratch: String::new(),
            spare: Vec::new(),
        }
    }

    /// A whole text node.
    fn on_text(&mut self, s: &str, kind: TextKind) {
        let decode = match kind {
            TextKind::Data | TextKind::RcData => true,
            TextKind::PlainText | TextKind::CData => false,
            // Script, style, noscript, iframe, noembed, noframes, xmp; a noscript's
            // is kept to be parsed for links at its end.
            TextKind::RawText => {
                if let Some(buf) = self.noscript.as_mut() {
                    let room = MAX_NOSCRIPT.saturating_sub(buf.len());
                    let mut end = s.len().min(room);
                    while !s.is_char_boundary(end) {
                        end -= 1;
                    }
                    buf.push_str(&s[..end]);
                }
                return;
            }
            TextKind::ScriptData => return,
        };
        if self.template_depth > 0 || self.svg_raw > 0 {
            return;
        }
        // RCDATA is the text of a `<title>` or of a `<textarea>`.
        let to_title = kind == TextKind::RcData && self.title_state == TitleState::Open;
        if kind == TextKind::RcData && !to_title && self.other_title {
            return;
        }
        if !to_title && self.text.full && self.anchor.is_none() {
            return;
        }
        if !decode || memchr::memchr(b'&', s.as_bytes()).is_none() {
            self.emit(s, to_title);
            return;
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        entities::decode_into(s, Context::Text, &mut scratch);
        self.emit(&scratch, to_title);
        self.scratch = scratch;
    }

    fn emit(&mut self, s: &str, to_title: bool) {
        if to_title {
            self.title.push(s);
            return;
        }
        let before = self.text.out.len();
        self.text.push(s);
        self.main
            .text(&self.text.out, before, self.anchor.is_some());
        if let Some(a) = self.anchor.as_mut() {
            a.text.push(s);
        }
    }

    fn boundary(&mut self) {
        self.text.boundary();
        self.main.boundary(&self.text.out);
        if let Some(a) = self.anchor.as_mut() {
            a.text.boundary();
        }
    }

    /// Resolves a link target, or `None` for links that lead nowhere an index cares
    /// about: empty, fragment-only, `javascript:`, `mailto:`, `data:` and other non-web
    /// schemes.
    fn resolve(&self, raw: &str) -> Option<String> {
        if raw.len() > MAX_HREF {
            return None;
        }
        let href = entities::decode(raw, Context::Attribute);
        resolve_decoded(self.base.as_ref().or(self.doc_url.as_ref()), &href)
    }

    /// The links of the `<noscript>` that just ended: a crawler without scripts (and
    /// NutchWAX) sees its content as markup, where a browser with scripts (and HTML5's
    /// tokenizer, which this follows) sees text. Its text stays out of the page's text.
    fn noscript_links(&mut self) {
        let Some(content) = self.noscript.take() else {
            return;
        };
        let base = self.base.as_ref().or(self.doc_url.as_ref()).cloned();
        let mut inner = State::new(base, 1);
        tokenizer::tokenize(&content, &mut inner);
        inner.close_anchor(None);
        for (raw, o) in as_written(inner.outlinks, inner.before_base) {
            self.push_outlink(&raw, o.url, o.anchor);
        }
    }

    /// Appends an outlink unless the cap is reached; returns its index. `raw` is the
    /// target as written, kept until the first `<base href>` is known.
    fn push_outlink(&mut self, raw: &str, url: String, anchor: String) -> Option<usize> {
        if self.outlinks.len() >= MAX_OUTLINKS {
            return None;
        }
        self.outlinks.push(Outlink { url, anchor });
        if !self.base_seen {
            self.before_base
                .push((self.outlinks.len() - 1, raw.to_string()));
        }
        Some(self.outlinks.len() - 1)
    }

    /// After the first `<base href>`: the links before it are resolved again against
    /// it, as HTML5 applies the first `<base>` to the whole document.
    fn rebase(&mut self) {
        for (i, raw) in std::mem::take(&mut self.before_base) {
            if let Some(u) = self.resolve(&raw) {
                self.outlinks[i].url = u;
            }
        }
    }

    /// Closes the open anchor (only the one with `id` when given) and stores its text.
    fn close_anchor(&mut self, id: Option<u64>) {
        if id.is_some_and(|id| self.anchor.as_ref().is_none_or(|a| a.id != id)) {
            return;
        }
        if let Some(a) = self.anchor.take() {
            let (text, buf) = a.text.finish_copy();
            self.spare.push(buf);
            let (alt, buf) = a.alt.finish_copy();
            self.spare.push(buf);
            let anchor = if text.is_empty() { alt } else { text };
            if let Some(o) = self.outlinks.get_mut(a.index) {
                o.anchor = anchor;
            }
        }
    }
}

/// The outlinks of a `<noscript>`'s inner parse, each with its target as written, for a
/// `<base href>` later in the document: the inner parse saw none, so it kept every target
/// as written (`before_base`); one after a `<base>` inside the noscript keeps its URL.
/// Shared with the lol_html oracle (`lol_reference.rs`).
fn as_written(outlinks: Vec<Outlink>, before_base: Vec<(usize, String)>) -> Vec<(String, Outlink)> {
    let mut raw: Vec<Option<String>> = vec![None; outlinks.len()];
    for (i, target) in before_base {
        raw[i] = Some(target);
    }
    outlinks
        .into_iter()
        .zip(raw)
        .map(|(o, raw)| (raw.unwrap_or_else(|| o.url.clone()), o))
        .collect()
}

/// A link target whose character references are decoded, resolved against `base` (or
/// taken as absolute without one): `None` for empty and fragment-only targets, those
/// that do not parse, and other schemes than http, https and ftp; the fragment removed.
/// Shared with the html5ever oracle (`html5ever_reference.rs`), so that the two differ
/// only in their parsers.
fn resolve_decoded(base: Option<&Url>, href: &str) -> Option<String> {
    let href = href.trim_matches(|c: char| c.is_ascii_whitespace() || c.is_ascii_control());
    if href.is_empty() || href.starts_with('#') {
        return None;
    }
    let mut u = match base {
        Some(base) => {
            if let Some(joined) = links::join_plain(base, href) {
                return Some(joined);
            }
            base.join(href).ok()?
        }
        None => Url::parse(href).ok()?,
    };
    if !matches!(u.scheme(), "http" | "https" | "ftp") {
        return None;
    }
    u.set_fragment(None);
    Some(u.into())
}

#[cfg(test)]
mod tests;
