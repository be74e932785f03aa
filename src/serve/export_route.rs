//! `GET /export?query=…&format=csv|jsonl|parquet|warc|wacz[&fields=…][&asOf=…]`: every
//! version the query matches, streamed as the blocking pool reads them (`streamed.rs`),
//! under the asker's access rules; what `warcdex export` writes (src/export/). A WARC
//! streams as its records are read; a WACZ is packed in a temporary folder first (its
//! index is made from the finished WARC), then sent: the folder's size is capped
//! (`serve --export-tmp-limit`, a 507 past it) and packing stops when the client goes
//! away.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;

use super::params::Params;
use super::search_routes::required_selection;
use super::streamed::streamed;
use super::{current, plain, AppState, Backend};
use crate::export::{
    default_fields, export as export_to, parse_fields, Export, ExportError, ExportFormat,
    ExportReport, WaczScratch,
};
use crate::search::SearchError;

/// Exports running at once: each takes a search permit while it computes (a WACZ for all
/// of its packing), so a client asking for many at once must not take the permits from
/// the searches.
const MAX_EXPORTS: usize = 2;

static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// One running export, counted while it lives.
struct Running;

impl Running {
    fn start() -> Option<Running> {
        let n = RUNNING.fetch_add(1, Ordering::SeqCst);
        if n >= MAX_EXPORTS {
            RUNNING.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        Some(Running)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING.fetch_sub(1, Ordering::SeqCst);
    }
}

/// `GET /export`.
pub(super) async fn export(State(state): State<Arc<AppState>>, p: Params) -> Response {
    let Backend::Local(local) = &state.backend else {
        return plain(
            StatusCode::NOT_IMPLEMENTED,
            "/export is answered by the servers of sets, not by a front server".into(),
        );
    };
    let Some(format) = ExportFormat::parse(p.last("format").unwrap_or("csv")) else {
        return plain(
            StatusCode::BAD_REQUEST,
            "format is csv, jsonl, parquet, warc or wacz".into(),
        );
    };
    let fields = match p.last("fields") {
        None => default_fields(),
        Some(f) => match parse_fields(f) {
            Ok(f) => f,
            Err(e) => return plain(StatusCode::BAD_REQUEST, format!("fields: {e}")),
        },
    };
    let requisites = match p.last("requisites") {
        None | Some("1" | "yes" | "true") => true,
        Some("0" | "no" | "false") => false,
        Some(v) => {
            return plain(
                StatusCode::BAD_REQUEST,
                format!("requisites is yes or no, not {v:?}"),
            )
        }
    };
    // A missing or malformed query or date is found before the answer starts.
    let selection = match required_selection(&p) {
        Ok(s) => s,
        Err((status, e)) => return plain(status, e),
    };
    let Some(running) = Running::start() else {
        return plain(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("{MAX_EXPORTS} exports are running: try again when one is done"),
        );
    };
    let loaded = current(local, &state.opts).await;
    let collection = local.collection.clone();
    let scratch_dir = (state.opts.export_tmp_dir.clone()).unwrap_or_else(std::env::temp_dir);
    let scratch_limit = state.opts.export_tmp_limit;
    streamed(&state.permits, move |w| {
        let _running = running;
        if format.holds_records() && !collection.cdx_path().is_file() {
            return Err((
                StatusCode::NOT_FOUND,
                "this collection has no CDX index (all.cdx) to export records by".to_string(),
            ));
        }
        let mut h = HeaderMap::new();
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(format.content_type()),
        );
        h.insert(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        );
        let name = format!("attachment; filename=\"{}\"", format.file_name());
        h.insert(
            header::CONTENT_DISPOSITION,
            HeaderValue::from_str(&name).expect("a file name of ours is a header value"),
        );
        w.start(StatusCode::OK, h);
        let gone = w.client_gone();
        let what = Export {
            format,
            fields,
            scratch: WaczScratch {
                dir: &scratch_dir,
                limit: scratch_limit,
                cancelled: &gone,
            },
            requisites,
        };
        let done = export_to(&loaded.index, &collection, &selection, &what, w, &()).map(|r| {
            if let ExportReport::Records(r) = r {
                if r.failed > 0 {
                    eprintln!("warcdex serve: /export: {}", r.summary());
                }
            }
        });
        done.map_err(|e| match e {
            ExportError::Search(SearchError::Query(e)) => (StatusCode::BAD_REQUEST, e.0),
            e @ ExportError::ScratchFull { .. } => {
                (StatusCode::INSUFFICIENT_STORAGE, e.to_string())
            }
            // Nobody to answer.
            e @ ExportError::Cancelled => (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
            e => {
                eprintln!("warcdex serve: /export: {}", crate::path_error::Chain(&e));
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "the export failed".into(),
                )
            }
        })
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_most_two_exports_run_at_once() {
        let a = Running::start().unwrap();
        let b = Running::start().unwrap();
        assert!(Running::start().is_none());
        drop(a);
        let c = Running::start().unwrap();
        drop((b, c));
        assert_eq!(RUNNING.load(Ordering::SeqCst), 0);
    }
}
