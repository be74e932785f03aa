//! Where the join reads main's documents: their keys ([`Keys`]) and the dates its sources
//! hold for them ([`Dates`]). Both come from the indexes (main's fast columns, a source's
//! stored dates) or, for the set `update` builds of one segment, from that segment's rows
//! ([`SegmentDocs`]), which hold the same keys and dates in the same order: the dates
//! index can then be built while main's is still being written.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use tantivy::DocId;

use crate::dates::source::Source;
use crate::dates::{Error, Result};
use crate::pindex::keys::{KeyChecksum, KeyWindow, MainKeys};
use crate::segment::layout::ROWS_FILE;
use crate::segment::rows::{read_rows_with, Columns, RowReader};

/// main's keys, read a window of documents at a time, in order.
pub(crate) trait Keys {
    /// Fills `out` with the keys of the documents `start..end`.
    fn fill(&self, start: DocId, end: DocId, out: &mut KeyWindow) -> Result<()>;
    /// main's `key` of `doc` (for an error message).
    fn key(&self, doc: DocId, out: &mut String) -> Result<()>;
}

/// The dates (and collections) a source holds for each of main's documents.
pub(crate) trait Dates {
    /// Where the source is (for error messages).
    fn dir(&self) -> &Path;
    /// The `keyhash` of `doc` when the source stores one (a dates index).
    fn keyhash(&self, doc: DocId) -> Option<Option<u64>>;
    /// Appends the dates of `doc`, in stored order, to `out`.
    fn dates(&self, doc: DocId, out: &mut Vec<String>) -> Result<()>;
    /// Appends the collections the source holds for `doc` to `out`.
    fn collections(&self, doc: DocId, out: &mut Vec<String>) -> Result<()>;
}

impl Keys for MainKeys {
    fn fill(&self, start: DocId, end: DocId, out: &mut KeyWindow) -> Result<()> {
        MainKeys::fill(self, start, end, out)
    }

    fn key(&self, doc: DocId, out: &mut String) -> Result<()> {
        MainKeys::key(self, doc, out)
    }
}

impl Dates for Source {
    fn dir(&self) -> &Path {
        &self.dir
    }

    fn keyhash(&self, doc: DocId) -> Option<Option<u64>> {
        Source::keyhash(self, doc)
    }

    fn dates(&self, doc: DocId, out: &mut Vec<String>) -> Result<()> {
        Source::dates(self, doc, out)
    }

    fn collections(&self, doc: DocId, out: &mut Vec<String>) -> Result<()> {
        Source::collections(self, doc, out)
    }
}

/// main's documents as the rows of the one segment it is (being) built from: row N is
/// document N, with the row's `key`, `urlkey`, `digest` and `dates` (what `index` stores).
/// Read once, in order: the join asks for each window of keys after the one before, and
/// for a document's dates while its window is held. Only for a segment whose rows are in
/// strictly increasing (URL key, digest) order, as `import` writes them; the join refuses
/// keys that do not increase (`Error::MainOutOfOrder`).
pub(crate) struct SegmentDocs {
    /// What the dates index's messages name as main.
    main: PathBuf,
    segment: PathBuf,
    state: RefCell<Window>,
}

struct Window {
    rows: RowReader,
    /// The first document of the window and the dates of each.
    start: DocId,
    dates: Vec<Vec<String>>,
    keys: Vec<String>,
    /// main's `key_checksum` over the keys read.
    checksum: KeyChecksum,
    read: DocId,
}

impl SegmentDocs {
    /// Opens the rows of `segment` for the main index `main` will be.
    pub(crate) fn open(segment: &Path, main: &Path) -> Result<SegmentDocs> {
        let path = segment.join(ROWS_FILE);
        let rows = read_rows_with(&path, Columns::WithoutTextOrOutlinks)?;
        Ok(SegmentDocs {
            main: main.to_path_buf(),
            segment: segment.to_path_buf(),
            state: RefCell::new(Window {
                rows,
                start: 0,
                dates: Vec::new(),
                keys: Vec::new(),
                checksum: KeyChecksum::default(),
                read: 0,
            }),
        })
    }

    /// main's `key_checksum` over the documents read so far (all of them once the join
    /// is done).
    pub(crate) fn key_checksum(&self) -> String {
        self.state.borrow().checksum.hex()
    }
}

impl Keys for SegmentDocs {
    fn fill(&self, start: DocId, end: DocId, out: &mut KeyWindow) -> Result<()> {
        let mut w = self.state.borrow_mut();
        if start != w.read {
            return Err(Error::Io(std::io::Error::other(format!(
                "{}: documents {start}.. asked for after {} were read",
                self.segment.display(),
                w.read
            ))));
        }
        w.start = start;
        w.dates.clear();
        w.keys.clear();
        out.start_at(start);
        for doc in start..end {
            let row = match w.rows.next() {
                Some(row) => row?,
                None => {
                    return Err(Error::NoDocument {
                        dir: self.segment.clone(),
                        doc,
                        docs: Some(doc),
                    })
                }
            };
            out.push(&row.key, &row.urlkey, &row.digest);
            w.checksum.add(&row.key);
            w.dates.push(row.dates);
            w.keys.push(row.key);
        }
        w.read = end;
        Ok(())
    }

    fn key(&self, doc: DocId, out: &mut String) -> Result<()> {
        let w = self.state.borrow();
        out.clear();
        if let Some(k) = doc
            .checked_sub(w.start)
            .and_then(|i| w.keys.get(i as usize))
        {
            out.push_str(k);
        }
        Ok(())
    }
}

impl Dates for SegmentDocs {
    fn dir(&self) -> &Path {
        &self.main
    }

    fn keyhash(&self, _doc: DocId) -> Option<Option<u64>> {
        None
    }

    fn dates(&self, doc: DocId, out: &mut Vec<String>) -> Result<()> {
        let w = self.state.borrow();
        match doc
            .checked_sub(w.start)
            .and_then(|i| w.dates.get(i as usize))
        {
            Some(d) => {
                out.extend(d.iter().cloned());
                Ok(())
            }
            None => Err(Error::NoDocument {
                dir: self.segment.clone(),
                doc,
                docs: None,
            }),
        }
    }

    /// None: main's one collection is searched from main itself, as for a main source.
    fn collections(&self, _doc: DocId, _out: &mut Vec<String>) -> Result<()> {
        Ok(())
    }
}
