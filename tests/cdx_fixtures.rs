//! `warcdex cdx` on the small fixtures (good and damaged archives): the CDX and CDXJ
//! are pinned by snapshots beside each fixture, and the command line reports problems
//! with file and offset and sets its exit code as documented.

use std::path::Path;
use std::process::Command;

use warcdex::cdx_writer::CdxOptions;
use warcdex_cdx::CdxFormat;

use crate::cdx_corpus::cdx_of;
use crate::util::{check_snapshot, corpus, fixtures};

const FIXTURES: [&str; 25] = [
    "warc/example.warc.gz",
    "warc/wget-fextra.warc.gz",
    "warc/empty-gzip-members.warc.gz",
    "warc/continuation-lines.warc",
    "warc/lf-only-headers.warc.gz",
    "warc/block-crossing.warc.gz",
    "arc/example.arc.gz",
    "arc/spaces-in-url.arc.gz",
    "bad/nul-bytes-after-record.warc",
    "bad/trunc-mid-body.warc",
    "bad/content-length-short.warc",
    "bad/content-length-long.warc",
    "bad/content-length-long.warc.gz",
    "bad/garbage-between-records.warc",
    "bad/garbage-between-records.warc.gz",
    "bad/missing-trailing-newlines.warc",
    "bad/whole-file-gzip.warc.gz",
    "bad/clipped-gzip.warc.gz",
    "zstd/example.warc.zst",
    "zstd/example-dict.warc.zst",
    "zstd/example-zdict.warc.zst",
    "zstd/dupes.warc.zst",
    "zstd/dupes-dict.warc.zst",
    "zstd/dupes-zdict.warc.zst",
    "wacz/crawl.wacz",
];

#[test]
fn fixture_cdx_snapshots() {
    let mut failures = Vec::new();
    for f in FIXTURES {
        let path = fixtures().join(f);
        let cdx = cdx_of(&path, CdxOptions::default(), true);
        let cdxj = cdx_of(
            &path,
            CdxOptions {
                format: CdxFormat::Cdxj,
                ..CdxOptions::default()
            },
            false,
        );
        for (name, got) in [(format!("{f}.cdx"), cdx), (format!("{f}.cdxj"), cdxj)] {
            if let Err(e) = check_snapshot(&name, &got) {
                failures.push(e);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// pywb ships `post-test.cdx`, written by `cdx-indexer -s -p` over `post-test.warc.gz`.
#[test]
fn post_append_matches_pywb_sample() {
    let dir = corpus().join("real/pywb-2.10.0");
    let got = cdx_of(
        &dir.join("warcs/post-test.warc.gz"),
        CdxOptions {
            post_append: true,
            ..CdxOptions::default()
        },
        true,
    );
    let want = std::fs::read_to_string(dir.join("cdx/post-test.cdx")).expect("pywb sample");
    assert_eq!(got, want);
}

fn warcdex(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_warcdex"))
        .args(args)
        .output()
        .expect("run warcdex");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn fixture(p: &str) -> String {
    fixtures().join(p).to_string_lossy().into_owned()
}

#[test]
fn damaged_file_keeps_lines_names_offset_exits_zero() {
    let f = fixture("bad/clipped-gzip.warc.gz");
    let (code, out, err) = warcdex(&["cdx", &f]);
    assert_eq!(code, 0, "{err}");
    let want = std::fs::read_to_string(fixtures().join("bad/clipped-gzip.warc.gz.cdx")).unwrap();
    // Unsorted output has the same lines as the sorted snapshot.
    let mut lines: Vec<&str> = out.lines().collect();
    lines[1..].sort_unstable();
    assert_eq!(lines.join("\n") + "\n", want);
    assert!(err.contains(&f) && err.contains("offset "), "{err}");
    assert!(err.contains("1 damaged"), "{err}");
    let (code, _, _) = warcdex(&["cdx", "--strict", &f]);
    assert_eq!(code, 1);
}

#[test]
fn missing_file_fails_but_others_are_indexed() {
    let good = fixture("warc/example.warc.gz");
    let (code, out, err) = warcdex(&["cdx", "-j2", "/nonexistent/x.warc.gz", &good]);
    assert_eq!(code, 1);
    assert!(err.contains("/nonexistent/x.warc.gz"), "{err}");
    assert!(out.lines().count() > 1, "{out}");
}

#[test]
fn parallel_output_is_in_argument_order() {
    let files: Vec<String> = FIXTURES.iter().map(|f| fixture(f)).collect();
    let mut args = vec!["cdx", "-j1"];
    args.extend(files.iter().map(String::as_str));
    let (_, one, _) = warcdex(&args);
    args[1] = "-j3";
    let (_, three, _) = warcdex(&args);
    assert_eq!(one, three);
    args[1] = "--sort";
    let (_, sorted, _) = warcdex(&args);
    let mut want: Vec<&str> = one.lines().skip(1).collect();
    want.sort_unstable();
    assert_eq!(sorted.lines().skip(1).collect::<Vec<_>>(), want);
}

#[test]
fn output_file_is_written_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.cdx");
    let (code, stdout, _) = warcdex(&[
        "cdx",
        "-o",
        out.to_str().unwrap(),
        &fixture("warc/example.warc.gz"),
    ]);
    assert_eq!(code, 0);
    assert!(stdout.is_empty());
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("x.cdx")]);
    assert!(Path::new(&out).metadata().unwrap().len() > 0);
}
