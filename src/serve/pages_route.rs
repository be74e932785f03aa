//! `GET /pages`: the page query wabac.js asks a server for (ReplayWeb.page's
//! `pagesQueryUrl`, wabac.js 2.27), so that a replay client can search a warcdex
//! collection and learn which file holds a page:
//! - `?search=WORDS&page=P&pageSize=N`: the full-text search, ranked, under the access
//!   rules, one item a version (its first capture); without `search`, every version;
//! - `?url=URL[&page=P&pageSize=N]`: the captures of exactly that URL, from the CDX,
//!   under the access rules, in date order.
//!
//! The answer is `{"total": T, "items": [{"url", "ts", "title", "filename", "mime",
//! "status"}]}`: `ts` in ISO 8601 (wabac.js reads it with `new Date`), `filename` the file
//! the collection holds the capture in (a WACZ's own name for a WARC inside it, the name
//! wabac.js loads it by), `title` empty for a URL lookup (the CDX has none). `page` counts
//! from 1; `pageSize` is at most [`MAX_HITS_PER_PAGE`].

use std::io::Write;
use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use serde_json::{json, Value};
use warcdex_cdx::date::Date14;
use warcdex_cdx::surt::surt_key;

use super::capture_route::{capture_route, refusal, server_error, with_captures, St};
use super::params::{number, BadParams, Params};
use super::respond::{json_error, status_of, with_type};
use super::search_routes::run_search;
use super::state::{AppState, Backend};
use crate::collection::Collection;
use crate::search::{SearchError, Selection, MAX_HITS_PER_PAGE};

/// Items a page holds when `pageSize` is not given (wabac.js's own default).
const DEFAULT_PAGE_SIZE: usize = 25;

/// `page` and `pageSize`: the first item's place and how many.
fn window(p: &Params) -> Result<(usize, usize), String> {
    let size = number(&p.raw, &["pageSize"], DEFAULT_PAGE_SIZE)?.clamp(1, MAX_HITS_PER_PAGE);
    let page = number(&p.raw, &["page"], 1)?.max(1);
    Ok(((page - 1).saturating_mul(size), size))
}

/// `GET /pages`.
pub(super) async fn pages(
    State(state): St,
    p: Result<Params, BadParams>,
    headers: HeaderMap,
) -> Response {
    let p = match p {
        Ok(p) => p,
        Err(BadParams(e)) => return json_error(StatusCode::BAD_REQUEST, e),
    };
    let (start, size) = match window(&p) {
        Ok(w) => w,
        Err(e) => return json_error(StatusCode::BAD_REQUEST, e),
    };
    if let Some(url) = p.last("url") {
        return url_lookup(&state, &headers, url.to_string(), start, size).await;
    }
    match search(&state, &p, start, size, &headers).await {
        Ok(body) => with_type(StatusCode::OK, "application/json", body.to_string()),
        Err((status, e)) => json_error(status, e),
    }
}

/// The ranked search of `search` (every version without it).
async fn search(
    state: &Arc<AppState>,
    p: &Params,
    start: usize,
    size: usize,
    headers: &HeaderMap,
) -> Result<Value, (StatusCode, String)> {
    let text = p.last("search").unwrap_or("*");
    let selection = Selection::as_of(text, p.as_of.as_deref(), p.viewer.clone())
        .map_err(|e| status_of(SearchError::Query(e)))?;
    let window = Params {
        start,
        hits: size,
        // A page list: every version, not a few a site.
        hits_per_site: 0,
        query: Some(text.to_string()),
        raw: Vec::new(),
        viewer: p.viewer.clone(),
        as_of: p.as_of.clone(),
        ..*p
    };
    let r = run_search(state, &window, selection, false, headers).await?;
    let collection = match &state.backend {
        Backend::Local(l) => Some(l.collection.clone()),
        Backend::Remote(_) => None,
    };
    let items: Vec<Value> = (r.hits.iter())
        .map(|h| {
            item(
                &h.url,
                h.dates.first().map_or("", String::as_str),
                &h.title,
                &holder(collection.as_deref(), &h.filename),
                &h.mime,
            )
        })
        .collect();
    Ok(json!({ "total": r.total, "items": items }))
}

/// The captures of exactly `url`, from the CDX.
async fn url_lookup(
    state: &AppState,
    headers: &HeaderMap,
    url: String,
    start: usize,
    size: usize,
) -> Response {
    capture_route(state, headers, move |ctx, out| {
        let key = surt_key(&url).map_err(|e| {
            refusal(
                StatusCode::BAD_REQUEST,
                format!("not a URL the CDX can key: {e}"),
            )
        })?;
        let mut items = Vec::new();
        let (total, _) = with_captures(&ctx.collection, &key, ctx.viewer.as_ref(), |caps| {
            let mut total = 0u64;
            for c in caps {
                let c = c?;
                if c.original != url {
                    continue;
                }
                if total as usize >= start && items.len() < size {
                    let mut i = item(
                        &c.original,
                        &c.timestamp,
                        "",
                        &holder(Some(&ctx.collection), &c.filename),
                        &c.mime,
                    );
                    i["status"] = c.status.parse::<u16>().map_or(Value::Null, Value::from);
                    items.push(i);
                }
                total += 1;
            }
            Ok(total)
        })?;
        let mut h = HeaderMap::new();
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        h.insert(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        );
        out.start(StatusCode::OK, h);
        let body = json!({ "total": total, "items": items }).to_string();
        out.write_all(body.as_bytes())
            .map_err(|e| server_error(&format!("/pages: {e}")))
    })
    .await
}

/// One item of the answer.
fn item(url: &str, date: &str, title: &str, filename: &str, mime: &str) -> Value {
    let ts = Date14::parse(date).map_or_else(|_| date.to_string(), |d| d.iso());
    json!({ "url": url, "ts": ts, "title": title, "filename": filename, "mime": mime })
}

/// The name of the file that holds archive `name`: a WACZ's for a WARC inside one (the
/// name a replay client loads it by), else the archive's own.
fn holder(collection: Option<&Collection>, name: &str) -> String {
    let located = collection.and_then(|c| c.archives().location(name).ok().flatten());
    (located.as_ref())
        .and_then(|at| at.path().file_name())
        .map_or_else(|| name.to_string(), |n| n.to_string_lossy().into_owned())
}
