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
//! A server that refuses the connection, answers with an error (any status but 200,
//! a 400 included), answers what is not a shard's answer (malformed, impossible
//! statistics or scores, over its size bound), or has not answered a round within the
//! timeout is left out of the search, and the results name it (`unavailable`: the page
//! says the results are partial). Only when no server answers and one says the query is
//! malformed (400) is the search a 400, as it would be on one server.
//!
//! What the front holds of the answers is bounded twice: each answer by what it can
//! legitimately hold (from what it was asked for), and all answers being read at once,
//! across requests, by one budget of bytes ([`ANSWER_BUDGET_BYTES`]). A shard streaming
//! an endless body took the front to 3.29 GB at 64 searches at once.

use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::http::{header, Method, Request, StatusCode, Uri};
use futures_util::future::join_all;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use tokio::sync::{Semaphore, SemaphorePermit, TryAcquireError};

use crate::search::shards::{merge, plan, Plan, ShardAnswer};
use crate::search::{
    QueryError, SearchError, SearchRequest, SearchResults, ShardResults, ShardSuggestion, TermStats,
};

/// Round 1's outcome for one query: the query as a URL parameter, the summed statistics
/// as the body of round 2, and the servers round 1 lost (their error).
struct CollectionStats {
    query: String,
    body: Vec<u8>,
    failed: Vec<Option<String>>,
}

/// The largest answer read from a shard server, whatever it was asked for. The deepest
/// page (10,101 hits, each with its snippet, dates and history) is a few MB.
const MAX_ANSWER_BYTES: usize = 32 << 20;

/// The bytes of shard answers a front holds at once, across every request: each answer
/// takes its buffer's size from this budget as it grows, and gives it back once parsed
/// (or refused). An answer that cannot get budget (`Front::read_body` says when it
/// waits) is a shard that did not answer. With a shard streaming an endless answer to 64
/// searches at once, this (and [`search_answer_bound`]) kept the front under 256 MiB
/// (tests/front.rs).
const ANSWER_BUDGET_BYTES: usize = 64 << 20;

// An answer at its bound must be able to get its budget, and a buffer's growth is
// taken from the semaphore in one call (a `u32` of permits).
const _: () = assert!(MAX_ANSWER_BYTES <= ANSWER_BUDGET_BYTES);
const _: () = assert!(MAX_ANSWER_BYTES <= u32::MAX as usize);

/// A search answer's part that does not grow with the hits asked for: the tally (the
/// shard's 1,000 most frequent sites, names of up to 253 bytes, types, languages,
/// months) and the sites it limited.
const SEARCH_ANSWER_BASE_BYTES: usize = 1 << 20;

/// What a search answer may hold per hit asked for, on average: the URL, title, a
/// 200-character snippet, the history (up to 100 versions, ~100 bytes each) and one
/// 17-byte date per capture (a page captured daily for ten years has 3,650).
const SEARCH_ANSWER_HIT_BYTES: usize = 64 << 10;

/// A statistics answer's fixed part (the documents, the braces).
const STATS_ANSWER_BASE_BYTES: usize = 64 << 10;

/// What a statistics answer may hold per byte of the query: each word of it is a term
/// of a few fields (title, content, anchor, url, main, a stemmed field per language),
/// each named with its count.
const STATS_ANSWER_QUERY_BYTE_BYTES: usize = 256;

/// The largest `/healthz` answer read from a shard server (its sets' names and counts:
/// some 10,000 sets).
const HEALTH_ANSWER_BYTES: usize = 1 << 20;

/// The bound of a search answer of `need` hits.
fn search_answer_bound(need: usize) -> usize {
    need.saturating_mul(SEARCH_ANSWER_HIT_BYTES)
        .saturating_add(SEARCH_ANSWER_BASE_BYTES)
        .min(MAX_ANSWER_BYTES)
}

/// The bound of a statistics answer for the query `query` (as sent, URL-encoded).
fn stats_answer_bound(query: &str) -> usize {
    query
        .len()
        .saturating_mul(STATS_ANSWER_QUERY_BYTE_BYTES)
        .saturating_add(STATS_ANSWER_BASE_BYTES)
        .min(MAX_ANSWER_BYTES)
}

/// The shard servers a front server asks, and how long it waits for each.
pub struct Front {
    servers: Vec<String>,
    timeout: Duration,
    client: Client<HttpConnector, Full<Bytes>>,
    /// [`ANSWER_BUDGET_BYTES`], in permits of one byte.
    budget: Semaphore,
}

/// The header naming the asking user, passed on to the shard servers.
pub type ForwardedUser = (axum::http::HeaderName, axum::http::HeaderValue);

/// Why a call to a shard server gave no answer.
enum CallError {
    /// The server says the request is malformed (a 400): the user's query, unless
    /// another server answered it.
    Refused(String),
    /// No usable answer: the server is down, slow, or failed, or its answer is not
    /// what a shard sends.
    Failed(String),
}

impl CallError {
    /// The message, whichever it is.
    fn message(&self) -> &str {
        match self {
            CallError::Refused(e) | CallError::Failed(e) => e,
        }
    }
}

/// An answer's bytes, holding their share of the budget until dropped.
struct Answer<'a> {
    status: StatusCode,
    bytes: Vec<u8>,
    _held: Option<SemaphorePermit<'a>>,
}

/// A shard server's `/healthz`, as the front relays it: set names and document counts,
/// nothing else a shard's answer holds (it relayed paths).
#[derive(Debug, Serialize, Deserialize)]
struct ShardHealth {
    status: HealthStatus,
    #[serde(default)]
    sets: Vec<SetCount>,
    #[serde(default)]
    broken: Vec<SetName>,
}

/// What a server says of its health.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum HealthStatus {
    Ok,
    Degraded,
    Down,
}

/// A set being served, as `/healthz` names it.
#[derive(Debug, Serialize, Deserialize)]
struct SetCount {
    name: String,
    documents: u64,
}

/// A set refused, as `/healthz` names it.
#[derive(Debug, Serialize, Deserialize)]
struct SetName {
    name: String,
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
            budget: Semaphore::new(ANSWER_BUDGET_BYTES),
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

    /// One request to a shard server, its answer read under the bound `bound` and the
    /// budget, all within the timeout. Any status is an answer here.
    async fn call(
        &self,
        method: Method,
        url: String,
        body: Vec<u8>,
        bound: usize,
        user: Option<&ForwardedUser>,
    ) -> Result<Answer<'_>, CallError> {
        let mut req = Request::builder()
            .method(method)
            .uri(&url)
            .header(header::CONTENT_TYPE, "application/json");
        if let Some((name, value)) = user {
            req = req.header(name, value);
        }
        let req = req
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| CallError::Failed(format!("cannot make the request {url}: {e}")))?;
        let exchange = async {
            let resp = self
                .client
                .request(req)
                .await
                .map_err(|e| CallError::Failed(describe(&e)))?;
            let status = resp.status();
            let announced = resp
                .headers()
                .get(header::CONTENT_LENGTH)
                .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
            if let Some(n) = announced.filter(|&n| n > bound as u64) {
                return Err(CallError::Failed(format!(
                    "the answer announces {n} bytes, over its bound of {bound}"
                )));
            }
            let (bytes, held) = self.read_body(resp.into_body(), bound).await?;
            Ok(Answer {
                status,
                bytes,
                _held: held,
            })
        };
        match tokio::time::timeout(self.timeout, exchange).await {
            Ok(r) => r,
            Err(_) => Err(CallError::Failed(format!(
                "no answer within {:.1} s",
                self.timeout.as_secs_f64()
            ))),
        }
    }

    /// Reads an answer's body into one buffer of at most `bound` bytes, whose growth is
    /// taken from the budget. The buffer is ours, not hyper's chunks: a chunk may be a
    /// slice of a larger read buffer, which it would keep alive, uncounted.
    ///
    /// Only an answer that holds nothing yet waits for budget (within the round's
    /// timeout, in arrival order); one that holds some and needs more takes it if it is
    /// there, or is refused. Answers never wait while holding, so they cannot wait on
    /// each other: with waiting growth, 64 answers holding 1 MiB each and wanting more
    /// would hold the whole budget until they timed out, and every other answer with it.
    async fn read_body(
        &self,
        mut body: Incoming,
        bound: usize,
    ) -> Result<(Vec<u8>, Option<SemaphorePermit<'_>>), CallError> {
        let mut buf: Vec<u8> = Vec::new();
        let mut held: Option<SemaphorePermit<'_>> = None;
        while let Some(frame) = body.frame().await {
            let frame = frame
                .map_err(|e| CallError::Failed(format!("reading the answer: {}", describe(&e))))?;
            let Ok(data) = frame.into_data() else {
                continue; // trailers
            };
            let needed = buf.len().saturating_add(data.len());
            if needed > bound {
                return Err(CallError::Failed(format!(
                    "the answer is over its bound of {bound} bytes"
                )));
            }
            if needed > buf.capacity() {
                // Doubling (as a Vec would), never past the bound, and all of it counted:
                // the budget holds what is allocated.
                let capacity = needed.max(buf.capacity().saturating_mul(2)).min(bound);
                let more = u32::try_from(capacity - buf.capacity())
                    .map_err(|_| CallError::Failed("an answer over 4 GiB".into()))?;
                let permit = match &held {
                    None => self.budget.acquire_many(more).await.map_err(|_| None),
                    Some(_) => self.budget.try_acquire_many(more).map_err(Some),
                };
                let permit = permit.map_err(|e| {
                    CallError::Failed(match e {
                        Some(TryAcquireError::NoPermits) => format!(
                            "the answer needs more than the front can hold now \
                             ({ANSWER_BUDGET_BYTES} bytes of answers at once)"
                        ),
                        _ => "the answer budget is closed".into(),
                    })
                })?;
                match &mut held {
                    Some(h) => h.merge(permit),
                    None => held = Some(permit),
                }
                buf.reserve_exact(capacity - buf.len());
            }
            buf.extend_from_slice(&data);
        }
        Ok((buf, held))
    }

    /// A call whose answer (a 200) is JSON of type `T`; a 400 is the server refusing
    /// the request, any other status its failure.
    async fn call_json<T: DeserializeOwned>(
        &self,
        method: Method,
        url: String,
        body: Vec<u8>,
        bound: usize,
        user: Option<&ForwardedUser>,
    ) -> Result<T, CallError> {
        let answer = self.call(method, url, body, bound, user).await?;
        match answer.status {
            StatusCode::OK => serde_json::from_slice(&answer.bytes).map_err(|e| {
                CallError::Failed(format!("the answer is not what a shard sends: {e}"))
            }),
            StatusCode::BAD_REQUEST => Err(CallError::Refused(error_message(&answer.bytes))),
            s => Err(CallError::Failed(format!(
                "HTTP {s}: {}",
                error_message(&answer.bytes)
            ))),
        }
    }

    /// Runs `req` on every shard server and merges their hits.
    pub async fn search(&self, req: &SearchRequest) -> Result<SearchResults, SearchError> {
        self.search_as(req, None).await
    }

    /// [`Front::search`] for a user: the header naming them (`serve --user-header`) is
    /// passed on to every shard server, whose access rules decide what it shows.
    /// A search its shards find nothing for is asked again as one index does
    /// ([`SearchIndex::search`](crate::search::SearchIndex::search)): with one word fewer
    /// required at a time, then as the query the shards suggest (the one most of them
    /// suggest; ties: the first server's), unless `req.strict`.
    pub async fn search_as(
        &self,
        req: &SearchRequest,
        user: Option<ForwardedUser>,
    ) -> Result<SearchResults, SearchError> {
        let user = user.as_ref();
        let t0 = Instant::now();
        // A malformed query or request is the user's error, found before any shard is asked.
        let plan = plan(req)?;
        // The statistics of the query's terms do not change with the words required: asked
        // once for every level.
        let stats = self.collection_stats(&req.query, user).await?;
        let mut r = self.search_once(req, plan, &stats, None, user, t0).await?;
        if r.total > 0 || req.strict {
            return Ok(r);
        }
        let words = crate::search::query::relaxable_words(&req.query);
        for k in (1..words).rev() {
            let again = self
                .search_once(req, plan, &stats, Some(k), user, t0)
                .await?;
            if again.total > 0 {
                r = again;
                r.relaxed = Some(crate::search::Relaxed { words, needed: k });
                return Ok(r);
            }
        }
        if let Some(q) = self.suggestion(&req.query, user).await {
            let stats = self.collection_stats(&q, user).await?;
            let mut again = self.search_once(req, plan, &stats, None, user, t0).await?;
            if again.total > 0 {
                again.query = req.query.clone();
                again.suggestion = Some(q);
                return Ok(again);
            }
        }
        Ok(r)
    }

    /// The suggestion most shard servers make for `query` (ties: the first server's);
    /// `None` when none makes one. A server that fails is left out.
    async fn suggestion(&self, query: &str, user: Option<&ForwardedUser>) -> Option<String> {
        let encoded =
            serde_urlencoded::to_string([("query", query)]).expect("a string pair encodes");
        let encoded = &encoded;
        let bound = stats_answer_bound(encoded);
        let answers = join_all(self.servers.iter().map(|s| async move {
            let url = format!("{s}/shard/suggest.json?{encoded}");
            self.call_json::<ShardSuggestion>(Method::GET, url, Vec::new(), bound, user)
                .await
        }))
        .await;
        let mut counts: Vec<(String, usize)> = Vec::new();
        for (server, a) in self.servers.iter().zip(answers) {
            match a {
                Ok(ShardSuggestion {
                    suggestion: Some(s),
                }) => match counts.iter_mut().find(|(q, _)| *q == s) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((s, 1)),
                },
                Ok(_) => {}
                Err(e) => eprintln!("warcdex serve: shard server {server}: {}", e.message()),
            }
        }
        // The first of the most frequent: `max_by_key` keeps the last of equals.
        let most = counts.iter().map(|(_, n)| *n).max()?;
        counts.into_iter().find(|(_, n)| *n == most).map(|(q, _)| q)
    }

    /// Round 1 of a search of `text`: the collection's statistics of its terms, each
    /// server's checked before they are added (one server's impossible statistics would
    /// make the sums impossible and every server refuse them).
    async fn collection_stats(
        &self,
        text: &str,
        user: Option<&ForwardedUser>,
    ) -> Result<CollectionStats, SearchError> {
        let query = serde_urlencoded::to_string([("query", text)]).expect("a string pair encodes");
        let bound = stats_answer_bound(&query);
        let encoded = &query;
        let stats = join_all(self.servers.iter().map(|s| async move {
            let st = self
                .call_json::<TermStats>(
                    Method::GET,
                    format!("{s}/shard/stats.json?{encoded}"),
                    Vec::new(),
                    bound,
                    user,
                )
                .await?;
            st.check().map_err(|e| CallError::Failed(e.to_string()))?;
            Ok(st)
        }))
        .await;
        user_error(&stats)?;
        let mut total = TermStats::default();
        let mut failed: Vec<Option<String>> = Vec::with_capacity(self.servers.len());
        for (server, r) in self.servers.iter().zip(&stats) {
            match r {
                Ok(s) => {
                    total.add(s);
                    failed.push(None);
                }
                Err(e) => {
                    eprintln!("warcdex serve: shard server {server}: {}", e.message());
                    failed.push(Some(e.message().to_string()));
                }
            }
        }
        let body = serde_json::to_vec(&total).expect("statistics serialize");
        Ok(CollectionStats {
            query,
            body,
            failed,
        })
    }

    /// Round 2: one search of the query of `stats` across the shard servers, ranked with
    /// its sums, `min_words` of its words required (`None`: as the shards' weights say).
    async fn search_once(
        &self,
        req: &SearchRequest,
        mut plan: Plan,
        stats: &CollectionStats,
        min_words: Option<usize>,
        user: Option<&ForwardedUser>,
        t0: Instant,
    ) -> Result<SearchResults, SearchError> {
        plan.min_words = min_words;
        let CollectionStats {
            query,
            body,
            failed,
        } = stats;
        loop {
            let answers = self.best_hits(query, &plan, body, failed, user).await?;
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

    /// Each server's best hits under `plan`, ranked with the
    /// collection's statistics `body`; `failed` names the servers round 1 lost.
    async fn best_hits(
        &self,
        query: &str,
        plan: &Plan,
        body: &[u8],
        failed: &[Option<String>],
        user: Option<&ForwardedUser>,
    ) -> Result<Vec<ShardAnswer>, SearchError> {
        let bound = search_answer_bound(plan.need);
        let asked = join_all(self.servers.iter().zip(failed).map(|(s, f)| {
            let mut url = format!(
                "{s}/shard/search.json?{query}&need={}&hitsPerSite={}",
                plan.need, plan.per_site
            );
            if let Some(k) = plan.min_words {
                url.push_str(&format!("&minWords={k}"));
            }
            let body = body.to_vec();
            async move {
                match f {
                    // Left out in round 1, already logged: not asked again.
                    Some(e) => Err((false, CallError::Failed(e.clone()))),
                    None => {
                        let r = self
                            .call_json::<ShardResults>(Method::POST, url, body, bound, user)
                            .await
                            .map_err(|e| (true, e))?;
                        r.check()
                            .map_err(|e| (true, CallError::Failed(e.to_string())))?;
                        Ok(r)
                    }
                }
            }
        }))
        .await;
        let asked: Vec<Result<ShardResults, CallError>> = asked
            .into_iter()
            .zip(&self.servers)
            .map(|(r, server)| {
                r.map_err(|(new, e)| {
                    if new {
                        eprintln!("warcdex serve: shard server {server}: {}", e.message());
                    }
                    e
                })
            })
            .collect();
        user_error(&asked)?;
        let mut answers = Vec::with_capacity(self.servers.len());
        for (server, r) in self.servers.iter().zip(asked) {
            let results = r.map_err(|e| e.message().to_string());
            answers.push(ShardAnswer {
                server: server.clone(),
                results,
            });
        }
        Ok(answers)
    }

    /// Every shard server's `/healthz`: whether any can search (the front can), and a
    /// report naming each server with its status, set names and document counts (a
    /// server without sets answers 503 with its report, which is relayed too).
    pub async fn health(&self) -> (bool, serde_json::Value) {
        let answers = join_all(self.servers.iter().map(|s| async move {
            let answer = self
                .call(
                    Method::GET,
                    format!("{s}/healthz"),
                    Vec::new(),
                    HEALTH_ANSWER_BYTES,
                    None,
                )
                .await?;
            match answer.status {
                StatusCode::OK | StatusCode::SERVICE_UNAVAILABLE => serde_json::from_slice::<
                    ShardHealth,
                >(&answer.bytes)
                .map_err(|e| CallError::Failed(format!("the answer is not a shard's health: {e}"))),
                // Not the body: it is the server's to say, not the front's to relay.
                s => Err(CallError::Failed(format!("HTTP {s}"))),
            }
        }))
        .await;
        let mut all_ok = true;
        let mut any_up = false;
        let mut shards = Vec::new();
        for (server, a) in self.servers.iter().zip(answers) {
            match a {
                Ok(h) => {
                    any_up |= h.status != HealthStatus::Down;
                    all_ok &= h.status == HealthStatus::Ok;
                    shards.push(serde_json::json!({ "server": server, "health": h }));
                }
                Err(e) => {
                    all_ok = false;
                    shards.push(serde_json::json!({ "server": server, "error": e.message() }));
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

/// A round's answers are the user's error (a 400) when no server answered and one
/// said the query is malformed: every server that could tell refused it, as one server
/// would. A server refusing while another answers is a failing server: its 400 comes
/// from what it was sent or from itself, not from the query the others answered.
fn user_error<T>(answers: &[Result<T, CallError>]) -> Result<(), SearchError> {
    if answers.iter().any(Result::is_ok) {
        return Ok(());
    }
    match answers.iter().find_map(|a| match a {
        Err(CallError::Refused(e)) => Some(e),
        _ => None,
    }) {
        Some(e) => Err(QueryError(e.clone()).into()),
        None => Ok(()),
    }
}
