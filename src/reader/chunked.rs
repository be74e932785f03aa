//! The one decoder of HTTP chunked transfer coding (RFC 9112 §7.1): streaming, for
//! `--verify`'s de-chunked digest, and over a whole body for text extraction.
//!
//! Lenient where archives are: the CRLF after a chunk's data may be a bare LF or
//! missing, and a body cut short (by the record's end or a size cap) keeps the data
//! it has. A chunk-size line that is not hex ends the decoding; [`Dechunker::finish`]
//! then says the bytes were not chunked coding (many archives store bodies already
//! de-chunked under a `Transfer-Encoding: chunked` header).

use super::bytes::trim;

/// Where the decoder is in the coding.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Reading a chunk-size line (into `size_line`).
    #[default]
    Size,
    /// Inside a chunk's data (`remaining` bytes to go).
    Data,
    /// Just after a chunk's data: an optional CR, then an optional LF.
    DataEnd,
    /// After the CR that follows a chunk's data.
    DataEndCr,
    /// The last chunk (size 0) was read; trailers and the rest are ignored.
    Done,
    /// A chunk-size line was not hex: this is not chunked coding.
    Malformed,
}

/// Removes chunked transfer coding from bytes fed in pieces of any size.
#[derive(Debug, Default)]
pub struct Dechunker {
    state: State,
    size_line: Vec<u8>,
    remaining: u64,
    /// At least one chunk-size line was read.
    started: bool,
}

impl Dechunker {
    /// Decodes the next bytes of the body, handing the chunk data in them to `data`.
    pub fn feed(&mut self, mut b: &[u8], mut data: impl FnMut(&[u8])) {
        while !b.is_empty() {
            match self.state {
                State::Size => match memchr::memchr(b'\n', b) {
                    Some(i) => {
                        self.size_line.extend_from_slice(&b[..i]);
                        b = &b[i + 1..];
                        self.end_size_line();
                    }
                    None => {
                        self.size_line.extend_from_slice(b);
                        b = &[];
                    }
                },
                State::Data => {
                    let n = self.remaining.min(b.len() as u64) as usize;
                    data(&b[..n]);
                    self.remaining -= n as u64;
                    b = &b[n..];
                    if self.remaining == 0 {
                        self.state = State::DataEnd;
                    }
                }
                State::DataEnd => {
                    self.state = State::Size;
                    match b[0] {
                        b'\n' => b = &b[1..],
                        b'\r' => {
                            b = &b[1..];
                            self.state = State::DataEndCr;
                        }
                        // No line end after the data: the next size line starts here.
                        _ => {}
                    }
                }
                State::DataEndCr => {
                    self.state = State::Size;
                    if b[0] == b'\n' {
                        b = &b[1..];
                    } else {
                        // A lone CR belongs to the next size line (and is trimmed there).
                        self.size_line.push(b'\r');
                    }
                }
                State::Done | State::Malformed => b = &[],
            }
        }
    }

    fn end_size_line(&mut self) {
        self.started = true;
        let hex = self
            .size_line
            .split(|&c| c == b';')
            .next()
            .unwrap_or_default();
        let size = std::str::from_utf8(trim(hex))
            .ok()
            .and_then(|s| u64::from_str_radix(s, 16).ok());
        self.size_line.clear();
        self.state = match size {
            Some(0) => State::Done,
            Some(n) => {
                self.remaining = n;
                State::Data
            }
            None => State::Malformed,
        };
    }

    /// True when what was fed is chunked coding, whole or cut short: it reached the
    /// last chunk, or ended inside or right after a chunk's data. False for a size
    /// line that is not hex, one the input ends inside, or no size line at all.
    pub fn finish(&self) -> bool {
        match self.state {
            State::Done | State::Data | State::DataEnd => true,
            State::Size => self.started && self.size_line.is_empty(),
            State::DataEndCr | State::Malformed => false,
        }
    }
}

/// Removes chunked transfer coding from a whole body. `None` when the bytes are not
/// chunked coding (the caller then keeps them as they are).
pub fn dechunk(raw: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(raw.len());
    let mut d = Dechunker::default();
    d.feed(raw, |data| out.extend_from_slice(data));
    d.finish().then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_bodies() {
        assert_eq!(
            dechunk(b"5\r\nhello\r\n6;x=1\r\n world\r\n0\r\n\r\n").unwrap(),
            b"hello world"
        );
        assert_eq!(dechunk(b"4\nWiki\n5\npedia\n0\n").unwrap(), b"Wikipedia");
        assert_eq!(dechunk(b"4\r\nWiki5\r\npedia").unwrap(), b"Wikipedia");
        assert_eq!(dechunk(b"a\r\nabc").unwrap(), b"abc", "cut short");
        assert_eq!(dechunk(b"3\r\nabc\r\n").unwrap(), b"abc");
        assert_eq!(dechunk(b"<html>"), None);
        assert_eq!(dechunk(b""), None);
        assert_eq!(dechunk(b"3\r\nabc\r"), None, "ends inside the line end");
        assert_eq!(dechunk(b"3\r\nabc\r\n2"), None, "ends inside a size line");
        assert_eq!(dechunk(b"3\r\nabc\r\n\r\n"), None, "an empty size line");
    }

    #[test]
    fn any_split_gives_the_same_bytes() {
        let body = b"4\r\nWiki\r\n5;ext\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\n\r\n";
        let whole = dechunk(body).unwrap();
        assert_eq!(whole, b"Wikipedia in\r\n\r\nchunks.");
        for piece in 1..body.len() {
            let mut d = Dechunker::default();
            let mut out = Vec::new();
            for part in body.chunks(piece) {
                d.feed(part, |b| out.extend_from_slice(b));
            }
            assert!(d.finish());
            assert_eq!(out, whole, "pieces of {piece}");
        }
    }
}
