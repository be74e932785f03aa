//! `GET /warcs/NAME` (and `HEAD`): an archive of the collection, whole or one byte range,
//! for replay tools that read records by offset and length over HTTP (pywb's
//! `archive_paths: http://HOST/warcs/`, OpenWayback's remote resource store).
//!
//! NAME is only ever a key of the collection's table of archives
//! ([`crate::collection::archives`]), a WARC inside a WACZ under its own name:
//! a name that is not recorded is a 404 whatever it holds (`..`, a slash, another file of
//! the directory). The body is read from the file in [`CHUNK`]-byte pieces, each when
//! the connection wants it, so a large archive never sits in memory and a client that
//! stops reading holds no more than a piece (the idle timeout then closes it, see
//! `conn.rs`). Reads run on the blocking pool, as searches do.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;

use super::range::{self, RangeAnswer};
use super::warcs_access::{range_allowed, refused, PositionsCache};
use crate::access::Viewer;
use crate::collection::Collection;

/// Bytes read from the file at a time.
const CHUNK: usize = 128 * 1024;

/// An archive opened for an answer: its bytes are `size` bytes of `file` from `base`
/// (a WARC stored in a WACZ is read in place).
struct Opened {
    file: Arc<File>,
    base: u64,
    size: u64,
}

/// The answer to a request for the archive recorded as `name`.
pub(crate) async fn archive(
    collection: Arc<Collection>,
    positions: Arc<PositionsCache>,
    name: String,
    headers: &HeaderMap,
    viewer: Option<Viewer>,
) -> Response {
    let viewer = viewer.filter(|v| !v.sees_everything());
    // The CDX names a capture's archive by its file name, which is the name the table
    // records it under (`update` names an archive by its file name).
    let cdx_name = name.clone();
    let opened = tokio::task::spawn_blocking(move || open(&collection, &name)).await;
    let Opened { file, base, size } = match opened {
        Ok(Ok(o)) => o,
        Ok(Err((status, msg))) => return super::plain(status, msg),
        Err(e) => {
            eprintln!("warcdex serve: opening an archive failed: {e}");
            return super::plain(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the archive could not be read".into(),
            );
        }
    };
    // A client holding a validator for an earlier version sends If-Range; none is sent
    // here, so none can match, and the whole file is the answer (RFC 9110 §13.1.5).
    let asked = match headers.contains_key(header::IF_RANGE) {
        true => None,
        false => headers.get(header::RANGE).map(HeaderValue::as_bytes),
    };
    let (status, start, len) = match range::resolve(asked, size) {
        RangeAnswer::Whole => (StatusCode::OK, 0, size),
        RangeAnswer::Part { start, end } => (StatusCode::PARTIAL_CONTENT, start, end - start + 1),
        RangeAnswer::Unsatisfiable(why) => {
            let mut r = super::plain(
                StatusCode::RANGE_NOT_SATISFIABLE,
                format!("{why} ({size} bytes)"),
            );
            r.headers_mut()
                .insert(header::CONTENT_RANGE, value(format!("bytes */{size}")));
            r.headers_mut()
                .insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
            return r;
        }
    };
    if let Some(viewer) = viewer {
        // The whole file is refused as any other range holding more than shown records
        // is (an archive mixes captures of many URLs): one answer for every refusal.
        let allowed = match status {
            StatusCode::OK => Ok(false),
            _ => tokio::task::spawn_blocking(move || {
                let in_use = positions.get()?;
                range_allowed(&in_use.positions, &cdx_name, start, start + len, &viewer)
            })
            .await
            .unwrap_or_else(|e| Err(io::Error::other(e))),
        };
        match allowed {
            Ok(true) => {}
            Ok(false) => return refusal(),
            Err(e) => {
                eprintln!("warcdex serve: /warcs/: judging a range: {e}");
                return refusal();
            }
        }
    }
    let mut r = Response::new(body(file, base + start, len));
    *r.status_mut() = status;
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    h.insert(header::CONTENT_LENGTH, value(len.to_string()));
    if status == StatusCode::PARTIAL_CONTENT {
        let end = start + len - 1;
        h.insert(
            header::CONTENT_RANGE,
            value(format!("bytes {start}-{end}/{size}")),
        );
    }
    r
}

/// The one answer to a range not sent ([`refused`]).
fn refusal() -> Response {
    let (status, msg) = refused();
    super::plain(status, msg)
}

fn value(s: String) -> HeaderValue {
    HeaderValue::try_from(s).expect("digits, spaces, a dash and a slash")
}

/// Opens the archive recorded as `name` (blocking). A name not recorded, or recorded
/// but gone from the disk, is a 404; the message never shows a path (the paths are the
/// server's file system, for its log).
fn open(collection: &Collection, name: &str) -> Result<Opened, (StatusCode, String)> {
    let not_found = || {
        (
            StatusCode::NOT_FOUND,
            format!("no archive {name:?} in this collection"),
        )
    };
    let failed = |what: &dyn std::fmt::Display| {
        eprintln!("warcdex serve: /warcs/{name}: {what}");
        (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("archive {name:?} could not be read"),
        )
    };
    let at = match collection.archives().location(name) {
        Ok(Some(at)) => at,
        Ok(None) => return Err(not_found()),
        Err(e) => return Err(failed(&crate::path_error::Chain(&e))),
    };
    let Some((base, part_len)) = at.in_place() else {
        return Err((
            StatusCode::NOT_IMPLEMENTED,
            format!(
                "archive {name:?} is deflated inside its WACZ: its bytes cannot be sent by range"
            ),
        ));
    };
    let path = at.path();
    let opened = File::open(path).and_then(|f| Ok((f.metadata()?, f)));
    match opened {
        Ok((m, file)) if m.is_file() => Ok(Opened {
            file: Arc::new(file),
            base,
            size: part_len.unwrap_or(m.len()),
        }),
        Ok(_) => Err(failed(&format!("{}: not a file", path.display()))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            eprintln!(
                "warcdex serve: /warcs/{name}: {} is recorded but missing",
                path.display()
            );
            Err(not_found())
        }
        Err(e) => Err(failed(&format!("{}: {e}", path.display()))),
    }
}

/// Bytes `start..start + len` of `file`, read a [`CHUNK`] at a time as the connection
/// asks for them. A file shorter than that (cut while served) ends the body with an
/// error, so the connection is closed instead of sending fewer bytes than announced.
fn body(file: Arc<File>, start: u64, len: u64) -> Body {
    let pieces = futures_util::stream::unfold((file, start, len), |(file, pos, left)| async move {
        if left == 0 {
            return None;
        }
        let n = left.min(CHUNK as u64) as usize;
        let f = file.clone();
        let read = tokio::task::spawn_blocking(move || {
            let mut buf = vec![0; n];
            f.read_exact_at(&mut buf, pos).map(|()| Bytes::from(buf))
        })
        .await
        .unwrap_or_else(|e| Err(io::Error::other(e)));
        match read {
            Ok(bytes) => Some((Ok(bytes), (file, pos + n as u64, left - n as u64))),
            Err(e) => {
                eprintln!("warcdex serve: reading an archive at {pos}: {e}");
                Some((Err(e), (file, pos, 0)))
            }
        }
    });
    Body::from_stream(pieces)
}
