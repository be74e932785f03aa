//! The access point's capture routes over a collection built by `update`: the capture
//! view (`/web/DATE/URL` banner page, `mp_` rewritten page, `id_` original payload),
//! revisits resolved, a page's stylesheet and images pointing back into the collection,
//! Memento (RFC 7089) TimeGate and TimeMaps, no link to a third party, and bad requests
//! answered 4xx with the server staying up.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::util::http::{request, Answer};
use crate::util::{fixtures, run_warcdex, start_in_process};
use warcdex::serve::ServeOptions;

/// `GET PATH` with `extra` header lines.
pub(crate) fn get_with(addr: &str, path: &str, extra: &str) -> Answer {
    request(addr, "GET", path, extra)
}

fn get(addr: &str, path: &str) -> Answer {
    get_with(addr, path, "")
}

/// One HTTP response record: URL, WARC date, content type, extra HTTP header lines, body.
struct Rec<'a>(&'a str, &'a str, &'a str, &'a str, &'a [u8]);

/// A plain WARC of `recs`.
fn write_records(path: &Path, recs: &[Rec<'_>]) {
    let mut out = Vec::new();
    for (i, Rec(url, date, ct, extra, body)) in recs.iter().enumerate() {
        // A record with a Location is a redirect.
        let status = match extra.contains("Location:") {
            true => "301 Moved Permanently",
            false => "200 OK",
        };
        let mut http = format!(
            "HTTP/1.1 {status}\r\nContent-Type: {ct}\r\n{extra}Content-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        http.extend_from_slice(body);
        out.extend_from_slice(
            format!(
                "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {url}\r\nWARC-Date: {date}\r\n\
                 WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{i:012}>\r\n\
                 Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
                http.len()
            )
            .as_bytes(),
        );
        out.extend_from_slice(&http);
        out.extend_from_slice(b"\r\n\r\n");
    }
    std::fs::write(path, out).unwrap();
}

const PAGE: &str = r#"<!DOCTYPE html><html><head><title>Docs page</title>
<link rel="stylesheet" href="_static/site.css" integrity="sha384-abc">
<style>h1 { background: url("/img/h1.png") }</style></head>
<body><h1>Docs</h1><img src="https://cdn.example.net/logo.png" srcset="/img/logo2x.png 2x">
<a href="other.html">next page</a> <a href="https://elsewhere.example.com/">away</a>
<form action="/search"><input name=q></form>
<script src="https://analytics.example.com/track.js"></script>
<div style="background-image: url(../img/bg.png)"></div></body></html>"#;

/// A collection of a docs page with its stylesheet and images (one gzip-encoded,
/// chunked) and the fixture crawls (with revisits), built by `update`.
pub(crate) fn collection(dir: &Path) -> PathBuf {
    let warc = dir.join("site.warc");
    let png: &[u8] = b"\x89PNG\r\n\x1a\n fake image";
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(b"body { background: url('../img/bg.png') } @import \"print.css\";")
        .unwrap();
    let css_gz = gz.finish().unwrap();
    let mut chunked = format!("{:x}\r\n", css_gz.len()).into_bytes();
    chunked.extend_from_slice(&css_gz);
    chunked.extend_from_slice(b"\r\n0\r\n\r\n");
    write_records(
        &warc,
        &[
            Rec(
                "http://docs.example.org/3/page.html",
                "2024-01-15T03:00:00Z",
                "text/html; charset=utf-8",
                "",
                PAGE.as_bytes(),
            ),
            Rec(
                "http://docs.example.org/3/_static/site.css",
                "2024-01-15T03:00:01Z",
                "text/css",
                "Content-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n",
                &chunked,
            ),
            Rec(
                "http://docs.example.org/img/h1.png",
                "2024-01-15T03:00:02Z",
                "image/png",
                "",
                png,
            ),
            Rec(
                "http://docs.example.org/3/",
                "2024-01-15T03:00:04Z",
                "text/html",
                "Location: page.html\r\n",
                b"moved",
            ),
            Rec(
                "https://cdn.example.net/logo.png",
                "2024-01-15T03:00:03Z",
                "image/png",
                "Set-Cookie: track=1\r\n",
                png,
            ),
        ],
    );
    let coll = dir.join("coll");
    let mut args: Vec<PathBuf> = vec!["update".into(), coll.clone(), warc];
    let ex = fixtures().join("example");
    for e in std::fs::read_dir(&ex).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("crawl") {
            args.push(p);
        }
    }
    let (code, _, err) = run_warcdex(&args);
    assert_eq!(code, 0, "{err}");
    coll
}

fn serve(coll: &Path) -> String {
    let opts = ServeOptions {
        replay_prefix: Some(warcdex::serve::VIEW_PREFIX.into()),
        ..ServeOptions::default()
    };
    start_in_process(coll, opts)
}

/// Every URL in `src`, `href`, `srcset`, `action`, `style` and CSS `url()` of `html`.
fn urls_in(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in ["src=\"", "href=\"", "srcset=\"", "action=\"", "url("] {
        for (i, _) in html.match_indices(attr) {
            let rest = html[i + attr.len()..].trim_start_matches(['"', '\'']);
            let end = rest.find(['"', '\'', ')', ' ']).unwrap_or(rest.len());
            out.push(rest[..end].to_string());
        }
    }
    out
}

#[test]
fn capture_view_rewrites_a_page_and_its_resources() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = collection(tmp.path());
    let addr = serve(&coll);
    let page = "http://docs.example.org/3/page.html";

    // A partial date: to the nearest capture, under its own date.
    let r = get(&addr, &format!("/web/2024/{page}"));
    assert_eq!(r.status, 302);
    assert_eq!(
        r.header("location"),
        Some(format!("/web/20240115030000/{page}").as_str())
    );

    // The banner page frames the rewritten page.
    let top = get(&addr, &format!("/web/20240115030000/{page}"));
    assert_eq!(top.status, 200);
    let html = top.text();
    assert!(
        html.contains(&format!("<iframe src=\"/web/20240115030000mp_/{page}\"")),
        "{html}"
    );
    assert!(html.contains("one of 1 capture"), "{html}");
    assert!(top
        .header("content-security-policy")
        .unwrap()
        .contains("default-src 'none'"));

    let framed = get(&addr, &format!("/web/20240115030000mp_/{page}"));
    assert_eq!(framed.status, 200);
    let csp = framed.header("content-security-policy").unwrap();
    assert!(
        csp.contains("default-src 'self'") && csp.contains("script-src 'none'"),
        "{csp}"
    );
    assert_eq!(
        framed.header("memento-datetime"),
        Some("Mon, 15 Jan 2024 03:00:00 GMT")
    );
    let body = framed.text();
    let want = [
        "/web/20240115030000mp_/http://docs.example.org/3/_static/site.css",
        "/web/20240115030000mp_/http://docs.example.org/img/h1.png",
        "/web/20240115030000mp_/https://cdn.example.net/logo.png",
        "/web/20240115030000mp_/http://docs.example.org/img/logo2x.png",
        "/web/20240115030000/http://docs.example.org/3/other.html",
        "/web/20240115030000/https://elsewhere.example.com/",
        "/web/20240115030000/http://docs.example.org/search",
        "/web/20240115030000mp_/https://analytics.example.com/track.js",
        "/web/20240115030000mp_/http://docs.example.org/img/bg.png",
    ];
    for w in want {
        assert!(body.contains(w), "{w} missing from {body}");
    }
    // Nothing left pointing at the live web, and no integrity hash left to fail.
    for u in urls_in(&body) {
        assert!(
            u.starts_with("/web/2024"),
            "{u} is not in the collection: {body}"
        );
    }
    assert!(!body.contains("integrity"), "{body}");
    assert!(body.contains("target=\"_top\""));

    // A redirect: the top page goes where it led; in the frame it stays in the frame.
    let moved = get(&addr, "/web/20240115030004/http://docs.example.org/3/");
    assert_eq!(moved.status, 302);
    assert_eq!(
        moved.header("location"),
        Some("/web/20240115030004/http://docs.example.org/3/page.html")
    );
    let inner = get(&addr, "/web/20240115030004mp_/http://docs.example.org/3/");
    assert_eq!(inner.status, 301);
    assert_eq!(
        inner.header("location"),
        Some("/web/20240115030004mp_/http://docs.example.org/3/page.html")
    );

    // The stylesheet: de-chunked, gunzipped and rewritten.
    let css = get(
        &addr,
        "/web/20240115030000mp_/http://docs.example.org/3/_static/site.css",
    );
    assert_eq!(css.status, 200);
    assert_eq!(css.header("content-encoding"), None);
    assert_eq!(
        css.text(),
        "body { background: url('/web/20240115030001mp_/http://docs.example.org/3/img/bg.png') } \
         @import \"/web/20240115030001mp_/http://docs.example.org/3/_static/print.css\";"
    );
    // Its original payload: still gzip, with its Content-Encoding, de-chunked.
    let raw = get(
        &addr,
        "/web/20240115030001id_/http://docs.example.org/3/_static/site.css",
    );
    assert_eq!(raw.header("content-encoding"), Some("gzip"));
    let mut plain = String::new();
    flate2::read::GzDecoder::new(&raw.body[..])
        .read_to_string(&mut plain)
        .unwrap();
    assert!(plain.starts_with("body { background: url('../img/bg.png') }"));

    // An image at the page's date: the nearest capture, its bytes as stored; the
    // archived cookie is not set here.
    let img = get(
        &addr,
        "/web/20240115030000mp_/https://cdn.example.net/logo.png",
    );
    assert_eq!(img.status, 200);
    assert_eq!(img.body, b"\x89PNG\r\n\x1a\n fake image");
    assert_eq!(img.header("content-type"), Some("image/png"));
    assert_eq!(img.header("set-cookie"), None);
    assert_eq!(img.header("x-archive-orig-set-cookie"), Some("track=1"));
    assert_eq!(img.header("x-content-type-options"), Some("nosniff"));
}

#[test]
fn revisits_identity_memento_and_links() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = collection(tmp.path());
    let addr = serve(&coll);
    let about = "http://example.org/about.html";

    // 20071005120100 is a revisit of 20071001120100's payload: the same page is shown.
    let orig = get(&addr, &format!("/web/20071001120100id_/{about}"));
    let rev = get(&addr, &format!("/web/20071005120100id_/{about}"));
    assert_eq!(orig.status, 200);
    assert_eq!(rev.status, 200);
    assert!(
        orig.text().contains("<title>About C</title>"),
        "{}",
        orig.text()
    );
    assert_eq!(orig.body, rev.body);
    assert_eq!(
        rev.header("memento-datetime"),
        Some("Fri, 05 Oct 2007 12:01:00 GMT")
    );
    let banner = get(&addr, &format!("/web/20071005120100/{about}")).text();
    assert!(
        banner.contains("unchanged since an earlier capture"),
        "{banner}"
    );
    assert!(banner.contains("one of 3 captures"), "{banner}");

    // The id_ payload is the record's, byte for byte (all.cdx names the record).
    let cdx = std::fs::read_to_string(coll.join("all.cdx")).unwrap();
    let line = cdx
        .lines()
        .find(|l| l.contains(" 20071001120100 "))
        .unwrap();
    let f: Vec<&str> = line.split(' ').collect();
    let (offset, length): (u64, u64) = (f[9].parse().unwrap(), f[8].parse().unwrap());
    let path = fixtures().join("example").join(f[10]);
    let mut reader =
        warcdex::reader::ArchiveReader::open_range(&path, offset, length, Default::default())
            .unwrap();
    let mut rec = reader.next_record().unwrap().unwrap();
    rec.http().unwrap();
    let mut payload = Vec::new();
    rec.read_to_end(&mut payload).unwrap();
    assert_eq!(orig.body, payload);

    // The banner links to the text the version was indexed with.
    assert!(
        banner.contains(&format!("href=\"/text/20071005120100/{about}\"")),
        "{banner}"
    );
    let text = get(&addr, &format!("/text/20071005120100/{about}"));
    assert_eq!(text.status, 200, "{}", text.text());
    let t = text.text();
    assert!(
        t.contains("The example organisation was founded in 1999"),
        "{t}"
    );
    assert!(!t.contains("not text"), "script text is not indexed: {t}");
    assert_eq!(get(&addr, &format!("/text/2007/{about}")).status, 302);
    // An image is indexed with no text.
    let img = get(
        &addr,
        "/text/20240115030002/http://docs.example.org/img/h1.png",
    );
    assert_eq!(img.status, 200);
    assert!(img.text().contains("<pre></pre>"), "{}", img.text());

    // TimeGate: Accept-Datetime negotiated to the nearest memento (RFC 7089 §4.1.1).
    let tg = get_with(
        &addr,
        &format!("/timegate/{about}"),
        "Accept-Datetime: Tue, 02 Oct 2007 13:00:00 GMT\r\n",
    );
    assert_eq!(tg.status, 302);
    assert_eq!(tg.header("vary"), Some("accept-datetime"));
    let loc = tg.header("location").unwrap();
    assert!(
        loc.ends_with(&format!("/web/20071002120100/{about}")),
        "{loc}"
    );
    let link = tg.header("link").unwrap();
    assert!(
        link.contains(&format!("<{about}>; rel=\"original\"")),
        "{link}"
    );
    assert!(
        link.contains("rel=\"timemap\"; type=\"application/link-format\""),
        "{link}"
    );
    // Without Accept-Datetime: the latest.
    let latest = get(&addr, &format!("/timegate/{about}"));
    assert!(latest
        .header("location")
        .unwrap()
        .contains("/web/20071005120100/"));
    // The memento it sends to says what it is.
    let m = get(&addr, &format!("/web/20071002120100mp_/{about}"));
    assert_eq!(
        m.header("memento-datetime"),
        Some("Tue, 02 Oct 2007 12:01:00 GMT")
    );
    let ml = m.header("link").unwrap();
    assert!(
        ml.contains("rel=\"original\"") && ml.contains("rel=\"timegate\""),
        "{ml}"
    );
    assert!(
        ml.contains("rel=\"first prev memento\"") && ml.contains("rel=\"next last memento\""),
        "{ml}"
    );

    // TimeMaps: every capture date, once.
    let tm = get(&addr, &format!("/timemap/link/{about}"));
    assert_eq!(tm.status, 200);
    assert_eq!(tm.header("content-type"), Some("application/link-format"));
    let t = tm.text();
    assert_eq!(t.matches("memento\"; datetime=").count(), 3, "{t}");
    assert!(
        t.contains("rel=\"self\"") && t.contains("rel=\"timegate\""),
        "{t}"
    );
    let tj = get(&addr, &format!("/timemap/json/{about}"));
    let v: serde_json::Value = serde_json::from_slice(&tj.body).unwrap();
    assert_eq!(v["mementos"]["list"].as_array().unwrap().len(), 3);
    assert_eq!(
        get(&addr, "/timemap/link/http://not.archived.example/").status,
        404
    );
    assert_eq!(
        get(&addr, "/timegate/http://not.archived.example/").status,
        404
    );

    // Hits link to the capture view, never to a third party.
    let json = get(&addr, "/search.json?query=example");
    let v: serde_json::Value = serde_json::from_slice(&json.body).unwrap();
    let hits = v["hits"].as_array().unwrap();
    assert!(!hits.is_empty());
    for h in hits {
        for r in h["replay"].as_array().unwrap() {
            assert!(r.as_str().unwrap().starts_with("/web/"), "{r}");
        }
        assert!(!h["filename"].as_str().unwrap().is_empty());
        let open = get(&addr, h["replay"][0].as_str().unwrap());
        assert_eq!(open.status, 200, "{}", h["replay"][0]);
    }
    let page = get(&addr, "/?query=example").text();
    assert!(!page.contains("href=\"http"), "{page}");
    let rss = get(&addr, "/opensearch?query=example").text();
    for (i, _) in rss.match_indices("<link>") {
        let link = &rss[i + 6..];
        assert!(
            link.starts_with(&format!("http://{addr}/")),
            "{}",
            &link[..60.min(link.len())]
        );
    }
    assert!(rss.contains("<nutch:arcname>"), "{rss}");
}

/// Clients that ask for a large capture and stop reading hold neither the server nor
/// its blocking threads: the idle timeout closes them, the threads writing to them stop.
#[test]
fn stalled_readers_of_a_large_capture_are_closed() {
    let tmp = tempfile::tempdir().unwrap();
    // Written and read back in pieces: the test process stays small, as the memory
    // tests' children (forked from it) measure their peak from its size.
    const BIG: usize = 48 << 20;
    let warc = tmp.path().join("big.warc");
    {
        let http = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: {BIG}\r\n\r\n"
        );
        let mut f = std::io::BufWriter::new(std::fs::File::create(&warc).unwrap());
        write!(
            f,
            "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://big.example.org/file.bin\r\n\
             WARC-Date: 2024-01-15T03:00:00Z\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-000000000001>\r\n\
             Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n{http}",
            http.len() + BIG
        )
        .unwrap();
        let mib = vec![b'x'; 1 << 20];
        for _ in 0..BIG >> 20 {
            f.write_all(&mib).unwrap();
        }
        f.write_all(b"\r\n\r\n").unwrap();
    }
    let coll = tmp.path().join("coll");
    let (code, _, err) = run_warcdex(&[Path::new("update"), &coll, &warc]);
    assert_eq!(code, 0, "{err}");
    let opts = ServeOptions {
        search_threads: 2,
        limits: warcdex::serve::ConnLimits {
            idle_timeout: Duration::from_secs(1),
            ..warcdex::serve::ConnLimits::default()
        },
        ..ServeOptions::default()
    };
    let addr = start_in_process(&coll, opts);
    // More stalled readers than blocking threads.
    let stalled: Vec<TcpStream> = (0..4)
        .map(|_| {
            let mut s = TcpStream::connect(&addr).unwrap();
            write!(
                s,
                "GET /web/2024id_/http://big.example.org/file.bin HTTP/1.1\r\nHost: x\r\n\r\n"
            )
            .unwrap();
            s
        })
        .collect();
    for s in stalled {
        crate::util::assert_closed_by_server(s, "a stalled reader of a large capture");
    }
    // The threads are free again: a capture and a search are answered.
    let mut s = TcpStream::connect(&addr).unwrap();
    write!(
        s,
        "GET /web/2024mp_/http://big.example.org/file.bin HTTP/1.0\r\nHost: x\r\n\r\n"
    )
    .unwrap();
    let got = std::io::copy(&mut s, &mut std::io::sink()).unwrap() as usize;
    assert!(
        got > BIG && got < BIG + 4096,
        "{got} bytes for a {BIG}-byte payload"
    );
    assert_eq!(get(&addr, "/healthz").status, 200);
}

#[test]
fn bad_capture_requests_are_4xx_and_the_server_stays_up() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = collection(tmp.path());
    let addr = serve(&coll);
    let long = format!("/web/2007/http://example.org/{}", "a".repeat(9000));
    for (path, want) in [
        ("/web/abc/http://example.org/", 400),
        ("/web/2007xx_/http://example.org/", 400),
        ("/web/200710011201001/http://example.org/", 400),
        ("/web/2007/javascript:alert(1)", 400),
        ("/web/2007/file:///etc/passwd", 400),
        ("/web/2007", 400),
        ("/web/2007/http://", 400),
        (long.as_str(), 400),
        ("/web/2007/http://not.archived.example/", 404),
        ("/web/2007/http://example.org/../../etc/passwd", 404),
        ("/timegate/javascript:alert(1)", 400),
        ("/timemap/link/ftp://example.org/", 400),
        ("/text/2007xx_/http://example.org/", 400),
        ("/text/2007/http://not.archived.example/", 404),
    ] {
        let r = get(&addr, path);
        assert_eq!(r.status, want, "{path}: {}", r.text());
        // What is echoed is plain text, never markup.
        assert!(
            r.header("content-type").unwrap().starts_with("text/plain"),
            "{path}"
        );
    }
    let bad_date = get_with(
        &addr,
        "/timegate/http://example.org/about.html",
        "Accept-Datetime: 2007-10-01\r\n",
    );
    assert_eq!(bad_date.status, 400);
    // A capture whose archive is not in collection.json is not read from anywhere.
    let manifest = coll.join("collection.json");
    let m = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, m.replace("crawl1-20071001.arc", "renamed.arc")).unwrap();
    let gone = get(
        &addr,
        "/web/20071001120000mp_/http://www.example.org/index.html",
    );
    assert_eq!(gone.status, 404, "{}", gone.text());
    assert_eq!(get(&addr, "/healthz").status, 200);
}

/// An `id_` answer is the archived payload unrewritten, so a page's
/// `<meta http-equiv=refresh>` or an SVG's link would take a browser to the live web.
/// Such documents are sent to be saved, not shown (and sandboxed besides); images stay
/// inline, the rewritten page's refresh stays in the collection, and the banner links
/// only to this server.
#[test]
fn id_answers_and_the_banner_never_send_a_reader_off_the_server() {
    let tmp = tempfile::tempdir().unwrap();
    let warc = tmp.path().join("evil.warc");
    let refresh = br#"<html><head><meta http-equiv="refresh" content="0; url=http://evil.test/x">
<title>Moved</title></head><body><a href="http://evil.test/y">away</a></body></html>"#;
    let svg = br#"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><a xlink:href="http://evil.test/z"><text y="20">click</text></a></svg>"#;
    let png: &[u8] = b"\x89PNG\r\n\x1a\n fake image";
    write_records(
        &warc,
        &[
            Rec(
                "http://site.example/moved.html",
                "2024-01-15T03:00:00Z",
                "text/html",
                "",
                refresh,
            ),
            Rec(
                "http://site.example/pic.svg",
                "2024-01-15T03:00:01Z",
                "image/svg+xml",
                "Content-Disposition: inline\r\n",
                svg,
            ),
            Rec(
                "http://site.example/pic.png",
                "2024-01-15T03:00:02Z",
                "image/png",
                "",
                png,
            ),
            Rec(
                "http://site.example/untyped",
                "2024-01-15T03:00:03Z",
                "application/octet-stream",
                "",
                refresh,
            ),
        ],
    );
    let coll = tmp.path().join("coll");
    let (code, _, err) = run_warcdex(&["update".as_ref(), coll.as_os_str(), warc.as_os_str()]);
    assert_eq!(code, 0, "{err}");
    let addr = serve(&coll);
    for url in [
        "http://site.example/moved.html",
        "http://site.example/pic.svg",
        "http://site.example/untyped",
    ] {
        let a = get(&addr, &format!("/web/2024id_/{url}"));
        assert_eq!(a.status, 200, "{url}");
        // Still the original bytes, for the programs that ask for them.
        assert!(a.text().contains("evil.test"), "{url}");
        let disposition = a.header("content-disposition").unwrap_or_default();
        assert!(
            disposition.starts_with("attachment"),
            "{url}: {disposition:?}"
        );
        let csp = a.header("content-security-policy").unwrap_or_default();
        assert!(csp.contains("sandbox"), "{url}: {csp}");
    }
    let img = get(&addr, "/web/2024id_/http://site.example/pic.png");
    assert_eq!(img.status, 200);
    assert_eq!(img.header("content-disposition"), None);
    assert_eq!(img.body, png);
    // Rewritten, the refresh leads into the collection.
    let page = get(&addr, "/web/2024mp_/http://site.example/moved.html").text();
    assert!(!page.contains("url=http://evil.test"), "{page}");
    assert!(page.contains("/web/20240115030000"), "{page}");
    // The banner's links are all this server's.
    let banner = get(&addr, "/web/20240115030000/http://site.example/moved.html").text();
    let links: Vec<String> = urls_in(&banner);
    assert!(!links.is_empty());
    for l in links {
        assert!(
            l.starts_with('/') && !l.starts_with("//"),
            "{l} in {banner}"
        );
    }
}

/// Every answer says `X-Content-Type-Options: nosniff`, the Memento
/// routes' and an unknown path's included.
#[test]
fn every_answer_says_nosniff() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = collection(tmp.path());
    let addr = serve(&coll);
    let about = "http://example.org/about.html";
    for path in [
        format!("/timemap/link/{about}"),
        format!("/timemap/json/{about}"),
        format!("/timegate/{about}"),
        "/timegate/http://nowhere.example/".to_string(),
        format!("/web/2007/{about}"),
        format!("/web/2007id_/{about}"),
        "/web/2007/http://nowhere.example/".to_string(),
        "/no/such/route".to_string(),
        "/".to_string(),
        "/healthz".to_string(),
        "/search.json".to_string(),
        "/cdx?url=example.org".to_string(),
    ] {
        let a = get(&addr, &path);
        assert_eq!(
            a.header("x-content-type-options"),
            Some("nosniff"),
            "{path}: {}",
            a.status
        );
    }
}
