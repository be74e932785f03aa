//! `import` on the worked example (docs/formats.md §5.3) and on the whole real corpus.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;
use warcdex::import::exclusions::Exclusions;
use warcdex::import::manifest::ManifestEntry;
use warcdex::import::{import_archives, ImportOptions, SourceReport};
use warcdex::reader::records::RecordsOptions;
use warcdex::segment::SegmentRow;
use warcdex_cdx::{url_key, KeyStyle};

use crate::util::{corpus, fixture_lists, fixture_manifest, fixtures, ok_in, records_of};

fn example_entries() -> Vec<ManifestEntry> {
    fixture_manifest("example")
}

fn import(
    entries: &[ManifestEntry],
    ex: Option<&Exclusions>,
) -> (Vec<SegmentRow>, Vec<SourceReport>) {
    import_archives(entries, ex, &ImportOptions::default(), &|_| {}, &|_| {}).unwrap()
}

/// The exclusion list the pipeline makes for the example: cdx, then dedup-cdx.
fn example_exclusions(dir: &Path) -> Exclusions {
    let dup = fixture_lists(dir, "example").dup;
    // Three captures are duplicates of an earlier one: index A on 10-02 and 10-04 (the
    // revisit of 10-05 too), about C on 10-02 (and its revisit of 10-05).
    assert_eq!(
        String::from_utf8_lossy(&dup).lines().count(),
        5,
        "{}",
        String::from_utf8_lossy(&dup)
    );
    Exclusions::load(&dup[..], KeyStyle::Surt, &mut |n, m| {
        panic!("line {n}: {m}")
    })
    .unwrap()
}

fn digests() -> std::collections::HashMap<String, String> {
    std::fs::read_to_string(fixtures().join("example/DIGESTS.txt"))
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.splitn(3, ' ').collect();
            (f[0].to_string(), format!("sha1:{}", f[1]))
        })
        .collect()
}

/// docs/formats.md §5.3: with the exclusion list, exactly the five versions are imported,
/// each from its first capture; the no-www capture of index A is excluded through the
/// canonical key.
#[test]
fn worked_example_with_exclusions() {
    let dir = tempfile::tempdir().unwrap();
    let ex = example_exclusions(dir.path());
    let (rows, reports) = import(&example_entries(), Some(&ex));
    let d = digests();
    let got: Vec<(String, Vec<String>, Option<String>)> = rows
        .iter()
        .map(|r| (r.key.clone(), r.dates.clone(), r.title.clone()))
        .collect();
    let want = vec![
        (
            format!("http://example.org/about.html {}", d["C"]),
            vec!["20071001120100".to_string()],
            Some("About C".to_string()),
        ),
        (
            format!("http://www.example.org/index.html {}", d["B"]),
            vec!["20071003120000".into()],
            Some("Example B".into()),
        ),
        (
            format!("http://www.example.org/index.html {}", d["A"]),
            vec!["20071001120000".into()],
            Some("Example A".into()),
        ),
        (
            format!("http://www.example.org/news.html {}", d["D"]),
            vec!["20071001120200".into()],
            Some("News D".into()),
        ),
        (
            format!("http://www.example.org/news.html {}", d["E"]),
            vec!["20071002120200".into()],
            Some("News E".into()),
        ),
    ];
    let mut want_sorted = want.clone();
    want_sorted.sort_by(|a, b| {
        let ka = (
            url_key(a.0.split(' ').next().unwrap(), KeyStyle::Surt).unwrap(),
            a.0.split(' ').nth(1).unwrap().to_string(),
        );
        let kb = (
            url_key(b.0.split(' ').next().unwrap(), KeyStyle::Surt).unwrap(),
            b.0.split(' ').nth(1).unwrap().to_string(),
        );
        ka.cmp(&kb)
    });
    assert_eq!(got, want_sorted);
    let excluded: u64 = reports.iter().map(|r| r.excluded).sum();
    assert_eq!(excluded, 3, "index A 10-02 and 10-04, about C 10-02");
    let revisits: u64 = reports
        .iter()
        .map(|r| r.skipped.get("revisit").copied().unwrap_or(0))
        .sum();
    assert_eq!(revisits, 2);
}

/// Without an exclusion list the same five versions come out, each with every date
/// its captures had (revisit dates arrive later through add-dates).
#[test]
fn worked_example_without_exclusions_merges_dates() {
    let (rows, _) = import(&example_entries(), None);
    let d = digests();
    let a = rows.iter().find(|r| r.digest == d["A"]).unwrap();
    assert_eq!(
        a.key,
        format!("http://www.example.org/index.html {}", d["A"])
    );
    assert_eq!(
        a.dates,
        ["20071001120000", "20071002120000", "20071004120000"]
    );
    assert_eq!(a.filename, "crawl1-20071001.arc");
    let c = rows.iter().find(|r| r.digest == d["C"]).unwrap();
    assert_eq!(c.dates, ["20071001120100", "20071002120100"]);
    assert_eq!(rows.len(), 5);
    // Links resolved against the page URL, anchors kept; script and style are not text.
    assert!(
        a.outlinks
            .iter()
            .any(|l| l.url == "http://www.example.org/about.html"
                && l.anchor == "About the example organisation"),
        "{:?}",
        a.outlinks
    );
    assert!(
        a.text.contains("Welcome to the example organisation"),
        "{}",
        a.text
    );
    assert!(
        !a.text.contains("hidden") && !a.text.contains("color"),
        "{}",
        a.text
    );
    assert_eq!(a.charset.as_deref(), Some("UTF-8"));
}

/// Every readable corpus archive: the versions imported are exactly the distinct
/// (URL key, digest) pairs of its 2xx response and resource captures, computed here from
/// `records --digest` (resource records count as 200: they are stored content).
#[test]
fn corpus_import_has_every_version() {
    let expected = corpus().join("expected");
    let runs: Value =
        serde_json::from_str(&std::fs::read_to_string(expected.join("RUNS.json")).unwrap())
            .unwrap();
    let mut checked = 0;
    let mut failures = Vec::new();
    for (file, run) in runs.as_object().unwrap() {
        if run["warcio-index"]["failed"] != Value::Bool(false) {
            continue;
        }
        let path = corpus().join("real").join(file);
        let (jsonl, _) = records_of(
            &path,
            256 * 1024,
            RecordsOptions {
                digest: true,
                verify: false,
            },
        );
        let mut want = BTreeSet::new();
        for line in jsonl.lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            let t = v["warc-type"].as_str().unwrap_or("");
            let is_arc = v["format"] == "arc";
            let wanted = if is_arc {
                t == "response"
            } else {
                t == "response" || t == "resource"
            };
            if !wanted {
                continue;
            }
            let status = match v["http:status"].as_str() {
                Some(s) => s.parse::<u16>().ok(),
                None if t == "resource" => Some(200),
                None => None,
            };
            if !status.is_some_and(|s| (200..300).contains(&s)) {
                continue;
            }
            let Some(uri) = v["warc-target-uri"].as_str() else {
                continue;
            };
            // records writes spaces as %20 (warcio's quirk); import keeps the URI as stored.
            let Some(digest) = v["payload-digest"].as_str() else {
                continue;
            };
            let key = url_key(uri, KeyStyle::Surt).unwrap_or_else(|_| uri.to_string());
            want.insert((key, format!("sha1:{digest}")));
        }
        let entries = vec![ManifestEntry {
            path: path.clone(),
            collection: None,
            line: 1,
        }];
        let (rows, reports) = import(&entries, None);
        let got: BTreeSet<(String, String)> = rows
            .iter()
            .map(|r| {
                (
                    url_key(&r.url.replace(' ', "%20"), KeyStyle::Surt)
                        .unwrap_or_else(|_| r.urlkey.clone()),
                    r.digest.clone(),
                )
            })
            .collect();
        if got != want {
            let missing: Vec<_> = want.difference(&got).take(3).collect();
            let extra: Vec<_> = got.difference(&want).take(3).collect();
            failures.push(format!(
                "{file}: {} versions, want {}; missing {missing:?}; extra {extra:?}; report {:?}",
                got.len(),
                want.len(),
                reports[0]
            ));
        }
        checked += 1;
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} files differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked > 150, "{checked}");
}

fn warcdex(args: &[&std::ffi::OsStr]) -> (i32, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_warcdex"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A manifest naming a missing archive and a directory: the other
/// archives are imported and the segment written, and the run exits 1 (as `cdx` does);
/// with --strict it exits 1 and writes no segment.
#[test]
fn unreadable_archives_exit_1_and_strict_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let good = fixtures().join("example/crawl1-20071001.arc");
    let missing = dir.path().join("missing.warc.gz");
    let manifest = dir.path().join("manifest.txt");
    std::fs::write(
        &manifest,
        format!(
            "{}\n{}\n{}\n",
            good.display(),
            missing.display(),
            fixtures().display()
        ),
    )
    .unwrap();
    let seg = dir.path().join("seg");
    let (code, err) = warcdex(&["import".as_ref(), manifest.as_os_str(), seg.as_os_str()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains(&missing.display().to_string()), "{err}");
    assert!(
        err.contains("3 archives (2 unreadable, 0 damaged)"),
        "{err}"
    );
    let m: Value =
        serde_json::from_str(&std::fs::read_to_string(seg.join("segment.json")).unwrap()).unwrap();
    assert!(m["documents"].as_u64().unwrap() > 0, "{m}");
    let strict = dir.path().join("strict");
    let (code, err) = warcdex(&[
        "import".as_ref(),
        "--strict".as_ref(),
        manifest.as_os_str(),
        strict.as_os_str(),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(!strict.exists(), "{err}");
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 2, "manifest and seg only: {names:?}");
}

/// An I/O error on the manifest names it (here a directory, which
/// opens but cannot be read), and a malformed manifest line is named and capped.
#[test]
fn manifest_errors_name_the_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let seg = dir.path().join("seg");
    let (code, err) = warcdex(&["import".as_ref(), dir.path().as_os_str(), seg.as_os_str()]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!("manifest {}", dir.path().display())),
        "{err}"
    );
    let manifest = dir.path().join("m.txt");
    std::fs::write(&manifest, format!("a b {}\n", "c".repeat(10_000))).unwrap();
    let (code, err) = warcdex(&["import".as_ref(), manifest.as_os_str(), seg.as_os_str()]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!("manifest {}: line 1", manifest.display())),
        "{err}"
    );
    assert!(err.len() < 600, "{err}");
    assert!(!seg.exists());
}

/// `import` keeps at most `--memory` of parsed rows, spilling sorted runs: on
/// every corpus archive, `--memory 1` (768 KiB of rows, far less than the corpus's) gives
/// the same segment rows as the default budget, which holds them all.
#[test]
fn import_with_one_mebibyte_gives_the_in_memory_segment() {
    let dir = tempfile::tempdir().unwrap();
    let mut archives: Vec<_> = walk(&corpus().join("real"))
        .into_iter()
        .filter(|p| {
            let n = p.to_string_lossy();
            [".warc", ".warc.gz", ".arc", ".arc.gz"]
                .iter()
                .any(|e| n.ends_with(e))
        })
        .collect();
    archives.sort();
    assert!(archives.len() > 150, "{}", archives.len());
    let manifest = dir.path().join("manifest.txt");
    let lines: Vec<String> = archives.iter().map(|p| p.display().to_string()).collect();
    std::fs::write(&manifest, lines.join("\n") + "\n").unwrap();
    let rows_of = |memory: &str| {
        let seg = dir.path().join(format!("seg-{memory}"));
        let (_, err) = warcdex(&[
            "import".as_ref(),
            "--memory".as_ref(),
            memory.as_ref(),
            manifest.as_os_str(),
            seg.as_os_str(),
        ]);
        assert!(seg.join("segment.json").exists(), "{err}");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_warcdex"))
            .args(["segment-info".as_ref(), "--rows".as_ref(), seg.as_os_str()])
            .output()
            .unwrap();
        assert!(out.status.success());
        out.stdout
    };
    let in_memory = rows_of("256");
    let spilled = rows_of("1");
    assert!(
        in_memory.len() > 4 << 20,
        "the rows ({} bytes) must be several times the 768 KiB budget",
        in_memory.len()
    );
    assert!(in_memory == spilled, "the segments differ");
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// A row names its archive relative to the manifest's folder when it
/// lies inside it and by its absolute path otherwise, never by a path relative to the
/// working directory import ran in (a manifest line relative to it is read as given).
#[test]
fn rows_name_an_archive_outside_the_manifests_folder_by_its_absolute_path() {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap();
    let (lists, crawls) = (root.join("lists"), root.join("crawls"));
    std::fs::create_dir_all(&lists).unwrap();
    std::fs::create_dir_all(&crawls).unwrap();
    let example = fixtures().join("example");
    std::fs::copy(example.join("crawl1-20071001.arc"), crawls.join("a.arc")).unwrap();
    std::fs::copy(example.join("crawl3-20071003.arc"), lists.join("b.arc")).unwrap();
    // `crawls/a.arc` exists from the working directory (root), `b.arc` from the list's.
    std::fs::write(lists.join("manifest.txt"), "crawls/a.arc\nb.arc\n").unwrap();
    ok_in(&root, &["import", "lists/manifest.txt", "seg"]);
    let archives: BTreeSet<String> = ok_in(&root, &["segment-info", "--rows", "seg"])
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["archive"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let want: BTreeSet<String> = [crawls.join("a.arc").display().to_string(), "b.arc".into()]
        .into_iter()
        .collect();
    assert_eq!(archives, want);
}
