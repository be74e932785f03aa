//! The query's words as the snippet finder looks for them in a page's text, prepared
//! once per search instead of once per hit.
//!
//! Why: under `scripts/bench-serve.sh` the snippets were a third of the server's cycles:
//! three byte searches of the whole page per word to place the window, and
//! tantivy's snippet generator tokenizing 4 KiB heads that held none of the words. A
//! substring finder per form of a word, a stretch of the page at a time (a form found
//! bounds where the next forms are looked for), places the window at the same byte; and
//! a page part that holds no word in any case and no letter outside ASCII cannot give a
//! highlighted snippet (the analyzers cut such text into lower-cased runs of ASCII
//! letters and digits, `src/schema/analysis.rs`), so it is not scanned for one.

use memchr::memmem::Finder;

/// Bytes searched at a time by every form before the next stretch: a word found early
/// ends the search without the other forms reading the whole text.
const STRETCH: usize = 8 << 10;

/// The words of a query (its terms' text, as indexed: lower case), with the forms the
/// window search looks for.
pub(crate) struct QueryWords {
    /// Each word, its form with a capital (first byte upper-cased, when it is ASCII), and
    /// its upper-case form (each distinct form once).
    forms: Vec<Finder<'static>>,
    /// The longest form's length.
    longest: usize,
    /// The words themselves.
    words: Vec<String>,
}

impl QueryWords {
    /// The finder of `words` (non-empty, distinct).
    ///
    /// A substring finder per form, not one Aho-Corasick automaton for all: building the
    /// automaton for every search was 3-5 % of a loaded server's cycles, more
    /// than the few KiB it searched.
    pub(crate) fn new(words: Vec<String>) -> Self {
        let mut forms: Vec<String> = Vec::with_capacity(3 * words.len());
        for w in &words {
            let mut capital = w.clone();
            if let Some(c) = capital.get_mut(..1) {
                c.make_ascii_uppercase();
            }
            let upper = w.to_uppercase();
            for f in [w.clone(), capital, upper] {
                if !f.is_empty() && !forms.contains(&f) {
                    forms.push(f);
                }
            }
        }
        let longest = forms.iter().map(String::len).max().unwrap_or(0);
        QueryWords {
            forms: (forms.iter())
                .map(|f| Finder::new(f.as_bytes()).into_owned())
                .collect(),
            longest,
            words,
        }
    }

    /// Byte offset of the first place in `text` where a word appears as written, with a
    /// capital, or in capitals.
    pub(crate) fn first_in(&self, text: &[u8]) -> Option<usize> {
        let mut from = 0;
        while from < text.len() && !self.forms.is_empty() {
            // Every form starting in `from..from + STRETCH` ends before `end`.
            let end = text.len().min(from + STRETCH + self.longest);
            let stretch = &text[from..end];
            // Once a form is found at `at`, the next forms are looked for only where
            // they would start before it: most pages hold the word as written early,
            // and then the other forms read a few bytes, not the stretch.
            let mut first: Option<usize> = None;
            for f in &self.forms {
                let len = f.needle().len();
                let hay = match first {
                    Some(at) => &stretch[..(at + len).saturating_sub(1).min(stretch.len())],
                    None => stretch,
                };
                if let Some(at) = f.find(hay) {
                    first = Some(at);
                }
            }
            if let Some(at) = first {
                return Some(from + at);
            }
            from += STRETCH;
        }
        None
    }

    /// False when `part` cannot hold a word as the analyzer tokenizes it: no word is in
    /// it in any case, and every letter and digit in it is ASCII (so its tokens are runs
    /// of ASCII letters and digits, lower-cased, as `src/search/snippet.rs` says). True
    /// otherwise (it may).
    pub(crate) fn may_be_in(&self, part: &str, lower: &mut Vec<u8>) -> bool {
        lower.clear();
        lower.extend(part.bytes().map(|b| b.to_ascii_lowercase()));
        if (self.words.iter()).any(|w| memchr::memmem::find(lower, w.as_bytes()).is_some()) {
            return true;
        }
        // A letter that is not ASCII may be lower-cased or folded into a word.
        super::ascii_words::token_char_outside_ascii(part)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[&str]) -> QueryWords {
        QueryWords::new(w.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn a_word_across_stretches_is_found_where_it_starts() {
        let q = words(&["index", "postgresql"]);
        for at in [
            0,
            1,
            STRETCH - 7,
            STRETCH - 3,
            STRETCH,
            STRETCH + 1,
            3 * STRETCH - 2,
        ] {
            let mut text = "x".repeat(at);
            text.push_str("POSTGRESQL then index");
            text.push_str(&"y".repeat(STRETCH));
            assert_eq!(q.first_in(text.as_bytes()), Some(at), "at {at}");
            // A later form in the list found first when it comes first.
            let later = format!("{}Index then postgresql", "x".repeat(at));
            assert_eq!(q.first_in(later.as_bytes()), Some(at), "at {at}");
        }
        assert_eq!(q.first_in("z".repeat(3 * STRETCH).as_bytes()), None);
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
    fn generated_texts_give_the_leftmost_form() {
        let q = words(&["index", "postgresql", "x1"]);
        let forms = [
            "index",
            "Index",
            "INDEX",
            "postgresql",
            "Postgresql",
            "POSTGRESQL",
            "x1",
            "X1",
        ];
        let pieces = [
            "index",
            "Index",
            "INDEX",
            "InDeX",
            "postgres",
            "Postgresql",
            "POSTGRESQL",
            "x1",
            "X",
            "1",
            " ",
            "inde",
            "xindex",
        ];
        let mut rng = crate::test_rng::XorShift::new(0x853c_49e6_748f_ea9bu64);
        let mut next = |n: usize| rng.below(n);
        for _ in 0..2000 {
            // Filler of every length up to past two stretches, so that forms fall on
            // either side of a stretch's end.
            let mut t = "y".repeat(next(2 * STRETCH + 50));
            for _ in 0..next(12) {
                t.push_str(pieces[next(pieces.len())]);
                if next(3) == 0 {
                    t.push_str(&"z".repeat(next(STRETCH + 10)));
                }
            }
            let leftmost = (forms.iter())
                .filter_map(|f| memchr::memmem::find(t.as_bytes(), f.as_bytes()))
                .min();
            assert_eq!(q.first_in(t.as_bytes()), leftmost, "{} bytes", t.len());
        }
        // Forms that overlap one another ("Aaa": "Aa" at 0, "aa" at 1).
        let q = words(&["aa", "ab"]);
        let forms = ["aa", "Aa", "AA", "ab", "Ab", "AB"];
        for _ in 0..2000 {
            let t: String = (0..next(40))
                .map(|_| ['a', 'A', 'b', 'B', ' '][next(5)])
                .collect();
            let leftmost = (forms.iter())
                .filter_map(|f| memchr::memmem::find(t.as_bytes(), f.as_bytes()))
                .min();
            assert_eq!(q.first_in(t.as_bytes()), leftmost, "{t:?}");
        }
    }

    #[test]
    fn ascii_parts_without_a_word_are_ruled_out() {
        let q = words(&["postgresql"]);
        let mut buf = Vec::new();
        assert!(q.may_be_in("Using PostgreSQL today", &mut buf));
        assert!(!q.may_be_in("Using MySQL today", &mut buf));
        // A letter that is not ASCII could be folded into the word, so it may be there;
        // punctuation that is not ASCII cuts words as ASCII punctuation does.
        assert!(q.may_be_in("Café", &mut buf));
        assert!(q.may_be_in("Pöstgresql", &mut buf));
        assert!(q.may_be_in("卫生", &mut buf));
        assert!(q.may_be_in("゠", &mut buf), "in a CJK block, cut as CJK");
        assert!(!q.may_be_in("Using “MySQL” — today’s\u{a0}choice", &mut buf));
        assert!(!words(&[]).may_be_in("no words", &mut buf));
    }
}
