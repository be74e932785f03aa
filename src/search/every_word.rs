//! A query of several words, every one required, scored with its every-word bonuses in
//! one pass: each word over all its fields (BM25F, `fields_bm25.rs`), and for each field of
//! the bonus (title, URL, anchor texts) that holds every word, the words' own BM25 there
//! times the field's weight (`rank.rs`, `all_in_field`).
//!
//! Asked as separate clauses (`title:a title:b` beside the words), the bonuses read the
//! postings of the title, URL and anchor terms a second time, in four more conjunctions:
//! about 6 % of a loaded server's requests a second on the bench (docs/performance.md).
//! The words' own scorers already read those postings; they keep, for each document,
//! which of the bonus fields hold the word and its score there.

use tantivy::query::{EnableScoring, Explanation, Query, Scorer, Weight};
use tantivy::schema::Field;
use tantivy::{DocId, DocSet, Score, SegmentReader, TantivyError, Term, TERMINATED};

use super::fields_bm25::{FieldsTermQuery, FieldsTermScorer, FieldsTermWeight};

/// Every word required, each scored over its fields, plus each bonus field's own score
/// of the words where that field holds them all.
#[derive(Debug, Clone)]
pub(crate) struct EveryWordQuery {
    words: Vec<FieldsTermQuery>,
    /// The number of bonus fields (slots): at most 8.
    slots: usize,
}

impl EveryWordQuery {
    /// The conjunction of `words` with the every-word bonus of each field of `fields`
    /// (field, weight of its own BM25 of the words; at most the first 8 are kept).
    pub(crate) fn new(words: &[&FieldsTermQuery], fields: &[(Field, Score)]) -> EveryWordQuery {
        EveryWordQuery {
            words: words.iter().map(|w| w.with_every_word(fields)).collect(),
            slots: fields.len().min(8),
        }
    }
}

impl Query for EveryWordQuery {
    fn weight(&self, scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        let words = (self.words.iter())
            .map(|w| w.fields_weight(scoring))
            .collect::<tantivy::Result<Vec<_>>>()?;
        Ok(Box::new(EveryWordWeight {
            words,
            slots: self.slots,
        }))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        for w in &self.words {
            w.query_terms(visitor);
        }
    }
}

/// The words' statistics, and the number of bonus fields.
struct EveryWordWeight {
    words: Vec<FieldsTermWeight>,
    slots: usize,
}

impl Weight for EveryWordWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let mut words = (self.words.iter())
            .map(|w| w.fields_scorer(reader, boost))
            .collect::<tantivy::Result<Vec<_>>>()?;
        // The rarest word leads: the others are sought to its documents.
        words.sort_by_key(|w| w.size_hint());
        let mut scorer = EveryWordScorer {
            words,
            slots: self.slots,
            doc: 0,
        };
        scorer.doc = match scorer.words.is_empty() {
            true => TERMINATED,
            false => {
                let first = scorer.words[0].doc();
                scorer.align(first)
            }
        };
        Ok(Box::new(scorer))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let mut scorer = self.scorer(reader, 1.0)?;
        if scorer.seek(doc) != doc {
            return Err(TantivyError::InvalidArgument(format!(
                "document {doc} does not match"
            )));
        }
        Ok(Explanation::new(
            "every word over its fields, with the every-word bonuses",
            scorer.score(),
        ))
    }
}

/// The intersection of the words' scorers.
struct EveryWordScorer {
    words: Vec<FieldsTermScorer>,
    slots: usize,
    doc: DocId,
}

impl EveryWordScorer {
    /// The first document at or after `target` that holds every word.
    fn align(&mut self, mut target: DocId) -> DocId {
        'candidates: loop {
            if target == TERMINATED {
                return TERMINATED;
            }
            for w in &mut self.words {
                let d = w.seek(target);
                if d != target {
                    target = d;
                    continue 'candidates;
                }
            }
            return target;
        }
    }
}

impl DocSet for EveryWordScorer {
    fn advance(&mut self) -> DocId {
        if self.doc == TERMINATED {
            return TERMINATED;
        }
        let next = self.words[0].advance();
        self.doc = self.align(next);
        self.doc
    }

    fn seek(&mut self, target: DocId) -> DocId {
        if self.doc >= target {
            return self.doc;
        }
        self.doc = self.align(target);
        self.doc
    }

    fn doc(&self) -> DocId {
        self.doc
    }

    fn size_hint(&self) -> u32 {
        self.words.first().map_or(0, |w| w.size_hint())
    }
}

impl Scorer for EveryWordScorer {
    fn score(&mut self) -> Score {
        let mut score: Score = self.words.iter_mut().map(|w| w.score()).sum();
        let held = (self.words.iter()).fold(u8::MAX, |all, w| all & w.fields_here());
        for slot in 0..self.slots as u8 {
            if held & (1 << slot) != 0 {
                score += self.words.iter().map(|w| w.own_here(slot)).sum::<Score>();
            }
        }
        score
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use tantivy::query::{BooleanQuery, BoostQuery, Occur, QueryParser};
    use tantivy::schema::{Schema, TEXT};
    use tantivy::{doc, Index};

    use super::*;
    use crate::search::fields_bm25::{best_by_doc, by_combined_fields};

    fn scores(index: &Index, q: &dyn Query) -> Vec<(DocId, Score)> {
        best_by_doc(index, q, 20_000)
    }

    /// The one-pass conjunction finds and scores what the conjunction of the words with
    /// the every-word clauses beside it (`title:a title:b`, `url:a url:b`, each weighed)
    /// does, over several windows' worth of documents and seeks.
    #[test]
    fn one_pass_scores_as_the_separate_clauses() {
        let mut schema = Schema::builder();
        let title = schema.add_text_field("title", TEXT);
        let url = schema.add_text_field("url", TEXT);
        let text = schema.add_text_field("text", TEXT);
        let index = Index::create_in_ram(schema.build());
        let mut w = index.writer_with_num_threads(1, 15_000_000).unwrap();
        let words = ["zebra", "crossing", "road", "lights", "stripes"];
        for i in 0..12_000u32 {
            let pick = |k: u32| words[((i / k) % 5) as usize];
            let t = match i % 7 {
                0 => format!("{} {}", pick(1), pick(3)),
                1 => "zebra crossing".to_string(),
                _ => pick(11).to_string(),
            };
            let u = match i % 5 {
                0 => format!("http://x/{}/{}", pick(2), pick(13)),
                _ => format!("http://x/{i}"),
            };
            let x = format!("{} {} {} more words", pick(1), pick(5), pick(17));
            let x = match i % 3 {
                0 => x,
                _ => format!("{x} and zebra {}", pick(7)),
            };
            w.add_document(doc!(title => t, url => u, text => x))
                .unwrap();
        }
        w.commit().unwrap();
        let boosts = HashMap::from([(title, 6.0), (url, 4.0), (text, 1.0)]);
        let mut parser = QueryParser::for_index(&index, vec![title, url, text]);
        parser.set_conjunction_by_default();
        for (&f, &b) in &boosts {
            parser.set_field_boost(f, b);
        }
        let none = HashMap::new();
        for q in [
            "zebra crossing",
            "crossing zebra road",
            "road lights",
            "zebra stripes",
        ] {
            let words =
                by_combined_fields(parser.parse_query(q).unwrap(), &boosts, &none, &none, 1.2);
            let mut separate = vec![(Occur::Must, words.box_clone())];
            for (name, weight) in [("title", 0.25), ("url", 0.5)] {
                let all: Vec<String> = q.split(' ').map(|w| format!("{name}:{w}")).collect();
                let clause = parser.parse_query(&all.join(" ")).unwrap();
                separate.push((Occur::Should, Box::new(BoostQuery::new(clause, weight))));
            }
            let separate = BooleanQuery::new(separate);
            let b = words.downcast_ref::<BooleanQuery>().unwrap();
            let each: Vec<&FieldsTermQuery> = (b.clauses().iter())
                .map(|(_, c)| c.downcast_ref::<FieldsTermQuery>().unwrap())
                .collect();
            let one = EveryWordQuery::new(&each, &[(title, 0.25 * 6.0), (url, 0.5 * 4.0)]);
            let (a, b) = (scores(&index, &separate), scores(&index, &one));
            assert!(!a.is_empty(), "{q}");
            assert_eq!(a.len(), b.len(), "{q}");
            for ((d1, s1), (d2, s2)) in a.iter().zip(&b) {
                assert_eq!(d1, d2, "{q}");
                // Each word's own score is rounded to 1/4096 in the one pass.
                assert!((s1 - s2).abs() <= 4.0 / 4096.0, "{q} {d1}: {s1} vs {s2}");
            }
            // And the counts, which walk every match.
            let searcher = index.reader().unwrap().searcher();
            assert_eq!(
                one.count(&searcher).unwrap(),
                separate.count(&searcher).unwrap(),
                "{q}"
            );
        }
    }
}
