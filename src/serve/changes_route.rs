//! `GET /changes` (Atom) and `/changes.json`: what changed in a window — `since=DATE`
//! (`until=DATE`), or `batch=NAME|last` — optionally for the URLs under `prefix=URL` or
//! with a version `query=Q` matches: new versions of URLs captured before with the
//! share of words changed, new URLs and gone URLs, listed apart (`crate::recrawl::feed`),
//! under the asker's access rules; at most `limit` (default 500, at most 10,000) of each
//! kind, all counted. Made on the blocking pool, spilled to temporary files, streamed.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::Response;

use super::params::Params;
use super::streamed::streamed;
use super::{current, plain, AppState, Backend};
use crate::recrawl::feed::{collect, window_of, write_atom, write_json, FeedOptions, KeyFilter};
use crate::search::SearchError;

/// Entries of each kind a feed lists by default.
const DEFAULT_LIMIT: u64 = 500;
/// The most a request may ask for.
const MAX_LIMIT: u64 = 10_000;

/// `GET /changes` (Atom unless `format=json`).
pub(super) async fn changes_atom(state: State<Arc<AppState>>, p: Params, uri: Uri) -> Response {
    let json = p.last("format") == Some("json");
    changes(state, p, uri, json).await
}

/// `GET /changes.json`.
pub(super) async fn changes_json(state: State<Arc<AppState>>, p: Params, uri: Uri) -> Response {
    changes(state, p, uri, true).await
}

async fn changes(State(state): State<Arc<AppState>>, p: Params, uri: Uri, json: bool) -> Response {
    let Backend::Local(local) = &state.backend else {
        return plain(
            StatusCode::NOT_IMPLEMENTED,
            "/changes is answered by the servers of sets, not by a front server".into(),
        );
    };
    let limit = match p.last("limit").map(str::parse::<u64>) {
        None => DEFAULT_LIMIT,
        Some(Ok(n)) if (1..=MAX_LIMIT).contains(&n) => n,
        Some(_) => {
            return plain(
                StatusCode::BAD_REQUEST,
                format!("limit is a number from 1 to {MAX_LIMIT}"),
            )
        }
    };
    let selection = match p.selection() {
        Ok(s) => s,
        Err(e) => return plain(StatusCode::BAD_REQUEST, format!("bad query: {e}")),
    };
    let collection = local.collection.clone();
    let window = window_of(
        &collection,
        p.last("since"),
        p.last("until"),
        p.last("batch"),
    );
    let (window, label) = match window {
        Ok(w) => w,
        Err(e) => return plain(StatusCode::BAD_REQUEST, e),
    };
    let opts = FeedOptions {
        window,
        label,
        prefix: p.last("prefix").map(str::to_string),
        limit: Some(limit),
        sort: warcdex_cdx::SortOptions {
            memory: 16 << 20,
            tmp_dir: None,
            unique: false,
        },
    };
    let viewer = p.viewer.clone();
    let loaded = current(local, &state.opts).await;
    let base = (state.opts.public_url.clone().unwrap_or_default())
        .trim_end_matches('/')
        .to_string();
    let self_link = uri
        .path_and_query()
        .map_or("/changes".to_string(), |p| p.as_str().to_string());
    let name = collection.dir_name().unwrap_or_default();
    streamed(&state.permits, move |w| {
        if !collection.cdx_path().is_file() {
            return Err((
                StatusCode::NOT_FOUND,
                "this collection has no CDX index (all.cdx)".to_string(),
            ));
        }
        let index = &loaded.index;
        let filter = match &selection {
            None => None,
            Some(s) => Some(KeyFilter::of_matches(index, s, opts.sort.clone()).map_err(
                |e| match e {
                    SearchError::Query(q) => (StatusCode::BAD_REQUEST, format!("bad query: {q}")),
                    e => (
                        StatusCode::INTERNAL_SERVER_ERROR,
                        crate::path_error::Chain(&e).to_string(),
                    ),
                },
            )?),
        };
        let feed = collect(&collection, Some(index), &opts, viewer.as_ref(), filter).map_err(
            |e| match e.kind() {
                std::io::ErrorKind::InvalidInput => (StatusCode::BAD_REQUEST, e.to_string()),
                _ => (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
            },
        )?;
        let mut h = HeaderMap::new();
        let kind = if json {
            "application/json"
        } else {
            "application/atom+xml; charset=utf-8"
        };
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
        w.start(StatusCode::OK, h);
        let written = if json {
            write_json(&feed, &name, w)
        } else {
            write_atom(&feed, &name, &base, &self_link, w)
        };
        written.map_err(|e| (StatusCode::OK, e.to_string()))
    })
    .await
}
