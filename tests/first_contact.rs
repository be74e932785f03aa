//! Issue 56, "first contact": what a new user runs into in the first minutes — the
//! progress of `update` when stderr is a file, refusals printed once, filters given in
//! words, the capture list at `/web/*/URL`, a query starting with `-`, a directory or an
//! lz4 file given as an archive, one figure for a change, an unsorted `.aclj`.

use std::path::{Path, PathBuf};

use crate::util::run_warcdex;

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

/// Item 19: with stderr not a terminal, each stage prints a line when it starts (with
/// how much it has to do, in its own unit) and one when it ends (with its time), in order.
#[test]
fn update_without_a_terminal_prints_a_line_per_stage() {
    let tmp = tempfile::tempdir().unwrap();
    let (code, err) = update(&tmp.path().join("coll"), &example_archives());
    assert_eq!(code, 0, "{err}");
    let stages = ["identify", "cdx", "import", "index", "dates", "captures"];
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
    // The archives are counted as archives, their sizes in bytes (KiB, MiB…).
    assert!(
        err.contains("warcdex update: captures: 5 archives\n"),
        "{err}"
    );
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
