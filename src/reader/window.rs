//! One growable byte buffer with a read cursor and an absolute position: the window
//! that both the compressed input (`CountingReader`) and the decompressed stream
//! (`Stream`) read through.
//!
//! When it is full, the bytes the caller no longer needs are dropped from the front
//! and the rest moved down; a caller that must keep more than fits (a long gzip member
//! kept for a re-scan, a long header line) makes it grow instead.

/// Bytes `buf[pos..end]` are held and unread; `buf[..pos]` were read but may still be
/// kept. `base` is the absolute offset (in the file, or in the decompressed stream)
/// of `buf[0]`.
pub(crate) struct Window {
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    base: u64,
}

thread_local! {
    /// Buffers of windows that were dropped on this thread, for the next windows: `cdx -j`
    /// opens a reader per piece of a file (`src/cdx_writer/pieces.rs`), and fresh
    /// buffers cost page faults (measured: `sys` time doubled with 13 pieces).
    static SPARE_BUFFERS: std::cell::RefCell<Vec<Vec<u8>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Buffers kept per thread, at most, and the largest kept.
const SPARE_COUNT: usize = 4;
const SPARE_MAX: usize = 8 << 20;

impl Window {
    /// An empty window with room for `capacity` bytes.
    pub(crate) fn new(capacity: usize) -> Self {
        let spare = SPARE_BUFFERS.with(|s| {
            let mut s = s.borrow_mut();
            let i = s.iter().position(|b| b.capacity() >= capacity)?;
            Some(s.swap_remove(i))
        });
        let buf = match spare {
            // Old bytes are left in it: a window reads only what was written since.
            // Within its capacity: no reallocation.
            Some(mut b) => {
                b.resize(capacity, 0);
                b
            }
            None => vec![0; capacity],
        };
        Window {
            buf,
            pos: 0,
            end: 0,
            base: 0,
        }
    }

    /// Makes an empty window's first byte absolute offset `base`.
    pub(crate) fn start_at(&mut self, base: u64) {
        debug_assert!(self.end == 0);
        self.base = base;
    }

    /// Absolute offset of the first byte held (read or not).
    pub(crate) fn start(&self) -> u64 {
        self.base
    }

    /// Absolute offset of the cursor (the next byte to read).
    pub(crate) fn position(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Absolute offset just past the last byte held.
    pub(crate) fn end_position(&self) -> u64 {
        self.base + self.end as u64
    }

    /// The unread bytes.
    pub(crate) fn unread(&self) -> &[u8] {
        &self.buf[self.pos..self.end]
    }

    /// Marks `n` unread bytes as read.
    pub(crate) fn consume(&mut self, n: usize) {
        debug_assert!(self.pos + n <= self.end);
        self.pos += n;
    }

    /// Marks every unread byte as read.
    pub(crate) fn consume_all(&mut self) {
        self.pos = self.end;
    }

    /// Bytes still held before the cursor, from absolute offset `from` (or as far back
    /// as is kept), with the offset of the first one returned.
    pub(crate) fn behind(&self, from: u64) -> (u64, &[u8]) {
        let start = from.max(self.base);
        let s = (start - self.base) as usize;
        (start, &self.buf[s.min(self.pos)..self.pos])
    }

    /// Moves the cursor back to absolute offset `to` if that byte is still held.
    pub(crate) fn rewind(&mut self, to: u64) -> bool {
        if to >= self.base && to <= self.position() {
            self.pos = (to - self.base) as usize;
            true
        } else {
            false
        }
    }

    /// When the window is full, drops the read bytes except the last `keep_behind`
    /// and moves the rest to the front; when that frees nothing, grows the buffer to
    /// `grown(current length)` bytes.
    pub(crate) fn make_room(&mut self, keep_behind: usize, grown: impl FnOnce(usize) -> usize) {
        if self.end < self.buf.len() {
            return;
        }
        self.drop_read(keep_behind);
        if self.end == self.buf.len() {
            let len = grown(self.buf.len());
            self.buf.resize(len, 0);
        }
    }

    /// Makes at least `need` bytes free after the bytes held when dropping the read
    /// bytes (except the last `keep_behind`) can, and moves the bytes held to the front
    /// once they are past `soft_end`, so that writes stay in the first `soft_end` bytes
    /// (which stay in the CPU's cache) even when the buffer has grown. Never grows it.
    pub(crate) fn free_up(&mut self, keep_behind: usize, need: usize, soft_end: usize) {
        if self.buf.len() - self.end >= need && self.end <= soft_end {
            return;
        }
        self.drop_read(keep_behind);
    }

    /// Drops the read bytes except the last `keep_behind` and moves the rest to the front.
    fn drop_read(&mut self, keep_behind: usize) {
        let keep_from = self.pos.saturating_sub(keep_behind);
        if keep_from > 0 {
            self.buf.copy_within(keep_from..self.end, 0);
            self.base += keep_from as u64;
            self.pos -= keep_from;
            self.end -= keep_from;
        }
    }

    /// The buffer's length (bytes held and free).
    pub(crate) fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// Grows the buffer to `len` bytes (no shrinking), keeping the bytes held.
    ///
    /// A zeroed allocation of fresh memory is pages not yet touched: only the bytes held
    /// are copied in, and the rest is faulted in where a decode writes. `resize` wrote
    /// every byte of the 8 MiB a window grows to for whole members, once a file: the
    /// kernel's page clearing was a tenth of `cdx -j 1`'s time on the bench's files.
    pub(crate) fn grow(&mut self, len: usize) {
        if len > self.buf.len() {
            let mut grown = vec![0u8; len];
            grown[..self.end].copy_from_slice(&self.buf[..self.end]);
            self.buf = grown;
        }
    }

    /// The free space after the bytes held, at most `max` bytes, for the next read;
    /// [`Window::filled`] then says how much of it was written.
    pub(crate) fn spare(&mut self, max: usize) -> &mut [u8] {
        let n = max.min(self.buf.len() - self.end);
        &mut self.buf[self.end..self.end + n]
    }

    /// `n` bytes were written into [`Window::spare`].
    pub(crate) fn filled(&mut self, n: usize) {
        self.end += n;
    }

    /// Drops every byte held and moves the window on by `n` more bytes, read past it
    /// into the caller's own buffer.
    pub(crate) fn skip_past_end(&mut self, n: usize) {
        self.base += (self.end + n) as u64;
        self.pos = 0;
        self.end = 0;
    }
}

impl Drop for Window {
    fn drop(&mut self) {
        if self.buf.capacity() > SPARE_MAX {
            return;
        }
        let buf = std::mem::take(&mut self.buf);
        // A thread that is ending has no spares to keep.
        let _ = SPARE_BUFFERS.try_with(|s| {
            let mut s = s.borrow_mut();
            if s.len() < SPARE_COUNT {
                s.push(buf);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_bytes_asked_for_and_grows_when_it_must() {
        let mut w = Window::new(8);
        w.spare(8).copy_from_slice(b"abcdefgh");
        w.filled(8);
        w.consume(6);
        w.make_room(2, |n| n * 2);
        assert_eq!(w.behind(0), (4, &b"ef"[..]));
        assert_eq!(w.unread(), b"gh");
        assert_eq!(w.spare(100).len(), 4);
        w.spare(4).copy_from_slice(b"ijkl");
        w.filled(4);
        w.make_room(8, |n| n * 2);
        assert_eq!(w.spare(100).len(), 8, "nothing to drop: it grew");
        assert!(w.rewind(4) && !w.rewind(3));
        assert_eq!(w.unread(), b"efghijkl");
    }
}
