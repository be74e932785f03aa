//! `as-of:` (and `asOf=`) searches the collection as it stood at the end of a
//! date, each URL by the version live then; `sort=date` and `-date` order hits by capture
//! date; hits carry their first and last capture dates.

use std::path::{Path, PathBuf};

use serde_json::Value;
use warcdex::serve::ServeOptions;

use crate::util::http::request;
use crate::util::{run_warcdex, start_in_process, write_warc};

const PAGE: &str = "http://museum.example/hours";
const OTHER: &str = "http://museum.example/about";

fn page(word: &str) -> String {
    format!(
        "<html><head><title>Museum hours {word}</title></head><body><p>The museum \
         opens at nine; {word} is this year's exhibition, in the main hall.</p></body></html>"
    )
}

/// Three crawls a year apart: the hours page changed twice, the about page not at all
/// (captured in the first and the last crawl, an hour before the hours page).
fn collection(dir: &Path) -> PathBuf {
    let coll = dir.join("coll");
    let about = "<html><head><title>About the museum</title></head><body><p>The museum \
                 of the town, since 1901.</p></body></html>"
        .to_string();
    let crawls = [
        ("2021", vec![(OTHER, about.clone()), (PAGE, page("alpha"))]),
        ("2022", vec![(PAGE, page("beta"))]),
        ("2023", vec![(OTHER, about), (PAGE, page("gamma"))]),
    ];
    for (year, caps) in crawls {
        let caps: Vec<(String, String, String)> = (caps.into_iter().enumerate())
            .map(|(i, (u, h))| {
                (
                    u.to_string(),
                    format!("{year}-01-10T{:02}:00:00Z", 9 + i),
                    h,
                )
            })
            .collect();
        let warc = dir.join(format!("crawl-{year}.warc"));
        write_warc(&warc, &caps);
        let (code, _, err) = run_warcdex(&["update".as_ref(), coll.as_os_str(), warc.as_os_str()]);
        assert_eq!(code, 0, "{err}");
    }
    coll
}

/// (URL, title) of each hit.
fn hits(r: &Value) -> Vec<(String, String)> {
    (r["hits"].as_array().unwrap().iter())
        .map(|h| {
            (
                h["url"].as_str().unwrap().into(),
                h["title"].as_str().unwrap().into(),
            )
        })
        .collect()
}

fn cli(coll: &Path, args: &[&str]) -> Value {
    let mut all = vec![
        "search",
        "-d",
        coll.to_str().unwrap(),
        "--json",
        "--hits-per-site",
        "0",
    ];
    all.extend_from_slice(args);
    let (code, out, err) = run_warcdex(&all);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn each_date_between_crawls_finds_the_version_live_then() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = collection(tmp.path());
    let addr = start_in_process(&coll, ServeOptions::default());
    let live = |word: &str| vec![(PAGE.to_string(), format!("Museum hours {word}"))];
    for (at, word) in [
        ("20210110", "alpha"),
        ("20211231", "alpha"),
        ("202201", "beta"),
        ("20221231235959", "beta"),
        ("2023", "gamma"),
    ] {
        // The hours page: only the version live then, on the CLI, in JSON and on the page.
        let r = cli(&coll, &[&format!("hours as-of:{at}")]);
        assert_eq!(hits(&r), live(word), "CLI as-of:{at}");
        let a = request(
            &addr,
            "GET",
            &format!("/search.json?query=hours&asOf={at}&hitsPerSite=0"),
            "",
        );
        let j: Value = serde_json::from_slice(&a.body).unwrap();
        assert_eq!(hits(&j), live(word), "JSON asOf={at}");
        assert_eq!(j["total"], 1);
        let p = request(&addr, "GET", &format!("/?query=hours&asOf={at}"), "").text();
        assert!(
            p.contains(&format!("Museum hours {word}")),
            "page asOf={at}"
        );
        for other in ["alpha", "beta", "gamma"].iter().filter(|w| **w != word) {
            assert!(
                !p.contains(&format!("Museum hours {other}")),
                "page asOf={at}: {other}"
            );
            assert_eq!(cli(&coll, &[&format!("{other} as-of:{at}")])["total"], 0);
        }
        assert!(p.contains(&format!("name=\"asOf\" value=\"{at}\"")));
    }
    // Before the first crawl nothing was there; the unchanged page is live throughout.
    assert_eq!(cli(&coll, &["museum as-of:2020"])["total"], 0);
    for at in ["2021", "2022", "2023"] {
        let r = cli(&coll, &[&format!("museum as-of:{at}")]);
        assert_eq!(r["total"], 2, "{at}");
    }
    // A bad date is the user's to fix.
    let (code, _, err) =
        run_warcdex(&["search", "-d", coll.to_str().unwrap(), "museum as-of:2021x"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        request(&addr, "GET", "/search.json?query=museum&asOf=21", "").status,
        400
    );
}

/// A search as of a date shows nothing of the future: the unchanged
/// about page, captured in 2021 and 2023, lists only its 2021 date as of 2022, the
/// timeline has no 2023 month, the page draws no 2023 date, and an export lists the
/// dates known then.
#[test]
fn as_of_shows_no_capture_after_its_date() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = collection(tmp.path());
    let addr = start_in_process(&coll, ServeOptions::default());
    let r = cli(&coll, &["about as-of:2022"]);
    assert_eq!(r["total"], 1);
    let dates: Vec<&str> = (r["hits"][0]["dates"].as_array().unwrap().iter())
        .map(|d| d.as_str().unwrap())
        .collect();
    assert_eq!(dates, ["20210110090000"], "{r}");
    let months: Vec<&str> = (r["timeline"].as_array().unwrap().iter())
        .map(|m| m["month"].as_str().unwrap())
        .collect();
    assert_eq!(months, ["2021-01"], "{r}");
    let p = request(&addr, "GET", "/?query=about&asOf=2022", "").text();
    assert!(p.contains("20210110090000"), "{p}");
    assert!(
        !p.contains("20230110"),
        "the page shows a 2023 capture: {p}"
    );
    let (code, out, err) = run_warcdex(&[
        "export",
        "-d",
        coll.to_str().unwrap(),
        "about as-of:2022",
        "--format",
        "jsonl",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("20210110090000") || out.contains("2021-01-10"),
        "{out}"
    );
    assert!(!out.contains("2023"), "{out}");
    // Without as-of, both dates.
    let r = cli(&coll, &["about"]);
    assert_eq!(r["hits"][0]["dates"].as_array().unwrap().len(), 2, "{r}");
}

#[test]
fn hits_ordered_by_capture_date_with_first_and_last_seen() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = collection(tmp.path());
    let addr = start_in_process(&coll, ServeOptions::default());
    let urls_titles = |q: &str| {
        let a = request(
            &addr,
            "GET",
            &format!("/search.json?query={q}&hitsPerSite=0&nearDups=show"),
            "",
        );
        assert_eq!(a.status, 200, "{}", a.text());
        let j: Value = serde_json::from_slice(&a.body).unwrap();
        (hits(&j).into_iter().map(|(_, t)| t).collect::<Vec<_>>(), j)
    };
    let (newest, j) = urls_titles("museum&sort=-date");
    assert_eq!(
        newest,
        [
            "Museum hours gamma",
            "About the museum",
            "Museum hours beta",
            "Museum hours alpha"
        ]
    );
    let about = &j["hits"][1];
    assert_eq!(
        (about["first_seen"].as_str(), about["last_seen"].as_str()),
        (Some("20210110090000"), Some("20230110090000"))
    );
    let (oldest, _) = urls_titles("museum&sort=date");
    assert_eq!(
        oldest,
        [
            "About the museum",
            "Museum hours alpha",
            "Museum hours beta",
            "Museum hours gamma"
        ]
    );
    // As of 2022, newest first: the about page's last capture then was 2021's.
    let (then, _) = urls_titles("museum&sort=-date&asOf=2022");
    assert_eq!(then, ["Museum hours beta", "About the museum"]);
    let r = cli(&coll, &["--sort", "-date", "museum"]);
    assert_eq!(hits(&r)[0].1, "Museum hours gamma");
    assert_eq!(
        request(&addr, "GET", "/search.json?query=museum&sort=newest", "").status,
        400
    );
}

/// Splits a CSV line of the export (no field here holds a line break).
fn csv_fields(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                out.last_mut().unwrap().push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(String::new()),
            c => out.last_mut().unwrap().push(c),
        }
    }
    out
}

#[test]
fn an_export_holds_exactly_the_versions_the_search_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = collection(tmp.path());
    let dir = coll.to_str().unwrap();
    for q in [
        "museum",
        "hours",
        "museum as-of:2022",
        "exhibition date:2023",
        "about",
        "nothing-here",
    ] {
        let shown = cli(&coll, &["--near-dups", "show", "-n", "100", q]);
        let mut want: Vec<(String, String)> = (shown["hits"].as_array().unwrap().iter())
            .map(|h| {
                (
                    h["url"].as_str().unwrap().into(),
                    h["digest"].as_str().unwrap().into(),
                )
            })
            .collect();
        want.sort();
        let (code, csv, err) =
            run_warcdex(&["export", "-d", dir, "--fields", "url,digest,dates,title", q]);
        assert_eq!(code, 0, "{err}");
        let mut lines = csv.lines();
        assert_eq!(lines.next(), Some("url,digest,dates,title"));
        let mut got: Vec<(String, String)> = lines
            .map(|l| {
                let f = csv_fields(l);
                assert_eq!(f.len(), 4, "{l}");
                (f[0].clone(), f[1].clone())
            })
            .collect();
        got.sort();
        assert_eq!(got.len() as u64, shown["total"].as_u64().unwrap(), "{q}");
        assert_eq!(got, want, "{q}");
        // JSON lines: the same versions, dates as arrays.
        let (_, jsonl, _) = run_warcdex(&["export", "-d", dir, "--format", "jsonl", q]);
        let rows: Vec<Value> = jsonl
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(rows.len(), got.len(), "{q}");
        for r in &rows {
            assert_eq!(r["first_date"], r["dates"][0]);
            assert!(r["surt"].as_str().unwrap().starts_with("example,museum)/"));
        }
    }
    // The about page's one version holds both its captures.
    let (_, csv, _) = run_warcdex(&["export", "-d", dir, "--fields", "dates,title", "about"]);
    assert!(
        csv.contains("20210110090000 20230110090000,About the museum"),
        "{csv}"
    );
    let (code, _, _) = run_warcdex(&["export", "-d", dir, "museum as-of:20x"]);
    assert_eq!(code, 2);
}

#[test]
fn a_parquet_export_holds_the_same_versions_with_dates_as_timestamps() {
    use arrow_array::{Array, ListArray, StringArray, TimestampMicrosecondArray};
    let tmp = tempfile::tempdir().unwrap();
    let coll = collection(tmp.path());
    let out = tmp.path().join("museum.parquet");
    let args = [
        "export",
        "-d",
        coll.to_str().unwrap(),
        "--format",
        "parquet",
        "-o",
        out.to_str().unwrap(),
        "museum",
    ];
    let (code, _, err) = run_warcdex(&args);
    assert_eq!(code, 0, "{err}");
    let file = std::fs::File::open(&out).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    let mut rows: Vec<(String, Vec<i64>)> = Vec::new();
    for batch in reader {
        let batch = batch.unwrap();
        let urls = batch
            .column_by_name("url")
            .unwrap()
            .as_any()
            .downcast_ref::<StringArray>()
            .unwrap();
        let dates = batch
            .column_by_name("dates")
            .unwrap()
            .as_any()
            .downcast_ref::<ListArray>()
            .unwrap();
        assert!(
            batch.column_by_name("offset").is_none()
                && batch.column_by_name("record_offset").is_some()
        );
        for i in 0..batch.num_rows() {
            let d = dates.value(i);
            let d = d
                .as_any()
                .downcast_ref::<TimestampMicrosecondArray>()
                .unwrap();
            rows.push((
                urls.value(i).to_string(),
                (0..d.len()).map(|j| d.value(j)).collect(),
            ));
        }
    }
    rows.sort();
    let total = cli(&coll, &["museum"])["total"].as_u64().unwrap();
    assert_eq!(rows.len() as u64, total);
    // The about page: one version, both captures (2021-01-10 and 2023-01-10 at 09:00 UTC).
    let about = rows.iter().find(|r| r.0 == OTHER).unwrap();
    assert_eq!(about.1, vec![1_610_269_200_000_000, 1_673_341_200_000_000]);
}
