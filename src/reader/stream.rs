//! The byte layer under the record parser: the compressed input
//! ([`CountingReader`]), per-member gzip decoding, and one [`Window`] of
//! decompressed bytes.
//!
//! Offsets in CDX (`V`) and lengths (`S`) are facts about the *compressed* file,
//! so the compressed position is counted below the decoder, and each gzip member
//! gets its own `MemberDecoder` (`super::gzip_member`): it stops exactly at the
//! member's end, which a multi-member decoder would hide.

use std::collections::VecDeque;
use std::io::{self, BufRead, Read};

use super::codec::{Codec, CodecState, UnitDecoder};
use super::counting::{read_retry, scan_for_member, CountingReader};
use super::gzip_member::InflateState;
use super::whole_member::{Whole, WholeMember};
use super::window::Window;
use super::zstd_frame::{self, ZstdState};
use crate::reader::error::{Anomaly, AnomalyKind, Error, ErrorKind, Result};

/// Bytes kept before the read cursor when the buffer rolls, so that a record
/// whose Content-Length was too long can be cut back to the real start of the
/// next record (see `ArchiveReader::resync_backwards`).
pub(crate) const KEEP_BEHIND: usize = 64 * 1024;

/// The decompressed window grows to this size, at most, to take a whole gzip member in
/// one libdeflate call (`whole_member.rs`); longer members are streamed.
const MAX_WHOLE_WINDOW: usize = 8 << 20;

/// Where damage stopped the decompressed stream: bytes before `dpos` came from before
/// the damage, bytes after it come from the next gzip member.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cut {
    /// Decompressed offset of the cut.
    pub dpos: u64,
    /// Decompressed offset where the damaged member started (== `dpos` when it gave
    /// no bytes at all).
    pub member_dstart: u64,
    /// Compressed offset of the damaged member.
    pub member_cstart: u64,
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
    /// Compressed end, once reached (for a damaged member: where reading resumed).
    pub cend: Option<u64>,
    /// The member did not decompress; its bytes after `dstart` up to `dend` (if any)
    /// were decoded before the damage was found.
    pub damaged: bool,
}

// The compressed variant is much larger than the plain one; there is one Source per
// file, so boxing it would only add an indirection on the hot path.
#[allow(clippy::large_enum_variant)]
enum Source<R: Read> {
    Plain(CountingReader<R>),
    /// gzip members or zstd frames ("members" below), decoded one at a time.
    Members {
        codec: Codec,
        decoder: Option<UnitDecoder<CountingReader<R>>>,
        idle: Option<CountingReader<R>>,
        /// The decoder's state, kept between members (for zstd, with the dictionary).
        spare: Option<CodecState>,
        /// libdeflate, for gzip members that are whole in the input buffer.
        whole: Option<WholeMember>,
    },
}

/// Decompressed bytes with a read cursor, an absolute position and member bookkeeping.
pub(crate) struct Stream<R: Read> {
    src: Source<R>,
    /// Decompressed bytes; offsets in it are decompressed stream offsets.
    win: Window,
    chunk: usize,
    eof: bool,
    pub(crate) members: VecDeque<Member>,
    pub(crate) anomalies: Vec<Anomaly>,
    compressed_len_hint: u64,
    /// A decompression error, held until the record being read is handed out.
    error: Option<Error>,
    /// Damage the reader has not passed yet: `fill` gives nothing more until `pass_cut`.
    cut: Option<Cut>,
    /// Members to pass over unread, `(offset, length)` by offset (see
    /// [`Stream::skip_members`]).
    holes: VecDeque<(u64, u64)>,
    /// Members passed over unread.
    pub(crate) holes_skipped: u64,
}

impl<R: Read> Stream<R> {
    /// Sniffs gzip or zstd from the magic bytes and sets up the source.
    pub(crate) fn new(inner: R, chunk: usize) -> Result<Self> {
        Self::new_at(inner, chunk, 0)
    }

    /// Like [`Stream::new`] for input that starts at offset `base` of its file, so that
    /// compressed positions are the file's.
    pub(crate) fn new_at(inner: R, chunk: usize, base: u64) -> Result<Self> {
        let chunk = chunk.max(1);
        let read_size = chunk.max(8192);
        let mut counting = CountingReader::with_window(inner, read_size, 4 * read_size);
        counting.start_at(base);
        let head = counting.fill_at_least(8)?;
        let src = match Codec::sniff(head) {
            Some(codec) => Source::Members {
                codec,
                decoder: None,
                idle: Some(counting),
                spare: None,
                whole: (codec == Codec::Gzip).then(WholeMember::new).flatten(),
            },
            None => Source::Plain(counting),
        };
        Ok(Stream {
            src,
            // Room for several reads besides the KEEP_BEHIND tail, so rolling the buffer
            // (which copies that tail) costs little next to decompression.
            win: Window::new(chunk.saturating_mul(4).max(16)),
            chunk,
            eof: false,
            members: VecDeque::new(),
            anomalies: Vec::new(),
            compressed_len_hint: 0,
            error: None,
            cut: None,
            holes: VecDeque::new(),
            holes_skipped: 0,
        })
    }

    /// Members of a compressed input to pass over without decoding them: `(offset,
    /// length)` in the file, each a whole member (one record) that no one will read. A
    /// span is skipped only where a member starts exactly at its offset; one that the
    /// reading passes by otherwise is dropped, and its bytes are read as usual.
    pub(crate) fn skip_members(&mut self, mut spans: Vec<(u64, u64)>) {
        spans.sort_unstable();
        self.holes = spans.into();
    }

    /// The input's compression, if it is compressed.
    pub(crate) fn codec(&self) -> Option<Codec> {
        match self.src {
            Source::Members { codec, .. } => Some(codec),
            Source::Plain(_) => None,
        }
    }

    /// True when the input is stored in gzip members or zstd frames.
    pub(crate) fn is_compressed(&self) -> bool {
        matches!(self.src, Source::Members { .. })
    }

    /// Decompressed offset of the cursor.
    pub(crate) fn position(&self) -> u64 {
        self.win.position()
    }

    /// Compressed bytes consumed so far (the file position for plain input).
    pub(crate) fn compressed_position(&self) -> u64 {
        match &self.src {
            Source::Plain(r) => r.pos(),
            Source::Members { decoder, idle, .. } => match (decoder, idle) {
                (Some(d), _) => d.get_ref().pos(),
                (None, Some(r)) => r.pos(),
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
        self.win.unread()
    }

    /// Marks `n` buffered bytes as read.
    pub(crate) fn consume(&mut self, n: usize) {
        self.win.consume(n);
    }

    /// Bytes still held before the cursor, from decompressed offset `from`
    /// (or as far back as is kept), with the offset of the first one returned.
    pub(crate) fn behind(&self, from: u64) -> (u64, &[u8]) {
        self.win.behind(from)
    }

    /// Moves the cursor back to decompressed offset `to`, which must still be held.
    pub(crate) fn rewind_to(&mut self, to: u64) {
        assert!(self.win.rewind(to), "rewind to {to}: no longer held");
    }

    /// Reads more bytes into the buffer. Returns how many; 0 at the end of input.
    /// At damage (see [`Stream::cut`]) it gives 0 until the cut is passed.
    pub(crate) fn fill(&mut self) -> Result<usize> {
        if self.eof || self.cut.is_some() {
            return Ok(0);
        }
        // Room for a read, keeping KEEP_BEHIND bytes for `resync_backwards`; a window
        // that holds nothing it may drop (a long header line) doubles.
        self.win.make_room(KEEP_BEHIND, |len| (len * 2).max(64));
        let want = self.win.spare(self.chunk).len();
        loop {
            let n = self.read_source(want)?;
            if n > 0 || self.eof || self.cut.is_some() {
                return Ok(n);
            }
        }
    }

    /// The damage the stream stopped at, if it is stopped at one.
    pub(crate) fn cut(&self) -> Option<Cut> {
        self.cut
    }

    /// Drops the unread bytes before the cut and lets reading go on after it.
    pub(crate) fn pass_cut(&mut self) {
        if self.cut.take().is_some() {
            self.win.consume_all();
        }
    }

    /// Records damage: the member being read (or bytes that are no member, starting at
    /// `cstart`) is skipped up to `resume`, and the stream stops at decompressed offset
    /// `dpos` until the reader passes the cut.
    fn damage(&mut self, cstart: u64, resume: u64, at_eof: bool, why: &str, dpos: u64) {
        match self.members.back_mut() {
            Some(m) if m.cstart == cstart && m.cend.is_none() => {
                m.dend = Some(dpos);
                m.cend = Some(resume);
                m.damaged = true;
            }
            _ => self.members.push_back(Member {
                dstart: dpos,
                cstart,
                dend: Some(dpos),
                cend: Some(resume),
                damaged: true,
            }),
        }
        let member_dstart = self.members.back().map_or(dpos, |m| m.dstart);
        let skipped = resume - cstart;
        let codec = self.codec().unwrap_or(Codec::Gzip);
        let whereto = if at_eof {
            format!("no {} follows", codec.unit())
        } else {
            format!("reading resumes at offset {resume}")
        };
        self.anomalies.push(Anomaly {
            kind: codec.damaged_kind(),
            offset: cstart,
            message: format!(
                "{why}; bytes {cstart}..{resume} ({skipped} bytes) skipped, {whereto}"
            ),
        });
        self.cut = Some(Cut {
            dpos,
            member_dstart,
            member_cstart: cstart,
        });
    }

    /// Makes sure at least one byte is buffered unless at the end; returns false at the end.
    pub(crate) fn ensure(&mut self) -> Result<bool> {
        while self.win.unread().is_empty() {
            if self.fill()? == 0 {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// One read from the source into the window's next `want` free bytes; 0 with `eof`
    /// unset means "a member ended, call again".
    fn read_source(&mut self, want: usize) -> Result<usize> {
        let dpos = self.win.end_position();
        match &mut self.src {
            Source::Plain(r) => {
                let out = self.win.spare(want);
                let n = read_retry(r, out)?;
                if n == 0 {
                    self.eof = true;
                }
                self.win.filled(n);
                Ok(n)
            }
            Source::Members {
                codec,
                decoder,
                idle,
                spare,
                whole,
            } => {
                let codec = *codec;
                if decoder.is_none() {
                    let mut r = idle.take().expect("compressed source present");
                    while let Some(&(start, len)) = self.holes.front() {
                        if start > r.pos() {
                            break;
                        }
                        self.holes.pop_front();
                        if start == r.pos() {
                            skip_to(&mut r, start + len)?;
                            self.holes_skipped += 1;
                        }
                    }
                    let head = r.fill_at_least(8)?;
                    if head.is_empty() {
                        self.compressed_len_hint = r.pos();
                        *idle = Some(r);
                        self.eof = true;
                        return Ok(0);
                    }
                    if codec == Codec::Zstd {
                        if let Some((magic, size)) = zstd_frame::skippable_frame(head) {
                            let at = r.pos();
                            // WARC-zstd's dictionary frame is the file's first frame.
                            let dictionary = at == 0 && magic == zstd_frame::DICTIONARY_MAGIC;
                            let skipped = skip_frame(&mut r, size, dictionary);
                            self.compressed_len_hint = r.pos();
                            *idle = Some(r);
                            let message = match skipped {
                                Ok(Some(user_data)) => {
                                    match ZstdState::with_dictionary_frame(&user_data) {
                                        Ok(state) => {
                                            *spare = Some(CodecState::Zstd(state));
                                            return Ok(0);
                                        }
                                        Err(e) => e.to_string(),
                                    }
                                }
                                Ok(None) => return Ok(0),
                                Err(e) => e.to_string(),
                            };
                            // Without its dictionary (or past a frame that runs off the
                            // end) nothing more of the file can be decoded.
                            self.eof = true;
                            let kind = if dictionary {
                                ErrorKind::ZstdDictionary {
                                    frame_offset: at,
                                    message,
                                }
                            } else {
                                ErrorKind::Zstd {
                                    frame_offset: at,
                                    message,
                                }
                            };
                            self.error = Some(Error::at(kind, at));
                            return Ok(0);
                        }
                    }
                    let head = r.fill_at_least(codec.header_len())?;
                    if !codec.starts_unit(head) {
                        // No member where one should start: a damaged member header,
                        // or junk. Scan for the next member; without one it is junk at the end.
                        let at = r.pos();
                        let mut zeros = true;
                        let found = scan_for_member(&mut r, codec, &mut zeros)?;
                        let resume = r.pos();
                        self.compressed_len_hint = resume;
                        *idle = Some(r);
                        let unit = codec.unit();
                        if found && zeros {
                            // Quirk: NUL padding between members (block-aligned writers).
                            self.anomalies.push(Anomaly {
                                kind: AnomalyKind::GarbageBetweenRecords,
                                offset: at,
                                message: format!(
                                    "{} NUL bytes between {unit}s skipped",
                                    resume - at
                                ),
                            });
                            return Ok(0);
                        }
                        if found {
                            let why = format!("bytes that are not a {unit}");
                            self.damage(at, resume, false, &why, dpos);
                            return Ok(0);
                        }
                        // Quirk: zero padding or junk after the last member. Count it and stop.
                        self.anomalies.push(Anomaly {
                            kind: AnomalyKind::TrailingGarbage,
                            offset: at,
                            message: format!(
                                "{} bytes after the last {unit} are not {}",
                                resume - at,
                                codec.name()
                            ),
                        });
                        self.eof = true;
                        return Ok(0);
                    }
                    let cstart = r.pos();
                    if let Some(whole) = whole.as_mut() {
                        // The member in one call when it is whole in a read's worth of
                        // input and its data fit the window's free space (which may be
                        // more than `want`); otherwise it is streamed below.
                        let mut input = r.fill_at_least(self.chunk)?;
                        self.win
                            .free_up(KEEP_BEHIND, 2 * self.chunk, 4 * self.chunk);
                        let mut decoded = whole.decode(input, self.win.spare(usize::MAX));
                        if !matches!(decoded, Whole::Decoded { .. }) && input.len() >= self.chunk {
                            // Perhaps a member longer than the input held (its end
                            // missing reads as damage or as endless data): once more
                            // with the whole input window.
                            input = r.fill_at_least(4 * self.chunk)?;
                            decoded = whole.decode(input, self.win.spare(usize::MAX));
                        }
                        // Highly compressible records (megabytes of repeated markup) do
                        // not fit: the window grows, once for all, up to MAX_WHOLE_WINDOW,
                        // and gives all its free space.
                        if decoded == Whole::OutOfSpace {
                            if self.win.capacity() < MAX_WHOLE_WINDOW {
                                self.win.grow(MAX_WHOLE_WINDOW.min(4 * self.win.capacity()));
                            }
                            self.win.free_up(KEEP_BEHIND, usize::MAX, 0);
                            decoded = whole.decode(input, self.win.spare(usize::MAX));
                        }
                        if let Whole::Decoded { used, written: n } = decoded {
                            r.consume(used);
                            let cend = r.pos();
                            *idle = Some(r);
                            self.win.filled(n);
                            self.members.push_back(Member {
                                dstart: dpos,
                                cstart,
                                dend: Some(dpos + n as u64),
                                cend: Some(cend),
                                damaged: false,
                            });
                            if n == 0 {
                                self.anomalies.push(empty_member(cstart, cend));
                            }
                            return Ok(n);
                        }
                    }
                    self.members.push_back(Member {
                        dstart: dpos,
                        cstart,
                        dend: None,
                        cend: None,
                        damaged: false,
                    });
                    let state = match spare.take() {
                        Some(state) => state,
                        None => fresh_state(codec)?,
                    };
                    r.set_mark();
                    *decoder = Some(UnitDecoder::new(r, state));
                }
                let dec = decoder.as_mut().expect("decoder set");
                let n = match read_retry(dec, self.win.spare(want)) {
                    Ok(n) => n,
                    Err(e) => {
                        let trailer = dec.trailer_mismatch();
                        let (mut r, state) = decoder.take().expect("decoder set").into_parts();
                        *spare = Some(state);
                        let cstart = self.members.back().map_or(0, |m| m.cstart);
                        let failed_at = r.pos();
                        // After a CRC-32 or length mismatch the next member starts right
                        // after the trailer, unless the decoder ran past the member's end
                        // (then what follows is not a member header).
                        let next = r.fill_at_least(codec.header_len())?;
                        let exact = trailer && (next.is_empty() || codec.plausible(next));
                        let found = if exact {
                            !next.is_empty()
                        } else {
                            // From the member's second byte when it is still held (a
                            // member over MAX_KEEP is scanned on from where it failed);
                            // a decoder that failed before consuming anything is moved
                            // past the first byte, so the scan cannot find the same start.
                            if !r.rewind(cstart + 1) {
                                skip_to(&mut r, cstart + 1)?;
                            }
                            r.clear_mark();
                            scan_for_member(&mut r, codec, &mut false)?
                        };
                        r.clear_mark();
                        let resume = r.pos();
                        self.compressed_len_hint = resume;
                        *idle = Some(r);
                        if !found && e.kind() == io::ErrorKind::UnexpectedEof {
                            // The file ends inside the member: the bytes decoded before the
                            // end still make a (truncated) record, and the error follows it.
                            self.eof = true;
                            let message = e.to_string();
                            let kind = match codec {
                                Codec::Gzip => ErrorKind::Gzip {
                                    member_offset: cstart,
                                    message,
                                },
                                Codec::Zstd => ErrorKind::Zstd {
                                    frame_offset: cstart,
                                    message,
                                },
                            };
                            self.error = Some(Error::at(kind, failed_at));
                            return Ok(0);
                        }
                        self.damage(cstart, resume, !found, &e.to_string(), dpos);
                        return Ok(0);
                    }
                };
                if n > 0 {
                    self.win.filled(n);
                    return Ok(n);
                }
                // End of this member: hand the reader back and note where it ended.
                let (mut r, state) = decoder.take().expect("decoder set").into_parts();
                r.clear_mark();
                *spare = Some(state);
                let cend = r.pos();
                *idle = Some(r);
                if let Some(m) = self.members.back_mut() {
                    m.dend = Some(dpos);
                    m.cend = Some(cend);
                    // Empty zstd frames are allowed by WARC-zstd; an empty gzip member
                    // is a writer's quirk worth counting.
                    if m.dstart == dpos && codec == Codec::Gzip {
                        self.anomalies.push(empty_member(m.cstart, cend));
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

/// The anomaly of a gzip member from `cstart` to `cend` that holds no data.
fn empty_member(cstart: u64, cend: u64) -> Anomaly {
    Anomaly {
        kind: AnomalyKind::EmptyGzipMember,
        offset: cstart,
        message: format!("gzip member of {} bytes holds no data", cend - cstart),
    }
}

/// Consumes bytes of `r` up to file offset `to` (nothing when it is past it already).
fn skip_to<R: Read>(r: &mut CountingReader<R>, to: u64) -> io::Result<()> {
    while r.pos() < to {
        let n = r.fill_buf()?.len().min((to - r.pos()) as usize);
        if n == 0 {
            break;
        }
        r.consume(n);
    }
    Ok(())
}

/// A new decoder state for `codec`.
fn fresh_state(codec: Codec) -> Result<CodecState> {
    Ok(match codec {
        Codec::Gzip => CodecState::Gzip(InflateState::default()),
        Codec::Zstd => CodecState::Zstd(ZstdState::new()?),
    })
}

/// Consumes the skippable frame at the reader's position (its 8-byte head and `size`
/// bytes of user data) and returns the user data when `keep` (a dictionary frame).
fn skip_frame<R: Read>(
    r: &mut CountingReader<R>,
    size: u32,
    keep: bool,
) -> io::Result<Option<Vec<u8>>> {
    let size = size as usize;
    if keep && size > zstd_frame::MAX_DICTIONARY {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "a dictionary of {size} bytes is over the limit of {} bytes",
                zstd_frame::MAX_DICTIONARY
            ),
        ));
    }
    r.consume(8);
    let mut kept = Vec::new();
    let mut left = size;
    while left > 0 {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("skippable frame truncated ({left} of its {size} bytes missing)"),
            ));
        }
        let n = buf.len().min(left);
        if keep {
            kept.extend_from_slice(&buf[..n]);
        }
        r.consume(n);
        left -= n;
    }
    Ok(keep.then_some(kept))
}
