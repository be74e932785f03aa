//! Each document's URL key as its rank among the keys of every set searched together,
//! and the DocIds of each URL by that rank, read once when the sets open.
//!
//! The walk across sets folds a version into the hit of the same URL from another set
//! (`select.rs`), orders ties in score across sets by URL key, and `unwalked.rs` looks up
//! the versions of a hit's URL in every set. All of them compared URL keys, and a key
//! read from the column's dictionary decompresses one of its zstd blocks, with a fresh
//! decompression context each time: 33 % of a loaded server's cycles on a collection of
//! two batches. Ranks compare as the keys do, and are equal only for equal
//! keys, without reading one.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use tantivy::columnar::StrColumn;
use tantivy::DocId;

/// The URL keys of one set's documents, by rank.
#[derive(Debug, Default)]
pub(crate) struct UrlTable {
    /// Each document's URL key rank among every set's keys ([`rank_keys`]; 0: no key).
    rank_of_doc: Vec<u32>,
    /// (rank, first DocId, end DocId) of each URL's run of documents, by rank.
    runs: Vec<(u32, DocId, DocId)>,
}

impl UrlTable {
    /// The table of a set of `docs` documents whose `urlkey` column is `urlkeys`, its
    /// keys ranked `rank_of_ord` by ordinal ([`rank_keys`]).
    pub(crate) fn new(urlkeys: &StrColumn, rank_of_ord: &[u32], docs: u32) -> UrlTable {
        let mut rank_of_doc = Vec::with_capacity(docs as usize);
        let mut runs: Vec<(u32, DocId, DocId)> = Vec::new();
        for d in 0..docs {
            let rank = (urlkeys.term_ords(d).next())
                .and_then(|o| rank_of_ord.get(o as usize).copied())
                .unwrap_or(0);
            rank_of_doc.push(rank);
            match runs.last_mut() {
                Some(run) if rank != 0 && run.0 == rank && run.2 == d => run.2 = d + 1,
                _ if rank != 0 => runs.push((rank, d, d + 1)),
                _ => {}
            }
        }
        // Documents are in URL key order, so the runs are in rank order already; sorted
        // all the same, as the lookup depends on it.
        runs.sort_unstable();
        UrlTable { rank_of_doc, runs }
    }

    /// Document `doc`'s URL key rank (0 when it has no key).
    pub(crate) fn rank(&self, doc: DocId) -> u32 {
        self.rank_of_doc.get(doc as usize).copied().unwrap_or(0)
    }

    /// The DocIds of the URL ranked `rank` (none for 0, no key).
    pub(crate) fn docs_of(&self, rank: u32) -> impl Iterator<Item = DocId> + '_ {
        let from = self.runs.partition_point(|r| r.0 < rank);
        (self.runs[from..].iter())
            .take_while(move |r| r.0 == rank && rank != 0)
            .flat_map(|r| r.1..r.2)
    }
}

/// The rank of every URL key of every column among the keys of all of them, by column
/// and ordinal: the dictionaries merged in one pass, so that documents of several sets
/// are put in URL key order by comparing two numbers (a tie in score across sets,
/// `select.rs`) rather than by reading both keys from their dictionaries' zstd blocks.
pub(crate) fn rank_keys(columns: &[Option<&StrColumn>]) -> std::io::Result<Vec<Vec<u32>>> {
    let mut streams = Vec::with_capacity(columns.len());
    let mut ranks: Vec<Vec<u32>> = Vec::with_capacity(columns.len());
    let mut heap = BinaryHeap::new();
    for (i, col) in columns.iter().enumerate() {
        let stream = match col {
            Some(c) => {
                ranks.push(vec![0; c.dictionary().num_terms()]);
                let mut s = c.dictionary().stream()?;
                if s.advance() {
                    heap.push(Reverse((s.key().to_vec(), i, s.term_ord())));
                }
                Some(s)
            }
            None => {
                ranks.push(Vec::new());
                None
            }
        };
        streams.push(stream);
    }
    // Rank 0 is "no key"; keys count from 1.
    let mut rank = 0u32;
    let mut last: Option<Vec<u8>> = None;
    while let Some(Reverse((key, i, ord))) = heap.pop() {
        if last.as_ref() != Some(&key) {
            rank += 1;
            last = Some(key);
        }
        if let Some(r) = ranks[i].get_mut(ord as usize) {
            *r = rank;
        }
        if let Some(s) = streams[i].as_mut() {
            if s.advance() {
                heap.push(Reverse((s.key().to_vec(), i, s.term_ord())));
            }
        }
    }
    Ok(ranks)
}
