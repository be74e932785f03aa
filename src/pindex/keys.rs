//! main's keys, read from its fast columns without loading stored documents, and the
//! `keyhash` of a key: what a dates index stores at each position so that a dates index
//! built for another main is refused instead of giving wrong dates.

use std::io;
use std::path::{Path, PathBuf};

use sha1::{Digest, Sha1};
use tantivy::columnar::StrColumn;
use tantivy::{DocId, Searcher};

use super::Result;
use crate::path_error::ResultAtPath;

/// Unstored u64 fast field of the dates index: [`keyhash`] of main's key at that position.
pub const KEYHASH_FIELD: &str = "keyhash";

/// The first 8 bytes (big-endian) of SHA-1 of main's `key`: the per-document alignment
/// check of a dates index.
pub fn keyhash(key: &str) -> u64 {
    let d = Sha1::digest(key.as_bytes());
    u64::from_be_bytes(d[..8].try_into().expect("8 bytes"))
}

/// main's `key`, `urlkey` and `digest` fast columns (one value per document); `None`
/// for an empty index, which has no segment.
pub struct MainKeys {
    dir: PathBuf,
    cols: Option<[StrColumn; 3]>,
}

impl MainKeys {
    /// Opens the columns of main's only segment.
    pub fn open(dir: &Path, s: &Searcher) -> Result<MainKeys> {
        let Some(seg) = s.segment_readers().first() else {
            return Ok(MainKeys {
                dir: dir.to_path_buf(),
                cols: None,
            });
        };
        let ff = seg.fast_fields();
        let col = |name: &str| -> Result<StrColumn> {
            Ok(ff.str(name).at(dir)?.ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "{}: no fast field {name:?}: not a main index, or one built by an \
                         older warcdex (rebuild it with `warcdex index`)",
                        dir.display()
                    ),
                )
            })?)
        };
        Ok(MainKeys {
            dir: dir.to_path_buf(),
            cols: Some([col("key")?, col("urlkey")?, col("digest")?]),
        })
    }

    fn get(&self, which: usize, name: &str, doc: DocId, out: &mut String) -> Result<()> {
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
            )
            .into());
        }
        Ok(())
    }

    /// Fills `out[c][i]` with the value of column `c` (key, urlkey, digest) of document
    /// `start + i`, for the documents `start..end`. Ordinals are resolved in sorted
    /// order, block by block: the dictionary's blocks are compressed, and a lookup per
    /// document would decompress a block for each of them.
    pub fn fill(
        &self,
        start: DocId,
        end: DocId,
        out: &mut [Vec<String>; 3],
        scratch: &mut Vec<(u64, u32)>,
    ) -> Result<()> {
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
                )
                .into());
            }
        }
        Ok(())
    }

    /// main's `key` (`URL sha1:DIGEST`) of `doc`.
    pub fn key(&self, doc: DocId, out: &mut String) -> Result<()> {
        self.get(0, "key", doc, out)
    }
}
