//! What every capture route shares (`/web`, `/text`, Memento in `web.rs`; `/history` and
//! `/diff` in `versions.rs`, `/pages` in `pages_route.rs`): the capture context taken
//! from the server, the refusals they answer with, the path after the route, the runners
//! that stream an answer from a writer thread (a front server holds no captures and
//! refuses them all), and the captures of a URL key the asker may see, from the CDX.

use std::path::PathBuf;
use std::sync::Arc;

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use warcdex_cdx::lookup::SortedCdx;

use super::streamed::{Refusal, Streamer};
use super::web::base_url;
use crate::access::Viewer;
use crate::collection::Collection;
use crate::replay::capture::{captures_of, Capture};
use crate::replay::frame::HighFidelity;

/// What a capture route needs of the server: the collection, how to link, who asks.
/// (Not [`crate::access::Access`], what the rules give a capture.)
#[derive(Clone)]
pub(crate) struct CaptureContext {
    /// The collection served: its CDX and its archives by name.
    pub collection: Arc<Collection>,
    /// Where the banner sends a reader for scripts.
    pub hifi: HighFidelity,
    /// The base of absolute links (Memento): `--public-url`, else the request's host.
    pub base: String,
    /// Who asks, under the access rules in force (`None`: no rules).
    pub viewer: Option<Viewer>,
}

pub(crate) fn refusal(status: StatusCode, msg: impl Into<String>) -> Refusal {
    (status, msg.into())
}

/// The answer for a URL whose captures are blocked to the asker.
pub(crate) fn blocked_refusal(url: &str) -> Refusal {
    refusal(
        StatusCode::UNAVAILABLE_FOR_LEGAL_REASONS,
        format!("access to {url} is blocked in this collection"),
    )
}

/// A 500 whose detail (paths) goes to the log, not to the client.
pub(crate) fn server_error(detail: &str) -> Refusal {
    eprintln!("warcdex serve: {detail}");
    refusal(
        StatusCode::INTERNAL_SERVER_ERROR,
        "the collection could not be read",
    )
}

pub(crate) fn not_archived(url: &str) -> Refusal {
    refusal(
        StatusCode::NOT_FOUND,
        format!("{url} is not in this collection"),
    )
}

/// The request path after `route` with its query string: the archived URL's own.
pub(crate) fn rest_of(uri: &axum::http::Uri, route: &str) -> String {
    let path = uri.path().strip_prefix(route).unwrap_or("");
    match uri.query() {
        Some(q) => format!("{path}?{q}"),
        None => path.to_string(),
    }
}

pub(crate) fn front_refusal() -> axum::response::Response {
    super::plain(
        StatusCode::NOT_FOUND,
        "a front server holds no captures: open them on a shard server".into(),
    )
}

pub(crate) type St = axum::extract::State<Arc<super::AppState>>;

/// Answers a capture route with `f`, run on a writer thread and streamed (`streamed.rs`);
/// a front server has no captures.
pub(crate) async fn capture_route(
    state: &super::AppState,
    headers: &HeaderMap,
    f: impl FnOnce(CaptureContext, &mut Streamer) -> Result<(), Refusal> + Send + 'static,
) -> axum::response::Response {
    match context_of(state, headers).await {
        Some(ctx) => super::streamed::streamed(&state.permits, move |out| f(ctx, out)).await,
        None => front_refusal(),
    }
}

/// What the capture routes need, from a server of sets; `None` on a front server.
async fn context_of(state: &super::AppState, headers: &HeaderMap) -> Option<CaptureContext> {
    let super::Backend::Local(l) = &state.backend else {
        return None;
    };
    Some(CaptureContext {
        collection: l.collection.clone(),
        hifi: match (&state.opts.scripts, &state.opts.pywb) {
            (Some(s), _) => HighFidelity::Scripts(s.replay_origin(headers)),
            (None, Some(p)) => HighFidelity::Pywb(p.clone()),
            (None, None) => HighFidelity::None,
        },
        base: base_url(state.opts.public_url.as_deref(), headers),
        viewer: state.opts.viewer(headers),
    })
}

/// The headers of a page the server writes itself (no archived content in it but
/// escaped text): HTML, not sniffed, no scripts, styles inline.
pub(crate) fn page_headers() -> HeaderMap {
    let mut h = HeaderMap::new();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
        ),
    );
    h
}

/// A route that reads the loaded index: `f` gets the capture context, the index and the request
/// path after `route`; refused on a front server, which holds no sets.
pub(crate) async fn index_route(
    state: &super::AppState,
    uri: &axum::http::Uri,
    headers: &HeaderMap,
    route: &str,
    f: impl FnOnce(CaptureContext, Arc<super::Loaded>, String, &mut Streamer) -> Result<(), Refusal>
        + Send
        + 'static,
) -> axum::response::Response {
    let super::Backend::Local(l) = &state.backend else {
        return front_refusal();
    };
    let loaded = super::current(l, &state.opts).await;
    let rest = rest_of(uri, route);
    capture_route(state, headers, move |a, out| f(a, loaded, rest, out)).await
}

/// Whether `viewer` (everything shown without one) may see capture `c` of URL key `key`;
/// a capture left out as blocked (not excluded) sets `blocked`.
pub(crate) fn shown_to(
    viewer: Option<&Viewer>,
    key: &str,
    c: &Capture,
    blocked: &mut bool,
) -> bool {
    let Some(v) = viewer else {
        return true;
    };
    match v.access(key.as_bytes(), c.timestamp.parse().unwrap_or(0)) {
        crate::access::Access::Block => {
            *blocked = true;
            false
        }
        crate::access::Access::Exclude => false,
        _ => true,
    }
}

/// The collection's sorted CDX, opened (a 404 when the collection has none).
pub(crate) fn open_cdx(collection: &Collection) -> Result<(SortedCdx, PathBuf), Refusal> {
    let path = collection.cdx_path();
    let cdx = collection.cdx().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => refusal(
            StatusCode::NOT_FOUND,
            "this collection has no CDX (all.cdx) to look captures up in",
        ),
        _ => server_error(&format!("{}: {e}", path.display())),
    })?;
    Ok((cdx, path))
}

/// Runs `f` over the captures of `key` in `dir/all.cdx` that `viewer` may see (all
/// without one); also says whether a capture was left out as blocked (not excluded).
pub(crate) fn with_captures<T>(
    collection: &Collection,
    key: &str,
    viewer: Option<&Viewer>,
    f: impl FnOnce(&mut dyn Iterator<Item = std::io::Result<Capture>>) -> std::io::Result<T>,
) -> Result<(T, bool), Refusal> {
    let (cdx, path) = open_cdx(collection)?;
    let from = format!("{key} ");
    let lines = cdx
        .lines_from(from.as_bytes())
        .map_err(|e| server_error(&format!("{}: {e}", path.display())))?;
    let viewer = viewer.filter(|v| !v.sees_everything());
    let mut blocked = false;
    let mut caps = captures_of(lines, key).filter(|c| match c {
        Ok(c) => shown_to(viewer, key, c, &mut blocked),
        Err(_) => true,
    });
    let out = f(&mut caps).map_err(|e| server_error(&format!("{}: {e}", path.display())))?;
    drop(caps);
    Ok((out, blocked))
}
