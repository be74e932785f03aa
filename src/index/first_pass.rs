//! Pass 1 of an index, one version at a time: URL keys numbered in version order, the
//! outlinks given to the link collector, and (when the rows are not read again from the
//! segments) the rows spooled for pass 3.
//!
//! [`FirstPass`] takes the versions pushed to it, so that `update` can run it on the rows
//! an import writes, while it writes them ([`LinksOfSegment`]), instead of reading the
//! segment back afterwards.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::links::{self, KeyIds, LinkCollector};
use super::versions::version_key;
use super::IndexOptions;
use crate::segment::{Outlink, SegmentRow};

/// What pass 1 leaves for the passes after it: the spool of rows (when kept), the URL
/// key map (sort-safe key → node id) and the collected links.
pub(crate) type FirstPassOutput = (Option<File>, fst::Map<Vec<u8>>, LinkCollector);

/// Pages whose links' keys are made together, on all cores.
const BATCH: usize = 256;

/// Pass 1 over versions pushed in (URL key, digest) order.
pub struct FirstPass {
    spool: Option<BufWriter<File>>,
    ids: KeyIds,
    links: LinkCollector,
    batch: Vec<(u32, SegmentRow)>,
}

impl FirstPass {
    /// An empty pass; with `keep_rows`, the rows (without their outlinks) are spooled to a
    /// temporary file for pass 3.
    pub fn new(
        opts: &IndexOptions,
        style: warcdex_cdx::KeyStyle,
        keep_rows: bool,
    ) -> io::Result<FirstPass> {
        let spool = match keep_rows {
            true => Some(BufWriter::new(links::tempfile_in(&opts.sort)?)),
            false => None,
        };
        Ok(FirstPass {
            spool,
            ids: KeyIds::default(),
            links: LinkCollector::new(opts.sort.clone(), style),
            batch: Vec::new(),
        })
    }

    /// Adds the next version (after every earlier one in (URL key, digest) order) and
    /// gives its URL's node id, and the row as kept.
    pub fn push(&mut self, row: SegmentRow) -> io::Result<(u32, &SegmentRow)> {
        if self.batch.len() >= BATCH {
            self.flush()?;
        }
        let node = self.ids.id_of(&row.urlkey)?;
        self.batch.push((node, row));
        let (node, row) = self.batch.last().expect("just pushed");
        Ok((*node, row))
    }

    fn flush(&mut self) -> io::Result<()> {
        let pages: Vec<(u32, &str, &str, &[Outlink])> = self
            .batch
            .iter()
            .map(|(n, r)| (*n, r.urlkey.as_str(), r.url.as_str(), r.outlinks.as_slice()))
            .collect();
        self.links.add_batch(&pages)?;
        let Some(spool) = self.spool.as_mut() else {
            self.batch.clear();
            return Ok(());
        };
        // `NODE \x01 JSON`: pass 3 joins anchors and scores by the node id.
        for (node, mut row) in self.batch.drain(..) {
            row.outlinks = Vec::new();
            write!(spool, "{node}\x01")?;
            serde_json::to_writer(&mut *spool, &row).map_err(io::Error::other)?;
            spool.write_all(b"\n")?;
        }
        Ok(())
    }

    /// Ends the pass.
    pub(crate) fn finish(mut self) -> io::Result<FirstPassOutput> {
        self.flush()?;
        let keys = self.ids.finish()?;
        let spool = match self.spool {
            Some(s) => Some(s.into_inner().map_err(|e| e.into_error())?),
            None => None,
        };
        Ok((spool, keys, self.links))
    }
}

/// Pass 1 of the index of one segment, made from its rows as they are written (by
/// `update`, beside the import's writer): the segment is then not read back for it. Only
/// the URL, its key and the outlinks of each row are needed.
pub struct LinksOfSegment {
    segment: PathBuf,
    pass: FirstPass,
    /// The last row's [`version_key`].
    last: Option<String>,
    rows: u64,
    /// Set when the rows went backwards: a segment read back would be sorted again, so
    /// this pass cannot stand for it.
    out_of_order: bool,
}

impl LinksOfSegment {
    /// A pass for the segment that will be at `segment`, with the options its index will
    /// be built with (only `sort` is used here).
    pub fn new(
        segment: &Path,
        opts: &IndexOptions,
        style: warcdex_cdx::KeyStyle,
    ) -> io::Result<LinksOfSegment> {
        Ok(LinksOfSegment {
            segment: segment.to_path_buf(),
            pass: FirstPass::new(opts, style, false)?,
            last: None,
            rows: 0,
            out_of_order: false,
        })
    }

    /// Adds the segment's next row, as written.
    pub fn push(&mut self, row: SegmentRow) -> io::Result<()> {
        self.rows += 1;
        if self.out_of_order {
            return Ok(());
        }
        let key = version_key(&row);
        // Strictly increasing, as a merge of the segment would require.
        if self.last.as_ref().is_some_and(|last| *last >= key) {
            self.out_of_order = true;
            return Ok(());
        }
        self.last = Some(key);
        self.pass.push(Self::what_is_read(row)).map(|_| ())
    }

    /// The part of `row` the pass reads: its URL key, digest, URL and outlinks.
    pub fn what_is_read(row: SegmentRow) -> SegmentRow {
        SegmentRow {
            urlkey: row.urlkey,
            digest: row.digest,
            url: row.url,
            outlinks: row.outlinks,
            ..SegmentRow::default()
        }
    }

    /// The pass, finished, for an index of exactly this segment holding `documents`
    /// rows; `None` when the rows given cannot stand for the segment (out of order, or
    /// not all of them), and the index reads the segment instead.
    pub(crate) fn finish_for(
        self,
        segments: &[PathBuf],
        documents: u64,
    ) -> io::Result<Option<FirstPassOutput>> {
        if self.out_of_order || self.rows != documents || segments != [self.segment] {
            return Ok(None);
        }
        self.pass.finish().map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment::Outlink;

    fn row(url: &str, digest: &str, links: &[&str]) -> SegmentRow {
        let urlkey = warcdex_cdx::surt::surt_key(url).unwrap();
        SegmentRow {
            key: format!("{urlkey} {digest}"),
            urlkey,
            url: url.into(),
            digest: digest.into(),
            text: "some text the pass does not keep".into(),
            outlinks: links
                .iter()
                .map(|l| Outlink {
                    url: l.to_string(),
                    anchor: "a link".into(),
                })
                .collect(),
            ..SegmentRow::default()
        }
    }

    fn rows() -> Vec<SegmentRow> {
        vec![
            row("http://a.example/", "A", &["http://b.example/"]),
            row("http://a.example/", "B", &["http://b.example/"]),
            row(
                "http://b.example/",
                "A",
                &["http://a.example/", "http://c.example/"],
            ),
        ]
    }

    /// The links a pass collected, as the sort gives them back.
    fn lines(out: FirstPassOutput) -> Vec<Vec<u8>> {
        let (_, _, links) = out;
        let mut v = Vec::new();
        links
            .into_sorter()
            .finish_with(|l| {
                v.push(l.to_vec());
                Ok(())
            })
            .unwrap();
        v
    }

    #[test]
    fn rows_in_order_give_what_the_pass_over_the_segment_gives() {
        let seg = PathBuf::from("seg");
        let opts = IndexOptions::default();
        let style = warcdex_cdx::KeyStyle::Surt;
        let mut ours = LinksOfSegment::new(&seg, &opts, style).unwrap();
        let mut theirs = FirstPass::new(&opts, style, false).unwrap();
        for r in rows() {
            ours.push(r.clone()).unwrap();
            theirs.push(r).unwrap();
        }
        let ours = ours
            .finish_for(&[seg], 3)
            .unwrap()
            .expect("stands for the segment");
        let theirs = theirs.finish().unwrap();
        assert_eq!(ours.1.as_fst().as_bytes(), theirs.1.as_fst().as_bytes());
        let ours = lines(ours);
        assert_eq!(ours.len(), 4);
        assert_eq!(ours, lines(theirs));
    }

    #[test]
    fn rows_out_of_order_or_not_all_of_them_cannot_stand_for_the_segment() {
        let seg = PathBuf::from("seg");
        let opts = IndexOptions::default();
        let style = warcdex_cdx::KeyStyle::Surt;
        let pass = |rows: Vec<SegmentRow>| {
            let mut p = LinksOfSegment::new(&seg, &opts, style).unwrap();
            for r in rows {
                p.push(r).unwrap();
            }
            p
        };
        let mut backwards = rows();
        backwards.swap(0, 1);
        assert!(pass(backwards)
            .finish_for(std::slice::from_ref(&seg), 3)
            .unwrap()
            .is_none());
        let mut repeated = rows();
        repeated[1] = repeated[0].clone();
        assert!(pass(repeated)
            .finish_for(std::slice::from_ref(&seg), 3)
            .unwrap()
            .is_none());
        assert!(pass(rows())
            .finish_for(std::slice::from_ref(&seg), 4)
            .unwrap()
            .is_none());
        let other = PathBuf::from("other");
        assert!(pass(rows()).finish_for(&[other], 3).unwrap().is_none());
        assert!(pass(rows())
            .finish_for(std::slice::from_ref(&seg), 3)
            .unwrap()
            .is_some());
    }
}
