//! One zstd frame at a time (RFC 8878), for WARC-zstd files (the IIPC's "Zstandard
//! Compression for WARC Files 1.0": one or more frames per record, an optional
//! dictionary in a skippable frame with magic 0x184D2A5D at the start of the file,
//! other skippable frames ignored). The frame is decoded by libzstd (the `zstd` crate's
//! raw streaming decoder, already in the build through parquet), which checks the
//! frame's content checksum and stops exactly at the frame's end, so the caller sees
//! each frame's compressed extent as it sees a gzip member's.

use std::io::{self, BufRead, Read, Seek, SeekFrom};

use zstd::stream::raw::{Decoder, InBuffer, Operation, OutBuffer};

/// The first four bytes of a zstd frame (0xFD2FB528, little-endian).
pub const FRAME_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// The magic number of the WARC-zstd dictionary frame.
pub const DICTIONARY_MAGIC: u32 = 0x184d_2a5d;

/// The first four bytes of an uncompressed zstd dictionary (RFC 8878 section 5).
const DICTIONARY_CONTENT_MAGIC: [u8; 4] = [0x37, 0xa4, 0x30, 0xec];

/// The largest dictionary accepted, compressed or not. The specification asks readers
/// for 8 MiB; more is allowed, but a hostile size field must not allocate gigabytes.
pub const MAX_DICTIONARY: usize = 64 << 20;

/// The skippable frame starting `head`, if it starts one: its magic number and the
/// length of its user data (RFC 8878 section 3.1.2: magic 0x184D2A50..=0x184D2A5F,
/// then a four-byte little-endian size).
pub fn skippable_frame(head: &[u8]) -> Option<(u32, u32)> {
    if head.len() < 8 {
        return None;
    }
    let magic = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
    if magic & 0xffff_fff0 != 0x184d_2a50 {
        return None;
    }
    Some((
        magic,
        u32::from_le_bytes([head[4], head[5], head[6], head[7]]),
    ))
}

/// True when `b` starts with something a reader may take for a zstd frame: the magic
/// and a frame header descriptor whose reserved bit is clear.
pub fn plausible_frame(b: &[u8]) -> bool {
    b.len() >= 5 && b[..4] == FRAME_MAGIC && b[4] & 0x08 == 0
}

/// The frame decoder, kept from one frame to the next (with the file's dictionary
/// loaded in it, when the file has one).
pub struct ZstdState(Decoder<'static>);

impl ZstdState {
    /// A decoder without a dictionary.
    pub fn new() -> io::Result<Self> {
        Ok(ZstdState(Decoder::new()?))
    }

    /// A decoder with the dictionary held by a WARC-zstd dictionary frame's user data:
    /// either a raw zstd dictionary or one zstd frame that decompresses to it.
    pub fn with_dictionary_frame(user_data: &[u8]) -> io::Result<Self> {
        let dict = if user_data.starts_with(&FRAME_MAGIC) {
            let mut out = Vec::new();
            let mut dec = zstd::stream::read::Decoder::with_buffer(user_data)?.single_frame();
            (&mut dec)
                .take(MAX_DICTIONARY as u64 + 1)
                .read_to_end(&mut out)
                .map_err(|e| invalid(format!("compressed dictionary: {e}")))?;
            if out.len() > MAX_DICTIONARY {
                return Err(invalid(format!(
                    "the dictionary decompresses to more than {MAX_DICTIONARY} bytes"
                )));
            }
            out
        } else {
            user_data.to_vec()
        };
        if !dict.starts_with(&DICTIONARY_CONTENT_MAGIC) {
            // libzstd would take any bytes as a raw-content dictionary; the specification
            // allows only the dictionary format, so anything else is damage.
            return Err(invalid(
                "the dictionary frame holds no zstd dictionary (magic 0xEC30A437)".into(),
            ));
        }
        // libzstd reports a dictionary whose tables do not load as "Allocation error :
        // not enough memory" (ZSTD_createDDict gives no dictionary, and loading it says
        // so as an allocation failure); the dictionary is at most MAX_DICTIONARY bytes,
        // so it is the dictionary that is wrong.
        let d = Decoder::with_dictionary(&dict).map_err(|_| {
            invalid(format!(
                "its entropy tables do not load ({} bytes after the magic 0xEC30A437): it is corrupt or cut short",
                dict.len() - DICTIONARY_CONTENT_MAGIC.len()
            ))
        })?;
        Ok(ZstdState(d))
    }
}

/// The decoder for the frames of the WARC-zstd file stored in `f` from offset `start`
/// (0 for a file of its own): with the dictionary of its dictionary frame when it
/// starts with one. The caller seeks afterwards.
pub fn file_dictionary<F: Read + Seek>(f: &mut F, start: u64) -> io::Result<ZstdState> {
    f.seek(SeekFrom::Start(start))?;
    let mut head = [0u8; 8];
    let mut got = 0;
    while got < head.len() {
        match f.read(&mut head[got..])? {
            0 => break,
            n => got += n,
        }
    }
    match skippable_frame(&head[..got]) {
        Some((DICTIONARY_MAGIC, size)) if size as usize <= MAX_DICTIONARY => {
            let mut user_data = vec![0u8; size as usize];
            f.read_exact(&mut user_data)?;
            ZstdState::with_dictionary_frame(&user_data)
        }
        _ => ZstdState::new(),
    }
}

/// Decodes one zstd frame from `inner`; `read` returns 0 at the frame's end, after
/// libzstd checked the content checksum (when the frame has one).
pub struct FrameDecoder<R> {
    inner: R,
    state: ZstdState,
    done: bool,
}

impl<R: BufRead> FrameDecoder<R> {
    /// Starts a frame at the current position of `inner`, reusing `state`.
    pub fn new(inner: R, mut state: ZstdState) -> Self {
        // A session reset keeps the dictionary (it is a parameter, not session state);
        // it only fails when the context is broken, and then the first read fails too.
        let _ = state.0.reinit();
        FrameDecoder {
            inner,
            state,
            done: false,
        }
    }

    /// The underlying reader (positioned inside the frame while decoding).
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The reader (after the frame once `read` returned 0) and the decoder for the
    /// next frame.
    pub fn into_parts(self) -> (R, ZstdState) {
        (self.inner, self.state)
    }
}

impl<R: BufRead> Read for FrameDecoder<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.done || out.is_empty() {
            return Ok(0);
        }
        loop {
            let input = self.inner.fill_buf()?;
            let eof = input.is_empty();
            let mut src = InBuffer::around(input);
            let mut dst = OutBuffer::around(&mut *out);
            let hint = self
                .state
                .0
                .run(&mut src, &mut dst)
                .map_err(|e| invalid(format!("corrupt zstd frame: {e}")))?;
            let (consumed, produced) = (src.pos(), dst.pos());
            self.inner.consume(consumed);
            if hint == 0 {
                // libzstd returns 0 only once the frame is decoded, checked and flushed.
                self.done = true;
                return Ok(produced);
            }
            if produced > 0 {
                return Ok(produced);
            }
            if eof && consumed == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "zstd frame truncated",
                ));
            }
        }
    }
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(data: &[u8]) -> Vec<u8> {
        let mut e = zstd::stream::raw::Encoder::new(3).unwrap();
        e.set_parameter(zstd::stream::raw::CParameter::ChecksumFlag(true))
            .unwrap();
        let mut out = Vec::new();
        let mut w = zstd::stream::write::Encoder::with_encoder(&mut out, e);
        std::io::Write::write_all(&mut w, data).unwrap();
        w.finish().unwrap();
        out
    }

    fn decode_all(bytes: &[u8]) -> io::Result<Vec<Vec<u8>>> {
        let mut r = bytes;
        let mut state = ZstdState::new()?;
        let mut frames = Vec::new();
        while !r.is_empty() {
            let mut d = FrameDecoder::new(r, state);
            let mut out = Vec::new();
            d.read_to_end(&mut out)?;
            let (rest, s) = d.into_parts();
            r = rest;
            state = s;
            frames.push(out);
        }
        Ok(frames)
    }

    #[test]
    fn frames_one_by_one_with_state_reused() {
        let big: Vec<u8> = (0..300_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        let mut all = frame(b"hello ");
        all.extend(frame(&big));
        all.extend(frame(b""));
        let f = decode_all(&all).unwrap();
        assert_eq!(f, vec![b"hello ".to_vec(), big, Vec::new()]);
    }

    #[test]
    fn damage_is_an_error() {
        let good = frame(b"some data that is long enough to matter, some data");
        for cut in 1..good.len() {
            assert!(decode_all(&good[..cut]).is_err(), "cut at {cut}");
        }
        let mut bad_sum = good.clone();
        let n = bad_sum.len();
        bad_sum[n - 1] ^= 1;
        let e = decode_all(&bad_sum).unwrap_err();
        assert!(e.to_string().contains("checksum"), "{e}");
    }

    #[test]
    fn skippable_frames_and_plausible_headers() {
        let mut skip = 0x184d_2a5du32.to_le_bytes().to_vec();
        skip.extend(7u32.to_le_bytes());
        assert_eq!(skippable_frame(&skip), Some((DICTIONARY_MAGIC, 7)));
        assert_eq!(skippable_frame(&FRAME_MAGIC), None);
        assert!(plausible_frame(&frame(b"x")));
        assert!(!plausible_frame(&[0x28, 0xb5, 0x2f, 0xfd, 0x08]));
        assert!(ZstdState::with_dictionary_frame(b"not a dictionary").is_err());
    }
}
