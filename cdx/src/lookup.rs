//! A sorted CDX file opened for lookup: the first line at or after a key found by binary
//! search on byte offsets, then the lines streamed forwards (or backwards) from there.
//!
//! Memory is bounded whatever the file's size: every read is positional (`pread`), so
//! several iterators share one open file, and no line longer than [`MAX_LINE`] is ever
//! held — such a line is an error naming the file and offset. Lines compare as bytes
//! (C order), the order `sort-cdx` and `LC_ALL=C sort` write.
//!
//! ```no_run
//! # use warcdex_cdx::lookup::SortedCdx;
//! let cdx = SortedCdx::open("all.cdx".as_ref())?;
//! // Every capture of one URL key: its lines start with the key and a space.
//! let key = b"com,example)/page ";
//! for line in cdx.lines_from(key)? {
//!     let line = line?;
//!     if !line.starts_with(key) {
//!         break;
//!     }
//!     println!("{}", String::from_utf8_lossy(&line));
//! }
//! # Ok::<(), std::io::Error>(())
//! ```

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The longest line read, newline excluded (a CDX line is a few hundred bytes; a URL of
/// 64 KiB is already far past what browsers send).
pub const MAX_LINE: usize = 64 * 1024;

/// Bytes read at a time while streaming.
const CHUNK: usize = 64 * 1024;

/// The file shared by the handle and its iterators, with the name errors carry.
#[derive(Debug)]
struct Shared {
    file: File,
    path: PathBuf,
    /// Offset of the first line after the legend (0 without one).
    data_start: u64,
    /// The file's length when opened; a file rewritten in place is not followed, a
    /// collection replaces `all.cdx` by rename.
    len: u64,
}

impl Shared {
    /// Reads at `offset` into `buf` until it is full or the end of the file; returns the
    /// bytes read.
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let mut done = 0;
        while done < buf.len() {
            let at = offset + done as u64;
            if at >= self.len {
                break;
            }
            let want = (buf.len() - done).min((self.len - at) as usize);
            let n = pread(&self.file, &mut buf[done..done + want], at)
                .map_err(|e| self.error_at(at, e))?;
            if n == 0 {
                break;
            }
            done += n;
        }
        Ok(done)
    }

    fn error_at(&self, offset: u64, e: io::Error) -> io::Error {
        io::Error::new(
            e.kind(),
            format!("{}: at offset {offset}: {e}", self.path.display()),
        )
    }

    fn too_long(&self, offset: u64) -> io::Error {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{}: the line at offset {offset} is longer than {MAX_LINE} bytes",
                self.path.display()
            ),
        )
    }

    /// The start of the first line starting at or after `pos` (`len` when none does).
    fn line_start_at_or_after(&self, pos: u64) -> io::Result<u64> {
        if pos <= self.data_start {
            return Ok(self.data_start);
        }
        // A line starts at `pos` if the byte before it is a newline.
        let mut at = pos - 1;
        let mut buf = vec![0u8; 4096];
        while at < self.len {
            let n = self.read_at(&mut buf, at)?;
            if let Some(i) = memchr::memchr(b'\n', &buf[..n]) {
                return Ok(at + i as u64 + 1);
            }
            at += n as u64;
            if at - pos > MAX_LINE as u64 + 1 {
                return Err(self.too_long(pos));
            }
        }
        Ok(self.len)
    }

    /// The line starting at `start` (a line start), without its newline.
    fn line_at(&self, start: u64) -> io::Result<Vec<u8>> {
        let mut line = Vec::new();
        let mut buf = vec![0u8; 4096];
        let mut at = start;
        while at < self.len {
            let n = self.read_at(&mut buf, at)?;
            if let Some(i) = memchr::memchr(b'\n', &buf[..n]) {
                line.extend_from_slice(&buf[..i]);
                break;
            }
            line.extend_from_slice(&buf[..n]);
            at += n as u64;
            if line.len() > MAX_LINE {
                return Err(self.too_long(start));
            }
        }
        if line.len() > MAX_LINE {
            return Err(self.too_long(start));
        }
        Ok(line)
    }

    /// The start of the first line `>= key` (`len` when every line is smaller): a binary
    /// search over byte offsets, each probe resynchronised to the next line start.
    fn first_at_or_after(&self, key: &[u8]) -> io::Result<u64> {
        // The smallest p whose next line is missing or >= key: monotone in p because the
        // next line start never decreases and the lines are sorted.
        let (mut lo, mut hi) = (self.data_start, self.len);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let start = self.line_start_at_or_after(mid)?;
            let at_or_after = start >= self.len || self.line_at(start)?.as_slice() >= key;
            if at_or_after {
                hi = mid;
            } else {
                // Every p up to `start` leads to this line or an earlier one.
                lo = start.max(mid) + 1;
            }
        }
        self.line_start_at_or_after(lo)
    }
}

#[cfg(unix)]
fn pread(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, offset)
}

#[cfg(windows)]
fn pread(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, offset)
}

/// A CDX file sorted in byte order, opened for lookups. Cheap to share: iterators hold
/// the open file, so the handle may be dropped while they run.
#[derive(Debug, Clone)]
pub struct SortedCdx {
    shared: Arc<Shared>,
}

impl SortedCdx {
    /// Opens `path`; a first line starting with ` CDX` (the legend) is skipped.
    pub fn open(path: &Path) -> io::Result<SortedCdx> {
        let file = File::open(path)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        let len = file
            .metadata()
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?
            .len();
        let mut shared = Shared {
            file,
            path: path.to_path_buf(),
            data_start: 0,
            len,
        };
        let mut head = [0u8; 4];
        if shared.read_at(&mut head, 0)? == 4 && &head == b" CDX" {
            // data_start is still 0, so this finds the end of the legend.
            shared.data_start = shared.line_start_at_or_after(1)?;
        }
        Ok(SortedCdx {
            shared: Arc::new(shared),
        })
    }

    /// The file's path, as given to [`SortedCdx::open`].
    pub fn path(&self) -> &Path {
        &self.shared.path
    }

    /// The lines from the first one `>= key` (byte order, whole line against `key`) to
    /// the end of the file, in file order. `key = b"com,example)/ "` starts at the first
    /// capture of `com,example)/`; the caller stops when the lines no longer match.
    pub fn lines_from(&self, key: &[u8]) -> io::Result<CdxLines> {
        let pos = self.shared.first_at_or_after(key)?;
        Ok(CdxLines {
            shared: Arc::clone(&self.shared),
            pos,
            buf: Vec::new(),
            at: 0,
            failed: false,
        })
    }

    /// The lines `< key`, from the last one backwards to the first line of the file:
    /// `sort=reverse` reads a range from its end without holding it.
    pub fn lines_before(&self, key: &[u8]) -> io::Result<CdxLinesRev> {
        let end = self.shared.first_at_or_after(key)?;
        Ok(CdxLinesRev {
            shared: Arc::clone(&self.shared),
            end,
            buf: Vec::new(),
            buf_start: end,
            failed: false,
        })
    }
}

/// Lines in file order from a position of a [`SortedCdx`], each without its newline
/// (a final line without one is returned too). After an error the iterator ends.
#[derive(Debug)]
pub struct CdxLines {
    shared: Arc<Shared>,
    /// File offset of `buf[0]`.
    pos: u64,
    buf: Vec<u8>,
    /// Start of the next line in `buf`.
    at: usize,
    failed: bool,
}

impl CdxLines {
    fn next_line(&mut self) -> io::Result<Option<Vec<u8>>> {
        loop {
            if let Some(i) = memchr::memchr(b'\n', &self.buf[self.at..]) {
                if i > MAX_LINE {
                    return Err(self.shared.too_long(self.pos + self.at as u64));
                }
                let line = self.buf[self.at..self.at + i].to_vec();
                self.at += i + 1;
                return Ok(Some(line));
            }
            let pending = self.buf.len() - self.at;
            if pending > MAX_LINE {
                return Err(self.shared.too_long(self.pos + self.at as u64));
            }
            // Keep the partial line, read the next chunk after it.
            self.buf.drain(..self.at);
            self.pos += self.at as u64;
            self.at = 0;
            let from = self.pos + pending as u64;
            self.buf.resize(pending + CHUNK, 0);
            let n = self.shared.read_at(&mut self.buf[pending..], from)?;
            self.buf.truncate(pending + n);
            if n == 0 {
                if pending == 0 {
                    return Ok(None);
                }
                let line = std::mem::take(&mut self.buf);
                self.pos += pending as u64;
                return Ok(Some(line));
            }
        }
    }
}

impl Iterator for CdxLines {
    type Item = io::Result<Vec<u8>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let r = self.next_line();
        if r.is_err() {
            self.failed = true;
        }
        r.transpose()
    }
}

/// Lines in reverse file order, ending before a position of a [`SortedCdx`]; made by
/// [`SortedCdx::lines_before`]. After an error the iterator ends.
#[derive(Debug)]
pub struct CdxLinesRev {
    shared: Arc<Shared>,
    /// End of the bytes not yet returned (a line start, or the file's end).
    end: u64,
    /// The bytes `[buf_start, end)`, read but not returned.
    buf: Vec<u8>,
    buf_start: u64,
    failed: bool,
}

impl CdxLinesRev {
    fn next_line(&mut self) -> io::Result<Option<Vec<u8>>> {
        let data_start = self.shared.data_start;
        if self.end <= data_start {
            return Ok(None);
        }
        // The last line ends at `end`, with its newline unless it is the file's last.
        let mut line_end = self.buf.len();
        let mut newline_seen = false;
        loop {
            if !newline_seen && line_end > 0 {
                if self.buf[line_end - 1] == b'\n' {
                    line_end -= 1;
                }
                newline_seen = true;
            }
            if newline_seen {
                let found = memchr::memrchr(b'\n', &self.buf[..line_end]);
                let line_start = found.map_or(0, |i| i + 1);
                if (found.is_some() || self.buf_start <= data_start)
                    && line_end - line_start > MAX_LINE
                {
                    return Err(self.shared.too_long(self.buf_start + line_start as u64));
                }
                if let Some(i) = found {
                    let line = self.buf[i + 1..line_end].to_vec();
                    self.buf.truncate(i + 1);
                    self.end = self.buf_start + i as u64 + 1;
                    return Ok(Some(line));
                }
                if self.buf_start <= data_start {
                    let line = self.buf[..line_end].to_vec();
                    self.buf.clear();
                    self.end = data_start;
                    return Ok(Some(line));
                }
            }
            if line_end > MAX_LINE + 1 {
                return Err(self.shared.too_long(self.buf_start));
            }
            // Read the chunk before the buffer.
            let want = (CHUNK as u64).min(self.buf_start - data_start) as usize;
            let from = self.buf_start - want as u64;
            let mut chunk = vec![0u8; want];
            let n = self.shared.read_at(&mut chunk, from)?;
            if n < want {
                return Err(self.shared.error_at(
                    from,
                    io::Error::new(io::ErrorKind::UnexpectedEof, "the file shrank"),
                ));
            }
            chunk.extend_from_slice(&self.buf);
            self.buf = chunk;
            self.buf_start = from;
            line_end += want;
        }
    }
}

impl Iterator for CdxLinesRev {
    type Item = io::Result<Vec<u8>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let r = self.next_line();
        if r.is_err() {
            self.failed = true;
        }
        r.transpose()
    }
}

#[cfg(test)]
mod tests;
