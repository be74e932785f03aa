//! The HTTP status line and headers at the start of a response, request or
//! revisit block, parsed the way warcio parses them (lines up to the first blank
//! line, continuation lines appended, no validation of the status line).

use std::ops::Range;

use super::bytes::{trim_end, trim_end_sp_ht, trim_start};
use super::fields::Fields;

/// A parsed HTTP head. Reused from record to record.
#[derive(Debug, Clone, Default)]
pub struct HttpHead {
    pub(crate) raw: Vec<u8>,
    pub(crate) protocol: Range<usize>,
    pub(crate) status_rest: Range<usize>,
    pub(crate) fields: Fields,
    /// The head ran past the size limit or to the end of the block without a blank line.
    pub(crate) unterminated: bool,
}

impl HttpHead {
    pub(crate) fn clear(&mut self) {
        self.raw.clear();
        self.fields.clear();
        self.protocol = 0..0;
        self.status_rest = 0..0;
        self.unterminated = false;
    }

    /// The head exactly as stored (status line, headers, blank line).
    pub fn raw(&self) -> &[u8] {
        &self.raw
    }

    /// The first word of the status line (`HTTP/1.1`, or the method of a request).
    pub fn protocol(&self) -> &[u8] {
        &self.raw[self.protocol.clone()]
    }

    /// The status line after the first word, trimmed (`200 OK`, or a request's target).
    pub fn status_line_rest(&self) -> &[u8] {
        &self.raw[self.status_rest.clone()]
    }

    /// The status code as written: the first word after the protocol (warcio's
    /// `get_statuscode`); it may not be a number in broken records.
    pub fn status_code(&self) -> &[u8] {
        let rest = self.status_line_rest();
        match memchr::memchr(b' ', rest) {
            Some(i) => &rest[..i],
            None => rest,
        }
    }

    /// The status code when it is three digits.
    pub fn status(&self) -> Option<u16> {
        let c = self.status_code();
        if c.len() == 3 && c.iter().all(u8::is_ascii_digit) {
            std::str::from_utf8(c).ok()?.parse().ok()
        } else {
            None
        }
    }

    /// All header fields in order, as (name, value).
    pub fn fields(&self) -> &Fields {
        &self.fields
    }

    /// True when the head has neither status text nor header fields (an empty first
    /// line, or a bare protocol): warcio treats such a head as absent.
    pub fn is_blank(&self) -> bool {
        self.status_rest.is_empty() && self.fields.is_empty()
    }

    /// Parses `raw` (already filled with whole lines) into status and fields.
    pub(crate) fn parse_raw(&mut self) {
        self.fields.clear();
        let raw = std::mem::take(&mut self.raw);
        let mut lines = LineIter { buf: &raw, pos: 0 };
        if let Some((s, e)) = lines.next() {
            let line = trim_end(&raw[s..e]);
            let line_end = s + line.len();
            match memchr::memchr(b' ', line) {
                Some(i) => {
                    self.protocol = s..s + i;
                    let rest = &raw[s + i + 1..line_end];
                    let lead = rest.len() - trim_start(rest).len();
                    self.status_rest = s + i + 1 + lead..line_end;
                }
                None => {
                    self.protocol = s..line_end;
                    self.status_rest = line_end..line_end;
                }
            }
        }
        // Whether a continuation line has a field to continue: not after the status
        // line, nor after a line without a colon (warcio drops both).
        let mut open = false;
        for (s, e) in lines {
            let line = trim_end(&raw[s..e]);
            if line.is_empty() {
                break;
            }
            if line[0] == b' ' || line[0] == b'\t' {
                // warcio appends continuation lines verbatim (leading white space kept).
                if open {
                    self.fields.continue_last(b"", line);
                }
                continue;
            }
            open = false;
            if let Some(c) = memchr::memchr(b':', line) {
                let name = trim_end_sp_ht(&line[..c]);
                self.fields.push(name, trim_start(&line[c + 1..]));
                open = true;
            }
        }
        self.raw = raw;
    }
}

struct LineIter<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl Iterator for LineIter<'_> {
    type Item = (usize, usize);
    fn next(&mut self) -> Option<(usize, usize)> {
        if self.pos >= self.buf.len() {
            return None;
        }
        let s = self.pos;
        let e = memchr::memchr(b'\n', &self.buf[s..]).map_or(self.buf.len(), |i| s + i + 1);
        self.pos = e;
        Some((s, e))
    }
}

/// The fields are read through the header ([`Fields::get`], [`Fields::get_str`], ...), as
/// jwarc's `MessageHeaders` serves both WARC and HTTP headers.
impl std::ops::Deref for HttpHead {
    type Target = Fields;

    fn deref(&self) -> &Fields {
        &self.fields
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &[u8]) -> HttpHead {
        let mut h = HttpHead::default();
        h.raw.extend_from_slice(s);
        h.parse_raw();
        h
    }

    #[test]
    fn status_and_headers() {
        let h = parse(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nX-A:  b\r\n  c\r\n\r\n",
        );
        assert_eq!(h.protocol(), b"HTTP/1.1");
        assert_eq!(h.status_code(), b"200");
        assert_eq!(h.status(), Some(200));
        assert_eq!(h.get("content-type").unwrap(), b"text/html; charset=utf-8");
        assert_eq!(h.get("x-a").unwrap(), b"b  c");
    }

    #[test]
    fn odd_status_lines() {
        assert_eq!(parse(b"HTTP/1.0 404\r\n\r\n").status(), Some(404));
        let h = parse(b"HTTP/1.1\r\n\r\n");
        assert_eq!(h.status_code(), b"");
        assert_eq!(h.status(), None);
    }
}
