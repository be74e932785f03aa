//! ZipNum clusters: a sorted CDX as Wayback, OpenWayback and pywb serve a large index
//! (`sort-cdx --zipnum`, `merge-cdx --zipnum`, `update --zipnum`).
//!
//! The sorted lines are cut into blocks of `lines_per_block` lines (3,000 by default),
//! each block compressed as one gzip member; the members follow each other in one part
//! file, so `zcat` of the part is the sorted CDX. A secondary index has one line per block,
//! and a location file says where each part is. A directory holds one cluster:
//!
//! ```text
//! cdx-00000.gz   the part: one gzip member per block
//! cluster.idx    one line per block: KEY TIMESTAMP<TAB>cdx-00000.gz<TAB>OFFSET<TAB>LENGTH<TAB>BLOCK
//! cluster.loc    cdx-00000.gz<TAB>cdx-00000.gz  (part name, then its path)
//! ```
//!
//! The names are those of Common Crawl's index and of the tool pywb's author wrote to
//! build it (webarchive-indexing: `cdx-NNNNN.gz` parts, `cluster.idx` or
//! `cluster.summary`, `cluster.loc`), and what pywb 2.10 reads
//! (`pywb/warcserver/index/zipnum.py`):
//!
//! - `.idx` is one of `ZipNumIndexSource.IDX_EXT` (`('.idx', '.summary')`), so a
//!   collection's `index:` naming `cluster.idx` is taken for a cluster;
//! - the location file is the index's name with `.loc` (`LocMapResolver`:
//!   `os.path.splitext(loc_summary)[0] + '.loc'`), one `part<TAB>path` line, and a path
//!   without `://` is joined to the `.loc` file's directory (`os.path.join(local_dir,
//!   pathname)`). The path is relative, so a cluster can be moved or renamed whole (it is
//!   built under a temporary name and renamed); OpenWayback, given no location file,
//!   finds the part beside the index (docs/zipnum.md);
//! - an index line is `IDXObject`'s `['urlkey', 'part', 'offset', 'length', 'lineno']`,
//!   tab-separated, where `urlkey` is the block's first line up to its second space (the
//!   URL key and timestamp) and `lineno` the block's number, from 1 as in pywb's sample
//!   cluster; pywb's paging counts blocks with it (`end['lineno'] - first['lineno']`);
//! - each range `offset`/`length` is decompressed by one `gzip_decompressor()`, which
//!   reads one gzip member: so one member per block, never a block split over members;
//!   its lines are split at newlines, and every line here ends with one, the last of a
//!   block included (pywb's sample cluster leaves it out; `zcat`, and webarchive-commons,
//!   which reads contiguous blocks as one stream, would then join lines of two blocks);
//! - the legend (` CDX N b a m s k r M S V g`) is left out: the blocks hold captures
//!   only, as the cluster job of webarchive-indexing drops lines starting with ` CDX`,
//!   and pywb tells a line's layout by its field count, so it needs none.
//!
//! The writer checks the order as it goes (a cluster is searched by binary search over
//! `cluster.idx`), holds one block's compressed bytes, and writes everything under a
//! temporary name beside the destination that is synced and renamed into place when
//! complete ([`crate::output`]), replacing a cluster already there in one step.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use flate2::write::GzEncoder;
use flate2::Compression;
use warcdex_cdx::CdxLine;

use crate::output;
use crate::path_error::{AtPath, ResultAtPath};

/// The part file: every block, one gzip member each.
pub const PART_NAME: &str = "cdx-00000.gz";
/// The secondary index: one line per block.
pub const IDX_NAME: &str = "cluster.idx";
/// The location file: where each part is, relative to this file's directory.
pub const LOC_NAME: &str = "cluster.loc";
/// Lines per block unless told otherwise: Wayback's and webarchive-indexing's default.
pub const DEFAULT_LINES_PER_BLOCK: usize = 3000;

/// What the command line says of a cluster without lines, which warcdex writes (it is
/// the sorted input's cluster) but pywb 2.10 cannot read: `read_last_line` of an empty
/// `cluster.idx` raises `IndexError` on every query.
pub const EMPTY_CLUSTER_WARNING: &str =
    "the ZipNum cluster has no line: pywb 2.10 fails on every query of an empty cluster";

/// How to cut a cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZipNumOptions {
    /// Lines per block (at least 1): what a lookup decompresses at least. pywb reads
    /// `max_blocks` (10) blocks per page of results.
    pub lines_per_block: usize,
}

impl Default for ZipNumOptions {
    fn default() -> Self {
        ZipNumOptions {
            lines_per_block: DEFAULT_LINES_PER_BLOCK,
        }
    }
}

/// What a cluster holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ZipNumReport {
    /// Capture lines written.
    pub lines: u64,
    /// Blocks (gzip members, lines of `cluster.idx`).
    pub blocks: u64,
    /// Bytes of the part file.
    pub compressed_bytes: u64,
    /// Legend lines read and left out.
    pub legends: u64,
}

/// An error writing a ZipNum cluster: the storage layers' one error.
pub use crate::path_error::{Error, Result};

/// Writes a ZipNum cluster from sorted CDX lines, pushed one at a time
/// ([`push_line`](Self::push_line)) or written as bytes (it is an [`io::Write`] that
/// cuts lines at newlines, so `sort_cdx` and `merge_cdx` write into it directly);
/// [`finish`](Self::finish) puts the cluster in place. Dropped unfinished, it leaves
/// nothing behind.
pub struct ZipNumWriter {
    dest: PathBuf,
    tmp: tempfile::TempDir,
    part_path: PathBuf,
    part: BufWriter<File>,
    idx_path: PathBuf,
    idx: BufWriter<File>,
    /// The block being compressed, into the bytes of the last one (reused).
    block: Option<GzEncoder<Vec<u8>>>,
    spare: Vec<u8>,
    /// The current block's key (its first line up to the second space) and lines.
    block_key: Vec<u8>,
    block_lines: usize,
    offset: u64,
    lines_per_block: usize,
    /// Lines seen (legend and empty lines included), for the order error.
    seen: u64,
    prev: Vec<u8>,
    /// A line cut by a `write` call, completed by the next.
    partial: Vec<u8>,
    input: Option<PathBuf>,
    report: ZipNumReport,
}

impl ZipNumWriter {
    /// Starts a cluster that [`finish`](Self::finish) puts at `dest`, a directory that
    /// must not exist, be empty, or hold only a cluster's files (then replaced).
    pub fn create(dest: &Path, opts: &ZipNumOptions) -> Result<ZipNumWriter> {
        if opts.lines_per_block == 0 {
            return Err(Error::NoLinesPerBlock);
        }
        check_dest(dest)?;
        let tmp = output::temp_dir_beside(dest)?;
        let open = |name: &str| -> Result<(PathBuf, BufWriter<File>)> {
            let p = tmp.path().join(name);
            let f = File::create(&p).at(&p)?;
            Ok((p, BufWriter::with_capacity(1 << 16, f)))
        };
        let (part_path, part) = open(PART_NAME)?;
        let (idx_path, idx) = open(IDX_NAME)?;
        Ok(ZipNumWriter {
            dest: dest.to_path_buf(),
            tmp,
            part_path,
            part,
            idx_path,
            idx,
            block: None,
            spare: Vec::new(),
            block_key: Vec::new(),
            block_lines: 0,
            offset: 0,
            lines_per_block: opts.lines_per_block,
            seen: 0,
            prev: Vec::new(),
            partial: Vec::new(),
            input: None,
            report: ZipNumReport::default(),
        })
    }

    /// Names the input in an order error.
    pub fn input_name(mut self, input: &Path) -> Self {
        self.input = Some(input.to_path_buf());
        self
    }

    /// Adds one line (a trailing `\n` or `\r\n` is removed; an empty line and the
    /// legend are left out). Fails if it sorts before the line before it.
    pub fn push_line(&mut self, line: &[u8]) -> Result<()> {
        self.seen += 1;
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            return Ok(());
        }
        if line.starts_with(CdxLine::LEGEND_PREFIX.as_bytes()) {
            self.report.legends += 1;
            return Ok(());
        }
        if line < self.prev.as_slice() {
            return Err(Error::Unsorted {
                input: self.input.clone(),
                line: self.seen,
            });
        }
        self.prev.clear();
        self.prev.extend_from_slice(line);
        if self.block.is_none() {
            self.block_key.clear();
            self.block_key.extend_from_slice(idx_key(line));
            let buf = std::mem::take(&mut self.spare);
            self.block = Some(GzEncoder::new(buf, Compression::default()));
        }
        let block = self.block.as_mut().expect("a block is open");
        block
            .write_all(line)
            .and_then(|()| block.write_all(b"\n"))
            .at(&self.part_path)?;
        self.block_lines += 1;
        self.report.lines += 1;
        if self.block_lines == self.lines_per_block {
            self.finish_block()?;
        }
        Ok(())
    }

    /// Compresses the open block to its end, appends it to the part and its line to the
    /// index.
    fn finish_block(&mut self) -> Result<()> {
        let Some(block) = self.block.take() else {
            return Ok(());
        };
        let mut bytes = block.finish().at(&self.part_path)?;
        self.part.write_all(&bytes).at(&self.part_path)?;
        let length = bytes.len() as u64;
        self.report.blocks += 1;
        self.idx.write_all(&self.block_key).at(&self.idx_path)?;
        writeln!(
            self.idx,
            "\t{PART_NAME}\t{}\t{length}\t{}",
            self.offset, self.report.blocks
        )
        .at(&self.idx_path)?;
        self.offset += length;
        self.block_lines = 0;
        bytes.clear();
        self.spare = bytes;
        Ok(())
    }

    /// Ends the last block, writes `cluster.loc`, syncs everything and renames the
    /// cluster to its destination (replacing the cluster there in one step).
    pub fn finish(mut self) -> Result<ZipNumReport> {
        if !self.partial.is_empty() {
            let last = std::mem::take(&mut self.partial);
            self.push_line(&last)?;
        }
        self.finish_block()?;
        self.report.compressed_bytes = self.offset;
        let flush = |w: BufWriter<File>, p: &Path| -> Result<()> {
            w.into_inner()
                .map_err(|e| e.into_error())
                .and_then(|mut f| f.flush())
                .at(p)?;
            Ok(())
        };
        flush(self.part, &self.part_path)?;
        flush(self.idx, &self.idx_path)?;
        let loc = self.tmp.path().join(LOC_NAME);
        std::fs::write(&loc, format!("{PART_NAME}\t{PART_NAME}\n")).at(&loc)?;
        check_dest(&self.dest)?;
        output::replace_dir(self.tmp, &self.dest)?;
        Ok(self.report)
    }
}

impl Write for ZipNumWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut rest = buf;
        while let Some(i) = memchr::memchr(b'\n', rest) {
            if self.partial.is_empty() {
                self.push_line(&rest[..i])?;
            } else {
                let mut line = std::mem::take(&mut self.partial);
                line.extend_from_slice(&rest[..i]);
                self.push_line(&line)?;
                line.clear();
                self.partial = line;
            }
            rest = &rest[i + 1..];
        }
        self.partial.extend_from_slice(rest);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// What `cluster.idx` names a block by: its first line up to the second space (the URL
/// key and the timestamp, in CDX and CDXJ alike), or the whole line if it has fewer.
fn idx_key(line: &[u8]) -> &[u8] {
    let Some(first) = memchr::memchr(b' ', line) else {
        return line;
    };
    match memchr::memchr(b' ', &line[first + 1..]) {
        Some(second) => &line[..first + 1 + second],
        None => line,
    }
}

/// A part file's name: `cdx-` digits `.gz`.
fn is_part_name(name: &str) -> bool {
    name.strip_prefix("cdx-")
        .and_then(|n| n.strip_suffix(".gz"))
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// Refuses a destination whose replacement would delete anything but a cluster.
fn check_dest(dest: &Path) -> Result<()> {
    let entries = match std::fs::read_dir(dest) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(_) if dest.exists() && !dest.is_dir() => {
            return Err(Error::NotACluster {
                dir: dest.to_path_buf(),
                entry: "no directory: it is a file".into(),
            })
        }
        Err(source) => {
            return Err(AtPath {
                path: dest.to_path_buf(),
                source,
            }
            .into())
        }
    };
    for e in entries {
        let e = e.at(dest)?;
        let name = e.file_name().to_string_lossy().into_owned();
        if name != IDX_NAME && name != LOC_NAME && !is_part_name(&name) {
            return Err(Error::NotACluster {
                dir: dest.to_path_buf(),
                entry: name,
            });
        }
    }
    Ok(())
}

/// Writes the sorted CDX file `sorted` as a ZipNum cluster at `dest` (see
/// [`ZipNumWriter::create`] for what `dest` may be), checking its order.
pub fn write_zipnum(sorted: &Path, dest: &Path, opts: &ZipNumOptions) -> Result<ZipNumReport> {
    let f = File::open(sorted).at(sorted)?;
    write_zipnum_from(BufReader::with_capacity(1 << 16, f), sorted, dest, opts)
}

/// [`write_zipnum`] from a reader of sorted lines; `name` names it in errors.
pub fn write_zipnum_from(
    mut sorted: impl BufRead,
    name: &Path,
    dest: &Path,
    opts: &ZipNumOptions,
) -> Result<ZipNumReport> {
    let mut w = ZipNumWriter::create(dest, opts)?.input_name(name);
    let mut line = Vec::with_capacity(512);
    loop {
        line.clear();
        if sorted.read_until(b'\n', &mut line).at(name)? == 0 {
            break;
        }
        w.push_line(&line)?;
    }
    w.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    /// The blocks of a cluster as `cluster.idx` points at them, each decoded as one gzip
    /// member that must end exactly at its length.
    fn read_back(dir: &Path) -> Vec<(String, Vec<String>)> {
        let part = std::fs::read(dir.join(PART_NAME)).unwrap();
        let idx = std::fs::read_to_string(dir.join(IDX_NAME)).unwrap();
        let mut out = Vec::new();
        for (n, l) in idx.lines().enumerate() {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 5, "{l}");
            assert_eq!(f[1], PART_NAME);
            assert_eq!(f[4], (n + 1).to_string());
            let (off, len): (usize, usize) = (f[2].parse().unwrap(), f[3].parse().unwrap());
            let member = &part[off..off + len];
            let mut d = flate2::bufread::GzDecoder::new(member);
            let mut text = String::new();
            d.read_to_string(&mut text).unwrap();
            assert!(
                d.into_inner().is_empty(),
                "block {} is not one member",
                n + 1
            );
            assert!(text.ends_with('\n'));
            out.push((f[0].to_string(), text.lines().map(String::from).collect()));
        }
        out
    }

    #[test]
    fn blocks_read_back_to_the_lines() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("zipnum");
        let lines: Vec<String> = (0..23)
            .map(|i| {
                format!(
                    "com,example)/{i:03} 2024010100000{} http://example.com/ -",
                    i % 3
                )
            })
            .collect();
        let mut input = String::from(" CDX N b a m s k r M S V g\n");
        for l in &lines {
            input.push_str(l);
            input.push('\n');
        }
        let opts = ZipNumOptions { lines_per_block: 5 };
        let r = write_zipnum_from(input.as_bytes(), Path::new("in.cdx"), &dest, &opts).unwrap();
        assert_eq!((r.lines, r.blocks, r.legends), (23, 5, 1));
        let blocks = read_back(&dest);
        assert_eq!(blocks.len(), 5);
        let mut all = Vec::new();
        for (key, block) in blocks {
            let first = &block[0];
            assert_eq!(
                key,
                first.splitn(3, ' ').take(2).collect::<Vec<_>>().join(" ")
            );
            assert!(block.len() == 5 || all.len() == 20);
            all.extend(block);
        }
        assert_eq!(all, lines);
        assert_eq!(
            std::fs::read_to_string(dest.join(LOC_NAME)).unwrap(),
            "cdx-00000.gz\tcdx-00000.gz\n"
        );
        // Written again over itself; the temporary beside it is gone.
        let opts = ZipNumOptions {
            lines_per_block: 100,
        };
        write_zipnum_from(input.as_bytes(), Path::new("in.cdx"), &dest, &opts).unwrap();
        assert_eq!(read_back(&dest).len(), 1);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn bytes_cut_anywhere_give_the_same_cluster() {
        let dir = tempfile::tempdir().unwrap();
        let text: String = (0..50).map(|i| format!("a{i:02} 1 x\n")).collect();
        let opts = ZipNumOptions { lines_per_block: 7 };
        let whole = dir.path().join("whole");
        write_zipnum_from(text.as_bytes(), Path::new("-"), &whole, &opts).unwrap();
        for step in [1, 3, 64] {
            let dest = dir.path().join(format!("step{step}"));
            let mut w = ZipNumWriter::create(&dest, &opts).unwrap();
            for chunk in text.as_bytes()[..text.len() - 1].chunks(step) {
                w.write_all(chunk).unwrap();
            }
            w.finish().unwrap();
            for f in [PART_NAME, IDX_NAME, LOC_NAME] {
                assert_eq!(
                    std::fs::read(dest.join(f)).unwrap(),
                    std::fs::read(whole.join(f)).unwrap(),
                    "{f}, written {step} bytes at a time"
                );
            }
        }
    }

    #[test]
    fn unsorted_input_and_foreign_directories_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("z");
        let e = write_zipnum_from(
            &b"b 1\na 2\n"[..],
            Path::new("x.cdx"),
            &dest,
            &ZipNumOptions::default(),
        )
        .unwrap_err();
        assert!(matches!(e, Error::Unsorted { line: 2, .. }), "{e}");
        assert!(
            e.to_string().starts_with("x.cdx: line 2 sorts before"),
            "{e}"
        );
        assert!(!dest.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        std::fs::create_dir(&dest).unwrap();
        std::fs::write(dest.join("notes.txt"), "mine").unwrap();
        let e = ZipNumWriter::create(&dest, &ZipNumOptions::default())
            .err()
            .unwrap();
        assert!(matches!(e, Error::NotACluster { .. }), "{e}");
        assert!(dest.join("notes.txt").exists());
        assert!(matches!(
            ZipNumWriter::create(&dest, &ZipNumOptions { lines_per_block: 0 }).err(),
            Some(Error::NoLinesPerBlock)
        ));
    }

    #[test]
    fn idx_keys_are_key_and_timestamp() {
        assert_eq!(idx_key(b"a,b)/ 2024 http://b.a/ x"), b"a,b)/ 2024");
        assert_eq!(idx_key(b"a,b)/ 2024 {\"url\": 1}"), b"a,b)/ 2024");
        assert_eq!(idx_key(b"a,b)/ 2024"), b"a,b)/ 2024");
        assert_eq!(idx_key(b"a,b)/"), b"a,b)/");
        assert!(is_part_name("cdx-00000.gz") && !is_part_name("cdx-.gz"));
    }
}
