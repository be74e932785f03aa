//! A response written by synchronous code on the blocking pool (reading an archive,
//! rewriting a page) and streamed to the client as it is produced: the status and
//! headers first, through a one-shot channel, then the body in pieces through a bounded
//! channel, so a slow client holds back the writer instead of filling memory.

use std::io::{self, Write};

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use tokio::sync::{mpsc, oneshot};

/// Pieces of body in flight between the writer and the connection, at most.
const IN_FLIGHT: usize = 8;
/// The size a piece is gathered to before it is sent.
const PIECE: usize = 32 * 1024;

/// An answer that failed before its head was sent: a status and a plain-text message.
pub(crate) type Refusal = (StatusCode, String);

type Head = Result<(StatusCode, HeaderMap), Refusal>;

/// The writing end: [`Streamer::start`] once, then `write`.
pub(crate) struct Streamer {
    head: Option<oneshot::Sender<Head>>,
    body: mpsc::Sender<Result<Bytes, io::Error>>,
    buf: Vec<u8>,
}

impl Streamer {
    /// Sends the status and headers; the body follows.
    pub(crate) fn start(&mut self, status: StatusCode, headers: HeaderMap) {
        if let Some(h) = self.head.take() {
            let _ = h.send(Ok((status, headers)));
        }
    }

    fn send(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let piece = Bytes::from(std::mem::replace(&mut self.buf, Vec::with_capacity(PIECE)));
        self.body
            .blocking_send(Ok(piece))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the client went away"))
    }
}

impl Write for Streamer {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(b);
        if self.buf.len() >= PIECE {
            self.send()?;
        }
        Ok(b.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.send()
    }
}

/// Runs `f` on the blocking pool and answers with what it starts and writes. An error
/// returned before [`Streamer::start`] is the answer (a plain-text message); after it,
/// the body ends where it was (and the error is logged).
pub(crate) async fn streamed(
    f: impl FnOnce(&mut Streamer) -> Result<(), Refusal> + Send + 'static,
) -> Response {
    let (head_tx, head_rx) = oneshot::channel();
    let (body_tx, mut body_rx) = mpsc::channel(IN_FLIGHT);
    tokio::task::spawn_blocking(move || {
        let mut s = Streamer {
            head: Some(head_tx),
            body: body_tx,
            buf: Vec::with_capacity(PIECE),
        };
        let r = f(&mut s);
        match (r, s.head.take()) {
            (Err(e), Some(h)) => {
                let _ = h.send(Err(e));
            }
            (Ok(()), Some(h)) => {
                let _ = h.send(Err((StatusCode::INTERNAL_SERVER_ERROR, "no answer".into())));
            }
            (Err((_, msg)), None) => eprintln!("warcdex serve: an answer was cut short: {msg}"),
            (Ok(()), None) => {
                let _ = s.flush();
            }
        }
    });
    match head_rx.await {
        Ok(Ok((status, headers))) => {
            let stream = futures_util::stream::poll_fn(move |cx| body_rx.poll_recv(cx));
            let mut r = Response::new(Body::from_stream(stream));
            *r.status_mut() = status;
            *r.headers_mut() = headers;
            r
        }
        Ok(Err((status, msg))) => super::plain(status, msg),
        Err(_) => (StatusCode::INTERNAL_SERVER_ERROR, "the answer failed").into_response(),
    }
}
