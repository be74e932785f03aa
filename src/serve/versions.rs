//! `/history/URL` and `/diff/DATE1/DATE2/URL`: a URL's versions with the share
//! of words each changed, and what changed between two of them, word by word. The pages
//! are `replay::versions_page`'s; the versions come from the search index
//! (`search::history`), so they are the versions a search shows.

use std::io::Write;

use axum::http::{HeaderMap, StatusCode};

use super::capture_route::{
    blocked_refusal, index_route, not_archived, page_headers, refusal, server_error, St,
};
use super::streamed::{Refusal, Streamer};
use super::web::PREFIX;
use crate::access::{Access, Viewer};
use crate::path_error::Chain;
use crate::replay::versions_page::{diff_page, history_page};
use crate::search::history::{diff_versions, history, history_for, pad_date, Version};

pub(super) fn versions_of(
    index: &super::Loaded,
    url: &str,
    viewer: Option<&Viewer>,
) -> Result<Vec<Version>, Refusal> {
    let versions =
        history_for(&index.index, url, viewer).map_err(|e| server_error(&Chain(&e).to_string()))?;
    if versions.is_empty() {
        return Err(absent(index, url, viewer));
    }
    Ok(versions)
}

/// A URL with no version to show: a 451 when a capture of it is blocked to the asker,
/// else as if it had never been archived.
pub(super) fn absent(index: &super::Loaded, url: &str, viewer: Option<&Viewer>) -> Refusal {
    let Some(v) = viewer.filter(|v| !v.sees_everything()) else {
        return not_archived(url);
    };
    let all = history(&index.index, url).unwrap_or_default();
    let key = warcdex_cdx::surt::surt_key(url).unwrap_or_default();
    let blocked = (all.iter().flat_map(|v| v.dates.iter()))
        .any(|d| v.access(key.as_bytes(), d.parse().unwrap_or(0)) == Access::Block);
    match blocked {
        true => blocked_refusal(url),
        false => not_archived(url),
    }
}

fn write_page(out: &mut Streamer, page: &str) -> Result<(), Refusal> {
    out.start(StatusCode::OK, page_headers());
    out.write_all(page.as_bytes())
        .map_err(|e| refusal(StatusCode::OK, e.to_string()))
}

/// `/history/URL`.
fn history_of(
    index: &super::Loaded,
    url: &str,
    viewer: Option<&Viewer>,
    out: &mut Streamer,
) -> Result<(), Refusal> {
    let versions = versions_of(index, url, viewer)?;
    write_page(out, &history_page(PREFIX, url, &versions))
}

/// `/diff/DATE1/DATE2/URL`: the versions holding the captures nearest the two dates.
fn diff_of(
    index: &super::Loaded,
    rest: &str,
    viewer: Option<&Viewer>,
    out: &mut Streamer,
) -> Result<(), Refusal> {
    let mut parts = rest.splitn(3, '/');
    let (Some(d1), Some(d2), Some(url)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(refusal(
            StatusCode::BAD_REQUEST,
            "give /diff/DATE1/DATE2/URL",
        ));
    };
    if pad_date(d1).is_none() || pad_date(d2).is_none() {
        return Err(refusal(
            StatusCode::BAD_REQUEST,
            "the dates are 4 to 14 digits (YYYY[MM[DD[hh[mm[ss]]]]])",
        ));
    }
    let v = diff_versions(&index.index, url, d1, d2, viewer)
        .map_err(|e| server_error(&Chain(&e).to_string()))?
        .ok_or_else(|| absent(index, url, viewer))?;
    let page = diff_page(
        PREFIX,
        url,
        (&v.old.0, &v.old.1),
        (&v.new.0, &v.new.1),
        &v.diff,
    );
    write_page(out, &page)
}

/// `GET /history/URL`.
pub(crate) async fn history_route(
    axum::extract::State(state): St,
    uri: axum::http::Uri,
    headers: HeaderMap,
) -> axum::response::Response {
    index_route(&state, &uri, &headers, "/history/", |a, index, url, out| {
        history_of(&index, &url, a.viewer.as_ref(), out)
    })
    .await
}

/// `GET /diff/DATE1/DATE2/URL`.
pub(crate) async fn diff_route(
    axum::extract::State(state): St,
    uri: axum::http::Uri,
    headers: HeaderMap,
) -> axum::response::Response {
    index_route(&state, &uri, &headers, "/diff/", |a, index, rest, out| {
        diff_of(&index, &rest, a.viewer.as_ref(), out)
    })
    .await
}
