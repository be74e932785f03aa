//! The snippet's fragment and highlights, cut as tantivy's `SnippetGenerator` cuts them,
//! without its token stream for text whose words are all ASCII.
//!
//! Why: under `scripts/bench-serve.sh` the generator was 31 % of the server's cycles,
//! most of it the analyzer's token stream (a `String` per token through the
//! word cutter, lower-caser and folder) and, per token, a lower-cased copy looked up in a
//! `BTreeMap`. For a part of a page in which every letter and digit is ASCII, the
//! `warcdex` analyzer (`src/schema/analysis.rs`) and tantivy's `default` one both give
//! the maximal runs of ASCII letters and digits shorter than 40 bytes, lower-cased; the
//! fragments are then found here, with the generator's rules (`search_fragments` and
//! `select_best_fragment_combination` in tantivy's `src/snippet/mod.rs`), over the runs
//! `src/search/ascii_words.rs` finds 64 bytes at a time. Any other part, or a field with
//! another analyzer, goes to the generator.
//! A test checks both ways against each other on generated text.

use std::collections::BTreeMap;
use std::ops::Range;

use tantivy::schema::{Field, FieldType, Schema};
use tantivy::snippet::SnippetGenerator;
use tantivy::Score;

use super::ascii_words::{token_char_outside_ascii, AsciiWords};
use crate::schema::analysis::TEXT_ANALYZER;

/// Tokens this long or longer are dropped by both analyzers.
const LONG_TOKEN: usize = crate::schema::analysis::MAX_TOKEN_BYTES;

/// A fragment of a text with the byte ranges of the query's words in it, relative to
/// the fragment; no fragment when no word is in the text.
pub(crate) type Fragment = (String, Vec<(usize, usize)>);

/// Finds a text's best fragment for one query and one field.
pub(crate) struct Highlighter {
    /// The general rule, for any text.
    generator: SnippetGenerator,
    /// The generator's words and their weights, when the field's analyzer is one whose
    /// ASCII words this module cuts itself; `None` otherwise.
    plain: Option<PlainWords>,
    max_chars: usize,
}

impl Highlighter {
    /// A highlighter of `field` (of `schema`) for the words of `weights`, with fragments
    /// of at most `max_chars` bytes, as `SnippetGenerator::new(weights, tokenizer, field,
    /// _)` with `set_max_num_chars(max_chars)` gives them.
    pub(crate) fn new(
        weights: BTreeMap<String, Score>,
        tokenizer: tantivy::tokenizer::TextAnalyzer,
        schema: &Schema,
        field: Field,
        max_chars: usize,
    ) -> Self {
        let plain = plain_analyzer(schema, field).then(|| PlainWords::new(&weights));
        let mut generator = SnippetGenerator::new(weights, tokenizer, field, max_chars);
        generator.set_max_num_chars(max_chars);
        Highlighter {
            generator,
            plain,
            max_chars,
        }
    }

    /// The best fragment of `text`, as the generator picks it.
    pub(crate) fn fragment(&self, text: &str) -> Option<Fragment> {
        if let Some(words) = &self.plain {
            if let Some(found) = ascii_fragment(text, words, self.max_chars) {
                return found;
            }
        }
        let sn = self.generator.snippet(text);
        (!sn.highlighted().is_empty()).then(|| {
            (
                sn.fragment().to_string(),
                sn.highlighted().iter().map(|r| (r.start, r.end)).collect(),
            )
        })
    }
}

/// Whether `field` is analyzed by `warcdex` or tantivy's `default` analyzer, which cut
/// text without non-ASCII letters or digits the same way.
fn plain_analyzer(schema: &Schema, field: Field) -> bool {
    match schema.get_field_entry(field).field_type() {
        FieldType::Str(opts) => opts
            .get_indexing_options()
            .is_some_and(|o| matches!(o.tokenizer(), TEXT_ANALYZER | "default")),
        _ => false,
    }
}

/// The words an ASCII token can be, with their weights: the generator's words made of
/// lower-case ASCII letters and digits only, shorter than the longest token kept (no
/// other word equals a lower-cased ASCII token).
struct PlainWords {
    words: Vec<(Vec<u8>, Score)>,
    /// Bit `n` set when a word is `n` bytes long.
    lengths: u64,
}

impl PlainWords {
    fn new(weights: &BTreeMap<String, Score>) -> Self {
        let tokens_can_be = |w: &str| {
            (1..LONG_TOKEN).contains(&w.len())
                && w.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        };
        let words: Vec<(Vec<u8>, Score)> = (weights.iter())
            .filter(|(w, _)| tokens_can_be(w))
            .map(|(w, &s)| (w.as_bytes().to_vec(), s))
            .collect();
        let lengths = words.iter().fold(0u64, |m, (w, _)| m | 1 << w.len());
        PlainWords { words, lengths }
    }

    /// The weight of the word that ASCII `token` (shorter than `LONG_TOKEN`) is once
    /// lower-cased, if any.
    fn score(&self, token: &[u8]) -> Option<Score> {
        if self.lengths & (1 << token.len()) == 0 {
            return None;
        }
        (self.words.iter())
            .find(|(w, _)| w.eq_ignore_ascii_case(token))
            .map(|&(_, s)| s)
    }
}

/// A fragment being built: where it starts and stops, its score and its words.
struct Candidate {
    start: usize,
    stop: usize,
    score: Score,
    marks: Vec<(usize, usize)>,
}

impl Candidate {
    fn at(start: usize) -> Self {
        Candidate {
            start,
            stop: start,
            score: 0.0,
            marks: Vec::new(),
        }
    }
}

/// The fragment of `text` the generator would pick (`Some(None)`: none, no word is in
/// it), or `None` when the text holds a letter, digit or CJK character that is not
/// ASCII, which only the analyzer cuts right.
fn ascii_fragment(text: &str, words: &PlainWords, max_chars: usize) -> Option<Option<Fragment>> {
    let bytes = text.as_bytes();
    // Which characters outside ASCII the text has decides only whether this scan may
    // answer; the others separate tokens, as ASCII punctuation does.
    if token_char_outside_ascii(text) {
        return None;
    }
    let mut best: Option<Candidate> = None;
    let mut cur = Candidate::at(0);
    for Range {
        start: from,
        end: to,
    } in AsciiWords::new(bytes)
    {
        if to - from >= LONG_TOKEN {
            continue; // dropped by the analyzer: no token, no fragment boundary
        }
        if to - cur.start > max_chars {
            let next = Candidate::at(from);
            let done = std::mem::replace(&mut cur, next);
            keep_better(&mut best, done);
        }
        cur.stop = to;
        if let Some(score) = words.score(&bytes[from..to]) {
            cur.score += score;
            cur.marks.push((from, to));
        }
    }
    keep_better(&mut best, cur);
    Some(best.map(|c| {
        let marks = c
            .marks
            .iter()
            .map(|&(a, b)| (a - c.start, b - c.start))
            .collect();
        (text[c.start..c.stop].to_string(), marks)
    }))
}

/// Keeps `done` if it scores, and more than `best` (the earlier fragment wins a tie, as
/// the generator's `max_by` with its offset order makes it).
fn keep_better(best: &mut Option<Candidate>, done: Candidate) {
    if done.score > 0.0 && best.as_ref().is_none_or(|b| done.score > b.score) {
        *best = Some(done);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::analysis::{register, text_analyzer};
    use crate::search::query_words::QueryWords;
    use tantivy::schema::{TextFieldIndexing, TextOptions};
    use tantivy::Index;

    fn highlighter(words: &[(&str, Score)], max: usize) -> Highlighter {
        let mut b = Schema::builder();
        let opts = TextOptions::default()
            .set_indexing_options(TextFieldIndexing::default().set_tokenizer(TEXT_ANALYZER));
        let field = b.add_text_field("content", opts);
        let schema = b.build();
        let index = Index::create_in_ram(schema.clone());
        register(&index);
        let weights = words.iter().map(|&(w, s)| (w.to_string(), s)).collect();
        Highlighter::new(weights, text_analyzer(), &schema, field, max)
    }

    /// The generator's answer, for comparison.
    fn general(h: &Highlighter, text: &str) -> Option<Fragment> {
        let sn = h.generator.snippet(text);
        (!sn.highlighted().is_empty()).then(|| {
            (
                sn.fragment().to_string(),
                sn.highlighted().iter().map(|r| (r.start, r.end)).collect(),
            )
        })
    }

    #[test]
    fn ascii_words_give_the_generators_fragment() {
        // Words no ASCII token can be once lower-cased ("Vacuum", "a-b", "é") too.
        let h = highlighter(
            &[
                ("index", 0.5),
                ("vacuum", 0.25),
                ("a1", 0.125),
                ("Vacuum", 0.9),
                ("a-b", 0.9),
                ("é", 0.9),
            ],
            60,
        );
        let texts = [
            "An INDEX on a table; VACUUM it — then Index again.",
            "nothing here at all",
            "index",
            "Vacuum’s “index” © 2024 a1 A1b a1",
            "x index y vacuum z index vacuum index index and more words to pass sixty bytes index",
            "averyveryveryveryverylongwordthatisoverfortybytesindeed index vacuum",
            "",
            "a-b Vacuum VACUUM",
        ];
        for t in texts {
            assert_eq!(
                ascii_fragment(t, h.plain.as_ref().unwrap(), 60),
                Some(general(&h, t)),
                "{t:?}"
            );
            assert_eq!(h.fragment(t), general(&h, t), "{t:?}");
        }
    }

    #[test]
    fn non_ascii_letters_go_to_the_generator() {
        let h = highlighter(&[("cinema", 1.0)], 200);
        let words = h.plain.as_ref().unwrap();
        for t in ["Cinéma cinema", "cinemaé", "卫生 cinema", "cinema ゠"] {
            assert_eq!(ascii_fragment(t, words, 200), None, "{t:?}");
            assert_eq!(h.fragment(t), general(&h, t), "{t:?}");
        }
    }

    #[test]
    fn generated_text_gives_the_generators_fragment() {
        // Words, case, punctuation (ASCII and not), long runs and the odd accented
        // letter, from a fixed-seed generator, against tantivy's generator.
        let words_at = [
            "index",
            "Index",
            "INDEX",
            "vacuum",
            "table",
            "a1",
            "x",
            "the",
            "2024",
            "ind",
            "abcdefghijabcdefghijabcdefghijabcdefghij",
            "é",
        ];
        let gaps = [" ", " ", ", ", ". ", "—", "’", "\u{a0}", "-", "_", "\n", ""];
        let h = highlighter(
            &[("index", 0.3), ("vacuum", 0.3), ("a1", 0.7), ("2024", 0.1)],
            50,
        );
        let words = h.plain.as_ref().unwrap();
        let mut rng = crate::test_rng::XorShift::new(0x2545_f491_4f6c_dd1du64);
        let mut next = |n: usize| rng.below(n);
        let (mut fast, mut found, mut slow, mut ruled_out) = (0, 0, 0, 0);
        let finder = QueryWords::new(["index", "vacuum", "a1", "2024"].map(String::from).to_vec());
        let mut lower = Vec::new();
        for _ in 0..3000 {
            // One text in eight may hold an accented letter.
            let kinds = if next(8) == 0 {
                words_at.len()
            } else {
                words_at.len() - 1
            };
            let mut t = String::new();
            for _ in 0..next(40) {
                t.push_str(words_at[next(kinds)]);
                t.push_str(gaps[next(gaps.len())]);
            }
            match ascii_fragment(&t, words, 50) {
                Some(f) => {
                    fast += 1;
                    found += usize::from(f.is_some());
                    assert_eq!(f, general(&h, &t), "{t:?}");
                }
                None => slow += 1,
            }
            assert_eq!(h.fragment(&t), general(&h, &t), "{t:?}");
            // What the window search rules out has no fragment.
            if !finder.may_be_in(&t, &mut lower) {
                ruled_out += 1;
                assert_eq!(general(&h, &t), None, "{t:?}");
            }
        }
        assert!(
            found > 1000 && fast - found > 100 && slow > 100 && ruled_out > 10,
            "every way tried: {fast} fast ({found} with a fragment), {slow} slow, {ruled_out} ruled out"
        );
    }
}
