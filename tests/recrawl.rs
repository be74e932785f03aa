//! `recrawl-plan` and the change feeds (`changes`, `/changes`, `/changes.json`) on
//! collections built by `warcdex update`: the plan within its budget, gone URLs at the
//! longest interval or dropped, redirects planned at their target, its tiers as Heritrix
//! seed files and Browsertrix Crawler configurations (read by a YAML parser); the feed of
//! a second batch exactly the changed, new and gone URLs its CDX lines say, nothing the
//! access rules hide; the same for a Browsertrix WACZ.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use serde_json::Value;
use warcdex::access::{LiveRules, RulesConfig};
use warcdex::recrawl::write::Tier;
use warcdex::serve::ServeOptions;

use crate::util::http::request;
use crate::util::{fixtures, run_warcdex, start_in_process, unpack_wacz, Lcg};

/// One capture to write: URL, date (`YYYY-MM-DDTHH:MM:SSZ`), HTTP status, a `Location`
/// for a redirect, and the HTML.
struct Cap {
    url: String,
    date: String,
    status: u16,
    location: Option<String>,
    html: String,
}

fn cap(url: &str, date: &str, status: u16, html: &str) -> Cap {
    Cap {
        url: url.into(),
        date: date.into(),
        status,
        location: None,
        html: html.into(),
    }
}

/// A plain WARC of response records, as a crawler writes them.
fn write_crawl(path: &Path, caps: &[Cap]) {
    let mut out = Vec::new();
    for (i, c) in caps.iter().enumerate() {
        let reason = match c.status {
            200 => "OK",
            301 => "Moved Permanently",
            404 => "Not Found",
            410 => "Gone",
            _ => "Other",
        };
        let location = c
            .location
            .as_ref()
            .map_or(String::new(), |l| format!("Location: {l}\r\n"));
        let http = format!(
            "HTTP/1.1 {} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n{location}Content-Length: {}\r\n\r\n{}",
            c.status,
            c.html.len(),
            c.html
        );
        let stamp: String = c.date.chars().filter(char::is_ascii_digit).collect();
        out.extend_from_slice(
            format!(
                "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {}\r\nWARC-Date: {}\r\n\
                 WARC-Record-ID: <urn:uuid:{stamp:0>16}{i:016x}>\r\nContent-Type: application/http; msgtype=response\r\n\
                 Content-Length: {}\r\n\r\n{http}\r\n\r\n",
                c.url,
                c.date,
                http.len()
            )
            .as_bytes(),
        );
    }
    std::fs::write(path, out).unwrap();
}

fn update(coll: &Path, warc: &Path) {
    let (code, _, err) = run_warcdex(&["update".as_ref(), coll.as_os_str(), warc.as_os_str()]);
    assert_eq!(code, 0, "{err}");
}

fn page(title: &str, words: &str) -> String {
    format!("<html><head><title>{title}</title></head><body><p>{words}</p></body></html>")
}

/// Two batches of `n` pages: the first captures every page; the second changes some,
/// leaves some, makes some 404, does not capture some, and adds new pages. Returns the
/// collection.
fn two_batches(dir: &Path, n: usize, seed: u64) -> std::path::PathBuf {
    let mut rng = Lcg(seed);
    let coll = dir.join("coll");
    let url = |i: usize| format!("http://site{}.example/page{i}", i % 7);
    let first: Vec<Cap> = (0..n)
        .map(|i| {
            cap(
                &url(i),
                "2024-03-01T10:00:00Z",
                200,
                &page(
                    &format!("Page {i}"),
                    &format!("first words of page {i} okapi"),
                ),
            )
        })
        .collect();
    let one = dir.join("crawl-1.warc");
    write_crawl(&one, &first);
    update(&coll, &one);
    let mut second = Vec::new();
    for i in 0..n {
        let date = format!("2024-04-{:02}T10:00:00Z", 1 + i % 20);
        let words = match rng.below(5) {
            0 => format!("second words of page {i}, rewritten, quokka"),
            1 => {
                second.push(cap(&url(i), &date, 404, "not here"));
                continue;
            }
            2 => continue,
            _ => format!("first words of page {i} okapi"),
        };
        second.push(cap(
            &url(i),
            &date,
            200,
            &page(&format!("Page {i}"), &words),
        ));
    }
    for j in 0..n / 5 {
        second.push(cap(
            &format!("http://new{}.example/fresh{j}", j % 3),
            "2024-04-25T10:00:00Z",
            200,
            &page("New", &format!("a new page {j} quokka")),
        ));
    }
    let two = dir.join("crawl-2.warc");
    write_crawl(&two, &second);
    update(&coll, &two);
    coll
}

/// (kind, URL key) of every change the feed lists, from its JSON.
fn listed(v: &Value) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for kind in ["changed", "new", "gone"] {
        for e in v[kind].as_array().unwrap() {
            assert_eq!(e["kind"], kind, "{e}");
            out.insert((kind.to_string(), e["urlkey"].as_str().unwrap().to_string()));
        }
    }
    out
}

/// What the CDX says changed in the archives `batch` holds: per URL key, the content
/// digest before it and in it (status 200), and a 404 in it.
fn expected_from_cdx(cdx: &str, batch: &str) -> BTreeSet<(String, String)> {
    let mut before: BTreeMap<String, String> = BTreeMap::new();
    let mut during: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for line in cdx.lines().filter(|l| !l.starts_with(" CDX")) {
        let f: Vec<&str> = line.split(' ').collect();
        let (key, status, digest, file) = (f[0], f[4], f[5], f[10]);
        if file == batch {
            (during.entry(key.to_string()).or_default()).push((status.into(), digest.into()));
        } else if status == "200" {
            before.insert(key.to_string(), digest.to_string());
        }
    }
    let mut out = BTreeSet::new();
    for (key, caps) in during {
        let (status, digest) = caps.last().unwrap();
        match (before.get(&key), status.as_str()) {
            (Some(d), "200") if d != digest => out.insert(("changed".into(), key)),
            (None, "200") => out.insert(("new".into(), key)),
            (Some(_), "404") => out.insert(("gone".into(), key)),
            _ => false,
        };
    }
    out
}

#[test]
fn the_feed_of_a_second_batch_is_what_its_cdx_lines_changed() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = two_batches(tmp.path(), 60, 7);
    let cdx = std::fs::read_to_string(coll.join("all.cdx")).unwrap();
    let want = expected_from_cdx(&cdx, "crawl-2.warc");
    for kind in ["changed", "new", "gone"] {
        assert!(
            want.iter().any(|(k, _)| k == kind),
            "the seed makes a {kind} URL"
        );
    }
    // The command line, by batch and by date (the second batch's captures are all in
    // April, the first's in March).
    for window in [&["--batch", "last"][..], &["--since", "2024-03-15"][..]] {
        let mut args = vec!["changes", coll.to_str().unwrap()];
        args.extend_from_slice(window);
        let (code, out, err) = run_warcdex(&args);
        assert_eq!(code, 0, "{err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(listed(&v), want, "{window:?}");
        assert_eq!(v["counts"]["changed"].as_u64().unwrap() as usize, {
            want.iter().filter(|(k, _)| k == "changed").count()
        });
        // A changed page's share of words and its links.
        let e = &v["changed"][0];
        let share = e["share_changed"].as_f64().unwrap();
        assert!(share > 0.0 && share <= 1.0, "{e}");
        let diff = e["diff"].as_str().unwrap();
        assert!(diff.starts_with("/diff/20240301100000/202404"), "{diff}");
    }
    // The server, JSON and Atom.
    let addr = start_in_process(&coll, ServeOptions::default());
    let a = request(&addr, "GET", "/changes.json?batch=last", "");
    assert_eq!(a.status, 200, "{}", a.text());
    let v: Value = serde_json::from_str(&a.text()).unwrap();
    assert_eq!(listed(&v), want);
    let a = request(&addr, "GET", "/changes?since=20240315", "");
    assert_eq!(a.status, 200);
    assert!(a
        .header("content-type")
        .unwrap()
        .starts_with("application/atom+xml"));
    let text = a.text();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let atom = "http://www.w3.org/2005/Atom";
    let mut from_atom = BTreeSet::new();
    for entry in doc
        .descendants()
        .filter(|n| n.has_tag_name((atom, "entry")))
    {
        let term = (entry.children())
            .find(|n| n.has_tag_name((atom, "category")))
            .and_then(|n| n.attribute("term"))
            .unwrap();
        let id = (entry.children())
            .find(|n| n.has_tag_name((atom, "id")))
            .and_then(|n| n.text())
            .unwrap();
        from_atom.insert((term.to_string(), id.to_string()));
    }
    assert_eq!(from_atom.len(), want.len(), "{text}");
    // A query keeps the URLs with a version it matches: the rewritten and the new pages
    // hold "quokka", the gone pages do not.
    let a = request(&addr, "GET", "/changes.json?batch=last&query=quokka", "");
    let v: Value = serde_json::from_str(&a.text()).unwrap();
    let quokka: BTreeSet<_> = (want.iter())
        .filter(|(k, _)| k != "gone")
        .cloned()
        .collect();
    assert_eq!(listed(&v), quokka);
    // A prefix keeps one host's URLs.
    let a = request(
        &addr,
        "GET",
        "/changes.json?batch=last&prefix=site3.example",
        "",
    );
    let v: Value = serde_json::from_str(&a.text()).unwrap();
    let site3: BTreeSet<_> = (want.iter())
        .filter(|(_, key)| key.starts_with("example,site3)/"))
        .cloned()
        .collect();
    assert!(!site3.is_empty());
    assert_eq!(listed(&v), site3);
    // A limit lists the first of each kind and counts them all.
    let a = request(&addr, "GET", "/changes.json?batch=last&limit=1", "");
    let v: Value = serde_json::from_str(&a.text()).unwrap();
    assert_eq!(v["truncated"], true);
    assert_eq!(v["changed"].as_array().unwrap().len(), 1);
    for bad in [
        "/changes.json",
        "/changes.json?since=yesterday",
        "/changes.json?batch=nope",
    ] {
        assert_eq!(request(&addr, "GET", bad, "").status, 400, "{bad}");
    }
}

#[test]
fn the_feed_tells_nothing_the_access_rules_hide() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = two_batches(tmp.path(), 80, 11);
    let cdx = std::fs::read_to_string(coll.join("all.cdx")).unwrap();
    let want = expected_from_cdx(&cdx, "crawl-2.warc");
    // Hide one host's pages from the public (excluded) and another's (blocked); staff
    // see the first.
    let acl = tmp.path().join("rules");
    std::fs::create_dir_all(&acl).unwrap();
    std::fs::write(
        acl.join("rules.aclj"),
        "example,site2)/ - {\"access\": \"exclude\"}\n\
         example,site2)/ - {\"access\": \"allow\", \"user\": \"staff\"}\n\
         example,site1)/ - {\"access\": \"block\"}\n",
    )
    .unwrap();
    let live = LiveRules::load(RulesConfig {
        acl_paths: vec![acl.clone()],
        ..RulesConfig::default()
    })
    .unwrap();
    let opts = ServeOptions {
        access: Some(Arc::<LiveRules>::clone(&live)),
        user_header: Some("x-warcdex-user".parse().unwrap()),
        ..ServeOptions::default()
    };
    let addr = start_in_process(&coll, opts);
    let public: BTreeSet<_> = (want.iter())
        .filter(|(_, k)| !k.starts_with("example,site2)/") && !k.starts_with("example,site1)/"))
        .cloned()
        .collect();
    let staff: BTreeSet<_> = (want.iter())
        .filter(|(_, k)| !k.starts_with("example,site1)/"))
        .cloned()
        .collect();
    assert!(public.len() < staff.len() && staff.len() < want.len());
    let a = request(&addr, "GET", "/changes.json?batch=last", "");
    let v: Value = serde_json::from_str(&a.text()).unwrap();
    assert_eq!(listed(&v), public);
    // Counts and the Atom feed hold no more than the list.
    let total: u64 = ["changed", "new", "gone"]
        .iter()
        .map(|k| v["counts"][k].as_u64().unwrap())
        .sum();
    assert_eq!(total as usize, public.len());
    let atom = request(&addr, "GET", "/changes?batch=last", "").text();
    assert!(!atom.contains("site2.example") && !atom.contains("site1.example"));
    let a = request(
        &addr,
        "GET",
        "/changes.json?batch=last",
        "x-warcdex-user: staff\r\n",
    );
    let v: Value = serde_json::from_str(&a.text()).unwrap();
    assert_eq!(listed(&v), staff);
    // The command line under the same rules.
    let (code, out, err) = run_warcdex(&[
        "changes",
        coll.to_str().unwrap(),
        "--batch",
        "last",
        "--acl",
        acl.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(listed(&v), public);
}

#[test]
fn a_browsertrix_wacz_batch_has_its_feed_and_its_plan() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = tmp.path().join("coll");
    update(&coll, &fixtures().join("wacz/crawl.wacz"));
    // Under a name of its own: the first WACZ is `crawl.wacz` too.
    let wacz = tmp.path().join("browsertrix.wacz");
    std::fs::copy(fixtures().join("browsertrix/crawl.wacz"), &wacz).unwrap();
    update(&coll, &wacz);
    let cdx = std::fs::read_to_string(coll.join("all.cdx")).unwrap();
    // The second batch's captures name the WARCs inside its WACZ.
    let inner = unpack_wacz(
        &fixtures().join("browsertrix/crawl.wacz"),
        &tmp.path().join("x"),
    );
    let names: BTreeSet<String> = (inner.iter())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let mut want = BTreeSet::new();
    for n in &names {
        want.extend(expected_from_cdx(&cdx, n));
    }
    assert!(!want.is_empty());
    let (code, out, err) = run_warcdex(&["changes", coll.to_str().unwrap(), "--batch", "last"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(listed(&v), want);
    // Every http(s) URL of the CDX with content is planned once.
    let (code, out, err) = run_warcdex(&[
        "recrawl-plan",
        coll.to_str().unwrap(),
        "--budget",
        "5",
        "--as-of",
        "2025-01-01",
    ]);
    assert_eq!(code, 0, "{err}");
    let planned: BTreeSet<String> = out
        .lines()
        .skip(1)
        .map(|l| csv_fields(l)[0].clone())
        .collect();
    assert_eq!(
        planned.len(),
        out.lines().count() - 1,
        "a URL planned twice"
    );
    let with_content: BTreeSet<String> = (cdx.lines().filter(|l| !l.starts_with(" CDX")))
        .map(|l| l.split(' ').collect::<Vec<_>>())
        .filter(|f| f[4].starts_with('2') && f[2].starts_with("http"))
        .map(|f| f[0].to_string())
        .collect();
    let keys: BTreeSet<String> = (planned.iter())
        .map(|u| warcdex_cdx::url_key(u, warcdex_cdx::KeyStyle::Surt).unwrap())
        .collect();
    assert!(
        with_content.is_subset(&keys),
        "{with_content:?} vs {keys:?}"
    );
}

/// The fields of a CSV line (quoted fields as RFC 4180 writes them).
fn csv_fields(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let (mut quoted, mut chars) = (false, line.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                out.last_mut().unwrap().push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(String::new()),
            (c, _) => out.last_mut().unwrap().push(c),
        }
    }
    out
}

/// Four crawls two weeks apart: pages that change at every crawl, pages that never
/// change, a page gone once at the end, one gone twice, one that redirects.
fn four_crawls(dir: &Path) -> std::path::PathBuf {
    let coll = dir.join("coll");
    let days = ["2024-01-01", "2024-01-15", "2024-01-29", "2024-02-12"];
    for (c, day) in days.iter().enumerate() {
        let date = format!("{day}T08:00:00Z");
        let mut caps = Vec::new();
        for i in 0..10 {
            // Every busy page links to the first two calm ones: they matter most.
            let words = format!(
                "busy page {i} edition {c} <a href=\"http://calm.example/0\">calm</a> \
                 <a href=\"http://calm.example/1\">calm</a>"
            );
            caps.push(cap(
                &format!("http://busy.example/{i}"),
                &date,
                200,
                &page("Busy", &words),
            ));
            let words = format!("calm page {i} always the same");
            caps.push(cap(
                &format!("http://calm.example/{i}"),
                &date,
                200,
                &page("Calm", &words),
            ));
        }
        let once = if c == 3 { 404 } else { 200 };
        caps.push(cap(
            "http://calm.example/gone-once",
            &date,
            once,
            &page("G", "gone once"),
        ));
        let twice = if c >= 2 { 410 } else { 200 };
        caps.push(cap(
            "http://calm.example/gone-twice",
            &date,
            twice,
            &page("G", "gone twice"),
        ));
        let mut moved = cap(
            "http://calm.example/old",
            &date,
            200,
            &page("Old", "old home"),
        );
        if c == 3 {
            moved.status = 301;
            moved.location = Some("/new-home".into());
            moved.html = String::new();
        }
        caps.push(moved);
        let warc = dir.join(format!("crawl-{c}.warc"));
        write_crawl(&warc, &caps);
        update(&coll, &warc);
    }
    coll
}

/// The plan's rows by URL: (interval, reason, the rest of the row).
fn plan_rows(out: &str) -> BTreeMap<String, Vec<String>> {
    let mut lines = out.lines();
    assert_eq!(
        lines.next().unwrap(),
        "url,interval_days,next_due,change_rate,importance,reason,tier,captures,last_capture,redirected_from"
    );
    lines.map(csv_fields).map(|f| (f[0].clone(), f)).collect()
}

#[test]
fn the_plan_spends_its_budget_on_what_changes_and_backs_off_what_is_gone() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = four_crawls(tmp.path());
    let c = coll.to_str().unwrap();
    for schedule in ["optimal", "nutch-adaptive"] {
        let (code, out, err) = run_warcdex(&[
            "recrawl-plan",
            c,
            "--budget",
            "1.5",
            "--max",
            "200",
            "--drop-after",
            "2",
            "--as-of",
            "2024-02-20",
            "--schedule",
            schedule,
        ]);
        assert_eq!(code, 0, "{err}");
        let rows = plan_rows(&out);
        let interval = |u: &str| -> f64 { rows[u][1].parse().unwrap() };
        let spent: f64 = rows
            .values()
            .map(|r| 1.0 / r[1].parse::<f64>().unwrap())
            .sum();
        assert!(spent <= 1.5 + 1e-9 && spent > 1.4, "{schedule}: {spent}");
        // Gone once: the longest interval; gone twice: dropped; moved: its target.
        assert_eq!(rows["http://calm.example/gone-once"][5], "gone");
        assert_eq!(interval("http://calm.example/gone-once"), 200.0);
        assert!(
            !rows.contains_key("http://calm.example/gone-twice"),
            "{out}"
        );
        assert!(!rows.contains_key("http://calm.example/old"));
        let home = &rows["http://calm.example/new-home"];
        assert_eq!(
            (home[5].as_str(), home[9].as_str()),
            ("redirect", "http://calm.example/old")
        );
        // What changes at every crawl is fetched more often than what never does.
        let mean = |host: &str| -> f64 {
            (0..10)
                .map(|i| interval(&format!("http://{host}.example/{i}")))
                .sum::<f64>()
                / 10.0
        };
        assert!(mean("busy") < mean("calm"), "{schedule}: {out}");
        for r in rows.values() {
            assert_eq!(r[6], Tier::of(r[1].parse().unwrap()).name());
            assert!(r[2].as_str() >= "2024-02-20", "due before --as-of: {r:?}");
        }
    }
    // The estimate is the maximum-likelihood one: every interval changed, 14 days each.
    let (_, out, _) = run_warcdex(&[
        "recrawl-plan",
        c,
        "--budget",
        "1.5",
        "--as-of",
        "2024-02-20",
    ]);
    let rows = plan_rows(&out);
    let rate: f64 = rows["http://busy.example/3"][3].parse().unwrap();
    // 3·14/(e^(14r) − 1) = 7 (half the shortest interval unchanged): r = ln 7 / 14.
    assert!((rate - 7f64.ln() / 14.0).abs() < 1e-5, "{rate}");
    // As of before the last crawl, its captures are not read.
    let (_, early, err) = run_warcdex(&[
        "recrawl-plan",
        c,
        "--budget",
        "1.5",
        "--as-of",
        "2024-02-01",
    ]);
    assert!(err.contains("23 captures after --as-of left out"), "{err}");
    assert_eq!(
        plan_rows(&early)["http://calm.example/gone-once"][5],
        "estimated"
    );
    // The importance of a collection grown batch by batch is the link score over all of
    // it: the same as after `update --compact`, to the printed digit.
    let importance = |out: &str| -> BTreeMap<String, String> {
        plan_rows(out)
            .into_iter()
            .map(|(u, r)| (u, r[4].clone()))
            .collect()
    };
    let before = importance(&out);
    assert!(
        before["http://calm.example/0"] > before["http://calm.example/5"],
        "{before:?}"
    );
    let (code, _, err) = run_warcdex(&["update", c, "--compact"]);
    assert_eq!(code, 0, "{err}");
    let (_, after, _) = run_warcdex(&[
        "recrawl-plan",
        c,
        "--budget",
        "1.5",
        "--as-of",
        "2024-02-20",
    ]);
    assert_eq!(before, importance(&after));
    // Without --as-of every capture is read, and nothing is due before today.
    let (_, now, err) = run_warcdex(&["recrawl-plan", c, "--budget", "1.5"]);
    assert!(err.contains(" 0 captures after --as-of left out"), "{err}");
    let today = warcdex_cdx::date::Date14::now().iso()[..10].to_string();
    assert!(plan_rows(&now).values().all(|r| r[2] >= today), "{now}");
    // An impossible budget says so and exits 1.
    let (code, _, err) = run_warcdex(&[
        "recrawl-plan",
        c,
        "--budget",
        "0.01",
        "--as-of",
        "2024-02-20",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("OVER BUDGET"), "{err}");
}

#[test]
fn tiers_are_heritrix_seed_files_and_browsertrix_configs() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = four_crawls(tmp.path());
    let c = coll.to_str().unwrap();
    let (_, csv, _) = run_warcdex(&["recrawl-plan", c, "--budget", "3", "--as-of", "2024-02-20"]);
    let rows = plan_rows(&csv);
    let mut by_tier: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (url, r) in &rows {
        by_tier.entry(r[6].clone()).or_default().insert(url.clone());
    }
    assert!(by_tier.len() >= 2, "{by_tier:?}");
    let (heritrix, browsertrix) = (tmp.path().join("heritrix"), tmp.path().join("browsertrix"));
    for (format, dir) in [("heritrix", &heritrix), ("browsertrix", &browsertrix)] {
        let (code, _, err) = run_warcdex(&[
            "recrawl-plan",
            c,
            "--budget",
            "3",
            "--as-of",
            "2024-02-20",
            "--format",
            format,
            "-o",
            dir.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
    }
    assert_eq!(
        std::fs::read_to_string(heritrix.join("plan.csv")).unwrap(),
        csv
    );
    for (tier, urls) in &by_tier {
        // Heritrix: one URL a line, `#` comments.
        let seeds = std::fs::read_to_string(heritrix.join(format!("{tier}-seeds.txt"))).unwrap();
        let got: BTreeSet<String> = (seeds.lines())
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .map(str::to_string)
            .collect();
        assert_eq!(&got, urls, "{tier}");
        // Browsertrix: a YAML mapping with the keys its config loader reads.
        let yaml = std::fs::read_to_string(browsertrix.join(format!("{tier}.yaml"))).unwrap();
        let docs = yaml_rust2::YamlLoader::load_from_str(&yaml).unwrap();
        let doc = &docs[0];
        assert_eq!(doc["scopeType"].as_str(), Some("page"));
        let name = doc["collection"].as_str().unwrap();
        assert!(
            name.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'),
            "{name}"
        );
        let got: BTreeSet<String> = (doc["seeds"].as_vec().unwrap().iter())
            .map(|s| s.as_str().unwrap().to_string())
            .collect();
        assert_eq!(&got, urls, "{tier}");
    }
    let files = std::fs::read_dir(&browsertrix).unwrap().count();
    assert_eq!(
        files,
        by_tier.len() + 1,
        "one file per tier that holds URLs, and plan.csv"
    );
}
