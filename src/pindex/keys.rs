//! main's keys, read from its fast columns without loading stored documents, and the
//! `keyhash` of a key: what a dates index stores at each position so that a dates index
//! built for another main is refused instead of giving wrong dates.

use std::path::{Path, PathBuf};

use sha1::{Digest, Sha1};
use tantivy::columnar::StrColumn;
use tantivy::{DocId, Searcher};

use super::{Error, Result};
use crate::path_error::ResultAtPath;

/// Unstored u64 fast field of the dates index: [`keyhash`] of main's key at that position.
pub const KEYHASH_FIELD: &str = "keyhash";

/// main's `key_checksum` (`pindex.json`), made as its documents are written: SHA-1 of each
/// `key` and a newline, in document order. A dates index built beside main (from its
/// segment) makes it the same way, so the two must share this.
#[derive(Debug, Clone, Default)]
pub struct KeyChecksum(Sha1);

impl KeyChecksum {
    /// Adds the next document's `key`.
    pub fn add(&mut self, key: &str) {
        self.0.update(key.as_bytes());
        self.0.update(b"\n");
    }

    /// The checksum of the keys added so far, in lower-case hex.
    pub fn hex(&self) -> String {
        self.0
            .clone()
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

/// The first 8 bytes (big-endian) of SHA-1 of main's `key`: the per-document alignment
/// check of a dates index.
pub fn keyhash(key: &str) -> u64 {
    keyhash_bytes(key.as_bytes())
}

fn keyhash_bytes(key: &[u8]) -> u64 {
    let d = Sha1::digest(key);
    u64::from_be_bytes(d[..8].try_into().expect("8 bytes"))
}

/// main's keys of a run of documents, as add-dates joins them: the [`keyhash`] of each
/// `key`, and each `urlkey` and `digest`, without a `String` per value (at 65,536
/// documents a window of `String`s held 27 MB, a quarter of add-dates' peak).
#[derive(Debug, Default)]
pub struct KeyWindow {
    start: DocId,
    keyhash: Vec<u64>,
    urlkey: Texts,
    digest: Texts,
    scratch: Vec<(u64, u32)>,
}

impl KeyWindow {
    /// Whether `doc` is in the window.
    pub fn holds(&self, doc: DocId) -> bool {
        doc >= self.start && ((doc - self.start) as usize) < self.keyhash.len()
    }

    /// The keyhash, urlkey and digest of `doc`, which must be in the window.
    pub fn get(&self, doc: DocId) -> (u64, &str, &str) {
        let i = (doc - self.start) as usize;
        (self.keyhash[i], self.urlkey.get(i), self.digest.get(i))
    }

    /// Empties the window, to hold the documents from `start` on, as [`KeyWindow::push`]
    /// adds them (for keys read from elsewhere than main's columns).
    pub fn start_at(&mut self, start: DocId) {
        self.start = start;
        self.keyhash.clear();
        self.urlkey.clear();
        self.digest.clear();
    }

    /// Adds the next document's `key` (hashed), `urlkey` and `digest`.
    pub fn push(&mut self, key: &str, urlkey: &str, digest: &str) {
        self.keyhash.push(keyhash(key));
        self.urlkey.push(urlkey);
        self.digest.push(digest);
    }
}

/// Strings in one buffer, each its end offset.
#[derive(Debug, Default)]
struct Texts {
    bytes: String,
    ends: Vec<usize>,
}

impl Texts {
    fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
    }

    fn push(&mut self, t: &str) {
        self.bytes.push_str(t);
        self.ends.push(self.bytes.len());
    }

    fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.bytes[start..self.ends[i]]
    }

    /// Appends `sorted`'s strings in the order of `slots`: `sorted.get(k)` belongs at
    /// position `slots[k].1`.
    fn place(&mut self, sorted: &Texts, slots: &[(u64, u32)]) {
        let mut at = vec![0u32; slots.len()];
        for (k, (_, i)) in slots.iter().enumerate() {
            at[*i as usize] = k as u32;
        }
        for k in at {
            self.push(sorted.get(k as usize));
        }
    }
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
            ff.str(name).at(dir)?.ok_or_else(|| Error::NoFastField {
                dir: dir.to_path_buf(),
                field: name.to_string(),
            })
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
            return Err(Error::NoKey {
                dir: self.dir.clone(),
                doc,
                column: name.to_string(),
            });
        }
        Ok(())
    }

    /// Fills `out` with the keys of the documents `start..end`. Ordinals are resolved in
    /// sorted order, block by block: the dictionary's blocks are compressed, and a lookup
    /// per document would decompress a block for each of them.
    pub fn fill(&self, start: DocId, end: DocId, out: &mut KeyWindow) -> Result<()> {
        let len = (end - start) as usize;
        out.start = start;
        out.keyhash.clear();
        out.keyhash.resize(len, 0);
        out.urlkey.clear();
        out.digest.clear();
        let Some(cols) = self.cols.as_ref() else {
            return Ok(());
        };
        // The key is only ever hashed: 8 bytes a document instead of the key.
        self.hash_keys(&cols[0], start..end, &mut out.scratch, &mut out.keyhash)?;
        for (c, col) in cols.iter().enumerate().skip(1) {
            let name = ["key", "urlkey", "digest"][c];
            let scratch = &mut out.scratch;
            self.ords_in_order(col, name, start..end, scratch)?;
            let ords: Vec<u64> = scratch.iter().map(|(o, _)| *o).collect();
            let mut next = 0usize;
            let mut bad = false;
            // urlkey and digest come in ordinal order: the urlkey column is in document
            // order already, the digests are placed after.
            let texts = if c == 1 {
                &mut out.urlkey
            } else {
                &mut out.digest
            };
            let mut sorted = Texts::default();
            let found = col.dictionary().sorted_ords_to_term_cb(&ords, |bytes| {
                match std::str::from_utf8(bytes) {
                    Ok(t) => sorted.push(t),
                    Err(_) => {
                        bad = true;
                        sorted.push("")
                    }
                }
                next += 1;
            })?;
            texts.place(&sorted, scratch);
            if !found || bad || next != len {
                return Err(Error::DamagedColumn {
                    dir: self.dir.clone(),
                    column: name.to_string(),
                });
            }
        }
        Ok(())
    }

    /// The [`keyhash`] of main's `key` of each of `docs` (distinct, in any order), in
    /// their order. The keys are read in dictionary order, block by block: looked up one
    /// by one, each decompressed a block of the dictionary (with a new zstd context), and
    /// the 4,096 of an alignment check took 0.1 s on a set of 12,000 documents.
    pub fn keyhashes(&self, docs: &[DocId]) -> Result<Vec<u64>> {
        let Some([col, ..]) = self.cols.as_ref() else {
            return Err(Error::NoKey {
                dir: self.dir.clone(),
                doc: docs.first().copied().unwrap_or(0),
                column: "key".into(),
            });
        };
        let mut out = vec![0u64; docs.len()];
        self.hash_keys(col, docs.iter().copied(), &mut Vec::new(), &mut out)?;
        Ok(out)
    }

    /// Sets `out[i]` to the [`keyhash`] of the key of the `i`-th of `docs`, reading the
    /// key column `col`'s dictionary in ordinal order (`scratch` is working space).
    fn hash_keys(
        &self,
        col: &StrColumn,
        docs: impl Iterator<Item = DocId>,
        scratch: &mut Vec<(u64, u32)>,
        out: &mut [u64],
    ) -> Result<()> {
        self.ords_in_order(col, "key", docs, scratch)?;
        let ords: Vec<u64> = scratch.iter().map(|(o, _)| *o).collect();
        let mut next = 0usize;
        let mut bad = false;
        let found = col.dictionary().sorted_ords_to_term_cb(&ords, |bytes| {
            bad |= std::str::from_utf8(bytes).is_err();
            if let Some((_, i)) = scratch.get(next) {
                out[*i as usize] = keyhash_bytes(bytes);
            }
            next += 1;
        })?;
        if !found || bad || next != out.len() {
            return Err(Error::DamagedColumn {
                dir: self.dir.clone(),
                column: "key".into(),
            });
        }
        Ok(())
    }

    /// Fills `scratch` with the ordinal in `col` (column `name`) of each of `docs` and
    /// its place among them, sorted by ordinal.
    fn ords_in_order(
        &self,
        col: &StrColumn,
        name: &str,
        docs: impl Iterator<Item = DocId>,
        scratch: &mut Vec<(u64, u32)>,
    ) -> Result<()> {
        scratch.clear();
        for (i, doc) in docs.enumerate() {
            let ord = col.term_ords(doc).next().ok_or_else(|| Error::NoKey {
                dir: self.dir.clone(),
                doc,
                column: name.to_string(),
            })?;
            scratch.push((ord, i as u32));
        }
        scratch.sort_unstable();
        Ok(())
    }

    /// main's `key` (`URL sha1:DIGEST`) of `doc`.
    pub fn key(&self, doc: DocId, out: &mut String) -> Result<()> {
        self.get(0, "key", doc, out)
    }
}
