//! `GET /warcs/index.cdxj`: the collection's CDX as CDXJ, beside the archives it names,
//! so that ReplayWeb.page (wabac.js) opens the collection as it opens any remote CDXJ
//! index — `?source=http://HOST/warcs/index.cdxj` — and reads each record from
//! `/warcs/NAME` by byte range. Under access rules only the captures the asker may
//! see are listed (and `/warcs/NAME` holds only their bytes). Streamed from `all.cdx`:
//! memory stays a line whatever the collection's size (the reader's browser, though,
//! loads the whole index, as wabac.js does with any CDXJ source).

use std::io::Write;
use std::sync::Arc;

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;

use super::capture_route::{capture_route, open_cdx, server_error};
use super::AppState;
use crate::access::{Access, Viewer};
use warcdex_cdx::lookup::SortedCdx;

/// The name `/warcs/` answers with the index (no archive's: archives end in `.warc`,
/// `.warc.gz`, `.arc`, `.wacz`…).
pub(super) const INDEX_NAME: &str = "index.cdxj";

/// `GET /warcs/index.cdxj`. wabac.js will not load an index whose size it is not told
/// (`Content-Length`), so the lines are made twice: counted, then sent (one snapshot of
/// the rules and one open `all.cdx` for both, so the count is the answer's).
pub(super) async fn index_cdxj(state: &AppState, headers: &HeaderMap) -> Response {
    capture_route(state, headers, |ctx, out| {
        let (cdx, path) = open_cdx(&ctx.collection)?;
        let viewer = ctx.viewer.filter(|v| !v.sees_everything());
        let failed = |e: std::io::Error| server_error(&format!("{}: {e}", path.display()));
        let mut length = 0u64;
        let skipped = each_line(&cdx, viewer.as_ref(), &mut |b| {
            length += b.len() as u64;
            Ok(())
        })
        .map_err(failed)?;
        let mut h = HeaderMap::new();
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/x-cdxj; charset=utf-8"),
        );
        h.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
        out.start(StatusCode::OK, h);
        each_line(&cdx, viewer.as_ref(), &mut |b| out.write_all(b))
            .map_err(|e| (StatusCode::OK, e.to_string()))?;
        if skipped > 0 {
            eprintln!(
                "warcdex serve: {}: {skipped} lines not in a CDX layout left out of /warcs/{INDEX_NAME}",
                path.display()
            );
        }
        Ok(())
    })
    .await
}

/// Hands `sink` the CDXJ line of every capture of `cdx` that `viewer` may see (all
/// without one); the count of lines that are not CDX, left out.
fn each_line(
    cdx: &SortedCdx,
    viewer: Option<&Viewer>,
    sink: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
) -> std::io::Result<u64> {
    let mut buf = Vec::with_capacity(1024);
    let mut skipped = 0u64;
    for line in cdx.lines_from(b"")? {
        let line = line?;
        if let Some(v) = viewer {
            let mut f = line.splitn(3, |&b| b == b' ');
            let (key, ts) = (f.next().unwrap_or_default(), f.next().unwrap_or_default());
            let ts = std::str::from_utf8(ts).ok().and_then(|t| t.parse().ok());
            if v.access(key, ts.unwrap_or(0)) != Access::Allow {
                continue;
            }
        }
        buf.clear();
        match warcdex_cdx::query::cdxj_line(&line, &mut buf) {
            Ok(()) => sink(&buf)?,
            Err(_) => skipped += 1,
        }
    }
    Ok(skipped)
}

/// The routes a replay tool in another page reads (ReplayWeb.page, a pywb in the
/// reader's browser): `/warcs/`, `/cdx`, `/pages`, `/search.json`, the TimeMaps.
fn read_across_origins(path: &str) -> bool {
    path.starts_with("/warcs/")
        || path.starts_with("/timemap/")
        || matches!(path, "/cdx" | "/pages" | "/search.json")
}

/// CORS on the routes [`read_across_origins`] names, for the public only: a request
/// that names a user (a reading room's proxy sets the header) gets none, so that a page
/// of another site open in that reader's browser cannot read what the rules show the
/// reader alone. Answers their preflight requests (a `Range` with several ranges).
pub(super) async fn cors(
    axum::extract::State(state): axum::extract::State<Arc<AppState>>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let path = req.uri().path().to_string();
    let public = state.opts.user(req.headers()).is_none();
    if !read_across_origins(&path) || !public {
        return next.run(req).await;
    }
    let mut r = match req.method() == axum::http::Method::OPTIONS {
        true => {
            let mut r = Response::new(axum::body::Body::empty());
            *r.status_mut() = StatusCode::NO_CONTENT;
            let h = r.headers_mut();
            h.insert(
                header::ACCESS_CONTROL_ALLOW_METHODS,
                HeaderValue::from_static("GET, HEAD"),
            );
            h.insert(
                header::ACCESS_CONTROL_ALLOW_HEADERS,
                HeaderValue::from_static("Range"),
            );
            h.insert(
                header::ACCESS_CONTROL_MAX_AGE,
                HeaderValue::from_static("600"),
            );
            r
        }
        false => next.run(req).await,
    };
    let h = r.headers_mut();
    h.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    h.insert(
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static(
            "Content-Length, Content-Range, Accept-Ranges, Content-Type, Memento-Datetime, Link",
        ),
    );
    r
}
