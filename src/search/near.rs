//! Near-duplicate versions shown as one hit: a presentation of the results,
//! never a loss of a version (the dates index and identity are untouched).
//!
//! Within a set, the versions of one URL are consecutive DocIds (the index is in (URL key,
//! digest) order, src/index/versions.rs), so each set's [`NearTable`], built when the set
//! is opened, groups the versions of each URL around the first of each group: a version
//! joins the group of the first earlier version it is a near-duplicate of
//! ([`crate::near::Signature::is_near`]) that leads a group, as `near-dups` clusters
//! (`crate::near::leaders`), so no chain of small changes joins a rewritten page to its
//! first version. Each group is named by its first DocId. The collector (`collect.rs`)
//! keeps one candidate per group: the group's best score, shown as its newest matching
//! version. Across sets (batches of a collection) and, with `collapse=near`, across URLs
//! (mirrors), `select.rs::select` folds candidates into a kept hit that is as near, and
//! `unwalked.rs` the versions of a hit's URL that rank below where the walk stopped.

use std::sync::Arc;

use tantivy::columnar::StrColumn;
use tantivy::DocId;

use crate::near::sig_file::SigFile;
use crate::near::{Signature, DEFAULT_MIN_WORDS, DEFAULT_THRESHOLD};

/// The group leaders of one URL a version is compared with, at most: the first and
/// the latest (a URL captured daily for years, its text changing every week).
const LEADERS_COMPARED: usize = 256;

/// Each document's group of near-identical versions of its URL.
pub(crate) struct NearTable {
    /// The first DocId of the document's group (itself when alone).
    group_of: Vec<u32>,
    /// By a group's first DocId, the group's last (itself when alone; unused for the
    /// other members). The collector asks [`NearTable::last_of`] for every match: on the
    /// 1,000,000-document scale collection, most of whose documents are in groups, a
    /// hash map's lookup (a cache miss each, as the keys are scattered) was 11 % of the
    /// server's cycles under load. Indexed by DocId, the lookups follow the
    /// collector's ascending DocIds through memory, for 4 bytes a document.
    last_of: Vec<u32>,
    /// The signatures, read by position.
    sigs: SigFile,
}

impl NearTable {
    /// Builds the table of a set from main's `urlkey` column and its `near.sig`.
    pub(crate) fn read(
        urlkeys: &StrColumn,
        sigs: SigFile,
        docs: u32,
    ) -> std::io::Result<Arc<NearTable>> {
        let mut t = NearTable {
            group_of: (0..docs).collect(),
            last_of: (0..docs).collect(),
            sigs,
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
                    t.group_run(start, doc)?;
                }
                start = doc;
                start_ord = ord;
            }
        }
        Ok(Arc::new(t))
    }

    /// Groups the versions of the run `from..to` (one URL) around their leaders.
    fn group_run(&mut self, from: u32, to: u32) -> std::io::Result<()> {
        let mut leaders: Vec<(u32, Signature)> = Vec::new();
        for d in from..to {
            let Some(sig) = self.judged(d)? else { continue };
            let n = leaders.len();
            let recent = n.saturating_sub(LEADERS_COMPARED - 1).max(1).min(n);
            let found = leaders
                .iter()
                .take(1)
                .chain(leaders.iter().skip(recent))
                .find(|(_, l)| l.is_near(&sig, DEFAULT_THRESHOLD))
                .map(|(g, _)| *g);
            match found {
                Some(g) => {
                    self.group_of[d as usize] = g;
                    self.last_of[g as usize] = d;
                }
                None => leaders.push((d, sig)),
            }
        }
        Ok(())
    }

    /// The signature of `doc` when it has enough words to be judged.
    pub(crate) fn judged(&self, doc: DocId) -> std::io::Result<Option<Signature>> {
        Ok(self.sigs.get(doc)?.filter(|s| s.words >= DEFAULT_MIN_WORDS))
    }

    /// The signature of `doc`, however few its words.
    pub(crate) fn judged_any(&self, doc: DocId) -> std::io::Result<Option<Signature>> {
        self.sigs.get(doc)
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
