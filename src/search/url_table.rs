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
        Ok(UrlTable { of_doc, runs })
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
