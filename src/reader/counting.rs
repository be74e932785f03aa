//! The compressed input: a buffered reader that counts the bytes consumed from the
//! file (CDX `V` and `S` are facts about the stored file) and finds where the next
//! gzip member starts after damage.

use std::io::{self, BufRead, Read};

use super::codec::Codec;
use super::window::Window;

/// Compressed bytes of the current gzip member kept after they were consumed, at most:
/// enough to re-scan a damaged member of any usual size from its start (a longer one is
/// re-scanned from where its decoder stopped).
const MAX_KEEP: u64 = 1 << 20;

/// A buffered reader that counts the bytes consumed from the file and can keep the
/// bytes consumed since a mark (the start of the current gzip member), so that a
/// member whose decoder failed can be scanned again from its start: a damaged deflate
/// stream may have been read past the member's end, into the next member's header.
pub(crate) struct CountingReader<R> {
    inner: R,
    win: Window,
    /// File offset from which consumed bytes are kept, if any.
    mark: Option<u64>,
    chunk: usize,
}

impl<R: Read> CountingReader<R> {
    /// A reader over `inner` that reads `capacity` bytes at a time.
    pub(crate) fn new(inner: R, capacity: usize) -> Self {
        Self::with_window(inner, capacity, capacity)
    }

    /// A reader over `inner` that reads `read_size` bytes at a time into a buffer of
    /// `window` bytes (more than `read_size`, so that keeping a read's worth of unread
    /// bytes ahead, as whole-member decoding does, seldom moves them).
    pub(crate) fn with_window(inner: R, read_size: usize, window: usize) -> Self {
        CountingReader {
            inner,
            win: Window::new(window.max(read_size)),
            mark: None,
            chunk: read_size,
        }
    }

    /// Counts from file offset `base` (the input starts there), before any read.
    pub(crate) fn start_at(&mut self, base: u64) {
        self.win.start_at(base);
    }

    /// File offset of the next byte to be consumed.
    pub(crate) fn pos(&self) -> u64 {
        self.win.position()
    }

    /// Keeps the bytes from the current position on, until `clear_mark`.
    pub(crate) fn set_mark(&mut self) {
        self.mark = Some(self.pos());
    }

    /// Stops keeping consumed bytes.
    pub(crate) fn clear_mark(&mut self) {
        self.mark = None;
    }

    /// Moves the cursor back to file offset `to` if that byte is still held.
    pub(crate) fn rewind(&mut self, to: u64) -> bool {
        self.win.rewind(to)
    }

    /// Reads more input after the bytes held, keeping those from the mark (within
    /// `MAX_KEEP`) or else from the cursor. Returns how many bytes were read.
    fn read_more(&mut self) -> io::Result<usize> {
        let pos = self.pos();
        let keep_behind = match self.mark {
            // The mark is at or before the cursor, so `pos - m` bytes are behind it.
            Some(m) if m >= self.win.start() && pos - m <= MAX_KEEP => (pos - m) as usize,
            _ => {
                self.mark = None;
                0
            }
        };
        let chunk = self.chunk;
        self.win.make_room(keep_behind, |len| len + chunk);
        let n = read_retry(&mut self.inner, self.win.spare(chunk))?;
        self.win.filled(n);
        Ok(n)
    }

    /// At least `n` unread bytes, fewer only at the end of the input.
    pub(crate) fn fill_at_least(&mut self, n: usize) -> io::Result<&[u8]> {
        while self.win.unread().len() < n {
            if self.read_more()? == 0 {
                break;
            }
        }
        Ok(self.win.unread())
    }
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.win.unread().is_empty() && self.mark.is_none() && out.len() >= self.chunk {
            // Large reads of plain files bypass the buffer, as `BufReader` does.
            let n = read_retry(&mut self.inner, out)?;
            self.win.skip_past_end(n);
            return Ok(n);
        }
        let avail = self.fill_buf()?;
        let n = avail.len().min(out.len());
        out[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: Read> BufRead for CountingReader<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.win.unread().is_empty() {
            self.read_more()?;
        }
        Ok(self.win.unread())
    }
    fn consume(&mut self, n: usize) {
        self.win.consume(n);
    }
}

/// A plausible gzip member header: magic, deflate, reserved flag bits clear (RFC 1952).
pub(crate) fn plausible_member(b: &[u8]) -> bool {
    b.len() >= 4 && b[0] == 0x1f && b[1] == 0x8b && b[2] == 8 && b[3] & 0xe0 == 0
}

/// Moves `r` to the next plausible member header of `codec`; false (everything
/// consumed) when there is none before the end of the input. `zeros` is cleared when a
/// skipped byte is not NUL (NUL padding between members is no damage).
pub(crate) fn scan_for_member<R: Read>(
    r: &mut CountingReader<R>,
    codec: Codec,
    zeros: &mut bool,
) -> io::Result<bool> {
    let need = codec.header_len();
    loop {
        let buf = r.fill_at_least(need)?;
        let skip = |b: &[u8], zeros: &mut bool| *zeros &= b.iter().all(|&x| x == 0);
        if buf.len() < need {
            let n = buf.len();
            skip(buf, zeros);
            r.consume(n);
            return Ok(false);
        }
        match memchr::memchr(codec.first_byte(), buf) {
            None => {
                let n = buf.len();
                skip(buf, zeros);
                r.consume(n);
            }
            Some(i) if i + need <= buf.len() => {
                if codec.plausible(&buf[i..i + need]) {
                    skip(&buf[..i], zeros);
                    r.consume(i);
                    return Ok(true);
                }
                skip(&buf[..i + 1], zeros);
                r.consume(i + 1);
            }
            // Too few bytes after it to judge: keep them and read more.
            Some(i) => {
                skip(&buf[..i], zeros);
                r.consume(i);
            }
        }
    }
}

/// `read`, retried when a signal interrupted it.
pub(crate) fn read_retry<T: Read>(r: &mut T, out: &mut [u8]) -> io::Result<usize> {
    loop {
        match r.read(out) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marked_bytes_are_kept_across_refills_and_can_be_rescanned() {
        let data: Vec<u8> = (0..50_000u32).map(|i| (i % 251) as u8).collect();
        let mut r = CountingReader::new(&data[..], 4096);
        let n = r.fill_buf().unwrap().len().min(100);
        r.consume(n);
        r.set_mark();
        let mut sink = Vec::new();
        r.by_ref().take(30_000).read_to_end(&mut sink).unwrap();
        assert_eq!(r.pos(), 30_100);
        assert!(r.rewind(101), "bytes since the mark are held");
        assert_eq!(r.fill_buf().unwrap()[0], data[101]);
        r.clear_mark();
        let mut rest = Vec::new();
        r.read_to_end(&mut rest).unwrap();
        assert_eq!(rest, &data[101..]);
        assert!(!r.rewind(101), "without a mark nothing old is held");
    }

    #[test]
    fn scan_finds_a_plausible_header_across_refills() {
        let mut data = vec![0x1fu8; 10_000];
        data.extend_from_slice(&[0x1f, 0x8b, 0x08, 0xe0]); // reserved flag bits: not a member
        data.extend_from_slice(&[7; 5]);
        let at = data.len() as u64;
        data.extend_from_slice(&[0x1f, 0x8b, 0x08, 0x00, 0, 0]);
        for chunk in [8192, 5, 1] {
            let mut r = CountingReader::new(&data[..], chunk);
            let mut zeros = true;
            assert!(scan_for_member(&mut r, Codec::Gzip, &mut zeros).unwrap());
            assert_eq!(r.pos(), at, "chunk {chunk}");
            assert!(!zeros);
            r.consume(1);
            assert!(!scan_for_member(&mut r, Codec::Gzip, &mut zeros).unwrap());
            assert_eq!(r.pos(), data.len() as u64);
        }
    }
}
