//! `warcdex index`: segments to the main full-text index (tantivy), one document per
//! version (URL key + digest) across all segments, with the anchor text of inbound links
//! and a link-analysis score (OPIC/PageRank) stored as `boost` (docs/design.md §3–4).
//!
//! Documents are written in (URL key, digest) order with `seq` = position by one indexing
//! thread, and segments are merged to one in `seq` order, so DocId = position: the dates
//! index of add-dates joins on it.

pub mod error;
pub mod first_pass;
pub mod link_shards;
pub mod links;
pub mod merge;
pub mod versions;
mod writer;

use std::io::{self, BufRead, BufReader, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::pindex::MainInfo;
use crate::segment::layout::read_manifest;
use crate::segment::rows::Columns;
use crate::segment::SegmentRow;
pub use error::{Error, Result};
use first_pass::{FirstPass, FirstPassOutput, LinksOfSegment};
use links::LinkOptions;
use versions::{absorb_all, sort_safe, VersionGroup};
use warcdex_cdx::sort::SortOptions;
pub use writer::{write_index, MainWriter, DEFAULT_WRITER_MEMORY, MIN_WRITER_MEMORY};

/// How to build the index.
#[derive(Debug, Clone)]
pub struct IndexOptions {
    /// Link graph and anchor options.
    pub links: LinkOptions,
    /// Memory and temporary directory of the external sorts (versions, links, edges);
    /// `unique` is ignored.
    pub sort: SortOptions,
    /// Only the documents of this shard are written (`index --shard K/N`); the link graph,
    /// anchors and scores are still those of every segment given, so that shards built
    /// from the same segments score as one index of them would.
    pub shard: Option<warcdex_cdx::shard::Shard>,
    /// With `shard`: the directory `link-graph` wrote ([`link_shards`]); the boosts and anchors
    /// come from its file for the shard, and only the shard's versions are read, so the
    /// segments given may be the shard's alone.
    pub graph: Option<PathBuf>,
    /// The tantivy writer's memory budget in bytes ([`MainWriter::create`]); it works
    /// after the sorts, so `index` gives it the whole `--memory`.
    pub writer_memory: usize,
}

impl Default for IndexOptions {
    fn default() -> Self {
        IndexOptions {
            links: LinkOptions::default(),
            sort: SortOptions::default(),
            shard: None,
            graph: None,
            writer_memory: DEFAULT_WRITER_MEMORY,
        }
    }
}

/// Checks that every input of an index uses the canonicalizer the first one used:
/// keys of two styles never match each other.
pub(crate) fn same_canonicalizer(
    seen: &mut Option<String>,
    got: &str,
    input: &Path,
) -> io::Result<()> {
    match seen {
        None => *seen = Some(got.to_string()),
        Some(c) if c != got => {
            return Err(Error::MixedKeys {
                input: input.to_path_buf(),
                got: got.to_string(),
                earlier: c.clone(),
            }
            .into())
        }
        Some(_) => {}
    }
    Ok(())
}

/// The canonicalizer every segment's URL keys were made with (`surt` when there are
/// none), and its key style; segments of two canonicalizers are an error.
pub(crate) fn canonicalizer_of(segments: &[PathBuf]) -> Result<(String, warcdex_cdx::KeyStyle)> {
    let mut canonicalizer: Option<String> = None;
    for seg in segments {
        let m = read_manifest(seg)?;
        same_canonicalizer(&mut canonicalizer, &m.canonicalizer, seg)?;
    }
    let canonicalizer = canonicalizer.unwrap_or_else(|| "surt".into());
    let style = if canonicalizer == "url" {
        warcdex_cdx::KeyStyle::Url
    } else {
        warcdex_cdx::KeyStyle::Surt
    };
    Ok((canonicalizer, style))
}

/// Builds `out` (which must not exist) from `segments`, in bounded memory: rows come in
/// (URL key, digest) order from a merge of the segments (or an external sort when they
/// are not in order), outlinks go through an external sort into target order, and the
/// link graph is streamed from disk at each iteration; what stays in memory is one
/// version at a time plus a key map and two scores per URL.
pub fn build_index(segments: &[PathBuf], out: &Path, opts: &IndexOptions) -> Result<MainInfo> {
    build_index_with(segments, out, opts, None, &mut || {})
}

/// [`build_index`], with pass 1 already made from the rows of the one segment given as
/// they were written (`links`): the segment is not read for it. A pass that cannot stand
/// for the segment (see [`LinksOfSegment`]) is set aside and pass 1 reads the segment.
/// `fed` is called once every document is handed to the writer, before the writer's
/// last commit and merge (which take a core, not two): `update` starts the dates index
/// there.
pub fn build_index_with(
    segments: &[PathBuf],
    out: &Path,
    opts: &IndexOptions,
    links: Option<LinksOfSegment>,
    fed: &mut dyn FnMut(),
) -> Result<MainInfo> {
    let (canonicalizer, style) = canonicalizer_of(segments)?;
    if let Some(graph) = &opts.graph {
        return link_shards::index_with_graph(segments, out, opts, graph, canonicalizer);
    }
    let made = match (links, segments) {
        (Some(l), [one]) => l.finish_for(segments, read_manifest(one)?.documents)?,
        _ => None,
    };
    let mut writer = MainWriter::create(out, opts.writer_memory)?;

    // Pass 1: URL keys numbered in version order, outlinks to the link collector.
    // Import writes segments in (URL key, digest) order, so the
    // versions usually come from a merge of the segments, read without their text
    // (`Columns::WithoutText`), and pass 3 merges them again for the documents: no copy
    // of the collection's text is written between the passes (spooling it as
    // JSON was 0.7 s of the bench's 2.4 s pass 1). A segment out of order, more than
    // MAX_MERGED_SEGMENTS segments (the merge holds one decoded batch of 1,024 rows per
    // segment) send the versions through the external sort, bounded by `--memory`,
    // and the rows to a spool file for pass 3.
    let pass1 = |keep_rows: bool, source: VersionSource<'_>| {
        first_pass(opts, style, keep_rows, &mut |_, _| {}, source).map(Some)
    };
    let merged_without_text: VersionSource<'_> =
        &|f: &mut dyn FnMut(VersionGroup) -> io::Result<()>| {
            versions::merge_sorted_segments(segments, Columns::WithoutText, f)
        };
    let lean = if made.is_some() {
        made
    } else if segments.len() <= MAX_MERGED_SEGMENTS {
        match pass1(false, merged_without_text) {
            Ok(done) => done,
            Err(e) if versions::is_out_of_order(&e) => None,
            Err(e) => return Err(e.into()),
        }
    } else {
        None
    };
    let (spool, keys, links) = match lean {
        Some(done) => done,
        None => versions_in_order(segments, &opts.sort, Columns::All, &mut |source| {
            Ok(pass1(true, source)?.expect("rows kept"))
        })?,
    };

    // Pass 2: the link graph and the anchors, then the scores.
    let mut resolved = links.resolve(&keys, &opts.links, &opts.sort)?;
    let scores = resolved.scores(&opts.links)?;
    let mut anchors = resolved.anchors();

    // Pass 3: documents in order, anchors merge-joined by URL key.
    let mut last_node: Option<usize> = None;
    let mut these_anchors = links::Anchors::default();
    let mut add = |node: usize, row: SegmentRow| -> io::Result<()> {
        if opts.shard.is_some_and(|s| !s.holds(&row.urlkey)) {
            return Ok(());
        }
        if last_node != Some(node) {
            these_anchors = anchors.anchors_of(&sort_safe(&row.urlkey))?;
            last_node = Some(node);
        }
        writer
            .add(
                &row,
                these_anchors.as_list(),
                scores[node].powf(opts.links.score_power),
            )
            .map_err(io::Error::other)
    };
    match spool {
        // The versions again, as pass 1 merged them, without their outlinks; each
        // URL's node id is the one pass 1 gave it.
        None => {
            versions::merge_sorted_segments(segments, Columns::WithoutOutlinks, &mut |group| {
                let row = absorb_all(group);
                let node = keys
                    .get(sort_safe(&row.urlkey).as_bytes())
                    .ok_or_else(|| io::Error::from(Error::UnseenKey(row.urlkey.clone())))?;
                add(node as usize, row)
            })?
        }
        Some(mut spool) => {
            spool.seek(SeekFrom::Start(0))?;
            for line in BufReader::with_capacity(1 << 16, spool).lines() {
                let line = line?;
                let (node, json) = line
                    .split_once('\x01')
                    .and_then(|(n, j)| Some((n.parse::<usize>().ok()?, j)))
                    .ok_or_else(|| io::Error::from(Error::Corrupt("spool line")))?;
                // The spool is ours, written just before: an error here is a system's.
                let row: SegmentRow = serde_json::from_str(json).map_err(io::Error::other)?;
                add(node, row)?;
            }
        }
    }
    fed();
    let sources = segments.iter().map(|s| s.display().to_string()).collect();
    writer.finish(canonicalizer, sources, &opts.links, opts.shard)
}

/// Runs `pass` over the versions of `segments` in (URL key, digest) order: merged as
/// they are read when the segments are in order and not too many, else (or when a
/// segment turns out to be out of order, in which case `pass` starts again) through the
/// external sort.
pub(crate) fn versions_in_order<T>(
    segments: &[PathBuf],
    sort: &SortOptions,
    columns: Columns,
    pass: &mut dyn FnMut(VersionSource<'_>) -> io::Result<T>,
) -> io::Result<T> {
    let sorted: VersionSource<'_> = &|f: &mut dyn FnMut(VersionGroup) -> io::Result<()>| {
        versions::sort_segments(segments, sort, columns, f)
    };
    if segments.len() > MAX_MERGED_SEGMENTS {
        return pass(sorted);
    }
    let merged: VersionSource<'_> = &|f: &mut dyn FnMut(VersionGroup) -> io::Result<()>| {
        versions::merge_sorted_segments(segments, columns, f)
    };
    match pass(merged) {
        Err(e) if versions::is_out_of_order(&e) => pass(sorted),
        other => other,
    }
}

/// Something that calls back with every version, in order.
pub(crate) type VersionSource<'a> =
    &'a dyn Fn(&mut dyn FnMut(VersionGroup) -> io::Result<()>) -> io::Result<()>;

/// Segments merged as they are read, at most (see [`build_index`]).
const MAX_MERGED_SEGMENTS: usize = 16;

/// Pass 1 of [`build_index`] over the versions `source` calls back with, in order:
/// the spool of rows (without outlinks; none unless `keep_rows`), the URL key map and
/// the collected links. `on_row` sees each version with its node id.
pub(crate) fn first_pass(
    opts: &IndexOptions,
    style: warcdex_cdx::KeyStyle,
    keep_rows: bool,
    on_row: &mut dyn FnMut(u32, &SegmentRow),
    source: impl FnOnce(&mut dyn FnMut(VersionGroup) -> io::Result<()>) -> io::Result<()>,
) -> io::Result<FirstPassOutput> {
    let mut pass = FirstPass::new(opts, style, keep_rows)?;
    source(&mut |group| {
        let (node, row) = pass.push(absorb_all(group))?;
        on_row(node, row);
        Ok(())
    })?;
    pass.finish()
}
