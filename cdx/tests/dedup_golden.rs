//! dedup-cdx and revisits on the worked examples of docs/formats.md §5 (README-dedup's 10
//! captures, and the five-archive collection of §5.1–5.2 and §5.5), for 9-field,
//! 11-field and CDXJ input, sorted and shuffled, one file and split in several.

use std::path::{Path, PathBuf};

use warcdex_cdx::dedup::{dedup_cdx, revisits, BrokenLine, Input, ListOptions, ListReport};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/dedup")
        .join(name)
}

fn read(name: &str) -> String {
    std::fs::read_to_string(fixture(name)).unwrap()
}

type ListFn = fn(
    &[Input],
    &mut dyn std::io::Write,
    &ListOptions,
    &mut dyn FnMut(&BrokenLine),
) -> std::io::Result<ListReport>;

fn run(f: ListFn, inputs: &[Input]) -> (String, ListReport, Vec<BrokenLine>) {
    let mut out = Vec::new();
    let mut broken = Vec::new();
    let r = f(inputs, &mut out, &ListOptions::default(), &mut |b| {
        broken.push(b.clone())
    })
    .unwrap();
    (String::from_utf8(out).unwrap(), r, broken)
}

/// Writes `lines` to a temporary file (the lists read files, as the CLI does).
fn temp_input(dir: &Path, name: &str, lines: &[&str]) -> Input {
    let p = dir.join(name);
    let mut text = lines.join("\n");
    text.push('\n');
    std::fs::write(&p, text).unwrap();
    Input::File(p)
}

/// The same lines three ways: as given, shuffled (reversed and interleaved), and split
/// over three files out of order. All must give `want`.
fn check_all_ways(f: ListFn, input: &str, want: &str) {
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<&str> = input.lines().collect();
    let (got, r, broken) = run(f, &[temp_input(dir.path(), "as-is", &lines)]);
    assert_eq!(got, want, "as given");
    assert!(broken.is_empty(), "{broken:?}");
    assert!(!r.external_sort, "sorted input streams");

    let mut shuffled: Vec<&str> = lines.iter().rev().copied().collect();
    shuffled.rotate_left(lines.len() / 3);
    let (got, r, _) = run(f, &[temp_input(dir.path(), "shuffled", &shuffled)]);
    assert_eq!(got, want, "shuffled");
    assert!(r.external_sort || lines.len() < 3);

    let parts: Vec<Input> = (0..3)
        .map(|k| {
            let part: Vec<&str> = lines.iter().skip(k).step_by(3).copied().collect();
            temp_input(dir.path(), &format!("part{k}"), &part)
        })
        .rev()
        .collect();
    let (got, _, _) = run(f, &parts);
    assert_eq!(got, want, "split over three files");
}

#[test]
fn readme_ten_captures_all_layouts() {
    let want = read("readme-10.dup");
    for input in ["readme-10.cdx9", "readme-10.cdx11", "readme-10.cdxj"] {
        check_all_ways(dedup_cdx, &read(input), &want);
        check_all_ways(revisits, &read(input), "");
    }
}

/// The dates of each version: its first capture plus its excluded ones (what add-dates
/// will give), as the README's table lists them.
#[test]
fn readme_dates_per_version() {
    let dup = read("readme-10.dup");
    let mut dates: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for line in read("readme-10.cdx9").lines() {
        let f: Vec<&str> = line.split(' ').collect();
        let key = format!("sha1:{}", f[5]);
        let excluded = dup.lines().any(|d| d.contains(&format!("{key} {}", f[1])));
        let entry = dates.entry(key).or_default();
        assert_eq!(
            excluded,
            !entry.is_empty(),
            "{line}: only the first capture is kept"
        );
        entry.push(f[1][..8].to_string());
    }
    let got: Vec<String> = dates
        .iter()
        .map(|(k, v)| format!("{k} {}", v.join(" ")))
        .collect();
    assert_eq!(
        got,
        [
            "sha1:abc123 20071001 20071002 20071005 20071006",
            "sha1:def456 20071003 20071004",
            "sha1:ghi789 20071007",
            "sha1:jkl012 20071008 20071009",
            "sha1:mno345 20071010",
        ]
    );
}

#[test]
fn worked_example_wayback_9_field() {
    check_all_ways(dedup_cdx, &read("worked.cdx9"), &read("worked-cdx9.dup"));
    check_all_ways(revisits, &read("worked.cdx9"), &read("worked-cdx9.rev"));
}

#[test]
fn worked_example_pywb_11_field_and_cdxj() {
    for input in ["worked.cdx11", "worked.cdxj"] {
        check_all_ways(dedup_cdx, &read(input), &read("worked-cdx11.dup"));
        check_all_ways(revisits, &read(input), &read("worked-cdx11.rev"));
    }
}

#[test]
fn broken_lines_are_reported_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines: Vec<String> = read("readme-10.cdx9").lines().map(String::from).collect();
    lines.insert(2, "onlytwo fields".into());
    lines.insert(
        5,
        "org,example)/ 2007 http://example.org/ text/html 200 abc - 0 f.arc".into(),
    );
    lines.insert(
        7,
        "org,example)/ 20071001120000 http://example.org/ text/html 200 - - 0 f.arc".into(),
    );
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let input = temp_input(dir.path(), "broken.cdx", &refs);
    let (got, r, broken) = run(dedup_cdx, std::slice::from_ref(&input));
    assert_eq!(got, read("readme-10.dup"));
    assert_eq!(r.broken, 3);
    let at: Vec<u64> = broken.iter().map(|b| b.line).collect();
    assert_eq!(at, [3, 6, 8]);
    assert!(broken[1].reason.contains("bad date"), "{:?}", broken[1]);
    assert!(broken[2].reason.contains("bad digest"), "{:?}", broken[2]);
    let strict = ListOptions {
        strict: true,
        ..ListOptions::default()
    };
    let e = dedup_cdx(&[input], &mut Vec::new(), &strict, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("line 3"), "{e}");
}
