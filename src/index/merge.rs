//! `warcdex merge`: one main index from several, with the same rules as `index`: one
//! document per (URL key, digest), dates unioned, the earliest capture's fields kept,
//! anchors unioned, the highest boost kept (each index scored its own link graph; the
//! segments' outlinks are not in the index, so the graph cannot be recomputed here).

use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::{Path, PathBuf};

use tantivy::schema::Value;
use tantivy::{DocAddress, Index, TantivyDocument};

use super::links::{LinkAnalysis, LinkOptions};
use super::{add_version, read_pindex, same_canonicalizer, schema, write_index, PindexInfo};
use crate::segment::SegmentRow;

/// Merges `indexes` into `out`.
pub fn merge_indexes(indexes: &[PathBuf], out: &Path) -> io::Result<PindexInfo> {
    let (_, f) = schema();
    let mut rows: BTreeMap<(String, String), SegmentRow> = BTreeMap::new();
    let mut anchors: HashMap<String, Vec<String>> = HashMap::new();
    let mut boosts: HashMap<String, f64> = HashMap::new();
    let mut canonicalizer: Option<String> = None;
    let mut links = LinkOptions::default();
    for dir in indexes {
        let info = read_pindex(dir)?;
        links = info.links.clone();
        same_canonicalizer(&mut canonicalizer, &info.canonicalizer, dir)?;
        let index = Index::open_in_dir(dir)
            .map_err(|e| io::Error::other(format!("{}: {e}", dir.display())))?;
        let searcher = index.reader().map_err(io::Error::other)?.searcher();
        for (ord, seg) in searcher.segment_readers().iter().enumerate() {
            for d in 0..seg.max_doc() {
                let doc: TantivyDocument = searcher
                    .doc(DocAddress::new(ord as u32, d))
                    .map_err(io::Error::other)?;
                let text = |fld| {
                    doc.get_first(fld)
                        .and_then(|v| v.as_str().map(String::from))
                        .unwrap_or_default()
                };
                let num = |fld| doc.get_first(fld).and_then(|v| v.as_u64()).unwrap_or(0);
                let dates: Vec<String> = doc
                    .get_all(f.date)
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect();
                let row = SegmentRow {
                    key: text(f.key),
                    url: text(f.url),
                    urlkey: text(f.urlkey),
                    digest: text(f.digest),
                    first_date: dates.first().cloned().unwrap_or_default(),
                    dates,
                    collection: text(f.collection),
                    filename: text(f.filename),
                    offset: num(f.offset),
                    length: num(f.length),
                    mime: text(f.mime),
                    status: doc
                        .get_first(f.status)
                        .and_then(|v| v.as_u64())
                        .map(|s| s as u16),
                    charset: None,
                    title: doc
                        .get_first(f.title)
                        .and_then(|v| v.as_str().map(String::from)),
                    text: text(f.content),
                    outlinks: Vec::new(),
                };
                let list = anchors.entry(row.urlkey.clone()).or_default();
                for a in doc
                    .get_all(f.anchor)
                    .filter_map(|v| v.as_str().map(String::from))
                {
                    if !list.contains(&a) {
                        list.push(a);
                    }
                }
                let b = doc
                    .get_first(f.boost)
                    .and_then(|v| v.as_f64())
                    .unwrap_or(1.0);
                let e = boosts.entry(row.urlkey.clone()).or_insert(b);
                *e = e.max(b);
                add_version(&mut rows, row);
            }
        }
    }
    let rows: Vec<SegmentRow> = rows.into_values().collect();
    let graph = LinkAnalysis::from_boosts(anchors, boosts);
    let sources = indexes.iter().map(|p| p.display().to_string()).collect();
    write_index(
        out,
        &rows,
        &graph,
        canonicalizer.unwrap_or_else(|| "surt".into()),
        sources,
        &links,
    )
}
