//! Response helpers: plain text, HTML and JSON answers with their types, a failed
//! search's status, and work run on the blocking pool under a search permit.

use super::streamed;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::search::SearchError;

/// The HTTP status and message of a failed search.
pub(super) fn status_of(e: SearchError) -> (StatusCode, String) {
    match e {
        SearchError::Query(e) => (StatusCode::BAD_REQUEST, e.to_string()),
        e @ SearchError::Statistics(_) => (
            StatusCode::BAD_REQUEST,
            crate::path_error::Chain(&e).to_string(),
        ),
        e => {
            let text = crate::path_error::Chain(&e).to_string();
            eprintln!("warcdex serve: {text}");
            (StatusCode::INTERNAL_SERVER_ERROR, text)
        }
    }
}

/// Runs a search of the index on the blocking pool (tantivy is synchronous), holding one
/// of `permits` (which the writers of streamed answers share) for its length.
pub(super) async fn blocking<T: Send + 'static>(
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

pub(super) fn with_type(status: StatusCode, content_type: &'static str, body: String) -> Response {
    let mut r = (status, body).into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    r
}

pub(super) fn html(status: StatusCode, body: String) -> Response {
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

pub(super) fn plain(status: StatusCode, msg: String) -> Response {
    with_type(status, "text/plain; charset=utf-8", msg + "\n")
}

pub(super) fn json_error(status: StatusCode, msg: String) -> Response {
    with_type(
        status,
        "application/json",
        serde_json::json!({ "error": msg }).to_string(),
    )
}

pub(super) fn json_result<T: serde::Serialize>(r: Result<T, (StatusCode, String)>) -> Response {
    match r {
        Ok(v) => with_type(
            StatusCode::OK,
            "application/json",
            serde_json::to_string(&v).expect("serializes"),
        ),
        Err((status, e)) => json_error(status, e),
    }
}
