//! One gzip member at a time (RFC 1952): the header parsed here, the deflate body by
//! `flate2::Decompress` (zlib-rs), the CRC-32 by `crc32fast`.
//!
//! Why not `flate2::bufread::GzDecoder`: it allocates a fresh inflate state per member
//! (web archives have one member per record, so hundreds of thousands per file) and, with
//! the zlib-rs backend, checks the CRC with a table-driven loop that took an eighth of
//! the decoding time; `crc32fast` picks the CPU's carry-less multiply at run time and the
//! inflate state here is reset, not reallocated. Like `GzDecoder`, a member stops exactly
//! at its end, so the caller sees each member's compressed extent.

use std::io::{self, BufRead, Read};

use flate2::{Decompress, FlushDecompress, Status};

const FTEXT: u8 = 0x01;
const FHCRC: u8 = 0x02;
const FEXTRA: u8 = 0x04;
const FNAME: u8 = 0x08;
const FCOMMENT: u8 = 0x10;

/// Decodes one gzip member from `inner`; `read` returns 0 at the member's end, after
/// the trailer's CRC-32 and length were checked.
pub struct MemberDecoder<R> {
    inner: R,
    state: Box<Decompress>,
    crc: crc32fast::Hasher,
    header_done: bool,
    done: bool,
    trailer_mismatch: bool,
}

/// A spare inflate state, handed from one member to the next.
pub struct InflateState(Box<Decompress>);

impl Default for InflateState {
    fn default() -> Self {
        InflateState(Box::new(Decompress::new(false)))
    }
}

impl<R: BufRead> MemberDecoder<R> {
    /// Starts a member at the current position of `inner`, reusing `state`.
    pub fn new(inner: R, state: InflateState) -> Self {
        let mut state = state.0;
        state.reset(false);
        MemberDecoder {
            inner,
            state,
            crc: crc32fast::Hasher::new(),
            header_done: false,
            done: false,
            trailer_mismatch: false,
        }
    }

    /// The underlying reader (positioned inside the member while decoding).
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// True when `read` failed because the trailer's CRC-32 or length did not match the
    /// data: the reader is then just past the trailer, where the next member should start.
    pub fn trailer_mismatch(&self) -> bool {
        self.trailer_mismatch
    }

    /// The reader (after the member's trailer once `read` returned 0) and the inflate
    /// state for the next member.
    pub fn into_parts(self) -> (R, InflateState) {
        (self.inner, InflateState(self.state))
    }

    fn read_header(&mut self) -> io::Result<()> {
        let mut fixed = [0u8; 10];
        read_exact_or(&mut self.inner, &mut fixed, "gzip header")?;
        if fixed[0] != 0x1f || fixed[1] != 0x8b {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "not a gzip member (bad magic bytes)",
            ));
        }
        if fixed[2] != 8 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("gzip compression method {} is not deflate", fixed[2]),
            ));
        }
        let flags = fixed[3] & !FTEXT;
        if flags & FEXTRA != 0 {
            let mut len = [0u8; 2];
            read_exact_or(&mut self.inner, &mut len, "gzip FEXTRA length")?;
            let mut extra = vec![0u8; u16::from_le_bytes(len) as usize];
            read_exact_or(&mut self.inner, &mut extra, "gzip FEXTRA field")?;
        }
        for flag in [FNAME, FCOMMENT] {
            if flags & flag != 0 {
                // Skipped in place, not collected: a damaged header can run for megabytes
                // before a NUL, and memory must not grow with it.
                loop {
                    let buf = self.inner.fill_buf()?;
                    if buf.is_empty() {
                        return Err(truncated("gzip header name or comment"));
                    }
                    match memchr::memchr(0, buf) {
                        Some(i) => {
                            self.inner.consume(i + 1);
                            break;
                        }
                        None => {
                            let n = buf.len();
                            self.inner.consume(n);
                        }
                    }
                }
            }
        }
        if flags & FHCRC != 0 {
            let mut crc = [0u8; 2];
            read_exact_or(&mut self.inner, &mut crc, "gzip header CRC")?;
        }
        self.header_done = true;
        Ok(())
    }

    fn read_trailer(&mut self) -> io::Result<()> {
        let mut t = [0u8; 8];
        read_exact_or(&mut self.inner, &mut t, "gzip trailer")?;
        let crc = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
        let size = u32::from_le_bytes([t[4], t[5], t[6], t[7]]);
        let want = std::mem::take(&mut self.crc).finalize();
        if crc != want {
            self.trailer_mismatch = true;
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("gzip CRC-32 mismatch (stored {crc:08x}, data {want:08x})"),
            ));
        }
        if size != self.state.total_out() as u32 {
            self.trailer_mismatch = true;
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "gzip length mismatch (ISIZE differs from the data)",
            ));
        }
        Ok(())
    }
}

impl<R: BufRead> Read for MemberDecoder<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.done || out.is_empty() {
            return Ok(0);
        }
        if !self.header_done {
            self.read_header()?;
        }
        loop {
            let input = self.inner.fill_buf()?;
            let eof = input.is_empty();
            let (in0, out0) = (self.state.total_in(), self.state.total_out());
            let status = self
                .state
                .decompress(input, out, FlushDecompress::None)
                .map_err(|e| {
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("corrupt deflate stream: {e}"),
                    )
                })?;
            let consumed = (self.state.total_in() - in0) as usize;
            let produced = (self.state.total_out() - out0) as usize;
            self.inner.consume(consumed);
            self.crc.update(&out[..produced]);
            if status == Status::StreamEnd {
                self.read_trailer()?;
                self.done = true;
                return Ok(produced);
            }
            if produced > 0 {
                return Ok(produced);
            }
            if eof && consumed == 0 {
                return Err(truncated("deflate stream"));
            }
        }
    }
}

fn truncated(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, format!("{what} truncated"))
}

fn read_exact_or<R: Read>(r: &mut R, buf: &mut [u8], what: &str) -> io::Result<()> {
    r.read_exact(buf).map_err(|e| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            truncated(what)
        } else {
            e
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::{write::GzEncoder, Compression, GzBuilder};
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn decode_all(bytes: &[u8]) -> io::Result<Vec<Vec<u8>>> {
        let mut r = bytes;
        let mut state = InflateState::default();
        let mut members = Vec::new();
        while !r.is_empty() {
            let mut d = MemberDecoder::new(r, state);
            let mut out = Vec::new();
            d.read_to_end(&mut out)?;
            let (rest, s) = d.into_parts();
            r = rest;
            state = s;
            members.push(out);
        }
        Ok(members)
    }

    #[test]
    fn members_one_by_one_with_state_reused() {
        let mut all = gz(b"hello ");
        let big: Vec<u8> = (0..200_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        all.extend(gz(&big));
        all.extend(gz(b""));
        let m = decode_all(&all).unwrap();
        assert_eq!(m, vec![b"hello ".to_vec(), big, Vec::new()]);
    }

    #[test]
    fn header_fields_are_skipped() {
        let mut e = GzBuilder::new()
            .extra(vec![1, 2, 3])
            .filename("x.warc")
            .comment("c")
            .write(Vec::new(), Compression::fast());
        e.write_all(b"payload").unwrap();
        let m = decode_all(&e.finish().unwrap()).unwrap();
        assert_eq!(m, vec![b"payload".to_vec()]);
    }

    #[test]
    fn damage_is_an_error() {
        let good = gz(b"some data that is long enough to matter");
        for cut in 1..good.len() {
            assert!(decode_all(&good[..cut]).is_err(), "cut at {cut}");
        }
        let mut bad_crc = good.clone();
        let n = bad_crc.len();
        bad_crc[n - 8] ^= 1;
        let e = decode_all(&bad_crc).unwrap_err();
        assert!(e.to_string().contains("CRC"), "{e}");
    }
}
