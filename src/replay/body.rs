//! A capture's answer: the archived status and headers made safe to replay, and the
//! payload streamed as it is (`id_`, and everything but pages and stylesheets) or
//! decoded and rewritten (`mp_` HTML and CSS).

use std::io::{self, Read};

use super::archival_url::Mode;
use super::record::RecordHead;
use super::rewrite::parent_links::keep_parent_links;
use super::rewrite::{css::rewrite_css, html::rewrite_html, url::UrlRewriter};
use crate::reader::content_type::ContentType;

/// The status and headers a capture is answered with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayHead {
    /// The archived status (200 when the record has none or an impossible one).
    pub status: u16,
    /// Header fields, in the archived order.
    pub headers: Vec<(String, Vec<u8>)>,
}

/// Archived headers passed on under their own name; every other one is sent as
/// `X-Archive-Orig-NAME` (the Wayback convention), so that it is seen but has no effect
/// (cookies, HSTS, the site's CSP, preload links to the live web, frame denial).
const PASSED: &[&str] = &[
    "content-type",
    "content-encoding",
    "content-language",
    "content-disposition",
    "last-modified",
];
/// Hop-by-hop and length fields: about the archived transfer, not the payload.
const DROPPED: &[&str] = &[
    "transfer-encoding",
    "content-length",
    "connection",
    "keep-alive",
    "te",
    "trailer",
    "upgrade",
    "proxy-connection",
];
/// Archived header fields sent, at most (a record can hold any number).
const MAX_HEADERS: usize = 100;
/// The longest archived header value sent.
const MAX_HEADER_VALUE: usize = 8192;
/// The most of a stylesheet gathered to rewrite; beyond it the rest is sent as it is.
const MAX_CSS: usize = 8 << 20;

/// Archived headers an `ir_` answer passes under their own name, for the client-side
/// rewriter to keep or rewrite (wabac.js reads these). Every other one is sent as
/// `X-Archive-Orig-NAME`: an archived `Clear-Site-Data` would wipe the replay origin's
/// service worker, `NEL` or `Report-To` would send the browser's reports to the live
/// web, `Access-Control-*` would speak for this server.
const RAW_PASSED: &[&str] = &[
    "content-type",
    "content-language",
    "content-disposition",
    "content-location",
    "last-modified",
    "link",
    "accept-ranges",
    "x-content-type-options",
];

/// What to do with the payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Treatment {
    AsStored,
    /// Content coding undone, nothing rewritten (`ir_`).
    Decoded,
    /// An `ir_` page: decoded, its links up the tree kept relative for wabac.js
    /// (`rewrite::parent_links`).
    RawHtml,
    Html,
    Css,
}

fn media_type(head: &RecordHead) -> String {
    let value = head.header_str("Content-Type").unwrap_or_default();
    ContentType::new(&value).media_type()
}

/// The `charset` parameter of the Content-Type, as an encoding lol_html can stream.
fn charset(head: &RecordHead) -> &'static encoding_rs::Encoding {
    let value = head.header_str("Content-Type").unwrap_or_default();
    (ContentType::new(&value).charset())
        .and_then(|label| encoding_rs::Encoding::for_label(label.as_bytes()))
        .unwrap_or(encoding_rs::UTF_8)
}

fn treatment(head: &RecordHead, mode: Mode) -> Treatment {
    match mode {
        Mode::Identity => return Treatment::AsStored,
        Mode::Raw => {
            return match media_type(head).as_str() {
                "text/html" | "application/xhtml+xml" if charset(head).is_ascii_compatible() => {
                    Treatment::RawHtml
                }
                _ => Treatment::Decoded,
            }
        }
        _ => {}
    }
    match media_type(head).as_str() {
        "text/html" | "application/xhtml+xml" => match charset(head).is_ascii_compatible() {
            true => Treatment::Html,
            // UTF-16 pages are rare and lol_html cannot stream them: sent unrewritten
            // (the Content-Security-Policy still keeps them from the live web).
            false => Treatment::AsStored,
        },
        "text/css" => Treatment::Css,
        _ => Treatment::AsStored,
    }
}

/// The status and headers of a capture replayed in `mode`; `decoded` when its content
/// coding is undone (the payload is rewritten), so `Content-Encoding` must go.
fn replay_head(head: &RecordHead, mode: Mode, decoded: bool, rw: &UrlRewriter) -> ReplayHead {
    if mode == Mode::Raw {
        return raw_head(head, decoded, &rw.base);
    }
    let status = (head.status)
        .filter(|s| (200..=599).contains(s))
        .unwrap_or(200);
    // An `id_` payload is sent unrewritten: a page's `<meta http-equiv=refresh>`, an
    // SVG's link or a PDF's would take the reader's browser to the live web (a
    // Content-Security-Policy does not stop a refresh in every browser). So only what
    // holds no way off the server is shown; the rest is sent to be saved.
    let attachment = mode == Mode::Identity && !inert(&media_type(head));
    let mut headers = Vec::new();
    for (name, value) in head.headers.iter().take(MAX_HEADERS) {
        let lower = name.to_ascii_lowercase();
        if DROPPED.contains(&lower.as_str()) || value.len() > MAX_HEADER_VALUE {
            continue;
        }
        if lower == "content-encoding" && decoded {
            continue;
        }
        if lower == "location" {
            // A redirect stays in its mode: inside the view's frame it goes on in the
            // frame (the top page follows a redirect itself, `serve/web.rs`).
            let target = String::from_utf8_lossy(value);
            if let Some(new) = rw.rewrite(&target, mode).filter(|n| !n.is_empty()) {
                headers.push(("Location".to_string(), new.into_bytes()));
            }
            continue;
        }
        if lower == "content-disposition" && attachment {
            headers.push((format!("X-Archive-Orig-{name}"), value.clone()));
            continue;
        }
        if PASSED.contains(&lower.as_str()) {
            headers.push((name.clone(), value.clone()));
        } else {
            headers.push((format!("X-Archive-Orig-{name}"), value.clone()));
        }
    }
    if attachment {
        headers.push(("Content-Disposition".to_string(), b"attachment".to_vec()));
    }
    ReplayHead { status, headers }
}

/// The head of an `ir_` answer, as wabac.js's live-proxy source reads it (pywb's
/// convention): a redirect is answered 200 with `X-Redirect-Status` and
/// `X-Orig-Location` (its target resolved against `base`, the archived URL), so that the
/// service worker's `fetch` does not follow it but replays it; archived cookies are
/// `X-Proxy-Set-Cookie` (a browser hides `Set-Cookie` from `fetch`, and must not set them
/// on the replay origin).
fn raw_head(head: &RecordHead, decoded: bool, base: &url::Url) -> ReplayHead {
    let mut status = (head.status)
        .filter(|s| (200..=599).contains(s))
        .unwrap_or(200);
    let mut headers = Vec::new();
    let mut cookies: Vec<u8> = Vec::new();
    for (name, value) in head.headers.iter().take(MAX_HEADERS) {
        let lower = name.to_ascii_lowercase();
        if DROPPED.contains(&lower.as_str()) || value.len() > MAX_HEADER_VALUE {
            continue;
        }
        match lower.as_str() {
            "content-encoding" if decoded => {}
            "set-cookie" => {
                if !cookies.is_empty() {
                    cookies.push(b',');
                }
                cookies.extend_from_slice(value);
            }
            "location" if (300..400).contains(&status) => {
                let target = String::from_utf8_lossy(value);
                if let Ok(to) = base.join(target.trim()) {
                    if matches!(to.scheme(), "http" | "https") {
                        headers.push(("X-Orig-Location".to_string(), to.as_str().into()));
                        headers.push(("X-Redirect-Status".to_string(), status.to_string().into()));
                        status = 200;
                    }
                }
            }
            l if RAW_PASSED.contains(&l) || (l == "content-encoding" && !decoded) => {
                headers.push((name.clone(), value.clone()))
            }
            _ => headers.push((format!("X-Archive-Orig-{name}"), value.clone())),
        }
    }
    if !cookies.is_empty() && cookies.len() <= MAX_HEADER_VALUE {
        headers.push(("X-Proxy-Set-Cookie".to_string(), cookies));
    }
    ReplayHead { status, headers }
}

/// Whether a payload of this media type, shown by a browser as it is, has no way to
/// send the reader elsewhere (no markup, no links, no script): raster images, sound,
/// video, plain text, stylesheets and scripts (shown as text: the answer says
/// `nosniff`), fonts. Anything else, an unknown or missing type included, is not.
fn inert(media_type: &str) -> bool {
    let (kind, sub) = media_type.split_once('/').unwrap_or((media_type, ""));
    match kind {
        "image" => !sub.contains("svg") && !sub.contains("xml"),
        "audio" | "video" | "font" => true,
        "text" => matches!(sub, "plain" | "css" | "javascript" | "csv"),
        "application" => matches!(sub, "json" | "javascript" | "font-woff" | "wasm"),
        _ => false,
    }
}

/// Replays a record's payload: calls `on_head` with the answer's status and headers,
/// then hands the body to `sink` piece by piece. An error of `sink` (the client went
/// away) ends it.
pub fn replay(
    head: &RecordHead,
    body: &mut dyn Read,
    mode: Mode,
    rw: UrlRewriter,
    on_head: impl FnOnce(ReplayHead),
    sink: &mut dyn FnMut(&[u8]) -> io::Result<()>,
) -> io::Result<()> {
    let how = treatment(head, mode);
    let coding = head
        .header_str("Content-Encoding")
        .unwrap_or_default()
        .to_ascii_lowercase();
    let how = match how {
        Treatment::AsStored => how,
        _ if can_decode(&coding) => how,
        _ => Treatment::AsStored,
    };
    let how = match (how, coding.trim()) {
        // Nothing to undo: the stored bytes as they are.
        (Treatment::Decoded, "" | "identity") => Treatment::AsStored,
        _ => how,
    };
    on_head(replay_head(head, mode, how != Treatment::AsStored, &rw));
    if how == Treatment::AsStored {
        return copy(body, sink);
    }
    let Some(mut input) = decoder(&coding, body) else {
        return Ok(());
    };
    match how {
        Treatment::Html => rewrite_html(&mut input, charset(head), rw, sink),
        Treatment::Decoded => copy(&mut input, sink),
        Treatment::RawHtml => keep_parent_links(&mut input, charset(head), sink),
        _ => {
            let mut css = Vec::new();
            (&mut input).take(MAX_CSS as u64).read_to_end(&mut css)?;
            sink(&rewrite_css(&css, &rw))?;
            copy(&mut input, sink)
        }
    }
}

/// Whether [`decoder`] undoes `coding`.
fn can_decode(coding: &str) -> bool {
    matches!(
        coding.trim(),
        "" | "identity" | "gzip" | "x-gzip" | "deflate" | "br" | "zstd"
    )
}

/// The payload with its content coding undone, streaming; `None` for a coding this
/// cannot undo (the payload is then sent as stored, with its `Content-Encoding`).
fn decoder<'a>(coding: &str, body: &'a mut dyn Read) -> Option<Box<dyn Read + 'a>> {
    Some(match coding.trim() {
        "" | "identity" => Box::new(body),
        "gzip" | "x-gzip" => Box::new(flate2::read::MultiGzDecoder::new(body)),
        // Servers send zlib-wrapped deflate under this name, and sometimes raw deflate;
        // the zlib form is the standard's and by far the more common.
        "deflate" => Box::new(flate2::read::ZlibDecoder::new(body)),
        "br" => Box::new(brotli_decompressor::Decompressor::new(body, 1 << 14)),
        "zstd" => {
            let mut d = zstd::stream::read::Decoder::new(body).ok()?;
            // RFC 9659's window limit, as for extraction (src/extract/body.rs).
            d.window_log_max(23).ok()?;
            Box::new(d)
        }
        _ => return None,
    })
}

fn copy(input: &mut dyn Read, sink: &mut dyn FnMut(&[u8]) -> io::Result<()>) -> io::Result<()> {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            // A payload cut short or undecodable is sent as far as it goes.
            Err(_) => return Ok(()),
        };
        sink(&buf[..n])?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(headers: &[(&str, &str)]) -> RecordHead {
        RecordHead {
            status: Some(302),
            headers: headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.as_bytes().to_vec()))
                .collect(),
            ..RecordHead::default()
        }
    }

    fn rw() -> UrlRewriter {
        UrlRewriter {
            base: url::Url::parse("http://example.org/a/").unwrap(),
            date: "20240115030000".into(),
            prefix: "/web".into(),
        }
    }

    #[test]
    fn headers_are_made_safe_to_replay() {
        let h = head(&[
            ("Content-Type", "text/html; charset=utf-8"),
            ("Content-Encoding", "gzip"),
            ("Transfer-Encoding", "chunked"),
            ("Set-Cookie", "id=1"),
            ("Location", "../b"),
            ("Strict-Transport-Security", "max-age=1"),
        ]);
        let r = replay_head(&h, Mode::Page, true, &rw());
        assert_eq!(r.status, 302);
        let names: Vec<&str> = r.headers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "Content-Type",
                "X-Archive-Orig-Set-Cookie",
                "Location",
                "X-Archive-Orig-Strict-Transport-Security"
            ]
        );
        assert_eq!(
            r.headers[2].1,
            b"/web/20240115030000mp_/http://example.org/b"
        );
        let id = replay_head(&h, Mode::Identity, false, &rw());
        assert!(id.headers.iter().any(|(n, _)| n == "Content-Encoding"));
        assert!(id
            .headers
            .iter()
            .any(|(n, v)| n == "Location" && v.starts_with(b"/web/20240115030000id_/")));
    }

    #[test]
    fn gzip_html_is_decoded_and_rewritten_other_types_pass() {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"<img src=\"x.png\">").unwrap();
        let page = gz.finish().unwrap();
        let mut h = head(&[("Content-Type", "text/html"), ("Content-Encoding", "gzip")]);
        h.status = Some(200);
        let mut out = Vec::new();
        let mut got = None;
        replay(
            &h,
            &mut &page[..],
            Mode::Page,
            rw(),
            |rh| got = Some(rh),
            &mut |b| {
                out.extend_from_slice(b);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(
            out,
            b"<img src=\"/web/20240115030000mp_/http://example.org/a/x.png\">"
        );
        assert!(!got
            .unwrap()
            .headers
            .iter()
            .any(|(n, _)| n == "Content-Encoding"));
        // id_: the stored bytes, still compressed, with their Content-Encoding.
        let mut raw = Vec::new();
        replay(&h, &mut &page[..], Mode::Identity, rw(), |_| {}, &mut |b| {
            raw.extend_from_slice(b);
            Ok(())
        })
        .unwrap();
        assert_eq!(raw, page);
    }
}
