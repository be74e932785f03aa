//! Each document's URL key as a 64-bit hash, and the DocIds of each URL by that hash,
//! read once when a set opens.
//!
//! The walk across sets folds a version into the hit of the same URL from another set
//! (`select.rs`), and `unwalked.rs` looks up the versions of a hit's URL in every set.
//! Both read URL keys, and a key read from the column's dictionary decompresses one of
//! its zstd blocks, with a fresh decompression context each time: 33 % of a loaded
//! server's cycles on a collection of two batches (issue 41). Hashes compare without
//! reading; two keys whose hashes are equal are compared as strings by the caller, so a
//! collision can never fold two URLs together.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use tantivy::columnar::StrColumn;
use tantivy::DocId;
use twox_hash::XxHash64;

/// The URL keys of one set's documents, by hash.
#[derive(Debug, Default)]
pub(crate) struct UrlTable {
    /// Each document's key hash.
    of_doc: Vec<u64>,
    /// (hash, first DocId, end DocId) of each URL's run of documents, by hash.
    runs: Vec<(u64, DocId, DocId)>,
    /// Each document's URL key's place among the keys of every set searched together
    /// ([`rank_keys`]): equal ranks are equal keys, across sets too.
    rank_of_doc: Vec<u32>,
}

/// The hash of a URL key.
pub(crate) fn url_hash(key: &[u8]) -> u64 {
    XxHash64::oneshot(0, key)
}

impl UrlTable {
    /// Reads the `urlkey` column of a set of `docs` documents, which are in URL key
    /// order: its dictionary streamed once, then a column value per document.
    pub(crate) fn read(urlkeys: &StrColumn, docs: u32) -> std::io::Result<UrlTable> {
        let dict = urlkeys.dictionary();
        let mut of_ord = Vec::with_capacity(dict.num_terms());
        let mut stream = dict.stream()?;
        while stream.advance() {
            of_ord.push(url_hash(stream.key()));
        }
        let mut of_doc = Vec::with_capacity(docs as usize);
        let mut runs: Vec<(u64, DocId, DocId)> = Vec::new();
        let mut last_ord = None;
        for d in 0..docs {
            let ord = urlkeys.term_ords(d).next();
            let h = ord
                .and_then(|o| of_ord.get(o as usize).copied())
                .unwrap_or(0);
            of_doc.push(h);
            match runs.last_mut() {
                Some(run) if ord.is_some() && ord == last_ord => run.2 = d + 1,
                _ if ord.is_some() => runs.push((h, d, d + 1)),
                _ => {}
            }
            last_ord = ord;
        }
        runs.sort_unstable();
        Ok(UrlTable {
            of_doc,
            runs,
            rank_of_doc: Vec::new(),
        })
    }

    /// Sets each document's rank from its key's ordinal (`rank_of_ord`, [`rank_keys`]).
    pub(crate) fn set_ranks(&mut self, urlkeys: &StrColumn, rank_of_ord: &[u32]) {
        self.rank_of_doc = (0..self.of_doc.len() as DocId)
            .map(|d| {
                let ord = urlkeys.term_ords(d).next();
                ord.and_then(|o| rank_of_ord.get(o as usize).copied())
                    .unwrap_or(0)
            })
            .collect();
    }

    /// Document `doc`'s URL key rank among every set's (0 when it has no key).
    pub(crate) fn rank(&self, doc: DocId) -> u32 {
        self.rank_of_doc.get(doc as usize).copied().unwrap_or(0)
    }

    /// Document `doc`'s key hash (0 when it has no key).
    pub(crate) fn hash(&self, doc: DocId) -> u64 {
        self.of_doc.get(doc as usize).copied().unwrap_or(0)
    }

    /// The DocIds of every URL whose key hashes to `hash` (one URL but for a collision).
    pub(crate) fn docs_of(&self, hash: u64) -> impl Iterator<Item = DocId> + '_ {
        let from = self.runs.partition_point(|r| r.0 < hash);
        (self.runs[from..].iter())
            .take_while(move |r| r.0 == hash)
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
