//! The merge-join: main's documents in (URL key, digest) order against the list's
//! records in the same order, each document written with its sources' dates and the
//! list's.

use std::cmp::Ordering;

use tantivy::{DocId, IndexWriter, TantivyDocument};

use super::build::{refused, Ctx, JoinError};
use super::{MALFORMED_SHOWN, UNMATCHED_SHOWN};
use crate::dates::compat::JavaHashSet;
use crate::dates::records::{is_date14, DateRecord, MalformedLine};
use crate::dates::{DatesFields, Error, Result};
use crate::pindex::align::misaligned;
use crate::pindex::directory::ReleasingDirectory;
use crate::pindex::keys::KeyWindow;
use crate::pindex::DatesCounts;
use crate::progress::Progress;

/// The merge-join state: documents before `next` are written; `cur` is the key of
/// document `next` and `extra` the list's dates for it so far.
pub(super) struct Joiner<'a> {
    pub(super) ctx: &'a Ctx<'a>,
    pub(super) writer: IndexWriter,
    /// The new index's directory, which keeps the first write that failed.
    dir: ReleasingDirectory,
    f: DatesFields,
    pub(super) next: DocId,
    cur: (String, String),
    /// [`crate::pindex::keys::keyhash`] of document `next`'s key.
    cur_hash: u64,
    extra: Vec<String>,
    /// The list's collections for document `next` so far.
    extra_collections: Vec<String>,
    /// The sources' collections of the document being written.
    held_collections: Vec<String>,
    last: Option<(Vec<u8>, Vec<u8>)>,
    pub(super) counts: DatesCounts,
    pub(super) malformed: Vec<MalformedLine>,
    pub(super) unmatched: Vec<String>,
    /// Documents written (each build starts it again).
    progress: &'a dyn Progress,
    /// main's keys of the documents around `next`.
    window: KeyWindow,
    held: Vec<String>,
    /// The bound of a possible capture date ([`crate::reader::date::capture_micros`]).
    now: i64,
}

/// Documents whose keys are read from main's dictionaries at once (about 10 MiB of keys).
const KEY_WINDOW: u32 = 1 << 16;

/// Documents per segment of the new index (committed every so many). Without a cap the
/// writer fills its whole budget before flushing, and a flush needs about as much again,
/// so a large index peaked at twice the memory of one that never reached the budget
/// (1,000,000 versions: 110 MB against 56 MB for 100,000); with it, every segment is
/// about the same size whatever the index's, and so is the peak.
const SEGMENT_DOCS: u32 = 1 << 16;

impl<'a> Joiner<'a> {
    pub(super) fn new(
        ctx: &'a Ctx<'a>,
        writer: IndexWriter,
        dir: ReleasingDirectory,
        f: DatesFields,
        progress: &'a dyn Progress,
    ) -> Result<Joiner<'a>> {
        progress.start(u64::from(ctx.n));
        let mut j = Joiner {
            ctx,
            writer,
            dir,
            f,
            next: 0,
            cur: (String::new(), String::new()),
            cur_hash: 0,
            extra: Vec::new(),
            extra_collections: Vec::new(),
            held_collections: Vec::new(),
            last: None,
            counts: DatesCounts::default(),
            malformed: Vec::new(),
            unmatched: Vec::new(),
            progress,
            window: KeyWindow::default(),
            held: Vec::new(),
            now: warcdex_cdx::date::now_micros(),
        };
        if ctx.n > 0 {
            j.load_key(0)?;
        }
        Ok(j)
    }

    /// Makes document `doc` (the next one) current: its urlkey and digest in `cur`.
    fn load_key(&mut self, doc: DocId) -> Result<()> {
        if !self.window.holds(doc) {
            let end = (doc + KEY_WINDOW).min(self.ctx.n);
            self.ctx.keys.fill(doc, end, &mut self.window)?;
        }
        let (hash, urlkey, digest) = self.window.get(doc);
        let prev = std::mem::take(&mut self.cur);
        self.cur.0.push_str(urlkey);
        self.cur.1.push_str(digest);
        self.cur_hash = hash;
        // The join relies on main's order; a main out of order would silently lose dates.
        if doc > 0
            && key_cmp(
                (prev.0.as_bytes(), prev.1.as_bytes()),
                (self.cur.0.as_bytes(), self.cur.1.as_bytes()),
            ) != Ordering::Less
        {
            return Err(Error::MainOutOfOrder {
                dir: self.ctx.main_dir.to_path_buf(),
                doc,
                urlkey: self.cur.0.clone(),
                digest: self.cur.1.clone(),
            });
        }
        Ok(())
    }

    /// A line that could not be used: counted, kept as an example, fatal with `--strict`.
    pub(super) fn malformed(&mut self, m: MalformedLine) -> Result<()> {
        self.counts.malformed_lines += 1;
        if self.ctx.opts.strict {
            return Err(Error::MalformedLine(m.to_string()));
        }
        if self.malformed.len() < MALFORMED_SHOWN {
            self.malformed.push(m);
        }
        Ok(())
    }

    /// Joins one record of the list, which must not be before the previous one.
    pub(super) fn feed(&mut self, r: DateRecord<'_>) -> Result<(), JoinError> {
        if let Some((u, d)) = &mut self.last {
            match key_cmp((u.as_slice(), d.as_slice()), (r.urlkey, r.digest)) {
                Ordering::Greater => return Err(JoinError::Unsorted),
                Ordering::Equal => {}
                Ordering::Less => {
                    u.clear();
                    u.extend_from_slice(r.urlkey);
                    d.clear();
                    d.extend_from_slice(r.digest);
                }
            }
        } else {
            self.last = Some((r.urlkey.to_vec(), r.digest.to_vec()));
        }
        loop {
            if self.next >= self.ctx.n {
                self.unmatched(&r);
                return Ok(());
            }
            match key_cmp(
                (self.cur.0.as_bytes(), self.cur.1.as_bytes()),
                (r.urlkey, r.digest),
            ) {
                Ordering::Less => self.emit()?,
                Ordering::Equal => {
                    self.extra.push(r.date.to_string());
                    if let Some(c) = r.collection {
                        self.extra_collections.push(c.to_string());
                    }
                    self.counts.matched_lines += 1;
                    return Ok(());
                }
                Ordering::Greater => {
                    self.unmatched(&r);
                    return Ok(());
                }
            }
        }
    }

    fn unmatched(&mut self, r: &DateRecord<'_>) {
        self.counts.unmatched_lines += 1;
        if self.unmatched.len() < UNMATCHED_SHOWN {
            self.unmatched.push(format!(
                "{} {} {}",
                String::from_utf8_lossy(r.urlkey),
                String::from_utf8_lossy(r.digest),
                r.date
            ));
        }
    }

    /// Writes document `next` and moves to the next one.
    pub(super) fn emit(&mut self) -> Result<()> {
        let doc = self.next;
        let kh = self.cur_hash;
        self.held.clear();
        self.held_collections.clear();
        for s in self.ctx.sources {
            if let Some(h) = s.keyhash(doc) {
                if h != Some(kh) {
                    let mut key = String::new();
                    self.ctx.keys.key(doc, &mut key)?;
                    return Err(misaligned(
                        self.ctx.main_dir,
                        s.dir(),
                        format!("document {doc} was built for another key than {key:?}"),
                    ));
                }
            }
            s.dates(doc, &mut self.held)?;
            s.collections(doc, &mut self.held_collections)?;
        }
        let mut d = TantivyDocument::default();
        let mut written = 0u64;
        let mut add = |d: &mut TantivyDocument, date: &str| {
            d.add_text(self.f.date, date);
            // The searchable value only for a possible capture date: a date such as
            // 29991231235959 (warcio's reading of an ARC date that is not one) stays in
            // the stored dates but out of date filters, timelines and replay links.
            if is_date14(date.as_bytes())
                && crate::reader::date::capture_micros(date, self.now).is_some()
            {
                d.add_u64(self.f.date_value, date.parse().expect("14 digits"));
            }
            written += 1;
        };
        if self.ctx.opts.compat {
            let mut set = JavaHashSet::new();
            for h in &self.held {
                set.insert(h);
            }
            for h in set.iter() {
                add(&mut d, h);
            }
            for e in &self.extra {
                add(&mut d, e);
            }
            self.counts.dates_added += self.extra.len() as u64;
            if !self.extra.is_empty() {
                self.counts.documents_with_dates_added += 1;
            }
        } else {
            self.held.sort_unstable();
            self.held.dedup();
            let had = self.held.len();
            self.extra.sort_unstable();
            self.extra.dedup();
            for e in self.extra.drain(..) {
                if self.held[..had].binary_search(&e).is_err() {
                    self.held.push(e);
                }
            }
            let added = (self.held.len() - had) as u64;
            self.held.sort_unstable();
            for h in &self.held {
                add(&mut d, h);
            }
            self.counts.dates_added += added;
            if added > 0 {
                self.counts.documents_with_dates_added += 1;
            }
        }
        self.extra.clear();
        self.held_collections.sort_unstable();
        self.held_collections.dedup();
        let had = self.held_collections.len();
        for c in self.extra_collections.drain(..) {
            if self.held_collections[..had].binary_search(&c).is_err()
                && !self.held_collections[had..].contains(&c)
            {
                self.held_collections.push(c);
            }
        }
        self.counts.collections_added += (self.held_collections.len() - had) as u64;
        self.held_collections.sort_unstable();
        for c in &self.held_collections {
            d.add_text(self.f.collection, c);
        }
        d.add_u64(self.f.keyhash, kh);
        d.add_u64(self.f.seq, u64::from(doc));
        self.writer
            .add_document(d)
            .map_err(|e| refused(&self.dir, e))?;
        if (doc + 1).is_multiple_of(SEGMENT_DOCS) {
            // See SEGMENT_DOCS.
            self.writer.commit().map_err(|e| refused(&self.dir, e))?;
        }
        self.counts.documents += 1;
        self.counts.dates_written += written;
        if written > 0 {
            self.counts.documents_with_dates += 1;
        }
        self.progress.advance(1);
        self.next += 1;
        if self.next < self.ctx.n {
            self.load_key(self.next)?;
        }
        Ok(())
    }
}

/// (URL key, digest) order, field by field, bytewise: main's document order.
fn key_cmp(a: (&[u8], &[u8]), b: (&[u8], &[u8])) -> Ordering {
    a.0.cmp(b.0).then_with(|| a.1.cmp(b.1))
}
