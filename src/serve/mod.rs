//! `warcdex serve`: the search over HTTP (axum on a tokio runtime).
//!
//! Routes: `/` the search page ([`crate::render::page`]), `/opensearch` RSS 2.0 with the OpenSearch and
//! NutchWAX elements, `/search.json` the same as JSON, `/healthz` the sets being served
//! and those refused (names and document counts, no paths). Parameters follow NutchWAX's
//! servlet: `query` (or `q`), `start`, `hitsPerPage` (capped at [`MAX_HITS_PER_PAGE`]),
//! `hitsPerSite` (or `hitsPerDup`). `/warcs/NAME` is an archive of the collection, whole
//! or one byte range, for replay tools (`warcs.rs`; the names are `collection.json`'s,
//! `archives.rs`).
//!
//! The index is opened once and reopened when a set's `pindex.json` changes (checked at
//! most once per [`ServeOptions::reload_interval`], by a request, so an `add-dates
//! --in-place` or a new set is served without a restart); tantivy is synchronous, so each
//! search runs on tokio's blocking pool, whose size is bounded so that a burst of
//! requests queues instead of starting a thread per request on a small machine. A
//! malformed request is a 400 with a message, never a 500. Connections have a header
//! timeout, an idle timeout and a cap (`conn.rs`).

pub mod archives;
mod cdx_api;
mod conn;
mod export_route;
pub mod pywb;
mod range;
pub mod remote;
mod streamed;
mod versions;
mod warcs;
mod warcs_access;
mod web;

use std::io;
use std::net::TcpListener;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;

use crate::access::{LiveRules, Viewer};
use crate::path_error::Chain;
use crate::render::page::{self, PageRequest};
use crate::render::{json, opensearch};
use crate::search::{
    HitOrder, NearDisplay, SearchError, SearchIndex, SearchRequest, SearchResults, TermStats,
    DEFAULT_HITS_PER_SITE, MAX_HITS_PER_PAGE,
};
use archives::Archives;
pub use conn::ConnLimits;
pub use remote::Front;

/// The capture view's path prefix: hits link to `/web/DATE14/URL` by default.
pub const VIEW_PREFIX: &str = web::PREFIX;

/// Settings of the server.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Replay links are `PREFIX/DATE14/URL`; none when `None`.
    pub replay_prefix: Option<String>,
    /// A pywb collection (`serve --replay pywb=URL`): the capture view's banner offers it
    /// for pages that need scripts.
    pub pywb: Option<String>,
    /// This server's public address (`--public-url`), for absolute links (Memento);
    /// without it, the request's `Host`.
    pub public_url: Option<String>,
    /// Hits per site when the request does not say (NutchWAX: 2).
    pub hits_per_site: usize,
    /// Searches running at once (the blocking pool's size).
    pub search_threads: usize,
    /// Threads that accept connections, read requests and write responses (the
    /// runtime's workers).
    pub io_threads: usize,
    /// Header timeout, idle timeout and connection cap.
    pub limits: ConnLimits,
    /// How often (at most) a request checks whether a set's `pindex.json` changed and
    /// the index must be reopened; zero checks on every request, `None` never.
    pub reload_interval: Option<Duration>,
    /// The access rules in force (`--acl`, `--embargo`, the collection's
    /// `access.json`); `None`: every capture is shown to everyone.
    pub access: Option<Arc<LiveRules>>,
    /// The request header naming the user (access point) a front proxy vouches for
    /// (`--user-header`, as pywb's `X-Pywb-ACL-User`); without it every request is the
    /// public's.
    pub user_header: Option<axum::http::HeaderName>,
    /// Where `/export?format=wacz` packs (`--export-tmp-dir`); `None`: the system's
    /// temporary folder.
    pub export_tmp_dir: Option<std::path::PathBuf>,
    /// The most bytes one WACZ export may take there (`--export-tmp-limit`); `None`: no
    /// limit.
    pub export_tmp_limit: Option<u64>,
    /// Whether this server answers a front server's shard routes (`serve --shard`):
    /// `/shard/stats.json` and `/shard/search.json` exist only then.
    pub shard: bool,
}

/// [`ServeOptions::export_tmp_limit`] by default: 2 GiB.
pub const DEFAULT_EXPORT_TMP_LIMIT: u64 = 2 << 30;

impl ServeOptions {
    /// Who asks: the rules in force and the user the request's header names.
    pub(crate) fn viewer(&self, headers: &HeaderMap) -> Option<Viewer> {
        let rules = self.access.as_ref()?.current();
        let user = self.user(headers).and_then(|v| v.to_str().ok());
        Some(Viewer::new(rules, user))
    }

    /// The user header's value when the request holds it exactly once. Sent twice, it is
    /// no user's: a proxy that adds the header rather than replacing it passes the one
    /// the client sent too, and which copy comes first is the client's choice, so either
    /// could be the public's own pick (issue 56).
    pub(crate) fn user<'h>(&self, headers: &'h HeaderMap) -> Option<&'h HeaderValue> {
        let mut values = headers.get_all(self.user_header.as_ref()?).iter();
        match (values.next(), values.next()) {
            (Some(v), None) => Some(v),
            _ => None,
        }
    }
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            replay_prefix: None,
            pywb: None,
            public_url: None,
            hits_per_site: DEFAULT_HITS_PER_SITE,
            // As many searches as cores, and half as many threads for the connections:
            // with twice the cores of each, the searches shared the cores with each other
            // and made the slow ones slower still (issue 22: the bench at 32 connections,
            // p99 26.8-27.4 -> 22.7-24.5 ms, three runs each; docs/performance.md).
            search_threads: cores(),
            io_threads: (cores() / 2).max(1),
            limits: ConnLimits::default(),
            reload_interval: Some(Duration::from_secs(5)),
            access: None,
            user_header: None,
            export_tmp_dir: None,
            export_tmp_limit: Some(DEFAULT_EXPORT_TMP_LIMIT),
            shard: false,
        }
    }
}

/// The index being served and the footer line about it.
struct Loaded {
    index: SearchIndex,
    footer: String,
}

impl Loaded {
    fn new(index: SearchIndex) -> Arc<Loaded> {
        let sets = index.sets();
        let docs: u64 = sets.iter().map(|s| u64::from(s.documents)).sum();
        let mut footer = format!(
            "{docs} documents in {} parallel set{}",
            sets.len(),
            if sets.len() == 1 { "" } else { "s" }
        );
        let broken = index.broken().len();
        if broken > 0 {
            footer.push_str(&format!("; {broken} set(s) refused, see /healthz"));
        }
        Arc::new(Loaded { index, footer })
    }
}

/// The sets searched in this process, reopened when they change.
struct LocalState {
    current: RwLock<Arc<Loaded>>,
    /// When a request last checked for changed sets.
    checked: Mutex<Instant>,
    /// A reopen is under way (one at a time; other requests use the current index).
    reloading: AtomicBool,
    /// The collection's archives (`/warcs/NAME`), by the names `collection.json` records.
    archives: Arc<Archives>,
    /// Where each capture lies in its archive, for `/warcs/NAME` under access rules.
    positions: Arc<warcs_access::PositionsCache>,
}

impl LocalState {
    fn loaded(&self) -> Arc<Loaded> {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// What answers the searches: sets opened here, or shard servers (`serve --remote`).
enum Backend {
    Local(LocalState),
    Remote(Front),
}

struct AppState {
    backend: Backend,
    opts: ServeOptions,
    /// `--search-threads` permits, taken by every search and by the writers of streamed
    /// answers while they compute (`streamed.rs`).
    permits: streamed::Permits,
}

impl AppState {
    /// The footer line as it is now (without reopening anything).
    fn footer(&self) -> String {
        match &self.backend {
            Backend::Local(l) => l.loaded().footer.clone(),
            Backend::Remote(f) => f.footer(),
        }
    }

    /// The footer line, after reopening changed sets.
    async fn current_footer(&self) -> String {
        match &self.backend {
            Backend::Local(l) => current(l, &self.opts).await.footer.clone(),
            Backend::Remote(f) => f.footer(),
        }
    }
}

/// The index to answer a request with: the current one, reopened first when the
/// reload interval has passed and a set changed (its `pindex.json`, or the sets
/// themselves). A reopen that fails keeps the current index, and is tried again at the
/// next check.
async fn current(state: &LocalState, opts: &ServeOptions) -> Arc<Loaded> {
    let cur = state.loaded();
    let Some(every) = opts.reload_interval else {
        return cur;
    };
    {
        let mut checked = state.checked.lock().unwrap_or_else(|e| e.into_inner());
        if !every.is_zero() && checked.elapsed() < every {
            return cur;
        }
        *checked = Instant::now();
    }
    if state.reloading.swap(true, Ordering::AcqRel) {
        return cur;
    }
    let old = cur.clone();
    let reopened = tokio::task::spawn_blocking(move || {
        if !old.index.changed() {
            return None;
        }
        Some(SearchIndex::open(old.index.dir()))
    })
    .await;
    let out = match reopened {
        Ok(None) => cur,
        Ok(Some(Ok(index))) if !index.sets().is_empty() => {
            eprintln!(
                "warcdex serve: reopened {}: {} set(s), {} refused",
                index.dir().display(),
                index.sets().len(),
                index.broken().len()
            );
            let new = Loaded::new(index);
            *state.current.write().unwrap_or_else(|e| e.into_inner()) = new.clone();
            new
        }
        Ok(Some(Ok(index))) => {
            eprintln!(
                "warcdex serve: {} changed but no set opens now; still serving the sets opened before",
                index.dir().display()
            );
            cur
        }
        Ok(Some(Err(e))) => {
            eprintln!(
                "warcdex serve: cannot reopen: {}; still serving the sets opened before",
                Chain(&e)
            );
            cur
        }
        Err(e) => {
            eprintln!("warcdex serve: reopening failed: {e}; still serving the sets opened before");
            cur
        }
    };
    state.reloading.store(false, Ordering::Release);
    out
}

/// The routes over an opened index; with the shard routes a front server asks
/// (`/shard/stats.json`, `/shard/search.json`, see src/serve/remote.rs) when
/// [`ServeOptions::shard`] says this server is one.
pub fn router(index: SearchIndex, opts: ServeOptions) -> Router {
    let archives = Arc::new(Archives::new(index.dir()));
    let positions = Arc::new(warcs_access::PositionsCache::new(index.dir()));
    let backend = Backend::Local(LocalState {
        archives,
        positions,
        current: RwLock::new(Loaded::new(index)),
        checked: Mutex::new(Instant::now()),
        reloading: AtomicBool::new(false),
    });
    let shard = opts.shard;
    routes(backend, opts, shard)
}

/// The routes of a front server: each search is sent to the shard servers of `front`
/// and their hits merged (`serve --remote`).
pub fn front_router(front: Front, opts: ServeOptions) -> Router {
    routes(Backend::Remote(front), opts, false)
}

fn routes(backend: Backend, opts: ServeOptions, shard_routes: bool) -> Router {
    let permits = Arc::new(tokio::sync::Semaphore::new(opts.search_threads.max(1)));
    let state = Arc::new(AppState {
        backend,
        opts,
        permits,
    });
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
        .route("/export", get(export_route::export));
    if shard_routes {
        r = r
            .route("/shard/stats.json", get(shard_stats))
            .route("/shard/search.json", post(shard_search));
    }
    r.fallback(unknown_path)
        .with_state(state)
        // On every answer, whichever route made it (docs/api.md): a browser must never
        // take a capture's bytes or a message for another type than the one sent.
        .layer(axum::middleware::map_response(nosniff))
}

/// `X-Content-Type-Options: nosniff` on an answer.
async fn nosniff(mut r: Response) -> Response {
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
    listener.set_nonblocking(true)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_io()
        .enable_time()
        .worker_threads(opts.io_threads.max(1))
        .max_blocking_threads(opts.search_threads.max(1))
        .build()?;
    let limits = opts.limits;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        conn::accept_loop(listener, app, limits).await;
        Ok(())
    })
}

/// The request parameters, parsed; a message for the user when they are malformed.
struct Params {
    query: Option<String>,
    start: usize,
    hits: usize,
    hits_per_site: usize,
    /// `nearDups=show` and `collapse=near` (issue 20).
    near: NearDisplay,
    /// `asOf=YYYY[MM[DD…]]`: the query's `as-of:` (issue 46).
    as_of: Option<String>,
    /// `sort=relevance|date|-date`.
    order: HitOrder,
    /// As given, echoed in the RSS.
    raw: Vec<(String, String)>,
}

/// `nearDups=show` shows every version of a URL; `collapse=near` folds near-identical
/// pages of other URLs into one hit. Other values are refused.
fn near_display(raw: &[(String, String)]) -> Result<NearDisplay, String> {
    let last = |name: &str| {
        raw.iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.trim())
    };
    let show_versions = match last("nearDups") {
        None | Some("" | "collapse") => false,
        Some("show") => true,
        Some(v) => return Err(format!("nearDups is show or collapse, not {v:?}")),
    };
    let collapse_urls = match last("collapse") {
        None | Some("" | "none") => false,
        Some("near") => true,
        Some(v) => return Err(format!("collapse is near or none, not {v:?}")),
    };
    Ok(NearDisplay {
        show_versions,
        collapse_urls,
    })
}

fn number(raw: &[(String, String)], names: &[&str], default: usize) -> Result<usize, String> {
    match raw.iter().rev().find(|(k, _)| names.contains(&k.as_str())) {
        None => Ok(default),
        Some((k, v)) if v.trim().is_empty() => Err(format!("{k} is empty")),
        Some((k, v)) => v
            .trim()
            .parse()
            .map_err(|_| format!("{k} must be a whole number ≥ 0, not {v:?}")),
    }
}

/// The last `query` (or `q`) parameter, trimmed; `None` when there is none or it is blank.
fn query_param(raw: &[(String, String)]) -> Option<String> {
    raw.iter()
        .rev()
        .find(|(k, _)| k == "query" || k == "q")
        .map(|(_, v)| v.trim().to_string())
        .filter(|q| !q.is_empty())
}

/// The answer to an API request without a query.
const NO_QUERY: &str = "no query: add ?query=words";

fn params(raw: Vec<(String, String)>, opts: &ServeOptions) -> Result<Params, String> {
    let query = query_param(&raw);
    let start = number(&raw, &["start"], 0)?;
    let hits = number(&raw, &["hitsPerPage"], 10)?.clamp(1, MAX_HITS_PER_PAGE);
    let hits_per_site = number(&raw, &["hitsPerSite", "hitsPerDup"], opts.hits_per_site)?;
    let near = near_display(&raw)?;
    let last = |name: &str| {
        (raw.iter().rev())
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let as_of = last("asOf");
    if let Some(a) = &as_of {
        if !(4..=14).contains(&a.len()) || !a.bytes().all(|b| b.is_ascii_digit()) {
            return Err("asOf is a date of 4 to 14 digits, YYYY[MM[DD[hh[mm[ss]]]]]".into());
        }
    }
    let order = match last("sort") {
        None => HitOrder::Relevance,
        Some(v) => HitOrder::parse(&v)
            .ok_or("sort is relevance, date (oldest first) or -date (newest first)")?,
    };
    Ok(Params {
        query,
        start,
        hits,
        hits_per_site,
        near,
        as_of,
        order,
        raw,
    })
}

/// Runs the search on the blocking pool.
async fn run_search(
    state: &Arc<AppState>,
    p: &Params,
    query: String,
    history: bool,
    headers: &HeaderMap,
) -> Result<SearchResults, (StatusCode, String)> {
    let query = match &p.as_of {
        Some(at) => format!("{query} as-of:{at}"),
        None => query,
    };
    let req = SearchRequest {
        viewer: state.opts.viewer(headers),
        order: p.order,
        query,
        start: p.start,
        hits: p.hits,
        hits_per_site: p.hits_per_site,
        replay_prefix: state.opts.replay_prefix.clone(),
        near: p.near,
        history,
    };
    let local = match &state.backend {
        Backend::Local(l) => l,
        Backend::Remote(front) => {
            let user = (state.opts.user_header.as_ref())
                .and_then(|h| Some((h.clone(), state.opts.user(headers)?.clone())));
            return front.search_as(&req, user).await.map_err(status_of);
        }
    };
    let loaded = current(local, &state.opts).await;
    blocking(&state.permits, move || loaded.index.search(&req)).await
}

/// The HTTP status and message of a failed search.
fn status_of(e: SearchError) -> (StatusCode, String) {
    match e {
        SearchError::Query(e) => (StatusCode::BAD_REQUEST, e.to_string()),
        e @ SearchError::Statistics(_) => (StatusCode::BAD_REQUEST, Chain(&e).to_string()),
        e => {
            let text = Chain(&e).to_string();
            eprintln!("warcdex serve: {text}");
            (StatusCode::INTERNAL_SERVER_ERROR, text)
        }
    }
}

/// Runs a search of the index on the blocking pool (tantivy is synchronous), holding one
/// of `permits` (which the writers of streamed answers share) for its length.
async fn blocking<T: Send + 'static>(
    permits: &streamed::Permits,
    f: impl FnOnce() -> Result<T, SearchError> + Send + 'static,
) -> Result<T, (StatusCode, String)> {
    let permit = (permits.clone().acquire_owned().await).expect("the permits are never closed");
    let run = move || {
        let _permit = permit;
        f()
    };
    match tokio::task::spawn_blocking(run).await {
        Ok(r) => r.map_err(status_of),
        Err(e) => {
            eprintln!("warcdex serve: a search failed: {e}");
            Err((
                StatusCode::INTERNAL_SERVER_ERROR,
                "the search failed".into(),
            ))
        }
    }
}

fn with_type(status: StatusCode, content_type: &'static str, body: String) -> Response {
    let mut r = (status, body).into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    r
}

fn html(status: StatusCode, body: String) -> Response {
    let mut r = with_type(status, "text/html; charset=utf-8", body);
    // The page has no script and loads nothing: say so, so injected markup could not.
    r.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
        ),
    );
    r
}

fn plain(status: StatusCode, msg: String) -> Response {
    with_type(status, "text/plain; charset=utf-8", msg + "\n")
}

fn json_error(status: StatusCode, msg: String) -> Response {
    with_type(
        status,
        "application/json",
        serde_json::json!({ "error": msg }).to_string(),
    )
}

async fn search_page(
    State(state): State<Arc<AppState>>,
    Query(raw): Query<Vec<(String, String)>>,
    headers: HeaderMap,
) -> Response {
    let p = match params(raw, &state.opts) {
        Ok(p) => p,
        Err(e) => {
            let req = PageRequest {
                hits: 10,
                hits_per_site: state.opts.hits_per_site,
                ..PageRequest::default()
            };
            return html(
                StatusCode::BAD_REQUEST,
                page::render(&req, None, Some(&e), &state.footer()),
            );
        }
    };
    let req = PageRequest {
        query: p.query.clone(),
        start: p.start,
        hits: p.hits,
        hits_per_site: p.hits_per_site,
        collapse_near: p.near.collapse_urls,
        show_versions: p.near.show_versions,
        as_of: p.as_of.clone(),
        order: p.order,
    };
    let Some(q) = p.query.clone() else {
        return html(
            StatusCode::OK,
            page::render(&req, None, None, &state.current_footer().await),
        );
    };
    let r = run_search(&state, &p, q, true, &headers).await;
    let footer = &state.footer();
    match r {
        Ok(r) => html(StatusCode::OK, page::render(&req, Some(&r), None, footer)),
        Err((status, e)) => html(status, page::render(&req, None, Some(&e), footer)),
    }
}

/// The API routes' common part: parameters, a query required (400 without), the search
/// (`history`: see [`SearchRequest::history`]).
async fn query_search(
    state: &Arc<AppState>,
    raw: Vec<(String, String)>,
    history: bool,
    headers: &HeaderMap,
) -> Result<(Params, SearchResults), (StatusCode, String)> {
    let p = params(raw, &state.opts).map_err(|e| (StatusCode::BAD_REQUEST, e))?;
    let Some(q) = p.query.clone() else {
        return Err((StatusCode::BAD_REQUEST, NO_QUERY.into()));
    };
    let r = run_search(state, &p, q, history, headers).await?;
    Ok((p, r))
}

async fn opensearch_rss(
    State(state): State<Arc<AppState>>,
    Query(raw): Query<Vec<(String, String)>>,
    headers: HeaderMap,
) -> Response {
    match query_search(&state, raw, false, &headers).await {
        Ok((p, mut r)) => {
            // A feed reader resolves no link against the feed's address: the capture
            // view's links are made absolute (this server's public address or Host).
            let base = web::base_url(state.opts.public_url.as_deref(), &headers);
            for h in &mut r.hits {
                for link in h.replay.iter_mut().filter(|l| l.starts_with('/')) {
                    *link = format!("{base}{link}");
                }
            }
            let echo: Vec<(&str, String)> =
                p.raw.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
            with_type(
                StatusCode::OK,
                "application/rss+xml; charset=utf-8",
                opensearch::rss(&r, &echo),
            )
        }
        Err((status, e)) => plain(status, e),
    }
}

async fn search_json(
    State(state): State<Arc<AppState>>,
    Query(raw): Query<Vec<(String, String)>>,
    headers: HeaderMap,
) -> Response {
    match query_search(&state, raw, true, &headers).await {
        Ok((_, r)) => with_type(StatusCode::OK, "application/json", json::to_json(&r)),
        Err((status, e)) => json_error(status, e),
    }
}

async fn healthz(State(state): State<Arc<AppState>>) -> Response {
    let local = match &state.backend {
        Backend::Local(l) => l,
        Backend::Remote(front) => {
            let (ok, body) = front.health().await;
            let code = match ok {
                true => StatusCode::OK,
                false => StatusCode::SERVICE_UNAVAILABLE,
            };
            return with_type(
                code,
                "application/json",
                serde_json::to_string_pretty(&body).expect("serializes"),
            );
        }
    };
    let loaded = current(local, &state.opts).await;
    let sets = loaded.index.sets();
    let broken = loaded.index.broken();
    let status = match (sets.is_empty(), broken.is_empty()) {
        (true, _) => "down",
        (false, true) => "ok",
        (false, false) => "degraded",
    };
    // Names and document counts only: the sets' directories and a refused set's error
    // (which names its files) are the server's file system, for its log, not for any
    // client (issue 39).
    let body = serde_json::json!({
        "status": status,
        "sets": sets
            .iter()
            .map(|s| serde_json::json!({ "name": s.name, "documents": s.documents }))
            .collect::<Vec<_>>(),
        "broken": broken
            .iter()
            .map(|b| serde_json::json!({ "name": b.name }))
            .collect::<Vec<_>>(),
    });
    let code = if sets.is_empty() {
        StatusCode::SERVICE_UNAVAILABLE
    } else {
        StatusCode::OK
    };
    with_type(
        code,
        "application/json",
        serde_json::to_string_pretty(&body).expect("serializes"),
    )
}

/// `/warcs/NAME` (`GET` and `HEAD`): the archive recorded as NAME, whole or one byte range
/// (src/serve/warcs.rs). A front server holds no archives.
async fn warc(
    State(state): State<Arc<AppState>>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Response {
    match &state.backend {
        Backend::Local(l) => {
            let viewer = state.opts.viewer(&headers);
            let (archives, positions) = (l.archives.clone(), l.positions.clone());
            warcs::archive(archives, positions, name, &headers, viewer).await
        }
        Backend::Remote(_) => plain(
            StatusCode::NOT_FOUND,
            "a front server holds no archives: ask the shard servers".into(),
        ),
    }
}

/// The index of a shard server (the shard routes exist only on one).
fn local_index(state: &AppState) -> &LocalState {
    match &state.backend {
        Backend::Local(l) => l,
        Backend::Remote(_) => unreachable!("the shard routes are only on a server of sets"),
    }
}

/// The query of a shard request, required.
fn shard_query(raw: &[(String, String)]) -> Result<String, (StatusCode, String)> {
    query_param(raw).ok_or((StatusCode::BAD_REQUEST, NO_QUERY.into()))
}

fn json_result<T: serde::Serialize>(r: Result<T, (StatusCode, String)>) -> Response {
    match r {
        Ok(v) => with_type(
            StatusCode::OK,
            "application/json",
            serde_json::to_string(&v).expect("serializes"),
        ),
        Err((status, e)) => json_error(status, e),
    }
}

/// `/shard/stats.json?query=Q`: the statistics of the query's terms over this server's
/// sets, which a front server sums over its shard servers; under access rules, over
/// the versions the user the front passes on may see.
async fn shard_stats(
    State(state): State<Arc<AppState>>,
    Query(raw): Query<Vec<(String, String)>>,
    headers: HeaderMap,
) -> Response {
    let r = async {
        let query = shard_query(&raw)?;
        let loaded = current(local_index(&state), &state.opts).await;
        let viewer = state.opts.viewer(&headers);
        blocking(&state.permits, move || {
            loaded.index.term_stats(&query, viewer.as_ref())
        })
        .await
    };
    json_result(r.await)
}

/// `POST /shard/search.json?query=Q&need=N&hitsPerSite=P` with the collection's term
/// statistics as the JSON body: this server's best N hits under the per-site limit.
async fn shard_search(
    State(state): State<Arc<AppState>>,
    Query(raw): Query<Vec<(String, String)>>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    let r = async {
        let query = shard_query(&raw)?;
        let bad = |e: String| (StatusCode::BAD_REQUEST, e);
        let need = number(&raw, &["need"], 11).map_err(bad)?;
        let per_site = number(&raw, &["hitsPerSite"], state.opts.hits_per_site).map_err(bad)?;
        let stats: TermStats = serde_json::from_slice(&body)
            .map_err(|e| bad(format!("the body is not term statistics: {e}")))?;
        let loaded = current(local_index(&state), &state.opts).await;
        let viewer = state.opts.viewer(&headers);
        blocking(&state.permits, move || {
            (loaded.index).search_shard(&query, per_site, need, &stats, viewer.as_ref())
        })
        .await
    };
    json_result(r.await)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn near(pairs: &[(&str, &str)]) -> Result<NearDisplay, String> {
        let raw: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        near_display(&raw)
    }

    #[test]
    fn near_duplicate_parameters() {
        assert_eq!(near(&[]), Ok(NearDisplay::default()));
        let both = near(&[("nearDups", "show"), ("collapse", "near")]).unwrap();
        assert!(both.show_versions && both.collapse_urls);
        // The last value wins, as for the other parameters.
        let last = near(&[("collapse", "near"), ("collapse", "none")]).unwrap();
        assert!(!last.collapse_urls);
        assert!(near(&[("nearDups", "hide")])
            .unwrap_err()
            .contains("nearDups"));
        assert!(near(&[("collapse", "<b>")])
            .unwrap_err()
            .contains("collapse"));
    }
}
