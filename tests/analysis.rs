//! Words a researcher types find their pages: a Chinese word inside
//! a title written without spaces, and French words typed without their accents. Real
//! pages of the corpus, imported and indexed as `import` and `index` do; and a page sent
//! Brotli-compressed.

use std::path::Path;

use warcdex::import::manifest::ManifestEntry;
use warcdex::import::{import_archives, ImportOptions};
use warcdex::search::{SearchIndex, SearchRequest};

fn index_of(dir: &Path, archives: &[&str]) -> SearchIndex {
    crate::util::corpus_search_index(dir, archives)
}

fn titles(index: &SearchIndex, q: &str) -> Vec<String> {
    let r = index
        .search(&SearchRequest {
            query: q.into(),
            hits_per_site: 0,
            ..SearchRequest::default()
        })
        .unwrap_or_else(|e| panic!("{q}: {e}"));
    r.hits.into_iter().map(|h| h.title).collect()
}

#[test]
fn chinese_words_and_unaccented_words_find_their_pages() {
    let dir = tempfile::tempdir().unwrap();
    let index = index_of(
        dir.path(),
        &[
            "resiliparse/warcfile.warc",
            "cdx-writer/small_warcs/alexa_charset_in_header.arc.gz",
        ],
    );
    // 卫生 ("health") inside 我国卫生与健康领域有了“基本法”.
    let health = titles(&index, "卫生");
    assert!(
        health.iter().any(|t| t.contains("我国卫生与健康领域")),
        "{health:?}"
    );
    // A longer word is the phrase of its bigrams; characters that are not adjacent in
    // the title are not a match.
    assert!(titles(&index, "卫生与健康")
        .iter()
        .any(|t| t.contains("卫生与健康")));
    assert!(!titles(&index, "卫康")
        .iter()
        .any(|t| t.contains("卫生与健康")));
    // "Cinéma d'action (AlloCiné TV)", typed without its accents, and with them.
    for q in ["cinema allocine", "Cinéma AlloCiné"] {
        let found = titles(&index, q);
        assert!(
            found.iter().any(|t| t.contains("AlloCiné")),
            "{q}: {found:?}"
        );
    }
}

/// Item 3: a page sent with `Content-Encoding: br` (wget asked for it) is decoded before
/// parsing, so its words are found.
#[test]
fn a_brotli_page_is_found_by_its_words() {
    let dir = tempfile::tempdir().unwrap();
    let index = index_of(
        dir.path(),
        &["webarchive-discovery/compression/transfer_compression_brotli.warc.gz"],
    );
    assert_eq!(
        titles(&index, "extremely simple webpage brotli"),
        ["Simple page"]
    );
}

/// The PDFs of `aut/warc/example.pdf.warc.gz` are found by their words,
/// with their title, and the import counts what each PDF gave.
#[test]
fn pdf_captures_are_found_by_their_words() {
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/corpus/real");
    let entries = [ManifestEntry {
        path: real.join("aut/warc/example.pdf.warc.gz"),
        collection: None,
        line: 1,
    }];
    let (_, reports) =
        import_archives(&entries, None, &ImportOptions::default(), &|_| {}, &|_| {}).unwrap();
    assert_eq!(reports[0].pdf.get("text"), Some(&2), "{:?}", reports[0].pdf);
    assert_eq!(reports[0].parse_failures, 0);

    let dir = tempfile::tempdir().unwrap();
    let index = index_of(dir.path(), &["aut/warc/example.pdf.warc.gz"]);
    let r = index
        .search(&SearchRequest {
            query: "Deschamps type:application/pdf".into(),
            hits_per_site: 0,
            ..SearchRequest::default()
        })
        .unwrap();
    // Both PDFs name the author; the paper has a title in its information dictionary.
    assert_eq!(r.total, 2);
    let paper = r
        .hits
        .iter()
        .find(|h| h.url.contains("cost-analysis.pdf"))
        .expect("the paper is found");
    assert_eq!(
        paper.title,
        "The Cost of a WARC: Analyzing Web Archives in the Cloud"
    );
    assert!(
        paper.snippet.text.contains("Deschamps"),
        "{:?}",
        paper.snippet
    );
    // The presentation, which has no title, by a word of its text.
    assert_eq!(
        titles(&index, "Urbana-Champaign type:application/pdf").len(),
        1
    );
}
