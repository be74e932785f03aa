//! Near-duplicate versions shown as one hit (issue 20): a presentation of the results,
//! never a loss of a version (the dates index and identity are untouched).
//!
//! Within a set, the versions of one URL are consecutive DocIds (the index is in (URL key,
//! digest) order, src/index/versions.rs), so each set's [`NearTable`], built when the set
//! is opened, joins the versions of each URL whose fingerprints (`crate::near::simhash`) are at
//! most [`crate::near::DEFAULT_K`] bits apart, transitively, and names each group by its
//! first DocId. The collector (`collect.rs`) keeps one candidate per group: the group's best
//! score, shown as its newest matching version. Across sets (batches of a collection) and,
//! with `collapse=near`, across URLs (mirrors), `select.rs::select` folds candidates into a
//! kept hit whose fingerprint is as near, and `unwalked.rs` the versions of a hit's URL
//! that rank below where the walk stopped.

use std::sync::Arc;

use tantivy::columnar::{Column, StrColumn};
use tantivy::DocId;

use crate::near::{UnionFind, DEFAULT_K, DEFAULT_MIN_WORDS};

/// Versions of one URL compared pairwise up to this many; past it, each version is
/// compared with the 256 before it only (a URL captured daily for years), which still
/// joins a run of near-identical captures.
const ALL_PAIRS_UP_TO: usize = 2048;
const WINDOW: usize = 256;

/// Each document's group of near-identical versions of its URL.
pub(crate) struct NearTable {
    /// The first DocId of the document's group (itself when alone).
    group_of: Vec<u32>,
    /// By a group's first DocId, the group's last (itself when alone; unused for the
    /// other members). The collector asks [`NearTable::last_of`] for every match: on the
    /// 1,000,000-document scale collection, most of whose documents are in groups, a
    /// hash map's lookup (a cache miss each, as the keys are scattered) was 11 % of the
    /// server's cycles under load (issue 22). Indexed by DocId, the lookups follow the
    /// collector's ascending DocIds through memory, for 4 bytes a document.
    last_of: Vec<u32>,
    /// The fingerprints and their word counts.
    hash: Column<i64>,
    words: Column<u64>,
}

impl NearTable {
    /// Builds the table of a set from main's `urlkey`, `simhash` and `simhash_words`
    /// columns; `None` for an index without fingerprints.
    pub(crate) fn read(
        urlkeys: &StrColumn,
        hash: Column<i64>,
        words: Column<u64>,
        docs: u32,
    ) -> Arc<NearTable> {
        let mut t = NearTable {
            group_of: (0..docs).collect(),
            last_of: (0..docs).collect(),
            hash,
            words,
        };
        let mut start = 0u32;
        let mut start_ord = urlkeys.term_ords(0).next();
        for doc in 1..=docs {
            let ord = if doc < docs {
                urlkeys.term_ords(doc).next()
            } else {
                None
            };
            if doc == docs || ord != start_ord {
                if doc - start > 1 {
                    t.group_run(start, doc);
                }
                start = doc;
                start_ord = ord;
            }
        }
        Arc::new(t)
    }

    /// Joins the near-identical versions of the run `from..to` (one URL).
    fn group_run(&mut self, from: u32, to: u32) {
        let n = (to - from) as usize;
        let prints: Vec<Option<u64>> = (from..to).map(|d| self.judged(d)).collect();
        // The union-find of near-dups: its root is the smallest index, the group's first
        // DocId.
        let mut uf = UnionFind::new(n as u32);
        for j in 1..n {
            let Some(b) = prints[j] else { continue };
            let lo = if n <= ALL_PAIRS_UP_TO {
                0
            } else {
                j.saturating_sub(WINDOW)
            };
            for (i, a) in prints.iter().enumerate().take(j).skip(lo) {
                if a.is_some_and(|a| crate::near::simhash::distance(a, b) <= DEFAULT_K) {
                    uf.union(i as u32, j as u32);
                }
            }
        }
        for i in 0..n as u32 {
            let root = uf.find(i);
            let (g, d) = (from + root, from + i);
            self.group_of[d as usize] = g;
            if root != i {
                self.last_of[g as usize] = d;
            }
        }
    }

    /// The fingerprint of `doc` when it has enough words to be judged.
    pub(crate) fn judged(&self, doc: DocId) -> Option<u64> {
        let words = self.words.first(doc).unwrap_or(0);
        (words >= u64::from(DEFAULT_MIN_WORDS)).then(|| self.hash.first(doc).unwrap_or(0) as u64)
    }

    /// The first DocId of `doc`'s group.
    pub(crate) fn group_of(&self, doc: DocId) -> u32 {
        self.group_of.get(doc as usize).copied().unwrap_or(doc)
    }

    /// The last DocId of the group that starts at `group` (itself when alone).
    pub(crate) fn last_of(&self, group: u32) -> u32 {
        self.last_of.get(group as usize).copied().unwrap_or(group)
    }

    /// Every member of `doc`'s group, in DocId order.
    pub(crate) fn members(&self, doc: DocId) -> Vec<DocId> {
        let g = self.group_of(doc);
        (g..=self.last_of(g))
            .filter(|&d| self.group_of(d) == g)
            .collect()
    }
}

/// How a search shows near-duplicates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NearDisplay {
    /// Show every version, even near-identical versions of one URL (`--near-dups show`).
    pub show_versions: bool,
    /// Fold near-identical pages of other URLs (mirrors) into one hit (`collapse=near`).
    pub collapse_urls: bool,
}
