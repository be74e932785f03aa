//! Search across shards: the example and three real crawls of the corpus
//! indexed once, and as three shards (`index --shard K/3`). The shards searched together
//! in one process, and through a front server (`serve --remote`) over three shard
//! servers, give the hits of the one index: the same documents in the same order with
//! the same scores (collection-wide term statistics, ties broken by URL key), under the
//! per-site limit and on later pages; a shard server that is down is named and the
//! others still answer.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::Duration;

use warcdex::import::manifest::ManifestEntry;
use warcdex::import::segment_dir::write_segment;
use warcdex::import::{import_archives, ImportOptions};
use warcdex::index::{build_index, IndexOptions};
use warcdex::search::{Hit, SearchIndex, SearchRequest, SearchResults};
use warcdex::serve::{front_router, router, serve, Front, ServeOptions};
use warcdex_cdx::shard::Shard;

use crate::util::fixture_manifest;

/// One segment of the example and three real crawls (a few hundred pages on many hosts).
fn segment(dir: &Path) -> PathBuf {
    let mut entries = fixture_manifest("example");
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/corpus/real");
    for (i, f) in [
        "pywb-2.10.0/warcs/iana.warc.gz",
        "node-warc/books.toscrape.warc",
        "netarchivesuite/warc/data/input/fyensdk.warc",
    ]
    .iter()
    .enumerate()
    {
        entries.push(ManifestEntry {
            path: real.join(f),
            collection: Some("corpus".into()),
            line: 100 + i as u64,
        });
    }
    let opts = ImportOptions::default();
    let (rows, reports) = import_archives(&entries, None, &opts, &|_| {}, &|_| {}).unwrap();
    let seg = dir.join("seg");
    write_segment(&seg, &rows, reports, &opts, None).unwrap();
    seg
}

/// Queries of words, phrases, filters alone (every score a tie of link boosts), and
/// words with filters.
const QUERIES: &[&str] = &[
    "the",
    "example",
    "examples",
    "news",
    "books",
    "basket",
    "travel",
    "poetry",
    "light",
    "iana",
    "domains",
    "\"root zone\"",
    "internet assigned numbers",
    "protocols",
    "fyens",
    "lisbon",
    "welcome",
    "date:2007",
    "type:text/html",
    "collection:corpus books",
    "site:books.toscrape.com",
    "stock site:books.toscrape.com",
    "example -news",
];

fn request(q: &str, start: usize, per_site: usize) -> SearchRequest {
    SearchRequest {
        query: q.into(),
        start,
        hits: 10,
        hits_per_site: per_site,
        replay_prefix: Some("http://wayback.test/web".into()),
        near: Default::default(),
        history: true,
        viewer: None,
        order: Default::default(),
        strict: false,
    }
}

/// What must be equal: each hit's document, dates, score, title, snippet, place.
fn hits(r: &SearchResults) -> Vec<String> {
    described(&r.hits)
}

fn described(hits: &[Hit]) -> Vec<String> {
    hits.iter()
        .map(|h| {
            format!(
                "{} {} {} {:?} {} {:?} {:?} {:?}",
                h.index, h.url, h.digest, h.dates, h.score, h.title, h.snippet.text, h.replay
            )
        })
        .collect()
}

fn start_server(app: axum::Router, opts: ServeOptions) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || serve(listener, app, &opts).unwrap());
    format!("http://{addr}")
}

fn get_json(url: &str) -> serde_json::Value {
    let (host, path) = url
        .strip_prefix("http://")
        .unwrap()
        .split_once('/')
        .unwrap();
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(host).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(
        s,
        "GET /{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{url}: {head}\n{body}");
    serde_json::from_str(body).unwrap()
}

/// The hits of a `/search.json` answer, read back as hits (its other fields ignored)
/// and written as [`hits`] writes them.
fn json_hits(v: &serde_json::Value) -> Vec<String> {
    described(&serde_json::from_value::<Vec<Hit>>(v["hits"].clone()).unwrap())
}

#[test]
fn shards_rank_as_one_index_in_one_process_and_through_a_front() {
    let dir = tempfile::tempdir().unwrap();
    let seg = segment(dir.path());
    let one_dir = dir.path().join("one");
    build_index(
        std::slice::from_ref(&seg),
        &one_dir.join("pindexes/one/main"),
        &IndexOptions::default(),
    )
    .unwrap();
    let split_dir = dir.path().join("split");
    for k in 0..3 {
        let opts = IndexOptions {
            shard: Some(Shard { index: k, count: 3 }),
            ..IndexOptions::default()
        };
        let main = split_dir.join(format!("pindexes/shard-{k}/main"));
        build_index(std::slice::from_ref(&seg), &main, &opts).unwrap();
        // Each shard server serves one shard.
        let own = dir.path().join(format!("server-{k}/pindexes/shard-{k}"));
        std::fs::create_dir_all(&own).unwrap();
        std::fs::create_dir_all(own.join("main")).unwrap();
        for e in std::fs::read_dir(&main).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), own.join("main").join(e.file_name())).unwrap();
        }
    }
    let one = SearchIndex::open(&one_dir).unwrap();
    let split = SearchIndex::open(&split_dir).unwrap();
    assert_eq!(split.sets().len(), 3);
    assert!(
        split.sets().iter().all(|s| s.documents > 10),
        "{:?}",
        split.sets()
    );

    let opts = ServeOptions {
        reload_interval: None,
        shard: true,
        ..ServeOptions::default()
    };
    let shards: Vec<String> = (0..3)
        .map(|k| {
            let index = SearchIndex::open(&dir.path().join(format!("server-{k}"))).unwrap();
            start_server(
                router(
                    warcdex::collection::Collection::open(index.dir()),
                    index,
                    opts.clone(),
                ),
                opts.clone(),
            )
        })
        .collect();
    let front_opts = ServeOptions {
        replay_prefix: Some("http://wayback.test/web".into()),
        ..opts.clone()
    };
    let front = Front::new(&shards, Duration::from_secs(30)).unwrap();
    let front_url = start_server(front_router(front, front_opts.clone()), front_opts.clone());

    let mut ties = 0;
    let mut multi_shard = 0;
    for q in QUERIES {
        for (start, per_site) in [(0, 2), (0, 0), (10, 2)] {
            let a = one.search(&request(q, start, per_site)).unwrap();
            let b = split.search(&request(q, start, per_site)).unwrap();
            let what = format!("{q:?} start {start} per site {per_site}");
            if start == 0 {
                assert!(!a.hits.is_empty(), "no hits for {what}");
            }
            assert_eq!(hits(&a), hits(&b), "{what}: the shards in one process");
            assert_eq!(
                (a.total, a.has_more, a.listed),
                (b.total, b.has_more, b.listed),
                "{what}"
            );
            ties += a
                .hits
                .windows(2)
                .filter(|w| w[0].score == w[1].score)
                .count();
            let sets: std::collections::HashSet<&str> =
                b.hits.iter().map(|h| h.set.as_str()).collect();
            multi_shard += usize::from(sets.len() > 1);

            let url = format!(
                "{front_url}/search.json?{}",
                serde_urlencoded::to_string([
                    ("query", q.to_string()),
                    ("start", start.to_string()),
                    ("hitsPerSite", per_site.to_string()),
                ])
                .unwrap()
            );
            let c = get_json(&url);
            assert_eq!(hits(&a), json_hits(&c), "{what}: through the front");
            assert_eq!(c["total"].as_u64(), Some(a.total), "{what}");
            assert_eq!(c["has_more"].as_bool(), Some(a.has_more), "{what}");
            assert_eq!(c["site_limited"].as_bool(), Some(b.site_limited), "{what}");
            assert!(c.get("unavailable").is_none(), "{what}: {c}");
        }
    }
    // The comparison saw ties in score and pages that mix shards.
    assert!(ties > 10, "{ties} ties");
    assert!(multi_shard > 10, "{multi_shard} mixed pages");

    // A search that finds nothing is asked again through the front as by one index:
    // fewer words required, then the shards' suggestion; `strict=1` keeps it empty.
    for q in [
        "lisbon zzqqxx",
        "internet assigned zzqq yyxx",
        "lisbo",
        "poetri",
    ] {
        let a = one.search(&request(q, 0, 2)).unwrap();
        assert!(
            a.total > 0 && (a.relaxed.is_some() || a.suggestion.is_some()),
            "{q}"
        );
        let c = get_json(&format!(
            "{front_url}/search.json?{}",
            serde_urlencoded::to_string([("query", q)]).unwrap()
        ));
        assert_eq!(hits(&a), json_hits(&c), "{q}: through the front");
        assert_eq!(c["total"].as_u64(), Some(a.total), "{q}");
        assert_eq!(
            c["relaxed"]["needed"].as_u64(),
            a.relaxed.map(|x| x.needed as u64),
            "{q}"
        );
        assert_eq!(c["suggestion"].as_str(), a.suggestion.as_deref(), "{q}");
        let strict = get_json(&format!(
            "{front_url}/search.json?strict=1&{}",
            serde_urlencoded::to_string([("query", q)]).unwrap()
        ));
        assert_eq!(strict["total"], 0, "{q}: {strict}");
    }

    // A shard server that is down is named, and the others answer.
    let closed = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", l.local_addr().unwrap())
    };
    let mut with_down = shards.clone();
    with_down.push(closed.clone());
    let front = Front::new(&with_down, Duration::from_secs(30)).unwrap();
    let partial_url = start_server(front_router(front, front_opts.clone()), front_opts);
    let c = get_json(&format!("{partial_url}/search.json?query=books"));
    let a = one.search(&request("books", 0, 2)).unwrap();
    assert_eq!(hits(&a), json_hits(&c));
    let unavailable = c["unavailable"].as_array().unwrap();
    assert_eq!(unavailable.len(), 1, "{c}");
    assert!(
        unavailable[0].as_str().unwrap().starts_with(&closed),
        "{unavailable:?}"
    );
    let health = get_json(&format!("{front_url}/healthz"));
    assert_eq!(health["status"], "ok", "{health}");
    // A malformed query is the user's error at the front as on one server.
    let raw = {
        use std::io::{Read, Write};
        let host = front_url.strip_prefix("http://").unwrap();
        let mut s = std::net::TcpStream::connect(host).unwrap();
        write!(
            s,
            "GET /search.json?query=title:* HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut raw = String::new();
        s.read_to_string(&mut raw).unwrap();
        raw
    };
    assert!(raw.starts_with("HTTP/1.1 400"), "{raw}");
}
