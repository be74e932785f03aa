//! The page's outlinks: `<a href>` with its text (or its images' alt text), `<area>`,
//! `<frame>` and `<iframe>`, resolved against the first `<base href>`, and the links of
//! `<noscript>` content, in document order and capped.

use url::Url;

use super::entities::{self, Context};
use super::handler::{Mark, State, END_ANCHOR};
use super::text_sink::TextSink;
use super::tokenizer::{self, StartTag};
use super::{links, Outlink, MAX_ANCHOR, MAX_HREF, MAX_OUTLINKS};

/// The `<a href>` whose text is being collected.
pub(super) struct OpenAnchor {
    /// Tells its end tag handler apart from those of earlier, implicitly closed anchors.
    pub(super) id: u64,
    /// Its entry in `outlinks`, pushed at the start tag to keep document order.
    pub(super) index: usize,
    pub(super) text: TextSink,
    pub(super) alt: TextSink,
}

impl State {
    pub(super) fn on_anchor(&mut self, el: &StartTag<'_>, mark: &mut Mark) {
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

    /// Resolves a link target, or `None` for links that lead nowhere an index cares
    /// about: empty, fragment-only, `javascript:`, `mailto:`, `data:` and other non-web
    /// schemes.
    pub(super) fn resolve(&self, raw: &str) -> Option<String> {
        if raw.len() > MAX_HREF {
            return None;
        }
        let href = entities::decode(raw, Context::Attribute);
        resolve_decoded(self.base.as_ref().or(self.doc_url.as_ref()), &href)
    }

    /// The links of the `<noscript>` that just ended: a crawler without scripts (and
    /// NutchWAX) sees its content as markup, where a browser with scripts (and HTML5's
    /// tokenizer, which this follows) sees text. Its text stays out of the page's text.
    pub(super) fn noscript_links(&mut self) {
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
    pub(super) fn push_outlink(&mut self, raw: &str, url: String, anchor: String) -> Option<usize> {
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
    pub(super) fn rebase(&mut self) {
        for (i, raw) in std::mem::take(&mut self.before_base) {
            if let Some(u) = self.resolve(&raw) {
                self.outlinks[i].url = u;
            }
        }
    }

    /// Closes the open anchor (only the one with `id` when given) and stores its text.
    pub(super) fn close_anchor(&mut self, id: Option<u64>) {
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
/// Shared with the lol_html oracle (`tests/lol_reference.rs`).
pub(super) fn as_written(
    outlinks: Vec<Outlink>,
    before_base: Vec<(usize, String)>,
) -> Vec<(String, Outlink)> {
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
/// Shared with the html5ever oracle (`tests/html5ever_reference.rs`), so that the two differ
/// only in their parsers.
pub(super) fn resolve_decoded(base: Option<&Url>, href: &str) -> Option<String> {
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
