//! `warcdex index`: segments to the main full-text index (tantivy), one document per
//! version (URL key + digest) across all segments, with the anchor text of inbound links
//! and a link-analysis score (OPIC/PageRank) stored as `boost` (design.md §3–4).
//!
//! Documents are written in (URL key, digest) order with `seq` = position, in an index
//! sorted by `seq` and merged to one segment, so DocId = position: the dates index of
//! add-dates joins on it.

pub mod dump;
pub mod links;
pub mod merge;

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha1::{Digest, Sha1};
use tantivy::schema::{Field, Schema, FAST, INDEXED, STORED, STRING, TEXT};
use tantivy::{Index, IndexSettings, IndexSortByField, Order, TantivyDocument};

use crate::import::segment_dir::{read_manifest, ROWS_FILE};
use crate::segment::rows::read_rows;
use crate::segment::SegmentRow;
use links::LinkOptions;

/// The main index's fields (design.md §4).
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    /// `URL sha1:DIGEST` (exact).
    pub key: Field,
    /// The original URL (tokenized and stored).
    pub url: Field,
    /// Canonical URL key (exact).
    pub urlkey: Field,
    /// `sha1:DIGEST` (exact).
    pub digest: Field,
    /// Capture dates held by the segments, earliest first (exact, 14 digits).
    pub date: Field,
    /// Host without a leading `www.` (exact; the `site:` filter).
    pub site: Field,
    /// Host as in the URL (exact).
    pub host: Field,
    /// Collection (exact).
    pub collection: Field,
    /// MIME type (exact; the `type:` filter).
    pub mime: Field,
    /// HTTP status.
    pub status: Field,
    /// Stored record length of the earliest capture.
    pub length: Field,
    /// Archive file of the earliest capture.
    pub filename: Field,
    /// Stored offset of the earliest capture.
    pub offset: Field,
    /// Title (tokenized, stored).
    pub title: Field,
    /// Visible text (tokenized, stored).
    pub content: Field,
    /// Anchor text of inbound links (tokenized, stored; one value per link).
    pub anchor: Field,
    /// Link-analysis boost, applied at query time.
    pub boost: Field,
    /// Position in the index: the join key of parallel indexes.
    pub seq: Field,
}

/// The schema of `pindexes/<name>/main`.
pub fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let f = Fields {
        key: b.add_text_field("key", STRING | STORED | FAST),
        url: b.add_text_field("url", TEXT | STORED),
        urlkey: b.add_text_field("urlkey", STRING | STORED),
        digest: b.add_text_field("digest", STRING | STORED),
        date: b.add_text_field("date", STRING | STORED),
        site: b.add_text_field("site", STRING | STORED),
        host: b.add_text_field("host", STRING | STORED),
        collection: b.add_text_field("collection", STRING | STORED),
        mime: b.add_text_field("type", STRING | STORED),
        status: b.add_u64_field("status", INDEXED | STORED),
        length: b.add_u64_field("length", STORED),
        filename: b.add_text_field("filename", STORED),
        offset: b.add_u64_field("offset", STORED),
        title: b.add_text_field("title", TEXT | STORED),
        content: b.add_text_field("content", TEXT | STORED),
        anchor: b.add_text_field("anchor", TEXT | STORED),
        boost: b.add_f64_field("boost", FAST | STORED),
        seq: b.add_u64_field("seq", FAST | INDEXED | STORED),
    };
    (b.build(), f)
}

/// How to build the index.
#[derive(Debug, Clone, Default)]
pub struct IndexOptions {
    /// Link graph and anchor options.
    pub links: LinkOptions,
}

/// `pindex.json`, written beside the index files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PindexInfo {
    /// What this directory holds (`main`).
    pub kind: String,
    /// Documents (DocIds 0..documents).
    pub documents: u64,
    /// SHA-1 (hex) over every key in document order, one per line: the alignment check
    /// of parallel indexes.
    pub key_checksum: String,
    /// The canonicalizer of the URL keys (`surt` or `url`).
    pub canonicalizer: String,
    /// The segments indexed, in argument order.
    pub sources: Vec<String>,
    /// Link analysis settings used.
    pub links: LinkOptions,
}

/// The file beside the index that describes it.
pub const PINDEX_FILE: &str = "pindex.json";

/// Reads every row of the segments and merges versions found in several of them (dates
/// unioned, the earliest capture's metadata and content kept). Returns the rows in (URL
/// key, digest) order and the canonicalizer they share.
pub fn read_segments(segments: &[PathBuf]) -> io::Result<(Vec<SegmentRow>, String)> {
    let mut canonicalizer: Option<String> = None;
    let mut versions: BTreeMap<(String, String), SegmentRow> = BTreeMap::new();
    for seg in segments {
        let m = read_manifest(seg)?;
        same_canonicalizer(&mut canonicalizer, &m.canonicalizer, seg)?;
        for row in read_rows(&seg.join(ROWS_FILE))? {
            add_version(&mut versions, row?);
        }
    }
    Ok((
        versions.into_values().collect(),
        canonicalizer.unwrap_or_else(|| "surt".into()),
    ))
}

/// Adds a row to the versions by (URL key, digest), absorbing it into the row already
/// there (see [`SegmentRow::absorb`]).
pub(crate) fn add_version(versions: &mut BTreeMap<(String, String), SegmentRow>, row: SegmentRow) {
    let k = (row.urlkey.clone(), row.digest.clone());
    match versions.get_mut(&k) {
        None => {
            versions.insert(k, row);
        }
        Some(kept) => kept.absorb(row),
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
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{} uses {got} keys but an earlier input uses {c}: they cannot be combined",
                    input.display()
                ),
            ))
        }
        Some(_) => {}
    }
    Ok(())
}

/// Builds `out` (which must not exist) from `segments`.
pub fn build_index(
    segments: &[PathBuf],
    out: &Path,
    opts: &IndexOptions,
) -> io::Result<PindexInfo> {
    let (rows, canonicalizer) = read_segments(segments)?;
    let style = if canonicalizer == "url" {
        warcdex_cdx::KeyStyle::Url
    } else {
        warcdex_cdx::KeyStyle::Surt
    };
    let graph = links::analyse(&rows, &opts.links, style);
    let sources = segments.iter().map(|s| s.display().to_string()).collect();
    write_index(out, &rows, &graph, canonicalizer, sources, &opts.links)
}

/// Writes rows (already in order) with their anchors and boosts as a one-segment index.
pub fn write_index(
    out: &Path,
    rows: &[SegmentRow],
    graph: &links::LinkAnalysis,
    canonicalizer: String,
    sources: Vec<String>,
    link_opts: &LinkOptions,
) -> io::Result<PindexInfo> {
    if out.exists() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{} already exists", out.display()),
        ));
    }
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent)?;
    let tmp = tempfile::Builder::new()
        .prefix(".warcdex-index-")
        .tempdir_in(&parent)?;
    let (schema, f) = schema();
    let settings = IndexSettings {
        sort_by_field: Some(IndexSortByField {
            field: "seq".into(),
            order: Order::Asc,
        }),
        ..IndexSettings::default()
    };
    let index = Index::builder()
        .schema(schema)
        .settings(settings)
        .create_in_dir(tmp.path())
        .map_err(io::Error::other)?;
    let mut writer = index
        .writer_with_num_threads::<TantivyDocument>(1, 256 << 20)
        .map_err(io::Error::other)?;
    writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
    let mut checksum = Sha1::new();
    for (seq, row) in rows.iter().enumerate() {
        checksum.update(row.key.as_bytes());
        checksum.update(b"\n");
        writer
            .add_document(document(&f, row, seq as u64, graph))
            .map_err(io::Error::other)?;
    }
    writer.commit().map_err(io::Error::other)?;
    let ids = index.searchable_segment_ids().map_err(io::Error::other)?;
    if ids.len() > 1 {
        // The index is sorted by `seq`, so the merge keeps document order whatever the
        // order of the segment ids (peers.md §3.2).
        writer.merge(&ids).wait().map_err(io::Error::other)?;
    }
    writer.wait_merging_threads().map_err(io::Error::other)?;
    let info = PindexInfo {
        kind: "main".into(),
        documents: rows.len() as u64,
        key_checksum: hex(&checksum.finalize()),
        canonicalizer,
        sources,
        links: link_opts.clone(),
    };
    let json = serde_json::to_string_pretty(&info).map_err(io::Error::other)?;
    std::fs::write(tmp.path().join(PINDEX_FILE), json + "\n")?;
    let kept = tmp.keep();
    std::fs::rename(&kept, out).inspect_err(|_| {
        let _ = std::fs::remove_dir_all(&kept);
    })?;
    Ok(info)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn document(
    f: &Fields,
    row: &SegmentRow,
    seq: u64,
    graph: &links::LinkAnalysis,
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
    for a in graph.anchors_of(&row.urlkey) {
        d.add_text(f.anchor, a);
    }
    d.add_f64(f.boost, graph.boost_of(&row.urlkey));
    d.add_u64(f.seq, seq);
    d
}

/// Reads `pindex.json` of an index directory.
pub fn read_pindex(dir: &Path) -> io::Result<PindexInfo> {
    let p = dir.join(PINDEX_FILE);
    let text = std::fs::read_to_string(&p)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", p.display())))?;
    serde_json::from_str(&text)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("{}: {e}", p.display())))
}
