//! Near-duplicate versions (issue 20): the text fingerprint ([`simhash`]) and the
//! clustering of fingerprints that differ in at most `k` bits ([`clusters`]).
//!
//! The commands that read the fingerprints of a search directory, `warcdex near-dups` and
//! `warcdex history`, are in `src/search/` (`near_dups.rs`, `history.rs`).

pub mod clusters;
pub mod simhash;

pub use clusters::{ClusterCounts, PrintSorter, UnionFind};

/// The default largest distance, in bits, of two near-duplicates: measured on the
/// labelled set of `scripts/near-dups-eval.py` (`docs/near-duplicates.md`).
pub const DEFAULT_K: u32 = 3;

/// The largest `k` accepted: past it the blocks are so narrow that every group of the
/// band method holds a large share of the collection.
pub const MAX_K: u32 = 12;

/// The default `--min-size`: documents with fewer words are not clustered.
pub const DEFAULT_MIN_WORDS: u32 = 20;
