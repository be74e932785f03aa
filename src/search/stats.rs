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
use tantivy::schema::{Field, Schema};
use tantivy::{Score, Searcher, Term};

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

impl TermStats {
    /// Adds the statistics of another part of the collection.
    pub fn add(&mut self, other: &TermStats) {
        self.docs += other.docs;
        for (f, n) in &other.tokens {
            *self.tokens.entry(f.clone()).or_insert(0) += n;
        }
        for (f, terms) in &other.terms {
            let mine = self.terms.entry(f.clone()).or_default();
            for (t, n) in terms {
                *mine.entry(t.clone()).or_insert(0) += n;
            }
        }
    }

    /// Adds one set's statistics for the terms of `query` (its parse in that set).
    pub(crate) fn add_set(
        &mut self,
        searcher: &Searcher,
        query: &dyn Query,
    ) -> tantivy::Result<()> {
        let schema = searcher.schema();
        self.docs += Bm25StatisticsProvider::total_num_docs(searcher)?;
        let mut terms: BTreeSet<Term> = BTreeSet::new();
        query.query_terms(&mut |t, _| {
            terms.insert(t.clone());
        });
        let mut fields: BTreeSet<Field> = BTreeSet::new();
        for t in &terms {
            // Only text terms are named here; another term (a number) is scored with its
            // set's own count (`Statistics::doc_freq`), and BM25 never weighs the
            // filters, which are constant-score.
            let value = t.value();
            let Some(text) = value.as_str() else {
                continue;
            };
            let name = schema.get_field_name(t.field()).to_string();
            *self
                .terms
                .entry(name)
                .or_default()
                .entry(text.to_string())
                .or_insert(0) += searcher.doc_freq(t)?;
            fields.insert(t.field());
        }
        for f in fields {
            *self
                .tokens
                .entry(schema.get_field_name(f).to_string())
                .or_insert(0) += Bm25StatisticsProvider::total_num_tokens(searcher, f)?;
        }
        Ok(())
    }
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
        match self.stats.tokens.get(self.schema().get_field_name(field)) {
            Some(&n) => Ok(n),
            None => Bm25StatisticsProvider::total_num_tokens(self.searcher, field),
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
}
