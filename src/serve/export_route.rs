//! `GET /export?query=…&format=csv|jsonl[&fields=…][&asOf=…]`: every version the query
//! matches, streamed as the blocking pool reads them (`streamed.rs`), under the asker's
//! access rules; what `warcdex export` writes (src/export/).

use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;

use super::streamed::streamed;
use super::{current, plain, query_param, AppState, Backend};
use crate::export::{default_fields, export_matches, parse_fields, ExportError, ExportFormat};
use crate::search::SearchError;

/// `GET /export`.
pub(super) async fn export(
    State(state): State<Arc<AppState>>,
    Query(raw): Query<Vec<(String, String)>>,
    headers: HeaderMap,
) -> Response {
    let Backend::Local(local) = &state.backend else {
        return plain(
            StatusCode::NOT_IMPLEMENTED,
            "/export is answered by the servers of sets, not by a front server".into(),
        );
    };
    let last = |name: &str| {
        (raw.iter().rev())
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.trim())
    };
    let Some(mut query) = query_param(&raw) else {
        return plain(StatusCode::BAD_REQUEST, "no query: add ?query=words".into());
    };
    if let Some(at) = last("asOf").filter(|a| !a.is_empty()) {
        query = format!("{query} as-of:{at}");
    }
    let Some(format) = ExportFormat::parse(last("format").unwrap_or("csv")) else {
        return plain(
            StatusCode::BAD_REQUEST,
            "format is csv, jsonl or parquet".into(),
        );
    };
    let fields = match last("fields") {
        None | Some("") => default_fields(),
        Some(f) => match parse_fields(f) {
            Ok(f) => f,
            Err(e) => return plain(StatusCode::BAD_REQUEST, format!("fields: {e}")),
        },
    };
    let viewer = state.opts.viewer(&headers);
    let loaded = current(local, &state.opts).await;
    streamed(move |w| {
        // A malformed query is found before the answer starts.
        crate::search::query::parse(&query).map_err(|e| (StatusCode::BAD_REQUEST, e.0))?;
        let mut h = HeaderMap::new();
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(format.content_type()),
        );
        h.insert(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        );
        let name = match format {
            ExportFormat::Csv => "attachment; filename=\"export.csv\"",
            ExportFormat::Jsonl => "attachment; filename=\"export.jsonl\"",
            ExportFormat::Parquet => "attachment; filename=\"export.parquet\"",
        };
        h.insert(header::CONTENT_DISPOSITION, HeaderValue::from_static(name));
        w.start(StatusCode::OK, h);
        export_matches(
            &loaded.index,
            &query,
            viewer.as_ref(),
            format,
            &fields,
            w,
            &(),
        )
        .map(|_| ())
        .map_err(|e| match e {
            ExportError::Search(SearchError::Query(e)) => (StatusCode::BAD_REQUEST, e.0),
            e => {
                eprintln!("warcdex serve: /export: {e}");
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "the export failed".into(),
                )
            }
        })
    })
    .await
}
