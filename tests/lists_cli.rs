//! The list commands from the command line: stdin, `-o`, messages and exit codes.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::util::fixtures;

fn warcdex(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_warcdex"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run warcdex");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn dedup(name: &str) -> String {
    std::fs::read_to_string(fixtures().join("dedup").join(name)).unwrap()
}

#[test]
fn dedup_cdx_reads_unsorted_stdin() {
    let mut lines: Vec<String> = dedup("worked.cdx11").lines().map(String::from).collect();
    lines.reverse();
    let (code, out, err) = warcdex(&["dedup-cdx", "-"], &(lines.join("\n") + "\n"));
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, dedup("worked-cdx11.dup"));
    assert!(err.contains("11 lines read (1 legend, 0 broken"), "{err}");
}

#[test]
fn revisits_of_wayback_cdx_to_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("all.rev");
    let input = fixtures().join("dedup/worked.cdx9");
    let (code, _, err) = warcdex(
        &[
            "revisits",
            "-o",
            out.to_str().unwrap(),
            input.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        dedup("worked-cdx9.rev")
    );
}

#[test]
fn broken_line_named_with_file_and_line_strict_fails() {
    let text = dedup("readme-10.cdx9") + "too few fields\n";
    let (code, out, err) = warcdex(&["dedup-cdx", "-"], &text);
    assert_eq!(code, 0);
    assert_eq!(out, dedup("readme-10.dup"));
    assert!(err.contains("-: line 11: 3 fields"), "{err}");
    let (code, _, err) = warcdex(&["dedup-cdx", "--strict", "-"], &text);
    assert_eq!(code, 1, "{err}");
}

#[test]
fn sort_cdx_then_check() {
    let mut lines: Vec<String> = dedup("worked.cdx11").lines().map(String::from).collect();
    lines.swap(2, 7);
    let (code, sorted, _) = warcdex(&["sort-cdx", "-"], &(lines.join("\n") + "\n"));
    assert_eq!(code, 0);
    assert_eq!(sorted, dedup("worked.cdx11"));
    let (code, _, err) = warcdex(&["sort-cdx", "--check", "-"], &(lines.join("\n") + "\n"));
    assert_eq!(code, 1);
    assert!(err.contains("line 4"), "{err}");
}
