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
use tantivy::query::{BooleanQuery, EnableScoring, Explanation, Occur, Query, Scorer, Weight};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocId, DocSet, Score, SegmentReader, TantivyError, Term, TERMINATED};

/// BM25's length normalisation, tantivy's value: a field's unless `lengths` names another.
const B: Score = 0.75;

/// tantivy's BM25 saturation, for a field's own score of the word (`alone`).
const K1: Score = 1.2;

/// A word's score is a multiple of `1 / GRAIN` (see `score`).
const GRAIN: Score = 4096.0;

/// One word's terms in several fields, each with its weight, scored as one BM25F term.
#[derive(Debug, Clone)]
pub(crate) struct FieldsTermQuery {
    terms: Vec<WordTerm>,
    k1: Score,
}

/// The word's term in one field, and how that field weighs it.
#[derive(Debug, Clone)]
struct WordTerm {
    term: Term,
    /// The field's weight in the combined score.
    weight: Score,
    /// The weight of the field's own BM25 of the word added to the combined score (0:
    /// none).
    alone: Score,
    /// The field's length normalisation `b`.
    b: Score,
    /// The place of the field among an every-word query's fields (`every_word.rs`;
    /// [`NO_SLOT`]: none) and the weight of its own BM25 there.
    every: (u8, Score),
}

impl WordTerm {
    /// `term` of a field weighing `weight`, scored only in the combined score, with
    /// tantivy's length normalisation.
    fn plain(term: Term, weight: Score) -> WordTerm {
        WordTerm {
            term,
            weight,
            alone: 0.0,
            b: B,
            every: (NO_SLOT, 0.0),
        }
    }
}

/// A term whose field is not one of an every-word query's.
pub(crate) const NO_SLOT: u8 = u8::MAX;

#[cfg(test)]
impl FieldsTermQuery {
    /// The word of `terms` (its term in each field, with the field's weight), with
    /// saturation `k1`.
    fn new(terms: Vec<(Term, Score)>, k1: Score) -> FieldsTermQuery {
        let terms = (terms.into_iter())
            .map(|(t, w)| WordTerm::plain(t, w))
            .collect();
        FieldsTermQuery { terms, k1 }
    }
}

/// The query with each word that the parser made a disjunction of its terms in several
/// fields (a `BooleanQuery` of `Should` clauses, one term each, no phrase) scored as one
/// BM25F term; `weights` gives each field's weight (the parser's boosts). Other clauses
/// (phrases, a user's `^` boost, field queries) are left as they are.
///
/// A field of `apart` also scores the word alone (tantivy's BM25 of its term there), times
/// its weight in `apart`, added to the combined score: the title's own score on top, or a
/// one-word query's every-word clauses (`rank.rs`) folded into its one scorer.
///
/// `lengths` gives a field's length normalisation `b` where it is not tantivy's 0.75.
pub(crate) fn by_combined_fields(
    q: Box<dyn Query>,
    weights: &HashMap<Field, Score>,
    apart: &HashMap<Field, Score>,
    lengths: &HashMap<Field, Score>,
    k1: Score,
) -> Box<dyn Query> {
    let Some(b) = q.downcast_ref::<BooleanQuery>() else {
        return q;
    };
    let clauses = b.clauses();
    if clauses.len() > 1 && clauses.iter().all(|(o, _)| *o == Occur::Should) {
        if let Some(terms) = word_terms(clauses, weights) {
            let terms = (terms.into_iter())
                .map(|(term, weight)| {
                    let field = term.field();
                    WordTerm {
                        alone: apart.get(&field).copied().unwrap_or(0.0).max(0.0),
                        b: lengths.get(&field).copied().unwrap_or(B).clamp(0.0, 1.0),
                        ..WordTerm::plain(term, weight)
                    }
                })
                .collect();
            return Box::new(FieldsTermQuery { terms, k1 });
        }
    }
    let words = clauses
        .iter()
        .map(|(o, c)| {
            (
                *o,
                by_combined_fields(c.box_clone(), weights, apart, lengths, k1),
            )
        })
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

impl FieldsTermQuery {
    /// The same word with each term of a field of `fields` (at most 8) also scoring its
    /// own BM25 there times the field's weight, kept apart for an every-word query.
    pub(crate) fn with_every_word(&self, fields: &[(Field, Score)]) -> FieldsTermQuery {
        let terms = (self.terms.iter())
            .map(|w| WordTerm {
                every: (fields
                    .iter()
                    .take(8)
                    .position(|(f, _)| *f == w.term.field()))
                .map_or((NO_SLOT, 0.0), |i| (i as u8, fields[i].1)),
                ..w.clone()
            })
            .collect();
        FieldsTermQuery { terms, k1: self.k1 }
    }

    /// The word's statistics over the searcher's documents.
    pub(crate) fn fields_weight(
        &self,
        scoring: EnableScoring<'_>,
    ) -> tantivy::Result<FieldsTermWeight> {
        let EnableScoring::Enabled {
            statistics_provider: stats,
            ..
        } = scoring
        else {
            return Ok(FieldsTermWeight {
                fields: (self.terms.iter())
                    .map(|w| FieldStats {
                        term: w.term.clone(),
                        weight: 0.0,
                        average: 1.0,
                        b: B,
                        alone: 0.0,
                        slot: NO_SLOT,
                        every: 0.0,
                    })
                    .collect(),
                idf: 0.0,
                k1: self.k1,
            });
        };
        let docs = stats.total_num_docs()?;
        let mut doc_freq = 0u64;
        let mut fields = Vec::with_capacity(self.terms.len());
        for w in &self.terms {
            let (t, (slot, every)) = (&w.term, w.every);
            let with_term = stats.doc_freq(t)?.min(docs);
            doc_freq = doc_freq.max(with_term);
            let tokens = stats.total_num_tokens(t.field())?;
            let average = match docs {
                0 => 1.0,
                n => (tokens as Score / n as Score).max(f32::MIN_POSITIVE),
            };
            fields.push(FieldStats {
                term: t.clone(),
                weight: w.weight,
                average,
                b: w.b,
                // tantivy's BM25 weight of the term in its field: idf × (k1 + 1).
                alone: w.alone * idf(with_term, docs) * (1.0 + K1),
                slot,
                every: every * idf(with_term, docs) * (1.0 + K1),
            });
        }
        Ok(FieldsTermWeight {
            fields,
            idf: idf(doc_freq.min(docs), docs),
            k1: self.k1,
        })
    }
}

impl Query for FieldsTermQuery {
    fn weight(&self, scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(self.fields_weight(scoring)?))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        for w in &self.terms {
            visitor(&w.term, false);
        }
    }
}

/// BM25's inverse document frequency, as tantivy computes it.
fn idf(doc_freq: u64, docs: u64) -> Score {
    let x = ((docs - doc_freq) as Score + 0.5) / (doc_freq as Score + 0.5);
    (1.0 + x).ln()
}

/// The word's statistics: each field's; the word's idf (from the field where most
/// documents hold it).
pub(crate) struct FieldsTermWeight {
    fields: Vec<FieldStats>,
    idf: Score,
    k1: Score,
}

/// One field's term, weight and average length, and the weight of the term's own BM25
/// there (its idf × (k1 + 1) × the `alone` weight; 0: none).
struct FieldStats {
    term: Term,
    weight: Score,
    average: Score,
    /// The field's length normalisation.
    b: Score,
    alone: Score,
    /// The field's place among an every-word query's ([`NO_SLOT`]: none).
    slot: u8,
    /// The weight of the term's own BM25 there (its idf × (k1 + 1) × the bonus weight,
    /// as `alone`).
    every: Score,
}

impl FieldsTermWeight {
    /// The word's scorer over one segment.
    pub(crate) fn fields_scorer(
        &self,
        reader: &SegmentReader,
        boost: Score,
    ) -> tantivy::Result<FieldsTermScorer> {
        let mut parts = Vec::with_capacity(self.fields.len());
        for f in &self.fields {
            let index = reader.inverted_index(f.term.field())?;
            let Some(postings) = index.read_postings(&f.term, IndexRecordOption::WithFreqs)? else {
                continue;
            };
            let norms = reader.get_fieldnorms_reader(f.term.field())?;
            let mut scale = [0.0; 256];
            let mut saturation = [0.0; 256];
            for (id, (s, k)) in scale.iter_mut().zip(saturation.iter_mut()).enumerate() {
                let length = FieldNormReader::id_to_fieldnorm(id as u8) as Score;
                let norm = 1.0 - f.b + f.b * length / f.average;
                *s = f.weight / norm;
                *k = K1 * norm;
            }
            parts.push(Part {
                postings,
                norms,
                scale,
                alone: boost * f.alone,
                saturation,
                slot: f.slot,
                every: boost * f.every,
            });
        }
        let slots = (parts.iter())
            .filter(|p| p.slot != NO_SLOT)
            .map(|p| p.slot as usize + 1)
            .max()
            .unwrap_or(0);
        let mut scorer = FieldsTermScorer {
            parts,
            start: 0,
            tf: vec![0.0; WINDOW].into_boxed_slice(),
            alone: vec![0.0; WINDOW].into_boxed_slice(),
            fields_held: vec![0; if slots > 0 { WINDOW } else { 0 }].into_boxed_slice(),
            own: vec![0.0; WINDOW * slots].into_boxed_slice(),
            slots,
            bits: [0; WINDOW / 64],
            at: 0,
            doc: 0,
            factor: boost * self.idf * (1.0 + self.k1),
            k1: self.k1,
        };
        scorer.refill();
        Ok(scorer)
    }
}

impl Weight for FieldsTermWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        Ok(Box::new(self.fields_scorer(reader, boost)?))
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
    /// The weight of the field's own BM25 of the word (0: none) and its saturation
    /// `k1 × length normalisation` by norm id, as tantivy's `Bm25Weight` has them.
    alone: Score,
    saturation: [Score; 256],
    /// The field's place among an every-word query's fields and the weight of its own
    /// BM25 there (`FieldStats`).
    slot: u8,
    every: Score,
}

/// Documents are gathered a window of this many DocIds at a time (as tantivy's own union
/// does): each field's postings in the window are walked in one tight loop, adding their
/// weighed frequencies into `tf`, instead of every field being looked at for every
/// document.
const WINDOW: usize = 4096;

/// The documents holding the word in any field (a union of the fields' postings), their
/// combined term frequencies gathered a window at a time.
pub(crate) struct FieldsTermScorer {
    parts: Vec<Part>,
    /// The window's first DocId.
    start: DocId,
    /// Each document's weighed term frequency, by its place in the window.
    tf: Box<[Score]>,
    /// Each document's sum of the fields' own scores of the word (`Part::alone`).
    alone: Box<[Score]>,
    /// With every-word fields: each document's fields holding the word, a bit per slot.
    fields_held: Box<[u8]>,
    /// And the word's own score in each, `slots` a document.
    own: Box<[Score]>,
    slots: usize,
    /// The window's documents holding the word, a bit each.
    bits: [u64; WINDOW / 64],
    /// The current document's place in the window.
    at: usize,
    doc: DocId,
    factor: Score,
    k1: Score,
}

impl FieldsTermScorer {
    /// Gathers the next window, from the smallest document a field is on; the current
    /// document is its first ([`TERMINATED`] when no field has one).
    fn refill(&mut self) {
        for (w, word) in self.bits.iter_mut().enumerate() {
            while *word != 0 {
                let i = w * 64 + word.trailing_zeros() as usize;
                self.tf[i] = 0.0;
                self.alone[i] = 0.0;
                if let Some(held) = self.fields_held.get_mut(i) {
                    *held = 0;
                }
                *word &= *word - 1;
            }
        }
        let start = (self.parts.iter().map(|p| p.postings.doc()))
            .min()
            .unwrap_or(TERMINATED);
        if start == TERMINATED {
            self.doc = TERMINATED;
            return;
        }
        let end = start.saturating_add(WINDOW as DocId);
        for p in &mut self.parts {
            let mut d = p.postings.doc();
            while d < end {
                let i = (d - start) as usize;
                self.bits[i / 64] |= 1 << (i % 64);
                let id = p.norms.fieldnorm_id(d) as usize;
                let tf = p.postings.term_freq() as Score;
                self.tf[i] += tf * p.scale[id];
                if p.alone > 0.0 {
                    self.alone[i] += p.alone * tf / (tf + p.saturation[id]);
                }
                if p.slot != NO_SLOT {
                    self.fields_held[i] |= 1 << p.slot;
                    self.own[i * self.slots + p.slot as usize] =
                        p.every * tf / (tf + p.saturation[id]);
                }
                d = p.postings.advance();
            }
        }
        self.start = start;
        self.at = 0;
        self.doc = start;
    }

    /// The first document of the window at or after place `from`, if any.
    fn next_in_window(&self, from: usize) -> Option<usize> {
        let mut w = from / 64;
        if w >= self.bits.len() {
            return None;
        }
        let mut word = self.bits[w] & (u64::MAX << (from % 64));
        loop {
            if word != 0 {
                return Some(w * 64 + word.trailing_zeros() as usize);
            }
            w += 1;
            if w == self.bits.len() {
                return None;
            }
            word = self.bits[w];
        }
    }

    /// The every-word fields (a bit per slot) holding the word in the current document.
    pub(crate) fn fields_here(&self) -> u8 {
        self.fields_held.get(self.at).copied().unwrap_or(0)
    }

    /// The word's own score in the every-word field of `slot` in the current document,
    /// rounded as [`Scorer::score`] rounds (0 when the field does not hold it).
    pub(crate) fn own_here(&self, slot: u8) -> Score {
        match self.fields_here() & (1 << slot) {
            0 => 0.0,
            _ => (self.own[self.at * self.slots + slot as usize] * GRAIN).round() / GRAIN,
        }
    }

    /// Moves to the window's first document at or after place `from`, or to the next window.
    fn go_to(&mut self, from: usize) -> DocId {
        match self.next_in_window(from) {
            Some(i) => {
                self.at = i;
                self.doc = self.start + i as DocId;
            }
            None => self.refill(),
        }
        self.doc
    }
}

impl DocSet for FieldsTermScorer {
    fn advance(&mut self) -> DocId {
        if self.doc == TERMINATED {
            return TERMINATED;
        }
        self.go_to(self.at + 1)
    }

    fn seek(&mut self, target: DocId) -> DocId {
        if self.doc >= target {
            return self.doc;
        }
        let end = self.start.saturating_add(WINDOW as DocId);
        if target < end {
            return self.go_to((target - self.start) as usize);
        }
        // Past the window: every field's postings are at or after its end already.
        for p in &mut self.parts {
            if p.postings.doc() < target {
                p.postings.seek(target);
            }
        }
        self.refill();
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
        let tf = self.tf[self.at];
        // Rounded to 1/4096: tantivy's unions and intersections add their clauses' scores
        // in an order that depends on where the documents are (a shard, a segment), and
        // f32 sums in another order differ in the last bit; sums of multiples of 1/4096
        // below 4,096 are exact (a word scores at most idf × 2.2, under 50), so a page
        // scores the same in one index and in shards.
        let alone = (self.alone[self.at] * GRAIN).round() / GRAIN;
        (self.factor * tf / (self.k1 + tf) * GRAIN).round() / GRAIN + alone
    }
}

/// The best `limit` documents of `q` over `index` with their scores, by DocId (tests).
#[cfg(test)]
pub(crate) fn best_by_doc(
    index: &tantivy::Index,
    q: &dyn Query,
    limit: usize,
) -> Vec<(DocId, Score)> {
    let searcher = index.reader().unwrap().searcher();
    let mut top: Vec<(DocId, Score)> = (searcher.search(
        q,
        &tantivy::collector::TopDocs::with_limit(limit).order_by_score(),
    ))
    .unwrap()
    .into_iter()
    .map(|(s, a)| (a.doc_id, s))
    .collect();
    top.sort_by_key(|(d, _)| *d);
    top
}

#[cfg(test)]
mod tests {
    use tantivy::query::{QueryParser, TermQuery};
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

    /// The same documents with the same scores (to the rounding of a word's score).
    fn assert_same(a: &[(DocId, Score)], b: &[(DocId, Score)]) {
        assert_eq!(a.len(), b.len());
        for ((d1, s1), (d2, s2)) in a.iter().zip(b) {
            assert_eq!(d1, d2);
            assert!((s1 - s2).abs() <= 0.5 / GRAIN, "{d1}: {s1} vs {s2}");
        }
    }

    /// The best `limit` documents of `q` with their scores, by DocId.
    fn scores(index: &Index, q: &dyn Query) -> Vec<(DocId, Score)> {
        best(index, q, 10)
    }

    fn best(index: &Index, q: &dyn Query, limit: usize) -> Vec<(DocId, Score)> {
        best_by_doc(index, q, limit)
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
        assert_same(&bm25, &f);
    }

    /// Over many windows of documents, alone and in an intersection (which seeks), the
    /// word's documents and scores are those of tantivy's BM25 on its one field.
    #[test]
    fn windows_and_seeks_keep_every_document() {
        let docs: Vec<(String, String)> = (0..20_000u32)
            .map(|i| {
                let mut text = String::from("filler");
                if i % 7 == 0 || i % 4099 == 1 {
                    text.push_str(" apple");
                }
                if i % 3 == 0 {
                    text.push_str(" pear apple");
                }
                if i % 11 == 0 {
                    text.push_str(" plum");
                }
                (format!("t{i}"), text)
            })
            .collect();
        let refs: Vec<(&str, &str)> = docs.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        let (index, _, text) = index(&refs);
        let apple = Term::from_field_text(text, "apple");
        let plum = TermQuery::new(
            Term::from_field_text(text, "plum"),
            IndexRecordOption::Basic,
        );
        let all = |q: &dyn Query| best(&index, q, 20_000);
        let bm25 = TermQuery::new(apple.clone(), IndexRecordOption::WithFreqs);
        let combined = FieldsTermQuery::new(vec![(apple, 1.0)], 1.2);
        for (a, b) in [
            (
                Box::new(bm25.clone()) as Box<dyn Query>,
                Box::new(combined.clone()) as Box<dyn Query>,
            ),
            (
                Box::new(BooleanQuery::intersection(vec![
                    Box::new(bm25),
                    Box::new(plum.clone()),
                ])),
                Box::new(BooleanQuery::intersection(vec![
                    Box::new(combined),
                    Box::new(plum),
                ])),
            ),
        ] {
            let (a, b) = (all(&*a), all(&*b));
            assert!(a.len() > 500, "{}", a.len());
            assert_same(&a, &b);
        }
    }

    /// A field's own score of the word (`alone`) is tantivy's BM25 of its term there,
    /// times its weight.
    #[test]
    fn a_fields_own_score_is_its_bm25() {
        let (index, title, _) = index(&[
            ("zebra notes", "a"),
            ("zebra zebra crossing and more words", "b"),
            ("other", "c"),
        ]);
        let term = Term::from_field_text(title, "zebra");
        let bm25 = tantivy::query::BoostQuery::new(
            Box::new(TermQuery::new(term.clone(), IndexRecordOption::WithFreqs)),
            2.0,
        );
        let alone = FieldsTermQuery {
            terms: vec![WordTerm {
                alone: 2.0,
                ..WordTerm::plain(term, 0.0)
            }],
            k1: 1.2,
        };
        let (a, b) = (scores(&index, &bm25), scores(&index, &alone));
        assert_eq!(a.len(), 2);
        assert_same(&a, &b);
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
        let combined = by_combined_fields(
            summed.box_clone(),
            &weights,
            &HashMap::new(),
            &HashMap::new(),
            1.2,
        );
        assert!(combined.downcast_ref::<FieldsTermQuery>().is_some());
        let s = scores(&index, &*summed);
        assert!(s[0].1 > s[1].1, "summed: the title wins: {s:?}");
        let c = scores(&index, &*combined);
        assert_eq!(c.len(), 2, "both pages and only them: {c:?}");
        assert!(c[1].1 > c[0].1, "combined: the repeated word wins: {c:?}");
    }

    /// A field's length normalisation comes from `lengths`: with b = 0 a word once in a
    /// short text and once in a long one scores alike; with BM25's 0.75 the short text wins.
    #[test]
    fn a_fields_length_normalisation_is_its_own() {
        let (index, title, text) = index(&[
            ("", "zebra notes"),
            (
                "",
                "zebra and many more words about other animals of the plains",
            ),
            ("", "nothing"),
        ]);
        let parser = QueryParser::for_index(&index, vec![title, text]);
        let q = || parser.parse_query("zebra").unwrap();
        let weights = HashMap::from([(title, 3.0), (text, 1.0)]);
        let none = HashMap::new();
        let default = scores(
            &index,
            &*by_combined_fields(q(), &weights, &none, &none, 1.2),
        );
        assert!(default[0].1 > default[1].1, "{default:?}");
        let flat = HashMap::from([(text, 0.0)]);
        let flat = scores(
            &index,
            &*by_combined_fields(q(), &weights, &none, &flat, 1.2),
        );
        assert_eq!(flat.len(), 2);
        assert_eq!(flat[0].1, flat[1].1, "{flat:?}");
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
            &HashMap::new(),
            1.2,
        );
        let docs: Vec<DocId> = scores(&index, &*q).into_iter().map(|(d, _)| d).collect();
        assert_eq!(docs, vec![0, 1]);
        let q = by_combined_fields(
            parser.parse_query("\"zebra road\"").unwrap(),
            &weights,
            &HashMap::new(),
            &HashMap::new(),
            1.2,
        );
        assert!(q.downcast_ref::<FieldsTermQuery>().is_none());
    }
}
