//! The ranking (field weights, BM25, link boost) on a small documentation site shaped like the bench's: class
//! pages, each linking to an index page that names every class and so collects the most
//! link analysis; release notes whose titles differ by their numbers; a plain-text copy of
//! a page. Each test is a reader's query whose page must come first (docs/ranking.md).

use std::path::Path;

use warcdex::search::{SearchIndex, SearchRequest};
use warcdex::segment::{Outlink, SegmentRow};

use crate::util::{page_row, write_rows_index};

const SITE: &str = "http://docs.example.org/api/";

const CLASSES: [&str; 12] = [
    "ArrayList",
    "HashMap",
    "LinkedList",
    "TreeMap",
    "Vector",
    "Stack",
    "Deque",
    "Queue",
    "HashSet",
    "TreeSet",
    "WidgetMatrix",
    "Formatter",
];

fn linked(mut row: SegmentRow, targets: &[String]) -> SegmentRow {
    row.outlinks = (targets.iter())
        .map(|t| Outlink {
            url: t.clone(),
            anchor: String::new(),
        })
        .collect();
    row
}

/// The site: a page per class (its words, and links to the index and the overview),
/// the index (every class's name and words, linked from every page), release notes,
/// and a plain-text source copy of one page.
fn build_site(dir: &Path) {
    let hubs = vec![
        format!("{SITE}index-all.html"),
        format!("{SITE}overview.html"),
    ];
    let mut rows = Vec::new();
    let mut index_text = String::new();
    for c in CLASSES {
        // Each page links to the index, the overview and its own source (Sphinx's "Show
        // source"), so the source copy is linked as much as the page.
        let mut links = hubs.clone();
        links.push(format!("{SITE}_sources/{c}.rst.txt"));
        let text = format!(
            "Class {c}. {c} is a collection class of the example library. Methods of {c}: \
             add, remove, size, iterator. See also the overview."
        );
        // The index names every member of every class, as a Javadoc index does.
        for m in [
            "add", "remove", "size", "iterator", "get", "set", "clear", "contains",
        ] {
            index_text.push_str(&format!("{m}() - method in class {c}. "));
        }
        rows.push(linked(
            page_row(
                &format!("{SITE}{c}.html"),
                &format!("{c} (Example API)"),
                &text,
                "20240115030000",
            ),
            &links,
        ));
    }
    // Many more pages linking to the index and the overview, as every page of a site
    // does: the index collects the most link analysis.
    for i in 0..150 {
        rows.push(linked(
            page_row(
                &format!("{SITE}other/page{i}.html"),
                &format!("Page {i} (Example API)"),
                "Another page of the example library documentation.",
                "20240115030000",
            ),
            &hubs,
        ));
    }
    let mut every_page: Vec<String> = CLASSES.iter().map(|c| format!("{SITE}{c}.html")).collect();
    every_page.extend(hubs.clone());
    rows.push(linked(
        page_row(
            &hubs[0],
            "Index (Example API)",
            &index_text,
            "20240115030000",
        ),
        &every_page,
    ));
    rows.push(linked(
        page_row(
            &hubs[1],
            "Overview (Example API)",
            &format!("Overview of the collection classes: {}", CLASSES.join(", ")),
            "20240115030000",
        ),
        &every_page,
    ));
    for v in ["1.11", "1.11.1", "1.11.2"] {
        let url = format!("{SITE}releases/{v}.html");
        // The major releases have long notes, so their words weigh less in the text.
        let long = if v == "1.11" { 40 } else { 1 };
        let text = format!("Release notes of version {v}. ")
            + &"This release fixes bugs and adds features. ".repeat(long);
        rows.push(linked(
            page_row(
                &url,
                &format!("Example {v} release notes"),
                &text,
                "20240115030000",
            ),
            &hubs,
        ));
    }
    // The reStructuredText source of the WidgetMatrix page, served as text/plain.
    let mut source = page_row(
        &format!("{SITE}_sources/WidgetMatrix.rst.txt"),
        "",
        "WidgetMatrix is a collection class. Methods: add, remove, size, iterator.",
        "20240115030000",
    );
    source.mime = "text/plain".into();
    rows.push(source);
    write_rows_index(&dir.join("pindexes/site/main"), rows);
}

fn first_hits(index: &SearchIndex, query: &str, n: usize) -> Vec<String> {
    let req = SearchRequest {
        query: query.into(),
        hits: n,
        hits_per_site: 0,
        ..SearchRequest::default()
    };
    let r = index
        .search(&req)
        .unwrap_or_else(|e| panic!("{query}: {e}"));
    r.hits.into_iter().map(|h| h.url).collect()
}

fn site() -> (tempfile::TempDir, SearchIndex) {
    let dir = tempfile::tempdir().unwrap();
    build_site(dir.path());
    let index = SearchIndex::open(dir.path()).unwrap();
    (dir, index)
}

#[test]
fn a_class_named_comes_before_the_index_that_names_every_class() {
    let (_dir, index) = site();
    for c in CLASSES {
        let hits = first_hits(&index, c, 3);
        assert_eq!(hits[0], format!("{SITE}{c}.html"), "{c}: {hits:?}");
    }
    let hits = first_hits(&index, "widgetmatrix collection class", 3);
    assert_eq!(hits[0], format!("{SITE}WidgetMatrix.html"), "{hits:?}");
}

#[test]
fn the_title_with_the_words_in_order_comes_first() {
    let (_dir, index) = site();
    // The words are split at the dots: "1.11" is the phrase "1 11", in every title here,
    // but in the reader's order with "release notes" only in the first.
    for v in ["1.11", "1.11.2"] {
        let hits = first_hits(&index, &format!("{v} release notes"), 4);
        assert_eq!(hits[0], format!("{SITE}releases/{v}.html"), "{v}: {hits:?}");
    }
}

#[test]
fn the_html_page_comes_before_its_plain_text_source() {
    let (_dir, index) = site();
    let hits = first_hits(&index, "widgetmatrix collection methods", 5);
    assert_eq!(hits[0], format!("{SITE}WidgetMatrix.html"), "{hits:?}");
    assert!(
        hits.contains(&format!("{SITE}_sources/WidgetMatrix.rst.txt")),
        "{hits:?}"
    );
}

#[test]
fn a_long_query_finds_a_page_lacking_one_word_after_the_pages_with_all() {
    let (_dir, index) = site();
    // No page has "zeppelin": every class page has the other three words.
    let hits = first_hits(&index, "hashmap collection iterator zeppelin", 20);
    assert_eq!(hits[0], format!("{SITE}HashMap.html"), "{hits:?}");
    // All four words on the HashMap page and the index; three on the others.
    let all = first_hits(&index, "hashmap collection iterator methods", 20);
    assert_eq!(all[0], format!("{SITE}HashMap.html"), "{all:?}");
    let lacking = all
        .iter()
        .position(|u| u.ends_with("/Vector.html"))
        .unwrap();
    let index_page = all.iter().position(|u| u.ends_with("/index-all.html"));
    assert!(index_page.is_none_or(|i| i < lacking), "{all:?}");
    // Two words are not enough to lack one of: both are required first; no page holds
    // both, so the search is asked again with one (issue 61), and says so.
    let hits = first_hits(&index, "hashmap zeppelin", 5);
    assert_eq!(hits[0], format!("{SITE}HashMap.html"), "{hits:?}");
}

#[test]
fn words_with_punctuation_are_searched_as_words() {
    let (_dir, index) = site();
    for q in [
        "WidgetMatrix.add()",
        "widgetmatrix!",
        "(WidgetMatrix)",
        "size() - iterator",
    ] {
        let hits = first_hits(&index, q, 3);
        assert!(!hits.is_empty(), "{q}: no hit");
    }
    let hits = first_hits(&index, "api/WidgetMatrix.html", 3);
    assert_eq!(hits[0], format!("{SITE}WidgetMatrix.html"), "{hits:?}");
}
