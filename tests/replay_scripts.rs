//! Replay that runs the pages' scripts (`serve --replay scripts`): the replay origin, a
//! listener of its own, serves wabac.js's service worker, the start page that installs
//! it, and `ir_` — the archived response as the worker reads it (status and headers as
//! archived, redirects and cookies in headers, content coding undone, pywb's fuzzy
//! matching) — and nothing of the search application; the application's framed view
//! loads the capture from that origin, sandboxed. In Chromium: scripts/test-replay.sh.

use crate::capture_view::{collection, get_with};
use crate::util::http::Answer;
use crate::util::start_with_replay;
use warcdex::serve::ServeOptions;

/// What stands for wabac.js's service worker here (the real one is fetched by
/// scripts/fetch-wabac.sh for the browser test).
const SW: &[u8] = b"/* service worker */ self.addEventListener('fetch', () => {});";

fn get(addr: &str, path: &str) -> Answer {
    get_with(addr, path, "")
}

fn servers() -> (tempfile::TempDir, String, String) {
    let tmp = tempfile::tempdir().unwrap();
    let coll = collection(tmp.path());
    let opts = ServeOptions {
        replay_prefix: Some(warcdex::serve::VIEW_PREFIX.into()),
        ..ServeOptions::default()
    };
    let (app, replay) = start_with_replay(&coll, opts, SW);
    (tmp, app, replay)
}

const PAGE_URL: &str = "http://docs.example.org/3/page.html";

#[test]
fn ir_is_the_archived_response_for_the_service_worker() {
    let (_tmp, app, replay) = servers();
    let page = get(&replay, &format!("/web/20240115030000ir_/{PAGE_URL}"));
    assert_eq!(page.status, 200, "{}", page.text());
    // Unrewritten: the page's own links, scripts and forms, for wabac.js to rewrite.
    assert!(page
        .text()
        .starts_with("<!DOCTYPE html><html><head><title>Docs page</title>"));
    assert!(page.text().contains("<a href=\"other.html\">next page</a>"));
    assert!(page
        .text()
        .contains("<script src=\"https://analytics.example.com/track.js\"></script>"));
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert_eq!(
        page.header("memento-datetime"),
        Some("Mon, 15 Jan 2024 03:00:00 GMT")
    );
    // The site sent no `nosniff`: neither does ir_ (the worker replays what the site sent).
    assert_eq!(page.header("x-content-type-options"), None);
    // Opened as a page by a browser, it would run nothing.
    assert_eq!(
        page.header("content-security-policy"),
        Some("sandbox; default-src 'none'")
    );

    // Stored gzip-encoded and chunked: the stylesheet itself, no Content-Encoding.
    let css = get(
        &replay,
        "/web/20240115030000ir_/http://docs.example.org/3/_static/site.css",
    );
    assert_eq!(css.status, 200);
    assert_eq!(
        css.text(),
        "body { background: url('../img/bg.png') } @import \"print.css\";"
    );
    assert_eq!(css.header("content-encoding"), None);
    assert_eq!(css.header("x-archive-orig-transfer-encoding"), None);

    // Asked for with a cache-busting query the crawl did not keep: pywb's fuzzy match.
    let busted = get(
        &replay,
        "/web/20240115030000ir_/http://docs.example.org/3/_static/site.css?v=2022.1",
    );
    assert_eq!((busted.status, busted.text()), (200, css.text()));

    // A redirect is reported, not followed (the worker's fetch would follow a 301).
    let moved = get(&replay, "/web/20240115030000ir_/http://docs.example.org/3/");
    assert_eq!(moved.status, 200);
    assert_eq!(moved.header("x-redirect-status"), Some("301"));
    assert_eq!(moved.header("x-orig-location"), Some(PAGE_URL));
    assert_eq!(moved.header("location"), None);

    // Archived cookies reach the worker, never the browser's cookie jar.
    let logo = get(
        &replay,
        "/web/20240115030000ir_/https://cdn.example.net/logo.png",
    );
    assert_eq!(logo.status, 200);
    assert_eq!(logo.header("x-proxy-set-cookie"), Some("track=1"));
    assert_eq!(logo.header("set-cookie"), None);

    let missing = get(&replay, "/web/2024ir_/http://docs.example.org/nowhere.html");
    assert_eq!(missing.status, 404);
    // A stylesheet the crawl missed is a missing stylesheet, not a file of another type
    // (which a browser refuses with an error the site never caused).
    let css = get_with(
        &replay,
        "/web/2024ir_/http://docs.example.org/missing.css?v=1",
        "Accept: text/css,*/*;q=0.1\r\n",
    );
    assert_eq!(css.status, 404);
    assert_eq!(css.header("content-type"), Some("text/css; charset=utf-8"));
    let js = get(&replay, "/web/2024ir_/http://docs.example.org/missing.js");
    assert_eq!(
        js.header("content-type"),
        Some("text/javascript; charset=utf-8")
    );

    // A reader who opens an ir_ address gets the replay, not the page unrewritten.
    let opened = get_with(
        &replay,
        &format!("/web/20240115030000ir_/{PAGE_URL}"),
        "Sec-Fetch-Mode: navigate\r\nSec-Fetch-Dest: document\r\n",
    );
    assert_eq!(opened.status, 302);
    assert_eq!(
        opened.header("location"),
        Some(format!("/web/20240115030000mp_/{PAGE_URL}").as_str())
    );

    // Never on the search application's origin.
    let on_app = get(&app, &format!("/web/20240115030000ir_/{PAGE_URL}"));
    assert_eq!(on_app.status, 404);
    assert!(!on_app.text().contains("Docs page"));
}

#[test]
fn the_replay_origin_serves_the_worker_and_archived_pages_only() {
    let (_tmp, app, replay) = servers();
    let sw = get(&replay, "/sw.js");
    assert_eq!(sw.status, 200);
    assert_eq!(sw.body, SW);
    assert_eq!(
        sw.header("content-type"),
        Some("text/javascript; charset=utf-8")
    );
    let start = get(&replay, "/__warcdex/replay-start.js");
    assert_eq!(start.status, 200);
    assert!(start
        .text()
        .contains("navigator.serviceWorker.register(\"/sw.js"));
    assert!(start.text().contains("archiveMod: \"ir_\""));

    // What the application answers is not here: no search, no CDX, no archives, no
    // export (an archived script could read them as its own origin's).
    for path in [
        "/",
        "/search.json?q=docs",
        "/cdx?url=docs.example.org/3/page.html",
        "/warcs/site.warc",
        "/export?q=docs&format=csv",
        "/pages",
        "/history/http://docs.example.org/3/page.html",
        "/text/20240115030000/http://docs.example.org/3/page.html",
    ] {
        let a = get(&replay, path);
        assert_eq!(a.status, 404, "{path}: {}", a.text());
        assert!(!a.text().contains("Docs page"), "{path}");
    }
    assert_eq!(get(&app, "/search.json?q=docs").status, 200);

    // Before the worker answers: the start page, whose only script is its own file.
    let page = get(&replay, &format!("/web/20240115030000mp_/{PAGE_URL}"));
    assert_eq!(page.status, 200);
    let csp = page.header("content-security-policy").unwrap();
    assert!(csp.contains("script-src 'self';"), "{csp}");
    assert!(
        !csp.contains("unsafe-inline'; worker")
            && !csp.contains("script-src 'self' 'unsafe-inline'")
    );
    let t = page.text();
    assert!(
        t.contains("<script defer src=\"/__warcdex/replay-start.js\" data-ts=\"20240115030000\""),
        "{t}"
    );
    // Without service workers, the view without scripts on the application's origin.
    assert!(
        t.contains(&format!(
            "data-safe=\"http://127.0.0.1:{}/web/20240115030000mp_/{PAGE_URL}\"",
            app.rsplit(':').next().unwrap()
        )),
        "{t}"
    );
    // The frame page the replayed page sends itself to when it is the top page.
    let frame = get(&replay, &format!("/web/20240115030000/{PAGE_URL}"));
    assert!(frame.text().contains("data-frame=\"1\""));
    assert!(frame.text().contains(
        "<iframe id=replay title=\"The archived page\" sandbox=\"allow-scripts allow-same-origin"
    ));
}

#[test]
fn the_framed_view_loads_the_capture_from_the_replay_origin_sandboxed() {
    let (_tmp, app, replay) = servers();
    let view = get(&app, &format!("/web/20240115030000/{PAGE_URL}"));
    assert_eq!(view.status, 200, "{}", view.text());
    let port = replay.rsplit(':').next().unwrap();
    let t = view.text();
    let frame = format!(
        "<iframe src=\"http://127.0.0.1:{port}/web/20240115030000mp_/{PAGE_URL}\" title=\"The archived page\" sandbox=\"allow-scripts allow-same-origin allow-forms allow-popups allow-modals allow-downloads\">"
    );
    assert!(t.contains(&frame), "{t}");
    // The frame may never navigate the page around it.
    assert!(!t.contains("allow-top-navigation"));
    let csp = view.header("content-security-policy").unwrap();
    assert!(
        csp.contains(&format!("frame-src 'self' http://127.0.0.1:{port};")),
        "{csp}"
    );
    // The view without scripts is still there, and unchanged.
    assert!(t.contains(&format!(
        "href=\"/web/20240115030000mp_/{PAGE_URL}\" target=\"_top\">Open it without scripts</a>"
    )));
    let safe = get(&app, &format!("/web/20240115030000mp_/{PAGE_URL}"));
    assert!(safe
        .header("content-security-policy")
        .unwrap()
        .contains("script-src 'none'"));
    assert!(safe
        .text()
        .contains("href=\"/web/20240115030000/http://docs.example.org/3/other.html\""));
}

/// ReplayWeb.page opens a collection from `?source=…/warcs/index.cdxj` and reads each
/// record from `/warcs/NAME` (beside the index) by byte range, from another origin.
#[test]
fn replaywebpage_reads_the_index_and_the_archives_beside_it_across_origins() {
    let (_tmp, app, _replay) = servers();
    let index = get(&app, "/warcs/index.cdxj");
    assert_eq!(index.status, 200);
    assert_eq!(index.header("access-control-allow-origin"), Some("*"));
    assert!(index
        .header("access-control-expose-headers")
        .unwrap()
        .contains("Content-Range"));
    let cdx = get(&app, "/cdx?url=docs.example.org/3/page.html&output=cdxj");
    let page_line = cdx.text().lines().next().unwrap().to_string();
    // The line /cdx gives as CDXJ, in the index too.
    assert!(
        index.text().lines().any(|l| l == page_line),
        "{page_line}\n{}",
        index.text()
    );
    let n = index.text().lines().count();
    let all_cdx = get(&app, "/cdx?url=*.example.org&matchType=domain").text();
    assert!(n >= all_cdx.lines().count() && n > 5, "{n}");
    for line in index.text().lines() {
        let (key_ts, json) = line.split_at(line.find('{').unwrap());
        assert_eq!(
            key_ts.split(' ').filter(|s| !s.is_empty()).count(),
            2,
            "{line}"
        );
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        let (name, offset, length) = (
            v["filename"].as_str().unwrap(),
            v["offset"].as_str().unwrap().parse::<u64>().unwrap(),
            v["length"].as_str().unwrap().parse::<u64>().unwrap(),
        );
        let range = format!("Range: bytes={offset}-{}\r\n", offset + length - 1);
        let rec = get_with(&app, &format!("/warcs/{name}"), &range);
        assert_eq!(rec.status, 206, "{line}");
        assert_eq!(rec.body.len() as u64, length);
        assert_eq!(rec.header("access-control-allow-origin"), Some("*"));
    }
    // A preflight (a Range of several ranges is not a simple request).
    let pre = crate::util::http::request(
        &app,
        "OPTIONS",
        "/warcs/site.warc",
        "Origin: http://rwp.example\r\nAccess-Control-Request-Headers: range\r\n",
    );
    assert_eq!(pre.status, 204);
    assert_eq!(pre.header("access-control-allow-headers"), Some("Range"));
    // Not on the routes no other page needs, nor on the replay origin.
    assert_eq!(get(&app, "/").header("access-control-allow-origin"), None);
    assert_eq!(
        get(&app, &format!("/web/20240115030000mp_/{PAGE_URL}"))
            .header("access-control-allow-origin"),
        None
    );
}

/// A Browsertrix crawl (the WACZ of fixtures/browsertrix) replays as loose WARCs do: `ir_`
/// reads the capture from the WARC inside the WACZ, the index names that WARC, and
/// `/warcs/NAME` gives its records by range.
#[test]
fn a_browsertrix_wacz_replays_through_ir_and_the_cdxj_index() {
    let tmp = tempfile::tempdir().unwrap();
    let (coll, _) = crate::rendered_text::collection(tmp.path());
    let opts = ServeOptions {
        replay_prefix: Some(warcdex::serve::VIEW_PREFIX.into()),
        ..ServeOptions::default()
    };
    let (app, replay) = start_with_replay(&coll, opts, SW);
    let page = get(&replay, "/web/20240302090000ir_/https://app.example.net/");
    assert_eq!(page.status, 200, "{}", page.text());
    assert!(
        page.text().contains("<div id=\"root\"></div>"),
        "{}",
        page.text()
    );
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    let script = get(
        &replay,
        "/web/20240302090000ir_/https://app.example.net/app.js",
    );
    assert_eq!(script.status, 200);
    assert!(script.text().contains("getElementById('root')"));
    let index = get(&app, "/warcs/index.cdxj");
    assert_eq!(index.status, 200);
    let line = (index.text().lines())
        .find(|l| l.contains("\"url\": \"https://app.example.net/\""))
        .expect("the page in the index")
        .to_string();
    let v: serde_json::Value = serde_json::from_str(&line[line.find('{').unwrap()..]).unwrap();
    let (offset, length): (u64, u64) = (
        v["offset"].as_str().unwrap().parse().unwrap(),
        v["length"].as_str().unwrap().parse().unwrap(),
    );
    let range = format!("Range: bytes={offset}-{}\r\n", offset + length - 1);
    let rec = get_with(
        &app,
        &format!("/warcs/{}", v["filename"].as_str().unwrap()),
        &range,
    );
    assert_eq!(rec.status, 206, "{line}");
    assert_eq!(rec.body.len() as u64, length);
    // A gzip member holding the page's response record.
    let mut text = String::new();
    use std::io::Read;
    flate2::read::MultiGzDecoder::new(&rec.body[..])
        .read_to_string(&mut text)
        .unwrap();
    assert!(
        text.starts_with("WARC/1.") && text.contains("WARC-Target-URI: https://app.example.net/")
    );
}
