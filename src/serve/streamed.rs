//! A response written by synchronous code (a CDX query, an archived page being
//! rewritten, an export) and streamed to the client as it is produced, through a bounded
//! channel: memory stays a few pieces whatever the answer's size, and a slow client holds
//! back the writer instead of filling memory.
//!
//! The writer runs on a thread of its own, not on the blocking pool the searches run on,
//! and it computes only while it holds one of the server's [`Permits`] (as many as
//! `--search-threads`, shared with the searches). It gives its permit back whenever it
//! hands a piece to the connection, and waits for a full channel without one: a client
//! that reads slowly, or not at all, holds its connection's buffers and a parked thread,
//! never a search thread (two idle `/cdx` readers had stopped every
//! search for a minute each).
//!
//! The writer states its status and headers first ([`Streamer::start`]), but they leave
//! with the first piece of body (or at the end): an error found before that is still
//! answered as an error (a 400 for a bad query found while reading), one found later
//! cuts the body short, which the client sees as an aborted response, not a whole one. A
//! writer whose client reads nothing for [`STALLED_CLIENT`] gives up, and its thread ends.

use std::io::{self, Write};
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use tokio::sync::{mpsc, oneshot, OwnedSemaphorePermit, Semaphore};

/// Pieces of body in flight between the writer and the connection, at most.
const IN_FLIGHT: usize = 4;
/// The size a piece is gathered to before it is sent.
const PIECE: usize = 32 * 1024;
/// How long a writer waits for a client that reads nothing before giving up.
const STALLED_CLIENT: Duration = Duration::from_secs(60);

/// The right to compute: the server holds `--search-threads` of them, taken by each
/// search for its length and by a streamed answer's writer while it produces a piece.
pub(crate) type Permits = Arc<Semaphore>;

/// An answer refused: a status and a plain-text message (or, after the head left, why
/// the body was cut short).
pub(crate) type Refusal = (StatusCode, String);

type Head = Result<(StatusCode, HeaderMap), Refusal>;

/// The writing end: [`Streamer::start`], then `write`.
pub(crate) struct Streamer {
    rt: tokio::runtime::Handle,
    permits: Permits,
    /// Held while producing; `None` while waiting for the client.
    permit: Option<OwnedSemaphorePermit>,
    head: Option<oneshot::Sender<Head>>,
    pending: Option<(StatusCode, HeaderMap)>,
    body: mpsc::Sender<io::Result<Bytes>>,
    buf: Vec<u8>,
}

impl Streamer {
    /// The status and headers of the answer; they leave with the first piece of body.
    pub(crate) fn start(&mut self, status: StatusCode, headers: HeaderMap) {
        self.pending = Some((status, headers));
    }

    /// A test of whether the client went away (the connection closed, so nobody will
    /// read the answer), for a writer that works long before its first byte (a WACZ
    /// being packed).
    pub(crate) fn client_gone(&self) -> impl Fn() -> bool + Send + Sync + 'static {
        let body = self.body.clone();
        move || body.is_closed()
    }

    /// Whether the head has left (an error can no longer change the status).
    fn head_sent(&self) -> bool {
        self.head.is_none()
    }

    fn send_head(&mut self) {
        if let (Some(h), Some(p)) = (self.head.take(), self.pending.take()) {
            let _ = h.send(Ok(p));
        }
    }

    fn send(&mut self) -> io::Result<()> {
        self.send_head();
        if self.buf.is_empty() {
            return Ok(());
        }
        let piece = Bytes::from(std::mem::replace(&mut self.buf, Vec::with_capacity(PIECE)));
        // The permit goes back before the wait for room in the channel (which lasts as
        // long as the client takes to read), and is taken again after it, behind the
        // searches that queued meanwhile: the semaphore is first come, first served.
        let held = self.permit.take().is_some();
        // The timer is made inside the runtime: this thread is not one of its own.
        let body = &self.body;
        let sent = (self.rt)
            .block_on(async { tokio::time::timeout(STALLED_CLIENT, body.send(Ok(piece))).await });
        match sent {
            Ok(Ok(())) => {
                if held {
                    self.permit = Some(acquire(&self.rt, &self.permits));
                }
                Ok(())
            }
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

    /// Ends the answer after `f` returned `r`.
    fn finish(mut self, r: Result<(), Refusal>) {
        // Nothing more to compute: what is left is waiting for the client.
        self.permit = None;
        match r {
            Ok(()) if self.pending.is_some() || self.head_sent() => {
                let _ = self.send();
            }
            Ok(()) => {
                let failed = (StatusCode::INTERNAL_SERVER_ERROR, "no answer".to_string());
                let _ = self.head.take().map(|h| h.send(Err(failed)));
            }
            Err(e) if !self.head_sent() => {
                let _ = self.head.take().map(|h| h.send(Err(e)));
            }
            // The client went away: nobody to tell.
            Err(_) if self.body.is_closed() => {}
            Err((_, msg)) => {
                eprintln!("warcdex serve: an answer was cut short: {msg}");
                let _ = self.send();
                let cut = io::Error::other(format!("answer cut short: {msg}"));
                let _ = self.rt.block_on(self.body.send(Err(cut)));
            }
        }
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

/// Takes a permit, waiting for one. The semaphore is never closed.
fn acquire(rt: &tokio::runtime::Handle, permits: &Permits) -> OwnedSemaphorePermit {
    rt.block_on(permits.clone().acquire_owned())
        .expect("the permits are never closed")
}

/// Runs `f` on a thread of its own, holding one of `permits` while it computes, and
/// answers with what it starts and writes. An error returned before the first piece of
/// body left is the answer (a plain-text message); after it, the body is cut short (and
/// the error logged).
pub(crate) async fn streamed(
    permits: &Permits,
    f: impl FnOnce(&mut Streamer) -> Result<(), Refusal> + Send + 'static,
) -> Response {
    let (head_tx, head_rx) = oneshot::channel();
    let (body_tx, mut body_rx) = mpsc::channel(IN_FLIGHT);
    let rt = tokio::runtime::Handle::current();
    let permits = permits.clone();
    let spawned = std::thread::Builder::new()
        .name("warcdex-answer".into())
        .spawn(move || {
            let permit = acquire(&rt, &permits);
            let mut s = Streamer {
                rt,
                permits,
                permit: Some(permit),
                head: Some(head_tx),
                pending: None,
                body: body_tx,
                buf: Vec::with_capacity(PIECE),
            };
            let r = f(&mut s);
            s.finish(r);
        });
    if let Err(e) = spawned {
        eprintln!("warcdex serve: cannot start an answer's thread: {e}");
        return super::plain(
            StatusCode::SERVICE_UNAVAILABLE,
            "the server is too busy: try again later".into(),
        );
    }
    match head_rx.await {
        Ok(Ok((status, headers))) => {
            let stream = futures_util::stream::poll_fn(move |cx| body_rx.poll_recv(cx));
            let mut r = Response::new(Body::from_stream(stream));
            *r.status_mut() = status;
            *r.headers_mut() = headers;
            r
        }
        Ok(Err((status, msg))) => super::plain(status, msg),
        // The writer ended without a word: it panicked (the panic is in the log).
        Err(_) => super::plain(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the answer failed".into(),
        ),
    }
}
