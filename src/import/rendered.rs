//! Rendered text: the words a browser crawler recorded after a page's scripts ran, which
//! a page built by JavaScript (an HTML shell: a title, a script, an empty `<div>`) holds
//! nowhere else. Browsertrix Crawler writes them as a `resource` record whose target is
//! `urn:text:URL` (`--text to-warc`, the text at load) or `urn:textFinal:URL`
//! (`--text final-to-warc`, after the crawler's behaviours ran), ArchiveWeb.page as
//! `urn:text:DATE14/URL`, and both as the `text` of the page's line in a WACZ's
//! `pages/pages.jsonl` (`--text to-pages`).
//!
//! Such a text is not a capture of its own: it is joined to the page capture it
//! describes (the same URL key, the capture nearest its date in the same archive or
//! WACZ) and goes to that capture's version, whose text it becomes when it is the
//! richest source the version has (final, then text, then the page list, then the
//! HTML's own). A text read before its page waits for it (within a byte budget);
//! what finds no page by the archive's end is counted, never indexed on its own.

use std::collections::HashMap;

use warcdex_cdx::rendered::TextSource;

use super::versions::{Order, VersionKey};

/// A page capture a rendered text may join: its date (seconds) and version.
struct PageCapture {
    seconds: i64,
    version: VersionKey,
}

/// A rendered text waiting for its page.
struct Waiting {
    order: Order,
    source: TextSource,
    text: String,
}

/// Bytes a remembered page capture costs, counted roughly (besides its key's bytes).
const PAGE_OVERHEAD: usize = 96;

/// What a joined text is handed to: its page's version, the text record's order, the
/// source and the text.
pub(super) type Join<'a> = &'a mut dyn FnMut(&VersionKey, &Order, TextSource, String);

/// The page captures of one archive (or WACZ) and the rendered texts waiting for
/// theirs, within a byte budget each. Page captures are remembered in two generations
/// (the older dropped when the newer fills half the budget): a crawler writes a page's
/// text records just after the page, so the recent pages are the ones asked for.
pub(super) struct PageJoin {
    pages: HashMap<String, Vec<PageCapture>>,
    older: HashMap<String, Vec<PageCapture>>,
    page_bytes: usize,
    waiting: HashMap<String, Vec<Waiting>>,
    waiting_bytes: usize,
    budget: usize,
    /// Texts joined to a page.
    pub(super) joined: u64,
    /// Texts that found no page (or came past the budget).
    pub(super) unmatched: u64,
}

impl PageJoin {
    /// A join holding at most `budget` bytes of page captures and as many of waiting texts.
    pub(super) fn new(budget: usize) -> PageJoin {
        PageJoin {
            pages: HashMap::new(),
            older: HashMap::new(),
            page_bytes: 0,
            waiting: HashMap::new(),
            waiting_bytes: 0,
            budget,
            joined: 0,
            unmatched: 0,
        }
    }

    /// A page capture of `urlkey` at `seconds` of `version`: remembered, and given the
    /// texts that waited for a page of its URL.
    pub(super) fn page(&mut self, urlkey: &str, seconds: i64, version: &VersionKey, join: Join) {
        if let Some(waiting) = self.waiting.remove(urlkey) {
            for w in waiting {
                self.waiting_bytes -= w.text.len() + PAGE_OVERHEAD;
                self.joined += 1;
                join(version, &w.order, w.source, w.text);
            }
        }
        let cost = urlkey.len() + version.0.len() + version.1.len() + PAGE_OVERHEAD;
        if self.page_bytes + cost > self.budget / 2 {
            self.older = std::mem::take(&mut self.pages);
            self.page_bytes = 0;
        }
        self.page_bytes += cost;
        (self.pages.entry(urlkey.to_string()).or_default()).push(PageCapture {
            seconds,
            version: version.clone(),
        });
    }

    /// A rendered text of `urlkey`'s page at `seconds`: joined to the page's capture
    /// nearest that time, or kept until one comes (`wait`: false for a page list read
    /// after the archive, whose pages have all come).
    pub(super) fn text(&mut self, urlkey: &str, text: Text, wait: bool, join: Join) {
        let nearest = (self.pages.get(urlkey).into_iter())
            .chain(self.older.get(urlkey))
            .flatten()
            .min_by_key(|c| (c.seconds - text.seconds).abs());
        if let Some(c) = nearest {
            self.joined += 1;
            join(&c.version, &text.order, text.source, text.text);
            return;
        }
        let cost = text.text.len() + PAGE_OVERHEAD;
        if !wait || self.waiting_bytes + cost > self.budget {
            self.unmatched += 1;
            return;
        }
        self.waiting_bytes += cost;
        (self.waiting.entry(urlkey.to_string()).or_default()).push(Waiting {
            order: text.order,
            source: text.source,
            text: text.text,
        });
    }

    /// The archive ended: the texts still waiting found no page.
    pub(super) fn finish(&mut self) {
        self.unmatched += self.waiting.values().map(|w| w.len() as u64).sum::<u64>();
        self.waiting.clear();
        self.waiting_bytes = 0;
    }
}

/// A rendered text as read: when, where in the import, which source, the words.
pub(super) struct Text {
    /// The page's time the text gives (seconds since 1970).
    pub(super) seconds: i64,
    /// Where the text's record sits (its page list's place for `pages.jsonl`).
    pub(super) order: Order,
    /// Which text it is.
    pub(super) source: TextSource,
    /// The words.
    pub(super) text: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(n: u64) -> Order {
        ("20240101000000".into(), 0, 0, n)
    }

    fn text(seconds: i64, n: u64, words: &str) -> Text {
        Text {
            seconds,
            order: order(n),
            source: TextSource::Text,
            text: words.into(),
        }
    }

    #[test]
    fn a_text_joins_the_nearest_capture_of_its_page_before_or_after_it() {
        let mut got = Vec::new();
        let mut join = |v: &VersionKey, _: &Order, _: TextSource, t: String| {
            got.push((v.1.clone(), t));
        };
        let mut j = PageJoin::new(1 << 20);
        let key = |d: &str| ("com,example)/".to_string(), d.to_string());
        j.text("com,example)/", text(500, 1, "early"), true, &mut join);
        j.page("com,example)/", 100, &key("sha1:A"), &mut join);
        j.page("com,example)/", 1000, &key("sha1:B"), &mut join);
        j.text("com,example)/", text(900, 2, "late"), true, &mut join);
        j.text("com,other)/", text(900, 3, "lost"), true, &mut join);
        j.text("com,other)/", text(900, 4, "no wait"), false, &mut join);
        j.finish();
        assert_eq!(
            got,
            vec![
                ("sha1:A".into(), "early".into()),
                ("sha1:B".into(), "late".into())
            ]
        );
        assert_eq!((j.joined, j.unmatched), (2, 2));
    }

    #[test]
    fn page_captures_are_remembered_in_two_generations() {
        let mut got = Vec::new();
        let mut join = |v: &VersionKey, _: &Order, _: TextSource, _: String| got.push(v.0.clone());
        let mut j = PageJoin::new(4 * (PAGE_OVERHEAD + 3));
        let v = |k: &str| (k.to_string(), String::new());
        for k in ["a", "b", "c", "d", "e"] {
            j.page(k, 0, &v(k), &mut join);
        }
        for k in ["a", "b", "c", "d", "e"] {
            j.text(k, text(0, 1, "w"), false, &mut join);
        }
        // The budget holds two pages a generation: a and b were dropped with the first.
        assert_eq!(got, ["c", "d", "e"]);
        assert_eq!(j.unmatched, 2);
    }

    #[test]
    fn texts_past_the_budget_are_counted_not_kept() {
        let mut join = |_: &VersionKey, _: &Order, _: TextSource, _: String| {};
        let mut j = PageJoin::new(PAGE_OVERHEAD + 10);
        j.text("k", text(0, 1, "0123456789"), true, &mut join);
        j.text("k", text(0, 2, "0123456789"), true, &mut join);
        assert_eq!(j.unmatched, 1);
        j.finish();
        assert_eq!(j.unmatched, 2);
    }
}
