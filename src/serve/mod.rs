//! `warcdex serve`: the search and the access point over HTTP (axum on a tokio runtime).
//!
//! Routes (docs/api.md), each answered by the module named:
//! - `/` the search page, `/opensearch` RSS 2.0 with the OpenSearch and NutchWAX
//!   elements, `/search.json` the same as JSON, `/healthz` the sets served and refused
//!   (names and counts, no paths): `search_routes.rs`, parameters parsed in `params.rs`
//!   (NutchWAX's servlet names: `query` or `q`, `start`, `hitsPerPage` capped at
//!   [`MAX_HITS_PER_PAGE`], `hitsPerSite` or `hitsPerDup`, `asOf`, `sort`);
//! - `/shard/stats.json` and `/shard/search.json`, what a front server asks its shards
//!   (`search_routes.rs`, only with [`ServeOptions::shard`]; the front server is
//!   `remote.rs`);
//! - `/warcs/NAME`, an archive of the collection whole or by byte range, by the names of
//!   the collection's archive table (`warcs.rs`, `warcs_access.rs` under access rules),
//!   and `/warcs/index.cdxj` the CDX beside them, as ReplayWeb.page reads it
//!   (`cdxj_index.rs`, with the CORS of the routes other pages read);
//! - `/web/DATE/URL` the capture view and `/text/DATE/URL` a capture's text (`web.rs`),
//!   `/timegate/URL`, `/timemap/link/URL` and `/timemap/json/URL` (Memento, `web.rs`);
//! - `/history/URL` and `/diff/…` a URL's versions and their differences (`versions.rs`);
//! - `/cdx` pywb's CDX server API (`cdx_api.rs`); `/export` every match as a file
//!   (`export_route.rs`); `/pages` wabac.js's page query (ReplayWeb.page's
//!   `pagesQueryUrl`: search and URL lookup, `pages_route.rs`);
//! - `/mcp` the Model Context Protocol server over streamable HTTP (`mcp/`, which is
//!   also `warcdex mcp` over stdio).
//!
//! With [`ServeOptions::scripts`] a second router answers the replay origin, where the
//! captures run their scripts through wabac.js's service worker (`replay_origin.rs`).
//!
//! The capture routes share their context, refusals and runners (`capture_route.rs`).
//! Every answer carries `X-Content-Type-Options: nosniff`; an unknown path is a 404.
//! Settings are `options.rs`; the index is opened once and reopened when a set's
//! `pindex.json` changes (`state.rs`, checked at most once per
//! [`ServeOptions::reload_interval`], by a request); tantivy is synchronous, so each
//! search runs on tokio's blocking pool, bounded so that a burst of requests queues
//! (`respond.rs`). A malformed request is a 400 with a message, never a 500.
//! Connections have a header timeout, an idle timeout and a cap (`conn.rs`).

mod capture_route;
mod cdx_api;
mod cdxj_index;
mod changes_route;
mod conn;
mod export_route;
pub mod mcp;
mod options;
mod pages_route;
mod params;
pub mod pywb;
mod range;
pub mod remote;
mod replay_origin;
mod respond;
mod search_routes;
mod state;
mod streamed;
mod versions;
mod warcs;
mod warcs_access;
mod web;

use std::io;
use std::net::TcpListener;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;

use crate::collection::Collection;
use crate::search::SearchIndex;
pub use conn::ConnLimits;
pub use options::{ScriptReplay, ServeOptions, DEFAULT_EXPORT_TMP_LIMIT};
pub use remote::Front;
// What the route modules share, by the names they use it under (`super::plain`, …).
use respond::plain;
use search_routes::{
    healthz, opensearch_rss, search_json, search_page, shard_search, shard_stats, shard_suggest,
    warc,
};
use state::{current, AppState, Backend, Loaded, LocalState};

/// The capture view's path prefix: hits link to `/web/DATE14/URL` by default.
pub const VIEW_PREFIX: &str = web::PREFIX;

/// The routes over `collection` and its opened search index; with the shard routes a
/// front server asks (`/shard/stats.json`, `/shard/search.json`, see
/// src/serve/remote.rs) when [`ServeOptions::shard`] says this server is one.
pub fn router(collection: Collection, index: SearchIndex, opts: ServeOptions) -> Router {
    routers(collection, index, opts).0
}

/// [`router`], and the replay origin's routes when [`ServeOptions::scripts`] is set
/// (served on a listener of their own, [`serve_with_replay`]): one index, one state.
pub fn routers(
    collection: Collection,
    index: SearchIndex,
    opts: ServeOptions,
) -> (Router, Option<Router>) {
    let shard = opts.shard;
    let state = local_state(collection, index, opts);
    let replay = state
        .opts
        .scripts
        .is_some()
        .then(|| replay_origin::router(state.clone()));
    (routes(state, shard), replay)
}

/// The routes of a front server: each search is sent to the shard servers of `front`
/// and their hits merged (`serve --remote`).
pub fn front_router(front: Front, opts: ServeOptions) -> Router {
    routes(app_state(Backend::Remote(front), opts), false)
}

/// The state of a server of sets over `collection` and its opened `index`.
fn local_state(collection: Collection, index: SearchIndex, opts: ServeOptions) -> Arc<AppState> {
    let collection = Arc::new(collection);
    let positions = Arc::new(warcs_access::PositionsCache::new(&collection));
    let backend = Backend::Local(LocalState {
        collection,
        positions,
        current: RwLock::new(Loaded::new(index)),
        checked: Mutex::new(Instant::now()),
        reloading: AtomicBool::new(false),
    });
    app_state(backend, opts)
}

fn app_state(backend: Backend, opts: ServeOptions) -> Arc<AppState> {
    let permits = Arc::new(tokio::sync::Semaphore::new(opts.search_threads.max(1)));
    Arc::new(AppState {
        backend,
        opts,
        permits,
    })
}

fn routes(state: Arc<AppState>, shard_routes: bool) -> Router {
    let mut r = Router::new()
        .route("/", get(search_page))
        .route("/opensearch", get(opensearch_rss))
        .route("/search.json", get(search_json))
        .route("/healthz", get(healthz))
        .route("/warcs/{name}", get(warc))
        .route("/web/{*rest}", get(web::web_route))
        .route("/text/{*rest}", get(web::text_route))
        .route("/history/{*rest}", get(versions::history_route))
        .route("/diff/{*rest}", get(versions::diff_route))
        .route("/timegate/{*rest}", get(web::timegate_route))
        .route("/timemap/link/{*rest}", get(web::timemap_route))
        .route("/timemap/json/{*rest}", get(web::timemap_route))
        // A front server answers it with a 501 and a message.
        .route("/cdx", get(cdx_api::cdx))
        .route("/export", get(export_route::export))
        .route("/pages", get(pages_route::pages))
        .route("/changes", get(changes_route::changes_atom))
        .route("/changes.json", get(changes_route::changes_json))
        .route_service("/mcp", mcp::http_service(state.clone()));
    if shard_routes {
        r = r
            .route("/shard/stats.json", get(shard_stats))
            .route("/shard/search.json", post(shard_search))
            .route("/shard/suggest.json", get(shard_suggest));
    }
    r.fallback(unknown_path)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            cdxj_index::cors,
        ))
        .with_state(state)
        // On every answer, whichever route made it (docs/api.md): a browser must never
        // take a capture's bytes or a message for another type than the one sent.
        .layer(axum::middleware::map_response(nosniff))
}

/// `X-Content-Type-Options: nosniff` on an answer.
pub(crate) async fn nosniff(mut r: Response) -> Response {
    r.headers_mut().insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    r
}

/// A path no route answers.
async fn unknown_path() -> Response {
    plain(StatusCode::NOT_FOUND, "no such page on this server".into())
}

/// The cores this process may use (2 when that cannot be told).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// Serves `app` on `listener` until the process ends, with `opts`' search threads and
/// connection limits. Builds its own runtime (with timers: the timeouts and the retry
/// after a failed accept need them), so the caller stays synchronous.
pub fn serve(listener: TcpListener, app: Router, opts: &ServeOptions) -> io::Result<()> {
    serve_with_replay(listener, app, None, opts)
}

/// [`serve`], with the replay origin's routes on a listener of their own.
pub fn serve_with_replay(
    listener: TcpListener,
    app: Router,
    replay: Option<(TcpListener, Router)>,
    opts: &ServeOptions,
) -> io::Result<()> {
    listener.set_nonblocking(true)?;
    if let Some((l, _)) = &replay {
        l.set_nonblocking(true)?;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_io()
        .enable_time()
        .worker_threads(opts.io_threads.max(1))
        .max_blocking_threads(opts.search_threads.max(1))
        .build()?;
    let limits = opts.limits;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        if let Some((l, routes)) = replay {
            let l = tokio::net::TcpListener::from_std(l)?;
            tokio::spawn(conn::accept_loop(l, routes, limits));
        }
        conn::accept_loop(listener, app, limits).await;
        Ok(())
    })
}
