//! Every URL key that pywb 2.10 (and cdxj-indexer 1.5) wrote for the real
//! archives in `fixtures/corpus` must come out of `surt_key` / `url_key`
//! byte for byte.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use warcdex_cdx::surt::{surt_key, url_key, KeyStyle};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/corpus");

/// (file under `expected/`, URL) pairs whose key is provably not produced by
/// the canonicalizer. Each must still be checked: the URL must be refused by
/// `surt_key` and the key must equal the URL.
///
/// cdxj-indexer 1.5 catches surt's exception and falls back to the raw URL
/// as the key; pywb's own `cdx-indexer` aborts on these very files with
/// "UrlCanonicalizeException: Invalid Url" (see expected/README.md), because
/// the text after "http://host:" is not a numeric port.
const REFUSED_KEPT_AS_KEY: &[(&str, &str)] = &[
    (
        "cdxj-indexer/cdx-writer/small_warcs/bad_url_with_colon_1.arc.gz.cdxj",
        "http://JavaScript:Wtop('www.pick2hand.com/index2.html')",
    ),
    (
        "cdxj-indexer/cdx-writer/small_warcs/bad_url_with_colon_2.arc.gz.cdxj",
        "http://mhtml:d.hatena.ne.jp/images/top/greenpower_logo.gif",
    ),
];

/// Files in `real/pywb-2.10.0/cdx/` whose keys pywb's canonicalizer did not
/// make: `example-arc-test.cdx` has hand-edited keys
/// (`com,example,test,arc)/`), `post-test.cdx` was made with `-p`, which
/// appends `__wb_method=post&...` to the key.
const NOT_CANONICALIZER_OUTPUT: &[&str] = &["example-arc-test.cdx", "post-test.cdx"];

#[derive(Default)]
struct Tally {
    checked: usize,
    allowed: usize,
    mismatches: Vec<String>,
}

impl Tally {
    fn check(&mut self, file: &str, line: usize, url: &str, key: &str, style: KeyStyle) {
        self.checked += 1;
        let got = url_key(url, style);
        if got.as_deref() == Ok(key) {
            return;
        }
        if REFUSED_KEPT_AS_KEY.contains(&(file, url)) && got.is_err() && key == url {
            self.allowed += 1;
            return;
        }
        self.mismatches.push(format!(
            "{file}:{line}: url {url:?}\n    want {key:?}\n    got  {got:?}"
        ));
    }

    fn assert_clean(&self, what: &str) {
        eprintln!(
            "{what}: {} URLs checked, {} allow-listed, {} mismatches",
            self.checked,
            self.allowed,
            self.mismatches.len()
        );
        for m in self.mismatches.iter().take(20) {
            eprintln!("{m}");
        }
        assert!(self.mismatches.is_empty(), "{what}: keys differ from pywb");
    }
}

/// All files under `dir` (recursively) whose name ends with `ext`, sorted.
fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = fs::read_dir(&d).unwrap_or_else(|e| {
            panic!(
                "cannot read {} (fixtures/corpus is part of the repository): {e}",
                d.display()
            )
        });
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.to_string_lossy().ends_with(ext) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn read(path: &Path) -> String {
    let bytes = fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    String::from_utf8(bytes).unwrap_or_else(|e| panic!("{}: not UTF-8: {e}", path.display()))
}

/// Checks a classic 11-field CDX (` CDX N b a m s k r M S V g`). The URL is
/// everything between the timestamp and the last 8 fields, since a URL may
/// contain spaces (pywb writes it as found in the ARC/WARC header).
fn check_cdx11(tally: &mut Tally, path: &Path, name: &str, style: KeyStyle) {
    for (i, line) in read(path).split('\n').enumerate() {
        if line.is_empty() || line.starts_with(" CDX") {
            continue;
        }
        let fields: Vec<&str> = line.split(' ').collect();
        assert!(fields.len() >= 11, "{name}:{}: not an 11-field line", i + 1);
        let url = fields[2..fields.len() - 8].join(" ");
        tally.check(name, i + 1, &url, fields[0], style);
    }
}

/// Checks a CDXJ file: `key timestamp {json with "url"}`.
fn check_cdxj(tally: &mut Tally, path: &Path, name: &str) {
    for (i, line) in read(path).split('\n').enumerate() {
        if line.is_empty() {
            continue;
        }
        let mut parts = line.splitn(3, ' ');
        let (key, _ts, json) = (parts.next().unwrap(), parts.next(), parts.next());
        let url = json
            .and_then(|j| common::json_field(j, "url"))
            .flatten()
            .unwrap_or_else(|| panic!("{name}:{}: no JSON \"url\"", i + 1));
        tally.check(name, i + 1, &url, key, KeyStyle::Surt);
    }
}

fn relative(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

#[test]
fn pywb_cdx_indexer_surt_keys() {
    let base = Path::new(CORPUS).join("expected");
    let files = files_with_ext(&base.join("pywb-cdx-indexer-cdx11-sorted"), ".cdx");
    // 185 archives; guards against a silently empty or truncated corpus.
    assert!(files.len() >= 185, "only {} .cdx files", files.len());
    let mut tally = Tally::default();
    for f in &files {
        check_cdx11(&mut tally, f, &relative(f, &base), KeyStyle::Surt);
    }
    assert!(tally.checked > 2000, "only {} URLs", tally.checked);
    tally.assert_clean("pywb cdx-indexer -s");
}

#[test]
fn cdxj_indexer_surt_keys() {
    let base = Path::new(CORPUS).join("expected");
    let files = files_with_ext(&base.join("cdxj-indexer"), ".cdxj");
    assert!(files.len() >= 185, "only {} .cdxj files", files.len());
    let mut tally = Tally::default();
    for f in &files {
        check_cdxj(&mut tally, f, &relative(f, &base));
    }
    assert!(tally.checked > 2000, "only {} URLs", tally.checked);
    assert_eq!(
        tally.allowed,
        REFUSED_KEPT_AS_KEY.len(),
        "allow-list is stale"
    );
    tally.assert_clean("cdxj-indexer");
}

#[test]
fn pywb_shipped_cdx_keys() {
    let base = Path::new(CORPUS).join("real/pywb-2.10.0");
    let mut tally = Tally::default();
    let mut files = files_with_ext(&base.join("cdx"), ".cdx");
    files.retain(|f| !NOT_CANONICALIZER_OUTPUT.iter().any(|n| f.ends_with(n)));
    assert!(files.len() >= 6, "only {} .cdx files", files.len());
    for f in &files {
        check_cdx11(&mut tally, f, &relative(f, &base), KeyStyle::Surt);
    }
    for f in files_with_ext(&base.join("cdx"), ".cdxj") {
        check_cdxj(&mut tally, &f, &relative(&f, &base));
    }
    assert!(tally.checked > 190, "only {} URLs", tally.checked);
    tally.assert_clean("pywb shipped cdx");
}

#[test]
fn pywb_non_surt_keys() {
    let base = Path::new(CORPUS).join("real/pywb-2.10.0");
    let path = base.join("non-surt-cdx/example-non-surt.cdx");
    let mut tally = Tally::default();
    check_cdx11(&mut tally, &path, "example-non-surt.cdx", KeyStyle::Url);
    assert!(tally.checked >= 3, "only {} URLs", tally.checked);
    tally.assert_clean("pywb cdx-indexer -u");
}

/// The public surt_key and the Url style agree on every corpus URL: the Url
/// key is the SURT key with its host part un-reversed.
#[test]
fn url_style_matches_surt_style() {
    let base = Path::new(CORPUS).join("expected");
    let mut n = 0;
    for f in files_with_ext(&base.join("cdxj-indexer"), ".cdxj") {
        for line in read(&f).lines() {
            let Some(url) = line
                .splitn(3, ' ')
                .nth(2)
                .and_then(|j| common::json_field(j, "url"))
                .flatten()
            else {
                continue;
            };
            let (Ok(s), Ok(u)) = (surt_key(&url), url_key(&url, KeyStyle::Url)) else {
                continue;
            };
            n += 1;
            if let Some((host, rest)) = s.split_once(")/") {
                let unrev: Vec<&str> = host.rsplit(',').collect();
                assert_eq!(u, format!("{}/{rest}", unrev.join(".")), "{url}");
            } else {
                assert_eq!(u, s, "{url}");
            }
        }
    }
    assert!(n > 2000);
}
