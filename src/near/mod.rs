//! Near-duplicate versions: the signature of a version's text ([`minhash`]),
//! stored by document in an index's `near.sig` ([`sig_file`]), and the clustering of
//! versions around the first of each cluster ([`leaders`]).
//!
//! The commands that read the signatures of a search directory, `warcdex near-dups` and
//! `warcdex history`, are in `src/search/` (`near_dups.rs`, `history.rs`).

pub mod clusters;
pub mod leaders;
pub mod minhash;
pub mod sig_file;
pub mod word_diff;
pub mod words;

pub use clusters::{ClusterCounts, UnionFind};
pub use leaders::LeaderClusters;
pub use minhash::{Signature, DEFAULT_THRESHOLD};

/// The default `--min-size`: documents with fewer words are not clustered.
pub const DEFAULT_MIN_WORDS: u32 = 20;
