//! Writing a main index: [`MainWriter`] takes the documents in order and installs the
//! index, merged to one segment, with its `pindex.json`.

use std::path::{Path, PathBuf};

use tantivy::{Index, IndexSettings, TantivyDocument};

use super::links::{self, LinkOptions};
use super::{Error, Result};
use crate::path_error::ResultAtPath;
use crate::pindex::directory::ReleasingDirectory;
use crate::pindex::info::write_info;
use crate::pindex::keys::KeyChecksum;
use crate::pindex::open::segments_in_seq_order;
use crate::pindex::{MainInfo, PindexInfo, PINDEX_VERSION};
use crate::schema::{analysis, schema, Fields};
use crate::segment::SegmentRow;

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
    let mut w = MainWriter::create(out, DEFAULT_WRITER_MEMORY)?;
    for row in rows {
        w.add(
            row,
            graph.anchor_list_of(&row.urlkey),
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
    checksum: KeyChecksum,
    docs: u64,
    /// Text bytes handed to the writer since its last commit.
    pending_bytes: usize,
    /// The writer's memory budget in bytes.
    memory: usize,
    /// The documents' near-duplicate signatures, in order (`near.sig`).
    sigs: crate::near::sig_file::SigWriter,
}

impl MainWriter {
    /// Starts an index at `out`, which must not exist, whose writer holds up to `memory`
    /// bytes (`--memory`; at least [`MIN_WRITER_MEMORY`]) before it writes a segment.
    pub fn create(out: &Path, memory: usize) -> Result<Self> {
        let memory = memory.clamp(MIN_WRITER_MEMORY, MAX_WRITER_MEMORY);
        if out.exists() {
            return Err(Error::Exists(out.to_path_buf()));
        }
        let tmp = crate::output::temp_dir_beside(out)?;
        let (schema, fields) = schema();
        // Not sorted by `seq` in tantivy's settings: one thread adds the documents in `seq`
        // order, so each segment is in order as written, and a sorted index had tantivy
        // write the doc store uncompressed to a temporary file, compress it again at every
        // commit and remap every posting list, all on that thread (docs/performance.md).
        let settings = IndexSettings::default();
        // The final merge reads every segment through: its mapped pages must not stay
        // resident (pindex/directory.rs).
        let dir = ReleasingDirectory::open(tmp.path())?;
        let index = Index::create(dir.clone(), schema, settings).at(out)?;
        analysis::register(&index);
        // One indexing thread, fed in order: its segments follow each other in `seq`, so
        // a batch that fits the budget is one segment and needs no merge, and more
        // segments merge by stacking (two threads interleaved every segment,
        // and their final merge, on one core, was a third of `index`'s time).
        let writer = index
            .writer_with_num_threads::<TantivyDocument>(1, memory)
            .at(out)?;
        writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
        let sigs = crate::near::sig_file::SigWriter::create(
            &tmp.path().join(crate::near::sig_file::SIG_FILE),
        )?;
        Ok(MainWriter {
            out: out.to_path_buf(),
            tmp,
            dir,
            index,
            writer,
            fields,
            checksum: KeyChecksum::default(),
            docs: 0,
            pending_bytes: 0,
            memory,
            sigs,
        })
    }

    /// Adds the next document: a version with the anchors of its URL (each with the hash
    /// of its source's URL key and its kind) and its boost.
    pub fn add(
        &mut self,
        row: &SegmentRow,
        anchors: links::AnchorList<'_>,
        boost: f64,
    ) -> Result<()> {
        self.checksum.add(&row.key);
        let doc = document(&self.fields, row, self.docs, anchors, boost);
        self.sigs
            .push(&crate::near::Signature::of(&row.text, row.title.as_deref()))?;
        self.writer.add_document(doc).map_err(|e| self.failed(e))?;
        self.docs += 1;
        // tantivy queues up to 10,000 documents for its indexing threads whatever
        // their size; a commit past a byte budget waits for the queue to drain, so
        // large pages cannot pile up in memory.
        self.pending_bytes += row.text.len() + row.title.as_ref().map_or(0, String::len);
        if self.pending_bytes > self.memory / 2 {
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
        if self.index.searchable_segment_ids().at(&self.out)?.len() > 1 {
            // A merge stacks the segments in the order given: in the order of their first
            // `seq`, so document N stays the N-th added.
            let seq = self
                .index
                .schema()
                .get_field_name(self.fields.seq)
                .to_string();
            let ids = segments_in_seq_order(&self.index, &self.out, &seq)?;
            self.writer.merge(&ids).wait().map_err(|e| self.failed(e))?;
        }
        let dir = self.dir.clone();
        let out = self.out.clone();
        self.writer
            .wait_merging_threads()
            .map_err(|e| failed(&dir, &out, e))?;
        let info = MainInfo {
            version: PINDEX_VERSION,
            documents: self.docs,
            key_checksum: self.checksum.hex(),
            canonicalizer,
            sources,
            links: links.clone(),
            shard: shard.map(|s| s.to_string()),
        };
        let info = PindexInfo::Main(info);
        self.sigs.finish()?;
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

/// The writer's memory budget of [`write_index`]; `index` gives its `--memory`. Past
/// the budget a segment is written (all are merged into one at the end), so it bounds
/// the writer's share of the memory; a commit every half budget of text bounds the
/// documents queued for the indexing thread.
pub const DEFAULT_WRITER_MEMORY: usize = 256 << 20;

/// tantivy's least budget for an indexing thread (15 MB, `MEMORY_BUDGET_NUM_BYTES_MIN`).
pub const MIN_WRITER_MEMORY: usize = 16 << 20;

/// tantivy's greatest budget for an indexing thread (4 GB less a little).
const MAX_WRITER_MEMORY: usize = (4 << 30) - (1 << 20);

fn document(
    f: &Fields,
    row: &SegmentRow,
    seq: u64,
    anchors: links::AnchorList<'_>,
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
    // External anchors first, then internal ones, each kind's sources in the same order:
    // a merge reads the two fields back and pairs them with `anchor_from` in that order.
    let internal = |i: usize| f.anchor_internal.is_some() && anchors.is_internal(i);
    for want in [false, true] {
        for (i, a) in anchors.texts.iter().enumerate() {
            if internal(i) != want {
                continue;
            }
            d.add_text(f.anchor_internal.filter(|_| want).unwrap_or(f.anchor), a);
            if let (Some(from), Some(&s)) = (f.anchor_from, anchors.sources.get(i)) {
                d.add_u64(from, s);
            }
        }
    }
    d.add_f64(f.boost, boost);
    d.add_u64(f.seq, seq);
    if let (Some(l), Some(lang)) = (f.lang, &row.lang) {
        d.add_text(l, lang);
    }
    if let (Some(t), Some(source)) = (f.text_source, &row.text_source) {
        d.add_text(t, source);
    }
    // Only where it differs from the text: a reader of `main` falls back to `content`.
    if let (Some(m), Some(main)) = (f.main, row.main_text.as_deref()) {
        if main != row.text {
            d.add_text(m, main);
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io;

    /// Version `i` of a test collection: one page of its own host, with `text`.
    fn page_row(i: usize, text: String) -> SegmentRow {
        SegmentRow {
            key: format!("http://h{i:03}.example/ sha1:X"),
            url: format!("http://h{i:03}.example/"),
            urlkey: format!("example,h{i:03})/"),
            digest: "sha1:X".into(),
            dates: vec!["20240101000000".into()],
            first_date: "20240101000000".into(),
            text,
            mime: "text/html".into(),
            ..SegmentRow::default()
        }
    }

    /// A writer whose budget is smaller than the versions' text writes several segments
    /// (one indexing thread, so one after the other) and merges them into one in which
    /// document N is the N-th added: the join of the dates index.
    #[test]
    fn segments_past_the_budget_merge_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("main");
        let page = "lighthouse keeper ".repeat(4_000); // 72 KB
        let rows: Vec<SegmentRow> = (0..300)
            .map(|i| page_row(i, format!("page{i} {page}")))
            .collect();
        let mut w = MainWriter::create(&out, MIN_WRITER_MEMORY).unwrap();
        for row in &rows {
            w.add(row, Default::default(), 1.0).unwrap();
        }
        // 21 MB of text, a commit every 8 MiB: two segments committed, a third to come.
        assert_eq!(w.index.searchable_segment_ids().unwrap().len(), 2);
        w.finish("surt".into(), vec![], &LinkOptions::default(), None)
            .unwrap();
        let index = Index::open_in_dir(&out).unwrap();
        let searcher = index.reader().unwrap().searcher();
        assert_eq!(searcher.segment_readers().len(), 1);
        let seg = &searcher.segment_readers()[0];
        let seq = seg.fast_fields().u64("seq").unwrap();
        let (_, f) = schema();
        let store = seg.get_store_reader(1).unwrap();
        for doc in 0..300u32 {
            assert_eq!(seq.first(doc), Some(u64::from(doc)));
            let d: TantivyDocument = store.get(doc).unwrap();
            let url = d
                .get_first(f.url)
                .and_then(|v| tantivy::schema::Value::as_str(&v));
            assert_eq!(url, Some(rows[doc as usize].url.as_str()));
        }
    }

    /// A disk that fills while tantivy writes the index (on its own
    /// threads) is reported as the system's error naming the file, not as tantivy's
    /// "An index writer was killed … or panicked".
    #[test]
    fn a_full_disk_is_reported_with_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("main");
        let rows: Vec<SegmentRow> = (0..200)
            .map(|i| {
                let words = "word ".repeat(50);
                page_row(i, format!("page {i} about lighthouses and keepers {words}"))
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
