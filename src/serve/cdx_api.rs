//! `GET /cdx`: pywb 2.10's CDX server API over the collection's `all.cdx`
//! ([`warcdex_cdx::query`]; parameters and differences in docs/api.md).
//!
//! `all.cdx` is opened per request, so a collection that replaces it by rename is seen
//! at once. The query runs on a writer thread of its own, taking a search permit only
//! while it reads, and its answer is streamed (`streamed.rs`): memory stays a few pieces
//! whatever the answer's size, and a client that reads slowly holds no search thread.

use std::io;
use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::Response;
use warcdex_cdx::query::{AccessTest, AnswerError, CdxQuery};

use crate::access::Access;

use super::streamed::{streamed, Refusal};
use super::{plain, AppState, Backend};

/// `GET /cdx?…`.
pub(super) async fn cdx(
    State(state): State<Arc<AppState>>,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let local =
        match &state.backend {
            Backend::Local(l) => l,
            Backend::Remote(_) => return plain(
                StatusCode::NOT_IMPLEMENTED,
                "/cdx is answered by the servers of sets, not by a front server (serve --remote)"
                    .into(),
            ),
        };
    let collection = local.collection.clone();
    let query = uri.query().unwrap_or("").as_bytes().to_vec();
    let viewer = state.opts.viewer(&headers).filter(|v| !v.sees_everything());
    streamed(&state.permits, move |w| {
        let mut query =
            CdxQuery::parse(&query).map_err(|e| (StatusCode::BAD_REQUEST, e.message))?;
        if let Some(v) = viewer {
            // Blocked captures are left out with the excluded: a CDX line tells the
            // capture's date and digest, which a blocked capture's reader may not learn.
            query = query.with_access(AccessTest(Arc::new(move |key: &str, ts: &str| {
                v.access(key.as_bytes(), ts.parse().unwrap_or(0)) == Access::Allow
            })));
        }
        let cdx = collection.cdx().map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => (
                StatusCode::NOT_FOUND,
                "this collection has no CDX index (all.cdx)".to_string(),
            ),
            _ => unreadable(e),
        })?;
        let mut h = HeaderMap::new();
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(query.output().content_type()),
        );
        h.insert(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        );
        w.start(StatusCode::OK, h);
        query.answer(&cdx, w).map_err(|e| match e {
            AnswerError::Query(e) => (StatusCode::BAD_REQUEST, e.message),
            AnswerError::Io(e) => unreadable(e),
        })
    })
    .await
}

/// A 500 whose detail goes to the log.
fn unreadable(e: io::Error) -> Refusal {
    // A client that went away or stopped reading is no fault of the index.
    if !matches!(
        e.kind(),
        io::ErrorKind::BrokenPipe | io::ErrorKind::TimedOut
    ) {
        eprintln!("warcdex serve: /cdx: {e}");
    }
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        "the CDX index cannot be read".into(),
    )
}
