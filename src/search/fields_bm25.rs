//! A word scored over all its fields at once (BM25F, Robertson, Zaragoza and Taylor,
//! "Simple BM25 extension to multiple weighted fields", 2004), instead of as the sum of
//! one BM25 per field.
//!
//! Summed per field, a word in a short title weighed × 3 scores up to three times what the
//! same word repeated all through a page's text can: the page named in its title always
//! wins, however many times another page uses the word. BM25F weighs each field's
//! occurrences (normalised by that field's length) into one term frequency first and
//! saturates that once, so a title match counts as several occurrences of the word and
//! repetition in the text still tells pages apart (issue 61's tf-idf queries). A word of
//! one field with weight 1 scores exactly as tantivy's BM25 does.

use std::collections::HashMap;

use tantivy::fieldnorm::FieldNormReader;
use tantivy::postings::{Postings, SegmentPostings};
use tantivy::query::{
    BooleanQuery, BoostQuery, EnableScoring, Explanation, Occur, Query, Scorer, TermQuery, Weight,
};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocId, DocSet, Score, SegmentReader, TantivyError, Term, TERMINATED};

/// BM25's length normalisation, tantivy's value.
const B: Score = 0.75;

/// A word's score is a multiple of `1 / GRAIN` (see `score`).
const GRAIN: Score = 4096.0;

/// One word's terms in several fields, each with its weight, scored as one BM25F term.
#[derive(Debug, Clone)]
pub(crate) struct FieldsTermQuery {
    terms: Vec<(Term, Score)>,
    k1: Score,
}

impl FieldsTermQuery {
    /// The word of `terms` (its term in each field, with the field's weight), with
    /// saturation `k1`.
    pub(crate) fn new(terms: Vec<(Term, Score)>, k1: Score) -> FieldsTermQuery {
        FieldsTermQuery { terms, k1 }
    }
}

/// The query with each word that the parser made a disjunction of its terms in several
/// fields (a `BooleanQuery` of `Should` clauses, one term each, no phrase) scored as one
/// BM25F term; `weights` gives each field's weight (the parser's boosts). Other clauses
/// (phrases, a user's `^` boost, field queries) are left as they are.
///
/// A field of `apart` also scores the word alone, times its weight there, added to the
/// combined score (the title's own BM25 on top: a title match is the strongest sign of the
/// page a reader names).
pub(crate) fn by_combined_fields(
    q: Box<dyn Query>,
    weights: &HashMap<Field, Score>,
    apart: &HashMap<Field, Score>,
    k1: Score,
) -> Box<dyn Query> {
    let Some(b) = q.downcast_ref::<BooleanQuery>() else {
        return q;
    };
    let clauses = b.clauses();
    if clauses.len() > 1 && clauses.iter().all(|(o, _)| *o == Occur::Should) {
        if let Some(terms) = word_terms(clauses, weights) {
            let alone: Vec<(Occur, Box<dyn Query>)> = (terms.iter())
                .filter_map(|(t, _)| Some((t, *apart.get(&t.field())?)))
                .filter(|(_, w)| *w > 0.0)
                .map(|(t, w)| {
                    let q = TermQuery::new(t.clone(), IndexRecordOption::WithFreqs);
                    (
                        Occur::Should,
                        Box::new(BoostQuery::new(Box::new(q), w)) as Box<dyn Query>,
                    )
                })
                .collect();
            let combined = Box::new(FieldsTermQuery::new(terms, k1));
            if alone.is_empty() {
                return combined;
            }
            let mut all = vec![(Occur::Should, combined as Box<dyn Query>)];
            all.extend(alone);
            return Box::new(BooleanQuery::new(all));
        }
    }
    let words = clauses
        .iter()
        .map(|(o, c)| (*o, by_combined_fields(c.box_clone(), weights, apart, k1)))
        .collect();
    Box::new(BooleanQuery::with_minimum_required_clauses(
        words,
        b.get_minimum_number_should_match(),
    ))
}

/// The terms of a word's clauses with their fields' weights, when each clause is one
/// term of a weighed field in a field of its own, none needing positions.
fn word_terms(
    clauses: &[(Occur, Box<dyn Query>)],
    weights: &HashMap<Field, Score>,
) -> Option<Vec<(Term, Score)>> {
    let mut terms: Vec<(Term, Score)> = Vec::with_capacity(clauses.len());
    for (_, c) in clauses {
        let mut found: Vec<(Term, bool)> = Vec::new();
        c.query_terms(&mut |t, positions| found.push((t.clone(), positions)));
        let [(term, false)] = found.as_slice() else {
            return None;
        };
        let weight = *weights.get(&term.field())?;
        if terms.iter().any(|(t, _)| t.field() == term.field()) {
            return None;
        }
        terms.push((term.clone(), weight));
    }
    Some(terms)
}

impl Query for FieldsTermQuery {
    fn weight(&self, scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        let EnableScoring::Enabled {
            statistics_provider: stats,
            ..
        } = scoring
        else {
            return Ok(Box::new(FieldsTermWeight {
                fields: self
                    .terms
                    .iter()
                    .map(|(t, _)| (t.clone(), 0.0, 1.0))
                    .collect(),
                idf: 0.0,
                k1: self.k1,
            }));
        };
        let docs = stats.total_num_docs()?;
        let mut doc_freq = 0u64;
        let mut fields = Vec::with_capacity(self.terms.len());
        for (t, w) in &self.terms {
            doc_freq = doc_freq.max(stats.doc_freq(t)?);
            let tokens = stats.total_num_tokens(t.field())?;
            let average = match docs {
                0 => 1.0,
                n => (tokens as Score / n as Score).max(f32::MIN_POSITIVE),
            };
            fields.push((t.clone(), *w, average));
        }
        Ok(Box::new(FieldsTermWeight {
            fields,
            idf: idf(doc_freq.min(docs), docs),
            k1: self.k1,
        }))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        for (t, _) in &self.terms {
            visitor(t, false);
        }
    }
}

/// BM25's inverse document frequency, as tantivy computes it.
fn idf(doc_freq: u64, docs: u64) -> Score {
    let x = ((docs - doc_freq) as Score + 0.5) / (doc_freq as Score + 0.5);
    (1.0 + x).ln()
}

/// The word's statistics: each field's term, weight and average length; the word's idf
/// (from the field where most documents hold it).
struct FieldsTermWeight {
    fields: Vec<(Term, Score, Score)>,
    idf: Score,
    k1: Score,
}

impl Weight for FieldsTermWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let mut parts = Vec::with_capacity(self.fields.len());
        for (term, weight, average) in &self.fields {
            let index = reader.inverted_index(term.field())?;
            let Some(postings) = index.read_postings(term, IndexRecordOption::WithFreqs)? else {
                continue;
            };
            let norms = reader.get_fieldnorms_reader(term.field())?;
            let mut scale = [0.0; 256];
            for (id, s) in scale.iter_mut().enumerate() {
                let length = FieldNormReader::id_to_fieldnorm(id as u8) as Score;
                *s = weight / (1.0 - B + B * length / average);
            }
            parts.push(Part {
                postings,
                norms,
                scale,
            });
        }
        let mut scorer = FieldsTermScorer {
            parts,
            doc: 0,
            factor: boost * self.idf * (1.0 + self.k1),
            k1: self.k1,
        };
        scorer.doc = scorer.first();
        Ok(Box::new(scorer))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let mut scorer = self.scorer(reader, 1.0)?;
        if scorer.seek(doc) != doc {
            return Err(TantivyError::InvalidArgument(format!(
                "document {doc} does not match"
            )));
        }
        let mut e = Explanation::new("BM25F of one word over its fields", scorer.score());
        e.add_const("idf", self.idf);
        e.add_const("k1", self.k1);
        Ok(e)
    }
}

/// One field's postings of the word, its field norms, and its weight over each length's
/// normalisation (indexed by the norm's id).
struct Part {
    postings: SegmentPostings,
    norms: FieldNormReader,
    scale: [Score; 256],
}

/// The documents holding the word in any field (a union of the fields' postings).
struct FieldsTermScorer {
    parts: Vec<Part>,
    doc: DocId,
    factor: Score,
    k1: Score,
}

impl FieldsTermScorer {
    /// The smallest document any field is on.
    fn first(&self) -> DocId {
        (self.parts.iter().map(|p| p.postings.doc()))
            .min()
            .unwrap_or(TERMINATED)
    }
}

impl DocSet for FieldsTermScorer {
    fn advance(&mut self) -> DocId {
        let doc = self.doc;
        for p in &mut self.parts {
            if p.postings.doc() == doc {
                p.postings.advance();
            }
        }
        self.doc = self.first();
        self.doc
    }

    fn seek(&mut self, target: DocId) -> DocId {
        if self.doc >= target {
            return self.doc;
        }
        for p in &mut self.parts {
            if p.postings.doc() < target {
                p.postings.seek(target);
            }
        }
        self.doc = self.first();
        self.doc
    }

    fn doc(&self) -> DocId {
        self.doc
    }

    fn size_hint(&self) -> u32 {
        (self.parts.iter().map(|p| p.postings.size_hint()))
            .max()
            .unwrap_or(0)
    }
}

impl Scorer for FieldsTermScorer {
    fn score(&mut self) -> Score {
        let doc = self.doc;
        let tf: Score = (self.parts.iter())
            .filter(|p| p.postings.doc() == doc)
            .map(|p| p.postings.term_freq() as Score * p.scale[p.norms.fieldnorm_id(doc) as usize])
            .sum();
        // Rounded to 1/4096: tantivy's unions and intersections add their clauses' scores
        // in an order that depends on where the documents are (a shard, a segment), and
        // f32 sums in another order differ in the last bit; sums of multiples of 1/4096
        // below 4,096 are exact (a word scores at most idf × 2.2, under 50), so a page
        // scores the same in one index and in shards.
        (self.factor * tf / (self.k1 + tf) * GRAIN).round() / GRAIN
    }
}

#[cfg(test)]
mod tests {
    use tantivy::collector::TopDocs;
    use tantivy::query::QueryParser;
    use tantivy::schema::{Schema, TEXT};
    use tantivy::{doc, Index};

    use super::*;

    /// An index of `docs` (title, text) in one segment.
    fn index(docs: &[(&str, &str)]) -> (Index, Field, Field) {
        let mut schema = Schema::builder();
        let title = schema.add_text_field("title", TEXT);
        let text = schema.add_text_field("text", TEXT);
        let index = Index::create_in_ram(schema.build());
        let mut w = index.writer_with_num_threads(1, 15_000_000).unwrap();
        for (t, x) in docs {
            w.add_document(doc!(title => *t, text => *x)).unwrap();
        }
        w.commit().unwrap();
        (index, title, text)
    }

    fn scores(index: &Index, q: &dyn Query) -> Vec<(DocId, Score)> {
        let searcher = index.reader().unwrap().searcher();
        let mut top: Vec<(DocId, Score)> = (searcher
            .search(q, &TopDocs::with_limit(10).order_by_score()))
        .unwrap()
        .into_iter()
        .map(|(s, a)| (a.doc_id, s))
        .collect();
        top.sort_by_key(|(d, _)| *d);
        top
    }

    /// With one field of weight 1 the score is tantivy's BM25 of the term.
    #[test]
    fn one_field_of_weight_one_is_bm25() {
        let (index, _, text) = index(&[
            ("a", "apple pear apple"),
            ("b", "pear plum"),
            ("c", "apple"),
            ("d", "plum plum plum plum plum apple"),
        ]);
        let term = Term::from_field_text(text, "apple");
        let bm25 = scores(
            &index,
            &TermQuery::new(term.clone(), IndexRecordOption::WithFreqs),
        );
        let f = scores(&index, &FieldsTermQuery::new(vec![(term, 1.0)], 1.2));
        assert_eq!(bm25.len(), 3);
        for ((d1, s1), (d2, s2)) in bm25.iter().zip(&f) {
            assert_eq!(d1, d2);
            assert!((s1 - s2).abs() <= 0.5 / GRAIN, "{s1} vs {s2}");
        }
    }

    /// A word in the title counts as `weight` occurrences, saturated with the text's: a
    /// page repeating the word in its text can pass one that has it once in its title,
    /// which the sum of per-field scores never lets happen.
    #[test]
    fn repetition_in_the_text_can_pass_a_title() {
        let (index, title, text) = index(&[
            ("zebra notes", "about animals here and there"),
            (
                "animals",
                "zebra zebra zebra zebra zebra zebra zebra zebra here",
            ),
            ("other", "nothing here at all"),
            ("more", "nothing at all here"),
        ]);
        let mut parser = QueryParser::for_index(&index, vec![title, text]);
        parser.set_field_boost(title, 3.0);
        let summed = parser.parse_query("zebra").unwrap();
        let weights = HashMap::from([(title, 3.0), (text, 1.0)]);
        let combined = by_combined_fields(summed.box_clone(), &weights, &HashMap::new(), 1.2);
        assert!(combined.downcast_ref::<FieldsTermQuery>().is_some());
        let s = scores(&index, &*summed);
        assert!(s[0].1 > s[1].1, "summed: the title wins: {s:?}");
        let c = scores(&index, &*combined);
        assert_eq!(c.len(), 2, "both pages and only them: {c:?}");
        assert!(c[1].1 > c[0].1, "combined: the repeated word wins: {c:?}");
    }

    /// A query of words keeps its structure (every word required), each word made one
    /// term; a phrase stays a phrase.
    #[test]
    fn words_are_rewritten_and_phrases_kept() {
        let (index, title, text) = index(&[
            ("zebra crossing", "a road"),
            ("zebra", "crossing the road"),
            ("road", "zebra"),
        ]);
        let mut parser = QueryParser::for_index(&index, vec![title, text]);
        parser.set_conjunction_by_default();
        let weights = HashMap::from([(title, 3.0), (text, 1.0)]);
        let q = by_combined_fields(
            parser.parse_query("zebra crossing").unwrap(),
            &weights,
            &HashMap::new(),
            1.2,
        );
        let docs: Vec<DocId> = scores(&index, &*q).into_iter().map(|(d, _)| d).collect();
        assert_eq!(docs, vec![0, 1]);
        let q = by_combined_fields(
            parser.parse_query("\"zebra road\"").unwrap(),
            &weights,
            &HashMap::new(),
            1.2,
        );
        assert!(q.downcast_ref::<FieldsTermQuery>().is_none());
    }
}
