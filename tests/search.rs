//! `warcdex search` and `warcdex serve` over the worked example (docs/formats.md §5.4):
//! cdx → dedup-cdx → import -e → index → add-dates into `DIR/pindexes/col1/{main,dates}`,
//! plus a second set without dates (many sites, a title with markup) and a broken set.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;

use warcdex::dates::add::{add_dates, AddDatesOptions, DatesInput};
use warcdex::render::text;
use warcdex::search::{SearchIndex, SearchRequest, SearchResults};
use warcdex::segment::SegmentRow;

use crate::util::{assert_closed_by_server, page_row as row, start_in_process, write_rows_index};
use warcdex::serve::{router, serve, ConnLimits, ServeOptions};

/// Builds `dir/pindexes/col1/{main,dates}` from the worked example.
fn build_example(dir: &Path) {
    warcdex::testing::build_fixture_index(dir, "example", "col1").unwrap();
}

/// A main index without dates at `out`: `n` lighthouse pages on `n` sites, and one page
/// whose title holds markup.
fn build_other(out: &Path, n: usize) {
    let mut rows: Vec<SegmentRow> = (0..n)
        .map(|i| {
            row(
                &format!("http://site{i:03}.example.net/"),
                &format!("Lighthouse {i}"),
                "The lighthouse keepers kept the light burning.",
                "20080101000000",
            )
        })
        .collect();
    rows.push(row(
        "http://markup.example.com/",
        "<script>alert(1)</script> Tags & \"quotes\"",
        "A page about angle brackets and the zeppelin.",
        "20090203040506",
    ));
    write_rows_index(out, rows);
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

fn search(index: &SearchIndex, q: &str, per_site: usize) -> SearchResults {
    index
        .search(&SearchRequest {
            query: q.into(),
            hits_per_site: per_site,
            replay_prefix: Some("http://wayback.test/web/".into()),
            ..SearchRequest::default()
        })
        .unwrap_or_else(|e| panic!("{q}: {e}"))
}

fn titles(r: &SearchResults) -> Vec<&str> {
    let mut t: Vec<&str> = r.hits.iter().map(|h| h.title.as_str()).collect();
    t.sort();
    t
}

/// Words, dates (any capture date matches), sites and the per-site limit over the
/// worked example; every hit carries all its dates and a replay link per date.
#[test]
fn search_worked_example() {
    let dir = tempfile::tempdir().unwrap();
    build_example(dir.path());
    let index = SearchIndex::open(dir.path()).unwrap();
    assert!(index.broken().is_empty(), "{:?}", index.broken());
    let sets = index.sets();
    assert_eq!(sets.len(), 1);
    assert_eq!(sets[0].documents, 5);
    assert!(sets[0].dates.is_some());

    // A title word.
    let r = search(&index, "lisbon", 0);
    assert_eq!(titles(&r), ["News D", "News E"]);
    assert_eq!(r.total, 2);
    let d = r.hits.iter().find(|h| h.title == "News D").unwrap();
    assert_eq!(d.url, "http://www.example.org/news.html");
    assert!(d.snippet.text.contains("Lisbon"), "{:?}", d.snippet);
    let hl: Vec<&str> = d
        .snippet
        .highlighted
        .iter()
        .map(|&(a, b)| &d.snippet.text[a..b])
        .collect();
    assert_eq!(hl, ["Lisbon"]);
    assert!(warcdex::render::escape::snippet_html(&d.snippet).contains("<b>Lisbon</b>"));

    // Every date of index(A), with one replay link each (docs/formats.md §5.4).
    let r = search(&index, "\"welcome to\"", 0);
    assert_eq!(titles(&r), ["Example A"]);
    let a = &r.hits[0];
    assert_eq!(
        a.dates,
        [
            "20071001120000",
            "20071002120000",
            "20071004120000",
            "20071005120000"
        ]
    );
    assert_eq!(a.replay.len(), 4);
    assert_eq!(
        a.replay[2],
        "http://wayback.test/web/20071004120000/http://www.example.org/index.html"
    );
    assert_eq!(a.mime, "text/html");
    assert!(a.digest.starts_with("sha1:"));

    // date: finds a version by ANY of its dates: A's first date is 20071001, but
    // 20071004 is one of its captures; nothing else was captured that day.
    let r = search(&index, "date:20071004", 0);
    assert_eq!(titles(&r), ["Example A"]);
    let r = search(&index, "example date:20071004", 0);
    assert_eq!(titles(&r), ["Example A"]);
    // About C: 20071001120100, 20071002120100, 20071005120100.
    let r = search(&index, "date:20071005", 0);
    assert_eq!(titles(&r), ["About C", "Example A"]);
    let r = search(&index, "date:20071003-20071003", 0);
    assert_eq!(titles(&r), ["Example B"]);
    let r = search(&index, "date:20071002-20071003", 0);
    assert_eq!(titles(&r), ["About C", "Example A", "Example B", "News E"]);
    assert_eq!(search(&index, "date:2007", 0).total, 5);
    assert_eq!(search(&index, "date:2008", 0).total, 0);
    assert_eq!(
        search(&index, "lisbon date:200710011202", 0).hits[0].title,
        "News D"
    );

    // site: (with or without www.), type:, collection:, exclusions.
    assert_eq!(search(&index, "site:example.org", 2).total, 5);
    assert_eq!(search(&index, "site:www.example.org", 2).hits.len(), 5);
    assert_eq!(search(&index, "site:example.com", 2).total, 0);
    assert_eq!(search(&index, "organisation type:text/html", 0).total, 5);
    assert_eq!(
        search(&index, "organisation collection:example", 0).total,
        5
    );
    assert_eq!(
        search(&index, "organisation -collection:example", 0).total,
        0
    );

    // All five are on example.org: the per-site limit is not applied when every match
    // is on one site (it would show two and hide three behind "more from this site").
    // tests/facets.rs has the limit over several sites.
    let r = search(&index, "organisation", 2);
    assert_eq!(r.total, 5);
    assert_eq!(r.hits.len(), 5);
    assert!(!r.site_limited && !r.has_more);
    assert!(r.hits.iter().all(|h| !h.more_from_site));
    assert_eq!(r.total_results(), 5);
    assert_eq!(search(&index, "organisation", 0).hits.len(), 5);

    // Pages: start and has_more.
    let p = index
        .search(&SearchRequest {
            query: "organisation".into(),
            hits: 2,
            start: 2,
            hits_per_site: 0,
            ..SearchRequest::default()
        })
        .unwrap();
    assert_eq!(p.hits.len(), 2);
    assert_eq!(p.hits[0].index, 2);
    assert!(p.has_more);

    // Bad queries are errors for the user.
    for q in ["", "\"open", "date:20x7", "date:2008-2007", "site:"] {
        let e = index
            .search(&SearchRequest {
                query: q.into(),
                ..SearchRequest::default()
            })
            .unwrap_err();
        assert!(
            matches!(e, warcdex::search::SearchError::Query(_)),
            "{q}: {e}"
        );
    }

    // NutchWaxBean's text layout.
    let mut out = Vec::new();
    text::write_text(&search(&index, "lisbon opens", 0), &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("1 matching version; 1 hit"));
    let l = lines.next().unwrap();
    assert!(l.starts_with(" 0 "), "{l}");
    assert!(
        l.ends_with(" [http://www.example.org/news.html] [sha1:AVGMQS5POH2JR777DGRK7ETXHTWU2N7U] [20071001120200] [News D]"),
        "{l}"
    );
    assert!(lines.next().unwrap().contains("*opens*"), "{out}");
}

struct Response {
    status: u16,
    content_type: String,
    body: String,
}

fn get(addr: &str, path: &str) -> Response {
    let mut s = TcpStream::connect(addr).unwrap();
    // A server that stopped answering fails the test instead of hanging it.
    s.set_read_timeout(Some(std::time::Duration::from_secs(60)))
        .unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let raw = String::from_utf8(raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    let status = head[9..12].parse().unwrap();
    let content_type = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-type: ")
                .map(str::to_string)
        })
        .unwrap_or_default();
    Response {
        status,
        content_type,
        body: body.to_string(),
    }
}

/// The HTTP side: page, RSS (valid XML, a nutch:date per date), JSON, caps, 400s,
/// escaping, and a broken set refused while the others are served.
#[test]
fn serve_routes() {
    let dir = tempfile::tempdir().unwrap();
    build_example(dir.path());
    build_other(&dir.path().join("pindexes/other/main"), 150);
    // A set whose dates belong to another main index: refused, the others served.
    build_other(&dir.path().join("pindexes/zbroken/main"), 3);
    copy_dir(
        &dir.path().join("pindexes/col1/dates"),
        &dir.path().join("pindexes/zbroken/dates"),
    );
    let index = SearchIndex::open(dir.path()).unwrap();
    assert_eq!(index.sets().len(), 2);
    assert_eq!(index.broken().len(), 1);
    let broken_msg = &index.broken()[0].error;
    assert!(
        broken_msg.contains("zbroken/dates") && broken_msg.contains("zbroken/main"),
        "{broken_msg}"
    );
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let app = router(
        warcdex::collection::Collection::open(index.dir()),
        index,
        ServeOptions {
            replay_prefix: Some("http://wayback.test/web".into()),
            ..ServeOptions::default()
        },
    );
    {
        let opts = ServeOptions::default();
        std::thread::spawn(move || serve(listener, app, &opts).unwrap());
    }

    // /healthz names the refused set (why is in the log: it names files).
    let h = get(&addr, "/healthz");
    assert_eq!(h.status, 200);
    let v: serde_json::Value = serde_json::from_str(&h.body).unwrap();
    assert_eq!(v["status"], "degraded");
    assert_eq!(v["sets"].as_array().unwrap().len(), 2);
    assert_eq!(v["broken"], serde_json::json!([{ "name": "zbroken" }]));
    assert!(broken_msg.contains("not a dates index"), "{broken_msg}");

    // RSS: valid XML, the OpenSearch counts, one nutch:date per capture date.
    let r = get(&addr, "/opensearch?query=welcome+to&hitsPerSite=0");
    assert_eq!(r.status, 200);
    assert!(
        r.content_type.starts_with("application/rss+xml"),
        "{}",
        r.content_type
    );
    let doc = roxmltree::Document::parse(&r.body).unwrap_or_else(|e| panic!("{e}\n{}", r.body));
    let nutch = "http://www.nutch.org/opensearchrss/1.0/";
    let os = "http://a9.com/-/spec/opensearchrss/1.0/";
    let child = |n: roxmltree::Node, ns: &str, name: &str| {
        n.children()
            .find(|c| c.tag_name().namespace() == Some(ns) && c.tag_name().name() == name)
            .and_then(|c| c.text())
            .map(str::to_string)
    };
    let channel = doc.root_element().first_element_child().unwrap();
    assert_eq!(channel.tag_name().name(), "channel");
    assert_eq!(child(channel, os, "totalResults").as_deref(), Some("1"));
    assert_eq!(child(channel, os, "startIndex").as_deref(), Some("0"));
    assert_eq!(
        child(channel, nutch, "query").as_deref(),
        Some("welcome to")
    );
    let items: Vec<_> = channel
        .children()
        .filter(|c| c.has_tag_name("item"))
        .collect();
    assert_eq!(items.len(), 1);
    let item = items[0];
    assert_eq!(
        item.children()
            .find(|c| c.has_tag_name("title"))
            .unwrap()
            .text(),
        Some("Example A")
    );
    assert_eq!(
        item.children()
            .find(|c| c.has_tag_name("link"))
            .unwrap()
            .text(),
        // The newest capture's replay link, never the live page.
        Some("http://wayback.test/web/20071005120000/http://www.example.org/index.html")
    );
    let dates: Vec<&str> = item
        .children()
        .filter(|c| c.tag_name().namespace() == Some(nutch) && c.tag_name().name() == "date")
        .filter_map(|c| c.text())
        .collect();
    assert_eq!(
        dates,
        [
            "20071001120000",
            "20071002120000",
            "20071004120000",
            "20071005120000"
        ]
    );
    assert_eq!(child(item, nutch, "site").as_deref(), Some("example.org"));
    assert_eq!(child(item, nutch, "type").as_deref(), Some("text/html"));

    // date: over HTTP.
    let r = get(&addr, "/search.json?query=date%3A20071004");
    assert_eq!(r.status, 200);
    let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(v["total"], 1);
    assert_eq!(v["hits"][0]["title"], "Example A");
    assert_eq!(v["hits"][0]["dates"].as_array().unwrap().len(), 4);

    // hitsPerPage is capped at 100: 150 lighthouse pages on 150 sites.
    let r = get(&addr, "/opensearch?query=lighthouse&hitsPerPage=100000");
    assert_eq!(r.status, 200);
    let doc = roxmltree::Document::parse(&r.body).unwrap();
    let channel = doc.root_element().first_element_child().unwrap();
    assert_eq!(child(channel, os, "itemsPerPage").as_deref(), Some("100"));
    assert_eq!(child(channel, os, "totalResults").as_deref(), Some("150"));
    assert_eq!(
        channel
            .children()
            .filter(|c| c.has_tag_name("item"))
            .count(),
        100
    );
    let v: serde_json::Value =
        serde_json::from_str(&get(&addr, "/search.json?q=lighthouse&hitsPerPage=500").body)
            .unwrap();
    assert_eq!(v["hits"].as_array().unwrap().len(), 100);
    assert_eq!(v["hits_per_page"], 100);

    // Bad requests are 400s with a message, on every route.
    for (path, needle) in [
        ("/search.json?query=%22open", "phrase is not closed"),
        ("/search.json?query=date%3A20x7", "date:20x7"),
        (
            "/search.json?query=a&start=minus",
            "start must be a whole number",
        ),
        ("/search.json?query=a&start=99999999", "start is at most"),
        ("/search.json", "no query"),
        ("/opensearch?query=date%3A2008-2007", "range is empty"),
        ("/?query=%22open", "phrase is not closed"),
        ("/?query=a&hitsPerPage=x", "hitsPerPage"),
    ] {
        let r = get(&addr, path);
        assert_eq!(r.status, 400, "{path}: {}", r.body);
        assert!(r.body.contains(needle), "{path}: {}", r.body);
    }
    let long = format!("/search.json?query={}", "a".repeat(2000));
    assert_eq!(get(&addr, &long).status, 400);

    // Markup in a title is escaped in HTML and XML.
    let r = get(&addr, "/?query=zeppelin");
    assert_eq!(r.status, 200);
    assert!(r.content_type.starts_with("text/html"));
    assert!(!r.body.contains("<script>"), "{}", r.body);
    assert!(
        r.body
            .contains("&lt;script&gt;alert(1)&lt;/script&gt; Tags &amp; &quot;quotes&quot;"),
        "{}",
        r.body
    );
    let r = get(&addr, "/opensearch?query=zeppelin");
    let doc = roxmltree::Document::parse(&r.body).unwrap();
    let title = doc
        .descendants()
        .find(|n| n.has_tag_name("item"))
        .and_then(|i| i.children().find(|c| c.has_tag_name("title")))
        .and_then(|t| t.text())
        .unwrap();
    assert_eq!(title, "<script>alert(1)</script> Tags & \"quotes\"");

    // The page: results with every date as a replay link (all five: every match is on
    // one site, so no per-site limit), the facets as links that narrow the query, the
    // timeline, and the empty form.
    let r = get(&addr, "/?query=organisation");
    assert_eq!(r.status, 200);
    assert_eq!(
        r.body.matches("<li class=\"hit\">").count(),
        5,
        "{}",
        r.body
    );
    assert!(!r.body.contains("more from example.org"));
    assert!(r.body.contains("hits <b>1–5</b> of <b>5</b>"), "{}", r.body);
    assert!(r.body.contains("href=\"/?query=organisation%20site%3Aexample.org&amp;hitsPerPage=10&amp;hitsPerSite=2\">example.org</a> <span class=\"n\">5</span>"), "{}", r.body);
    assert!(r.body.contains("<svg class=\"timeline\""), "{}", r.body);
    assert!(r.body.contains("<title>2007-10: "), "{}", r.body);
    assert!(r.body.contains("<svg class=\"captures\""), "{}", r.body);
    let r = get(&addr, "/?query=organisation+site%3Aexample.org");
    assert_eq!(r.body.matches("<li class=\"hit\">").count(), 5);
    assert!(r.body.contains(
        "<a href=\"http://wayback.test/web/20071004120000/http://www.example.org/index.html\""
    ));
    let r = get(&addr, "/");
    assert_eq!(r.status, 200);
    assert!(r.body.contains("<form action=\"/\" method=\"get\""));
    assert_eq!(get(&addr, "/nosuch").status, 404);
}

/// A page past the end announces the real count, not the requested
/// offset (`--start 9000` printed `Total hits: 9000`), in text, JSON and RSS.
#[test]
fn paging_past_the_end_counts_what_matched() {
    let dir = tempfile::tempdir().unwrap();
    build_example(dir.path());
    let index = SearchIndex::open(dir.path()).unwrap();
    let page = |q: &str, start: usize, per_site: usize| {
        index
            .search(&SearchRequest {
                query: q.into(),
                start,
                hits_per_site: per_site,
                ..SearchRequest::default()
            })
            .unwrap()
    };
    // No match at all: 0, however far the page.
    let r = page("zzyzxnothing", 9000, 2);
    assert!(r.hits.is_empty() && !r.has_more);
    assert_eq!(r.total_results(), 0);
    let mut out = Vec::new();
    text::write_text(&r, &mut out).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "0 matching versions; 0 hits\n"
    );
    let v: serde_json::Value = serde_json::from_str(&warcdex::render::json::to_json(&r)).unwrap();
    assert_eq!(v["total_results"], 0);
    // Five match; past the end the count is five (all on one site, so the per-site
    // limit does not apply).
    assert_eq!(page("organisation", 9000, 0).total_results(), 5);
    assert_eq!(page("organisation", 9000, 2).total_results(), 5);
    assert_eq!(page("organisation", 3, 2).total_results(), 5);
    assert_eq!(page("organisation", 5, 0).total_results(), 5);
    // The last page itself is unchanged.
    assert_eq!(page("organisation", 4, 0).total_results(), 5);
    // RSS says the same.
    let rss = warcdex::render::opensearch::rss(&page("zzyzxnothing", 9000, 2), &[]);
    assert!(
        rss.contains("<opensearch:totalResults>0</opensearch:totalResults>"),
        "{rss}"
    );
}

/// A capture whose URL is `javascript:`, `data:` or `vbscript:` is
/// never a link (HTML page and RSS) when there is no replay prefix; only http(s) URLs
/// and replay links are.
#[test]
fn only_http_urls_become_links() {
    let dir = tempfile::tempdir().unwrap();
    let rows: Vec<SegmentRow> = [
        "javascript:alert(document.cookie)//zebu",
        "JavaScript:alert(2)//zebu",
        "data:text/html,<script>alert(3)</script>zebu",
        " vbscript:msgbox(4)//zebu",
        "http://fine.example.com/zebu",
    ]
    .iter()
    .enumerate()
    .map(|(i, u)| {
        let mut r = row(u, &format!("Zebu {i}"), "zebu pages", "20100101000000");
        r.key = format!("{u} sha1:X{i}");
        r.urlkey = format!("zebu{i})/");
        r.digest = format!("sha1:X{i}");
        r
    })
    .collect();
    write_rows_index(&dir.path().join("pindexes/zebu/main"), rows);
    let index = SearchIndex::open(dir.path()).unwrap();
    assert!(index.broken().is_empty(), "{:?}", index.broken());
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let opts = ServeOptions {
        replay_prefix: Some(warcdex::serve::VIEW_PREFIX.into()),
        ..ServeOptions::default()
    };
    let app = router(
        warcdex::collection::Collection::open(index.dir()),
        index,
        opts.clone(),
    );
    std::thread::spawn(move || serve(listener, app, &opts).unwrap());

    let r = get(&addr, "/?query=zebu&hitsPerSite=0");
    assert_eq!(r.status, 200);
    assert_eq!(
        r.body.matches("<li class=\"hit\">").count(),
        5,
        "{}",
        r.body
    );
    let hrefs: Vec<&str> = r
        .body
        .split("href=\"")
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap()])
        .collect();
    // The one http(s) URL's title links to its capture view; the others' to nothing.
    assert!(
        hrefs.contains(&"/web/20100101000000/http://fine.example.com/zebu"),
        "{hrefs:?}"
    );
    for h in &hrefs {
        assert!(h.starts_with('/'), "a link to {h:?}, off this server");
    }
    assert!(r
        .body
        .contains("<h2><a href=\"/web/20100101000000/http://fine.example.com/zebu\""));
    for t in ["javascript", "JavaScript", "data:", "vbscript"] {
        assert!(
            !r.body
                .contains(&format!("<h2><a href=\"/web/20100101000000/{t}")),
            "{t} title linked"
        );
    }
    // The URLs are still shown, as text.
    assert!(r.body.contains("javascript:alert(document.cookie)//zebu"));

    let r = get(&addr, "/opensearch?query=zebu&hitsPerSite=0");
    let doc = roxmltree::Document::parse(&r.body).unwrap();
    let links: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("item"))
        .filter_map(|i| i.children().find(|c| c.has_tag_name("link")))
        .filter_map(|l| l.text())
        .collect();
    assert_eq!(
        links,
        [format!(
            "http://{addr}/web/20100101000000/http://fine.example.com/zebu"
        )],
        "{}",
        r.body
    );
}

/// A `warcdex serve` process (killed on drop) and its address.
struct ServerProcess {
    child: std::process::Child,
    addr: String,
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl ServerProcess {
    /// Starts `warcdex serve -d DIR ARGS...` on a free loopback port under `ulimit -n
    /// NOFILE`, and waits for its "listening on" line.
    fn start(dir: &Path, nofile: u32, args: &[&str]) -> ServerProcess {
        use std::io::BufRead;
        let mut child = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -n {nofile} && exec \"$0\" \"$@\""))
            .arg(env!("CARGO_BIN_EXE_warcdex"))
            .args(["serve", "--addr", "127.0.0.1:0", "-d"])
            .arg(dir)
            .args(args)
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        let addr = loop {
            line.clear();
            assert!(
                err.read_line(&mut line).unwrap() > 0,
                "the server ended before listening"
            );
            if let Some(a) = line
                .trim()
                .strip_prefix("warcdex serve: listening on http://")
            {
                break a.trim_end_matches('/').to_string();
            }
        };
        // Keep draining stderr so that the server never blocks on a full pipe.
        std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
        ServerProcess { child, addr }
    }

    /// Whether the process is still running.
    fn alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }
}

/// When accept() fails for lack of file descriptors (EMFILE), the
/// server keeps running (it died: the runtime had no timer for axum's retry sleep) and
/// answers once the connections are gone.
#[test]
fn serve_survives_running_out_of_file_descriptors() {
    let dir = tempfile::tempdir().unwrap();
    build_example(dir.path());
    let mut server = ServerProcess::start(dir.path(), 64, &[]);
    assert_eq!(get(&server.addr, "/healthz").status, 200);
    // More connections than the server has descriptors: it cannot accept them all.
    let idle: Vec<TcpStream> = (0..120)
        .map(|_| TcpStream::connect(&server.addr).unwrap())
        .collect();
    // A request made while they are open is answered (an idle connection makes room)...
    let r = get(&server.addr, "/search.json?query=lisbon");
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(server.alive(), "the server died with EMFILE");
    drop(idle);
    // ...and so is one after they are gone.
    let r = get(&server.addr, "/search.json?query=lisbon");
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("News D"), "{}", r.body);
    assert!(server.alive());
}

fn flip_bit(path: &Path, offset: usize, bit: u8) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[offset] ^= 1 << bit;
    std::fs::write(path, bytes).unwrap();
}

/// A damaged index (one bit flipped, anywhere in any file of main or
/// dates) never panics `search`: the set is refused naming its directory (a segment
/// file's checksum, mostly), or, when the flip changed nothing the checks see (a version
/// number in a file's footer, say), it answers exactly as the intact copy beside it,
/// which is always searched.
#[test]
fn damaged_index_is_refused_not_panicked_on() {
    let dir = tempfile::tempdir().unwrap();
    build_example(dir.path());
    let good = dir.path().join("pindexes/good");
    copy_dir(&dir.path().join("pindexes/col1/main"), &good.join("main"));
    copy_dir(&dir.path().join("pindexes/col1/dates"), &good.join("dates"));
    let mut files: Vec<_> = ["main", "dates"]
        .iter()
        .flat_map(|part| {
            std::fs::read_dir(dir.path().join("pindexes/col1").join(part))
                .unwrap()
                .map(|e| e.unwrap().path())
        })
        .filter(|p| p.metadata().unwrap().len() > 0)
        .collect();
    files.sort();
    let mut refused = 0;
    for path in &files {
        let len = path.metadata().unwrap().len() as usize;
        for k in 0..24 {
            let (offset, bit) = (k * len / 24, (k % 8) as u8);
            flip_bit(path, offset, bit);
            let what = format!("{} byte {offset} bit {bit}", path.display());
            let index = SearchIndex::open(dir.path()).unwrap();
            for q in [
                "organisation",
                "lisbon date:2007",
                "example site:example.org",
            ] {
                let r = index
                    .search(&SearchRequest {
                        query: q.into(),
                        hits_per_site: 0,
                        // The two sets hold the same versions, which a collection never
                        // does: each set's hits are compared, none folded into the other's.
                        near: warcdex::search::NearDisplay {
                            show_versions: true,
                            ..Default::default()
                        },
                        ..SearchRequest::default()
                    })
                    .unwrap_or_else(|e| panic!("{what}: {q}: {e}"));
                assert!(
                    r.hits.iter().any(|h| h.set == "good"),
                    "{what}: {q}: the intact set is not searched"
                );
                if index.broken().is_empty() {
                    let of = |set: &str| {
                        let mut v: Vec<_> = r
                            .hits
                            .iter()
                            .filter(|h| h.set == set)
                            .map(|h| (h.url.clone(), h.title.clone(), h.dates.clone()))
                            .collect();
                        v.sort();
                        v
                    };
                    assert_eq!(of("col1"), of("good"), "{what}: {q}: wrong answers");
                }
            }
            let broken = index.broken();
            if let Some(b) = broken.first() {
                assert_eq!(b.name, "col1", "{what}");
                assert!(b.error.contains("pindexes/col1/"), "{what}: {}", b.error);
                refused += 1;
            }
            drop(index);
            flip_bit(path, offset, bit);
        }
    }
    // Most flips are caught: 24 per file, a few harmless.
    assert!(refused > files.len() * 24 / 2, "{refused} refused");
}

/// A dates list giving one more capture date, 2009-01-01, to the first version of the
/// worked example's exclusion list (so `add-dates --in-place` changes what is served).
fn write_2009_list(dir: &Path) -> std::path::PathBuf {
    let dup = std::fs::read_to_string(dir.join("example.dup")).unwrap();
    let first = dup.lines().next().unwrap();
    let mut fields: Vec<&str> = first.split_whitespace().collect();
    fields[2] = "20090101000000";
    let list = dir.join("new-2009.dup");
    std::fs::write(&list, fields.join(" ") + "\n").unwrap();
    list
}

fn add_2009_in_place(dir: &Path, list: &Path) {
    let set = dir.join("pindexes/col1");
    add_dates(
        &set.join("main"),
        &[set.join("dates")],
        &set.join("dates"),
        &DatesInput::File(list.to_path_buf()),
        &AddDatesOptions {
            in_place: true,
            ..AddDatesOptions::default()
        },
    )
    .unwrap();
}

/// `serve` sees the dates `add-dates --in-place` adds without a
/// restart (it reopens a set whose pindex.json changed, checked every few seconds).
#[test]
fn serve_sees_dates_added_in_place() {
    let dir = tempfile::tempdir().unwrap();
    build_example(dir.path());
    let list = write_2009_list(dir.path());
    let mut server = ServerProcess::start(dir.path(), 1024, &[]);
    let total = |addr: &str| {
        let r = get(addr, "/search.json?query=date%3A2009");
        assert_eq!(r.status, 200, "{}", r.body);
        serde_json::from_str::<serde_json::Value>(&r.body).unwrap()["total"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(total(&server.addr), 0);
    add_2009_in_place(dir.path(), &list);
    // The default check interval is 5 s: poll for up to a minute.
    let mut seen = 0;
    for _ in 0..240 {
        seen = total(&server.addr);
        if seen > 0 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(250));
    }
    assert_eq!(seen, 1, "the date added in place is not served");
    assert!(server.alive());
}

/// Opening a collection while `add-dates --in-place` swaps its dates
/// index in (again and again) never fails: a file that vanished in the swap is retried.
#[test]
fn search_opens_during_in_place_swaps() {
    let dir = tempfile::tempdir().unwrap();
    build_example(dir.path());
    let list = write_2009_list(dir.path());
    let swapper = {
        let dir = dir.path().to_path_buf();
        std::thread::spawn(move || {
            for _ in 0..10 {
                add_2009_in_place(&dir, &list);
            }
            10
        })
    };
    // Open again and again until the swapper has swapped ten times (a failure was about
    // one open in 400 at one swap in 130 opens before the retry).
    let mut failures = Vec::new();
    let mut opens = 0;
    while !swapper.is_finished() {
        let index = SearchIndex::open(dir.path()).unwrap();
        opens += 1;
        if let Some(b) = index.broken().first() {
            failures.push(b.error.clone());
        }
    }
    let swaps = swapper.join().unwrap();
    assert_eq!(swaps, 10);
    assert!(
        failures.is_empty(),
        "{} of {opens} opens failed during {swaps} swaps, first: {}",
        failures.len(),
        failures[0]
    );
}

/// Idle, half-sent and kept-alive connections are closed by the
/// server (header timeout), more of them than the connection cap do not stop a normal
/// request from being answered, during and after.
#[test]
fn serve_closes_idle_and_half_sent_connections() {
    let dir = tempfile::tempdir().unwrap();
    build_example(dir.path());
    let addr = start_in_process(
        dir.path(),
        ServeOptions {
            limits: ConnLimits {
                header_timeout: std::time::Duration::from_secs(1),
                idle_timeout: std::time::Duration::from_secs(2),
                max_connections: 64,
            },
            ..ServeOptions::default()
        },
    );
    let idle: Vec<TcpStream> = (0..300)
        .map(|_| TcpStream::connect(&addr).unwrap())
        .collect();
    let half: Vec<TcpStream> = (0..300)
        .map(|_| {
            let mut s = TcpStream::connect(&addr).unwrap();
            s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                .unwrap();
            s
        })
        .collect();
    // A kept-alive connection after its first answer.
    let mut kept = TcpStream::connect(&addr).unwrap();
    kept.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    // Answered while 600 idle or half-sent connections (cap 64) are open.
    let r = get(&addr, "/search.json?query=lisbon");
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("News D"));
    for s in idle {
        assert!(assert_closed_by_server(s, "idle").is_empty());
    }
    for s in half {
        assert_closed_by_server(s, "half-sent");
    }
    let answer = String::from_utf8(assert_closed_by_server(kept, "kept-alive")).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert_eq!(answer.matches("HTTP/1.1").count(), 1, "{answer}");
    // And after they are gone.
    assert_eq!(get(&addr, "/search.json?query=lisbon").status, 200);
}

/// A client that asks and then stops reading (the answers fill the
/// socket buffers, no byte moves) is closed after the idle timeout, not held forever.
#[test]
fn serve_closes_a_client_that_stops_reading() {
    let dir = tempfile::tempdir().unwrap();
    build_other(&dir.path().join("pindexes/other/main"), 150);
    let addr = start_in_process(
        dir.path(),
        ServeOptions {
            limits: ConnLimits {
                // Long, so that only the idle timeout can close the connection.
                header_timeout: std::time::Duration::from_secs(300),
                idle_timeout: std::time::Duration::from_secs(1),
                max_connections: 64,
            },
            ..ServeOptions::default()
        },
    );
    let asked = 400;
    let mut s = TcpStream::connect(&addr).unwrap();
    let req = "GET /?query=lighthouse&hitsPerPage=100&hitsPerSite=0 HTTP/1.1\r\nHost: x\r\n\r\n";
    s.write_all(req.repeat(asked).as_bytes()).unwrap();
    // Do not read for a while: the server's writes stall once the buffers are full.
    std::thread::sleep(std::time::Duration::from_secs(3));
    let got = assert_closed_by_server(s, "stalled reader");
    let answers = String::from_utf8_lossy(&got)
        .matches("HTTP/1.1 200")
        .count();
    assert!(answers > 0, "nothing was answered");
    assert!(
        answers < asked,
        "all {asked} answers came: the connection was never idle"
    );
    assert_eq!(get(&addr, "/healthz").status, 200);
}

/// `type:image` matches every image type (`image/png`, `image/jpeg`),
/// as `-type:image` excludes them, while `type:image/png` stays exact; an impossible
/// date (`date:20241399`) and a wildcard (`pyth*`) are errors saying why, in the library,
/// the CLI, the JSON API (a 400) and the page (a 400, the query escaped), instead of
/// silently matching nothing.
#[test]
fn type_prefixes_match_and_bad_dates_and_wildcards_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let mut rows = Vec::new();
    for (i, mime) in ["text/html", "image/png", "image/jpeg", "imagex/odd"]
        .iter()
        .enumerate()
    {
        let mut r = row(
            &format!("http://typed{i}.example.net/"),
            &format!("Python {mime}"),
            "python snakes",
            "20240101000000",
        );
        r.mime = (*mime).into();
        rows.push(r);
    }
    write_rows_index(&dir.path().join("pindexes/typed/main"), rows);
    let index = SearchIndex::open(dir.path()).unwrap();
    assert_eq!(
        titles(&search(&index, "python type:image", 0)),
        ["Python image/jpeg", "Python image/png"]
    );
    assert_eq!(
        titles(&search(&index, "python type:IMAGE", 0)),
        ["Python image/jpeg", "Python image/png"]
    );
    assert_eq!(
        titles(&search(&index, "python -type:image", 0)),
        ["Python imagex/odd", "Python text/html"]
    );
    assert_eq!(
        titles(&search(&index, "python type:image/png", 0)),
        ["Python image/png"]
    );
    assert_eq!(
        titles(&search(&index, "python type:text type:image/jpeg", 0)),
        ["Python image/jpeg", "Python text/html"]
    );

    let err = |q: &str| {
        index
            .search(&SearchRequest {
                query: q.into(),
                ..SearchRequest::default()
            })
            .map(|r| format!("{} hits", r.hits.len()))
            .expect_err(q)
            .to_string()
    };
    for (q, needle) in [
        ("python date:20241399", "month 13"),
        ("python date:20240230", "day 30"),
        ("python date:2024-13", "date:2024-13"),
        ("python date:20240101-2024123124", "hour 24"),
        ("pyth*", "wildcards"),
        ("title:pyth*", "wildcards"),
    ] {
        let e = err(q);
        assert!(e.contains(needle), "{q}: {e}");
    }
    // Dates that are dates still work, as prefixes and ranges.
    for q in [
        "python date:2024",
        "python date:202401",
        "python date:20240101-20241231",
    ] {
        assert_eq!(search(&index, q, 0).hits.len(), 4, "{q}");
    }

    let cli = std::process::Command::new(env!("CARGO_BIN_EXE_warcdex"))
        .args([
            "search",
            "-d",
            dir.path().to_str().unwrap(),
            "date:20241399",
        ])
        .output()
        .unwrap();
    assert!(!cli.status.success());
    assert!(cli.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&cli.stderr);
    assert!(stderr.contains("month 13"), "{stderr}");

    let addr = start_in_process(dir.path(), ServeOptions::default());
    for (path, needle) in [
        ("/search.json?query=date%3A20241399", "month 13"),
        ("/search.json?query=pyth*", "wildcards"),
        ("/opensearch?query=pyth*", "wildcards"),
        ("/?query=%3Cb%3Epyth*", "&lt;b&gt;pyth*"),
        ("/?query=python+date%3A20241399", "month 13"),
    ] {
        let r = get(&addr, path);
        assert_eq!(r.status, 400, "{path}: {}", r.body);
        assert!(r.body.contains(needle), "{path}: {}", r.body);
        assert!(!r.body.contains("<b>pyth"), "{path}: {}", r.body);
    }
    let r = get(&addr, "/search.json?query=python+type%3Aimage");
    assert_eq!(r.status, 200, "{}", r.body);
    let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(v["hits"].as_array().unwrap().len(), 2, "{}", r.body);
}

/// The numbers of attribute `name` in `tag`s of `svg`, in order.
fn svg_attrs(svg: &str, tag: &str, name: &str) -> Vec<f64> {
    svg.split(&format!("<{tag} "))
        .skip(1)
        .filter_map(|t| {
            let t = &t[..t.find('>').unwrap()];
            let v = t
                .split(&format!(" {name}=\""))
                .nth(1)
                .or_else(|| t.strip_prefix(&format!("{name}=\"")))?;
            v[..v.find('"').unwrap()].parse().ok()
        })
        .collect()
}

/// The timeline's labels are under the bars they name: the first
/// month's starts at the first bar's left edge and the last month's ends at the last
/// bar's right edge (it was drawn at the chart's far right, past the bars).
#[test]
fn timeline_labels_are_under_their_bars() {
    let dir = tempfile::tempdir().unwrap();
    let rows = ["20240105000000", "20240320000000", "20240611000000"]
        .iter()
        .enumerate()
        .map(|(i, d)| row(&format!("http://t{i}.example.net/"), "Kite", "kites fly", d))
        .collect();
    write_rows_index(&dir.path().join("pindexes/t/main"), rows);
    let addr = start_in_process(dir.path(), ServeOptions::default());
    let r = get(&addr, "/?query=kites");
    assert_eq!(r.status, 200, "{}", r.body);
    let svg = &r.body[r.body.find("<svg class=\"timeline\"").unwrap()..];
    let svg = &svg[..svg.find("</svg>").unwrap()];
    let xs = svg_attrs(svg, "rect", "x");
    let widths = svg_attrs(svg, "rect", "width");
    assert_eq!(xs.len(), 3, "{svg}");
    let labels = svg_attrs(svg, "text", "x");
    assert_eq!(labels.len(), 2, "{svg}");
    assert_eq!(labels[0], xs[0], "first label: {svg}");
    assert!(
        svg.contains(">2024-01</text>") && svg.contains(">2024-06</text>"),
        "{svg}"
    );
    let end = svg.split("<text ").nth(2).unwrap();
    assert!(end.contains("text-anchor=\"end\""), "{svg}");
    assert_eq!(labels[1], xs[2] + widths[2], "last label: {svg}");
}

/// The counts say the matching versions first, then the hits, and the
/// per-site limit as what it is with the way to lift it, on the CLI and the page.
#[test]
fn counts_name_versions_then_hits_and_the_per_site_limit() {
    use crate::util::{http::request, run_warcdex, start_in_process, write_warc};
    let tmp = tempfile::tempdir().unwrap();
    // Three sites of four lighthouse pages each, and one of a single page.
    let mut caps = Vec::new();
    for site in ["a", "b", "c"] {
        for n in 0..4 {
            caps.push((
                format!("http://{site}.example/p{n}"),
                "2024-01-10T09:00:00Z".to_string(),
                format!(
                    "<html><head><title>Lighthouse {site}{n}</title></head><body><p>The \
                     lighthouse keeper's log, page {n} of site {site}.</p></body></html>"
                ),
            ));
        }
    }
    caps.push((
        "http://d.example/".to_string(),
        "2024-01-10T09:00:00Z".to_string(),
        "<html><head><title>Lighthouse d</title></head><body><p>One lighthouse.</p></body></html>"
            .to_string(),
    ));
    let warc = tmp.path().join("crawl.warc");
    write_warc(&warc, &caps);
    let coll = tmp.path().join("coll");
    let (code, _, err) = run_warcdex(&["update".as_ref(), coll.as_os_str(), warc.as_os_str()]);
    assert_eq!(code, 0, "{err}");
    let d = coll.to_str().unwrap();
    let (code, out, err) = run_warcdex(&["search", "-d", d, "--hits-per-site", "2", "lighthouse"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out.lines().next().unwrap(),
        "13 matching versions; 7 hits (at most 2 hits a site: 3 sites had more; \
         --hits-per-site 0 shows every hit)"
    );
    let (_, out, _) = run_warcdex(&[
        "search",
        "-d",
        d,
        "-n",
        "20",
        "--hits-per-site",
        "0",
        "lighthouse",
    ]);
    assert_eq!(out.lines().next().unwrap(), "13 matching versions; 13 hits");
    let (_, out, _) = run_warcdex(&[
        "search",
        "-d",
        d,
        "-n",
        "5",
        "--hits-per-site",
        "0",
        "lighthouse",
    ]);
    assert_eq!(
        out.lines().next().unwrap(),
        "13 matching versions; hits 1–5 shown, more with --start 5"
    );
    let addr = start_in_process(&coll, warcdex::serve::ServeOptions::default());
    let page = request(&addr, "GET", "/?query=lighthouse&hitsPerSite=2", "").text();
    let summary = &page[page.find("<p class=\"summary\">").unwrap()..];
    let summary = &summary[..summary.find("</p>").unwrap()];
    assert!(
        summary.starts_with("<p class=\"summary\"><b>13</b> matching versions for <b>lighthouse</b> · hits <b>1–7</b> of <b>7</b> · at most 2 hits a site: 3 sites had more (<a href=\""),
        "{summary}"
    );
    assert!(summary.contains("hitsPerSite=0"), "{summary}");
}

/// Lists every file under `dir` with its length and modification time.
fn snapshot(dir: &Path) -> Vec<(std::path::PathBuf, u64, std::time::SystemTime)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let m = e.metadata().unwrap();
        if m.is_dir() {
            out.extend(snapshot(&e.path()));
        }
        out.push((e.path(), m.len(), m.modified().unwrap()));
    }
    out.sort();
    out
}

/// A collection that cannot be written (another account's, a
/// read-only mount) is searched, and opening it writes nothing. The tests run as root,
/// whom permissions do not stop, so the lock files tantivy would open for writing are
/// made directories here: opening one for writing fails for root too (EISDIR), as it
/// fails for another account (EACCES) or on a read-only mount (EROFS).
#[test]
fn a_collection_that_cannot_be_written_is_searched() {
    let dir = tempfile::tempdir().unwrap();
    build_example(dir.path());
    for part in ["main", "dates"] {
        let d = dir.path().join("pindexes/col1").join(part);
        for lock in [".tantivy-meta.lock", ".tantivy-writer.lock"] {
            let _ = std::fs::remove_file(d.join(lock));
            std::fs::create_dir(d.join(lock)).unwrap();
        }
    }
    let before = snapshot(dir.path());
    let index = SearchIndex::open(dir.path()).unwrap();
    assert!(
        index.broken().is_empty(),
        "{:?}",
        index.broken().iter().map(|b| &b.error).collect::<Vec<_>>()
    );
    let r = search(&index, "organisation", 0);
    assert!(!r.hits.is_empty(), "no hit");
    assert!(r.hits.iter().all(|h| !h.dates.is_empty()), "no dates");
    drop(index);
    // `dumpindex` and `near-dups` read through the releasing directory.
    let main = dir.path().join("pindexes/col1/main");
    let dates = dir.path().join("pindexes/col1/dates");
    warcdex::dates::open_set_with(&main, Some(&dates), true).unwrap();
    warcdex::pindex::open::open_verified_parallel_index_released(&main).unwrap();
    assert_eq!(
        snapshot(dir.path()),
        before,
        "opening the collection wrote to it"
    );
}

/// A query no page holds every word of is asked again with fewer words required, one
/// fewer at a time, and says so; a phrase, a field, or words no page holds stay empty.
#[test]
fn a_query_without_a_page_of_every_word_falls_back_to_fewer() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("pindexes/s/main");
    write_rows_index(
        &main,
        vec![
            row(
                "http://a.example/",
                "Alpha",
                "alpha beta gamma",
                "20200101000000",
            ),
            row("http://b.example/", "Beta", "alpha beta", "20200101000000"),
            row("http://c.example/", "Delta", "delta", "20200101000000"),
        ],
    );
    let index = SearchIndex::open(dir.path()).unwrap();
    // Three words: the ranking lets one go, so two of three find a page without relaxing.
    let r = search(&index, "alpha beta zeta", 0);
    assert_eq!((titles(&r), r.relaxed), (vec!["Alpha", "Beta"], None));
    // Three words two of which no page holds: one of three.
    let r = search(&index, "alpha zeta omega", 0);
    assert_eq!(titles(&r), ["Alpha", "Beta"]);
    let x = r.relaxed.unwrap();
    assert_eq!((x.words, x.needed), (3, 1));
    assert!(
        text::counts_line(&r).contains("pages with 1 of 3 words"),
        "{}",
        text::counts_line(&r)
    );
    let json: serde_json::Value =
        serde_json::from_str(&warcdex::render::json::to_json(&r)).unwrap();
    assert_eq!(json["relaxed"]["needed"], 1);
    let rss = warcdex::render::opensearch::rss(&r, &[]);
    assert!(rss.contains("(showing pages with 1 of 3 words"), "{rss}");
    let page = warcdex::render::page::render(
        &warcdex::render::page::PageRequest {
            query: Some("alpha zeta omega".into()),
            ..Default::default()
        },
        Some(&r),
        None,
        "",
    );
    assert!(page.contains("showing pages with 1 of 3 words"), "{page}");
    // Two words: both are required, then one.
    let r = search(&index, "gamma zeta", 0);
    assert_eq!(titles(&r), ["Alpha"]);
    assert_eq!(r.relaxed.map(|x| (x.words, x.needed)), Some((2, 1)));
    // Every word unknown, a phrase, a field: nothing, and no relaxing.
    for q in [
        "zeta omega",
        "\"alpha zeta\"",
        "title:zeta alpha",
        "alpha -beta zeta",
    ] {
        let r = search(&index, q, 0);
        assert_eq!((r.total, r.relaxed), (0, None), "{q}");
    }
    // Filters stay required: no page of site c holds alpha.
    let r = search(&index, "alpha zeta site:c.example", 0);
    assert_eq!((r.total, r.relaxed), (0, None));
    // A query that finds pages is not relaxed.
    assert_eq!(search(&index, "alpha beta", 0).relaxed, None);
    // A word cut short is completed from the index's words, and the answer says so.
    let r = search(&index, "gamm", 0);
    assert_eq!(titles(&r), ["Alpha"]);
    assert_eq!(r.suggestion.as_deref(), Some("gamma"));
    let json: serde_json::Value =
        serde_json::from_str(&warcdex::render::json::to_json(&r)).unwrap();
    assert_eq!(json["suggestion"], "gamma");
    assert!(text::counts_line(&r).contains("showing \"gamma\""));
    assert!(text::counts_line(&r).contains("--strict"));
    // A word misspelt by one letter is corrected.
    let r = search(&index, "gamna", 0);
    assert_eq!(
        (titles(&r), r.suggestion.as_deref()),
        (vec!["Alpha"], Some("gamma"))
    );
    // Too short to complete, or nothing begins with it nor is near it: no suggestion.
    for q in ["gam", "zetaqx"] {
        let r = search(&index, q, 0);
        assert_eq!((r.total, r.suggestion), (0, None), "{q}");
    }
}

/// A suggested query's hits all on one site are shown without the per-site limit, as a
/// query's own are (the search asked again is the suggested one).
#[test]
fn a_suggested_query_on_one_site_shows_every_hit() {
    let dir = tempfile::tempdir().unwrap();
    write_rows_index(
        &dir.path().join("pindexes/s/main"),
        vec![
            row("http://a.example/1", "One", "gamma rays", "20200101000000"),
            row("http://a.example/2", "Two", "gamma waves", "20200101000000"),
        ],
    );
    let index = SearchIndex::open(dir.path()).unwrap();
    let r = search(&index, "gamm", 1);
    assert_eq!(r.suggestion.as_deref(), Some("gamma"));
    assert_eq!(titles(&r), ["One", "Two"]);
}

/// A word that is two indexed words run together is split, and two words of which one is
/// unknown and whose join is indexed are joined; the answer says what it searched.
#[test]
fn words_run_together_are_split_and_words_cut_apart_joined() {
    let dir = tempfile::tempdir().unwrap();
    write_rows_index(
        &dir.path().join("pindexes/s/main"),
        vec![
            row(
                "http://a.example/neon",
                "Neon",
                "vreinterpretq_u64 casts the lanes",
                "20200101000000",
            ),
            row(
                "http://b.example/arm",
                "Arm",
                "builds for aarch64 hosts",
                "20200101000000",
            ),
        ],
    );
    let index = SearchIndex::open(dir.path()).unwrap();
    let r = search(&index, "vreinterpretqu64", 0);
    assert_eq!(
        (titles(&r), r.suggestion.as_deref()),
        (vec!["Neon"], Some("vreinterpretq u64"))
    );
    let r = search(&index, "aarch 64", 0);
    assert_eq!(
        (titles(&r), r.suggestion.as_deref()),
        (vec!["Arm"], Some("aarch64"))
    );
    // Both halves known: the words are searched as they are (here: nothing holds both).
    let r = search(&index, "lanes hosts", 0);
    assert_eq!(r.suggestion, None);
}
