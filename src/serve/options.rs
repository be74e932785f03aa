//! The server's settings (`ServeOptions`): replay prefix, reloading, threads, limits,
//! access rules, users, export space.

use super::conn::ConnLimits;
use std::sync::Arc;
use std::time::Duration;

use axum::http::{HeaderMap, HeaderValue};

use crate::access::{LiveRules, Viewer};
use crate::search::DEFAULT_HITS_PER_SITE;

/// Settings of the server.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Replay links are `PREFIX/DATE14/URL`; none when `None`.
    pub replay_prefix: Option<String>,
    /// A pywb collection (`serve --replay pywb=URL`): the capture view's banner offers it
    /// for pages that need scripts.
    pub pywb: Option<String>,
    /// This server's public address (`--public-url`), for absolute links (Memento);
    /// without it, the request's `Host`.
    pub public_url: Option<String>,
    /// Hits per site when the request does not say (NutchWAX: 2).
    pub hits_per_site: usize,
    /// Searches running at once (the blocking pool's size).
    pub search_threads: usize,
    /// Threads that accept connections, read requests and write responses (the
    /// runtime's workers).
    pub io_threads: usize,
    /// Header timeout, idle timeout and connection cap.
    pub limits: ConnLimits,
    /// How often (at most) a request checks whether a set's `pindex.json` changed and
    /// the index must be reopened; zero checks on every request, `None` never.
    pub reload_interval: Option<Duration>,
    /// The access rules in force (`--acl`, `--embargo`, the collection's
    /// `access.json`); `None`: every capture is shown to everyone.
    pub access: Option<Arc<LiveRules>>,
    /// The request header naming the user (access point) a front proxy vouches for
    /// (`--user-header`, as pywb's `X-Pywb-ACL-User`); without it every request is the
    /// public's.
    pub user_header: Option<axum::http::HeaderName>,
    /// Where `/export?format=wacz` packs (`--export-tmp-dir`); `None`: the system's
    /// temporary folder.
    pub export_tmp_dir: Option<std::path::PathBuf>,
    /// The most bytes one WACZ export may take there (`--export-tmp-limit`); `None`: no
    /// limit.
    pub export_tmp_limit: Option<u64>,
    /// Whether this server answers a front server's shard routes (`serve --shard`):
    /// `/shard/stats.json` and `/shard/search.json` exist only then.
    pub shard: bool,
    /// Replay that runs the pages' scripts, on an origin of its own (`--replay scripts`);
    /// `None`: the script-free view only (`--replay safe`).
    pub scripts: Option<ScriptReplay>,
}

/// Replay that runs archived pages' scripts: wabac.js's service worker rewrites them in
/// the reader's browser, on the replay origin, fed by this server's `ir_` answers
/// (`serve/replay_origin.rs`).
#[derive(Debug, Clone)]
pub struct ScriptReplay {
    /// wabac.js's service worker script (`sw.js` of the `@webrecorder/wabac` package).
    pub service_worker: Arc<[u8]>,
    /// The port the replay origin listens on: with the request's host name, its origin
    /// when [`ScriptReplay::replay_url`] is not set.
    pub replay_port: u16,
    /// The replay origin as readers reach it (`--replay-origin-url`).
    pub replay_url: Option<String>,
    /// The port of the search application (for the way back from the replay origin).
    pub app_port: u16,
}

impl ScriptReplay {
    /// The replay origin for a request to either listener: `--replay-origin-url`, else
    /// the request's host name with the replay port.
    pub(crate) fn replay_origin(&self, headers: &HeaderMap) -> String {
        match &self.replay_url {
            Some(u) => u.clone(),
            None => origin_with_port(headers, self.replay_port),
        }
    }

    /// The search application's origin for a request to either listener: `public` (the
    /// server's `--public-url`), else the request's host name with the app's port.
    pub(crate) fn app_origin(&self, public: Option<&str>, headers: &HeaderMap) -> String {
        match public {
            Some(u) => u.trim_end_matches('/').to_string(),
            None => origin_with_port(headers, self.app_port),
        }
    }
}

/// `http://HOST:PORT` with the host name of the request's `Host` (when it is a plain
/// name or address), else the loopback address.
fn origin_with_port(headers: &HeaderMap, port: u16) -> String {
    let host = headers
        .get(axum::http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    // `[::1]:8080`, `name:8080`, `name`: the part before the port.
    let name = match host.rfind(':') {
        Some(i) if !host[i..].contains(']') => &host[..i],
        _ => host,
    };
    let plain = !name.is_empty()
        && name.len() <= 255
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-.:[]".contains(&b));
    match plain {
        true => format!("http://{name}:{port}"),
        false => format!("http://127.0.0.1:{port}"),
    }
}

/// [`ServeOptions::export_tmp_limit`] by default: 2 GiB.
pub const DEFAULT_EXPORT_TMP_LIMIT: u64 = 2 << 30;

impl ServeOptions {
    /// Who asks: the rules in force and the user the request's header names.
    pub(crate) fn viewer(&self, headers: &HeaderMap) -> Option<Viewer> {
        let rules = self.access.as_ref()?.current();
        let user = self.user(headers).and_then(|v| v.to_str().ok());
        Some(Viewer::new(rules, user))
    }

    /// The user header's value when the request holds it exactly once. Sent twice, it is
    /// no user's: a proxy that adds the header rather than replacing it passes the one
    /// the client sent too, and which copy comes first is the client's choice, so either
    /// could be the public's own pick.
    pub(crate) fn user<'h>(&self, headers: &'h HeaderMap) -> Option<&'h HeaderValue> {
        let mut values = headers.get_all(self.user_header.as_ref()?).iter();
        match (values.next(), values.next()) {
            (Some(v), None) => Some(v),
            _ => None,
        }
    }
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            replay_prefix: None,
            pywb: None,
            public_url: None,
            hits_per_site: DEFAULT_HITS_PER_SITE,
            // As many searches as cores, and half as many threads for the connections:
            // with twice the cores of each, the searches shared the cores with each other
            // and made the slow ones slower still (docs/performance.md).
            search_threads: super::cores(),
            io_threads: (super::cores() / 2).max(1),
            limits: ConnLimits::default(),
            reload_interval: Some(Duration::from_secs(5)),
            access: None,
            user_header: None,
            export_tmp_dir: None,
            export_tmp_limit: Some(DEFAULT_EXPORT_TMP_LIMIT),
            shard: false,
            scripts: None,
        }
    }
}
