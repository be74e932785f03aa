//! A word of the query that no document holds, put right from the index's own words: a
//! word cut short (`accessibleextendedco`, as a reader copies an identifier) becomes the
//! most frequent indexed word it begins (`accessibleextendedcomponent`); else a word
//! misspelt becomes the most frequent indexed word within one edit (two from eight letters
//! on; tantivy's Levenshtein automaton over the term dictionary); else a word that is two
//! indexed words run together (`vreinterpretqu64`) is split (`vreinterpretq u64`). Two
//! neighbouring words of which one is unknown and whose join is indexed (`aarch 64`) are
//! joined first (`aarch64`). Asked only when a search found nothing even with one of its
//! words required (issue 61).

use tantivy::query::FuzzyTermQuery;
use tantivy::schema::Field;
use tantivy::Term;

use super::SearchIndex;

/// The shortest word completed: shorter prefixes begin too many words to guess from.
const MIN_PREFIX: usize = 4;

/// Indexed words read at most, per set, when looking for completions of one word.
const MAX_SCANNED: usize = 10_000;

/// Reads at most [`MAX_SCANNED`] words of a term stream into `$best`, keeping the one most
/// documents hold (ties: the first in byte order) other than `$skip`. A macro, not a
/// function: the streams of a range and of an automaton are of types whose trait tantivy
/// does not export.
macro_rules! keep_most_frequent {
    ($stream:ident, $skip:expr, $best:ident) => {{
        let mut scanned = 0;
        while scanned < MAX_SCANNED && $stream.advance() {
            scanned += 1;
            let Ok(term) = std::str::from_utf8($stream.key()) else {
                continue;
            };
            let n = u64::from($stream.value().doc_freq);
            let better = $best
                .as_ref()
                .is_none_or(|(m, w): &(u64, String)| n > *m || (n == *m && term < w.as_str()));
            if term != $skip && better {
                $best = Some((n, term.to_string()));
            }
        }
    }};
}

impl SearchIndex {
    /// `query` with each plain word that no live set holds (in the title or the text)
    /// put right as the module says; `None` when no word was. Only a query of plain words
    /// (what a search relaxes) is looked at. A replacement is kept only when `visible`
    /// says the asker may see a page that holds it: the term dictionary counts every
    /// document, and a suggestion must not name a word only hidden pages hold.
    pub(crate) fn suggestion(&self, query: &str, visible: &dyn Fn(&str) -> bool) -> Option<String> {
        if super::query::relaxable_words(query) == 0 {
            return None;
        }
        let mut changed = false;
        let mut out = Vec::new();
        let tokens: Vec<&str> = query.split_whitespace().collect();
        // Each word lower-cased, and whether it is plain and indexed: looked up once.
        let words: Vec<(String, bool, bool)> = (tokens.iter())
            .map(|t| {
                let word = t.to_lowercase();
                let plain = word.chars().all(char::is_alphanumeric);
                let known = plain && self.holds(&word);
                (word, plain, known)
            })
            .collect();
        let mut i = 0;
        while i < tokens.len() {
            let token = tokens[i];
            let (word, plain, known) = &words[i];
            // Two words, one of them unknown, that the index holds as one.
            if let Some((next, next_plain, next_known)) = words.get(i + 1) {
                let joined = format!("{word}{next}");
                if *plain
                    && *next_plain
                    && !(*known && *next_known)
                    && self.holds(&joined)
                    && visible(&joined)
                {
                    out.push(joined);
                    changed = true;
                    i += 2;
                    continue;
                }
            }
            i += 1;
            let word = word.as_str();
            if *plain && !*known && word.chars().count() >= MIN_PREFIX {
                let better = (self.completion(word).filter(|w| visible(w)))
                    .or_else(|| self.correction(word).filter(|w| visible(w)))
                    .or_else(|| self.split(word).filter(|w| visible(w)));
                if let Some(better) = better {
                    out.push(better);
                    changed = true;
                    continue;
                }
            }
            out.push(token.to_string());
        }
        changed.then(|| out.join(" "))
    }

    /// Whether a live set's title or text holds `word`.
    fn holds(&self, word: &str) -> bool {
        self.doc_freq(word) > 0
    }

    /// The documents of live sets whose title or text holds `word` (the larger of the
    /// two fields' counts, summed over the sets).
    fn doc_freq(&self, word: &str) -> u64 {
        (self.sets.iter().enumerate())
            .filter(|&(i, _)| self.live(i))
            .map(|(_, s)| {
                [s.fields.content, s.fields.title]
                    .iter()
                    .map(|&f| (s.searcher.doc_freq(&Term::from_field_text(f, word))).unwrap_or(0))
                    .max()
                    .unwrap_or(0)
            })
            .sum()
    }

    /// `word` as two indexed words of at least two letters each (`vreinterpretq u64`):
    /// of the cuts whose halves are both indexed, the one whose rarer half most documents
    /// hold.
    fn split(&self, word: &str) -> Option<String> {
        let cuts: Vec<usize> = word.char_indices().map(|(i, _)| i).collect();
        let mut best: Option<(u64, usize)> = None;
        for &at in cuts.iter().skip(2).take(cuts.len().saturating_sub(3)) {
            let (a, b) = word.split_at(at);
            let n = self.doc_freq(a).min(self.doc_freq(b));
            if n > 0 && best.is_none_or(|(m, _)| n > m) {
                best = Some((n, at));
            }
        }
        best.map(|(_, at)| format!("{} {}", &word[..at], &word[at..]))
    }

    /// The indexed text word beginning with `prefix` (and longer) that most documents
    /// hold, over every live set (ties: the first in byte order).
    fn completion(&self, prefix: &str) -> Option<String> {
        let mut best: Option<(u64, String)> = None;
        let mut upper = prefix.as_bytes().to_vec();
        upper.push(0xff);
        for (i, s) in self.sets.iter().enumerate() {
            if !self.live(i) {
                continue;
            }
            let Some(seg) = s.searcher.segment_readers().first() else {
                continue;
            };
            let Ok(inverted) = seg.inverted_index(s.fields.content) else {
                continue;
            };
            let Ok(mut stream) = inverted
                .terms()
                .range()
                .gt(prefix.as_bytes())
                .lt(&upper)
                .into_stream()
            else {
                continue;
            };
            keep_most_frequent!(stream, prefix, best);
        }
        best.map(|(_, w)| w)
    }

    /// The indexed text word within one edit of `word` (two from eight letters on) that
    /// most documents hold, over every live set (ties: the first in byte order).
    fn correction(&self, word: &str) -> Option<String> {
        let distance = if word.chars().count() >= 8 { 2 } else { 1 };
        let mut best: Option<(u64, String)> = None;
        for (i, s) in self.sets.iter().enumerate() {
            if !self.live(i) {
                continue;
            }
            let field: Field = s.fields.content;
            let query = FuzzyTermQuery::new(Term::from_field_text(field, word), distance, true);
            let Ok(automaton) = query.automaton() else {
                continue;
            };
            let Some(seg) = s.searcher.segment_readers().first() else {
                continue;
            };
            let Ok(inverted) = seg.inverted_index(field) else {
                continue;
            };
            let Ok(mut stream) = inverted.terms().search(automaton).into_stream() else {
                continue;
            };
            keep_most_frequent!(stream, word, best);
        }
        best.map(|(_, w)| w)
    }
}
