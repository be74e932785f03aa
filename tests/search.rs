//! `warcdex search` and `warcdex serve` over the worked example (formats.md §5.4):
//! cdx → dedup-cdx → import -e → index → add-dates into `DIR/pindexes/col1/{main,dates}`,
//! plus a second set without dates (many sites, a title with markup) and a broken set.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;

use warcdex::dates::add::{add_dates, AddDatesOptions, DatesInput};
use warcdex::import::exclusions::Exclusions;
use warcdex::import::segment_dir::write_segment;
use warcdex::import::{import_archives, ImportOptions};
use warcdex::index::links::{analyse, LinkOptions};
use warcdex::index::{build_index, write_index, IndexOptions};
use warcdex::search::{text, SearchIndex, SearchRequest, SearchResults};
use warcdex::segment::SegmentRow;
use warcdex::serve::{router, serve, ServeOptions};
use warcdex_cdx::{url_key, KeyStyle};

use crate::util::{fixture_lists, fixture_manifest, FixtureLists};

/// Builds `dir/pindexes/col1/{main,dates}` from the worked example.
fn build_example(dir: &Path) {
    let entries = fixture_manifest("example");
    let FixtureLists { dup, .. } = fixture_lists(dir, "example");
    let dup_path = dir.join("example.dup");
    let ex = Exclusions::load(&dup[..], KeyStyle::Surt, &mut |n, m| panic!("{n}: {m}")).unwrap();
    let opts = ImportOptions::default();
    let (rows, reports) = import_archives(&entries, Some(&ex), &opts, &|_| {}, &|_| {});
    let seg = dir.join("seg");
    write_segment(&seg, &rows, reports, &opts, None).unwrap();
    let main = dir.join("pindexes/col1/main");
    build_index(&[seg], &main, &IndexOptions::default()).unwrap();
    add_dates(
        &main,
        std::slice::from_ref(&main),
        &dir.join("pindexes/col1/dates"),
        &DatesInput::File(dup_path),
        &AddDatesOptions::default(),
    )
    .unwrap();
}

fn row(url: &str, title: &str, text: &str, date: &str) -> SegmentRow {
    SegmentRow {
        key: format!("{url} sha1:X"),
        url: url.into(),
        urlkey: url_key(url, KeyStyle::Surt).unwrap(),
        digest: "sha1:X".into(),
        dates: vec![date.into()],
        first_date: date.into(),
        title: Some(title.into()),
        text: text.into(),
        mime: "text/html".into(),
        collection: "other".into(),
        ..SegmentRow::default()
    }
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
    rows.sort_by(|a, b| (&a.urlkey, &a.digest).cmp(&(&b.urlkey, &b.digest)));
    let graph = analyse(&rows, &LinkOptions::default(), KeyStyle::Surt).unwrap();
    write_index(
        out,
        &rows,
        &graph,
        "surt".into(),
        Vec::new(),
        &LinkOptions::default(),
    )
    .unwrap();
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
    assert!(d.snippet.to_html().contains("<b>Lisbon</b>"));

    // Every date of index(A), with one replay link each (formats.md §5.4).
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

    // All five are on example.org: two per site, the rest behind "more from this site".
    let r = search(&index, "organisation", 2);
    assert_eq!(r.total, 5);
    assert_eq!(r.hits.len(), 2);
    assert!(r.site_limited && !r.has_more);
    assert!(r.hits.iter().all(|h| h.more_from_site));
    assert_eq!(r.total_results(), 2);
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
    assert_eq!(lines.next(), Some("Total hits: 1"));
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
        index,
        ServeOptions {
            replay_prefix: Some("http://wayback.test/web".into()),
            ..ServeOptions::default()
        },
    );
    std::thread::spawn(move || serve(listener, app, 2).unwrap());

    // /healthz names the refused set and why.
    let h = get(&addr, "/healthz");
    assert_eq!(h.status, 200);
    let v: serde_json::Value = serde_json::from_str(&h.body).unwrap();
    assert_eq!(v["status"], "degraded");
    assert_eq!(v["sets"].as_array().unwrap().len(), 2);
    assert_eq!(v["broken"][0]["name"], "zbroken");
    assert!(v["broken"][0]["error"]
        .as_str()
        .unwrap()
        .contains("not a dates index"));

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
        Some("http://www.example.org/index.html")
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

    // The page: results with every date as a replay link, the per-site limit with
    // its "more from" link, and the empty form.
    let r = get(&addr, "/?query=organisation");
    assert_eq!(r.status, 200);
    assert_eq!(
        r.body.matches("<li class=\"hit\">").count(),
        2,
        "{}",
        r.body
    );
    assert!(r.body.contains("more from example.org"));
    assert!(r.body.contains("href=\"/?query=organisation%20site%3Aexample.org&amp;hitsPerPage=10&amp;hitsPerSite=0\""), "{}", r.body);
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
