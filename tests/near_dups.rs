//! Issue 20: the near-duplicate fingerprint on real pages of the corpus
//! (`fixtures/corpus/real/`), and `near-dups`, `history` and search's collapsing on
//! generated captures.

use std::path::Path;

use warcdex::import::manifest::ManifestEntry;
use warcdex::import::{import_archives, ImportOptions};
use warcdex::simhash::{distance, fingerprint};

/// The texts of the corpus's HTML pages with at least `min` words, one per distinct text.
fn corpus_pages(min: usize) -> Vec<(String, String)> {
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/corpus/real");
    let entries: Vec<ManifestEntry> = [
        "wget-1.21.3-local/wget-1.21.3-crawl1.warc.gz",
        "wget-1.21.3-local/wget-1.21.3-uncompressed-00000.warc",
        "pywb-2.10.0/warcs/iana.warc.gz",
        "warcio-py/example.warc.gz",
    ]
    .iter()
    .enumerate()
    .map(|(i, p)| ManifestEntry {
        path: real.join(p),
        collection: None,
        line: i as u64 + 1,
    })
    .collect();
    let (rows, _) =
        import_archives(&entries, None, &ImportOptions::default(), &|_| {}, &|_| {}).unwrap();
    let mut pages: Vec<(String, String)> = rows
        .into_iter()
        .filter(|r| r.mime == "text/html" && r.text.split_whitespace().count() >= min)
        .map(|r| (r.url, r.text))
        .collect();
    pages.sort_by(|a, b| a.1.cmp(&b.1));
    pages.dedup_by(|a, b| a.1 == b.1);
    pages
}

/// The first `n` words of `text`, with word `at` replaced by `with`.
fn words_with(text: &str, n: usize, at: Option<usize>, with: &str) -> String {
    let mut w: Vec<&str> = text.split_whitespace().take(n).collect();
    if let Some(at) = at {
        w[at] = with;
    }
    w.join(" ")
}

#[test]
fn identical_text_is_zero_bits_apart() {
    let pages = corpus_pages(20);
    assert!(pages.len() >= 10, "{} pages", pages.len());
    for (_, text) in &pages {
        let a = fingerprint(text, None);
        let b = fingerprint(&text.clone(), None);
        assert_eq!(distance(a.hash, b.hash), 0);
        // Whitespace is not a word.
        let spaced = text.replace(' ', "  \n ");
        assert_eq!(distance(a.hash, fingerprint(&spaced, None).hash), 0);
    }
}

/// One word changed in a 500-word page: every position of a page, one in 25, on every
/// page of the corpus with 500 words or more.
#[test]
fn one_changed_word_in_500_is_at_most_3_bits() {
    let pages = corpus_pages(500);
    assert!(pages.len() >= 5, "{} pages of 500 words", pages.len());
    let mut worst = 0;
    let mut tried = 0;
    for (url, text) in &pages {
        let base = fingerprint(&words_with(text, 500, None, ""), None);
        for at in (0..500).step_by(25) {
            let changed = fingerprint(&words_with(text, 500, Some(at), "zeppelin"), None);
            let d = distance(base.hash, changed.hash);
            tried += 1;
            worst = worst.max(d);
            assert!(d <= 3, "{url}: word {at} changed: {d} bits");
        }
    }
    assert!(tried >= 100, "{tried}");
    eprintln!("one changed word in 500: worst {worst} bits over {tried} changes");
}

#[test]
fn unrelated_pages_are_10_bits_apart_or_more_on_average() {
    let pages = corpus_pages(50);
    let prints: Vec<u64> = pages
        .iter()
        .map(|(_, t)| fingerprint(t, None).hash)
        .collect();
    let mut sum = 0u64;
    let mut pairs = 0u64;
    for i in 0..prints.len() {
        for j in i + 1..prints.len() {
            sum += u64::from(distance(prints[i], prints[j]));
            pairs += 1;
        }
    }
    assert!(pairs >= 100, "{pairs} pairs");
    let mean = sum as f64 / pairs as f64;
    eprintln!("unrelated pages: {pairs} pairs, mean {mean:.1} bits");
    assert!(mean >= 10.0, "mean {mean}");
}
