//! The query's words as the snippet finder looks for them in a page's text, prepared
//! once per search instead of once per hit.
//!
//! Why: under `scripts/bench-serve.sh` the snippets were a third of the server's cycles
//! (issue 22): three byte searches of the whole page per word to place the window, and
//! tantivy's snippet generator tokenizing 4 KiB heads that held none of the words. One
//! Aho-Corasick pass places the window at the same byte, and a page part that is ASCII
//! and holds no word in any case cannot give a highlighted snippet, so it is not
//! tokenized (the `warcdex` analyzer, `src/index/analysis.rs`, turns ASCII text into
//! ASCII-lowercased substrings of it).

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

/// The words of a query (its terms' text, as indexed: lower case), with the forms the
/// window search looks for.
pub(crate) struct QueryWords {
    /// Each word, its form with a capital (first byte upper-cased, when it is ASCII), and
    /// its upper-case form, for the leftmost of any of them; `None` without words.
    forms: Option<AhoCorasick>,
    /// The words themselves.
    words: Vec<String>,
}

impl QueryWords {
    /// The finder of `words` (non-empty, distinct).
    pub(crate) fn new(words: Vec<String>) -> Self {
        let mut forms: Vec<String> = Vec::with_capacity(3 * words.len());
        for w in &words {
            let mut capital = w.clone();
            if let Some(c) = capital.get_mut(..1) {
                c.make_ascii_uppercase();
            }
            let upper = w.to_uppercase();
            forms.extend([w.clone(), capital, upper]);
        }
        let forms = (!forms.is_empty()).then(|| {
            // The NFA, not the DFA the builder would pick for so few words: the DFA's
            // construction was 5 % of a loaded server's cycles (one per search, issue 22),
            // more than it saved on the few KiB searched.
            AhoCorasick::builder()
                .kind(Some(AhoCorasickKind::NoncontiguousNFA))
                .match_kind(MatchKind::LeftmostFirst)
                .build(&forms)
                .expect("a few short words make a small automaton")
        });
        QueryWords { forms, words }
    }

    /// Byte offset of the first place in `text` where a word appears as written, with a
    /// capital, or in capitals.
    pub(crate) fn first_in(&self, text: &[u8]) -> Option<usize> {
        self.forms.as_ref()?.find(text).map(|m| m.start())
    }

    /// False when `part` cannot hold a word as the analyzer tokenizes it: it is ASCII and
    /// no word is in it in any case. True otherwise (it may).
    pub(crate) fn may_be_in(&self, part: &str, lower: &mut Vec<u8>) -> bool {
        if !part.is_ascii() {
            return true;
        }
        lower.clear();
        lower.extend(part.bytes().map(|b| b.to_ascii_lowercase()));
        (self.words.iter()).any(|w| memchr::memmem::find(lower, w.as_bytes()).is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[&str]) -> QueryWords {
        QueryWords::new(w.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn the_leftmost_of_every_form() {
        let q = words(&["index", "postgresql"]);
        assert_eq!(q.first_in(b"An INDEX on PostgreSQL"), Some(3));
        assert_eq!(q.first_in(b"Postgresql, then index"), Some(0));
        // Mixed case is none of the three forms.
        assert_eq!(q.first_in(b"PostgreSQL is here"), None);
        assert_eq!(words(&[]).first_in(b"anything"), None);
    }

    #[test]
    fn ascii_parts_without_a_word_are_ruled_out() {
        let q = words(&["postgresql"]);
        let mut buf = Vec::new();
        assert!(q.may_be_in("Using PostgreSQL today", &mut buf));
        assert!(!q.may_be_in("Using MySQL today", &mut buf));
        // Not ASCII: folding could make the word, so it may be there.
        assert!(q.may_be_in("Café", &mut buf));
        assert!(!words(&[]).may_be_in("no words", &mut buf));
    }
}
