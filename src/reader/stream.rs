//! The byte layer under the record parser: a counting reader, per-member gzip
//! decoding, and one growable buffer of decompressed bytes.
//!
//! Offsets in CDX (`V`) and lengths (`S`) are facts about the *compressed* file,
//! so the compressed position is counted below the decoder, and each gzip member
//! gets its own `MemberDecoder` (`crate::gzip_member`): it stops exactly at the
//! member's end, which a multi-member decoder would hide.

use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Read};

use crate::gzip_member::{InflateState, MemberDecoder};

use crate::error::{Anomaly, AnomalyKind, Error, ErrorKind, Result};

/// Bytes kept before the read cursor when the buffer rolls, so that a record
/// whose Content-Length was too long can be cut back to the real start of the
/// next record (see `ArchiveReader::resync_backwards`).
pub(crate) const KEEP_BEHIND: usize = 64 * 1024;

/// A `BufRead` that counts the bytes consumed from the file.
pub(crate) struct CountingReader<R> {
    inner: BufReader<R>,
    pos: u64,
}

impl<R: Read> CountingReader<R> {
    fn new(inner: R, capacity: usize) -> Self {
        CountingReader {
            inner: BufReader::with_capacity(capacity, inner),
            pos: 0,
        }
    }
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(out)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R: Read> BufRead for CountingReader<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, n: usize) {
        self.inner.consume(n);
        self.pos += n as u64;
    }
}

/// One gzip member: where it starts and ends, compressed and decompressed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Member {
    /// Decompressed stream offset of its first byte.
    pub dstart: u64,
    /// Compressed file offset of its first byte.
    pub cstart: u64,
    /// Decompressed end, once reached.
    pub dend: Option<u64>,
    /// Compressed end, once reached.
    pub cend: Option<u64>,
}

// The gzip variant is much larger than the plain one; there is one Source per file,
// so boxing it would only add an indirection on the hot path.
#[allow(clippy::large_enum_variant)]
enum Source<R: Read> {
    Plain(CountingReader<R>),
    Gzip {
        decoder: Option<MemberDecoder<CountingReader<R>>>,
        idle: Option<CountingReader<R>>,
        /// The inflate state, kept between members.
        spare: Option<InflateState>,
    },
}

/// Decompressed bytes with a read cursor, an absolute position and member bookkeeping.
pub(crate) struct Stream<R: Read> {
    src: Source<R>,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    /// Decompressed offset of `buf[0]`.
    base: u64,
    chunk: usize,
    eof: bool,
    pub(crate) members: VecDeque<Member>,
    pub(crate) anomalies: Vec<Anomaly>,
    compressed_len_hint: u64,
    /// A decompression error, held until the record being read is handed out.
    error: Option<Error>,
}

impl<R: Read> Stream<R> {
    /// Sniffs gzip from the magic bytes and sets up the source.
    pub(crate) fn new(inner: R, chunk: usize) -> Result<Self> {
        let chunk = chunk.max(1);
        let mut counting = CountingReader::new(inner, chunk.max(8192));
        let head = counting.fill_buf()?;
        let gzip = head.len() >= 2 && head[0] == 0x1f && head[1] == 0x8b;
        let src = if gzip {
            Source::Gzip {
                decoder: None,
                idle: Some(counting),
                spare: None,
            }
        } else {
            Source::Plain(counting)
        };
        Ok(Stream {
            src,
            // Room for several reads besides the KEEP_BEHIND tail, so rolling the buffer
            // (which copies that tail) costs little next to decompression.
            buf: vec![0; chunk.saturating_mul(4).max(16)],
            pos: 0,
            end: 0,
            base: 0,
            chunk,
            eof: false,
            members: VecDeque::new(),
            anomalies: Vec::new(),
            compressed_len_hint: 0,
            error: None,
        })
    }

    /// True when the input is gzip.
    pub(crate) fn is_gzip(&self) -> bool {
        matches!(self.src, Source::Gzip { .. })
    }

    /// Decompressed offset of the cursor.
    pub(crate) fn position(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Compressed bytes consumed so far (the file position for plain input).
    pub(crate) fn compressed_position(&self) -> u64 {
        match &self.src {
            Source::Plain(r) => r.pos,
            Source::Gzip { decoder, idle, .. } => match (decoder, idle) {
                (Some(d), _) => d.get_ref().pos,
                (None, Some(r)) => r.pos,
                _ => self.compressed_len_hint,
            },
        }
    }

    /// True once the input is exhausted (or broken).
    pub(crate) fn is_eof(&self) -> bool {
        self.eof
    }

    /// The unread bytes in the buffer.
    pub(crate) fn buffer(&self) -> &[u8] {
        &self.buf[self.pos..self.end]
    }

    /// Marks `n` buffered bytes as read.
    pub(crate) fn consume(&mut self, n: usize) {
        debug_assert!(self.pos + n <= self.end);
        self.pos += n;
    }

    /// Bytes still held before the cursor, from decompressed offset `from`
    /// (or as far back as is kept), with the offset of the first one returned.
    pub(crate) fn behind(&self, from: u64) -> (u64, &[u8]) {
        let start = from.max(self.base);
        let s = (start - self.base) as usize;
        (start, &self.buf[s.min(self.pos)..self.pos])
    }

    /// Moves the cursor back to decompressed offset `to`, which must still be held.
    pub(crate) fn rewind_to(&mut self, to: u64) {
        assert!(to >= self.base && to <= self.position());
        self.pos = (to - self.base) as usize;
    }

    /// Reads more bytes into the buffer. Returns how many; 0 at the end of input.
    pub(crate) fn fill(&mut self) -> Result<usize> {
        if self.eof {
            return Ok(0);
        }
        self.make_room();
        let want = self.chunk.min(self.buf.len() - self.end);
        loop {
            let n = self.read_source(want)?;
            if n > 0 || self.eof {
                return Ok(n);
            }
        }
    }

    /// Makes sure at least one byte is buffered unless at the end; returns false at the end.
    pub(crate) fn ensure(&mut self) -> Result<bool> {
        while self.pos == self.end {
            if self.fill()? == 0 {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn make_room(&mut self) {
        if self.end < self.buf.len() {
            return;
        }
        let keep_from = self.pos.saturating_sub(KEEP_BEHIND);
        if keep_from > 0 {
            self.buf.copy_within(keep_from..self.end, 0);
            self.base += keep_from as u64;
            self.pos -= keep_from;
            self.end -= keep_from;
        }
        if self.end == self.buf.len() {
            let grown = (self.buf.len() * 2).max(64);
            self.buf.resize(grown, 0);
        }
    }

    /// One read from the source into `buf[end..end+want]`; 0 with `eof` unset means
    /// "a member ended, call again".
    fn read_source(&mut self, want: usize) -> Result<usize> {
        let dpos = self.base + self.end as u64;
        let out = &mut self.buf[self.end..self.end + want];
        match &mut self.src {
            Source::Plain(r) => {
                let n = read_retry(r, out)?;
                if n == 0 {
                    self.eof = true;
                }
                self.end += n;
                Ok(n)
            }
            Source::Gzip {
                decoder,
                idle,
                spare,
            } => {
                if decoder.is_none() {
                    let mut r = idle.take().expect("gzip source present");
                    let head = r.fill_buf()?;
                    if head.is_empty() {
                        self.compressed_len_hint = r.pos;
                        *idle = Some(r);
                        self.eof = true;
                        return Ok(0);
                    }
                    if head[0] != 0x1f || (head.len() > 1 && head[1] != 0x8b) {
                        // Quirk: zero padding or junk after the last member. Count it and stop:
                        // without gzip framing there is nothing to resynchronise on.
                        let at = r.pos;
                        let mut skipped = 0u64;
                        loop {
                            let n = r.fill_buf()?.len();
                            if n == 0 {
                                break;
                            }
                            r.consume(n);
                            skipped += n as u64;
                        }
                        self.anomalies.push(Anomaly {
                            kind: AnomalyKind::TrailingGarbage,
                            offset: at,
                            message: format!(
                                "{skipped} bytes after the last gzip member are not gzip"
                            ),
                        });
                        self.compressed_len_hint = r.pos;
                        *idle = Some(r);
                        self.eof = true;
                        return Ok(0);
                    }
                    self.members.push_back(Member {
                        dstart: dpos,
                        cstart: r.pos,
                        dend: None,
                        cend: None,
                    });
                    *decoder = Some(MemberDecoder::new(r, spare.take().unwrap_or_default()));
                }
                let dec = decoder.as_mut().expect("decoder set");
                let cstart = self.members.back().map(|m| m.cstart).unwrap_or(0);
                let n = match read_retry(dec, out) {
                    Ok(n) => n,
                    Err(e) => {
                        // Held, not returned: the bytes decoded before the damage still
                        // make a (truncated) record, and the error follows it.
                        self.eof = true;
                        self.compressed_len_hint = dec.get_ref().pos;
                        self.error = Some(Error::at(
                            ErrorKind::Gzip {
                                member_offset: cstart,
                                message: e.to_string(),
                            },
                            dec.get_ref().pos,
                        ));
                        return Ok(0);
                    }
                };
                if n > 0 {
                    self.end += n;
                    return Ok(n);
                }
                // End of this member: hand the reader back and note where it ended.
                let (r, state) = decoder.take().expect("decoder set").into_parts();
                *spare = Some(state);
                let cend = r.pos;
                *idle = Some(r);
                if let Some(m) = self.members.back_mut() {
                    m.dend = Some(dpos);
                    m.cend = Some(cend);
                    if m.dstart == dpos {
                        self.anomalies.push(Anomaly {
                            kind: AnomalyKind::EmptyGzipMember,
                            offset: m.cstart,
                            message: format!(
                                "gzip member of {} bytes holds no data",
                                cend - m.cstart
                            ),
                        });
                    }
                }
                Ok(0)
            }
        }
    }

    /// The decompression error that ended the input, if one did.
    pub(crate) fn take_error(&mut self) -> Option<Error> {
        self.error.take()
    }

    /// Drops member records that end before decompressed offset `before`.
    pub(crate) fn prune_members(&mut self, before: u64) {
        while self.members.len() > 1 {
            match self.members[0].dend {
                Some(d) if d < before => {
                    self.members.pop_front();
                }
                _ => break,
            }
        }
    }

    /// The member holding decompressed offset `d` (the later one when `d` is a boundary),
    /// skipping empty members.
    pub(crate) fn member_at(&self, d: u64) -> Option<(usize, Member)> {
        self.members
            .iter()
            .enumerate()
            .rev()
            .find(|(_, m)| m.dstart <= d && m.dend.is_none_or(|e| e > d))
            .map(|(i, m)| (i, *m))
    }
}

fn read_retry<T: Read>(r: &mut T, out: &mut [u8]) -> io::Result<usize> {
    loop {
        match r.read(out) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}
