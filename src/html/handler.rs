//! The extraction's handler of tokenizer events: what each element and text node
//! means for the text, the title, the robots directives, the declared language and the
//! main content (links: `outlinks.rs`).

use url::Url;

use super::entities::{self, Context};
use super::outlinks::OpenAnchor;
use super::text_sink::TextSink;
use super::tokenizer::{self, tag, StartTag, TextKind};
use super::{main_content, Outlink, Robots, MAX_ANCHOR, MAX_NOSCRIPT, MAX_TITLE};

/// What to do when an element ends: a set of `END_*` actions.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Mark {
    pub(super) actions: u16,
    /// The anchor to close ([`END_ANCHOR`]).
    pub(super) anchor: u64,
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
pub(super) const END_ANCHOR: u16 = 32;
/// The end of a `<noscript>` whose content (raw text) is parsed for links.
const END_NOSCRIPT: u16 = 64;

/// The end of an element of page chrome (`main_content.rs`).
const END_CHROME: u16 = 128;
/// The end of an `<article>` or `<main>`.
const END_ARTICLE: u16 = 256;
/// The end of a `<style>` or `<script>` inside an `<svg>`.
const END_SVG_RAW: u16 = 512;

impl Mark {
    pub(super) fn add(&mut self, action: u16) {
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
}

/// Elements whose start and end separate words in the text: blocks, table cells, list
/// items, and replaced elements (an image between two words takes room on screen,
/// as ia-web-commons' text-extraction test expects). `frame`, `iframe`, `img` and
/// `svg` are handled with their other duties.
pub(super) fn is_block(name: tokenizer::NameHash) -> bool {
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TitleState {
    NotSeen,
    Open,
    Done,
}

/// What the handlers collect, shared between them.
pub(super) struct State {
    pub(super) text: TextSink,
    /// The main content (`main_content.rs`).
    pub(super) main: main_content::MainContent,
    /// The first `<html lang>`.
    pub(super) declared_lang: Option<String>,
    /// The parse stopped at the open-element cap.
    pub(super) element_cap: bool,
    pub(super) title: TextSink,
    pub(super) title_state: TitleState,
    pub(super) anchor: Option<OpenAnchor>,
    pub(super) next_anchor_id: u64,
    pub(super) outlinks: Vec<Outlink>,
    pub(super) robots: Robots,
    pub(super) doc_url: Option<Url>,
    pub(super) base: Option<Url>,
    pub(super) base_seen: bool,
    /// Outlinks pushed before the first `<base href>`, with their targets as written.
    pub(super) before_base: Vec<(usize, String)>,
    /// Inside a `<noscript>`: its content so far.
    pub(super) noscript: Option<String>,
    pub(super) template_depth: u32,
    pub(super) svg_depth: u32,
    /// `<style>` and `<script>` elements open inside an `<svg>`: their text is not shown.
    pub(super) svg_raw: u32,
    /// Inside a `<title>` after the first: its text is not shown either.
    pub(super) other_title: bool,
    /// Room for decoding character references.
    pub(super) scratch: String,
    /// Buffers of closed anchors' sinks, for the next ones (anchor texts are short:
    /// growing each from nothing cost more than copying it out).
    pub(super) spare: Vec<String>,
}

impl State {
    pub(super) fn new(doc_url: Option<Url>, limit: usize) -> Self {
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
}
