//! A query matching the documents of a bit set (a bit per DocId of a one-segment set),
//! each with the same score: an access view's documents as a clause of a query.

use std::sync::Arc;

use tantivy::query::{
    BitSetDocSet, ConstScorer, EnableScoring, Explanation, Query, Scorer, Weight,
};
use tantivy::{BitSet, DocId, Score, SegmentReader, TantivyError};

/// The documents whose bits are set.
#[derive(Debug, Clone)]
pub(crate) struct DocBitsQuery {
    bits: Arc<Vec<u64>>,
}

impl DocBitsQuery {
    /// The documents of `bits` (bit d of word d / 64 for DocId d).
    pub(crate) fn new(bits: Arc<Vec<u64>>) -> DocBitsQuery {
        DocBitsQuery { bits }
    }

    fn has(&self, doc: DocId) -> bool {
        (self.bits.get(doc as usize / 64)).is_some_and(|w| w & (1 << (doc % 64)) != 0)
    }
}

impl Query for DocBitsQuery {
    fn weight(&self, _scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(self.clone()))
    }
}

impl Weight for DocBitsQuery {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let max = reader.max_doc();
        let mut set = BitSet::with_max_value(max);
        for (i, &word) in self.bits.iter().enumerate() {
            let mut w = word;
            while w != 0 {
                let doc = (i * 64) as DocId + w.trailing_zeros();
                if doc < max {
                    set.insert(doc);
                }
                w &= w - 1;
            }
        }
        Ok(Box::new(ConstScorer::new(BitSetDocSet::from(set), boost)))
    }

    fn explain(&self, _reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        match self.has(doc) {
            true => Ok(Explanation::new("DocBitsQuery", 1.0)),
            false => Err(TantivyError::InvalidArgument(format!(
                "document {doc} does not match"
            ))),
        }
    }
}
