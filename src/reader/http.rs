//! The HTTP status line and headers at the start of a response, request or
//! revisit block, parsed the way warcio parses them (lines up to the first blank
//! line, continuation lines appended, no validation of the status line).

use std::borrow::Cow;
use std::ops::Range;

use super::header::decode;

/// A parsed HTTP head. Reused from record to record.
#[derive(Debug, Clone, Default)]
pub struct HttpHead {
    pub(crate) raw: Vec<u8>,
    pub(crate) protocol: Range<usize>,
    pub(crate) status_rest: Range<usize>,
    pub(crate) text: Vec<u8>,
    pub(crate) fields: Vec<(Range<usize>, Range<usize>)>,
    /// The head ran past the size limit or to the end of the block without a blank line.
    pub(crate) unterminated: bool,
}

impl HttpHead {
    pub(crate) fn clear(&mut self) {
        self.raw.clear();
        self.text.clear();
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
    pub fn fields(&self) -> impl Iterator<Item = (&[u8], &[u8])> {
        self.fields
            .iter()
            .map(|(n, v)| (&self.text[n.clone()], &self.text[v.clone()]))
    }

    /// The first value of header `name` (ASCII case-insensitive).
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.fields()
            .find(|(n, _)| n.eq_ignore_ascii_case(name.as_bytes()))
            .map(|(_, v)| v)
    }

    /// The first value of `name`, decoded (UTF-8, else Latin-1).
    pub fn get_str(&self, name: &str) -> Option<Cow<'_, str>> {
        self.get(name).map(decode)
    }

    /// True when the head has neither status text nor header fields (an empty first
    /// line, or a bare protocol): warcio treats such a head as absent.
    pub fn is_blank(&self) -> bool {
        self.status_rest.is_empty() && self.fields.is_empty()
    }

    /// True when the head had no terminating blank line within the block or limit.
    pub fn is_unterminated(&self) -> bool {
        self.unterminated
    }

    /// Parses `raw` (already filled with whole lines) into status and fields.
    pub(crate) fn parse_raw(&mut self) {
        self.text.clear();
        self.fields.clear();
        let raw = std::mem::take(&mut self.raw);
        let mut lines = LineIter { buf: &raw, pos: 0 };
        if let Some((s, e)) = lines.next() {
            let line = rstrip(&raw[s..e]);
            let line_end = s + line.len();
            match memchr::memchr(b' ', line) {
                Some(i) => {
                    self.protocol = s..s + i;
                    let rest = &raw[s + i + 1..line_end];
                    let lead = rest.len() - lstrip(rest).len();
                    self.status_rest = s + i + 1 + lead..line_end;
                }
                None => {
                    self.protocol = s..line_end;
                    self.status_rest = line_end..line_end;
                }
            }
        }
        let mut pending: Option<(Range<usize>, Vec<u8>)> = None;
        for (s, e) in lines {
            let line = rstrip(&raw[s..e]);
            if line.is_empty() {
                break;
            }
            if line[0] == b' ' || line[0] == b'\t' {
                // warcio appends continuation lines verbatim (leading white space kept).
                if let Some((_, v)) = pending.as_mut() {
                    v.extend_from_slice(line);
                }
                continue;
            }
            if let Some((n, v)) = pending.take() {
                self.push(&raw[n], &v);
            }
            if let Some(c) = memchr::memchr(b':', line) {
                let name_end = s + rstrip_sp_tab(&line[..c]).len();
                pending = Some((s..name_end, lstrip(&line[c + 1..]).to_vec()));
            }
        }
        if let Some((n, v)) = pending.take() {
            self.push(&raw[n], &v);
        }
        self.raw = raw;
    }

    fn push(&mut self, name: &[u8], value: &[u8]) {
        let n0 = self.text.len();
        self.text.extend_from_slice(name);
        let n1 = self.text.len();
        self.text.extend_from_slice(value);
        self.fields.push((n0..n1, n1..self.text.len()));
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

/// Python's `str.rstrip()` on ASCII white space.
pub(crate) fn rstrip(v: &[u8]) -> &[u8] {
    let end = v
        .iter()
        .rposition(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c))
        .map_or(0, |e| e + 1);
    &v[..end]
}

fn lstrip(v: &[u8]) -> &[u8] {
    let s = v
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c))
        .unwrap_or(v.len());
    &v[s..]
}

fn rstrip_sp_tab(v: &[u8]) -> &[u8] {
    let end = v
        .iter()
        .rposition(|b| !matches!(b, b' ' | b'\t'))
        .map_or(0, |e| e + 1);
    &v[..end]
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
