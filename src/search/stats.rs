//! Term statistics of a whole collection, so that a document scores the same whichever
//! parallel set or shard holds it.
//!
//! BM25 weighs a word by the documents that contain it and a field's length by the
//! average over the index. Each tantivy searcher knows only its own set, so without this
//! module a collection split into sets (the batches of `update`, the shards of
//! `spark/warcdex_spark.py`) ranks a page by the set it happens to be in. The search
//! sums the statistics of the query's terms over every set first and scores each set
//! with the sums ([`Statistics`], a `Bm25StatisticsProvider`): the scores are then those
//! of one index holding every document. Across machines the front server
//! (src/serve/remote.rs) asks every shard server for its sums ([`TermStats`], the wire
//! form), adds them up and sends the total with the search, as Elasticsearch's
//! `dfs_query_then_fetch` does.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use tantivy::query::{Bm25StatisticsProvider, Query};
use tantivy::schema::IndexRecordOption;
use tantivy::schema::{Field, Schema};
use tantivy::{DocId, DocSet, Score, Searcher, Term, TERMINATED};

/// The statistics BM25 needs for a query's terms, summed over some sets: documents,
/// tokens per field, and documents per term. Fields are named (not numbered) so that
/// sets whose schemas number them differently still add up.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TermStats {
    /// Documents (tantivy's `max_doc`, as its own BM25 counts them).
    pub docs: u64,
    /// Tokens of each field named by a term of the query.
    pub tokens: BTreeMap<String, u64>,
    /// Documents containing each term, by field and term text.
    pub terms: BTreeMap<String, BTreeMap<String, u64>>,
}

/// Why term statistics cannot be those of any collection ([`TermStats::check`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImpossibleStats {
    /// A term is in more documents than the collection holds: tantivy's BM25 asserts
    /// that it is not (`bm25::idf`), and the assertion panicked inside the search.
    #[error("impossible term statistics: {field}:{term:?} is in {with_term} documents of {docs}")]
    MoreDocumentsThanAll {
        /// The term's field.
        field: String,
        /// The term.
        term: String,
        /// Documents holding it, as given.
        with_term: u64,
        /// Documents of the collection, as given.
        docs: u64,
    },
    /// A field has fewer tokens than documents holding one of its terms (each has at
    /// least one token of it): the average length of the field would be too short,
    /// down to 0, which scores every match in it NaN.
    #[error(
        "impossible term statistics: {field} has {tokens} tokens, but {field}:{term:?} is in \
         {with_term} documents"
    )]
    FewerTokensThanDocuments {
        /// The field.
        field: String,
        /// The term.
        term: String,
        /// Documents holding it, as given.
        with_term: u64,
        /// Tokens of the field, as given.
        tokens: u64,
    },
}

impl TermStats {
    /// Adds the statistics of another part of the collection. The sums saturate: a
    /// shard server may send any number, and a sum that wrapped around would be
    /// smaller than its parts (and make the statistics impossible).
    pub fn add(&mut self, other: &TermStats) {
        self.docs = self.docs.saturating_add(other.docs);
        for (f, n) in &other.tokens {
            let mine = self.tokens.entry(f.clone()).or_insert(0);
            *mine = mine.saturating_add(*n);
        }
        for (f, terms) in &other.terms {
            let mine = self.terms.entry(f.clone()).or_default();
            for (t, n) in terms {
                let m = mine.entry(t.clone()).or_insert(0);
                *m = m.saturating_add(*n);
            }
        }
    }

    /// Whether these can be the statistics of a collection: no term in more documents
    /// than the collection holds, and no field with fewer tokens than documents holding
    /// a term of it (when its tokens are given). A front server checks each shard
    /// server's before adding them up (sums of possible statistics are possible, as the
    /// sums saturate), and a shard server checks the sums it is sent before scoring
    /// with them, so that what BM25 asserts is refused as an error instead.
    pub fn check(&self) -> Result<(), ImpossibleStats> {
        for (field, terms) in &self.terms {
            let tokens = self.tokens.get(field).copied();
            for (term, &with_term) in terms {
                if with_term > self.docs {
                    return Err(ImpossibleStats::MoreDocumentsThanAll {
                        field: field.clone(),
                        term: term.clone(),
                        with_term,
                        docs: self.docs,
                    });
                }
                if let Some(tokens) = tokens.filter(|&t| t < with_term) {
                    return Err(ImpossibleStats::FewerTokensThanDocuments {
                        field: field.clone(),
                        term: term.clone(),
                        with_term,
                        tokens,
                    });
                }
            }
        }
        Ok(())
    }

    /// Adds one set's statistics for the terms of `query` (its parse in that set).
    pub(crate) fn add_set(
        &mut self,
        searcher: &Searcher,
        query: &dyn Query,
    ) -> tantivy::Result<()> {
        let schema = searcher.schema();
        self.docs += Bm25StatisticsProvider::total_num_docs(searcher)?;
        let mut fields: BTreeSet<Field> = BTreeSet::new();
        for (t, text) in text_terms(query) {
            self.add_term(schema, &t, text, searcher.doc_freq(&t)?);
            fields.insert(t.field());
        }
        for f in fields {
            self.add_tokens(
                schema,
                f,
                Bm25StatisticsProvider::total_num_tokens(searcher, f)?,
            );
        }
        Ok(())
    }
}

impl TermStats {
    /// Adds one set's statistics for the terms of `query` counting only the documents
    /// `shows` lets through (a viewer's view under access rules): documents, documents
    /// per term (their postings walked), and tokens per field (the shown documents'
    /// field norms, which tantivy keeps per document, rounded as BM25 reads them).
    pub(crate) fn add_set_shown(
        &mut self,
        searcher: &Searcher,
        query: &dyn Query,
        shows: &dyn Fn(DocId) -> bool,
    ) -> tantivy::Result<()> {
        let schema = searcher.schema();
        let segments = searcher.segment_readers();
        // A set's DocIds run on from one segment to the next.
        let mut bases = Vec::with_capacity(segments.len());
        let mut base: DocId = 0;
        for seg in segments {
            bases.push(base);
            let shown = (0..seg.max_doc()).filter(|&d| shows(base + d)).count();
            self.docs += shown as u64;
            base += seg.max_doc();
        }
        let mut fields: BTreeSet<Field> = BTreeSet::new();
        for (t, text) in text_terms(query) {
            let mut n = 0u64;
            for (seg, &base) in segments.iter().zip(&bases) {
                let index = seg.inverted_index(t.field())?;
                let Some(mut postings) = index.read_postings(&t, IndexRecordOption::Basic)? else {
                    continue;
                };
                let mut doc = postings.doc();
                while doc != TERMINATED {
                    n += u64::from(shows(base + doc));
                    doc = postings.advance();
                }
            }
            self.add_term(schema, &t, text, n);
            fields.insert(t.field());
        }
        for f in fields {
            let mut tokens = 0u64;
            for (seg, &base) in segments.iter().zip(&bases) {
                let norms = seg.get_fieldnorms_reader(f)?;
                tokens += (0..seg.max_doc())
                    .filter(|&d| shows(base + d))
                    .map(|d| u64::from(norms.fieldnorm(d)))
                    .sum::<u64>();
            }
            self.add_tokens(schema, f, tokens);
        }
        Ok(())
    }

    /// Adds `n` documents holding `text` in the field of `t`.
    fn add_term(&mut self, schema: &tantivy::schema::Schema, t: &Term, text: String, n: u64) {
        let name = schema.get_field_name(t.field()).to_string();
        *self.terms.entry(name).or_default().entry(text).or_insert(0) += n;
    }

    /// Adds `n` tokens of field `f`.
    fn add_tokens(&mut self, schema: &tantivy::schema::Schema, f: Field, n: u64) {
        *self
            .tokens
            .entry(schema.get_field_name(f).to_string())
            .or_insert(0) += n;
    }
}

/// The text terms of `query`, each once, with their text. Only text terms are named in
/// the statistics; another term (a number) is scored with its set's own count
/// (`Statistics::doc_freq`), and BM25 never weighs the filters, which are constant-score.
fn text_terms(query: &dyn Query) -> Vec<(Term, String)> {
    let mut terms: BTreeSet<Term> = BTreeSet::new();
    query.query_terms(&mut |t, _| {
        terms.insert(t.clone());
    });
    terms
        .into_iter()
        .filter_map(|t| {
            let text = t.value().as_str()?.to_string();
            Some((t, text))
        })
        .collect()
}

/// The statistics one set is scored with: the collection's where they are known, the
/// set's own otherwise.
pub(crate) struct Statistics<'a> {
    pub stats: &'a TermStats,
    pub searcher: &'a Searcher,
}

impl Statistics<'_> {
    fn schema(&self) -> &Schema {
        self.searcher.schema()
    }

    /// The collection's document count for `term`, when known.
    fn known_doc_freq(&self, term: &Term) -> Option<u64> {
        let value = term.value();
        let text = value.as_str()?;
        let field = self.schema().get_field_name(term.field());
        self.stats.terms.get(field)?.get(text).copied()
    }
}

impl Bm25StatisticsProvider for Statistics<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        let own = Bm25StatisticsProvider::total_num_tokens(self.searcher, field)?;
        // Never fewer than this set holds (as for the documents below): the statistics
        // given are the collection's, which holds this set, and with fewer a field's
        // average length could be 0 and every match in it score NaN.
        match self.stats.tokens.get(self.schema().get_field_name(field)) {
            Some(&n) => Ok(n.max(own)),
            None => Ok(own),
        }
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        let own = Bm25StatisticsProvider::total_num_docs(self.searcher)?;
        // Never fewer than this set holds: BM25's idf asserts documents ≥ matches.
        Ok(self.stats.docs.max(own))
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        match self.known_doc_freq(term) {
            Some(n) => Ok(n),
            None => self.searcher.doc_freq(term),
        }
    }
}

/// The weights of the query's words in `field` for its snippets, as tantivy's
/// `SnippetGenerator::create` weighs them by one searcher's counts but by the
/// collection's (a word in fewer documents weighs more: `1 / (1 + documents)`), so that
/// every shard cuts the fragment one index would (src/search/snippet.rs).
pub(crate) fn snippet_weights(
    stats: &Statistics<'_>,
    query: &dyn Query,
    field: Field,
) -> tantivy::Result<BTreeMap<String, Score>> {
    let mut terms: BTreeSet<Term> = BTreeSet::new();
    query.query_terms(&mut |t, _| {
        if t.field() == field {
            terms.insert(t.clone());
        }
    });
    let mut weights: BTreeMap<String, Score> = BTreeMap::new();
    for t in terms {
        let value = t.value();
        let Some(text) = value.as_str() else {
            continue;
        };
        let df = stats.doc_freq(&t)?;
        if df > 0 {
            weights.insert(text.to_string(), 1.0 / (1.0 + df as Score));
        }
    }
    Ok(weights)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(docs: u64, df: u64) -> TermStats {
        TermStats {
            docs,
            tokens: [("content".to_string(), docs * 10)].into(),
            terms: [("content".to_string(), [("lisbon".to_string(), df)].into())].into(),
        }
    }

    #[test]
    fn statistics_add_up_by_name() {
        let mut a = stats(3, 1);
        a.add(&stats(4, 2));
        assert_eq!(a, stats(7, 3));
        let mut b = TermStats::default();
        b.add(&a);
        assert_eq!(b, a);
    }

    #[test]
    fn sums_saturate_and_stay_possible() {
        let mut a = stats(3, 3);
        a.docs = u64::MAX;
        a.tokens.insert("content".into(), u64::MAX - 1);
        a.add(&stats(5, 5));
        assert_eq!(a.docs, u64::MAX);
        assert_eq!(a.tokens["content"], u64::MAX);
        assert_eq!(a.check(), Ok(()));
    }

    #[test]
    fn impossible_statistics_are_named() {
        assert_eq!(stats(3, 3).check(), Ok(()));
        let e = stats(1, 5).check().unwrap_err();
        assert!(
            matches!(
                e,
                ImpossibleStats::MoreDocumentsThanAll {
                    with_term: 5,
                    docs: 1,
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(
            e.to_string()
                .contains("content:\"lisbon\" is in 5 documents of 1"),
            "{e}"
        );
        let mut few = stats(10, 5);
        few.tokens.insert("content".into(), 4);
        let e = few.check().unwrap_err();
        assert!(e.to_string().contains("content has 4 tokens"), "{e}");
        // A field whose tokens are not given is scored with the set's own.
        few.tokens.clear();
        assert_eq!(few.check(), Ok(()));
    }
}
