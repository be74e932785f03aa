//! `cdx -j N` with one gzip WARC cut into pieces (`src/cdx_writer/pieces.rs`): lines,
//! counts and messages equal one thread's for every gzip WARC in `fixtures/`, clean or
//! damaged, and for a file made to mislead the cut (a member inside a record whose data
//! begin with `WARC/`).

use std::io::Write;
use std::path::{Path, PathBuf};

use flate2::{write::GzEncoder, Compression};
use warcdex::cdx_writer::run::{run_cdx, RunOptions, RunReport};
use warcdex::cdx_writer::CdxOptions;
use warcdex_cdx::CdxFormat;

use crate::util::{fixtures, warc_record};

/// What a run gives that must not depend on the threads: the output, the counts and
/// the messages.
fn run(
    files: &[PathBuf],
    jobs: usize,
    format: CdxFormat,
) -> (String, String, Vec<String>, RunReport) {
    let opts = RunOptions {
        cdx: CdxOptions {
            format,
            ..CdxOptions::default()
        },
        jobs,
        // Every file with two records or more is cut.
        min_piece: 1,
        ..RunOptions::default()
    };
    let mut out = Vec::new();
    let mut messages = Vec::new();
    let report = run_cdx(files, &opts, &mut out, &(), &mut |m| {
        messages.push(m.to_string())
    })
    .expect("in-memory output");
    let counts = format!(
        "files {} unopened {} damaged {} {:?}",
        report.files, report.unopened, report.damaged, report.total
    );
    (String::from_utf8(out).unwrap(), counts, messages, report)
}

fn gzip_warcs(dir: &Path, found: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            gzip_warcs(&p, found);
        } else if p.to_string_lossy().ends_with(".warc.gz") {
            found.push(p);
        }
    }
}

#[test]
fn pieces_give_one_threads_output_for_every_fixture() {
    let mut files = Vec::new();
    gzip_warcs(&fixtures(), &mut files);
    files.sort();
    assert!(files.len() > 50, "{} gzip WARCs", files.len());
    let (mut cut, mut redone, mut clean_cuts) = (0, 0, 0);
    for f in &files {
        for format in [CdxFormat::Cdx11, CdxFormat::Cdxj] {
            let one = run(std::slice::from_ref(f), 1, format);
            assert_eq!(one.3.pieces, 0);
            for jobs in [2, 3] {
                let many = run(std::slice::from_ref(f), jobs, format);
                let name = f.display();
                assert_eq!(one.0, many.0, "{name}: lines with -j {jobs}");
                assert_eq!(one.1, many.1, "{name}: counts with -j {jobs}");
                assert_eq!(one.2, many.2, "{name}: messages with -j {jobs}");
                cut += (many.3.pieces > 0) as u32;
                redone += (many.3.pieces_redone > 0) as u32;
                clean_cuts += (many.3.pieces > 0 && many.3.pieces_redone == 0) as u32;
            }
        }
    }
    // Both ways out of a cut are taken: pieces that read cleanly, and damaged files
    // whose rest is read again.
    assert!(cut > 100, "{cut} runs cut a file");
    assert!(clean_cuts > 50, "{clean_cuts} runs used every piece");
    assert!(redone > 5, "{redone} runs read a file's rest again");
}

#[test]
fn several_files_cut_keep_argument_order() {
    let mut files = Vec::new();
    gzip_warcs(&fixtures().join("corpus"), &mut files);
    files.sort();
    let some: Vec<PathBuf> = files.into_iter().rev().take(3).collect();
    let one = run(&some, 1, CdxFormat::Cdx11);
    let many = run(&some, 2, CdxFormat::Cdx11);
    assert!(many.3.pieces > 0);
    assert_eq!((one.0, one.1, one.2), (many.0, many.1, many.2));
}

fn member(data: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

#[test]
fn a_member_that_only_looks_like_a_record_start_is_read_again() {
    // Record 2's block is stored in two members; the second one's data begin with
    // "WARC/" (text inside the page), so the cut may take it for a record's start.
    let mut file = Vec::new();
    for i in 0..6 {
        let body = format!("WARC/1.0 is quoted on page {i} {}", "x".repeat(3000));
        let rec = warc_record(&format!("http://example.com/{i}"), &body, "");
        if i == 2 {
            let at = rec.windows(5).rposition(|w| w == b"WARC/").unwrap();
            file.extend(member(&rec[..at]));
            file.extend(member(&rec[at..]));
        } else {
            file.extend(member(&rec));
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("misleading.warc.gz");
    std::fs::write(&path, &file).unwrap();
    let files = [path];
    let one = run(&files, 1, CdxFormat::Cdx11);
    // Like warcio, the reader takes the member for a record too (an anomaly, and no
    // line for its headless record), which one thread and several must agree on.
    assert_eq!(one.0.lines().count(), 6, "{}\n{:?}", one.0, one.2);
    assert!(one.2.iter().any(|m| m.contains("content-length-mismatch")));
    let mut redone = 0;
    for jobs in [2, 3, 4] {
        let many = run(&files, jobs, CdxFormat::Cdx11);
        assert!(many.3.pieces > 0);
        redone += many.3.pieces_redone;
        assert_eq!(
            (&one.0, &one.1, &one.2),
            (&many.0, &many.1, &many.2),
            "-j {jobs}"
        );
    }
    assert!(redone > 0, "no cut fell on the misleading member");
}
