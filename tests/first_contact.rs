//! First contact: what a new user runs into in the first minutes — the
//! progress of `update` when stderr is a file, refusals printed once, filters given in
//! words, the capture list at `/web/*/URL`, a query starting with `-`, a directory or an
//! lz4 file given as an archive, one figure for a change, an unsorted `.aclj`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::util::http::request;
use crate::util::{run_warcdex, start_in_process, write_warc};
use warcdex::serve::ServeOptions;

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/example")
}

fn example_archives() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(example())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("crawl")
        })
        .collect();
    v.sort();
    v
}

/// `warcdex update DIR ARCHIVES...` with stderr piped (not a terminal): exit code, stderr.
fn update(dir: &Path, archives: &[PathBuf]) -> (i32, String) {
    let mut args: Vec<&std::ffi::OsStr> = vec!["update".as_ref(), dir.as_os_str()];
    args.extend(archives.iter().map(|a| a.as_os_str()));
    let (code, _, err) = run_warcdex(&args);
    (code, err)
}

/// The example collection, built once for the tests that only read it.
fn example_collection() -> PathBuf {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = tempfile::tempdir().unwrap();
        let (code, err) = update(&d.path().join("coll"), &example_archives());
        assert_eq!(code, 0, "{err}");
        d
    })
    .path()
    .join("coll")
}

/// Item 19: with stderr not a terminal, each stage prints a line when it starts (with
/// how much it has to do, in its own unit) and one when it ends (with its time), in order.
#[test]
fn update_without_a_terminal_prints_a_line_per_stage() {
    let tmp = tempfile::tempdir().unwrap();
    let (code, err) = update(&tmp.path().join("coll"), &example_archives());
    assert_eq!(code, 0, "{err}");
    // The capture table is written beside the index (within its stage), not after.
    let table = tmp.path().join("coll/captures/batch-0001.parquet");
    assert!(table.exists(), "{err}");
    let stages = ["identify", "cdx", "import", "index", "dates"];
    let mut at = 0;
    for stage in stages {
        let start = format!("warcdex update: {stage}: ");
        let starts: Vec<&str> = err.lines().filter(|l| l.starts_with(&start)).collect();
        assert_eq!(starts.len(), 1, "{stage} starts once in\n{err}");
        let end = format!("warcdex update: {stage} done in ");
        let ends: Vec<usize> = err
            .lines()
            .enumerate()
            .filter(|(_, l)| l.starts_with(&end) && l.ends_with(" s"))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(ends.len(), 1, "{stage} ends once in\n{err}");
        let i = err.lines().position(|l| l.starts_with(&start)).unwrap();
        assert!(i >= at && ends[0] > i, "{stage} out of order in\n{err}");
        at = ends[0];
    }
    // The archives' sizes in bytes (KiB, MiB…).
    let size: u64 = example_archives()
        .iter()
        .map(|p| p.metadata().unwrap().len())
        .sum();
    assert!(
        err.contains(&format!(
            "warcdex update: cdx: {}\n",
            indicatif::HumanBytes(size)
        )),
        "{err}"
    );
}

/// Item 19: an archive refused is named once, not once when found and again in the summary.
#[test]
fn a_refused_archive_is_reported_once() {
    let tmp = tempfile::tempdir().unwrap();
    let text = tmp.path().join("notes.warc.gz");
    std::fs::write(&text, "This is a plain text file, not an archive at all.\n").unwrap();
    let mut archives = example_archives();
    archives.truncate(1);
    archives.push(text.clone());
    let (code, err) = update(&tmp.path().join("coll"), &archives);
    assert_eq!(code, 1, "{err}");
    let named = err
        .lines()
        .filter(|l| l.contains(&text.display().to_string()))
        .count();
    assert_eq!(named, 1, "{err}");
    assert!(err.contains("1 archives unreadable, not added"), "{err}");
}

fn search(dir: &Path, query: &str) -> (i32, String, String) {
    run_warcdex(&[
        "search".as_ref(),
        "-d".as_ref(),
        dir.as_os_str(),
        "--hits-per-site".as_ref(),
        "0".as_ref(),
        query.as_ref(),
    ])
}

/// Item 20: `lang:english` and `type:html` find what `lang:en` and `type:text/html`
/// find; a value that is neither is refused with the values there are.
#[test]
fn lang_and_type_take_names_or_say_which_values_exist() {
    let coll = &example_collection();
    for (named, code) in [
        ("example lang:english", "example lang:en"),
        ("example lang:English", "example lang:en"),
        ("example type:html", "example type:text/html"),
        ("example -type:html", "example -type:text/html"),
    ] {
        let (c1, by_name, e1) = search(coll, named);
        let (c2, by_code, e2) = search(coll, code);
        assert_eq!((c1, c2), (0, 0), "{e1}{e2}");
        assert!(by_code.contains(" matching version"), "{by_code}");
        assert_eq!(by_name, by_code, "{named} against {code}");
    }
    let (_, all, _) = search(coll, "example");
    let (_, en, _) = search(coll, "example lang:en");
    assert_ne!(
        all, en,
        "the example has a page not told English: lang: filters"
    );

    let (c, _, err) = search(coll, "example lang:klingon");
    assert_eq!(c, 2, "{err}");
    for want in ["lang:klingon", "ISO 639-1", "en (English)", "fr (French)"] {
        assert!(err.contains(want), "{want} in {err}");
    }
    let (c, _, err) = search(coll, "example type:movie");
    assert_eq!(c, 2, "{err}");
    for want in ["type:movie", "text/html", "html", "pdf"] {
        assert!(err.contains(want), "{want} in {err}");
    }

    // The same message on the API.
    let addr = start_in_process(coll, ServeOptions::default());
    let r = request(&addr, "GET", "/search.json?query=example+lang:klingon", "");
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.text().contains("en (English)"), "{}", r.text());
}

/// Item 20: `-python` is read by the argument parser as a flag; the error says to put
/// `--` before it.
#[test]
fn a_query_starting_with_a_dash_gets_a_hint() {
    let coll = &example_collection();
    let (code, _, err) = run_warcdex(&[
        "search".as_ref(),
        "-d".as_ref(),
        coll.as_os_str(),
        "-python".as_ref(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("put -- before a query that starts with -"),
        "{err}"
    );
    // And with it, the query is read.
    let (code, out, err) = run_warcdex(&[
        "search".as_ref(),
        "-d".as_ref(),
        coll.as_os_str(),
        "--".as_ref(),
        "example -python".as_ref(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("5 matching versions; 5 hits"), "{out}");
}

/// Item 20: a directory and an lz4 file given as archives are refused with what to do.
#[test]
fn a_directory_or_an_lz4_file_given_as_an_archive_gets_a_hint() {
    let tmp = tempfile::tempdir().unwrap();
    let lz4 = tmp.path().join("crawl.warc.lz4");
    std::fs::write(
        &lz4,
        b"\x04\x22\x4d\x18\x64\x40\xa7\x00\x00\x00\x80WARC/1.0",
    )
    .unwrap();
    let dir = tmp.path().join("crawls");
    std::fs::create_dir(&dir).unwrap();
    for command in ["cdx", "records"] {
        let (code, _, err) = run_warcdex(&[command.as_ref(), dir.as_os_str()]);
        assert_eq!(code, 1, "{command}: {err}");
        let hint = format!(
            "{}: is a directory; give the archive files in it (e.g. {}/*.warc.gz)",
            dir.display(),
            dir.display()
        );
        assert!(err.contains(&hint), "{command}: {err}");
        let (code, _, err) = run_warcdex(&[command.as_ref(), lz4.as_os_str()]);
        assert_eq!(code, 1, "{command}: {err}");
        assert!(
            err.contains("lz4-compressed; decompress it first (lz4 -d)"),
            "{command}: {err}"
        );
        assert!(!err.contains("not an ARC or WARC file"), "{command}: {err}");
    }
    let (code, err) = update(&tmp.path().join("coll"), &[dir.clone(), lz4.clone()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("give the archive files in it"), "{err}");
    assert!(err.contains("lz4-compressed"), "{err}");
}

/// Item 20: `/web/*/URL` (pywb's list of a URL's captures) answers the URL's captures.
#[test]
fn web_star_lists_the_captures_of_a_url() {
    let coll = &example_collection();
    let addr = start_in_process(coll, ServeOptions::default());
    let url = "http://www.example.org/index.html";
    let r = request(&addr, "GET", &format!("/web/*/{url}"), "");
    assert_eq!(r.status, 302, "{}", r.text());
    let to = r.header("location").unwrap().to_string();
    let page = request(&addr, "GET", &to, "");
    assert_eq!(page.status, 200, "{to}: {}", page.text());
    let body = page.text();
    for d in [
        "20071001120000",
        "20071002120000",
        "20071003120000",
        "20071004120000",
        "20071005120000",
    ] {
        assert!(
            body.contains(&format!("href=\"/web/{d}/{url}\"")),
            "{d} in {body}"
        );
    }
}

/// Item 20: a change has one figure. The search page showed an estimate from the
/// signatures (≈ 13 % here) where `/history` showed the share from the texts (7.1 %); it
/// now names the kind of change as `/history` does, and links to the diff, the figure
/// left to the pages that read the texts.
#[test]
fn a_change_shows_one_share_on_the_search_page_and_history() {
    let tmp = tempfile::tempdir().unwrap();
    let url = "http://museum.example/hours";
    let page = |hours: &str, extra: &str| {
        format!(
            "<html><head><title>Museum hours</title></head><body><h1>Museum hours</h1>\
             <p>The museum opens at {hours} every day but Monday. Tickets cost five euros; \
             children and students enter free. Guided tours start at the main hall on the \
             hour, and the cafe on the roof serves lunch until three. {extra}</p></body></html>"
        )
    };
    let warc = tmp.path().join("museum.warc");
    write_warc(
        &warc,
        &[
            (url.into(), "2025-03-01T06:00:00Z".into(), page("nine", "")),
            (
                url.into(),
                "2025-03-09T06:00:00Z".into(),
                page("ten", "The shop sells postcards."),
            ),
        ],
    );
    let coll = tmp.path().join("coll");
    let (code, err) = update(&coll, &[warc]);
    assert_eq!(code, 0, "{err}");
    let addr = start_in_process(&coll, ServeOptions::default());
    let search = request(&addr, "GET", "/?query=museum", "").text();
    let history = request(&addr, "GET", &format!("/history/{url}"), "").text();
    // The link to the second version's diff, on each page.
    let diff = format!("/diff/20250301060000/20250309060000/{url}\"");
    let link_text = |page: &str| -> String {
        let (_, after) = page
            .split_once(&diff)
            .unwrap_or_else(|| panic!("no link to {diff} in {page}"));
        after[after.find('>').unwrap() + 1..after.find("</a>").unwrap()].to_string()
    };
    let on_search = link_text(&search);
    let on_history = link_text(&history);
    // /history: "7.1 % · minor change"; the search page: the same kind, no other figure.
    let (share, kind) = on_history.split_once(" · ").unwrap();
    assert!(share.ends_with(" %"), "{on_history}");
    assert_eq!(on_search, kind, "search page against /history");
    assert!(!on_search.contains('%'), "{on_search}");
    let d = request(&addr, "GET", &diff[..diff.len() - 1], "").text();
    assert!(
        d.contains(&format!("<b>{share}</b> of the words changed")),
        "/history's {share} against the diff page: {d}"
    );
}

/// Item 20: an `.aclj` out of pywb's order (reverse byte order) is read, with a warning
/// that names the file and line and says to sort it.
#[test]
fn an_unsorted_acl_file_is_named_with_a_warning() {
    let coll = &example_collection();
    let tmp = tempfile::tempdir().unwrap();
    let acl = tmp.path().join("rules.aclj");
    std::fs::write(
        &acl,
        "org,example)/about.html - {\"access\": \"block\"}\n\
         org,example)/news.html - {\"access\": \"block\"}\n",
    )
    .unwrap();
    let args = |a: &Path| -> Vec<std::ffi::OsString> {
        vec![
            "access".into(),
            "check".into(),
            coll.into(),
            "http://www.example.org/news.html".into(),
            "--acl".into(),
            a.into(),
        ]
    };
    let (code, out, err) = run_warcdex(&args(&acl));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("block"), "{out}");
    assert!(
        err.contains(&format!(
            "{}: line 2: not in the order pywb reads",
            acl.display()
        )) && err.contains("sort it (pywb expects SURT-sorted, reverse order: LC_ALL=C sort -r)"),
        "{err}"
    );
    // Sorted, no warning.
    let sorted = tmp.path().join("sorted.aclj");
    std::fs::write(
        &sorted,
        "org,example)/news.html - {\"access\": \"block\"}\n\
         org,example)/about.html - {\"access\": \"block\"}\n",
    )
    .unwrap();
    let (code, _, err) = run_warcdex(&args(&sorted));
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("sort it"), "{err}");
}

/// Item 20 (docs/access.md): a host's rule, as in pywb, covers neither the host with a
/// port nor its subdomains.
#[test]
fn a_host_rule_covers_neither_a_port_nor_subdomains() {
    let coll = &example_collection();
    let tmp = tempfile::tempdir().unwrap();
    let acl = tmp.path().join("rules.aclj");
    std::fs::write(&acl, "org,example)/ - {\"access\": \"block\"}\n").unwrap();
    let check = |url: &str| -> String {
        let (code, out, err) = run_warcdex(&[
            "access".as_ref(),
            "check".as_ref(),
            coll.as_os_str(),
            url.as_ref(),
            "--acl".as_ref(),
            acl.as_os_str(),
        ]);
        assert_eq!(code, 0, "{err}");
        out
    };
    assert!(check("http://example.org/a").contains("block"));
    for other in ["http://example.org:8080/a", "http://shop.example.org/a"] {
        assert!(!check(other).contains("block"), "{other}: {}", check(other));
    }
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/access.md")).unwrap();
    assert!(
        doc.contains("covers neither the host with a port"),
        "docs/access.md does not say it"
    );
}
