//! Access rules (pywb's `.aclj` and embargo) on every route. Each rule kind
//! hides captures holding a word of their own; the public must find none of them on
//! any route, the user a rule allows must, and what the public sees must be what a
//! collection that never held the hidden captures shows.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use warcdex::access::{time::seconds_date14, LiveRules, RulesConfig};
use warcdex::serve::ServeOptions;

use crate::util::http::{request, Answer};
use crate::util::{run_warcdex, start_in_process, write_warc};

const RULES: &str = "\
example,news)/robots - {\"access\": \"exclude\"}
example,news)/fresh - {\"access\": \"allow_ignore_embargo\", \"user\": \"staff\"}
example,news)/court - {\"access\": \"block\"}
example,news)/court - {\"access\": \"allow\", \"user\": \"staff\"}
example,lib)/private/open - {\"access\": \"allow\"}
example,lib)/private/ - {\"access\": \"block\"}
";

/// The header a reading-room proxy sets.
const USER: &str = "x-pywb-acl-user";

fn page(title: &str, words: &str) -> String {
    format!(
        "<html><head><title>{title}</title></head><body><h1>{title}</h1>\
         <p>From the archive of the town: {words}. The reading room opens at nine and \
         the catalogue lists every item held.</p></body></html>"
    )
}

/// An ISO date `days` before now.
fn days_ago(days: i64) -> String {
    let d = seconds_date14(warcdex_cdx::date::now_seconds() - days * 86_400).to_string();
    format!(
        "{}-{}-{}T{}:{}:{}Z",
        &d[..4],
        &d[4..6],
        &d[6..8],
        &d[8..10],
        &d[10..12],
        &d[12..14]
    )
}

/// (URL, date, HTML, hidden from the public): the old crawl of 2020 and a crawl of a
/// month ago, which the embargo (a year) holds back.
fn captures() -> Vec<(String, String, String, bool)> {
    let old = "2020-05-01T10:00:00Z".to_string();
    let recent = days_ago(30);
    let c = |url: &str, date: &String, title: &str, words: &str, hidden: bool| {
        (url.to_string(), date.clone(), page(title, words), hidden)
    };
    vec![
        c(
            "http://lib.example/",
            &old,
            "Library",
            "welcome readers",
            false,
        ),
        c(
            "http://lib.example/private/diary",
            &old,
            "Diary",
            "narwhalprivate notes",
            true,
        ),
        c(
            "http://lib.example/private/open",
            &old,
            "Open letters",
            "marmotallow letters",
            false,
        ),
        c(
            "http://news.example/court",
            &old,
            "Court",
            "zanzibarblock ruling",
            true,
        ),
        c(
            "http://news.example/robots",
            &old,
            "Robots",
            "quokkaexclude page",
            true,
        ),
        c(
            "http://news.example/story",
            &old,
            "Story",
            "ocelotold story",
            false,
        ),
        c(
            "http://news.example/weather",
            &old,
            "Weather",
            "sunny weather",
            false,
        ),
        c(
            "http://lib.example/",
            &recent,
            "Library",
            "welcome readers",
            true,
        ),
        c(
            "http://news.example/story",
            &recent,
            "Story",
            "ocelotrecent story",
            true,
        ),
        c(
            "http://news.example/weather",
            &recent,
            "Weather",
            "sunny weather",
            true,
        ),
        c(
            "http://news.example/fresh",
            &recent,
            "Fresh",
            "lynxfresh news",
            true,
        ),
    ]
}

/// A collection of two batches (the old crawl, then the recent one) of the captures
/// `keep` keeps, each crawl a WARC named as in the full collection.
fn collection(dir: &Path, keep: impl Fn(&(String, String, String, bool)) -> bool) -> PathBuf {
    let coll = dir.join("coll");
    let all = captures();
    for (i, crawl) in ["2020", "recent"].iter().enumerate() {
        let caps: Vec<(String, String, String)> = (all.iter())
            .filter(|c| (i == 0) == c.1.starts_with("2020") && keep(c))
            .map(|(u, d, h, _)| (u.clone(), d.clone(), h.clone()))
            .collect();
        if caps.is_empty() {
            continue;
        }
        std::fs::create_dir_all(dir.join(crawl)).unwrap();
        let warc = dir.join(crawl).join(format!("crawl-{crawl}.warc"));
        write_warc(&warc, &caps);
        let (code, _, err) = run_warcdex(&["update".as_ref(), coll.as_os_str(), warc.as_os_str()]);
        assert_eq!(code, 0, "{err}");
    }
    coll
}

fn rules_in(dir: &Path) -> Arc<LiveRules> {
    let acl = dir.join("rules");
    std::fs::create_dir_all(&acl).unwrap();
    let mut lines: Vec<&str> = RULES.lines().collect();
    lines.sort_by(|a, b| b.cmp(a));
    std::fs::write(acl.join("rules.aclj"), lines.join("\n") + "\n").unwrap();
    let embargo = warcdex::access::Embargo::from_flags(&["newer=365d".into()]).unwrap();
    LiveRules::load(RulesConfig {
        acl_paths: vec![acl],
        embargo,
        ..RulesConfig::default()
    })
    .unwrap()
}

fn serve_with(coll: &Path, live: Option<Arc<LiveRules>>) -> String {
    start_in_process(coll, options(live))
}

fn options(live: Option<Arc<LiveRules>>) -> ServeOptions {
    ServeOptions {
        access: live,
        user_header: Some(USER.parse().unwrap()),
        replay_prefix: Some(warcdex::serve::VIEW_PREFIX.into()),
        ..ServeOptions::default()
    }
}

/// A shard server (`serve --shard`) of `coll` under `live`.
fn shard_with(coll: &Path, live: Option<Arc<LiveRules>>) -> String {
    let opts = ServeOptions {
        shard: true,
        ..options(live)
    };
    start_in_process(coll, opts)
}

fn get(addr: &str, path: &str, user: Option<&str>) -> Answer {
    let extra = user.map_or(String::new(), |u| format!("{USER}: {u}\r\n"));
    request(addr, "GET", path, extra)
}

fn search(addr: &str, q: &str, user: Option<&str>) -> Value {
    let path = format!(
        "/search.json?query={}&hits=50&hitsPerSite=0",
        q.replace(' ', "+")
    );
    let a = get(addr, &path, user);
    assert_eq!(a.status, 200, "{q}: {}", a.text());
    serde_json::from_slice(&a.body).unwrap()
}

/// What a search shows, ranking aside: the count, facets, timeline, and each hit's URL
/// and capture dates (scores differ: the hidden pages still count in the statistics).
fn shown(r: &Value) -> Value {
    let mut hits: Vec<(String, Value)> = (r["hits"].as_array().unwrap().iter())
        .map(|h| (h["url"].as_str().unwrap().to_string(), h["dates"].clone()))
        .collect();
    hits.sort_by(|a, b| a.0.cmp(&b.0));
    serde_json::json!({
        "total": r["total"], "facets": r["facets"], "timeline": r["timeline"],
        "hits": hits,
    })
}

/// The hidden captures by URL and what a capture route answers the public for each:
/// blocked is 451, excluded and embargoed are not there at all.
const HIDDEN_BY_URL: [(&str, u16); 4] = [
    ("http://news.example/court", 451),
    ("http://lib.example/private/diary", 451),
    ("http://news.example/robots", 404),
    ("http://news.example/fresh", 404),
];

/// Each hidden capture's own word, and its URL.
const HIDDEN_WORDS: [(&str, &str); 5] = [
    ("narwhalprivate", "private/diary"),
    ("zanzibarblock", "news.example/court"),
    ("quokkaexclude", "news.example/robots"),
    ("ocelotrecent", "news.example/story"),
    ("lynxfresh", "news.example/fresh"),
];

#[test]
fn hidden_captures_are_absent_from_every_route_for_the_public_only() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = collection(tmp.path(), |_| true);
    let addr = serve_with(&coll, Some(rules_in(tmp.path())));
    let public = None;
    let staff = Some("staff");

    // Each hidden word: no hit, no count, on the page, the feed and the JSON.
    let hidden = HIDDEN_WORDS;
    for (word, url) in hidden {
        let r = search(&addr, word, public);
        assert_eq!(r["total"], 0, "{word}: {r}");
        for route in ["/", "/opensearch"] {
            let a = get(&addr, &format!("{route}?query={word}"), public);
            assert_eq!(a.status, 200, "{route}");
            // The query is echoed; no hit's URL is shown.
            assert!(!a.text().contains(url), "{route} {word}: {}", a.text());
        }
        let all = search(&addr, "archive town", public);
        assert!(!all.to_string().contains(word), "{word} in {all}");
    }
    let all = search(&addr, "archive town", public).to_string();
    for url in [
        "private/diary",
        "news.example/court",
        "news.example/robots",
        "news.example/fresh",
    ] {
        assert!(!all.contains(url), "{url} in {all}");
    }
    // Visible to the public: an allow inside a block, and the old version of a page
    // whose new one is embargoed.
    for word in ["marmotallow", "ocelotold", "welcome"] {
        assert_eq!(search(&addr, word, public)["total"], 1, "{word}");
    }
    // The user a rule names sees the court ruling and the embargoed news it ignores;
    // not the private diary, nor the captures still embargoed for everyone.
    for (word, n) in [
        ("zanzibarblock", 1),
        ("lynxfresh", 1),
        ("narwhalprivate", 0),
        ("ocelotrecent", 0),
    ] {
        assert_eq!(search(&addr, word, staff)["total"], n, "staff: {word}");
    }
    // Another user is the public.
    assert_eq!(search(&addr, "zanzibarblock", Some("visitor"))["total"], 0);

    // A version with an embargoed capture lists only its other dates.
    let weather = search(&addr, "sunny", public);
    assert_eq!(
        weather["hits"][0]["dates"],
        serde_json::json!(["20200501100000"])
    );

    // By URL: blocked is 451, excluded and embargoed are not there at all.
    for (url, status) in HIDDEN_BY_URL {
        for path in [
            format!("/web/2020/{url}"),
            format!("/web/2020id_/{url}"),
            format!("/text/20200501100000/{url}"),
            format!("/timemap/link/{url}"),
            format!("/timemap/json/{url}"),
            format!("/timegate/{url}"),
            format!("/history/{url}"),
            format!("/diff/2020/2026/{url}"),
        ] {
            let a = get(&addr, &path, public);
            assert_eq!(a.status, status, "{path}: {}", a.text());
            assert!(!a.text().contains("zanzibarblock") && !a.text().contains("narwhalprivate"));
        }
        let cdx = get(&addr, &format!("/cdx?url={url}"), public);
        assert_eq!((cdx.status, cdx.text()), (200, String::new()), "/cdx {url}");
    }
    for path in [
        "/web/20200501100000/http://news.example/court",
        "/text/20200501100000/http://news.example/court",
        "/history/http://news.example/court",
    ] {
        let a = get(&addr, path, staff);
        assert_eq!(a.status, 200, "staff {path}: {}", a.text());
    }
    let text = get(
        &addr,
        "/text/20200501100000/http://news.example/court",
        staff,
    );
    assert!(text.text().contains("zanzibarblock"));

    // A URL with one version shown: its history, TimeMap and CDX show that one only.
    let story = "http://news.example/story";
    let h = get(&addr, &format!("/history/{story}"), public).text();
    assert!(
        h.contains("20200501100000") && !h.contains("ocelotrecent"),
        "{h}"
    );
    let tm = get(&addr, &format!("/timemap/link/{story}"), public).text();
    assert_eq!(
        tm.matches("memento\"").count() + tm.matches("memento;").count(),
        1,
        "{tm}"
    );
    let cdx = get(&addr, &format!("/cdx?url={story}"), public).text();
    assert_eq!(cdx.lines().count(), 1, "{cdx}");
    assert_eq!(
        get(&addr, &format!("/cdx?url={story}"), staff)
            .text()
            .lines()
            .count(),
        1
    );
    let latest = get(&addr, &format!("/timegate/{story}"), public);
    assert!(latest
        .header("location")
        .is_some_and(|l| l.contains("/20200501100000/")));

    // Archive bytes: the court record's range is refused to the public (as every range
    // not wholly inside shown records is, alike), sent to the staff; a whole archive is
    // not sent while rules are in force.
    let line = get(
        &addr,
        "/cdx?url=http://news.example/court&output=json",
        staff,
    )
    .text();
    let rec: Value = serde_json::from_str(line.lines().next().unwrap()).unwrap();
    let (off, len): (u64, u64) = (
        rec["offset"].as_str().unwrap().parse().unwrap(),
        rec["length"].as_str().unwrap().parse().unwrap(),
    );
    let name = rec["filename"].as_str().unwrap();
    let range = format!("Range: bytes={off}-{}\r\n", off + len - 1);
    let warc = format!("/warcs/{name}");
    assert_eq!(request(&addr, "GET", &warc, &range).status, 403);
    let sent = request(&addr, "GET", &warc, format!("{range}{USER}: staff\r\n"));
    assert_eq!(sent.status, 206);
    assert!(String::from_utf8_lossy(&sent.body).contains("zanzibarblock"));
    assert_eq!(get(&addr, &warc, public).status, 403);
    // Part of a record the asker may see is sent; past its end, into the next
    // record (hidden from the staff too), it is not.
    let inside = format!("Range: bytes={}-{}\r\n", off + 10, off + len - 1);
    let part = request(&addr, "GET", &warc, format!("{inside}{USER}: staff\r\n"));
    assert_eq!(part.status, 206);
    assert_eq!(part.body, sent.body[10..]);
    let past = format!("Range: bytes={}-{}\r\n", off + 10, off + len);
    assert_eq!(
        request(&addr, "GET", &warc, format!("{past}{USER}: staff\r\n")).status,
        403
    );
}

/// The replay origin's `ir_` (what wabac.js's service worker replays from) holds the
/// rules as the capture view does: blocked 451, excluded and embargoed absent, fuzzy
/// matching finding no hidden capture, the user a rule names let in.
#[test]
fn ir_on_the_replay_origin_holds_the_rules() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = collection(tmp.path(), |_| true);
    let (_, replay) =
        crate::util::start_with_replay(&coll, options(Some(rules_in(tmp.path()))), b"/* sw */");
    for (url, status) in HIDDEN_BY_URL {
        for path in [
            format!("/web/2020ir_/{url}"),
            format!("/web/2030ir_/{url}"),
            // Not archived with a query: whatever the fuzzy rules would find, no hidden
            // capture (replay_scripts.rs shows them finding a stylesheet).
            format!("/web/2020ir_/{url}?v=1"),
        ] {
            let a = get(&replay, &path, None);
            let want = if path.ends_with("?v=1") { 404 } else { status };
            assert_eq!(a.status, want, "{path}: {}", a.text());
            for word in [
                "zanzibarblock",
                "narwhalprivate",
                "quokkaexclude",
                "lynxfresh",
            ] {
                assert!(!a.text().contains(word), "{path}: {word}");
            }
        }
    }
    let staff = get(
        &replay,
        "/web/2020ir_/http://news.example/court",
        Some("staff"),
    );
    assert_eq!(staff.status, 200);
    assert!(staff.text().contains("zanzibarblock"));
    // The public's visible page, for contrast (the probe can fail).
    assert_eq!(
        get(&replay, "/web/2020ir_/http://lib.example/", None).status,
        200
    );
}

/// ReplayWeb.page's index (`/warcs/index.cdxj`) lists what the asker may see; CORS is
/// the public's only, so another site's page in a reading room's browser cannot read
/// what the room's user is shown.
#[test]
fn the_cdxj_index_lists_what_the_asker_may_see_and_cors_is_the_publics() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = collection(tmp.path(), |_| true);
    let addr = serve_with(&coll, Some(rules_in(tmp.path())));
    let public = get(&addr, "/warcs/index.cdxj", None);
    assert_eq!(public.status, 200);
    assert_eq!(public.header("access-control-allow-origin"), Some("*"));
    for url in ["court", "private/diary", "robots", "fresh"] {
        assert!(!public.text().contains(url), "{url}: {}", public.text());
    }
    assert!(public.text().contains("\"url\": \"http://lib.example/\""));
    let staff = get(&addr, "/warcs/index.cdxj", Some("staff"));
    assert!(staff.text().contains("http://news.example/court"));
    assert!(!staff.text().contains("private/diary"));
    assert_eq!(staff.header("access-control-allow-origin"), None);
    let staff_cdx = get(&addr, "/cdx?url=news.example/court", Some("staff"));
    assert_eq!(staff_cdx.header("access-control-allow-origin"), None);
}

#[test]
fn the_public_sees_what_a_collection_without_the_hidden_captures_shows() {
    let tmp = tempfile::tempdir().unwrap();
    let full = collection(&tmp.path().join("full"), |_| true);
    let without = collection(&tmp.path().join("without"), |c| !c.3);
    let ruled = serve_with(&full, Some(rules_in(tmp.path())));
    let plain = serve_with(&without, None);
    for q in [
        "archive",
        "town reading room",
        "archive site:news.example",
        "story",
        "sunny",
        "catalogue date:2020",
        "catalogue date:2021-2030",
        "welcome",
    ] {
        let a = shown(&search(&ruled, q, None));
        let b = shown(&search(&plain, q, None));
        assert_eq!(a, b, "{q}");
    }
    assert!(search(&ruled, "archive", None)["total"].as_u64().unwrap() >= 4);
}

#[test]
fn a_rule_added_while_serving_takes_effect_without_a_restart() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = collection(tmp.path(), |_| true);
    let live = rules_in(tmp.path());
    live.watch(std::time::Duration::from_millis(100));
    let addr = serve_with(&coll, Some(live));
    assert_eq!(search(&addr, "marmotallow", None)["total"], 1);
    // A takedown: a new list in the rules directory.
    std::fs::write(
        tmp.path().join("rules/takedown.aclj"),
        "example,lib)/private/open - {\"access\": \"exclude\"}\n",
    )
    .unwrap();
    let t0 = std::time::Instant::now();
    while search(&addr, "marmotallow", None)["total"] != 0 {
        assert!(
            t0.elapsed().as_secs() < 30,
            "the takedown never took effect"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(
        get(&addr, "/web/2020/http://lib.example/private/open", None).status,
        404
    );
    // A rules file that does not read leaves the rules in force.
    std::fs::write(
        tmp.path().join("rules/takedown.aclj"),
        "example,lib)/ - {\"access\": \"nope\"}\n",
    )
    .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(search(&addr, "marmotallow", None)["total"], 0);
    assert_eq!(search(&addr, "welcome", None)["total"], 1);
}

/// A front server over the shard server at `shard`, taking the user from [`USER`].
fn front_of(shard: &str) -> String {
    let opts = ServeOptions {
        user_header: Some(USER.parse().unwrap()),
        ..ServeOptions::default()
    };
    let f = warcdex::serve::Front::new(
        &[format!("http://{shard}")],
        std::time::Duration::from_secs(10),
    )
    .unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let front = listener.local_addr().unwrap().to_string();
    let app = warcdex::serve::front_router(f, opts.clone());
    std::thread::spawn(move || warcdex::serve::serve(listener, app, &opts).unwrap());
    front
}

#[test]
fn a_front_server_passes_the_user_on_to_its_shards() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = collection(tmp.path(), |_| true);
    let shard = shard_with(&coll, Some(rules_in(tmp.path())));
    let front = front_of(&shard);
    assert_eq!(search(&front, "zanzibarblock", None)["total"], 0);
    assert_eq!(search(&front, "zanzibarblock", Some("staff"))["total"], 1);
    assert_eq!(search(&front, "marmotallow", None)["total"], 1);
}

#[test]
fn exports_hold_what_the_asker_may_see() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = collection(tmp.path(), |_| true);
    rules_in(tmp.path());
    let acl = tmp.path().join("rules");
    let export = |user: Option<&str>| {
        let mut args = vec![
            "export".to_string(),
            "-d".into(),
            coll.display().to_string(),
        ];
        args.extend([
            "--acl".into(),
            acl.display().to_string(),
            "--embargo".into(),
            "newer=365d".into(),
        ]);
        args.extend(["--fields".into(), "url,dates,text".into()]);
        if let Some(u) = user {
            args.extend(["--user".into(), u.into()]);
        }
        args.push("archive town".into());
        let (code, out, err) = run_warcdex(&args);
        assert_eq!(code, 0, "{err}");
        out
    };
    let public = export(None);
    for hidden in [
        "narwhalprivate",
        "zanzibarblock",
        "quokkaexclude",
        "ocelotrecent",
        "lynxfresh",
    ] {
        assert!(!public.contains(hidden), "{hidden} in {public}");
    }
    assert!(public.contains("marmotallow") && public.contains("ocelotold"));
    // One version of the weather page, with its shown date only.
    assert!(
        public.contains("http://news.example/weather,20200501100000,"),
        "{public}"
    );
    let staff = export(Some("staff"));
    assert!(staff.contains("zanzibarblock") && staff.contains("lynxfresh"));
    assert!(!staff.contains("narwhalprivate"));
    // The same from the server, streamed.
    let addr = serve_with(&coll, Some(rules_in(tmp.path())));
    let path = "/export?query=archive+town&fields=url,dates,text";
    let served = get(&addr, path, None);
    assert_eq!(served.status, 200);
    assert_eq!(
        served.header("content-type"),
        Some("text/csv; charset=utf-8")
    );
    assert_eq!(served.text(), public);
    assert_eq!(get(&addr, path, Some("staff")).text(), staff);
    let jsonl = get(&addr, "/export?query=archive&format=jsonl&asOf=2021", None).text();
    assert!(jsonl.lines().count() >= 4 && !jsonl.contains("zanzibarblock"));
    for bad in [
        "/export?query=a&format=xml",
        "/export?query=a&fields=nope",
        "/export",
        "/export?query=a+date:20x",
    ] {
        assert_eq!(get(&addr, bad, None).status, 400, "{bad}");
    }
}

/// A word only in an excluded page's link text does not find the page
/// it links to (search, JSON, export), while the staff, who may see the excluded page,
/// still find it by that anchor; the shown page's own words find it for everyone.
#[test]
fn hidden_pages_anchor_text_finds_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let target = "http://museum.example/collection";
    let caps = vec![
        (
            target.to_string(),
            "2020-05-01T10:00:00Z".to_string(),
            page("The collection", "paintings and drawings of the town"),
        ),
        (
            "http://secret.example/list".to_string(),
            "2020-05-01T10:05:00Z".to_string(),
            format!(
                "<html><head><title>List</title></head><body><p>See <a href=\"{target}\">\
                 quetzalanchor treasures</a>.</p></body></html>"
            ),
        ),
        (
            "http://open.example/links".to_string(),
            "2020-05-01T10:06:00Z".to_string(),
            format!(
                "<html><head><title>Links</title></head><body><p>See <a href=\"{target}\">\
                 tapirlink gallery</a>.</p></body></html>"
            ),
        ),
        // A hidden page of the same host: its anchor is internal (`anchor_internal`).
        (
            "http://museum.example/private/notes".to_string(),
            "2020-05-01T10:07:00Z".to_string(),
            format!(
                "<html><head><title>Notes</title></head><body><p>See <a href=\"{target}\">\
                 okapiinside hall</a>.</p></body></html>"
            ),
        ),
    ];
    let warc = tmp.path().join("crawl.warc");
    write_warc(&warc, &caps);
    let coll = tmp.path().join("coll");
    let (code, _, err) = run_warcdex(&["update".as_ref(), coll.as_os_str(), warc.as_os_str()]);
    assert_eq!(code, 0, "{err}");
    let acl = tmp.path().join("rules");
    std::fs::create_dir_all(&acl).unwrap();
    std::fs::write(
        acl.join("rules.aclj"),
        "example,museum)/private - {\"access\": \"exclude\"}\n\
         example,museum)/private - {\"access\": \"allow\", \"user\": \"staff\"}\n\
         example,secret)/ - {\"access\": \"exclude\"}\n\
         example,secret)/ - {\"access\": \"allow\", \"user\": \"staff\"}\n",
    )
    .unwrap();
    let total = |q: &str, user: Option<&str>| -> u64 {
        let mut args = vec![
            "search".to_string(),
            "-d".into(),
            coll.display().to_string(),
            "--json".into(),
            "--acl".into(),
            acl.display().to_string(),
        ];
        if let Some(u) = user {
            args.extend(["--user".into(), u.into()]);
        }
        args.push(q.into());
        let (code, out, err) = run_warcdex(&args);
        assert_eq!(code, 0, "{q}: {err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        v["total"].as_u64().unwrap()
    };
    // Without rules the hidden page's anchor finds the target.
    let (_, out, _) = run_warcdex(&[
        "search",
        "-d",
        coll.to_str().unwrap(),
        "--json",
        "quetzalanchor",
    ]);
    let v: Value = serde_json::from_str(&out).unwrap();
    let urls: Vec<&str> = (v["hits"].as_array().unwrap().iter())
        .map(|h| h["url"].as_str().unwrap())
        .collect();
    assert!(urls.contains(&target), "{v}");
    // So does a hidden page's anchor within the host, weighed apart.
    let (_, out, _) = run_warcdex(&[
        "search",
        "-d",
        coll.to_str().unwrap(),
        "--json",
        "okapiinside",
    ]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(
        (v["hits"].as_array().unwrap().iter()).any(|h| h["url"] == target),
        "{v}"
    );
    assert_eq!(
        total("okapiinside", None),
        0,
        "the hidden page's internal anchor"
    );
    assert_eq!(total("okapiinside", Some("staff")), 2, "staff see both");
    // The excluded page itself holds the word, and its anchor made the target match.
    assert_eq!(
        total("quetzalanchor", None),
        0,
        "the excluded page's anchor"
    );
    assert_eq!(total("quetzalanchor", Some("staff")), 2, "staff see both");
    assert_eq!(total("tapirlink", None), 1, "a shown page's anchor");
    assert_eq!(total("paintings", None), 1, "the page's own words");
    let (code, out, err) = run_warcdex(&[
        "export",
        "-d",
        coll.to_str().unwrap(),
        "--acl",
        acl.to_str().unwrap(),
        "quetzalanchor",
        "--format",
        "jsonl",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.trim().is_empty(), "{out}");
}

/// A proxy that adds the user header instead of replacing it passes
/// the client's own too; sent twice, in either order, the header names no user, on the
/// server and through a front server alike.
#[test]
fn a_user_header_sent_twice_is_the_public() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = collection(tmp.path(), |_| true);
    let shard = shard_with(&coll, Some(rules_in(tmp.path())));
    let front = front_of(&shard);
    let total = |addr: &str, extra: &str| -> Value {
        let a = request(addr, "GET", "/search.json?query=zanzibarblock", extra);
        assert_eq!(a.status, 200, "{}", a.text());
        serde_json::from_slice::<Value>(&a.body).unwrap()["total"].clone()
    };
    for addr in [&shard, &front] {
        assert_eq!(total(addr, &format!("{USER}: staff\r\n")), 1, "{addr}");
        for twice in [
            format!("{USER}: staff\r\n{USER}: visitor\r\n"),
            format!("{USER}: visitor\r\n{USER}: staff\r\n"),
            format!("{USER}: staff\r\n{USER}: staff\r\n"),
        ] {
            assert_eq!(total(addr, &twice), 0, "{addr}: {twice}");
        }
        let page = request(
            addr,
            "GET",
            "/web/20200501100000/http://news.example/court",
            format!("{USER}: staff\r\n{USER}: visitor\r\n"),
        );
        if addr == &shard {
            assert_eq!(page.status, 451, "{}", page.text());
        }
    }
}

/// The statistics a front server sums are a shard server's only
/// (`serve --shard`), and count only the versions the asker may see: no count tells a
/// hidden word, URL or title.
#[test]
fn shard_statistics_are_a_shards_and_count_what_the_asker_sees() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = collection(tmp.path(), |_| true);
    let plain = serve_with(&coll, Some(rules_in(tmp.path())));
    for path in [
        "/shard/stats.json?query=zanzibarblock",
        "/shard/stats.json?query=court",
    ] {
        assert_eq!(get(&plain, path, None).status, 404, "{path}");
    }
    let post = request(&plain, "POST", "/shard/search.json?query=court", "");
    assert_eq!(post.status, 404);

    let shard = shard_with(&coll, Some(rules_in(tmp.path())));
    let stats = |q: &str, user: Option<&str>| -> Value {
        let a = get(&shard, &format!("/shard/stats.json?query={q}"), user);
        assert_eq!(a.status, 200, "{q}: {}", a.text());
        serde_json::from_slice(&a.body).unwrap()
    };
    // Every count of a term that only hidden versions hold is 0 to the public.
    let counts = |v: &Value| -> Vec<u64> {
        (v["terms"].as_object().unwrap().values())
            .flat_map(|t| t.as_object().unwrap().values().map(|n| n.as_u64().unwrap()))
            .collect()
    };
    for q in ["zanzibarblock", "court", "narwhalprivate", "lynxfresh"] {
        let public = stats(q, None);
        let c = counts(&public);
        assert!(!c.is_empty() && c.iter().all(|&n| n == 0), "{q}: {public}");
    }
    // The staff sees the court ruling: counted in its text, title and URL.
    let staff = stats("court", Some("staff"));
    for field in ["title", "url"] {
        let n = (staff["terms"][field].as_object().unwrap().values())
            .map(|n| n.as_u64().unwrap())
            .max()
            .unwrap_or(0);
        assert!(n >= 1, "{field}: {staff}");
    }
    assert!(counts(&stats("zanzibarblock", Some("staff"))).contains(&1));
    // The documents counted are those shown: fewer for the public than for the staff,
    // and no more than a collection without the hidden captures holds.
    let without = collection(&tmp.path().join("without"), |c| !c.3);
    let plain_shard = shard_with(&without, None);
    let a = get(&plain_shard, "/shard/stats.json?query=archive", None);
    let expected: Value = serde_json::from_slice(&a.body).unwrap();
    let public = stats("archive", None);
    assert_eq!(public["docs"], expected["docs"], "{public} / {expected}");
    assert_eq!(public["terms"], expected["terms"], "{public} / {expected}");
    assert!(
        stats("archive", Some("staff"))["docs"].as_u64() > public["docs"].as_u64(),
        "{public}"
    );
}

/// One WARC record of `uri` (a warcinfo record without one), dated `date` (none
/// without), holding `payload` after an HTTP head.
fn record(kind: &str, uri: Option<&str>, date: Option<&str>, payload: &str) -> Vec<u8> {
    let http = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{payload}",
        payload.len()
    );
    let mut head = format!("WARC/1.0\r\nWARC-Type: {kind}\r\n");
    if let Some(u) = uri {
        head.push_str(&format!("WARC-Target-URI: {u}\r\n"));
    }
    if let Some(d) = date {
        head.push_str(&format!("WARC-Date: {d}\r\n"));
    }
    let (ct, body) = match kind {
        "warcinfo" => ("application/warc-fields", payload.to_string()),
        _ => ("application/http; msgtype=response", http),
    };
    head.push_str(&format!(
        "WARC-Record-ID: <urn:uuid:{:08x}-0000-0000-0000-000000000000>\r\n\
         Content-Type: {ct}\r\nContent-Length: {}\r\n\r\n{body}\r\n\r\n",
        payload.len() * 31 + uri.map_or(0, str::len),
        body.len()
    ));
    head.into_bytes()
}

/// An HTTP/1.1 connection kept open for many requests.
struct KeepAlive {
    r: std::io::BufReader<std::net::TcpStream>,
}

impl KeepAlive {
    fn new(addr: &str) -> KeepAlive {
        let s = std::net::TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(std::time::Duration::from_secs(60)))
            .unwrap();
        KeepAlive {
            r: std::io::BufReader::new(s),
        }
    }

    /// `GET path` with `extra` header lines: the status and the body.
    fn get(&mut self, path: &str, extra: &str) -> (u16, Vec<u8>) {
        use std::io::{BufRead, Read, Write};
        let req = format!("GET {path} HTTP/1.1\r\nHost: x\r\n{extra}\r\n");
        self.r.get_mut().write_all(req.as_bytes()).unwrap();
        let mut line = String::new();
        self.r.read_line(&mut line).unwrap();
        let status: u16 = line[9..12].parse().unwrap();
        let mut len = 0;
        loop {
            line.clear();
            self.r.read_line(&mut line).unwrap();
            if line == "\r\n" {
                break;
            }
            let (k, v) = line.split_once(':').unwrap();
            if k.eq_ignore_ascii_case("content-length") {
                len = v.trim().parse().unwrap();
            }
        }
        let mut body = vec![0; len];
        self.r.read_exact(&mut body).unwrap();
        (status, body)
    }
}

/// Under rules, `/warcs/NAME` sends a byte range only when every byte
/// of it lies inside records the asker may see, by the CDX's offsets and lengths; any
/// other range is refused with one status and one message, so no refusal tells where a
/// hidden record is. Tried on a plain and a gzip WARC of shown and hidden records (one
/// without a date, one whose payload looks like a shown record), from every byte offset
/// to every record boundary and from every boundary to every byte offset.
#[test]
fn warcs_ranges_hold_only_records_the_asker_may_see_at_every_offset() {
    let tmp = tempfile::tempdir().unwrap();
    let old = "2020-05-01T10:00:00Z";
    let recent = days_ago(30);
    let fake = String::from_utf8(record(
        "response",
        Some("http://news.example/weather"),
        Some(old),
        "sunny",
    ))
    .unwrap();
    let records: Vec<Vec<u8>> = vec![
        record("warcinfo", None, Some(old), "software: test\r\n"),
        record(
            "response",
            Some("http://news.example/story"),
            Some(old),
            "ocelotold",
        ),
        record(
            "response",
            Some("http://news.example/robots"),
            Some(old),
            &fake,
        ),
        record(
            "response",
            Some("http://news.example/weather"),
            Some(old),
            "sunny",
        ),
        record(
            "response",
            Some("http://news.example/court"),
            Some(old),
            "zanzibarblock",
        ),
        record(
            "response",
            Some("http://lib.example/private/diary"),
            None,
            "narwhalprivate",
        ),
        record(
            "response",
            Some("http://news.example/fresh"),
            Some(&recent),
            "lynxfresh",
        ),
        record(
            "response",
            Some("http://lib.example/"),
            Some(old),
            "welcome",
        ),
        record(
            "response",
            Some("http://lib.example/private/open"),
            Some(old),
            "marmotallow",
        ),
    ];
    let shown = [
        "http://news.example/story",
        "http://news.example/weather",
        "http://lib.example/",
        "http://lib.example/private/open",
    ];
    let crawl = tmp.path().join("crawl");
    std::fs::create_dir_all(&crawl).unwrap();
    std::fs::write(crawl.join("mixed.warc"), records.concat()).unwrap();
    let mut gz = Vec::new();
    for r in &records {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut e, r).unwrap();
        gz.extend(e.finish().unwrap());
    }
    std::fs::write(crawl.join("mixed.warc.gz"), &gz).unwrap();
    let coll = tmp.path().join("coll");
    let (code, _, err) = run_warcdex(&[
        "update".as_ref(),
        coll.as_os_str(),
        crawl.join("mixed.warc").as_os_str(),
        crawl.join("mixed.warc.gz").as_os_str(),
    ]);
    assert_eq!(code, 0, "{err}");
    let addr = serve_with(&coll, Some(rules_in(tmp.path())));
    let cdx = std::fs::read_to_string(coll.join("all.cdx")).unwrap();
    let mut conn = KeepAlive::new(&addr);
    let mut refusals = std::collections::BTreeSet::new();
    for name in ["mixed.warc", "mixed.warc.gz"] {
        let bytes = std::fs::read(crawl.join(name)).unwrap();
        let n = bytes.len() as u64;
        // Each record the CDX names in this file: its span and whether it is shown.
        let mut spans: Vec<(u64, u64, bool)> = Vec::new();
        for l in cdx.lines().filter(|l| !l.starts_with(' ')) {
            let f: Vec<&str> = l.split(' ').collect();
            if f[10] != name {
                continue;
            }
            let (len, off): (u64, u64) = (f[8].parse().unwrap(), f[9].parse().unwrap());
            spans.push((off, off + len, shown.contains(&f[2])));
        }
        assert!(
            spans.iter().filter(|s| s.2).count() == shown.len() && spans.len() > shown.len(),
            "{name}: {spans:?}"
        );
        // Whether every byte of start..end lies in a shown record.
        let allowed = |start: u64, end: u64| {
            (start..end).all(|b| spans.iter().any(|&(o, e, ok)| ok && o <= b && b < e))
        };
        let mut bounds: Vec<u64> = vec![0, n];
        bounds.extend(spans.iter().flat_map(|&(o, e, _)| [o, e]));
        bounds.sort();
        bounds.dedup();
        let mut ranges: Vec<(u64, u64)> = Vec::new();
        for b in 0..n {
            ranges.push((b, b + 1));
            ranges.extend(bounds.iter().filter(|&&e| e > b + 1).map(|&e| (b, e)));
            ranges.extend(bounds.iter().filter(|&&s| s < b).map(|&s| (s, b + 1)));
        }
        let path = format!("/warcs/{name}");
        let mut sent = 0;
        for (start, end) in ranges {
            let (status, body) = conn.get(&path, &format!("Range: bytes={start}-{}\r\n", end - 1));
            match allowed(start, end) {
                true => {
                    assert_eq!(status, 206, "{name} {start}..{end}");
                    assert_eq!(
                        body,
                        &bytes[start as usize..end as usize],
                        "{name} {start}..{end}"
                    );
                    sent += 1;
                }
                false => {
                    assert_ne!(
                        status,
                        206,
                        "{name} {start}..{end}: {}",
                        String::from_utf8_lossy(&body)
                    );
                    refusals.insert((status, body));
                }
            }
        }
        assert!(sent > 1000, "{name}: {sent}");
        // Open-ended and suffix ranges, and the whole file, by the same rule.
        for &b in &bounds[..bounds.len() - 1] {
            let (status, body) = conn.get(&path, &format!("Range: bytes={b}-\r\n"));
            assert_eq!(status == 206, allowed(b, n), "{name} {b}-");
            let (status2, body2) = conn.get(&path, &format!("Range: bytes=-{}\r\n", n - b));
            assert_eq!((status2, &body2), (status, &body), "{name} -{}", n - b);
            if status != 206 {
                refusals.insert((status, body));
            }
        }
        refusals.insert(conn.get(&path, ""));
    }
    assert_eq!(refusals.len(), 1, "{refusals:?}");
    let (status, body) = refusals.into_iter().next().unwrap();
    assert_eq!(status, 403, "{}", String::from_utf8_lossy(&body));

    // A collection without `all.pos` (an older `update`), or with one made from another
    // `all.cdx`: the server makes its own and judges alike.
    let line = (cdx.lines())
        .find(|l| l.contains(" http://news.example/story ") && l.ends_with(" mixed.warc.gz"))
        .unwrap();
    let f: Vec<&str> = line.split(' ').collect();
    let (len, off): (u64, u64) = (f[8].parse().unwrap(), f[9].parse().unwrap());
    let shown_range = format!("Range: bytes={off}-{}\r\n", off + len - 1);
    let into_next = format!("Range: bytes={off}-{}\r\n", off + len);
    let listed = coll.join("all.pos");
    let made = std::fs::read(&listed).unwrap();
    // Made from another `all.cdx`: without the story, which it must not be trusted on.
    let stale: String = String::from_utf8(made)
        .unwrap()
        .replacen("all.cdx=", "all.cdx=1", 1)
        .lines()
        .filter(|l| !l.contains(")/story "))
        .map(|l| format!("{l}\n"))
        .collect();
    for (what, list) in [("none", None), ("stale", Some(stale))] {
        match list {
            None => std::fs::remove_file(&listed).unwrap(),
            Some(l) => std::fs::write(&listed, l).unwrap(),
        }
        let addr = serve_with(&coll, Some(rules_in(tmp.path())));
        let mut conn = KeepAlive::new(&addr);
        let (status, body) = conn.get("/warcs/mixed.warc.gz", &shown_range);
        assert_eq!(status, 206, "{what}");
        assert_eq!(body.len() as u64, len, "{what}");
        let (status, _) = conn.get("/warcs/mixed.warc.gz", &into_next);
        assert_eq!(status, 403, "{what}");
    }
    // Without rules, every range is sent as before.
    let addr = serve_with(&coll, None);
    let (status, body) = KeepAlive::new(&addr).get("/warcs/mixed.warc", "Range: bytes=0-99\r\n");
    assert_eq!(status, 206);
    assert_eq!(
        body,
        &std::fs::read(crawl.join("mixed.warc")).unwrap()[..100]
    );
}

/// A suggestion for a word no page holds never names a word only hidden pages hold: the
/// public gets none (and no hit), the staff who may see the page get it.
#[test]
fn a_suggestion_never_names_a_hidden_pages_word() {
    let tmp = tempfile::tempdir().unwrap();
    let caps = vec![
        (
            "http://open.example/a".to_string(),
            "2020-05-01T10:00:00Z".to_string(),
            page("Open", "harbour lighthouse keepers"),
        ),
        (
            "http://secret.example/b".to_string(),
            "2020-05-01T10:01:00Z".to_string(),
            page("Secret", "harbour zanzibarcode plans"),
        ),
    ];
    let warc = tmp.path().join("crawl.warc");
    write_warc(&warc, &caps);
    let coll = tmp.path().join("coll");
    let (code, _, err) = run_warcdex(&["update".as_ref(), coll.as_os_str(), warc.as_os_str()]);
    assert_eq!(code, 0, "{err}");
    let acl = tmp.path().join("rules.aclj");
    std::fs::write(
        &acl,
        "example,secret)/ - {\"access\": \"exclude\"}\n\
         example,secret)/ - {\"access\": \"allow\", \"user\": \"staff\"}\n",
    )
    .unwrap();
    let ask = |q: &str, user: Option<&str>| -> Value {
        let mut args = vec!["search", "-d", coll.to_str().unwrap(), "--json"];
        args.extend(["--acl", acl.to_str().unwrap()]);
        if let Some(u) = user {
            args.extend(["--user", u]);
        }
        args.push(q);
        let (code, out, err) = run_warcdex(&args);
        assert_eq!(code, 0, "{q}: {err}");
        serde_json::from_str(&out).unwrap()
    };
    // Cut short, misspelt, or with two words the public may see around it.
    for q in [
        "zanzibarcod",
        "zanzibarcofe",
        "zanzibarcod lighthousx keeperz",
    ] {
        let public = ask(q, None);
        if !q.contains(' ') {
            assert!(public["suggestion"].is_null(), "{q}: {public}");
        }
        assert!(
            !public.to_string().contains("zanzibarcode"),
            "{q}: {public}"
        );
    }
    let staff = ask("zanzibarcod", Some("staff"));
    assert_eq!(staff["suggestion"], "zanzibarcode", "{staff}");
    assert_eq!(staff["total"], 1, "{staff}");
    // `--strict`: only pages with every word, no suggestion.
    let (code, out, err) = run_warcdex(&[
        "search",
        "-d",
        coll.to_str().unwrap(),
        "--json",
        "--strict",
        "zanzibarcod",
    ]);
    assert_eq!(code, 0, "{err}");
    let strict: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (strict["total"].as_u64(), strict["suggestion"].is_null()),
        (Some(0), true)
    );
}

/// `tools/call` of `tool` over `/mcp` as `user` (the public without one).
fn mcp_as(addr: &str, tool: &str, args: Value, user: Option<&str>) -> Value {
    let extra = user.map_or(String::new(), |u| format!("{USER}: {u}\r\n"));
    crate::util::http::mcp_tool(addr, tool, args, &extra)
}

#[test]
fn mcp_tools_hold_the_rules_for_the_public_and_the_user() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = collection(tmp.path(), |_| true);
    let addr = serve_with(&coll, Some(rules_in(tmp.path())));
    let hidden = HIDDEN_WORDS;
    for (word, url) in hidden {
        let r = mcp_as(&addr, "search", serde_json::json!({"query": word}), None);
        assert_eq!(r["structuredContent"]["total"], 0, "{word}: {r}");
        assert!(!r.to_string().contains(url), "{word}: {r}");
    }
    let all = mcp_as(
        &addr,
        "search",
        serde_json::json!({"query": "archive town", "page_size": 50}),
        None,
    )
    .to_string();
    for (word, url) in hidden {
        // The story's old version is the public's; its recent one is not.
        let url_hidden = url != "news.example/story";
        assert!(
            !(all.contains(word) || url_hidden && all.contains(url)),
            "{word} in {all}"
        );
    }
    // A version with an embargoed capture: only its other date, and that capture's record.
    let r = mcp_as(&addr, "search", serde_json::json!({"query": "sunny"}), None);
    let hit = &r["structuredContent"]["hits"][0];
    assert_eq!(
        hit["capture_dates"],
        serde_json::json!(["20200501100000"]),
        "{r}"
    );
    assert_eq!(hit["provenance"]["timestamp"], "20200501100000");
    assert_eq!(hit["provenance"]["archive"], "crawl-2020.warc");
    // By URL: blocked is named as blocked, excluded and embargoed as never archived; no
    // digest, date or archive of theirs in any answer.
    for (url, status) in HIDDEN_BY_URL {
        let says = if status == 451 {
            "blocked"
        } else {
            "not in this collection"
        };
        for (tool, args) in [
            ("get_text", serde_json::json!({"url": url})),
            ("list_captures", serde_json::json!({"url": url})),
            ("history", serde_json::json!({"url": url})),
            (
                "diff",
                serde_json::json!({"url": url, "date1": "2020", "date2": "2030"}),
            ),
        ] {
            let r = mcp_as(&addr, tool, args, None);
            assert_eq!(r["isError"], true, "{tool} {url}: {r}");
            if tool != "list_captures" {
                assert!(r.to_string().contains(says), "{tool} {url}: {r}");
            }
            assert!(
                !r.to_string().contains("sha1:") && !r.to_string().contains(".warc"),
                "{tool} {url}: {r}"
            );
        }
    }
    let r = mcp_as(
        &addr,
        "list_captures",
        serde_json::json!({"url": "news.example", "match_type": "domain"}),
        None,
    );
    let listed = r["structuredContent"]["captures"].to_string();
    for url in [
        "news.example/court",
        "news.example/robots",
        "news.example/fresh",
    ] {
        assert!(!listed.contains(url), "{url} in {listed}");
    }
    // The user a rule names sees the ruling: found, read, listed.
    let staff = Some("staff");
    let r = mcp_as(
        &addr,
        "search",
        serde_json::json!({"query": "zanzibarblock"}),
        staff,
    );
    assert_eq!(r["structuredContent"]["total"], 1, "{r}");
    let r = mcp_as(
        &addr,
        "get_text",
        serde_json::json!({"url": "http://news.example/court"}),
        staff,
    );
    assert!(
        r["structuredContent"]["text"]
            .as_str()
            .unwrap()
            .contains("zanzibarblock"),
        "{r}"
    );
    let r = mcp_as(
        &addr,
        "list_captures",
        serde_json::json!({"url": "http://news.example/court"}),
        staff,
    );
    assert_eq!(
        r["structuredContent"]["captures"].as_array().unwrap().len(),
        1,
        "{r}"
    );
    // The collection's description counts what each asker may see.
    let described = |user: Option<&str>| {
        let extra = user.map_or(String::new(), |u| format!("{USER}: {u}\r\n"));
        let uri = serde_json::json!({"uri": "warcdex://collection"});
        let (_, d) = crate::util::http::mcp(&addr, "resources/read", uri, &extra);
        let text = d["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .to_string();
        serde_json::from_str::<Value>(&text).unwrap()["versions"].clone()
    };
    assert_eq!(described(None), search(&addr, "*", None)["total"]);
    assert_eq!(described(staff), search(&addr, "*", staff)["total"]);
    assert!(described(staff).as_u64() > described(None).as_u64());
    // Another user is the public.
    let r = mcp_as(
        &addr,
        "search",
        serde_json::json!({"query": "zanzibarblock"}),
        Some("visitor"),
    );
    assert_eq!(r["structuredContent"]["total"], 0, "{r}");
}

/// A hit names the archive, offset and length of its version's earliest capture; an
/// asker the rules do not show that capture is not told where it lies (an embargo on
/// the old crawl here: the weather page's old capture hidden, its recent one shown).
#[test]
fn a_hits_record_is_named_only_to_those_shown_it() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = collection(tmp.path(), |_| true);
    let acl = tmp.path().join("rules");
    std::fs::create_dir_all(&acl).unwrap();
    std::fs::write(acl.join("rules.aclj"), "").unwrap();
    let live = LiveRules::load(RulesConfig {
        acl_paths: vec![acl],
        embargo: warcdex::access::Embargo::from_flags(&["older=365d".into()]).unwrap(),
        ..RulesConfig::default()
    })
    .unwrap();
    let ruled = serve_with(&coll, Some(live));
    let open = serve_with(&coll, None);
    let all = search(&open, "sunny", None);
    let hit = &all["hits"][0];
    assert_eq!(hit["dates"].as_array().unwrap().len(), 2, "{all}");
    assert!(
        hit["filename"].as_str().unwrap().contains("crawl-2020"),
        "{hit}"
    );
    assert!(hit["length"].as_u64().unwrap() > 0, "{hit}");
    let record = get(
        &open,
        "/cdx?url=http://news.example/weather&output=json",
        None,
    )
    .text();
    assert!(
        record.contains(&format!("\"offset\": \"{}\"", hit["offset"])),
        "{record}"
    );

    let shown = search(&ruled, "sunny", None);
    let hit = &shown["hits"][0];
    assert_eq!(hit["dates"].as_array().unwrap().len(), 1, "{shown}");
    assert_ne!(hit["dates"][0], "20200501100000");
    assert_eq!(
        (&hit["filename"], &hit["offset"], &hit["length"]),
        (&Value::from(""), &Value::from(0), &Value::from(0)),
        "{hit}"
    );
    assert!(!shown.to_string().contains("crawl-2020"), "{shown}");
    // Nor does the export name it (its archive and record fields).
    let path =
        "/export?query=sunny&format=jsonl&fields=url,dates,archive,record_offset,record_length";
    let open_rows = get(&open, path, None).text();
    assert!(open_rows.contains("crawl-2020"), "{open_rows}");
    let rows = get(&ruled, path, None).text();
    let row: Value = serde_json::from_str(rows.lines().next().unwrap()).unwrap();
    assert!(!rows.contains("crawl-2020"), "{rows}");
    assert_eq!(
        (&row["record_offset"], &row["record_length"]),
        (&Value::from(0), &Value::from(0)),
        "{row}"
    );
    // A page whose earliest capture is shown keeps its record.
    let story = search(&ruled, "ocelotrecent", None);
    assert!(
        story["hits"][0]["filename"]
            .as_str()
            .unwrap()
            .contains("crawl-recent"),
        "{story}"
    );
}
