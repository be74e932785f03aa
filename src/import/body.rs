//! The HTTP entity body as a parser needs it: gzip/deflate content coding undone,
//! within a size cap (chunked transfer coding is removed before, by
//! `crate::reader::chunked::dechunk`). The stored bytes (what the
//! digest covers) are not changed; this is only for extracting text and links.

use std::io::Read;

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
    fn gunzips() {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(b"<p>hi</p>").unwrap();
        let gz = e.finish().unwrap();
        assert_eq!(decode_content(&gz, "gzip", 100).unwrap(), b"<p>hi</p>");
        assert_eq!(decode_content(&gz, "br", 100), None);
    }
}
