//! A front server (`serve --remote`) against shard servers that fail, lie or flood it:
//! a shard that refuses, fails or answers garbage is left out and the answer
//! is partial, never failed; statistics that cannot be true are refused (by the front
//! and by a shard, without a panic); counts saturate and impossible scores are refused;
//! `/healthz` names sets and counts, never paths; and a shard streaming an endless
//! answer to many requests at once leaves the front small.
//!
//! Shard servers here are either real (`router` over the worked example) or fake: a
//! `TcpListener` thread answering canned bodies, one request per connection.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use warcdex::search::facets::Tally;
use warcdex::search::{Hit, SearchIndex, ShardHit, ShardResults, Snippet};
use warcdex::serve::{front_router, router, serve, Front, ServeOptions};

/// What a fake shard server answers to a request.
#[derive(Clone)]
enum Reply {
    /// This status and body.
    Body(u16, String),
    /// 200 and a chunked body that never ends: written until the front hangs up, or for
    /// [`ENDLESS_FOR`] at most.
    Endless,
}

/// How long a fake shard streams an endless answer at most (the bound of the test).
const ENDLESS_FOR: Duration = Duration::from_secs(30);

/// Starts a fake shard server whose answer to each request is `route(path)` (the path
/// without its query); returns its base URL. One thread per connection, one request
/// each (`Connection: close`).
fn fake_shard(route: impl Fn(&str) -> Reply + Send + Sync + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let route = Arc::new(route);
    std::thread::spawn(move || {
        for s in listener.incoming() {
            let Ok(s) = s else { continue };
            let route = route.clone();
            std::thread::spawn(move || answer(s, &*route));
        }
    });
    url
}

/// Reads one request from `s` and writes the reply `route` gives for its path.
fn answer(s: TcpStream, route: &(dyn Fn(&str) -> Reply + Send + Sync)) {
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut r = BufReader::new(s.try_clone().unwrap());
    let mut line = String::new();
    if r.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let target = line.split(' ').nth(1).unwrap_or("/").to_string();
    let path = target.split('?').next().unwrap_or("/").to_string();
    let mut length = 0usize;
    loop {
        line.clear();
        if r.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        if line.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                length = v.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0; length];
    if r.read_exact(&mut body).is_err() {
        return;
    }
    let mut s = s;
    match route(&path) {
        Reply::Body(status, body) => {
            let _ = write!(
                s,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
        Reply::Endless => {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
            if s.write_all(head.as_bytes()).is_err() {
                return;
            }
            // A JSON object that never closes: `{"total": ` and spaces.
            let first = b"{\"total\": ";
            let _ = write!(s, "{:x}\r\n", first.len());
            let _ = s.write_all(first);
            let _ = s.write_all(b"\r\n");
            let spaces = vec![b' '; 64 << 10];
            let t0 = Instant::now();
            while t0.elapsed() < ENDLESS_FOR {
                let ok = write!(s, "{:x}\r\n", spaces.len()).is_ok()
                    && s.write_all(&spaces).is_ok()
                    && s.write_all(b"\r\n").is_ok();
                if !ok {
                    break;
                }
            }
        }
    }
}

/// The statistics a fake shard gives for `lisbon`.
const STATS: &str = r#"{"docs":10,"tokens":{"content":100},"terms":{"content":{"lisbon":2}}}"#;

fn hit(url: &str, score: f32) -> ShardHit {
    ShardHit {
        hit: Hit {
            index: 0,
            score,
            set: "s".into(),
            url: url.into(),
            title: "A page".into(),
            digest: "sha1:X".into(),
            mime: "text/html".into(),
            collection: String::new(),
            site: url.into(),
            length: 1,
            filename: String::new(),
            offset: 0,
            text_source: None,
            dates: vec!["20240101000000".into()],
            replay: Vec::new(),
            snippet: Snippet::default(),
            more_from_site: false,
            near_versions: 1,
            also_at: Vec::new(),
            history: Vec::new(),
            versions_total: 0,
        },
        urlkey: url.into(),
    }
}

/// A shard answer of `total` matches and these hits, as JSON.
fn shard_answer(total: u64, tally: Tally, hits: Vec<ShardHit>) -> String {
    serde_json::to_string(&ShardResults {
        total,
        tally,
        hidden_sites: Vec::new(),
        hits,
    })
    .unwrap()
}

/// A fake shard that gives [`STATS`] and then `search` to the search round, `health` to
/// `/healthz`.
fn shard_with(search: Reply, health: Reply) -> String {
    fake_shard(move |path| match path {
        "/shard/stats.json" => Reply::Body(200, STATS.into()),
        "/shard/search.json" => search.clone(),
        "/healthz" => health.clone(),
        _ => Reply::Body(404, "{\"error\":\"no such route\"}".into()),
    })
}

/// A fake shard that answers both rounds well, with one hit at `url`.
fn honest(url: &str, score: f32) -> String {
    let health = Reply::Body(
        200,
        r#"{"status":"ok","sets":[{"name":"s","documents":10}],"broken":[]}"#.into(),
    );
    shard_with(
        Reply::Body(
            200,
            shard_answer(1, Tally::default(), vec![hit(url, score)]),
        ),
        health,
    )
}

fn start_server(app: axum::Router, opts: ServeOptions) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || serve(listener, app, &opts).unwrap());
    addr
}

fn opts() -> ServeOptions {
    ServeOptions {
        reload_interval: None,
        shard: true,
        ..ServeOptions::default()
    }
}

/// A front server in this process over `shards`.
fn front(shards: &[String]) -> String {
    let f = Front::new(shards, Duration::from_secs(10)).unwrap();
    start_server(front_router(f, opts()), opts())
}

/// A request to `addr`: its status and body.
fn request(addr: &str, method: &str, target: &str, body: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(
        s,
        "{method} {target} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let Some((head, body)) = raw.split_once("\r\n\r\n") else {
        panic!("{target}: no answer: {raw:?}");
    };
    (head[9..12].parse().unwrap(), body.to_string())
}

fn get(addr: &str, target: &str) -> (u16, String) {
    request(addr, "GET", target, "")
}

fn json(body: &str) -> serde_json::Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

fn urls(v: &serde_json::Value) -> Vec<String> {
    v["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["url"].as_str().unwrap().to_string())
        .collect()
}

/// The shard servers `unavailable` names, in order.
fn unavailable(v: &serde_json::Value) -> Vec<String> {
    let Some(list) = v["unavailable"].as_array() else {
        return Vec::new();
    };
    list.iter()
        .map(|u| {
            let u = u.as_str().unwrap();
            u[..u.find(": ").unwrap()].to_string()
        })
        .collect()
}

/// The front's side: a shard that refuses the search (400), fails
/// (500), answers what is not a shard's answer, or refuses the statistics round, is left
/// out and named; the others' hits are the answer. Only when no shard answers and one
/// says the query is malformed is it the user's 400.
#[test]
fn a_failing_shard_makes_the_answer_partial_not_failed() {
    let good = honest("http://good.example/", 2.0);
    let refuses = shard_with(
        Reply::Body(400, r#"{"error":"this query cannot be answered"}"#.into()),
        Reply::Body(200, "{}".into()),
    );
    let fails = shard_with(
        Reply::Body(500, "<html>internal error</html>".into()),
        Reply::Body(200, "{}".into()),
    );
    let garbage = shard_with(
        Reply::Body(200, r#"{"total": "many"}"#.into()),
        Reply::Body(200, "{}".into()),
    );
    let refusing = || fake_shard(|_| Reply::Body(400, r#"{"error":"cannot read"}"#.into()));
    let refuses_stats = refusing();
    let all = [
        good.clone(),
        refuses.clone(),
        fails.clone(),
        garbage.clone(),
        refuses_stats.clone(),
    ];
    let addr = front(&all);
    let (status, body) = get(&addr, "/search.json?query=lisbon");
    assert_eq!(status, 200, "{body}");
    let v = json(&body);
    assert_eq!(urls(&v), ["http://good.example/"], "{body}");
    assert_eq!(unavailable(&v), &all[1..], "{body}");
    // The page says so too.
    let (status, page) = get(&addr, "/?query=lisbon");
    assert_eq!(status, 200);
    assert!(page.contains("good.example"), "{page}");

    // Every shard refusing the query: the user's error, as on one server.
    let addr = front(&[refuses_stats, refusing()]);
    let (status, body) = get(&addr, "/search.json?query=lisbon");
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("cannot read"), "{body}");
}

/// Builds the worked example's index under `dir` and serves it as a shard server.
fn real_shard(dir: &Path) -> String {
    warcdex::testing::build_fixture_index(dir, "example", "col1").unwrap();
    let index = SearchIndex::open(dir).unwrap();
    format!(
        "http://{}",
        start_server(
            router(
                warcdex::collection::Collection::open(index.dir()),
                index,
                opts()
            ),
            opts()
        )
    )
}

/// Statistics that cannot be true (a term in more documents than
/// the collection holds, a field with fewer tokens than documents holding a term of it)
/// are refused by a shard with a 400 that says so, without tripping tantivy's BM25
/// assertion; a front refuses such statistics from a shard in the first round, so one
/// lying shard leaves the others' answer whole.
#[test]
fn impossible_statistics_are_refused_without_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let shard = real_shard(dir.path());
    let addr = shard.strip_prefix("http://").unwrap();
    let (status, body) = get(addr, "/shard/stats.json?query=lisbon");
    assert_eq!(status, 200, "{body}");
    let stats = json(&body);
    assert!(stats["docs"].as_u64().unwrap() > 0, "{body}");

    // More documents with a term than documents, and than this shard holds (fewer
    // documents than the shard's own are taken as its own).
    let mut lie = stats.clone();
    lie["docs"] = 1.into();
    for (_, terms) in lie["terms"].as_object_mut().unwrap() {
        for (_, n) in terms.as_object_mut().unwrap() {
            *n = 1000.into();
        }
    }
    let target = "/shard/search.json?query=lisbon&need=11&hitsPerSite=2";
    let (status, body) = request(addr, "POST", target, &lie.to_string());
    assert_eq!(status, 400, "{body}");
    let msg = json(&body)["error"].as_str().unwrap().to_string();
    assert!(
        msg.contains("statistics") && msg.contains("lisbon") && !msg.contains("panic"),
        "{msg}"
    );
    // A field with no tokens but documents holding its terms.
    let mut lie = stats.clone();
    for (_, n) in lie["tokens"].as_object_mut().unwrap() {
        *n = 0.into();
    }
    let (status, body) = request(addr, "POST", target, &lie.to_string());
    assert_eq!(status, 400, "{body}");
    let msg = json(&body)["error"].as_str().unwrap().to_string();
    assert!(
        msg.contains("statistics") && msg.contains("tokens"),
        "{msg}"
    );
    // The true statistics still rank.
    let (status, body) = request(addr, "POST", target, &stats.to_string());
    assert_eq!(status, 200, "{body}");
    assert!(
        !json(&body)["hits"].as_array().unwrap().is_empty(),
        "{body}"
    );

    // A shard whose statistics say a term is in more documents than it holds: summed,
    // they would make every shard's search impossible.
    let mut liar_stats = stats.clone();
    liar_stats["docs"] = 0.into();
    for (_, terms) in liar_stats["terms"].as_object_mut().unwrap() {
        for (_, n) in terms.as_object_mut().unwrap() {
            *n = 1_000_000.into();
        }
    }
    let liar_stats = liar_stats.to_string();
    let empty = shard_answer(0, Tally::default(), Vec::new());
    let liar = fake_shard(move |path| match path {
        "/shard/stats.json" => Reply::Body(200, liar_stats.clone()),
        _ => Reply::Body(200, empty.clone()),
    });
    let front_addr = front(&[shard.clone(), liar.clone()]);
    let (status, body) = get(&front_addr, "/search.json?query=lisbon");
    assert_eq!(status, 200, "{body}");
    let v = json(&body);
    assert!(!urls(&v).is_empty(), "{body}");
    assert_eq!(unavailable(&v), [liar], "{body}");
    // The hits are those of the shard alone.
    let (_, alone) = get(&front(&[shard]), "/search.json?query=lisbon");
    assert_eq!(urls(&v), urls(&json(&alone)));
}

/// The front adds shards' counts without wrapping around (two
/// shards' 2^64 − 1 and 5 stayed 2^64 − 1, not 4), and a shard answering a score that is
/// not a finite number ≥ 0 (1e308 is infinite as an f32, and was shown as `null`) is
/// left out and named, its hits with it.
#[test]
fn counts_saturate_and_impossible_scores_are_refused() {
    let tally = Tally {
        sites: BTreeMap::from([("a.example".to_string(), u64::MAX)]),
        years: BTreeMap::from([(2024, u64::MAX)]),
        ..Tally::default()
    };
    let big = shard_with(
        Reply::Body(
            200,
            shard_answer(u64::MAX, tally.clone(), vec![hit("http://a.example/", 1.0)]),
        ),
        Reply::Body(200, "{}".into()),
    );
    let small = shard_with(
        Reply::Body(
            200,
            shard_answer(5, tally, vec![hit("http://b.example/", 0.5)]),
        ),
        Reply::Body(200, "{}".into()),
    );
    let addr = front(&[big.clone(), small.clone()]);
    let (status, body) = get(&addr, "/search.json?query=lisbon");
    assert_eq!(status, 200, "{body}");
    let v = json(&body);
    assert_eq!(v["total"].as_u64(), Some(u64::MAX), "{body}");
    assert_eq!(urls(&v), ["http://a.example/", "http://b.example/"]);
    assert!(!body.contains("null"), "{body}");

    for score in ["1e308", "-1e308", "-1.0"] {
        let mut answer = json(&shard_answer(
            1,
            Tally::default(),
            vec![hit("http://huge.example/", 1.0)],
        ));
        answer["hits"][0]["score"] = serde_json::from_str(score).unwrap();
        let absurd = shard_with(
            Reply::Body(200, answer.to_string()),
            Reply::Body(200, "{}".into()),
        );
        let addr = front(&[small.clone(), absurd.clone()]);
        let (status, body) = get(&addr, "/search.json?query=lisbon");
        assert_eq!(status, 200, "{score}: {body}");
        let v = json(&body);
        assert_eq!(urls(&v), ["http://b.example/"], "{score}: {body}");
        assert_eq!(unavailable(&v), [absurd], "{score}: {body}");
        assert!(!body.contains("null"), "{score}: {body}");
    }
}

/// `/healthz` shows set names and document counts, never a path
/// of the server's file system (it showed each set's main and dates directories, and a
/// refused set's error naming them), and a front relays only that of its shards'.
#[test]
fn healthz_names_sets_and_counts_only() {
    let dir = tempfile::tempdir().unwrap();
    // A set that is refused: its error names its directory.
    std::fs::create_dir_all(dir.path().join("pindexes/zbroken/main")).unwrap();
    std::fs::write(dir.path().join("pindexes/zbroken/main/meta.json"), "{").unwrap();
    let shard = real_shard(dir.path());
    let root = dir.path().to_str().unwrap().to_string();
    let (status, body) = get(shard.strip_prefix("http://").unwrap(), "/healthz");
    assert_eq!(status, 200, "{body}");
    assert!(!body.contains(&root), "{body}");
    let v = json(&body);
    assert_eq!(v["status"], "degraded", "{body}");
    assert_eq!(
        v["sets"],
        serde_json::json!([{ "name": "col1", "documents": v["sets"][0]["documents"] }]),
        "{body}"
    );
    assert!(v["sets"][0]["documents"].as_u64().unwrap() > 0, "{body}");
    assert_eq!(
        v["broken"],
        serde_json::json!([{ "name": "zbroken" }]),
        "{body}"
    );

    // A front relays names and counts, whatever else a shard's /healthz holds.
    let chatty = fake_shard(|_| {
        Reply::Body(
            503,
            r#"{"status":"down","sets":[],"broken":[{"name":"b","error":"/secret/b/main: damaged"}]}"#
                .into(),
        )
    });
    let addr = front(&[shard.clone(), chatty.clone()]);
    let (status, body) = get(&addr, "/healthz");
    assert_eq!(status, 200, "{body}");
    assert!(!body.contains(&root) && !body.contains("/secret"), "{body}");
    let v = json(&body);
    assert_eq!(v["status"], "degraded", "{body}");
    assert_eq!(v["shards"][0]["server"], shard.as_str());
    assert_eq!(
        v["shards"][0]["health"]["sets"][0]["name"], "col1",
        "{body}"
    );
    assert_eq!(v["shards"][1]["server"], chatty.as_str());
    assert_eq!(v["shards"][1]["health"]["status"], "down", "{body}");
    assert_eq!(v["shards"][1]["health"]["broken"][0]["name"], "b", "{body}");
}

/// The peak resident memory of process `pid` (VmHWM), in bytes.
fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kb * 1024
}

/// A `warcdex serve --remote` process (killed on drop) and its address.
struct FrontProcess {
    child: std::process::Child,
    addr: String,
}

impl Drop for FrontProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl FrontProcess {
    fn start(shards: &[String]) -> FrontProcess {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_warcdex"));
        cmd.args(["serve", "--addr", "127.0.0.1:0", "--remote-timeout", "20"]);
        for s in shards {
            cmd.args(["--remote", s]);
        }
        let mut child = cmd.stderr(std::process::Stdio::piped()).spawn().unwrap();
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        let addr = loop {
            line.clear();
            assert!(
                err.read_line(&mut line).unwrap() > 0,
                "the front ended before listening"
            );
            if let Some(a) = line
                .trim()
                .strip_prefix("warcdex serve: listening on http://")
            {
                break a.trim_end_matches('/').to_string();
            }
        };
        // Keep draining stderr so that the front never blocks on a full pipe.
        std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
        FrontProcess { child, addr }
    }
}

/// Searches sent at once in the flood test.
const FLOOD_REQUESTS: usize = 64;

/// What a front may hold at its peak while one shard floods it (it
/// held 64 MiB per shard answer, 3.29 GB at 64 requests).
const FLOOD_PEAK_LIMIT: u64 = 256 << 20;

/// A shard streaming an endless answer to 64 searches at once. The
/// front reads each answer up to its bound, within a budget shared by every request, so
/// its peak resident memory stays under 256 MiB, and every search is answered with the
/// other shard's hit, naming the flooding shard.
#[test]
fn a_flooding_shard_leaves_the_front_small() {
    let good = honest("http://good.example/", 2.0);
    let flood = shard_with(Reply::Endless, Reply::Endless);
    let front = FrontProcess::start(&[good, flood.clone()]);
    let t0 = Instant::now();
    let answers: Vec<(u16, String)> = std::thread::scope(|s| {
        let asks: Vec<_> = (0..FLOOD_REQUESTS)
            .map(|_| s.spawn(|| get(&front.addr, "/search.json?query=lisbon")))
            .collect();
        asks.into_iter().map(|a| a.join().unwrap()).collect()
    });
    let peak = peak_rss(front.child.id());
    eprintln!(
        "front peak RSS {:.1} MiB with a flooding shard, {FLOOD_REQUESTS} searches at once, {:.1} s",
        peak as f64 / (1 << 20) as f64,
        t0.elapsed().as_secs_f64()
    );
    for (status, body) in &answers {
        assert_eq!(*status, 200, "{body}");
        let v = json(body);
        assert_eq!(urls(&v), ["http://good.example/"], "{body}");
        assert_eq!(unavailable(&v), std::slice::from_ref(&flood), "{body}");
    }
    assert!(
        peak < FLOOD_PEAK_LIMIT,
        "the front peaked at {peak} bytes (limit {FLOOD_PEAK_LIMIT})"
    );
}
