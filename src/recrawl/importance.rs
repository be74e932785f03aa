//! Each URL's importance: its link-analysis boost (the OPIC/PageRank score to the power
//! `score_power`, src/index/links.rs) over the whole collection's link graph. A collection
//! of one set (one batch, or after `update --compact`) has it in the set's `boost`
//! column, read as it is. Each set of a collection grown batch by batch holds the scores
//! of its own batch's versions only (a changed page's latest version is scored among the
//! other pages that changed with it), so there the graph of every segment is computed
//! again, as `link-graph` computes it for a sharded build (`index::link_shards`). A URL
//! without a score (an image, a page whose only capture was an error) gets the least
//! boost any URL has, that of a page nobody links to; 1 when nothing is scored.
//!
//! The boosts come in URL key order (the set's column through an external sort, or the
//! graph's file), and the plan reads them beside `all.cdx` in the same order.

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};

use warcdex_cdx::{ExternalSorter, SortOptions};

use crate::collection::Collection;
use crate::path_error::{Result, ResultAtPath};
use crate::pindex::open::open_parallel_index_released;

/// The boosts of a collection's URLs in URL key order, for lookups in ascending key order.
pub struct LinkScores {
    /// (URL key, boost) in key order; a key may come more than once (the last counts).
    boosts: Box<dyn Iterator<Item = (Vec<u8>, f64)>>,
    /// The next line read and not yet used.
    pending: Option<(Vec<u8>, f64)>,
    /// The least boost seen (the boost of a URL without one).
    floor: f64,
}

impl std::fmt::Debug for LinkScores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinkScores")
            .field("floor", &self.floor)
            .finish()
    }
}

impl LinkScores {
    /// The link scores of `collection`: its one set's boosts, or the graph of every
    /// segment when it has several sets; none when it has no index.
    pub fn of_collection(collection: &Collection, sort: SortOptions) -> Result<LinkScores> {
        let sets = sets_of(collection.dir())?;
        let segments: Vec<PathBuf> = (collection.segments()?.into_iter())
            .filter(|s| s.is_dir())
            .collect();
        if sets.len() <= 1 || segments.is_empty() {
            return Self::read(collection.dir(), sort);
        }
        let links = crate::pindex::info::read_main_info(&sets[0].join("main"))
            .map(|i| i.links)
            .unwrap_or_default();
        let tmp = tempfile::Builder::new()
            .prefix(".warcdex-recrawl-graph")
            .tempdir_in(sort.tmp_dir.clone().unwrap_or_else(std::env::temp_dir))
            .map_err(io::Error::other)?;
        let graph = tmp.path().join("graph");
        let opts = crate::index::IndexOptions {
            links,
            sort: sort.clone(),
            ..crate::index::IndexOptions::default()
        };
        crate::index::link_shards::build_graph(&segments, &graph, 1, &opts)
            .map_err(io::Error::other)?;
        let path = graph.join(crate::index::link_shards::shard_file(0));
        // One JSON line a URL key, in key order: its `key` and `boost_bits`. Read through
        // once for the least boost, then handed on line by line (the handle keeps the
        // file readable after the temporary directory is gone).
        let parse = |line: io::Result<String>| -> Option<(Vec<u8>, f64)> {
            let v: serde_json::Value = serde_json::from_str(&line.ok()?).ok()?;
            let key = v["key"].as_str()?.as_bytes().to_vec();
            Some((key, f64::from_bits(v["boost_bits"].as_u64()?)))
        };
        let file = File::open(&path).at(&path)?;
        let floor = (BufReader::new(&file).lines().filter_map(parse))
            .map(|(_, boost)| boost)
            .fold(f64::INFINITY, f64::min);
        let again = super::rewound(&file).at(&path)?;
        Ok(LinkScores {
            boosts: Box::new(BufReader::new(again).lines().filter_map(parse)),
            pending: None,
            floor: if floor.is_finite() { floor } else { 1.0 },
        })
    }

    /// Reads the boosts of every set of the search directory `dir` (the collection's, which
    /// holds `pindexes/`); none when it has no index.
    pub fn read(dir: &Path, sort: SortOptions) -> Result<LinkScores> {
        let sets = sets_of(dir)?;
        let mut sorter = ExternalSorter::new(SortOptions {
            unique: false,
            ..sort.clone()
        });
        let mut floor = f64::INFINITY;
        for (n, set) in sets.iter().enumerate() {
            let main = set.join("main");
            let (_, searcher) = open_parallel_index_released(&main).map_err(io::Error::other)?;
            let Some(seg) = searcher.segment_readers().first() else {
                continue;
            };
            let docs = seg.max_doc();
            let ff = seg.fast_fields();
            let Some(keys) = ff.str("urlkey").at(&main)? else {
                continue;
            };
            let boosts = ff.f64("boost").ok().map(|c| c.first_or_default_col(1.0));
            let mut key = String::new();
            let mut line = Vec::new();
            let mut last_ord = None;
            for d in 0..docs {
                let Some(ord) = keys.term_ords(d).next() else {
                    continue;
                };
                let boost = boosts.as_ref().map_or(1.0, |c| c.get_val(d));
                if !boost.is_finite() || boost < 0.0 {
                    continue;
                }
                floor = floor.min(boost);
                // Versions of one URL share a boost (it is the URL's): one line a URL.
                if last_ord == Some(ord) {
                    continue;
                }
                last_ord = Some(ord);
                key.clear();
                keys.ord_to_str(ord, &mut key).at(&main)?;
                line.clear();
                line.extend_from_slice(key.as_bytes());
                line.extend_from_slice(
                    format!("\x01{n:06}\x01{:016x}", boost.to_bits()).as_bytes(),
                );
                sorter.push(&line).at(&main)?;
            }
        }
        // The sorted lines are handed on through a bounded reader: the sorter's output is
        // written to a temporary file and read back line by line.
        let tmp = warcdex_cdx::sort::temp_file(sort.tmp_dir.as_deref())?;
        sorter.finish_into(tmp.try_clone()?)?;
        let reader = BufReader::new(super::rewound(&tmp)?);
        let boosts = (reader.split(b'\n').map_while(|l| l.ok())).filter_map(|l| parse(&l));
        Ok(LinkScores {
            boosts: Box::new(boosts),
            pending: None,
            floor: if floor.is_finite() { floor } else { 1.0 },
        })
    }

    /// The importance of a URL without a boost.
    pub fn floor(&self) -> f64 {
        self.floor
    }

    /// The boost of `key`; keys must be asked in ascending byte order (keys skipped are
    /// passed over).
    pub fn boost_of(&mut self, key: &[u8]) -> Option<f64> {
        let mut found = None;
        loop {
            if self.pending.is_none() {
                self.pending = self.boosts.next();
                if self.pending.is_none() {
                    return found;
                }
            }
            let (k, boost) = self.pending.as_ref()?;
            match k.as_slice().cmp(key) {
                std::cmp::Ordering::Less => {}
                std::cmp::Ordering::Equal => found = Some(*boost),
                std::cmp::Ordering::Greater => return found,
            }
            self.pending = None;
        }
    }
}

/// A line of the sort: `KEY \x01 SET \x01 BOOST_BITS` (the set orders a key's lines).
fn parse(line: &[u8]) -> Option<(Vec<u8>, f64)> {
    let mut parts = line.split(|&b| b == 0x01);
    let key = parts.next()?.to_vec();
    let _set = parts.next()?;
    let bits = u64::from_str_radix(std::str::from_utf8(parts.next()?).ok()?, 16).ok()?;
    Some((key, f64::from_bits(bits)))
}

/// The parallel sets under `dir/pindexes/`, in name order.
fn sets_of(dir: &Path) -> Result<Vec<PathBuf>> {
    let pindexes = dir.join("pindexes");
    let mut sets = Vec::new();
    if pindexes.is_dir() {
        for e in std::fs::read_dir(&pindexes).at(&pindexes)? {
            let p = e.at(&pindexes)?.path();
            if p.join("main").is_dir() {
                sets.push(p);
            }
        }
    }
    sets.sort();
    Ok(sets)
}
