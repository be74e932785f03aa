//! Reading main's keys (fast columns) and the stored dates of source indexes, one
//! document at a time in DocId order, without loading whole documents into memory.

use std::io;
use std::path::{Path, PathBuf};

use tantivy::columnar::{Column, StrColumn};
use tantivy::schema::{Field, Value};
use tantivy::store::StoreReader;
use tantivy::{DocId, Searcher, TantivyDocument};

use super::{other, DATE_FIELD, KEYHASH_FIELD};

/// main's `key`, `urlkey` and `digest` fast columns (one value per document); `None`
/// for an empty index, which has no segment.
pub(crate) struct KeyColumns {
    dir: PathBuf,
    cols: Option<[StrColumn; 3]>,
}

impl KeyColumns {
    /// Opens the columns of main's only segment.
    pub(crate) fn open(dir: &Path, s: &Searcher) -> io::Result<KeyColumns> {
        let Some(seg) = s.segment_readers().first() else {
            return Ok(KeyColumns {
                dir: dir.to_path_buf(),
                cols: None,
            });
        };
        let ff = seg.fast_fields();
        let col = |name: &str| -> io::Result<StrColumn> {
            ff.str(name).map_err(|e| other(dir, e))?.ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "{}: no fast field {name:?}: not a main index, or one built by an \
                         older warcdex (rebuild it with `warcdex index`)",
                        dir.display()
                    ),
                )
            })
        };
        Ok(KeyColumns {
            dir: dir.to_path_buf(),
            cols: Some([col("key")?, col("urlkey")?, col("digest")?]),
        })
    }

    fn get(&self, which: usize, name: &str, doc: DocId, out: &mut String) -> io::Result<()> {
        out.clear();
        let col = self.cols.as_ref().map(|c| &c[which]);
        let found = match col.and_then(|c| c.term_ords(doc).next().map(|o| (c, o))) {
            Some((col, ord)) => col.ord_to_str(ord, out)?,
            None => false,
        };
        if !found {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: document {doc} has no {name}", self.dir.display()),
            ));
        }
        Ok(())
    }

    /// Fills `out[c][i]` with the value of column `c` (key, urlkey, digest) of document
    /// `start + i`, for the documents `start..end`. Ordinals are resolved in sorted
    /// order, block by block: the dictionary's blocks are compressed, and a lookup per
    /// document would decompress a block for each of them.
    pub(crate) fn fill(
        &self,
        start: DocId,
        end: DocId,
        out: &mut [Vec<String>; 3],
        scratch: &mut Vec<(u64, u32)>,
    ) -> io::Result<()> {
        let len = (end - start) as usize;
        for (c, names) in out.iter_mut().enumerate() {
            names.resize(len, String::new());
            let Some(col) = self.cols.as_ref().map(|cols| &cols[c]) else {
                continue;
            };
            scratch.clear();
            for i in 0..len {
                let doc = start + i as u32;
                let ord = col.term_ords(doc).next().ok_or_else(|| {
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!(
                            "{}: document {doc} has no {}",
                            self.dir.display(),
                            ["key", "urlkey", "digest"][c]
                        ),
                    )
                })?;
                scratch.push((ord, i as u32));
            }
            scratch.sort_unstable();
            let ords: Vec<u64> = scratch.iter().map(|(o, _)| *o).collect();
            let mut next = 0usize;
            let mut bad = false;
            let found = col.dictionary().sorted_ords_to_term_cb(&ords, |bytes| {
                let slot = &mut names[scratch[next].1 as usize];
                slot.clear();
                match std::str::from_utf8(bytes) {
                    Ok(t) => slot.push_str(t),
                    Err(_) => bad = true,
                }
                next += 1;
            })?;
            if !found || bad || next != len {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "{}: damaged {} column",
                        self.dir.display(),
                        ["key", "urlkey", "digest"][c]
                    ),
                ));
            }
        }
        Ok(())
    }

    /// main's `key` (`URL sha1:DIGEST`) of `doc`.
    pub(crate) fn key(&self, doc: DocId, out: &mut String) -> io::Result<()> {
        self.get(0, "key", doc, out)
    }
}

/// One source index: its stored `date` values, read in DocId order. The doc store keeps
/// a few decompressed blocks, so a sequential walk decompresses each block once and the
/// memory used is a few blocks whatever the index size.
pub(crate) struct Source {
    pub(crate) dir: PathBuf,
    /// `None` for an empty index (no segment).
    store: Option<StoreReader>,
    date: Field,
    /// `keyhash` of a dates index (checked against main's key at every position).
    keyhash: Option<Column<u64>>,
}

impl Source {
    /// Opens the only segment of a source index.
    pub(crate) fn open(dir: &Path, s: &Searcher) -> io::Result<Source> {
        let date = s.schema().get_field(DATE_FIELD).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{}: no {DATE_FIELD:?} field: not a main or dates index",
                    dir.display()
                ),
            )
        })?;
        let Some(seg) = s.segment_readers().first() else {
            return Ok(Source {
                dir: dir.to_path_buf(),
                store: None,
                date,
                keyhash: None,
            });
        };
        let store = Some(seg.get_store_reader(4).map_err(|e| other(dir, e))?);
        let keyhash = if s.schema().get_field(KEYHASH_FIELD).is_ok() {
            Some(
                seg.fast_fields()
                    .u64(KEYHASH_FIELD)
                    .map_err(|e| other(dir, e))?,
            )
        } else {
            None
        };
        Ok(Source {
            dir: dir.to_path_buf(),
            store,
            date,
            keyhash,
        })
    }

    /// Appends the stored dates of `doc`, in stored order, to `out`.
    pub(crate) fn dates(&self, doc: DocId, out: &mut Vec<String>) -> io::Result<()> {
        let Some(store) = &self.store else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{}: no document {doc}", self.dir.display()),
            ));
        };
        let d: TantivyDocument = store.get(doc).map_err(|e| other(&self.dir, e))?;
        out.extend(
            d.get_all(self.date)
                .filter_map(|v| v.as_str().map(str::to_string)),
        );
        Ok(())
    }

    /// The `keyhash` of `doc` when the source is a dates index.
    pub(crate) fn keyhash(&self, doc: DocId) -> Option<Option<u64>> {
        self.keyhash.as_ref().map(|c| c.first(doc))
    }
}
