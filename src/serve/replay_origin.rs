//! The replay origin (`serve --replay scripts`): a listener of its own where archived
//! pages run their scripts, kept off the search application's origin (its routes, its
//! storage). wabac.js's service worker (`/sw.js`) rewrites each capture in the reader's
//! browser, and its wombat keeps the page's scripts inside the archive; the worker asks
//! this server for `/web/DATEir_/URL`, the archived response (`web::raw`, under the
//! access rules). A page of this origin reached before the worker is installed is the
//! start page, which installs it and loads the capture again through it
//! (`assets/replay-start.js`), or, in a browser without service workers, sends the reader
//! to the view without scripts. Nothing else is served here (docs/replay.md).

use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::capture_route::{capture_route, rest_of};
use super::{plain, AppState};
use crate::render::escape::escape;
use crate::replay::archival_url::{self, ArchivalUrl, Mode};
use crate::replay::frame::SCRIPT_FRAME_SANDBOX;

/// The start page's script.
const START_JS: &str = include_str!("assets/replay-start.js");

/// The start page's policy: its own script file and the worker, nothing inline.
const START_CSP: &str = "default-src 'none'; script-src 'self'; worker-src 'self'; \
frame-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

/// The replay origin's routes over the server's `state` (which must have
/// [`super::ServeOptions::scripts`]).
pub(super) fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/sw.js", get(service_worker))
        .route("/__warcdex/replay-start.js", get(start_js))
        .route("/web/{*rest}", get(web))
        .fallback(|| async {
            plain(
                StatusCode::NOT_FOUND,
                "the replay origin serves archived pages only (/web/DATE/URL)".into(),
            )
        })
        .with_state(state)
        .layer(axum::middleware::from_fn(nosniff_but_ir))
}

/// `X-Content-Type-Options: nosniff` on every answer but `ir_`'s: those carry the archived
/// headers for the worker, which replays them as the site sent them (a site that sent no
/// `nosniff` had its stylesheets and scripts taken whatever their type, and a missing
/// one failed without a MIME error). Opened as a page, an `ir_` answer is sandboxed.
async fn nosniff_but_ir(req: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let raw = is_raw(req.uri().path());
    let r = next.run(req).await;
    match raw {
        true => r,
        false => super::nosniff(r).await,
    }
}

/// Whether `path` is `/web/DATEir_/…`.
fn is_raw(path: &str) -> bool {
    path.strip_prefix("/web/")
        .map(|rest| rest.trim_start_matches(|c: char| c.is_ascii_digit()))
        .is_some_and(|rest| rest.starts_with("ir_/"))
}

/// `GET /sw.js`: wabac.js's service worker.
async fn service_worker(State(state): State<Arc<AppState>>) -> Response {
    let Some(s) = &state.opts.scripts else {
        return plain(StatusCode::NOT_FOUND, "no service worker here".into());
    };
    let mut r = s.service_worker.to_vec().into_response();
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/javascript; charset=utf-8"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}

/// `GET /__warcdex/replay-start.js`.
async fn start_js() -> Response {
    let mut r = START_JS.into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/javascript; charset=utf-8"),
    );
    r
}

/// Whether the request is a browser's navigation (a page or a frame), by its Fetch
/// Metadata.
fn navigating(headers: &HeaderMap) -> bool {
    let is = |name: &str, values: &[&str]| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| values.contains(&v))
    };
    is("sec-fetch-mode", &["navigate"]) || is("sec-fetch-dest", &["document", "iframe", "frame"])
}

/// `GET /web/DATE[MOD_]/URL` on the replay origin.
async fn web(State(state): State<Arc<AppState>>, uri: Uri, headers: HeaderMap) -> Response {
    let rest = rest_of(&uri, "/web/");
    let a = match archival_url::parse(&rest) {
        Ok(a) => a,
        Err(e) => return plain(StatusCode::BAD_REQUEST, e.0),
    };
    if a.mode != Mode::Raw {
        return start_page(&state, &headers, &a);
    }
    if navigating(&headers) {
        // The archived page unrewritten would run its scripts against the live web: a
        // reader who opens an `ir_` address gets the replay of it instead.
        let to = archival_url::format(super::web::PREFIX, &a.date, Mode::Page, &a.url);
        let mut r = StatusCode::FOUND.into_response();
        if let Ok(v) = HeaderValue::from_str(&to) {
            r.headers_mut().insert(header::LOCATION, v);
        }
        return r;
    }
    let kind = MissingKind::of(&headers, &a.url);
    let r = capture_route(&state, &headers, move |ctx, out| {
        super::web::raw(ctx, a, out)
    })
    .await;
    match r.status() {
        StatusCode::NOT_FOUND => kind.not_found(),
        _ => r,
    }
}

/// What a request the archive cannot answer was for, as far as the worker's request
/// tells (its `Accept`, which wabac.js passes on, and the URL's extension).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MissingKind {
    Style,
    Script,
    Other,
}

impl MissingKind {
    fn of(headers: &HeaderMap, url: &str) -> MissingKind {
        let accept = headers
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let path = url
            .split(['?', '#'])
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        if accept.starts_with("text/css") || path.ends_with(".css") {
            MissingKind::Style
        } else if path.ends_with(".js") || path.ends_with(".mjs") {
            MissingKind::Script
        } else {
            MissingKind::Other
        }
    }

    /// The 404 of a file the archive lacks, typed as what was asked for (as wabac.js
    /// answers its own misses): a browser takes it as a missing file, as it took the
    /// site's own 404, not as a file of the wrong type refused with an error the
    /// original never had.
    fn not_found(self) -> Response {
        let (body, ct) = match self {
            MissingKind::Style => ("/* not in this archive */\n", "text/css; charset=utf-8"),
            MissingKind::Script => ("// not in this archive\n", "text/javascript; charset=utf-8"),
            MissingKind::Other => ("not in this archive\n", "text/plain; charset=utf-8"),
        };
        let mut r = (StatusCode::NOT_FOUND, body).into_response();
        r.headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static(ct));
        r
    }
}

/// The start page for `a` (its service worker not yet answering): `/web/DATE/URL` is a
/// frame filling the window (where the replayed page sends itself when it finds it is
/// the top page), any other mode the page itself, loaded again once the worker answers.
fn start_page(state: &AppState, headers: &HeaderMap, a: &ArchivalUrl) -> Response {
    let app = state
        .opts
        .scripts
        .as_ref()
        .map(|s| s.app_origin(state.opts.public_url.as_deref(), headers))
        .unwrap_or_default();
    let safe = format!(
        "{app}{}",
        archival_url::format(super::web::PREFIX, &a.date, Mode::Page, &a.url)
    );
    let frame = a.mode == Mode::Frame;
    let body = format!(
        concat!(
            "<!doctype html><html><head><meta charset=utf-8><title>{title}</title>",
            "<meta name=viewport content=\"width=device-width, initial-scale=1\">",
            "<style>html,body{{margin:0;height:100%;overflow:hidden}}",
            "iframe{{display:block;border:0;width:100%;height:100%}}</style>",
            "<script defer src=\"/__warcdex/replay-start.js\" data-ts=\"{ts}\" data-url=\"{url}\" ",
            "data-safe=\"{safe}\"{frame_attr}></script></head><body>{iframe}",
            "<noscript><p>This archived page runs its scripts, which needs JavaScript. ",
            "<a href=\"{safe}\">Open it without scripts</a>.</p></noscript></body></html>\n"
        ),
        title = escape(&a.url),
        ts = escape(&a.date),
        url = escape(&a.url),
        safe = escape(&safe),
        frame_attr = if frame { " data-frame=\"1\"" } else { "" },
        iframe = if frame {
            format!("<iframe id=replay title=\"The archived page\" sandbox=\"{SCRIPT_FRAME_SANDBOX}\"></iframe>")
        } else {
            String::new()
        },
    );
    let mut r = body.into_response();
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(START_CSP),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}
