//! The extraction computed on html5ever's DOM: the second oracle of the HTML
//! extraction (test builds only), for the differential test over the corpus's pages
//! (`html5ever_tests.rs`, figures in `docs/html-differences.md`).
//!
//! Where `lol_reference.rs` checks that our tokenizer still finds what lol_html found,
//! this module asks a different question: what would the extraction give on the tree a
//! browser builds? html5ever runs the whole HTML5 tree construction (adoption agency,
//! foster parenting, implied and stray end tags, `</br>` and `</p>` turned into
//! elements, `<image>` into `<img>`, template contents in a fragment of their own),
//! which our tokenizer only simulates. To isolate the parser, everything else is
//! warcdex's: the charset choice and decoding ([`charset::choose`]), the white space
//! collapsing and caps ([`TextSink`]), the block elements ([`is_block`]) and the plain
//! path resolution ([`links::join_plain`]). Character references are html5ever's.
//!
//! The rules are those of [`ParsedHtml`], read off the tree in document order:
//!
//! - title: the text of the first HTML `<title>` that is not inside an `<svg>`;
//! - text: every text node but those inside `<script>`, `<style>` (in any namespace:
//!   an SVG style sheet is no more visible than an HTML one), `<noscript>`, a
//!   `<title>` counted as one, and the raw text elements `<iframe>`, `<noembed>`,
//!   `<noframes>`, `<xmp>` (raw text to the tokenizer, as in warcdex); a template's
//!   contents are not children, so they are never walked; block elements separate
//!   words at their start and end;
//! - outlinks: `<a href>` (HTML or SVG), `<area href>`, `<frame src>`, `<iframe src>`
//!   in document order, resolved against the first `<base href>` of the tree (for the
//!   links before it too), then the links of each `<noscript>`'s content parsed as a
//!   document of its own, at the place of its end; anchor text as in warcdex (a
//!   nested `<a>` ends the outer anchor's text).

use html5ever::tendril::TendrilSink;
use html5ever::{ns, ParseOpts};
use markup5ever_rcdom::{Handle, NodeData, RcDom};
use url::Url;

use crate::html::handler::is_block;
use crate::html::text_sink::TextSink;
use crate::html::tokenizer::name_hash;
use crate::html::Outlink;
use crate::html::{
    charset, strip_bom, ParsedHtml, Robots, MAX_ANCHOR, MAX_HREF, MAX_NOSCRIPT, MAX_OUTLINKS,
    MAX_TITLE,
};

/// Decodes `body` as [`crate::html::parse_html`] does, builds html5ever's tree (scripting on,
/// as warcdex's tokenizer reads `<noscript>`) and reads the extraction off it.
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
    let (html, _) = enc.decode_without_bom_handling(body);

    let dom = html5ever::parse_document(RcDom::default(), ParseOpts::default()).one(&*html);
    let mut w = Walker::new(limit);
    w.walk(&dom.document);
    w.close_anchor(None);
    let outlinks = w.resolve_links(doc_url.as_ref());
    let title = w.title.finish();
    ParsedHtml {
        title: (!title.is_empty()).then_some(title),
        truncated: w.text.truncated,
        text: w.text.finish(),
        outlinks,
        robots: w.robots,
        charset: enc.name(),
        charset_source: source,
    }
}

/// A link as found in the tree, resolved once the whole tree has been read.
enum Link {
    /// A target as written (entities decoded by html5ever) and its anchor text.
    Href { raw: String, anchor: String },
    /// A `<noscript>`'s content (raw text), parsed for links at the end.
    Noscript(String),
}

/// The `<a href>` whose text is being collected.
struct OpenAnchor {
    /// Its element's number, so that only its own end closes it.
    id: u64,
    /// Its entry in `links`.
    index: usize,
    text: TextSink,
    alt: TextSink,
}

/// What to do at an element's end.
#[derive(Default)]
struct End {
    boundary: bool,
    hidden: bool,
    svg: bool,
    title: bool,
    /// The anchor to close, if still open.
    anchor: Option<u64>,
    /// The content of a `<noscript>`, parsed for links.
    noscript: Option<String>,
}

/// A step of the walk: an element or text to enter, or an element to end.
enum Step {
    Node(Handle),
    End(End),
}

/// What the walk collects.
struct Walker {
    text: TextSink,
    title: TextSink,
    /// The first title has been seen (and its text taken).
    title_seen: bool,
    /// Inside the first title: its text goes to `title`.
    in_title: bool,
    /// Inside elements whose text is not shown.
    hidden: u32,
    svg_depth: u32,
    anchor: Option<OpenAnchor>,
    next_id: u64,
    links: Vec<Link>,
    /// The target of the first `<base href>`, as written.
    base: Option<String>,
    robots: Robots,
}

impl Walker {
    fn new(limit: usize) -> Self {
        Walker {
            text: TextSink::new(limit),
            title: TextSink::new(MAX_TITLE),
            title_seen: false,
            in_title: false,
            hidden: 0,
            svg_depth: 0,
            anchor: None,
            next_id: 0,
            links: Vec::new(),
            base: None,
            robots: Robots::default(),
        }
    }

    /// Walks the tree in document order, without recursion (a page may nest elements
    /// tens of thousands deep).
    fn walk(&mut self, root: &Handle) {
        let mut stack = vec![Step::Node(root.clone())];
        while let Some(step) = stack.pop() {
            match step {
                Step::End(end) => self.end(end),
                Step::Node(node) => {
                    if let NodeData::Text { contents } = &node.data {
                        self.on_text(&contents.borrow());
                        continue;
                    }
                    if let NodeData::Element { .. } = &node.data {
                        let end = self.start(&node);
                        stack.push(Step::End(end));
                    } else if !matches!(node.data, NodeData::Document) {
                        // Comments, doctypes, processing instructions: no text.
                        continue;
                    }
                    // A template's contents are in `template_contents`, not among its
                    // children: they are never walked (inert, as in warcdex).
                    let children = node.children.borrow();
                    stack.extend(children.iter().rev().map(|c| Step::Node(c.clone())));
                }
            }
        }
    }

    /// An element's start: what it means, and what to do at its end.
    fn start(&mut self, node: &Handle) -> End {
        let NodeData::Element { name, attrs, .. } = &node.data else {
            return End::default();
        };
        let attrs = attrs.borrow();
        let attr = |n: &str| {
            attrs
                .iter()
                .find(|a| a.name.ns == ns!() && &*a.name.local == n)
                .map(|a| a.value.to_string())
        };
        let html = name.ns == ns!(html);
        let local = &*name.local;
        let mut end = End::default();
        match local {
            // An SVG `<a>` is a link too, as warcdex sees it.
            "a" if html || name.ns == ns!(svg) => {
                // An `<a>` inside an open `<a>` ends its text (warcdex's rule; the
                // tree builder seldom lets one nest).
                self.close_anchor(None);
                if let Some(raw) = attr("href") {
                    self.next_id += 1;
                    let id = self.next_id;
                    self.links.push(Link::Href {
                        raw,
                        anchor: String::new(),
                    });
                    self.anchor = Some(OpenAnchor {
                        id,
                        index: self.links.len() - 1,
                        text: TextSink::new(MAX_ANCHOR),
                        alt: TextSink::new(MAX_ANCHOR),
                    });
                    end.anchor = Some(id);
                }
            }
            "area" if html => {
                if let Some(raw) = attr("href") {
                    let mut sink = TextSink::new(MAX_ANCHOR);
                    sink.push(&attr("alt").unwrap_or_default());
                    let anchor = sink.finish();
                    self.links.push(Link::Href { raw, anchor });
                }
            }
            "frame" | "iframe" if html => {
                self.boundary(&mut end);
                if let Some(raw) = attr("src") {
                    self.links.push(Link::Href {
                        raw,
                        anchor: String::new(),
                    });
                }
                // An iframe's content is raw text (fallback never shown).
                self.hide(&mut end);
            }
            "img" if html => {
                self.boundary(&mut end);
                if let (Some(a), Some(alt)) = (self.anchor.as_mut(), attr("alt")) {
                    a.alt.boundary();
                    a.alt.push(&alt);
                    a.alt.boundary();
                }
            }
            // Only the first `<base href>` counts, even when it does not parse; it is
            // joined to the document URL at the end.
            "base" if html && self.base.is_none() => self.base = attr("href"),
            "meta" if html => {
                let robots = attr("name").is_some_and(|n| n.trim().eq_ignore_ascii_case("robots"));
                if let (true, Some(content)) = (robots, attr("content")) {
                    self.robots.add(&content);
                }
            }
            "title" if html && self.svg_depth == 0 => {
                if self.title_seen {
                    self.hide(&mut end);
                } else {
                    self.title_seen = true;
                    self.in_title = true;
                    end.title = true;
                }
            }
            "noscript" if html => {
                let mut content = String::new();
                for c in node.children.borrow().iter() {
                    if let NodeData::Text { contents } = &c.data {
                        let s = contents.borrow();
                        let room = MAX_NOSCRIPT.saturating_sub(content.len());
                        let mut cut = s.len().min(room);
                        while !s.is_char_boundary(cut) {
                            cut -= 1;
                        }
                        content.push_str(&s[..cut]);
                    }
                }
                end.noscript = Some(content);
                self.hide(&mut end);
            }
            "script" | "style" => self.hide(&mut end),
            "noembed" | "noframes" | "xmp" if html => self.hide(&mut end),
            "svg" if name.ns == ns!(svg) => {
                self.boundary(&mut end);
                self.svg_depth += 1;
                end.svg = true;
            }
            _ if is_block(name_hash(local.as_bytes())) => self.boundary(&mut end),
            _ => {}
        }
        end
    }

    fn end(&mut self, end: End) {
        if end.boundary {
            self.text_boundary();
        }
        if end.hidden {
            self.hidden -= 1;
        }
        if end.svg {
            self.svg_depth -= 1;
        }
        if end.title {
            self.in_title = false;
        }
        if let Some(id) = end.anchor {
            self.close_anchor(Some(id));
        }
        if let Some(content) = end.noscript {
            self.links.push(Link::Noscript(content));
        }
    }

    fn on_text(&mut self, s: &str) {
        if self.in_title {
            self.title.push(s);
            return;
        }
        if self.hidden > 0 {
            return;
        }
        self.text.push(s);
        if let Some(a) = self.anchor.as_mut() {
            a.text.push(s);
        }
    }

    /// A word boundary at the element's start and at its end.
    fn boundary(&mut self, end: &mut End) {
        self.text_boundary();
        end.boundary = true;
    }

    fn text_boundary(&mut self) {
        self.text.boundary();
        if let Some(a) = self.anchor.as_mut() {
            a.text.boundary();
        }
    }

    /// The element's text is not shown.
    fn hide(&mut self, end: &mut End) {
        self.hidden += 1;
        end.hidden = true;
    }

    /// Closes the open anchor (only the one with `id` when given) and stores its text.
    fn close_anchor(&mut self, id: Option<u64>) {
        if id.is_some_and(|id| self.anchor.as_ref().is_none_or(|a| a.id != id)) {
            return;
        }
        if let Some(a) = self.anchor.take() {
            let text = a.text.finish();
            let text = if text.is_empty() {
                a.alt.finish()
            } else {
                text
            };
            if let Some(Link::Href { anchor, .. }) = self.links.get_mut(a.index) {
                *anchor = text;
            }
        }
    }

    /// The outlinks, resolved against the first `<base href>` (or the document URL),
    /// with those of each `<noscript>` in its place, capped at [`MAX_OUTLINKS`].
    fn resolve_links(&mut self, doc_url: Option<&Url>) -> Vec<Outlink> {
        let base = self.base.take().and_then(|href| match doc_url {
            Some(d) => d.join(href.trim()).ok(),
            None => Url::parse(href.trim()).ok(),
        });
        let base = base.as_ref().or(doc_url);
        let mut out = Vec::new();
        for link in std::mem::take(&mut self.links) {
            match link {
                Link::Href { raw, anchor } => {
                    if let Some(url) = resolve(base, &raw) {
                        out.push(Outlink { url, anchor });
                    }
                }
                Link::Noscript(content) => {
                    let url = base.map(|u| u.as_str().to_string()).unwrap_or_default();
                    let inner = parse_html(
                        content.as_bytes(),
                        Some("text/html; charset=utf-8"),
                        &url,
                        1,
                    );
                    out.extend(inner.outlinks);
                }
            }
        }
        out.truncate(MAX_OUTLINKS);
        out
    }
}

/// A link target resolved as warcdex resolves one (`State::resolve`), but from the
/// attribute value html5ever decoded: `None` for empty and fragment-only targets,
/// those that do not parse, and other schemes than http, https and ftp.
fn resolve(base: Option<&Url>, href: &str) -> Option<String> {
    if href.len() > MAX_HREF {
        return None;
    }
    crate::html::outlinks::resolve_decoded(base, href)
}
