//! The HTTP entity body as a parser needs it: chunked transfer coding removed and
//! gzip/deflate content coding undone, within a size cap. The stored bytes (what the
//! digest covers) are not changed; this is only for extracting text and links.

use std::io::Read;

/// Removes chunked transfer coding. `None` when the bytes are not valid chunked coding
/// (then the caller keeps them as they are: many archives store already de-chunked
/// bodies under a `Transfer-Encoding: chunked` header).
pub fn dechunk(raw: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(raw.len());
    let mut rest = raw;
    loop {
        let nl = memchr::memchr(b'\n', rest)?;
        let line = &rest[..nl];
        let hex = line.split(|&c| c == b';').next().unwrap_or_default();
        let hex = std::str::from_utf8(hex).ok()?.trim();
        let size = usize::from_str_radix(hex, 16).ok()?;
        rest = &rest[nl + 1..];
        if size == 0 {
            return Some(out);
        }
        if rest.len() < size {
            // A body cut by the size cap or the record's end: keep what is there.
            out.extend_from_slice(rest);
            return Some(out);
        }
        out.extend_from_slice(&rest[..size]);
        rest = &rest[size..];
        rest = rest
            .strip_prefix(b"\r\n")
            .or_else(|| rest.strip_prefix(b"\n"))
            .unwrap_or(rest);
        if rest.is_empty() {
            return Some(out);
        }
    }
}

/// Undoes `gzip` or `deflate` content coding, reading at most `cap` bytes of output.
/// `None` for other codings or undecodable data (the caller then keeps the bytes).
pub fn decode_content(raw: &[u8], coding: &str, cap: usize) -> Option<Vec<u8>> {
    let coding = coding.trim().to_ascii_lowercase();
    let mut out = Vec::new();
    let limit = cap as u64;
    let ok = match coding.as_str() {
        "gzip" | "x-gzip" => flate2::read::MultiGzDecoder::new(raw)
            .take(limit)
            .read_to_end(&mut out)
            .is_ok(),
        "deflate" => {
            // Servers send either zlib-wrapped or raw deflate under this name.
            let zlib = flate2::read::ZlibDecoder::new(raw)
                .take(limit)
                .read_to_end(&mut out)
                .is_ok();
            zlib || {
                out.clear();
                flate2::read::DeflateDecoder::new(raw)
                    .take(limit)
                    .read_to_end(&mut out)
                    .is_ok()
            }
        }
        _ => return None,
    };
    (ok || !out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dechunks() {
        assert_eq!(
            dechunk(b"5\r\nhello\r\n6;x=1\r\n world\r\n0\r\n\r\n").unwrap(),
            b"hello world"
        );
        assert_eq!(dechunk(b"<html>"), None);
        assert_eq!(dechunk(b"a\r\nabc").unwrap(), b"abc");
    }

    #[test]
    fn gunzips() {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(b"<p>hi</p>").unwrap();
        let gz = e.finish().unwrap();
        assert_eq!(decode_content(&gz, "gzip", 100).unwrap(), b"<p>hi</p>");
        assert_eq!(decode_content(&gz, "br", 100), None);
    }
}
