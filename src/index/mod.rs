//! `warcdex index`: segments to the main full-text index (tantivy), one document per
//! version (URL key + digest) across all segments, with the anchor text of inbound links
//! and a link-analysis score (OPIC/PageRank) stored as `boost` (docs/design.md §3–4).
//!
//! Documents are written in (URL key, digest) order with `seq` = position, in an index
//! sorted by `seq` and merged to one segment, so DocId = position: the dates index of
//! add-dates joins on it.

pub mod error;
pub mod graph;
pub mod links;
pub mod merge;
pub mod versions;

use std::io::{self, BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use sha1::{Digest, Sha1};
use tantivy::{Index, IndexSettings, IndexSortByField, Order, TantivyDocument};

use crate::path_error::ResultAtPath;
use crate::pindex::directory::ReleasingDirectory;
use crate::pindex::info::write_info;
use crate::pindex::{MainInfo, PindexInfo};
use crate::schema::{analysis, schema, Fields};
use crate::segment::layout::read_manifest;
use crate::segment::rows::Columns;
use crate::segment::{Outlink, SegmentRow};
pub use error::{Error, Result};
use links::{KeyIds, LinkCollector, LinkOptions};
use versions::{absorb_all, sort_safe, VersionGroup};
use warcdex_cdx::sort::SortOptions;

/// How to build the index.
#[derive(Debug, Clone, Default)]
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
    /// With `shard`: the directory `link-graph` wrote ([`graph`]); the boosts and anchors
    /// come from its file for the shard, and only the shard's versions are read, so the
    /// segments given may be the shard's alone.
    pub graph: Option<PathBuf>,
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
    let (canonicalizer, style) = canonicalizer_of(segments)?;
    if let Some(graph) = &opts.graph {
        return graph::index_with_graph(segments, out, opts, graph, canonicalizer);
    }
    let mut writer = MainWriter::create(out)?;

    // Pass 1: URL keys numbered in version order, outlinks to the link collector, and
    // the fingerprints. Import writes segments in (URL key, digest) order, so the
    // versions usually come from a merge of the segments, read without their text
    // (`Columns::WithoutText`), and pass 3 merges them again for the documents: no copy
    // of the collection's text is written between the passes (issue 22: spooling it as
    // JSON was 0.7 s of the bench's 2.4 s pass 1). A segment out of order, more than
    // MAX_MERGED_SEGMENTS segments (the merge holds one decoded batch of 1,024 rows per
    // segment), or a row without a stored fingerprint (a segment from before format 3,
    // fingerprinted from its text) send the versions through the external sort,
    // bounded by `--memory`, and the rows to a spool file for pass 3. The fingerprints
    // go to a sort of their own, by position (a pass that starts again starts them
    // again).
    let mut prints: Option<(crate::near::PrintSorter, u32)> = None;
    let mut pass1 = |keep_rows: bool, source: VersionSource<'_>| {
        prints = Some((crate::near::PrintSorter::new(&near_sort(opts)), 0));
        let mut pushed: io::Result<()> = Ok(());
        let mut text_needed = false;
        let pass = first_pass(
            opts,
            style,
            keep_rows,
            &mut |_, row| {
                let Some((sorter, seq)) = prints.as_mut() else {
                    return;
                };
                if opts.shard.is_some_and(|s| !s.holds(&row.urlkey)) {
                    return;
                }
                if !keep_rows && row.simhash.is_none() {
                    text_needed = true;
                    return;
                }
                let print = row.fingerprint();
                if print.words >= crate::near::DEFAULT_MIN_WORDS && pushed.is_ok() {
                    pushed = sorter.push(print.hash, *seq);
                }
                *seq += 1;
            },
            source,
        );
        pushed?;
        if text_needed {
            return Ok(None);
        }
        pass.map(Some)
    };
    let merged_without_text: VersionSource<'_> =
        &|f: &mut dyn FnMut(VersionGroup) -> io::Result<()>| {
            versions::merge_sorted_segments(segments, Columns::WithoutText, f)
        };
    let lean = if segments.len() <= MAX_MERGED_SEGMENTS {
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

    // The clusters of near-duplicates, by position: stored as `near_cluster`.
    if let Some((sorter, docs)) = prints.take() {
        let mut uf = crate::near::UnionFind::new(docs);
        sorter
            .cluster(crate::near::DEFAULT_K, &mut uf)
            .map_err(io::Error::other)?;
        writer.set_near_clusters(uf);
    }

    // Pass 3: documents in order, anchors merge-joined by URL key.
    let mut last_node: Option<usize> = None;
    let mut these_anchors: Vec<String> = Vec::new();
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
                &these_anchors,
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
    let sources = segments.iter().map(|s| s.display().to_string()).collect();
    writer.finish(canonicalizer, sources, &opts.links, opts.shard)
}

/// The sort options of the near-duplicate clustering: an eighth of the budget, as the
/// links' sort holds its whole budget in pass 1 (its lines are 24 bytes a version, so
/// at 1,000,000 versions it spills a run or two).
fn near_sort(opts: &IndexOptions) -> SortOptions {
    SortOptions {
        memory: (opts.sort.memory / 8).max(4 << 20),
        ..opts.sort.clone()
    }
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
) -> io::Result<(Option<std::fs::File>, fst::Map<Vec<u8>>, LinkCollector)> {
    let mut spool = match keep_rows {
        true => Some(BufWriter::new(links::tempfile_in(&opts.sort)?)),
        false => None,
    };
    let mut ids = KeyIds::default();
    let mut links = LinkCollector::new(opts.sort.clone(), style);
    // Batches, so the links' keys are computed on all cores.
    let mut batch: Vec<(u32, SegmentRow)> = Vec::new();
    let mut flush =
        |batch: &mut Vec<(u32, SegmentRow)>, links: &mut LinkCollector| -> io::Result<()> {
            let pages: Vec<(u32, &str, &[Outlink])> = batch
                .iter()
                .map(|(n, r)| (*n, r.url.as_str(), r.outlinks.as_slice()))
                .collect();
            links.add_batch(&pages)?;
            let Some(spool) = spool.as_mut() else {
                batch.clear();
                return Ok(());
            };
            // `NODE \x01 JSON`: pass 3 joins anchors and scores by the node id.
            for (node, mut row) in batch.drain(..) {
                row.outlinks = Vec::new();
                write!(spool, "{node}\x01")?;
                serde_json::to_writer(&mut *spool, &row).map_err(io::Error::other)?;
                spool.write_all(b"\n")?;
            }
            Ok(())
        };
    source(&mut |group| {
        let mut row = absorb_all(group);
        if keep_rows && row.simhash.is_none() {
            // A row of an older segment: fingerprinted once here, so that pass 1's
            // clustering and pass 3's document read the same value from the spool.
            row.set_fingerprint();
        }
        let node = ids.id_of(&row.urlkey)?;
        on_row(node, &row);
        batch.push((node, row));
        if batch.len() >= 256 {
            flush(&mut batch, &mut links)?;
        }
        Ok(())
    })?;
    flush(&mut batch, &mut links)?;
    let keys = ids.finish()?;
    let spool = match spool {
        Some(s) => Some(s.into_inner().map_err(|e| e.into_error())?),
        None => None,
    };
    Ok((spool, keys, links))
}

/// Writes rows held in memory (already in (URL key, digest) order) with anchors and
/// boosts from an in-memory [`links::LinkAnalysis`]: for tests and small tools; `index`
/// streams instead.
pub fn write_index(
    out: &Path,
    rows: &[SegmentRow],
    graph: &links::LinkAnalysis,
    canonicalizer: String,
    sources: Vec<String>,
    link_opts: &LinkOptions,
) -> Result<MainInfo> {
    let mut w = MainWriter::create(out)?;
    for row in rows {
        w.add(
            row,
            graph.anchors_of(&row.urlkey),
            graph.boost_of(&row.urlkey),
        )?;
    }
    w.finish(canonicalizer, sources, link_opts, None)
}

/// Writes a main index document by document (in order) into a temporary directory
/// beside `out`, renamed to `out` by [`MainWriter::finish`]; dropped unfinished, it
/// leaves nothing behind.
pub struct MainWriter {
    out: PathBuf,
    tmp: tempfile::TempDir,
    /// The index's directory, which keeps the first write that failed.
    dir: ReleasingDirectory,
    index: Index,
    writer: tantivy::IndexWriter<TantivyDocument>,
    fields: Fields,
    checksum: Sha1,
    docs: u64,
    /// Text bytes handed to the writer since its last commit.
    pending_bytes: usize,
    /// The clusters of near-duplicates of the documents to come, by position.
    near_clusters: Option<crate::near::UnionFind>,
}

impl MainWriter {
    /// Stores each document's cluster of near-duplicates (`near_cluster`): `uf` joins
    /// the positions of the documents to be added.
    pub fn set_near_clusters(&mut self, uf: crate::near::UnionFind) {
        self.near_clusters = Some(uf);
    }

    /// Starts an index at `out`, which must not exist.
    pub fn create(out: &Path) -> Result<Self> {
        if out.exists() {
            return Err(Error::Exists(out.to_path_buf()));
        }
        let tmp = crate::output::temp_dir_beside(out)?;
        let (schema, fields) = schema();
        let settings = IndexSettings {
            sort_by_field: Some(IndexSortByField {
                field: "seq".into(),
                order: Order::Asc,
            }),
            ..IndexSettings::default()
        };
        // The final merge reads every segment through: its mapped pages must not stay
        // resident (pindex/directory.rs).
        let dir = ReleasingDirectory::open(tmp.path())?;
        let index = Index::create(dir.clone(), schema, settings).at(out)?;
        analysis::register(&index);
        let writer = index
            .writer_with_num_threads::<TantivyDocument>(writer_threads(), WRITER_MEMORY)
            .at(out)?;
        writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
        Ok(MainWriter {
            out: out.to_path_buf(),
            tmp,
            dir,
            index,
            writer,
            fields,
            checksum: Sha1::new(),
            docs: 0,
            pending_bytes: 0,
            near_clusters: None,
        })
    }

    /// Adds the next document: a version with the anchors of its URL and its boost.
    pub fn add(&mut self, row: &SegmentRow, anchors: &[String], boost: f64) -> Result<()> {
        self.checksum.update(row.key.as_bytes());
        self.checksum.update(b"\n");
        let mut doc = document(&self.fields, row, self.docs, anchors, boost);
        if let (Some(uf), Some(f)) = (self.near_clusters.as_mut(), self.fields.near_cluster) {
            // The clusters were made for exactly the documents added (build_index).
            if let Some(seq) = u32::try_from(self.docs).ok().filter(|s| *s < uf.len()) {
                doc.add_u64(f, u64::from(uf.find(seq)));
            }
        }
        self.writer.add_document(doc).map_err(|e| self.failed(e))?;
        self.docs += 1;
        // tantivy queues up to 10,000 documents for its indexing threads whatever
        // their size; a commit past a byte budget waits for the queue to drain, so
        // large pages cannot pile up in memory.
        self.pending_bytes += row.text.len() + row.title.as_ref().map_or(0, String::len);
        if self.pending_bytes > WRITER_MEMORY / 2 {
            self.writer.commit().map_err(|e| self.failed(e))?;
            self.pending_bytes = 0;
        }
        Ok(())
    }

    /// Commits, merges to one segment, writes `pindex.json` and renames the directory
    /// into place.
    pub fn finish(
        mut self,
        canonicalizer: String,
        sources: Vec<String>,
        links: &LinkOptions,
        shard: Option<warcdex_cdx::shard::Shard>,
    ) -> Result<MainInfo> {
        self.writer.commit().map_err(|e| self.failed(e))?;
        let ids = self.index.searchable_segment_ids().at(&self.out)?;
        if ids.len() > 1 {
            // The index is sorted by `seq`, so the merge keeps document order whatever
            // the order of the segment ids (`searchable_segment_ids` comes from a HashMap in
            // tantivy's src/indexer/segment_register.rs).
            self.writer.merge(&ids).wait().map_err(|e| self.failed(e))?;
        }
        let dir = self.dir.clone();
        let out = self.out.clone();
        self.writer
            .wait_merging_threads()
            .map_err(|e| failed(&dir, &out, e))?;
        let info = MainInfo {
            documents: self.docs,
            key_checksum: hex(&self.checksum.finalize()),
            canonicalizer,
            sources,
            links: links.clone(),
            shard: shard.map(|s| s.to_string()),
        };
        let info = PindexInfo::Main(info);
        write_info(self.tmp.path(), &info)?;
        let PindexInfo::Main(info) = info else {
            unreachable!("written as main")
        };
        // The index's files are closed before the directory is synced and renamed (the
        // writer went with `wait_merging_threads`).
        drop(self.index);
        crate::output::install_dir(self.tmp, &self.out)?;
        Ok(info)
    }
}

impl MainWriter {
    /// The error to report for tantivy's `e`: the write that failed, naming its file
    /// (see [`failed`]).
    fn failed(&self, e: tantivy::TantivyError) -> Error {
        failed(&self.dir, &self.out, e)
    }
}

/// The error to report when tantivy failed writing the index at `out` in `dir`: the
/// first write that failed (a full disk: "PATH: No space left on device"), where one
/// did, since tantivy's own error then only says a writer thread was killed; else `e`.
pub(crate) fn failed(dir: &ReleasingDirectory, out: &Path, e: tantivy::TantivyError) -> Error {
    match dir.take_write_error() {
        Some(w) => Error::File(w),
        None => Error::Tantivy(crate::path_error::AtPath {
            path: out.to_path_buf(),
            source: e,
        }),
    }
}

/// Indexing threads: two where there are two cores (the documents are sorted by `seq`
/// when the segments are merged, so their order does not depend on the threads).
fn writer_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(2))
}

/// The tantivy writer's memory budget: past it, a segment is flushed (and all are
/// merged into one at the end), so it bounds the writer's share of the memory.
const WRITER_MEMORY: usize = 128 << 20;

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn document(
    f: &Fields,
    row: &SegmentRow,
    seq: u64,
    anchors: &[String],
    boost: f64,
) -> TantivyDocument {
    let mut d = TantivyDocument::default();
    d.add_text(f.key, &row.key);
    d.add_text(f.url, &row.url);
    d.add_text(f.urlkey, &row.urlkey);
    d.add_text(f.digest, &row.digest);
    for date in &row.dates {
        d.add_text(f.date, date);
    }
    let host = links::host_of(&row.url).unwrap_or_default();
    d.add_text(f.site, host.strip_prefix("www.").unwrap_or(&host));
    d.add_text(f.host, &host);
    d.add_text(f.collection, &row.collection);
    d.add_text(f.mime, &row.mime);
    if let Some(s) = row.status {
        d.add_u64(f.status, u64::from(s));
    }
    d.add_u64(f.length, row.length);
    d.add_text(f.filename, &row.filename);
    d.add_u64(f.offset, row.offset);
    if let Some(t) = &row.title {
        d.add_text(f.title, t);
    }
    d.add_text(f.content, &row.text);
    for a in anchors {
        d.add_text(f.anchor, a);
    }
    d.add_f64(f.boost, boost);
    d.add_u64(f.seq, seq);
    if let (Some(l), Some(lang)) = (f.lang, &row.lang) {
        d.add_text(l, lang);
    }
    let main = row.main_text.as_deref().unwrap_or(&row.text);
    if let Some(m) = f.main {
        d.add_text(m, main);
    }
    if let Some(i) = row.lang.as_deref().and_then(analysis::stem_index) {
        if let Some(field) = f.stems[i] {
            d.add_text(field, main);
        }
    }
    if let (Some(h), Some(w)) = (f.simhash, f.simhash_words) {
        let print = row.fingerprint();
        d.add_i64(h, print.hash as i64);
        d.add_u64(w, u64::from(print.words));
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 39 item 6: a disk that fills while tantivy writes the index (on its own
    /// threads) is reported as the system's error naming the file, not as tantivy's
    /// "An index writer was killed … or panicked".
    #[test]
    fn a_full_disk_is_reported_with_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("main");
        let rows: Vec<SegmentRow> = (0..200)
            .map(|i| SegmentRow {
                key: format!("http://h{i:03}.example/ sha1:X"),
                url: format!("http://h{i:03}.example/"),
                urlkey: format!("example,h{i:03})/"),
                digest: "sha1:X".into(),
                dates: vec!["20240101000000".into()],
                first_date: "20240101000000".into(),
                text: format!(
                    "page {i} about lighthouses and keepers {}",
                    "word ".repeat(50)
                ),
                mime: "text/html".into(),
                ..SegmentRow::default()
            })
            .collect();
        let graph =
            links::analyse(&rows, &LinkOptions::default(), warcdex_cdx::KeyStyle::Surt).unwrap();
        crate::pindex::directory::space::limit(dir.path(), 4096);
        let e = write_index(
            &out,
            &rows,
            &graph,
            "surt".into(),
            vec![],
            &LinkOptions::default(),
        )
        .unwrap_err();
        let msg = crate::path_error::Chain(&e).to_string();
        assert!(msg.contains("No space left on device"), "{msg}");
        // The file written, in the temporary directory beside `out`.
        let file = format!("{}/{}", dir.path().display(), crate::output::TEMP_PREFIX);
        assert!(msg.starts_with(&file), "{msg}");
        assert!(!msg.contains("killed"), "{msg}");
        assert_eq!(e.kind(), io::ErrorKind::StorageFull, "{msg}");
        assert!(!out.exists());
    }
}
