//! `warcdex cdx` on the small fixtures (good and damaged archives): the CDX and CDXJ
//! are pinned by snapshots beside each fixture, and the command line reports problems
//! with file and offset and sets its exit code as documented.

use std::path::Path;

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
    crate::util::run_warcdex(args)
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

/// The exit status, stdout and stderr of `warcdex import MANIFEST SEGMENT` over `archives`
/// (plus `extra` flags), in `dir`.
fn import(dir: &Path, archives: &[&Path], extra: &[&str]) -> (i32, String, String) {
    let manifest = dir.join("manifest.txt");
    let lines: String = archives
        .iter()
        .map(|a| format!("{}\n", a.display()))
        .collect();
    std::fs::write(&manifest, lines).unwrap();
    let seg = dir.join(format!("seg-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&seg);
    let mut args = vec!["import"];
    args.extend_from_slice(extra);
    let (m, sg) = (manifest.to_string_lossy(), seg.to_string_lossy());
    args.push(&m);
    args.push(&sg);
    let r = warcdex(&args);
    let _ = std::fs::remove_dir_all(&seg);
    r
}

/// A text file named like a gzip WARC was read as an ARC record dated
/// 2999. It is refused by `cdx`, `records` and `import` with its name, the offset and its
/// first bytes (escaped, and in hex), counted as unreadable, and the run exits 1; so is
/// the gzip of one. The good archive beside it is still indexed.
#[test]
fn a_file_that_is_no_archive_is_refused_by_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("x.warc.gz");
    std::fs::write(
        &text,
        "This is a plain text file, not an archive at all.\nSecond line.\n",
    )
    .unwrap();
    let gz = dir.path().join("y.warc.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut e, b"\n\x00\x01\x02 binary, not WARC/1.0\n").unwrap();
    std::fs::write(&gz, e.finish().unwrap()).unwrap();
    let good = fixtures().join("warc/example.warc.gz");
    for (bad, what) in [
        (
            &text,
            "the file starts with \"This is a plain text file, not a\" (hex 54 68 69 73 20",
        ),
        (&gz, "its gzip data starts with \"\\x00\\x01\\x02 binary"),
    ] {
        let name = bad.to_string_lossy().into_owned();
        let (code, out, err) = warcdex(&["cdx", &name, &good.to_string_lossy()]);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains(&format!("{name}: offset ")), "{err}");
        assert!(
            err.contains(&format!("not an ARC or WARC file: {what}")),
            "{err}"
        );
        assert!(err.contains("2 files (1 unreadable, 0 damaged)"), "{err}");
        assert!(
            !out.contains(" x.warc.gz") && !out.contains(" y.warc.gz") && !out.contains("2999"),
            "{out}"
        );
        assert!(
            out.lines().count() > 1,
            "the good archive is indexed: {out}"
        );
        let (code, out, err) = warcdex(&["records", &name]);
        assert_eq!((code, out.as_str()), (1, ""), "{err}");
        assert!(
            err.contains(&format!("not an ARC or WARC file: {what}")),
            "{err}"
        );
        assert!(err.contains("1 files (1 unreadable, 0 damaged)"), "{err}");
        let (code, _, err) = import(dir.path(), &[bad, &good], &[]);
        assert_eq!(code, 1, "{err}");
        assert!(
            err.contains(&format!("not an ARC or WARC file: {what}")),
            "{err}"
        );
        assert!(
            err.contains("2 archives (1 unreadable, 0 damaged)"),
            "{err}"
        );
    }
}

/// A copy of `src` in `dir` named `name`, changed by `edit`.
fn edited(dir: &Path, src: &str, name: &str, edit: impl FnOnce(&mut Vec<u8>)) -> String {
    let mut bytes = std::fs::read(fixtures().join(src)).unwrap();
    edit(&mut bytes);
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_string_lossy().into_owned()
}

/// One rule for the same damage in every command that reads archives.
/// A truncated `.warc.zst` (damage after the first record) exits 0 from `cdx`, `records`
/// and `import` alike (`import` gave 1) and 1 with `--strict`; a zstd file whose
/// dictionary does not load (nothing can be read) exits 1 from all three (`cdx` and
/// `records` gave 0); and a file with a damaged gzip member counts as damaged in the
/// summaries (`cdx` said "0 damaged").
#[test]
fn the_same_damage_gives_the_same_exit_status_in_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let truncated = edited(dir.path(), "zstd/example.warc.zst", "cut.warc.zst", |b| {
        b.truncate(b.len() - 40)
    });
    let no_dict = edited(
        dir.path(),
        "zstd/example-dict.warc.zst",
        "nodict.warc.zst",
        |b| b[16..80].fill(0xff),
    );
    // The second gzip member of example.warc.gz starts at 333 (1043 bytes): a byte of its
    // deflate data changed.
    let member = edited(dir.path(), "warc/example.warc.gz", "member.warc.gz", |b| {
        b[333 + 600] ^= 0x55
    });
    for (file, code, strict_code, summary) in [
        (&truncated, 0, 1, "(0 unreadable, 1 damaged)"),
        (&no_dict, 1, 1, "(1 unreadable, 0 damaged)"),
        (&member, 0, 1, "(0 unreadable, 1 damaged)"),
    ] {
        for strict in [false, true] {
            let want = if strict { strict_code } else { code };
            let flags: &[&str] = if strict { &["--strict"] } else { &[] };
            let mut args = vec!["cdx"];
            args.extend_from_slice(flags);
            args.push(file);
            let (got, _, err) = warcdex(&args);
            assert_eq!(got, want, "cdx {flags:?} {file}: {err}");
            assert!(err.contains(&format!("1 files {summary}")), "{err}");
            args[0] = "records";
            let (got, _, err) = warcdex(&args);
            assert_eq!(got, want, "records {flags:?} {file}: {err}");
            assert!(err.contains(&format!("1 files {summary}")), "{err}");
            let (got, _, err) = import(dir.path(), &[Path::new(file)], flags);
            assert_eq!(got, want, "import {flags:?} {file}: {err}");
            if !strict {
                assert!(err.contains(&format!("1 archives {summary}")), "{err}");
            }
        }
    }
}
