use super::*;
use std::io::Write;

fn file_of(content: &[u8]) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(content).unwrap();
    f.flush().unwrap();
    f
}

fn collect(it: impl Iterator<Item = io::Result<Vec<u8>>>) -> Vec<String> {
    it.map(|l| String::from_utf8(l.unwrap()).unwrap()).collect()
}

/// What the lookup must return, computed by reading every line.
fn expected_from(lines: &[&str], key: &str) -> Vec<String> {
    lines
        .iter()
        .filter(|l| l.as_bytes() >= key.as_bytes())
        .map(|l| l.to_string())
        .collect()
}

fn expected_before(lines: &[&str], key: &str) -> Vec<String> {
    let mut v: Vec<String> = lines
        .iter()
        .filter(|l| l.as_bytes() < key.as_bytes())
        .map(|l| l.to_string())
        .collect();
    v.reverse();
    v
}

/// The captures of one URL key, as the capture view reads them.
fn captures(cdx: &SortedCdx, urlkey: &str) -> Vec<String> {
    let key = format!("{urlkey} ");
    let mut out = Vec::new();
    for line in cdx.lines_from(key.as_bytes()).unwrap() {
        let line = String::from_utf8(line.unwrap()).unwrap();
        if !line.starts_with(&key) {
            break;
        }
        out.push(line);
    }
    out
}

const LEGEND: &str = " CDX N b a m s k r M S V g\n";

fn sample() -> Vec<&'static str> {
    vec![
        "com,example)/ 20200101000000 http://example.com/ text/html 200 AAA - - 10 0 a.warc.gz",
        "com,example)/ 20210101000000 http://example.com/ text/html 200 BBB - - 10 10 a.warc.gz",
        "com,example)/page 20200101000000 http://example.com/page text/html 200 CCC - - 10 20 a.warc.gz",
        "com,example)/page 20200202000000 http://example.com/page text/html 200 CCC - - 10 30 a.warc.gz",
        "com,example)/page 20200303000000 http://example.com/page warc/revisit - CCC - - 10 40 a.warc.gz",
        "com,example)/page2 20200101000000 http://example.com/page2 text/html 200 DDD - - 10 50 a.warc.gz",
        "com,example)/page?a=1 20200101000000 http://example.com/page?a=1 text/html 200 EEE - - 10 60 a.warc.gz",
        "org,example)/ 20200101000000 http://example.org/ text/html 301 FFF http://example.org/x - 10 70 a.warc.gz",
    ]
}

fn keys_to_try(lines: &[&str]) -> Vec<String> {
    let mut keys = vec![
        String::new(),
        " ".into(),
        "a".into(),
        "com,example)/".into(),
        "com,example)/ ".into(),
        "com,example)/page ".into(),
        "com,example)/page".into(),
        "com,example)/page2 ".into(),
        "com,example)/pagf".into(),
        "org".into(),
        "zzz".into(),
        "\u{7f}".into(),
    ];
    for l in lines {
        keys.push(l.to_string());
        keys.push(format!("{l}!"));
        let cut = l.len() / 2;
        keys.push(l[..cut].to_string());
    }
    keys
}

fn check_all(content: &str, lines: &[&str]) {
    let f = file_of(content.as_bytes());
    let cdx = SortedCdx::open(f.path()).unwrap();
    for key in keys_to_try(lines) {
        assert_eq!(
            collect(cdx.lines_from(key.as_bytes()).unwrap()),
            expected_from(lines, &key),
            "from {key:?} in {content:?}"
        );
        assert_eq!(
            collect(cdx.lines_before(key.as_bytes()).unwrap()),
            expected_before(lines, &key),
            "before {key:?} in {content:?}"
        );
    }
}

#[test]
fn every_key_with_and_without_legend_and_final_newline() {
    let lines = sample();
    let body = lines.join("\n");
    check_all(&format!("{LEGEND}{body}\n"), &lines);
    check_all(&format!("{LEGEND}{body}"), &lines);
    check_all(&format!("{body}\n"), &lines);
    check_all(&body, &lines);
}

#[test]
fn captures_of_a_key_that_prefixes_others() {
    let lines = sample();
    let f = file_of(format!("{LEGEND}{}\n", lines.join("\n")).as_bytes());
    let cdx = SortedCdx::open(f.path()).unwrap();
    let page = captures(&cdx, "com,example)/page");
    assert_eq!(page.len(), 3);
    assert!(page.iter().all(|l| l.starts_with("com,example)/page ")));
    // First and last lines of the file.
    assert_eq!(captures(&cdx, "com,example)/").len(), 2);
    assert_eq!(captures(&cdx, "org,example)/").len(), 1);
    assert_eq!(captures(&cdx, "com,example)/page?a=1").len(), 1);
    assert!(captures(&cdx, "com,example)/pag").is_empty());
    assert!(captures(&cdx, "net,example)/").is_empty());
}

#[test]
fn empty_legend_only_and_one_line() {
    for content in ["", LEGEND, " CDX N b a m s k r M S V g"] {
        let f = file_of(content.as_bytes());
        let cdx = SortedCdx::open(f.path()).unwrap();
        assert!(
            collect(cdx.lines_from(b"").unwrap()).is_empty(),
            "{content:?}"
        );
        assert!(collect(cdx.lines_before(b"\xff").unwrap()).is_empty());
        assert!(captures(&cdx, "com,example)/").is_empty());
    }
    let one = "com,example)/ 20200101000000 http://example.com/ - - - - - 1 0 a";
    check_all(one, &[one]);
    check_all(&format!("{one}\n"), &[one]);
    check_all(&format!("{LEGEND}{one}\n"), &[one]);
}

#[test]
fn a_key_shared_across_the_midpoint_of_a_large_file() {
    // Thousands of lines of one key around the middle, so probes land inside the run.
    let mut owned = Vec::new();
    for i in 0..3000 {
        owned.push(format!("com,a)/x{i:05} 2020 http://a.com/ - - - - - 1 0 f"));
    }
    for i in 0..5000 {
        owned.push(format!("com,b)/ {i:014} http://b.com/ - - - - - 1 0 f"));
    }
    for i in 0..3000 {
        owned.push(format!("com,c)/y{i:05} 2020 http://c.com/ - - - - - 1 0 f"));
    }
    let lines: Vec<&str> = owned.iter().map(String::as_str).collect();
    let f = file_of(format!("{LEGEND}{}\n", lines.join("\n")).as_bytes());
    let cdx = SortedCdx::open(f.path()).unwrap();
    let b = captures(&cdx, "com,b)/");
    assert_eq!(b.len(), 5000);
    assert_eq!(b[0], lines[3000]);
    assert_eq!(b[4999], lines[7999]);
    for key in [
        "com,a)/x01500 ",
        "com,c)/y00000",
        "com,b)/ 00000000002500",
        "com,c)/z",
    ] {
        assert_eq!(
            collect(cdx.lines_from(key.as_bytes()).unwrap()),
            expected_from(&lines, key)
        );
        assert_eq!(
            collect(cdx.lines_before(key.as_bytes()).unwrap()),
            expected_before(&lines, key)
        );
    }
}

#[test]
fn varied_line_lengths_across_chunks() {
    // Lines of very different lengths, so chunk borders fall everywhere.
    let mut owned = Vec::new();
    for i in 0..400u32 {
        let pad = "p".repeat(((i * 7919) % 3000) as usize);
        owned.push(format!("k{i:04} {pad}"));
    }
    let lines: Vec<&str> = owned.iter().map(String::as_str).collect();
    let f = file_of(format!("{}\n", lines.join("\n")).as_bytes());
    let cdx = SortedCdx::open(f.path()).unwrap();
    for i in (0..400).step_by(37) {
        let key = format!("k{i:04}");
        assert_eq!(
            collect(cdx.lines_from(key.as_bytes()).unwrap()),
            expected_from(&lines, &key)
        );
        assert_eq!(
            collect(cdx.lines_before(key.as_bytes()).unwrap()),
            expected_before(&lines, &key)
        );
    }
}

#[test]
fn an_overlong_line_is_an_error_naming_file_and_offset() {
    let long = format!("b {}", "x".repeat(MAX_LINE + 10));
    let content = format!("a 1\n{long}\nc 1\n");
    let f = file_of(content.as_bytes());
    let cdx = SortedCdx::open(f.path()).unwrap();
    let name = f.path().display().to_string();
    // The binary search may probe the long line itself, or the iteration reaches it.
    let first_error = |r: io::Result<Vec<io::Result<Vec<u8>>>>| match r {
        Err(e) => e,
        Ok(lines) => lines.into_iter().find_map(Result::err).expect("an error"),
    };
    for key in [&b"a"[..], b"b", b"c"] {
        let from = cdx.lines_from(key).map(|it| it.collect::<Vec<_>>());
        let before = cdx.lines_before(b"d").map(|it| it.collect::<Vec<_>>());
        if key != b"c" {
            let msg = first_error(from).to_string();
            assert!(msg.contains(&name) && msg.contains("offset 4"), "{msg}");
        }
        let msg = first_error(before).to_string();
        assert!(msg.contains(&name) && msg.contains("longer than"), "{msg}");
    }
    // Iterators end after their error.
    if let Ok(mut it) = cdx.lines_from(b"a") {
        while let Some(Ok(_)) = it.next() {}
        assert!(it.next().is_none());
    }
}

#[test]
fn open_names_a_missing_file() {
    let err = SortedCdx::open(Path::new("/nonexistent/all.cdx")).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::NotFound);
    assert!(err.to_string().contains("/nonexistent/all.cdx"));
}

#[test]
fn random_files_against_a_scan() {
    // A fixed-seed generator (xorshift), so a failure reproduces.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let word = |next: &mut dyn FnMut(u64) -> u64| -> String {
        let len = 1 + next(12) as usize;
        (0..len)
            .map(|_| b"ab )/ "[next(6) as usize] as char)
            .collect()
    };
    for _ in 0..200 {
        let count = next(60) as usize;
        let mut owned: Vec<String> = (0..count)
            .map(|_| {
                let w = word(&mut next);
                // Some lines long enough to cross several probe reads.
                if next(10) == 0 {
                    format!("{w}{}", "z".repeat(next(9000) as usize))
                } else {
                    w
                }
            })
            .filter(|w| !w.starts_with(" CDX"))
            .collect();
        owned.sort();
        let lines: Vec<&str> = owned.iter().map(String::as_str).collect();
        let legend = if next(2) == 0 { LEGEND } else { "" };
        let body = if lines.is_empty() {
            String::new()
        } else {
            format!("{}\n", lines.join("\n"))
        };
        let content = format!("{legend}{body}");
        let f = file_of(content.as_bytes());
        let cdx = SortedCdx::open(f.path()).unwrap();
        for _ in 0..20 {
            let key = word(&mut next);
            assert_eq!(
                collect(cdx.lines_from(key.as_bytes()).unwrap()),
                expected_from(&lines, &key)
            );
            assert_eq!(
                collect(cdx.lines_before(key.as_bytes()).unwrap()),
                expected_before(&lines, &key)
            );
        }
    }
}
