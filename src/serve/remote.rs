//! `warcdex serve --remote URL...`: a front server that answers each search by asking
//! shard servers (other `warcdex serve` processes, each serving some shards of a
//! collection, docs/cluster.md) and merging their hits.
//!
//! A search is two rounds, each sent to every shard server at once:
//! 1. `GET /shard/stats.json?query=Q`: each server's statistics of the query's terms
//!    (documents, tokens per field, documents per term; src/search/stats.rs). The
//!    front adds them up: the statistics of the whole collection.
//! 2. `POST /shard/search.json?query=Q&need=N&hitsPerSite=P` with the sums as the body:
//!    each server ranks its documents with them (so scores are those of one index of
//!    the collection) and returns its best N hits under the per-site limit, in full.
//!    The front merges them, applies the per-site limit again and cuts the page
//!    (src/search/shards.rs).
//!
//! A server that refuses the connection, answers with an error, or has not answered a
//! round within the timeout is left out of the search, and the results name it
//! (`unavailable`: the page says the results are partial); a server that says the query
//! is malformed (400) makes the search a 400, as it would be on one server.

use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::http::{header, Method, Request, StatusCode, Uri};
use futures_util::future::join_all;
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use serde::de::DeserializeOwned;

use crate::search::shards::{merge, plan, Plan, ShardAnswer};
use crate::search::{
    QueryError, SearchError, SearchRequest, SearchResults, ShardResults, TermStats,
};

/// The largest answer read from a shard server. The deepest page (10,101 hits, each
/// with its snippet and dates) is a few MB; this bounds what a broken server can make
/// the front hold.
const MAX_ANSWER_BYTES: usize = 64 << 20;

/// The shard servers a front server asks, and how long it waits for each.
pub struct Front {
    servers: Vec<String>,
    timeout: Duration,
    client: Client<HttpConnector, Full<Bytes>>,
}

/// Why a call to a shard server gave no answer.
enum CallError {
    /// The server says the request is malformed (a 400): the user's query.
    Refused(String),
    /// No usable answer: the server is down, slow, or failed.
    Failed(String),
}

/// The message of an error and of its sources ("client error (Connect): tcp connect
/// error: Connection refused").
fn describe(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut at = e.source();
    while let Some(s) = at {
        out.push_str(": ");
        out.push_str(&s.to_string());
        at = s.source();
    }
    out
}

/// The `error` of a JSON error body, or the body itself.
fn error_message(body: &[u8]) -> String {
    serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.get("error")?.as_str().map(str::to_string))
        .unwrap_or_else(|| String::from_utf8_lossy(&body[..body.len().min(300)]).into_owned())
}

impl Front {
    /// A front over the shard servers at `servers` (`http://HOST:PORT`, the address a
    /// `warcdex serve` listens on), waiting at most `timeout` for each round of each.
    pub fn new(servers: &[String], timeout: Duration) -> Result<Front, String> {
        let mut out = Vec::new();
        for s in servers {
            let base = s.trim().trim_end_matches('/');
            let uri: Uri = base
                .parse()
                .map_err(|e| format!("--remote {s:?} is not a URL: {e}"))?;
            if uri.scheme_str() != Some("http") || uri.host().is_none() || uri.query().is_some() {
                return Err(format!(
                    "--remote {s:?}: a shard server is http://HOST:PORT (what its `warcdex serve` prints)"
                ));
            }
            if out.iter().any(|o| o == base) {
                return Err(format!("--remote {s:?} is given twice"));
            }
            out.push(base.to_string());
        }
        if out.is_empty() {
            return Err("a front server needs at least one --remote shard server".into());
        }
        let mut connector = HttpConnector::new();
        connector.set_connect_timeout(Some(timeout));
        connector.set_nodelay(true);
        let client = Client::builder(TokioExecutor::new())
            .pool_timer(TokioTimer::new())
            .pool_idle_timeout(Duration::from_secs(30))
            .build(connector);
        Ok(Front {
            servers: out,
            timeout,
            client,
        })
    }

    /// The shard servers.
    pub fn servers(&self) -> &[String] {
        &self.servers
    }

    /// The line at the foot of the search page.
    pub fn footer(&self) -> String {
        format!(
            "front server over {} shard server{}",
            self.servers.len(),
            if self.servers.len() == 1 { "" } else { "s" }
        )
    }

    /// One request to a shard server, its answer read under the size cap, all within
    /// the timeout.
    async fn call(&self, method: Method, url: String, body: Vec<u8>) -> Result<Bytes, CallError> {
        let req = Request::builder()
            .method(method)
            .uri(&url)
            .header(header::CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| CallError::Failed(format!("cannot make the request {url}: {e}")))?;
        let exchange = async {
            let resp = self
                .client
                .request(req)
                .await
                .map_err(|e| CallError::Failed(describe(&e)))?;
            let status = resp.status();
            let body = Limited::new(resp.into_body(), MAX_ANSWER_BYTES)
                .collect()
                .await
                .map_err(|e| CallError::Failed(format!("reading the answer: {e}")))?
                .to_bytes();
            match status {
                StatusCode::BAD_REQUEST => Err(CallError::Refused(error_message(&body))),
                s if s.is_success() => Ok(body),
                s => Err(CallError::Failed(format!(
                    "HTTP {s}: {}",
                    error_message(&body)
                ))),
            }
        };
        match tokio::time::timeout(self.timeout, exchange).await {
            Ok(r) => r,
            Err(_) => Err(CallError::Failed(format!(
                "no answer within {:.1} s",
                self.timeout.as_secs_f64()
            ))),
        }
    }

    /// A call whose answer is JSON of type `T`.
    async fn call_json<T: DeserializeOwned>(
        &self,
        method: Method,
        url: String,
        body: Vec<u8>,
    ) -> Result<T, CallError> {
        let bytes = self.call(method, url, body).await?;
        serde_json::from_slice(&bytes)
            .map_err(|e| CallError::Failed(format!("the answer is not what a shard sends: {e}")))
    }

    /// Runs `req` on every shard server and merges their hits.
    pub async fn search(&self, req: &SearchRequest) -> Result<SearchResults, SearchError> {
        let t0 = Instant::now();
        let plan = plan(req)?;
        let query = serde_urlencoded::to_string([("query", req.query.as_str())])
            .expect("a string pair encodes");
        // Round 1: the collection's statistics.
        let stats = join_all(self.servers.iter().map(|s| {
            self.call_json::<TermStats>(
                Method::GET,
                format!("{s}/shard/stats.json?{query}"),
                Vec::new(),
            )
        }))
        .await;
        let mut total = TermStats::default();
        let mut failed: Vec<Option<String>> = Vec::with_capacity(self.servers.len());
        for r in &stats {
            match r {
                Ok(s) => {
                    total.add(s);
                    failed.push(None);
                }
                Err(CallError::Refused(e)) => return Err(QueryError(e.clone()).into()),
                Err(CallError::Failed(e)) => failed.push(Some(e.clone())),
            }
        }
        // Round 2: each server's best hits, ranked with the sums.
        let body = serde_json::to_vec(&total).expect("statistics serialize");
        let mut plan = plan;
        loop {
            let answers = self.best_hits(&query, &plan, &body, &failed).await?;
            let r = merge(req, &plan, answers, t0.elapsed());
            // Every match on one site: the per-site limit would leave only its first
            // hits, so the shards are asked again without it (as one index does).
            if plan.per_site > 0 && r.site_limited && r.one_site {
                plan.per_site = 0;
                continue;
            }
            return Ok(r);
        }
    }

    /// Round 2 of a search: each server's best hits under `plan`, ranked with the
    /// collection's statistics `body`; `failed` names the servers round 1 lost.
    async fn best_hits(
        &self,
        query: &str,
        plan: &Plan,
        body: &[u8],
        failed: &[Option<String>],
    ) -> Result<Vec<ShardAnswer>, SearchError> {
        let asked = join_all(self.servers.iter().zip(failed).map(|(s, f)| {
            let url = format!(
                "{s}/shard/search.json?{query}&need={}&hitsPerSite={}",
                plan.need, plan.per_site
            );
            let body = body.to_vec();
            async move {
                match f {
                    Some(e) => Err(CallError::Failed(e.clone())),
                    None => {
                        self.call_json::<ShardResults>(Method::POST, url, body)
                            .await
                    }
                }
            }
        }))
        .await;
        let mut answers = Vec::with_capacity(self.servers.len());
        for (server, r) in self.servers.iter().zip(asked) {
            let results = match r {
                Ok(r) => Ok(r),
                Err(CallError::Refused(e)) => return Err(QueryError(e).into()),
                Err(CallError::Failed(e)) => {
                    eprintln!("warcdex serve: shard server {server}: {e}");
                    Err(e)
                }
            };
            answers.push(ShardAnswer {
                server: server.clone(),
                results,
            });
        }
        Ok(answers)
    }

    /// Every shard server's `/healthz`: whether any answered (the front can search), and
    /// a report naming each.
    pub async fn health(&self) -> (bool, serde_json::Value) {
        let answers = join_all(self.servers.iter().map(|s| {
            self.call_json::<serde_json::Value>(Method::GET, format!("{s}/healthz"), Vec::new())
        }))
        .await;
        let mut all_ok = true;
        let mut any_up = false;
        let mut shards = Vec::new();
        for (server, a) in self.servers.iter().zip(answers) {
            match a {
                Ok(v) => {
                    any_up = true;
                    all_ok &= v.get("status").and_then(|s| s.as_str()) == Some("ok");
                    shards.push(serde_json::json!({ "server": server, "health": v }));
                }
                Err(CallError::Refused(e) | CallError::Failed(e)) => {
                    all_ok = false;
                    shards.push(serde_json::json!({ "server": server, "error": e }));
                }
            }
        }
        let status = match (any_up, all_ok) {
            (false, _) => "down",
            (true, true) => "ok",
            (true, false) => "degraded",
        };
        (
            any_up,
            serde_json::json!({ "status": status, "front": true, "shards": shards }),
        )
    }
}
