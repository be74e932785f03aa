//! The snippet of a hit: the window of the page's text it is cut from, the lead shown
//! when no query word is in it, and the snippet generators of a query (`snippet.rs`).

use std::borrow::Cow;
use std::ops::Range;

use tantivy::query::Query;

use super::hits::Snippet;
use super::query_words::QueryWords;
use super::set::OpenSet;
use super::snippet::Highlighter;
use super::stats::{snippet_weights, Statistics, TermStats};
use super::stored::stored_str;

/// Tokenizing a whole page to pick 200 characters costs more than the search itself
/// (it was 60 % of a loaded server's time). So the snippet is cut from a window: from a
/// little before the first place a query word appears (found by a byte search) to
/// `SNIPPET_WINDOW` bytes on; when no word is found that way, from the page's first
/// `SNIPPET_FALLBACK` bytes.
const SNIPPET_WINDOW: usize = 1 << 10;
const SNIPPET_FALLBACK: usize = 4 << 10;

/// Characters in a snippet.
const SNIPPET_CHARS: usize = 200;

fn cut(s: &str, max: usize) -> &str {
    &s[..cut_len(s.as_bytes(), max)]
}

/// The length of the longest start of UTF-8 `text` of at most `max` bytes that ends on a
/// character boundary (`str::is_char_boundary`, on bytes whose UTF-8 is not yet checked).
fn cut_len(text: &[u8], max: usize) -> usize {
    if text.len() <= max {
        return text.len();
    }
    let mut end = max;
    while !is_char_boundary(text, end) {
        end -= 1;
    }
    end
}

/// `str::is_char_boundary` for bytes (the same answer when they are UTF-8).
fn is_char_boundary(text: &[u8], i: usize) -> bool {
    // Not a continuation byte (0b10xx_xxxx).
    i == 0 || i >= text.len() || (text[i] as i8) >= -0x40
}

/// The part of `text` around the first occurrence of a query word (as indexed, lower
/// case, or with a capital, or all capitals), starting at a word boundary. Only the
/// bytes before the word that decide the start are checked as UTF-8 here.
fn window(text: &[u8], words: &QueryWords) -> tantivy::Result<Option<Range<usize>>> {
    let Some(p) = words.first_in(text) else {
        return Ok(None);
    };
    let mut start = p.saturating_sub(SNIPPET_CHARS / 2);
    while !is_char_boundary(text, start) {
        start -= 1;
    }
    if start > 0 {
        // Begin after a space, not inside a word.
        start = stored_str(&text[start..p])?
            .find(char::is_whitespace)
            .map_or(p, |i| start + i + 1);
    }
    let len = cut_len(&text[start..], SNIPPET_WINDOW + (p - start));
    Ok(Some(start..start + len))
}

/// Bytes of a text enough for [`lead`] to give what it gives for the whole text: its
/// first `SNIPPET_CHARS` bytes and the character after them.
const LEAD_BYTES: usize = SNIPPET_CHARS + 8;

/// [`lead`] of UTF-8 `text`, reading only its start.
fn lead_of(text: &[u8]) -> tantivy::Result<Snippet> {
    Ok(lead(stored_str(&text[..cut_len(text, LEAD_BYTES)])?))
}

/// The first words of a text, when no query word is in it (a title or date match).
fn lead(text: &str) -> Snippet {
    let mut end = 0;
    for (i, c) in text.char_indices() {
        if i >= SNIPPET_CHARS {
            break;
        }
        if c.is_whitespace() {
            end = i;
        }
        if i + c.len_utf8() == text.len() {
            end = text.len();
        }
    }
    if end == 0 {
        end = cut(text, SNIPPET_CHARS).len();
    }
    Snippet {
        text: text[..end].trim().to_string(),
        highlighted: Vec::new(),
    }
}

/// Snippet generators, made per set on first use for a query.
pub(crate) struct Snippets<'q> {
    query: Option<&'q dyn Query>,
    /// The collection's statistics of the query's terms, which weigh its words.
    stats: &'q TermStats,
    generators: Vec<Option<Highlighter>>,
    /// The query's words, as indexed (a superset of its words in the content field).
    words: QueryWords,
    /// Scratch for [`QueryWords::may_be_in`].
    lower: Vec<u8>,
}

impl<'q> Snippets<'q> {
    pub(crate) fn new(query: Option<&'q dyn Query>, stats: &'q TermStats, sets: usize) -> Self {
        let mut words = Vec::new();
        if let Some(q) = query {
            q.query_terms(&mut |term, _| {
                if let Some(w) = term.value().as_str() {
                    if !w.is_empty() && !words.iter().any(|x: &String| x == w) {
                        words.push(w.to_string());
                    }
                }
            });
        }
        Snippets {
            query,
            stats,
            words: QueryWords::new(words),
            lower: Vec::new(),
            generators: (0..sets).map(|_| None).collect(),
        }
    }

    /// The snippet of a document: from its main content (`main`, which may be empty)
    /// when the query's words are there, else from its whole text; with no word found
    /// in either, the start of the main content (or of the text).
    pub(super) fn snippet_of<'t>(
        &mut self,
        sets: &[OpenSet],
        set: usize,
        main: &[u8],
        text: impl FnOnce() -> Cow<'t, [u8]>,
    ) -> tantivy::Result<Snippet> {
        if !main.is_empty() {
            if let Some(sn) = self.highlighted(sets, set, main)? {
                return Ok(sn);
            }
            if self.query.is_none() {
                // No word to mark in the text either (a search by filters only).
                return lead_of(main);
            }
        }
        // The whole text is read only now; its parts, as the main content's, are checked
        // as UTF-8 where they are read.
        let text = text();
        if !text.is_empty() {
            if let Some(sn) = self.highlighted(sets, set, &text)? {
                return Ok(sn);
            }
        }
        lead_of(if main.is_empty() { &text } else { main })
    }

    /// A snippet of `text` with at least one of the query's words marked, if it has one.
    fn highlighted(
        &mut self,
        sets: &[OpenSet],
        set: usize,
        text: &[u8],
    ) -> tantivy::Result<Option<Snippet>> {
        let Some(q) = self.query else {
            return Ok(None);
        };
        if self.generators[set].is_none() {
            let s = &sets[set];
            let stats = Statistics {
                stats: self.stats,
                searcher: &s.searcher,
            };
            let field = s.fields.content;
            let weights = snippet_weights(&stats, q, field)?;
            let tokenizer = s.searcher.index().tokenizer_for_field(field)?;
            let schema = s.searcher.schema();
            let h = Highlighter::new(weights, tokenizer, schema, field, SNIPPET_CHARS);
            self.generators[set] = Some(h);
        }
        let g = self.generators[set].as_ref().expect("just made");
        let head = cut_len(text, SNIPPET_FALLBACK);
        let win = window(text, &self.words)?;
        // The head is worth a second try (a word in mixed case, say "PostgreSQL") unless
        // the window already covered it.
        let covered = win.as_ref().is_some_and(|w| w.start == 0 && w.end >= head);
        let tries = win.into_iter().chain((!covered).then_some(0..head));
        for range in tries {
            let part = stored_str(&text[range])?;
            if !self.words.may_be_in(part, &mut self.lower) {
                continue;
            }
            if let Some((text, highlighted)) = g.fragment(part) {
                return Ok(Some(Snippet { text, highlighted }));
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lead_of_a_texts_start_is_the_lead_of_the_text() {
        // Lengths around the bytes read, with characters of 1 to 4 bytes and spaces.
        let chars = ["a", " ", "é", "€", "𝄞", "\u{a0}"];
        for len in 0..260 {
            for (k, first) in chars.iter().enumerate() {
                let mut t = String::from(*first);
                let mut i = k;
                while t.len() < len {
                    i = (i * 7 + 3) % chars.len();
                    t.push_str(chars[i]);
                }
                assert_eq!(lead_of(t.as_bytes()).unwrap(), lead(&t), "{t:?}");
            }
        }
    }

    #[test]
    fn the_window_checks_the_bytes_it_reads() {
        let words = QueryWords::new(vec!["index".to_string()]);
        let text = format!("{} word index {}", "x ".repeat(100), "y".repeat(2000));
        let p = text.find("index").unwrap();
        let r = window(text.as_bytes(), &words).unwrap().unwrap();
        // From after a space at most 100 bytes before the word, to 1 KiB past it.
        assert!(r.start + 100 >= p && r.start < p && text[..r.start].ends_with(' '));
        assert_eq!(r.end, p + SNIPPET_WINDOW);
        let mut bad = text.clone().into_bytes();
        bad[p - 3] = 0xff;
        assert!(window(&bad, &words).is_err(), "not UTF-8 before the word");
        bad[p - 3] = b'r';
        bad[p + 1500] = 0xff;
        assert_eq!(
            window(&bad, &words).unwrap(),
            Some(r),
            "the bytes after are not read"
        );
        assert_eq!(window(b"no such word", &words).unwrap(), None);
    }
}
