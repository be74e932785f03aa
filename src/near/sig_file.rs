//! `near.sig`, a main index's near-duplicate signatures ([`Signature`]) by document
//! number: a 16-byte header (`WDXNEAR2`, the bins and the record size as little-endian
//! 32-bit numbers), then one fixed-size record per document in index order, then an
//! 8-byte footer: `CRC1` and the CRC-32 of everything before it (little-endian). The
//! footer is checked when the file is opened, as tantivy's files' are, so a damaged file
//! is refused naming it instead of giving wrong clusters. Files of
//! the first layout (`WDXNEAR1`, no footer) still read, unchecked.
//!
//! Beside tantivy rather than in it: a bytes fast field is dictionary-encoded, so each
//! document's read would decode a block of the dictionary, and `near-dups` reads every
//! document's while the search reads a few per query. A fixed record is one positioned
//! read, and the clustering reads the file in order through the page cache, so its pages
//! are not counted in the process's memory as a mapped file's would be.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::minhash::{Signature, BINS, SIGNATURE_BYTES};

/// The file's name in a main index directory.
pub const SIG_FILE: &str = "near.sig";

const MAGIC: &[u8; 8] = b"WDXNEAR2";
/// The first layout's magic: no footer.
const MAGIC_V1: &[u8; 8] = b"WDXNEAR1";
const HEADER: usize = 16;
/// The footer's tag, before the CRC-32.
const FOOTER_TAG: &[u8; 4] = b"CRC1";
const FOOTER: usize = 8;

fn header() -> [u8; HEADER] {
    header_with(MAGIC)
}

fn header_with(magic: &[u8; 8]) -> [u8; HEADER] {
    let mut h = [0u8; HEADER];
    h[..8].copy_from_slice(magic);
    h[8..12].copy_from_slice(&(BINS as u32).to_le_bytes());
    h[12..16].copy_from_slice(&(SIGNATURE_BYTES as u32).to_le_bytes());
    h
}

/// `near-duplicate signatures PATH`, the error its source.
fn at_path(e: io::Error, path: &Path) -> io::Error {
    io::Error::from(crate::path_error::DoingAt {
        what: "near-duplicate signatures",
        path: path.to_path_buf(),
        source: e,
    })
}

/// Writes the signatures of an index's documents, in order.
pub struct SigWriter {
    out: BufWriter<File>,
    path: PathBuf,
    crc: crc32fast::Hasher,
}

impl SigWriter {
    /// Creates `path` (in an index directory being written, renamed with it).
    pub fn create(path: &Path) -> io::Result<SigWriter> {
        let file = File::create(path).map_err(|e| at_path(e, path))?;
        let mut out = BufWriter::with_capacity(64 << 10, file);
        out.write_all(&header()).map_err(|e| at_path(e, path))?;
        let mut crc = crc32fast::Hasher::new();
        crc.update(&header());
        Ok(SigWriter {
            out,
            path: path.to_path_buf(),
            crc,
        })
    }

    /// Appends the next document's signature.
    pub fn push(&mut self, sig: &Signature) -> io::Result<()> {
        let bytes = sig.to_bytes();
        self.crc.update(&bytes);
        self.out
            .write_all(&bytes)
            .map_err(|e| at_path(e, &self.path))
    }

    /// Writes the footer, flushes and syncs the file.
    pub fn finish(mut self) -> io::Result<()> {
        let path = self.path;
        let mut footer = [0u8; FOOTER];
        footer[..4].copy_from_slice(FOOTER_TAG);
        footer[4..].copy_from_slice(&self.crc.finalize().to_le_bytes());
        self.out.write_all(&footer).map_err(|e| at_path(e, &path))?;
        let file = self
            .out
            .into_inner()
            .map_err(|e| at_path(e.into_error(), &path))?;
        file.sync_all().map_err(|e| at_path(e, &path))
    }
}

/// The signatures of an index, read by document number.
#[derive(Debug)]
pub struct SigFile {
    file: File,
    path: PathBuf,
    docs: u32,
}

impl SigFile {
    /// Opens `dir/near.sig`; `None` when the index has none (of `pindex.json` version 1,
    /// built before signatures were stored). Both layouts are read: `WDXNEAR2` (written
    /// now, with a CRC-32 footer) and `WDXNEAR1` (the first, without).
    pub fn open(dir: &Path) -> io::Result<Option<SigFile>> {
        let path = dir.join(SIG_FILE);
        let mut file = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(at_path(e, &path)),
        };
        let invalid = |msg: &str| at_path(io::Error::new(io::ErrorKind::InvalidData, msg), &path);
        let mut head = [0u8; HEADER];
        file.read_exact(&mut head).map_err(|e| at_path(e, &path))?;
        let len = file.metadata().map_err(|e| at_path(e, &path))?.len();
        let footer = match head {
            h if h == header() => FOOTER as u64,
            h if h == header_with(MAGIC_V1) => 0,
            _ => {
                return Err(invalid(
                    "not a signature file of this version of warcdex (rebuild the index)",
                ))
            }
        };
        let body = len.saturating_sub(HEADER as u64 + footer);
        if len < HEADER as u64 + footer || body % SIGNATURE_BYTES as u64 != 0 {
            return Err(invalid("cut short or damaged (rebuild the index)"));
        }
        if footer > 0 {
            check_footer(&file, len).map_err(|e| at_path(e, &path))?;
        }
        let docs = u32::try_from(body / SIGNATURE_BYTES as u64).map_err(|_| {
            at_path(
                io::Error::new(io::ErrorKind::InvalidData, "too large"),
                &path,
            )
        })?;
        Ok(Some(SigFile { file, path, docs }))
    }

    /// The documents it holds.
    pub fn docs(&self) -> u32 {
        self.docs
    }

    /// Document `doc`'s signature; `None` past the end.
    pub fn get(&self, doc: u32) -> io::Result<Option<Signature>> {
        if doc >= self.docs {
            return Ok(None);
        }
        let mut buf = [0u8; SIGNATURE_BYTES];
        let at = HEADER as u64 + u64::from(doc) * SIGNATURE_BYTES as u64;
        self.file
            .read_exact_at(&mut buf, at)
            .map_err(|e| at_path(e, &self.path))?;
        Ok(Signature::from_bytes(&buf))
    }

    /// Calls `f` with each document's number and signature, in order.
    pub fn for_each(&self, mut f: impl FnMut(u32, Signature) -> io::Result<()>) -> io::Result<()> {
        let file = self.file.try_clone().map_err(|e| at_path(e, &self.path))?;
        let mut r = BufReader::with_capacity(
            256 << 10,
            PositionedReader {
                file,
                at: HEADER as u64,
            },
        );
        let mut buf = [0u8; SIGNATURE_BYTES];
        for doc in 0..self.docs {
            r.read_exact(&mut buf).map_err(|e| at_path(e, &self.path))?;
            f(doc, Signature::from_bytes(&buf).expect("fixed size"))?;
        }
        Ok(())
    }
}

/// Checks the footer of a file of `len` bytes: its tag, and the CRC-32 of the bytes
/// before it (read through once, in order).
fn check_footer(file: &File, len: u64) -> io::Result<()> {
    let end = len - FOOTER as u64;
    let mut footer = [0u8; FOOTER];
    file.read_exact_at(&mut footer, end)?;
    let mut r = PositionedReader {
        file: file.try_clone()?,
        at: 0,
    }
    .take(end);
    let mut crc = crc32fast::Hasher::new();
    let mut buf = vec![0u8; 256 << 10];
    loop {
        let n = r.read(&mut buf)?;
        if n == 0 {
            break;
        }
        crc.update(&buf[..n]);
    }
    let want = u32::from_le_bytes(footer[4..].try_into().expect("4 bytes"));
    if &footer[..4] != FOOTER_TAG || crc.finalize() != want {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "checksum mismatch: the file is damaged (rebuild the index)",
        ));
    }
    Ok(())
}

/// Reads a file from a position without moving the shared cursor (the file is also
/// read by [`SigFile::get`] from other threads).
struct PositionedReader {
    file: File,
    at: u64,
}

impl Read for PositionedReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read_at(buf, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_are_read_back_by_document() {
        let dir = tempfile::tempdir().unwrap();
        let sigs: Vec<Signature> = (0..5)
            .map(|i| Signature::of(&format!("page {i} of words one two three"), Some("t")))
            .collect();
        let mut w = SigWriter::create(&dir.path().join(SIG_FILE)).unwrap();
        for s in &sigs {
            w.push(s).unwrap();
        }
        w.finish().unwrap();
        let f = SigFile::open(dir.path()).unwrap().unwrap();
        assert_eq!(f.docs(), 5);
        assert_eq!(f.get(3).unwrap().as_ref(), Some(&sigs[3]));
        assert_eq!(f.get(5).unwrap(), None);
        let mut seen = Vec::new();
        f.for_each(|d, s| {
            seen.push((d, s));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen.len(), 5);
        assert_eq!(seen[4].1, sigs[4]);
        assert!(SigFile::open(&dir.path().join("none")).unwrap().is_none());
        std::fs::write(dir.path().join(SIG_FILE), b"WDXNEAR0........").unwrap();
        let e = SigFile::open(dir.path()).unwrap_err();
        assert!(e.to_string().contains(SIG_FILE), "{e}");
    }

    /// A bit flipped anywhere in the file is refused when it is
    /// opened, naming the file; a file of the first layout (no footer) still reads.
    #[test]
    fn damage_anywhere_is_refused_and_the_first_layout_reads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(SIG_FILE);
        let sigs: Vec<Signature> = (0..3)
            .map(|i| Signature::of(&format!("page {i} of words one two three"), Some("t")))
            .collect();
        let mut w = SigWriter::create(&path).unwrap();
        for s in &sigs {
            w.push(s).unwrap();
        }
        w.finish().unwrap();
        let good = std::fs::read(&path).unwrap();
        for at in 0..good.len() {
            let mut bad = good.clone();
            bad[at] ^= 1 << (at % 8);
            std::fs::write(&path, &bad).unwrap();
            let e = SigFile::open(dir.path()).expect_err(&format!("byte {at}"));
            assert!(e.to_string().contains(SIG_FILE), "byte {at}: {e}");
        }
        let mut v1 = header_with(MAGIC_V1).to_vec();
        v1.extend(sigs.iter().flat_map(|s| s.to_bytes()));
        std::fs::write(&path, &v1).unwrap();
        let f = SigFile::open(dir.path()).unwrap().unwrap();
        assert_eq!(f.docs(), 3);
        assert_eq!(f.get(2).unwrap().as_ref(), Some(&sigs[2]));
    }
}
