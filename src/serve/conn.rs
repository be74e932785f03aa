//! The accept loop and the connections of `warcdex serve`.
//!
//! `axum::serve` stops at the first accept() error it cannot sleep through (the runtime
//! had no timer, so its retry sleep panicked: EMFILE killed the server) and has no
//! timeouts, so idle and half-sent connections piled up. Here each connection is served
//! by hyper's HTTP/1 connection with
//!
//! - a header timeout: a request head must arrive within it (hyper 1.12 starts the timer
//!   whenever it waits for a head, so it also closes a kept-alive connection that sends
//!   no next request, and a connection that never sends anything);
//! - an idle timeout: a connection with no request being answered and no byte moving
//!   either way for that long is closed (a client that stops reading a response);
//! - a cap on open connections. At the cap, or when accept() fails for lack of file
//!   descriptors, the connection idle the longest (no request being answered) is closed
//!   to make room, so a normal request gets through while many idle ones are open; when
//!   every connection is answering a request, the loop waits for one to end.

use std::collections::HashMap;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, Semaphore};

/// The connection limits of the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnLimits {
    /// A request head must arrive within this (also the keep-alive wait).
    pub header_timeout: Duration,
    /// A connection with no request being answered and no byte moving is closed after this.
    pub idle_timeout: Duration,
    /// Connections open at once.
    pub max_connections: usize,
}

impl Default for ConnLimits {
    fn default() -> Self {
        ConnLimits {
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            max_connections: 512,
        }
    }
}

/// One open connection, as the accept loop sees it.
struct Conn {
    /// Milliseconds since [`Conns::epoch`] of the last byte read or written.
    last: AtomicU64,
    /// Requests being answered.
    busy: AtomicU32,
    /// Set when the accept loop chose it to be closed.
    evicted: AtomicBool,
    close: Notify,
}

/// Every open connection.
struct Conns {
    epoch: Instant,
    next_id: AtomicU64,
    open: Mutex<HashMap<u64, Arc<Conn>>>,
}

impl Conns {
    fn now(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    fn open(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Conn>>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Asks the connection idle the longest (none of its requests being answered) to
    /// close; false when there is none.
    fn evict_idlest(&self) -> bool {
        let open = self.open();
        let idlest = open
            .values()
            .filter(|c| c.busy.load(Ordering::Relaxed) == 0 && !c.evicted.load(Ordering::Relaxed))
            .min_by_key(|c| c.last.load(Ordering::Relaxed));
        match idlest {
            Some(c) => {
                c.evicted.store(true, Ordering::Relaxed);
                c.close.notify_one();
                true
            }
            None => false,
        }
    }
}

/// A TCP stream that notes when a byte last moved (for the idle timeout).
struct Tracked {
    inner: TcpStream,
    conn: Arc<Conn>,
    conns: Arc<Conns>,
}

impl Tracked {
    fn touch(&self) {
        self.conn.last.store(self.conns.now(), Ordering::Relaxed);
    }
}

impl AsyncRead for Tracked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(r, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.touch();
        }
        r
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            self.touch();
        }
        r
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            self.touch();
        }
        r
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Counts a request as being answered while it lives.
struct Busy(Arc<Conn>);

impl Busy {
    fn enter(c: &Arc<Conn>) -> Busy {
        c.busy.fetch_add(1, Ordering::Relaxed);
        Busy(c.clone())
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.busy.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Whether an accept() error is about the one connection (it went away before it was
/// accepted) rather than the server (out of descriptors or memory).
fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// Accepts and serves connections until the process ends.
pub(crate) async fn accept_loop(listener: TcpListener, app: Router, limits: ConnLimits) {
    let conns = Arc::new(Conns {
        epoch: Instant::now(),
        next_id: AtomicU64::new(0),
        open: Mutex::new(HashMap::new()),
    });
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let mut failures = 0u64;
    let mut last_log: Option<Instant> = None;
    loop {
        let stream = match listener.accept().await {
            Ok((s, _)) => s,
            Err(e) if is_connection_error(&e) => continue,
            Err(e) => {
                // EMFILE, ENFILE, ENOMEM...: make room by closing the idlest connection
                // and try again; say so at most once a second.
                failures += 1;
                if last_log.is_none_or(|t| t.elapsed() >= Duration::from_secs(1)) {
                    eprintln!(
                        "warcdex serve: accept failed: {e} ({failures} times so far); \
                         closing the idlest connection and retrying"
                    );
                    last_log = Some(Instant::now());
                }
                let pause = if conns.evict_idlest() { 2 } else { 50 };
                tokio::time::sleep(Duration::from_millis(pause)).await;
                continue;
            }
        };
        let permit = match slots.clone().try_acquire_owned() {
            Ok(p) => p,
            Err(_) => {
                conns.evict_idlest();
                match slots.clone().acquire_owned().await {
                    Ok(p) => p,
                    Err(_) => return,
                }
            }
        };
        let _ = stream.set_nodelay(true);
        let conn = Arc::new(Conn {
            last: AtomicU64::new(conns.now()),
            busy: AtomicU32::new(0),
            evicted: AtomicBool::new(false),
            close: Notify::new(),
        });
        let id = conns.next_id.fetch_add(1, Ordering::Relaxed);
        conns.open().insert(id, conn.clone());
        let conns = conns.clone();
        let app = app.clone();
        tokio::spawn(async move {
            serve_conn(stream, app, conn, &conns, limits).await;
            conns.open().remove(&id);
            drop(permit);
        });
    }
}

/// Serves one connection until it ends, times out or is evicted.
async fn serve_conn(
    stream: TcpStream,
    app: Router,
    conn: Arc<Conn>,
    conns: &Arc<Conns>,
    limits: ConnLimits,
) {
    let io = TokioIo::new(Tracked {
        inner: stream,
        conn: conn.clone(),
        conns: conns.clone(),
    });
    let svc = TowerToHyperService::new(app);
    let c = conn.clone();
    let service = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
        let busy = Busy::enter(&c);
        let answer = hyper::service::Service::call(&svc, req);
        async move {
            let r = answer.await;
            drop(busy);
            r
        }
    });
    let served = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true)
        .serve_connection(io, service);
    tokio::select! {
        _ = served => {}
        _ = conn.close.notified() => {}
        _ = idle(&conn, conns, limits.idle_timeout) => {}
    }
}

/// Ends when the connection has had no request being answered and no byte moving for
/// `timeout`.
async fn idle(conn: &Conn, conns: &Conns, timeout: Duration) {
    let timeout_ms = timeout.as_millis() as u64;
    loop {
        let quiet = conns
            .now()
            .saturating_sub(conn.last.load(Ordering::Relaxed));
        if conn.busy.load(Ordering::Relaxed) == 0 && quiet >= timeout_ms {
            return;
        }
        let wait = timeout_ms.saturating_sub(quiet).max(10);
        tokio::time::sleep(Duration::from_millis(wait)).await;
    }
}
