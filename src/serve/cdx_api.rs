//! `GET /cdx`: pywb 2.10's CDX server API over the collection's `all.cdx`
//! ([`warcdex_cdx::query`]; parameters and differences in docs/api.md).
//!
//! `all.cdx` is opened per request, so a collection that replaces it by rename is seen
//! at once. The query runs on the blocking pool and its answer is streamed through a
//! bounded channel: memory stays a few chunks whatever the answer's size. The status is
//! decided before the first chunk leaves (an error found later, such as an unreadable
//! line, cuts the body short), and a client that stops reading for
//! [`STALLED_CLIENT`] frees the thread it held.

use std::io::{self, Write};
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode, Uri};
use axum::response::Response;
use tokio::sync::{mpsc, oneshot};
use warcdex_cdx::lookup::SortedCdx;
use warcdex_cdx::query::{AnswerError, CdxQuery, Output};

use super::{current, plain, AppState, Backend};

/// Bytes gathered before a chunk is sent.
const CHUNK: usize = 32 * 1024;
/// Chunks waiting for the client at most.
const CHUNKS_QUEUED: usize = 4;
/// How long the query waits for a client that reads nothing before giving up.
const STALLED_CLIENT: Duration = Duration::from_secs(60);

/// What the route answers before the body: the layout, or an error response.
type Head = Result<Output, (StatusCode, String)>;

pub(super) async fn cdx(State(state): State<Arc<AppState>>, uri: Uri) -> Response {
    let local =
        match &state.backend {
            Backend::Local(l) => l,
            Backend::Remote(_) => return plain(
                StatusCode::NOT_IMPLEMENTED,
                "/cdx is answered by the servers of sets, not by a front server (serve --remote)"
                    .into(),
            ),
        };
    let loaded = current(local, &state.opts).await;
    let path = loaded.index.dir().join("all.cdx");
    let query = uri.query().unwrap_or("").as_bytes().to_vec();
    let (head_tx, head_rx) = oneshot::channel::<Head>();
    let (body_tx, body_rx) = mpsc::channel::<io::Result<Bytes>>(CHUNKS_QUEUED);
    let rt = tokio::runtime::Handle::current();
    let task = tokio::task::spawn_blocking(move || {
        let mut w = ChunkWriter {
            rt,
            head: Some(head_tx),
            output: Output::Cdxj,
            buf: Vec::with_capacity(CHUNK),
            body: body_tx,
        };
        let query = match CdxQuery::parse(&query) {
            Ok(q) => q,
            Err(e) => return w.fail(StatusCode::BAD_REQUEST, e.message),
        };
        w.output = query.output();
        let cdx = match SortedCdx::open(&path) {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return w.fail(
                    StatusCode::NOT_FOUND,
                    "this collection has no CDX index (all.cdx)".into(),
                )
            }
            Err(e) => {
                eprintln!("warcdex serve: /cdx: {e}");
                return w.fail(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "the CDX index cannot be read".into(),
                );
            }
        };
        let result = query.answer(&cdx, &mut w);
        match result {
            Ok(()) => {
                let _ = w.flush();
            }
            Err(AnswerError::Query(e)) => w.fail(StatusCode::BAD_REQUEST, e.message),
            // The client went away or stalled: nothing to tell anyone.
            Err(AnswerError::Io(e)) if w.head.is_none() && w.body.is_closed() => drop(e),
            Err(AnswerError::Io(e)) => {
                eprintln!("warcdex serve: /cdx: {e}");
                w.fail(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "the CDX index cannot be read".into(),
                );
            }
        }
    });
    let head = match head_rx.await {
        Ok(h) => h,
        Err(_) => {
            // The task ended without a word: it panicked.
            if let Err(e) = task.await {
                eprintln!("warcdex serve: /cdx failed: {e}");
            }
            Err((
                StatusCode::INTERNAL_SERVER_ERROR,
                "the CDX query failed".into(),
            ))
        }
    };
    match head {
        Err((status, msg)) => plain(status, msg),
        Ok(output) => {
            let stream = futures_util::stream::unfold(body_rx, |mut rx| async move {
                rx.recv().await.map(|item| (item, rx))
            });
            let mut r = Response::new(Body::from_stream(stream));
            let h = r.headers_mut();
            h.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static(output.content_type()),
            );
            h.insert(
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            );
            r
        }
    }
}

/// The answer's writer on the blocking thread: chunks to the body channel, the head
/// sent with the first chunk (or at the end, or as an error).
struct ChunkWriter {
    rt: tokio::runtime::Handle,
    head: Option<oneshot::Sender<Head>>,
    output: Output,
    buf: Vec<u8>,
    body: mpsc::Sender<io::Result<Bytes>>,
}

impl ChunkWriter {
    fn send_head(&mut self) {
        if let Some(h) = self.head.take() {
            let _ = h.send(Ok(self.output));
        }
    }

    /// An error: as the response when nothing was sent yet, else the body cut short.
    fn fail(&mut self, status: StatusCode, msg: String) {
        match self.head.take() {
            Some(h) => {
                let _ = h.send(Err((status, msg)));
            }
            None => {
                let _ = self.flush_chunk();
                let _ = self.rt.block_on(
                    self.body
                        .send(Err(io::Error::other(format!("answer cut short: {msg}")))),
                );
            }
        }
    }

    fn flush_chunk(&mut self) -> io::Result<()> {
        self.send_head();
        if self.buf.is_empty() {
            return Ok(());
        }
        let chunk = Bytes::from(std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK)));
        let sent = self.rt.block_on(tokio::time::timeout(
            STALLED_CLIENT,
            self.body.send(Ok(chunk)),
        ));
        match sent {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) => Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the client went away",
            )),
            Err(_) => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client stopped reading",
            )),
        }
    }
}

impl Write for ChunkWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= CHUNK {
            self.flush_chunk()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.flush_chunk()
    }
}
