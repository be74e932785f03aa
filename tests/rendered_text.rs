//! A crawl of single-page apps made the Browsertrix way (fixtures/browsertrix/crawl.wacz,
//! made by its make_fixture.py and packaged by py-wacz): every HTML page is a shell whose
//! words exist only in the text the crawler recorded after its script ran, as
//! `urn:text:` and `urn:textFinal:` records (and ArchiveWeb.page's
//! `urn:text:DATE14/URL`) or the `text` of its line in `pages/pages.jsonl`. Each page is
//! found first by a word only its rendered text holds; no rendered text is a hit of its
//! own; the richest source wins; an excluded host's rendered words are hidden from
//! search, `/cdx` and export; an exported WACZ's page list carries the words.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::util::http::{request, Answer};
use crate::util::{fixtures, run_warcdex, start_in_process};
use warcdex::access::{LiveRules, RulesConfig};
use warcdex::serve::ServeOptions;

/// Each page, the word only its rendered text holds, and the source that text came
/// from (the richest the crawl recorded).
const PAGES: [(&str, &str, &str); 8] = [
    ("https://spa.example.org/", "quillwort", "text"),
    ("https://spa.example.org/tides", "marramgrass", "final"),
    ("https://spa.example.org/boats", "saltwort", "final"),
    ("https://spa.example.org/birds", "glasswort", "pages"),
    ("https://app.example.net/", "samphire", "text"),
    ("https://app.example.net/log", "seaholly", "text"),
    ("https://app.example.net/maps", "sandwort", "text"),
    ("https://app.example.net/about", "thriftwort", "final"),
];

/// Words of poorer sources (a `urn:text:` beside a `urn:textFinal:`, a page list text
/// beside a `urn:text:`) and of a text whose page was never captured: in no index.
const NOT_INDEXED: [&str; 3] = ["draftword", "pagelistword", "orphanword"];

/// A collection of the fixture's WACZ (copied, so the fixture is never written); the
/// update's standard error.
pub(crate) fn collection(tmp: &Path) -> (PathBuf, String) {
    let wacz = tmp.join("crawl.wacz");
    std::fs::copy(fixtures().join("browsertrix/crawl.wacz"), &wacz).unwrap();
    let coll = tmp.join("coll");
    let (code, _, err) = run_warcdex(&["update".as_ref(), coll.as_os_str(), wacz.as_os_str()]);
    assert_eq!(code, 0, "update: {err}");
    (coll, err)
}

fn get(addr: &str, path: &str) -> Answer {
    request(addr, "GET", path, "")
}

fn json(addr: &str, path: &str) -> serde_json::Value {
    let a = get(addr, path);
    assert_eq!(a.status, 200, "{path}: {}", a.text());
    serde_json::from_slice(&a.body).unwrap()
}

fn options() -> ServeOptions {
    ServeOptions {
        replay_prefix: Some(warcdex::serve::VIEW_PREFIX.into()),
        ..ServeOptions::default()
    }
}

#[test]
fn pages_built_by_scripts_are_found_first_by_their_rendered_words() {
    let tmp = tempfile::tempdir().unwrap();
    let (coll, said) = collection(tmp.path());
    assert!(said.contains("rendered-text-unmatched 1"), "{said}");
    let addr = start_in_process(&coll, options());
    for (url, word, source) in PAGES {
        let r = json(&addr, &format!("/search.json?query={word}"));
        let hits = r["hits"].as_array().unwrap();
        assert_eq!(hits.len(), 1, "{word}: {r}");
        assert_eq!(hits[0]["url"], url, "{word} finds its page first");
        assert_eq!(hits[0]["text_source"], source, "{word}: {}", hits[0]);
        let snippet = hits[0]["snippet_html"].as_str().unwrap();
        assert!(
            snippet.contains(word),
            "the snippet shows the words: {snippet}"
        );
    }
    for word in NOT_INDEXED {
        let r = json(&addr, &format!("/search.json?query={word}"));
        assert_eq!(r["total"], 0, "{word}: {r}");
    }
    // Every version of the crawl: no hit, facet value or history entry is a URN.
    let all = json(
        &addr,
        "/search.json?query=script&hitsPerSite=0&hitsPerPage=100",
    );
    let hits = all["hits"].as_array().unwrap();
    assert_eq!(hits.len(), PAGES.len(), "{all}");
    let text = all.to_string();
    assert!(!text.contains("urn:"), "{text}");
    let everything = json(
        &addr,
        "/search.json?query=example&hitsPerSite=0&hitsPerPage=100",
    );
    assert!(!everything.to_string().contains("urn:"), "{everything}");
    for (url, _, _) in PAGES {
        let h = get(&addr, &format!("/history/{url}"));
        assert_eq!(h.status, 200, "/history/{url}");
        assert!(!h.text().contains("urn:"), "/history/{url}");
    }
    // Every capture held in the WACZ opens by its date.
    let cdx = std::fs::read_to_string(coll.join("all.cdx")).unwrap();
    let mut opened = 0;
    for l in cdx.lines().filter(|l| !l.starts_with(" CDX")) {
        let f: Vec<&str> = l.split(' ').collect();
        if f[2].starts_with("urn:") {
            continue;
        }
        let a = get(&addr, &format!("/web/{}id_/{}", f[1], f[2]));
        assert_eq!(a.status, 200, "{}: {}", f[2], a.text());
        opened += 1;
    }
    assert_eq!(opened, 8 * 4, "pages, stylesheets, scripts and images");
    // wabac.js's page query (`/pages`): search, paging and URL lookup name the WACZ.
    for (url, word, _) in PAGES {
        let r = json(&addr, &format!("/pages?search={word}"));
        assert_eq!(r["total"], 1, "{r}");
        let i = &r["items"][0];
        assert_eq!(
            (&i["url"], &i["filename"]),
            (&url.into(), &"crawl.wacz".into()),
            "{r}"
        );
        assert!(i["ts"].as_str().unwrap().ends_with('Z'), "{r}");
        let r = json(&addr, &format!("/pages?url={url}"));
        assert_eq!(r["total"], 1, "{url}: {r}");
        assert_eq!(r["items"][0]["filename"], "crawl.wacz", "{r}");
        assert_eq!(r["items"][0]["status"], 200, "{r}");
    }
    let paged = json(&addr, "/pages?search=script&page=2&pageSize=3");
    assert_eq!(paged["total"], 8, "{paged}");
    assert_eq!(paged["items"].as_array().unwrap().len(), 3, "{paged}");
    let every = json(&addr, "/pages?pageSize=100");
    assert_eq!(
        every["total"], 14,
        "pages, stylesheets, scripts, images: {every}"
    );
    assert!(!every.to_string().contains("urn:"), "{every}");
    assert_eq!(get(&addr, "/pages?search=x&pageSize=-1").status, 400);
    // dumpindex names the source of each version's text.
    let (code, out, err) = run_warcdex(&[
        "dumpindex".as_ref(),
        "-f".as_ref(),
        "text_source".as_ref(),
        coll.join("pindexes/batch-0001/main").as_os_str(),
    ]);
    assert_eq!(code, 0, "{err}");
    for source in ["final", "text", "pages"] {
        assert!(out.contains(source), "{out}");
    }
}

#[test]
fn an_excluded_hosts_rendered_words_are_hidden_from_search_cdx_and_export() {
    let tmp = tempfile::tempdir().unwrap();
    let (coll, _) = collection(tmp.path());
    let acl = tmp.path().join("rules");
    std::fs::create_dir_all(&acl).unwrap();
    std::fs::write(
        acl.join("rules.aclj"),
        "net,example,app)/ - {\"access\": \"exclude\"}\n",
    )
    .unwrap();
    let live: Arc<LiveRules> = LiveRules::load(RulesConfig {
        acl_paths: vec![acl],
        ..RulesConfig::default()
    })
    .unwrap();
    let addr = start_in_process(
        &coll,
        ServeOptions {
            access: Some(live),
            ..options()
        },
    );
    for (url, word, _) in PAGES {
        let hidden = url.contains("app.example.net");
        let r = json(&addr, &format!("/search.json?query={word}"));
        assert_eq!(r["total"], u64::from(!hidden), "{word}: {r}");
        for target in ["urn:text:", "urn:textFinal:"] {
            let lines = get(&addr, &format!("/cdx?url={target}{url}")).text();
            if hidden {
                assert_eq!(lines, "", "/cdx of {target}{url}");
            }
        }
        let page = get(&addr, &format!("/cdx?url={url}")).text();
        assert_eq!(page.is_empty(), hidden, "/cdx?url={url}: {page}");
        let lookup = json(&addr, &format!("/pages?url={url}"));
        assert_eq!(
            lookup["total"],
            u64::from(!hidden),
            "/pages?url={url}: {lookup}"
        );
        let found = json(&addr, &format!("/pages?search={word}"));
        assert_eq!(
            found["total"],
            u64::from(!hidden),
            "/pages?search={word}: {found}"
        );
    }
    // The shown host's text records are still listed, as pywb lists them.
    let shown = get(&addr, "/cdx?url=urn:text:https://spa.example.org/").text();
    assert_eq!(shown.lines().count(), 1, "{shown}");
    // The whole CDX by prefix: no line of the excluded host or of its texts.
    let all = get(&addr, "/cdx?url=urn:*").text();
    assert!(!all.is_empty());
    assert!(!all.contains("app.example.net"), "{all}");
    let export = get(&addr, "/export?query=script&format=jsonl&fields=url,text");
    assert_eq!(export.status, 200);
    let text = export.text();
    assert!(text.contains("quillwort"), "{text}");
    for (url, word, _) in PAGES.iter().filter(|p| p.0.contains("app.example.net")) {
        assert!(!text.contains(word) && !text.contains(url), "{text}");
    }
}

#[test]
fn an_exported_wacz_page_list_carries_the_rendered_words() {
    let tmp = tempfile::tempdir().unwrap();
    let (coll, _) = collection(tmp.path());
    let out = tmp.path().join("export.wacz");
    let (code, _, err) = run_warcdex(&[
        "export".as_ref(),
        "-d".as_ref(),
        coll.as_os_str(),
        "script".as_ref(),
        "--format".as_ref(),
        "wacz".as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(code, 0, "export: {err}");
    let mut zip = zip::ZipArchive::new(std::fs::File::open(&out).unwrap()).unwrap();
    let mut pages = String::new();
    std::io::Read::read_to_string(&mut zip.by_name("pages/pages.jsonl").unwrap(), &mut pages)
        .unwrap();
    let mut lines = pages.lines();
    let header: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(header["hasText"], true, "{header}");
    let entries: Vec<serde_json::Value> = lines.map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(entries.len(), PAGES.len(), "{pages}");
    for (url, word, _) in PAGES {
        let e = (entries.iter().find(|e| e["url"] == url)).unwrap_or_else(|| panic!("{url}"));
        assert!(e["text"].as_str().unwrap().contains(word), "{e}");
    }
}

/// The records of a WARC export of `query` from `coll` (`--no-requisites` when not
/// `requisites`): `(type, URL, date)` of each, and what export said.
fn exported(coll: &Path, query: &str, requisites: bool) -> (Vec<(String, String, String)>, String) {
    let out = coll.with_extension(format!("{requisites}.warc.gz"));
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "export".as_ref(),
        "-d".as_ref(),
        coll.as_os_str(),
        query.as_ref(),
        "--format".as_ref(),
        "warc".as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
    ];
    if !requisites {
        args.push("--no-requisites".as_ref());
    }
    let (code, _, err) = run_warcdex(&args);
    assert_eq!(code, 0, "export: {err}");
    let mut records = Vec::new();
    let mut reader = warcdex::reader::ArchiveReader::open(&out).unwrap();
    while let Some(rec) = reader.next_record().unwrap() {
        let h = rec.header();
        records.push((
            h.type_name().into_owned(),
            String::from_utf8_lossy(h.target_uri().unwrap_or_default()).into_owned(),
            h.date14().unwrap_or_default(),
        ));
        rec.finish().unwrap();
    }
    (records, err)
}

#[test]
fn a_warc_export_holds_each_pages_requisites_at_the_capture_nearest_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (coll, _) = collection(tmp.path());
    let (records, said) = exported(&coll, "marramgrass", true);
    let urls: Vec<(&str, &str)> = (records.iter())
        .filter(|r| r.0 == "response")
        .map(|r| (r.1.as_str(), r.2.as_str()))
        .collect();
    // The page of 10:05, its stylesheet, script and image of 10:05:01-03: not those of
    // the other pages' dates on the same host.
    assert_eq!(
        urls,
        [
            ("https://spa.example.org/tides", "20240301100500"),
            ("https://spa.example.org/style.css", "20240301100501"),
            ("https://spa.example.org/app.js", "20240301100502"),
            ("https://spa.example.org/logo.png", "20240301100503"),
        ],
        "{said}"
    );
    assert!(
        said.contains("3 requisite records, 0 requisites not in the collection"),
        "{said}"
    );
    let (bare, said) = exported(&coll, "marramgrass", false);
    let pages: Vec<&str> = (bare.iter())
        .filter(|r| r.0 == "response")
        .map(|r| r.1.as_str())
        .collect();
    assert_eq!(pages, ["https://spa.example.org/tides"], "{said}");
}

#[test]
fn a_page_list_line_too_long_to_read_is_counted() {
    let tmp = tempfile::tempdir().unwrap();
    let page = "<html><head><title>Big</title></head><body><div id=root></div></body></html>";
    let warc = crate::util::warc_record("http://big.example/", page, "");
    let line = serde_json::json!({
        "url": "http://big.example/",
        "ts": "2024-01-01T00:00:00Z",
        "text": "pageword ".repeat((5 << 20) / 9),
    });
    let wacz = tmp.path().join("big.wacz");
    let mut z = zip::ZipWriter::new(std::fs::File::create(&wacz).unwrap());
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    z.start_file("archive/data.warc", stored).unwrap();
    std::io::Write::write_all(&mut z, &warc).unwrap();
    z.start_file("pages/pages.jsonl", stored).unwrap();
    std::io::Write::write_all(
        &mut z,
        format!("{{\"format\": \"json-pages-1.0\"}}\n{line}\n").as_bytes(),
    )
    .unwrap();
    z.finish().unwrap();
    let coll = tmp.path().join("coll");
    let (code, _, err) = run_warcdex(&["update".as_ref(), coll.as_os_str(), wacz.as_os_str()]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("big.wacz: page-list-line-too-long 1"), "{err}");
}
