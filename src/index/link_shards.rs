//! Each shard's boosts and anchors, from the links of the whole collection computed
//! once and split by target (`warcdex link-graph`, then `warcdex index --shard K/N
//! --graph DIR`): an input of the index build, not the `graph` export (`crate::graph`).
//!
//! Anchors and link scores are collection-wide: a page's anchors come from pages of
//! every shard, and its score from the whole graph. Nutch's MapReduce design inverts
//! the links once and sends each target's inlinks to the target's partition; this is
//! that step. `link-graph` reads the collection's versions once (passes 1 and 2 of
//! `index`, src/index/mod.rs: the outlinks through an external sort, the score
//! iterations streamed from disk) and writes, for each shard, one line per URL key of
//! that shard with its boost and anchors, in the order the shard's index reads its
//! versions. Each shard's index then reads only its own segments and this file, and its
//! documents are those `index --shard K/N` over every segment writes (the same boosts
//! to the bit: the same code computes them once).

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use fst::Streamer;
use serde::{Deserialize, Serialize};

use super::links;
use super::versions::{absorb_all, sort_safe};
use super::{
    canonicalizer_of, first_pass, versions_in_order, Error, IndexOptions, MainWriter, Result,
};
use crate::path_error::ResultAtPath;
use crate::pindex::{LinkOptions, MainInfo};
use crate::segment::rows::Columns;

/// The file of a graph directory that describes it.
pub const GRAPH_INFO_FILE: &str = "graph.json";

/// The file of shard `k`'s URL keys in a graph directory.
pub fn shard_file(k: u32) -> String {
    format!("shard-{k}.links")
}

/// `graph.json`: how the graph was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphInfo {
    /// Format version.
    pub version: u32,
    /// Shards the URL keys are split into.
    pub shards: u32,
    /// `surt` or `url`: the canonicalizer of the segments' URL keys.
    pub canonicalizer: String,
    /// The link analysis settings used.
    pub links: LinkOptions,
    /// URL keys (nodes of the graph) of each shard.
    pub urls_per_shard: Vec<u64>,
    /// The segments read.
    pub sources: Vec<String>,
}

/// One line of a shard's file: a URL key (sort-safe), its boost and its anchors.
#[derive(Debug, Serialize, Deserialize)]
struct GraphLine {
    key: String,
    /// The boost for a reader's eyes; `boost_bits` is what the index uses.
    boost: f64,
    /// The boost's bits (`f64::to_bits`): serde_json reads decimal floats fast but not
    /// always to the nearest double (a shard's boosts came out one ulp off the single
    /// index's in `scripts/test-spark.sh`), and the boosts must be the same to the bit.
    boost_bits: u64,
    anchors: Vec<String>,
    /// The hash of each anchor's source URL key (`anchor_from`); absent in graphs
    /// written before.
    #[serde(default)]
    sources: Vec<u64>,
    /// Whether each anchor is from the same host; absent in graphs written before
    /// (all external).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    internal: Vec<bool>,
}

/// Computes the link graph of `segments` (all of the collection's) and writes it split
/// into `shards` files in the directory `out` (which must not exist), installed whole.
pub fn build_graph(
    segments: &[PathBuf],
    out: &Path,
    shards: u32,
    opts: &IndexOptions,
) -> Result<GraphInfo> {
    let shards = shards.max(1);
    if out.exists() {
        return Err(Error::Exists(out.to_path_buf()));
    }
    let (canonicalizer, style) = canonicalizer_of(segments)?;
    // The shard of each node id (ids are given in key order, once per URL key).
    let mut node_shard: Vec<u32> = Vec::new();
    // Keys, URLs and outlinks are all the graph needs: the text columns are not read.
    let (_, keys, links) =
        versions_in_order(segments, &opts.sort, Columns::WithoutText, &mut |source| {
            node_shard.clear();
            first_pass(
                opts,
                style,
                false,
                &mut |node, row| {
                    if node as usize == node_shard.len() {
                        node_shard.push(warcdex_cdx::shard::shard_of(&row.urlkey, shards));
                    }
                },
                source,
            )
        })?;
    let mut resolved = links.resolve(&keys, &opts.links, &opts.sort)?;
    let scores = resolved.scores(&opts.links)?;
    let mut anchors = resolved.anchors();

    let tmp = crate::output::temp_dir_beside(out)?;
    let mut files = Vec::with_capacity(shards as usize);
    for k in 0..shards {
        let p = tmp.path().join(shard_file(k));
        files.push(BufWriter::with_capacity(1 << 16, File::create(&p).at(&p)?));
    }
    let mut urls_per_shard = vec![0u64; shards as usize];
    let mut stream = keys.stream();
    while let Some((key, node)) = stream.next() {
        let key = String::from_utf8_lossy(key).into_owned();
        let k = node_shard[node as usize] as usize;
        let boost = scores[node as usize].powf(opts.links.score_power);
        let a = anchors.anchors_of(&key)?;
        let line = GraphLine {
            boost,
            boost_bits: boost.to_bits(),
            anchors: a.texts,
            sources: a.sources,
            internal: a.internal,
            key,
        };
        serde_json::to_writer(&mut files[k], &line).map_err(io::Error::other)?;
        files[k].write_all(b"\n")?;
        urls_per_shard[k] += 1;
    }
    for f in files {
        f.into_inner().map_err(|e| e.into_error())?;
    }
    let info = GraphInfo {
        version: 1,
        shards,
        canonicalizer,
        links: opts.links.clone(),
        urls_per_shard,
        sources: segments.iter().map(|s| s.display().to_string()).collect(),
    };
    let p = tmp.path().join(GRAPH_INFO_FILE);
    let json = serde_json::to_string_pretty(&info).map_err(io::Error::other)?;
    std::fs::write(&p, json + "\n").at(&p)?;
    crate::output::install_dir(tmp, out)?;
    Ok(info)
}

/// Reads `graph.json`.
pub fn read_graph_info(dir: &Path) -> Result<GraphInfo> {
    let p = dir.join(GRAPH_INFO_FILE);
    let text = std::fs::read_to_string(&p).at(&p)?;
    serde_json::from_str(&text).map_err(|source| Error::NotALinkGraph { path: p, source })
}

/// Reads a shard's file forward, URL key by URL key.
struct GraphReader {
    path: PathBuf,
    lines: io::Lines<BufReader<File>>,
    line: u64,
    current: Option<GraphLine>,
}

impl GraphReader {
    fn open(path: &Path) -> Result<GraphReader> {
        let f = File::open(path).at(path)?;
        Ok(GraphReader {
            path: path.to_path_buf(),
            lines: BufReader::with_capacity(1 << 16, f).lines(),
            line: 0,
            current: None,
        })
    }

    /// The boost and anchors of `key` (sort-safe); keys must be asked in increasing
    /// order, the same key any number of times. A key the file does not have is an
    /// error: the graph was made from other segments.
    fn entry(&mut self, key: &str) -> io::Result<(f64, links::AnchorList<'_>)> {
        loop {
            if let Some(c) = &self.current {
                match c.key.as_str().cmp(key) {
                    std::cmp::Ordering::Equal => break,
                    std::cmp::Ordering::Greater => {
                        return Err(Error::GraphNoEntry {
                            path: self.path.clone(),
                            key: key.to_string(),
                        }
                        .into())
                    }
                    std::cmp::Ordering::Less => {}
                }
            }
            let Some(text) = self.lines.next().transpose()? else {
                return Err(Error::GraphEnds {
                    path: self.path.clone(),
                    key: key.to_string(),
                }
                .into());
            };
            self.line += 1;
            let parsed: GraphLine =
                serde_json::from_str(&text).map_err(|source| Error::GraphLine {
                    path: self.path.clone(),
                    line: self.line,
                    source,
                })?;
            self.current = Some(parsed);
        }
        let c = self.current.as_ref().expect("just matched");
        let anchors = links::AnchorList {
            texts: &c.anchors,
            sources: &c.sources,
            internal: &c.internal,
        };
        Ok((f64::from_bits(c.boost_bits), anchors))
    }
}

/// `index --shard K/N --graph DIR`: writes the documents of shard K of `segments` with
/// the boosts and anchors of the graph's file for shard K, in one pass.
pub(crate) fn index_with_graph(
    segments: &[PathBuf],
    out: &Path,
    opts: &IndexOptions,
    graph: &Path,
    canonicalizer: String,
) -> Result<MainInfo> {
    let shard = opts.shard.ok_or(Error::GraphNeedsShard)?;
    let info = read_graph_info(graph)?;
    if info.shards != shard.count || info.canonicalizer != canonicalizer {
        return Err(Error::GraphMismatch {
            graph: graph.to_path_buf(),
            shards: info.shards,
            keys: info.canonicalizer,
            shard: shard.to_string(),
            these_keys: canonicalizer,
        });
    }
    let file = graph.join(shard_file(shard.index));
    let writer = versions_in_order(segments, &opts.sort, Columns::All, &mut |source| {
        let mut writer = MainWriter::create(out, opts.writer_memory).map_err(io::Error::from)?;
        let mut reader = GraphReader::open(&file).map_err(io::Error::from)?;
        source(&mut |group| {
            let row = absorb_all(group);
            if !shard.holds(&row.urlkey) {
                return Ok(());
            }
            let (boost, anchors) = reader.entry(&sort_safe(&row.urlkey))?;
            writer.add(&row, anchors, boost).map_err(io::Error::from)
        })?;
        Ok(writer)
    })?;
    let sources = segments.iter().map(|s| s.display().to_string()).collect();
    writer.finish(canonicalizer, sources, &info.links, opts.shard)
}
