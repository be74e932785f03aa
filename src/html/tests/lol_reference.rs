//! The extraction as it was built on lol_html 3.0, before [`crate::html::tokenizer`]
//! replaced it: the oracle of the differential test `same_as_lol_html_on_random_pages`
//! (test builds only). Two bugs of the original are fixed here, marked `FIX`: the new
//! extraction has neither. Drop this module with the test if lol_html is dropped from
//! the dependencies.
#![allow(missing_docs, dead_code, clippy::all)]

use std::cell::RefCell;
use std::rc::Rc;

use encoding_rs::Encoding;
use lol_html::html_content::{Element, EndTag, TextChunk, TextType};
use lol_html::{
    doc_text, element, AsciiCompatibleEncoding, HtmlRewriter, MemorySettings, Settings,
};
use url::Url;

use crate::html::entities::{self, Context};
use crate::html::Outlink;
use crate::html::{
    charset, strip_bom, ParsedHtml, Robots, MAX_ANCHOR, MAX_NOSCRIPT, MAX_OUTLINKS, MAX_TITLE,
};

const MAX_HREF: usize = 64 * 1024;

const PARSER_MEMORY: usize = 16 * 1024 * 1024;
const DECODE_CHUNK: usize = 64 * 1024;

fn incomplete_tail(s: &str) -> usize {
    let b = s.as_bytes();
    let Some(amp) = memchr::memrchr(b'&', b) else {
        return s.len();
    };
    let tail = &b[amp + 1..];
    // FIX (old bug): a longer numeric reference (`&#000…065;`) cut by a chunk boundary
    // was decoded in two pieces; the original also required `tail.len() <= 34`.
    if tail.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'#') {
        amp
    } else {
        s.len()
    }
}

/// Decodes and parses an HTML payload. `content_type` is the HTTP Content-Type header
/// value if any; `url` the page URL (for resolving links); `limit` the cap on `text` in
/// bytes. Never fails: garbage gives whatever text and links could be found.
pub(super) fn parse_html(
    body: &[u8],
    content_type: Option<&str>,
    url: &str,
    limit: usize,
) -> ParsedHtml {
    let doc_url = Url::parse(url).ok();
    let tld = doc_url.as_ref().and_then(charset::tld_of);
    let (enc, source) = charset::choose(body, content_type, tld.as_deref(), true);
    let body = strip_bom(body, source);

    let state = Rc::new(RefCell::new(State::new(doc_url, limit)));
    run_rewriter(&state, enc, body);

    let mut st = state.replace(State::new(None, 0));
    st.flush_carry();
    st.close_anchor(None);
    let title = st.title.finish();
    ParsedHtml {
        title: (!title.is_empty()).then_some(title),
        truncated: st.text.truncated,
        text: st.text.finish(),
        outlinks: st.outlinks,
        robots: st.robots,
        charset: enc.name(),
        charset_source: source,
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

/// Feeds `body` through lol_html with the extraction handlers; stops quietly at the
/// first lol_html error (memory limit), keeping what the handlers collected.
fn run_rewriter(state: &Rc<RefCell<State>>, enc: &'static Encoding, body: &[u8]) {
    let s_text = Rc::clone(state);
    let s_el = Rc::clone(state);
    // One `*` handler that dispatches on the tag name: lol_html runs every selector of
    // a list against every element, and ~70 tag-name selectors cost more than the rest
    // of the parse.
    let settings = Settings::new()
        .with_strict(false)
        .with_memory_settings(
            MemorySettings::new()
                .with_preallocated_parsing_buffer_size(4096)
                .with_max_allowed_memory_usage(PARSER_MEMORY),
        )
        .append_document_content_handler(doc_text!(move |t| {
            s_text.borrow_mut().on_text(t);
            Ok(())
        }))
        .append_element_content_handler(element!("*", move |el| {
            on_element(&s_el, el);
            Ok(())
        }));

    let mut failed = false;
    match AsciiCompatibleEncoding::new(enc) {
        // lol_html decodes text and attributes itself for ASCII-compatible encodings
        // (all but UTF-16 and ISO-2022-JP): a separate decoding pass would double the work.
        Some(ascii) => {
            let mut rewriter = HtmlRewriter::new(settings.with_encoding(ascii), |_: &[u8]| {});
            for piece in body.chunks(DECODE_CHUNK) {
                if rewriter.write(piece).is_err() {
                    failed = true;
                    break;
                }
            }
            if !failed {
                // An error at the end (an unterminated token) loses nothing collected.
                let _ = rewriter.end();
            }
        }
        None => {
            let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
            decode_chunks(enc, body, |s| {
                failed = rewriter.write(s.as_bytes()).is_err();
                !failed
            });
            if !failed {
                let _ = rewriter.end();
            }
        }
    }
}

/// What an element means for the extraction.
fn on_element(state: &Rc<RefCell<State>>, el: &mut Element<'_, '_>) {
    let name = el.tag_name();
    // A `<template>`'s content is inert: no links, no `<base>`.
    let inert = state.borrow().template_depth > 0;
    match name.as_str() {
        "a" | "area" | "base" if inert => {}
        "a" => on_anchor(state, el),
        "area" => {
            let Some(href) = el.get_attribute("href") else {
                return;
            };
            let alt = el.get_attribute("alt").unwrap_or_default();
            let mut st = state.borrow_mut();
            if let Some(u) = st.resolve(&href) {
                let mut sink = TextSink::new(MAX_ANCHOR);
                sink.push(&entities::decode(&alt, Context::Attribute));
                st.push_outlink(&href, u, sink.finish());
            }
        }
        "frame" | "iframe" => {
            block(state, el);
            if let Some(src) = el.get_attribute("src").filter(|_| !inert) {
                let mut st = state.borrow_mut();
                if let Some(u) = st.resolve(&src) {
                    st.push_outlink(&src, u, String::new());
                }
            }
        }
        "img" => {
            block(state, el);
            let mut st = state.borrow_mut();
            if let Some(a) = st.anchor.as_mut() {
                if let Some(alt) = el.get_attribute("alt") {
                    a.alt.boundary();
                    a.alt.push(&entities::decode(&alt, Context::Attribute));
                    a.alt.boundary();
                }
            }
        }
        "base" => {
            let mut st = state.borrow_mut();
            if st.base_seen {
                return;
            }
            let Some(href) = el.get_attribute("href") else {
                return;
            };
            // Only the first `<base href>` counts, even when it does not parse.
            st.base_seen = true;
            let href = entities::decode(&href, Context::Attribute);
            let joined = match &st.doc_url {
                Some(d) => d.join(href.trim()).ok(),
                None => Url::parse(href.trim()).ok(),
            };
            if joined.is_some() {
                st.base = joined;
                st.rebase();
            }
            st.before_base = Vec::new();
        }
        "meta" => {
            let is_robots = el
                .get_attribute("name")
                .is_some_and(|n| n.trim().eq_ignore_ascii_case("robots"));
            if let (true, Some(content)) = (is_robots, el.get_attribute("content")) {
                state
                    .borrow_mut()
                    .robots
                    .add(&entities::decode(&content, Context::Attribute));
            }
        }
        "title" => on_title(state, el),
        "noscript" if !inert => {
            state.borrow_mut().noscript = Some(String::new());
            let s = Rc::clone(state);
            on_end_tag(el, move || s.borrow_mut().noscript_links());
        }
        "template" => {
            state.borrow_mut().template_depth += 1;
            let s = Rc::clone(state);
            on_end_tag(el, move || {
                let mut st = s.borrow_mut();
                st.template_depth = st.template_depth.saturating_sub(1);
            });
        }
        // Mirrors the extraction: an `<svg>`'s `<style>` and `<script>` are not text.
        "style" | "script" if state.borrow().svg_depth > 0 => {
            state.borrow_mut().svg_raw += 1;
            let s = Rc::clone(state);
            on_end_tag(el, move || {
                let mut st = s.borrow_mut();
                st.svg_raw = st.svg_raw.saturating_sub(1);
            });
        }
        "svg" => {
            block(state, el);
            state.borrow_mut().svg_depth += 1;
            let s = Rc::clone(state);
            on_end_tag(el, move || {
                let mut st = s.borrow_mut();
                st.svg_depth = st.svg_depth.saturating_sub(1);
                if st.svg_depth == 0 {
                    st.svg_raw = 0;
                }
            });
        }
        n if is_block(n) => block(state, el),
        _ => {}
    }
}

/// Elements whose start and end separate words in the text: blocks, table cells, list
/// items, and replaced elements (an image between two words takes room on screen,
/// as ia-web-commons' text-extraction test expects). `frame`, `iframe`, `img` and
/// `svg` are handled with their other duties.
fn is_block(name: &str) -> bool {
    matches!(
        name,
        "address"
            | "article"
            | "aside"
            | "audio"
            | "blockquote"
            | "body"
            | "br"
            | "button"
            | "canvas"
            | "caption"
            | "center"
            | "dd"
            | "details"
            | "dialog"
            | "dir"
            | "div"
            | "dl"
            | "dt"
            | "embed"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "form"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "head"
            | "header"
            | "hgroup"
            | "hr"
            | "html"
            | "input"
            | "legend"
            | "li"
            | "main"
            | "menu"
            | "nav"
            | "object"
            | "ol"
            | "optgroup"
            | "option"
            | "p"
            | "pre"
            | "section"
            | "select"
            | "summary"
            | "table"
            | "tbody"
            | "td"
            | "textarea"
            | "tfoot"
            | "th"
            | "thead"
            | "tr"
            | "ul"
            | "video"
    )
}

/// A word boundary at the element's start and at its end tag.
fn block(state: &Rc<RefCell<State>>, el: &mut Element<'_, '_>) {
    state.borrow_mut().boundary();
    let s = Rc::clone(state);
    on_end_tag(el, move || s.borrow_mut().boundary());
}

fn on_title(state: &Rc<RefCell<State>>, el: &mut Element<'_, '_>) {
    let mut st = state.borrow_mut();
    // An SVG `<title>` is a tooltip, not the page's title (lol_html reports it in the
    // HTML namespace, as an integration point, so the `<svg>` depth tells).
    if st.svg_depth > 0 || st.template_depth > 0 {
        return;
    }
    let first = st.title_state == TitleState::NotSeen;
    if first {
        st.title_state = TitleState::Open;
    } else {
        st.other_title = true;
    }
    drop(st);
    let s = Rc::clone(state);
    on_end_tag(el, move || {
        let mut st = s.borrow_mut();
        st.flush_carry();
        if first {
            st.title_state = TitleState::Done;
        } else {
            st.other_title = false;
        }
    });
}

fn on_anchor(state: &Rc<RefCell<State>>, el: &mut Element<'_, '_>) {
    let mut st = state.borrow_mut();
    // An `<a>` inside an open `<a>` closes it, as the tree builder does.
    st.close_anchor(None);
    let Some(href) = el.get_attribute("href") else {
        return;
    };
    let Some(url) = st.resolve(&href) else {
        return;
    };
    let Some(index) = st.push_outlink(&href, url, String::new()) else {
        return;
    };
    st.next_anchor_id += 1;
    let id = st.next_anchor_id;
    st.anchor = Some(OpenAnchor {
        id,
        index,
        text: TextSink::new(MAX_ANCHOR),
        alt: TextSink::new(MAX_ANCHOR),
    });
    drop(st);
    let s = Rc::clone(state);
    on_end_tag(el, move || s.borrow_mut().close_anchor(Some(id)));
}

/// Runs `f` at the element's end tag, if it can have one (not for void elements). An
/// element left open runs it at the end tag of an enclosing element, or never (at the
/// end of the document): every use copes with that.
fn on_end_tag(el: &mut Element<'_, '_>, f: impl FnOnce() + 'static) {
    if let Some(h) = el.end_tag_handlers() {
        h.push(Box::new(move |_: &mut EndTag<'_>| {
            f();
            Ok(())
        }));
    }
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

impl TextSink {
    fn new(limit: usize) -> Self {
        TextSink {
            out: String::new(),
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
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let n = separator_len(s, i);
            if n > 0 {
                self.space = true;
                i += n;
                continue;
            }
            let start = i;
            while i < b.len() {
                if b[i] < 0x80 {
                    if b[i] <= b' ' || b[i] == 0x7F {
                        break;
                    }
                    i += 1;
                } else if separator_len(s, i) > 0 {
                    break;
                } else {
                    i += utf8_len(b[i]);
                }
            }
            self.word(&s[start..i]);
            if self.full {
                return;
            }
        }
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
    svg_raw: u32,
    /// Inside a `<title>` after the first: its text is not shown either.
    other_title: bool,
    /// The end of the previous text chunk when it might be the start of a character
    /// reference completed by the next chunk.
    carry: String,
    /// Where `carry` goes once complete: the title or the body.
    carry_title: bool,
    scratch: String,
}

impl State {
    fn new(doc_url: Option<Url>, limit: usize) -> Self {
        State {
            text: TextSink::new(limit),
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
            carry: String::new(),
            carry_title: false,
            scratch: String::new(),
        }
    }

    fn on_text(&mut self, t: &TextChunk<'_>) {
        let kind = t.text_type();
        let decode = match kind {
            TextType::Data | TextType::RCData => true,
            TextType::PlainText | TextType::CDataSection => false,
            // Script, style, noscript, iframe, noembed, noframes, xmp; a noscript's
            // is kept to be parsed for links at its end.
            TextType::RawText => {
                let s = t.as_str();
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
            TextType::ScriptData => return,
        };
        if self.template_depth > 0 || self.svg_raw > 0 {
            return;
        }
        // RCDATA is the text of a `<title>` or of a `<textarea>`.
        let to_title = kind == TextType::RCData && self.title_state == TitleState::Open;
        if kind == TextType::RCData && !to_title && self.other_title {
            return;
        }
        if !to_title && self.text.full && self.anchor.is_none() {
            // FIX (old bug): the held-back reference belonged to the full text.
            self.carry.clear();
            return;
        }
        let s = t.as_str();
        if !decode {
            self.emit(s, to_title);
            return;
        }
        let last = t.last_in_text_node();
        if self.carry.is_empty() && memchr::memchr(b'&', s.as_bytes()).is_none() {
            self.emit(s, to_title);
            return;
        }
        let mut pending = std::mem::take(&mut self.carry);
        pending.push_str(s);
        let cut = if last {
            pending.len()
        } else {
            incomplete_tail(&pending)
        };
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        entities::decode_into(&pending[..cut], Context::Text, &mut scratch);
        self.emit(&scratch, to_title);
        self.scratch = scratch;
        pending.drain(..cut);
        self.carry = pending;
        self.carry_title = to_title;
    }

    /// Emits a held-back partial reference as it stands (its text node ended).
    fn flush_carry(&mut self) {
        if !self.carry.is_empty() {
            let carry = std::mem::take(&mut self.carry);
            let decoded = entities::decode(&carry, Context::Text).into_owned();
            self.emit(&decoded, self.carry_title);
        }
    }

    fn emit(&mut self, s: &str, to_title: bool) {
        if to_title {
            self.title.push(s);
            return;
        }
        self.text.push(s);
        if let Some(a) = self.anchor.as_mut() {
            a.text.push(s);
        }
    }

    fn boundary(&mut self) {
        self.text.boundary();
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
        let href = href.trim_matches(|c: char| c.is_ascii_whitespace() || c.is_ascii_control());
        if href.is_empty() || href.starts_with('#') {
            return None;
        }
        let mut u = match self.base.as_ref().or(self.doc_url.as_ref()) {
            Some(base) => base.join(href).ok()?,
            None => Url::parse(href).ok()?,
        };
        if !matches!(u.scheme(), "http" | "https" | "ftp") {
            return None;
        }
        u.set_fragment(None);
        Some(u.into())
    }

    /// The links of the `<noscript>` that just ended, its content parsed as markup.
    fn noscript_links(&mut self) {
        let Some(content) = self.noscript.take() else {
            return;
        };
        let base = self.base.as_ref().or(self.doc_url.as_ref()).cloned();
        let state = Rc::new(RefCell::new(State::new(base, 1)));
        run_rewriter(&state, encoding_rs::UTF_8, content.as_bytes());
        let mut inner = state.replace(State::new(None, 0));
        inner.flush_carry();
        inner.close_anchor(None);
        for (raw, o) in crate::html::outlinks::as_written(inner.outlinks, inner.before_base) {
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
            let text = a.text.finish();
            let anchor = if text.is_empty() {
                a.alt.finish()
            } else {
                text
            };
            if let Some(o) = self.outlinks.get_mut(a.index) {
                o.anchor = anchor;
            }
        }
    }
}
