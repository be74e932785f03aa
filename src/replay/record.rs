//! One record read from its archive by the offset and length the CDX gives: its WARC
//! header fields that replay needs, its HTTP head, and its payload as a stream with the
//! chunked transfer coding removed (content coding is kept: see `body.rs`).

use crate::reader::location::ArchiveLocation;
use std::io::{self, Read};

use crate::reader::chunked::Dechunker;
use crate::reader::ReaderOptions;

/// What replay needs of a record's headers.
#[derive(Debug, Clone, Default)]
pub struct RecordHead {
    /// `response`, `revisit`, `resource`, … (warcio's names).
    pub record_type: String,
    /// `WARC-Refers-To-Target-URI` of a revisit.
    pub refers_to_uri: Option<String>,
    /// `WARC-Refers-To-Date` of a revisit, as 14 digits.
    pub refers_to_date: Option<String>,
    /// The archived HTTP status; `None` for a record without an HTTP head (a
    /// `resource`), replayed as 200.
    pub status: Option<u16>,
    /// The archived HTTP header fields in order (or, without an HTTP head, the record's
    /// `Content-Type`).
    pub headers: Vec<(String, Vec<u8>)>,
}

impl RecordHead {
    /// The first value of a header field (names compared without case).
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        (self.headers.iter())
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_slice())
    }

    /// The first value of a header field as text (lossy), trimmed.
    pub fn header_str(&self, name: &str) -> Option<String> {
        self.header(name)
            .map(|v| String::from_utf8_lossy(v).trim().to_string())
    }
}

/// Why a record could not be read.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The archive could not be read at that offset.
    #[error("{path}: offset {offset}")]
    Read {
        /// The archive.
        path: String,
        /// The record's offset.
        offset: u64,
        /// What went wrong.
        source: crate::reader::error::Error,
    },
    /// No record starts there.
    #[error("{path}: offset {offset}: no record there")]
    Missing {
        /// The archive.
        path: String,
        /// The offset given.
        offset: u64,
    },
}

/// The largest record head read for replay (the reader's default allows more, for
/// indexing damaged archives; a replay request holds its buffers only while it runs).
const MAX_HEAD: usize = 1 << 20;

/// Reads the record of the archive at `at`, offset `offset` (`length` stored bytes; 0
/// when unknown) and hands its head and its payload stream (chunked coding removed) to
/// `f`.
pub fn with_record<T>(
    at: &ArchiveLocation,
    offset: u64,
    length: u64,
    f: impl FnOnce(&RecordHead, &mut dyn Read) -> T,
) -> Result<T, RecordError> {
    let path = at.display();
    let read_err = |source| RecordError::Read {
        path: path.display().to_string(),
        offset,
        source,
    };
    let opts = ReaderOptions {
        buffer_size: 64 * 1024,
        max_header: MAX_HEAD,
    };
    let len = if length == 0 {
        u64::MAX - offset
    } else {
        length
    };
    let mut reader = at.open_range(offset, len, opts).map_err(read_err)?;
    let Some(mut rec) = reader.next_record().map_err(read_err)? else {
        return Err(RecordError::Missing {
            path: path.display().to_string(),
            offset,
        });
    };
    let h = rec.header();
    let mut head = RecordHead {
        record_type: rec.type_name().into_owned(),
        refers_to_uri: h
            .fields()
            .get_str("WARC-Refers-To-Target-URI")
            .map(|s| s.trim().to_string()),
        refers_to_date: h
            .fields()
            .get_str("WARC-Refers-To-Date")
            .map(|s| crate::reader::date::iso_to_14(s.trim())),
        ..RecordHead::default()
    };
    let content_type = h.fields().get("Content-Type").map(<[u8]>::to_vec);
    match rec.http().map_err(read_err)? {
        Some(http) => {
            head.status = http.status();
            head.headers = (http.fields().iter())
                .map(|(n, v)| (String::from_utf8_lossy(n).into_owned(), v.to_vec()))
                .collect();
        }
        None => {
            if let Some(ct) = content_type {
                head.headers.push(("Content-Type".into(), ct));
            }
        }
    }
    let chunked = (head.header_str("Transfer-Encoding"))
        .is_some_and(|t| t.to_ascii_lowercase().contains("chunked"));
    if chunked {
        let mut body = Dechunked::new(&mut rec);
        Ok(f(&head, &mut body))
    } else {
        Ok(f(&head, &mut rec))
    }
}

/// A payload under `Transfer-Encoding: chunked`, de-chunked as it is read; passed
/// through unchanged when it does not start with a chunk-size line (many archives store
/// the body already de-chunked under that header).
struct Dechunked<R> {
    inner: R,
    dechunker: Dechunker,
    /// `None` until the first bytes are seen; then whether they are chunked coding.
    chunked: Option<bool>,
    pending: Vec<u8>,
    at: usize,
    buf: Vec<u8>,
}

impl<R: Read> Dechunked<R> {
    fn new(inner: R) -> Self {
        Dechunked {
            inner,
            dechunker: Dechunker::default(),
            chunked: None,
            pending: Vec::new(),
            at: 0,
            buf: vec![0; 16 * 1024],
        }
    }
}

/// Whether `b` starts with a chunk-size line: hex digits, maybe an extension, a line end.
fn starts_chunked(b: &[u8]) -> bool {
    let hex = b.iter().take_while(|c| c.is_ascii_hexdigit()).count();
    hex > 0 && hex <= 16 && matches!(b.get(hex), Some(b'\r' | b'\n' | b';' | b' ' | b'\t'))
}

impl<R: Read> Read for Dechunked<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.at < self.pending.len() {
                let n = out.len().min(self.pending.len() - self.at);
                out[..n].copy_from_slice(&self.pending[self.at..self.at + n]);
                self.at += n;
                return Ok(n);
            }
            let n = self.inner.read(&mut self.buf)?;
            if n == 0 {
                return Ok(0);
            }
            let chunked = *self
                .chunked
                .get_or_insert_with(|| starts_chunked(&self.buf[..n]));
            self.pending.clear();
            self.at = 0;
            if !chunked {
                self.pending.extend_from_slice(&self.buf[..n]);
                continue;
            }
            let pending = &mut self.pending;
            self.dechunker
                .feed(&self.buf[..n], |d| pending.extend_from_slice(d));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(raw: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        Dechunked::new(raw).read_to_end(&mut out).unwrap();
        out
    }

    #[test]
    fn dechunks_or_passes_through() {
        assert_eq!(
            read_all(b"5\r\nhello\r\n6;x=y\r\n world\r\n0\r\n\r\n"),
            b"hello world"
        );
        assert_eq!(
            read_all(b"<html>already plain</html>"),
            b"<html>already plain</html>"
        );
        assert_eq!(read_all(b""), b"");
    }
}
