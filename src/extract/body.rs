//! The HTTP entity body as a parser needs it: chunked transfer coding removed
//! (`crate::reader::chunked::dechunk`) and gzip, deflate, br or zstd content coding undone,
//! within a size cap ([`undo_codings`]; import's parse and an export's search for a page's
//! requisites both read bodies so). The stored bytes (what the digest covers) are not
//! changed; this is only for extracting text and links.

use std::borrow::Cow;
use std::io::Read;

/// The largest zstd window a body may ask for: 8 MiB, the limit RFC 9659 sets for
/// `Content-Encoding: zstd` (the decoder's own default would allow 128 MiB a body).
const ZSTD_WINDOW_LOG_MAX: u32 = 23;

/// The body of a payload stored under HTTP `transfer_encoding` and `content_encoding`:
/// chunked transfer coding removed, then content coding undone within `cap` bytes
/// ([`decode_content`]); either is kept as stored when it cannot be undone.
pub fn undo_codings<'a>(
    stored: &'a [u8],
    transfer_encoding: Option<&str>,
    content_encoding: Option<&str>,
    cap: usize,
) -> Cow<'a, [u8]> {
    let mut body = Cow::Borrowed(stored);
    if transfer_encoding.is_some_and(|t| t.to_ascii_lowercase().contains("chunked")) {
        if let Some(d) = crate::reader::chunked::dechunk(&body) {
            body = d.into();
        }
    }
    if let Some(ce) = content_encoding {
        if let Some(d) = decode_content(&body, ce, cap) {
            body = d.into();
        }
    }
    body
}

/// Undoes `gzip`, `deflate`, `br` (Brotli) or `zstd` content coding, reading at most
/// `cap` bytes of output. `None` for other codings or undecodable data (the caller then
/// keeps the bytes).
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
        // Browser-based crawlers (Browsertrix, Webrecorder) store what the browser
        // received, and browsers ask for Brotli.
        "br" => brotli_decompressor::Decompressor::new(raw, 1 << 12)
            .take(limit)
            .read_to_end(&mut out)
            .is_ok(),
        "zstd" => match zstd::stream::read::Decoder::new(raw) {
            Ok(mut d) => {
                d.window_log_max(ZSTD_WINDOW_LOG_MAX).is_ok()
                    && d.take(limit).read_to_end(&mut out).is_ok()
            }
            Err(_) => false,
        },
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
        assert_eq!(decode_content(&gz, "compress", 100), None);
    }

    #[test]
    fn unzstds_within_the_cap() {
        let page = b"<p>zstd body</p>".repeat(100);
        let z = zstd::stream::encode_all(&page[..], 3).unwrap();
        assert_eq!(decode_content(&z, "zstd", 1 << 20).unwrap(), page);
        assert_eq!(decode_content(&z, "ZSTD", 10).unwrap(), &page[..10]);
        // Not zstd at all: nothing decoded, the caller keeps the bytes.
        assert_eq!(decode_content(b"plain", "zstd", 100), None);
    }
}
