//! `warcdex merge`: one main index from several, with the same rules as `index`: one
//! document per (URL key, digest), dates unioned, the earliest capture's fields kept,
//! anchors unioned, the highest boost kept (each index scored its own link graph; the
//! segments' outlinks are not in the index, so the graph cannot be recomputed here).

use std::io;
use std::path::{Path, PathBuf};

use tantivy::schema::Value;
use tantivy::{DocAddress, TantivyDocument};
use warcdex_cdx::sort::SortOptions;

use super::links::{self, LinkOptions};
use super::versions::{absorb_all, VersionGroup, VersionRecord, VersionSorter};
use super::{same_canonicalizer, MainWriter, Result};
use crate::path_error::ResultAtPath;
use crate::pindex::directory::open_released_read_only;
use crate::pindex::info::read_main_info;
use crate::pindex::MainInfo;
use crate::schema::{analysis, schema, Fields};
use crate::segment::SegmentRow;

/// Merges `indexes` into `out`, in bounded memory: documents go through the external
/// version sort (`sort` gives its memory and temporary directory), and one URL's
/// versions are held at a time.
pub fn merge_indexes(indexes: &[PathBuf], out: &Path, sort: &SortOptions) -> Result<MainInfo> {
    let (_, f) = schema();
    let mut writer = MainWriter::create(out, sort.memory)?;
    let mut versions = VersionSorter::new(sort.clone());
    let mut canonicalizer: Option<String> = None;
    let mut links = LinkOptions::default();
    for (input, dir) in indexes.iter().enumerate() {
        let info = read_main_info(dir)?;
        links = info.links.clone();
        same_canonicalizer(&mut canonicalizer, &info.canonicalizer, dir)?;
        // Every stored document is read once: pages need not stay resident.
        // Read only: a source may be another account's, or on a read-only mount.
        let index = open_released_read_only(dir)?;
        analysis::register(&index);
        let searcher = index.reader().at(dir)?.searcher();
        for (ord, seg) in searcher.segment_readers().iter().enumerate() {
            for d in 0..seg.max_doc() {
                let doc: TantivyDocument = searcher.doc(DocAddress::new(ord as u32, d)).at(dir)?;
                versions.push(input as u32, &record_of(&f, &doc))?;
            }
        }
    }
    // One URL's versions at a time: anchors are per URL, unioned in input order, and
    // the highest boost wins (each index scored its own link graph; the segments'
    // outlinks are not in the index, so the graph cannot be recomputed here).
    let mut url: Vec<VersionGroup> = Vec::new();
    let flush = |url: &mut Vec<VersionGroup>, writer: &mut MainWriter| -> io::Result<()> {
        let mut by_input: Vec<(u32, usize, &VersionRecord)> = url
            .iter()
            .enumerate()
            .flat_map(|(v, g)| g.iter().map(move |(i, r)| (*i, v, r)))
            .collect();
        by_input.sort_by_key(|(i, v, _)| (*i, *v));
        let mut anchors = links::Anchors::default();
        let mut boost = f64::NEG_INFINITY;
        for (_, _, r) in &by_input {
            // An input without sources gives its anchors an unknown source (0): an
            // access view treats such anchors as from a page that may be hidden.
            for (i, a) in r.anchors.iter().enumerate() {
                let from = r.anchor_sources.get(i).copied().unwrap_or(0);
                let internal = r.anchor_internal.get(i).copied().unwrap_or(false);
                let seen = (anchors
                    .texts
                    .iter()
                    .zip(&anchors.sources)
                    .zip(&anchors.internal))
                .any(|((t, &s), &k)| t == a && s == from && k == internal);
                if !seen {
                    anchors.texts.push(a.clone());
                    anchors.sources.push(from);
                    anchors.internal.push(internal);
                }
            }
            boost = boost.max(r.boost.unwrap_or(1.0));
        }
        for group in url.drain(..) {
            writer.add(&absorb_all(group), anchors.as_list(), boost)?;
        }
        Ok(())
    };
    versions.finish(|group| {
        let same_url = url
            .last()
            .and_then(|g| g.first())
            .is_some_and(|(_, r)| r.row.urlkey == group[0].1.row.urlkey);
        if !same_url {
            flush(&mut url, &mut writer)?;
        }
        url.push(group);
        Ok(())
    })?;
    flush(&mut url, &mut writer)?;
    let sources = indexes.iter().map(|p| p.display().to_string()).collect();
    writer.finish(
        canonicalizer.unwrap_or_else(|| "surt".into()),
        sources,
        &links,
        None,
    )
}

/// A stored main-index document back as a version record.
fn record_of(f: &Fields, doc: &TantivyDocument) -> VersionRecord {
    let text = |fld| {
        doc.get_first(fld)
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default()
    };
    let num = |fld| doc.get_first(fld).and_then(|v| v.as_u64()).unwrap_or(0);
    let all = |fld| -> Vec<String> {
        doc.get_all(fld)
            .filter_map(|v| v.as_str().map(String::from))
            .collect()
    };
    let dates = all(f.date);
    // External anchors, then internal ones: the order `document` writes them, and their
    // sources, in.
    let mut anchors = all(f.anchor);
    let internal = f.anchor_internal.map(all).unwrap_or_default();
    let anchor_internal = match internal.len() {
        0 => Vec::new(),
        n => std::iter::repeat_n(false, anchors.len())
            .chain(std::iter::repeat_n(true, n))
            .collect(),
    };
    anchors.extend(internal);
    VersionRecord {
        row: SegmentRow {
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
            lang: f
                .lang
                .and_then(|l| doc.get_first(l)?.as_str().map(String::from)),
            // No `main` (`pindex.json` version 2), or in some of version 1 the whole text again: "no separate
            // main content".
            main_text: (f.main)
                .and_then(|m| doc.get_first(m)?.as_str().map(String::from))
                .filter(|m| *m != text(f.content)),
            text_source: (f.text_source).and_then(|t| doc.get_first(t)?.as_str().map(String::from)),
            outlinks: Vec::new(),
            // Not in the index: the segments hold it.
            archive: String::new(),
        },
        anchors,
        anchor_internal,
        anchor_sources: match f.anchor_from {
            Some(from) => doc.get_all(from).filter_map(|v| v.as_u64()).collect(),
            None => Vec::new(),
        },
        boost: doc.get_first(f.boost).and_then(|v| v.as_f64()),
    }
}
