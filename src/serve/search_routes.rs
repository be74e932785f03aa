//! The search routes: `/` (the page), `/opensearch`, `/search.json`, `/healthz`,
//! `/warcs/NAME`, and the shard routes a front server asks (`/shard/stats.json`,
//! `/shard/search.json`).

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;

use crate::render::page::{self, PageRequest};
use crate::render::{json, opensearch};
use crate::search::{SearchError, SearchRequest, SearchResults, Selection, TermStats};

use super::params::{number, BadParams, Params, NO_QUERY};
use super::respond::{blocking, html, json_error, json_result, plain, status_of, with_type};
use super::state::{current, AppState, Backend, LocalState};
use super::{warcs, web};

/// Runs the search of `selection` on the blocking pool (`history`: see
/// [`SearchRequest::history`]).
pub(super) async fn run_search(
    state: &Arc<AppState>,
    p: &Params,
    selection: Selection,
    history: bool,
    headers: &HeaderMap,
) -> Result<SearchResults, (StatusCode, String)> {
    let req = SearchRequest {
        viewer: selection.viewer,
        order: p.order,
        query: selection.text,
        start: p.start,
        hits: p.hits,
        hits_per_site: p.hits_per_site,
        replay_prefix: state.opts.replay_prefix.clone(),
        near: p.near,
        history,
        strict: p.strict,
    };
    run_request(state, req, headers).await
}

/// Runs `req` here on the blocking pool, or on the shard servers of a front server (the
/// user `headers` name forwarded to them).
pub(super) async fn run_request(
    state: &Arc<AppState>,
    req: SearchRequest,
    headers: &HeaderMap,
) -> Result<SearchResults, (StatusCode, String)> {
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

/// The selection of a request, required: a 400 without a query or with a malformed one.
pub(super) fn required_selection(p: &Params) -> Result<Selection, (StatusCode, String)> {
    match p.selection() {
        Ok(Some(s)) => Ok(s),
        Ok(None) => Err((StatusCode::BAD_REQUEST, NO_QUERY.into())),
        Err(e) => Err(status_of(SearchError::Query(e))),
    }
}

pub(super) async fn search_page(
    State(state): State<Arc<AppState>>,
    p: Result<Params, BadParams>,
    headers: HeaderMap,
) -> Response {
    let p = match p {
        Ok(p) => p,
        Err(BadParams(e)) => {
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
        strict: p.strict,
    };
    if p.query.is_none() {
        return html(
            StatusCode::OK,
            page::render(&req, None, None, &state.current_footer().await),
        );
    }
    let r = match required_selection(&p) {
        Ok(selection) => run_search(&state, &p, selection, true, &headers).await,
        Err(e) => Err(e),
    };
    let footer = &state.footer();
    match r {
        Ok(r) => html(StatusCode::OK, page::render(&req, Some(&r), None, footer)),
        Err((status, e)) => html(status, page::render(&req, None, Some(&e), footer)),
    }
}

/// The API routes' common part: a query required (400 without), the search
/// (`history`: see [`SearchRequest::history`]).
pub(super) async fn query_search(
    state: &Arc<AppState>,
    p: &Params,
    history: bool,
    headers: &HeaderMap,
) -> Result<SearchResults, (StatusCode, String)> {
    let selection = required_selection(p)?;
    run_search(state, p, selection, history, headers).await
}

pub(super) async fn opensearch_rss(
    State(state): State<Arc<AppState>>,
    p: Params,
    headers: HeaderMap,
) -> Response {
    match query_search(&state, &p, false, &headers).await {
        Ok(mut r) => {
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

pub(super) async fn search_json(
    State(state): State<Arc<AppState>>,
    p: Result<Params, BadParams>,
    headers: HeaderMap,
) -> Response {
    let p = match p {
        Ok(p) => p,
        Err(BadParams(e)) => return json_error(StatusCode::BAD_REQUEST, e),
    };
    match query_search(&state, &p, true, &headers).await {
        Ok(r) => with_type(StatusCode::OK, "application/json", json::to_json(&r)),
        Err((status, e)) => json_error(status, e),
    }
}

pub(super) async fn healthz(State(state): State<Arc<AppState>>) -> Response {
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
    // client.
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
pub(super) async fn warc(
    State(state): State<Arc<AppState>>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Response {
    match &state.backend {
        Backend::Local(_) if name == super::cdxj_index::INDEX_NAME => {
            super::cdxj_index::index_cdxj(&state, &headers).await
        }
        Backend::Local(l) => {
            let viewer = state.opts.viewer(&headers);
            let (collection, positions) = (l.collection.clone(), l.positions.clone());
            warcs::archive(collection, positions, name, &headers, viewer).await
        }
        Backend::Remote(_) => plain(
            StatusCode::NOT_FOUND,
            "a front server holds no archives: ask the shard servers".into(),
        ),
    }
}

/// The index of a shard server (the shard routes exist only on one).
pub(super) fn local_index(state: &AppState) -> &LocalState {
    match &state.backend {
        Backend::Local(l) => l,
        Backend::Remote(_) => unreachable!("the shard routes are only on a server of sets"),
    }
}

/// The query of a shard request, required.
fn shard_query(p: &Params) -> Result<String, (StatusCode, String)> {
    (p.query.clone()).ok_or((StatusCode::BAD_REQUEST, NO_QUERY.into()))
}

/// `/shard/stats.json?query=Q`: the statistics of the query's terms over this server's
/// sets, which a front server sums over its shard servers; under access rules, over
/// the versions the user the front passes on may see.
pub(super) async fn shard_stats(State(state): State<Arc<AppState>>, p: Params) -> Response {
    shard_answer(&state, p, |index, query, viewer| {
        index.term_stats(query, viewer)
    })
    .await
}

/// A shard route that asks this server's sets one thing of the request's query for the
/// user the front passes on, on the blocking pool, and answers it as JSON.
async fn shard_answer<T: serde::Serialize + Send + 'static>(
    state: &AppState,
    p: Params,
    ask: impl FnOnce(
            &crate::search::SearchIndex,
            &str,
            Option<&crate::access::Viewer>,
        ) -> Result<T, SearchError>
        + Send
        + 'static,
) -> Response {
    let r = async {
        let query = shard_query(&p)?;
        let loaded = current(local_index(state), &state.opts).await;
        let viewer = p.viewer;
        blocking(&state.permits, move || {
            ask(&loaded.index, &query, viewer.as_ref())
        })
        .await
    };
    json_result(r.await)
}

/// `/shard/suggest.json?query=Q`: this server's suggestion for a query the front server
/// found nothing for (`{"suggestion": "…"}` or `null`), under the access rules of the
/// user the front passes on.
pub(super) async fn shard_suggest(State(state): State<Arc<AppState>>, p: Params) -> Response {
    shard_answer(&state, p, |index, query, viewer| {
        (index.shard_suggestion(query, viewer))
            .map(|suggestion| crate::search::ShardSuggestion { suggestion })
    })
    .await
}

/// `POST /shard/search.json?query=Q&need=N&hitsPerSite=P[&minWords=K]` with the collection's term
/// statistics as the JSON body: this server's best N hits under the per-site limit.
pub(super) async fn shard_search(
    State(state): State<Arc<AppState>>,
    p: Params,
    body: axum::body::Bytes,
) -> Response {
    let r = async {
        let query = shard_query(&p)?;
        let bad = |e: String| (StatusCode::BAD_REQUEST, e);
        let need = number(&p.raw, &["need"], 11).map_err(bad)?;
        let min_words = match number(&p.raw, &["minWords"], 0).map_err(bad)? {
            0 => None,
            k => Some(k),
        };
        let per_site = p.hits_per_site;
        let stats: TermStats = serde_json::from_slice(&body)
            .map_err(|e| bad(format!("the body is not term statistics: {e}")))?;
        let loaded = current(local_index(&state), &state.opts).await;
        let viewer = p.viewer;
        blocking(&state.permits, move || {
            let viewer = viewer.as_ref();
            (loaded.index).search_shard(&query, per_site, need, &stats, viewer, min_words)
        })
        .await
    };
    json_result(r.await)
}
