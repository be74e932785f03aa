//! Paging never loses a hit or a date. A collection of three crawls in
//! two batches (`warcdex update` twice), with pages that change a little or a lot between
//! crawls, several sites and common words, paged at 3, 5, 10 and 100 hits a page, gives
//! the same hits with the same digests and dates, each once; and the web page offers a
//! next page whenever there is one.

use std::path::Path;

use warcdex::render::page::{render, PageRequest};
use warcdex::search::{NearDisplay, SearchIndex, SearchRequest, SearchResults};

use crate::util::Lcg;

const SYLLABLES: [&str; 16] = [
    "ka", "lo", "mi", "ren", "tor", "vex", "sul", "dri", "pa", "nem", "ost", "bru", "fi", "gal",
    "hu", "zer",
];

/// The common words every page has some of, each page a different number.
const COMMON: [&str; 4] = ["the", "archive", "news", "of"];

/// A page's text: 300 words from a vocabulary of made-up words, seeded by `seed`, with
/// `extra` more of the word "archive" in place of others (what moves its score).
fn text(seed: u64, extra: usize) -> Vec<String> {
    let mut rng = Lcg(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut words: Vec<String> = (0..300)
        .map(|_| match rng.below(12) {
            0..=3 => COMMON[rng.below(4) as usize].to_string(),
            _ => {
                let a = SYLLABLES[rng.below(16) as usize];
                let b = SYLLABLES[rng.below(16) as usize];
                format!("{a}{b}")
            }
        })
        .collect();
    for k in 0..extra {
        words[20 + 7 * k] = "archive".into();
    }
    words
}

/// The HTML of a page: a title, the text with `edition` as its date line, and links to
/// the site's front page and to the next page (so link analysis gives them boosts).
fn html(site: &str, page: usize, words: &[String], edition: &str) -> String {
    let next = (page + 1) % PAGES;
    format!(
        "<html><head><title>{site} page {page}</title></head><body>\
         <p>Edition {edition}</p><p>{}</p>\
         <a href=\"http://{site}/\">front</a> <a href=\"http://{site}/p{next}.html\">next</a>\
         </body></html>",
        words.join(" ")
    )
}

const SITES: [&str; 5] = [
    "alpha.example",
    "beta.example",
    "gamma.example",
    "delta.example",
    "epsilon.example",
];
const PAGES: usize = 8;

fn url(site: &str, page: usize) -> String {
    if page == 0 {
        format!("http://{site}/")
    } else {
        format!("http://{site}/p{page}.html")
    }
}

/// The captures of crawl `crawl` (1, 2 or 3). Each page, by `(site + page) % 5`: the same
/// in every crawl (revisits); a new edition line each crawl (near-identical versions);
/// the same with one or two more "archive" in crawl 3, or one fewer (near-identical, the
/// score moving up or down); rewritten in crawl 3; or in crawls 1–2 only (even pages) or
/// 2–3 only (odd). Crawl 3 also has a mirror of four alpha pages on another host.
fn crawl(crawl: usize) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let date = |n: usize| format!("2024-0{crawl}-10T06:{:02}:00Z", n % 60);
    for (s, site) in SITES.iter().enumerate() {
        for p in 0..PAGES {
            let seed = (s * 100 + p) as u64;
            let kind = (s + p) % 5;
            let (words, edition) = match kind {
                0 => (text(seed, 1), "one".to_string()),
                1 => (text(seed, 1), format!("number{crawl}")),
                2 => {
                    let extra = match (crawl, p % 2) {
                        (3, 0) => 3,
                        (3, _) => 0,
                        _ => 1,
                    };
                    (text(seed, extra), format!("number{crawl}"))
                }
                3 if crawl == 3 => (text(seed + 7777, 2), "rewritten".to_string()),
                3 => (text(seed, 2), "first".to_string()),
                _ => {
                    let present = if p % 2 == 0 { crawl <= 2 } else { crawl >= 2 };
                    if !present {
                        continue;
                    }
                    (text(seed, p % 3), format!("number{crawl}"))
                }
            };
            out.push((
                url(site, p),
                date(s * PAGES + p),
                html(site, p, &words, &edition),
            ));
        }
    }
    if crawl == 3 {
        for p in 0..4 {
            let seed = p as u64;
            let words = text(seed, 1);
            let edition = match p % 5 {
                0 => "one".to_string(),
                3 => "rewritten".to_string(),
                _ => "number3".to_string(),
            };
            let words = if p == 3 { text(seed + 7777, 2) } else { words };
            out.push((
                url("mirror.example", p),
                date(50 + p),
                html("alpha.example", p, &words, &edition),
            ));
        }
    }
    out
}

/// The collection: crawls 1 and 2 in a first `update`, crawl 3 in a second.
fn collection(dir: &Path) -> SearchIndex {
    let mut warcs = Vec::new();
    for c in 1..=3 {
        let w = dir.join(format!("crawl{c}.warc"));
        crate::util::write_warc(&w, &crawl(c));
        warcs.push(w.to_str().unwrap().to_string());
    }
    let coll = dir.join("c");
    let c = coll.to_str().unwrap();
    crate::util::ok_in(
        dir,
        &["update", c, "--collection-name", "c", &warcs[0], &warcs[1]],
    );
    crate::util::ok_in(dir, &["update", c, "--collection-name", "c", &warcs[2]]);
    let index = SearchIndex::open(&coll).unwrap();
    assert_eq!(index.sets().len(), 2, "{:?}", index.sets());
    index
}

fn page(
    index: &SearchIndex,
    q: &str,
    per_site: usize,
    near: NearDisplay,
    start: usize,
    n: usize,
) -> SearchResults {
    index
        .search(&SearchRequest {
            query: q.into(),
            start,
            hits: n,
            hits_per_site: per_site,
            near,
            ..SearchRequest::default()
        })
        .unwrap_or_else(|e| panic!("{q}: {e}"))
}

/// A hit as the reader sees it: URL, digest, dates.
type Shown = (String, String, Vec<String>);

/// Every page of `q` at `n` a page, from the first until `has_more` is false: the hits
/// in order. Checks each page on the way: full while there are more, its hits numbered
/// from `start`, and the last one's count of hits the whole list's.
fn all_pages(
    index: &SearchIndex,
    q: &str,
    per_site: usize,
    near: NearDisplay,
    n: usize,
) -> Vec<Shown> {
    let mut out: Vec<Shown> = Vec::new();
    let mut start = 0;
    loop {
        let r = page(index, q, per_site, near, start, n);
        let what = format!("{q:?} at {n} a page, hits per site {per_site}, from {start}");
        for (k, h) in r.hits.iter().enumerate() {
            assert_eq!(h.index, start + k, "{what}");
        }
        out.extend((r.hits.iter()).map(|h| (h.url.clone(), h.digest.clone(), h.dates.clone())));
        if !r.has_more {
            assert_eq!(r.hits_total(), Some(out.len() as u64), "{what}");
            assert_eq!(r.total_results(), out.len() as u64, "{what}");
            assert!(r.versions_matched() >= out.len() as u64, "{what}");
            return out;
        }
        assert_eq!(r.hits.len(), n, "{what}: a page short of a next one");
        assert_eq!(r.hits_total(), None, "{what}");
        start += n;
    }
}

#[test]
fn paging_at_any_size_gives_the_same_hits_and_dates() {
    let dir = tempfile::tempdir().unwrap();
    let index = collection(dir.path());
    let collapse = NearDisplay {
        collapse_urls: true,
        ..NearDisplay::default()
    };
    let show = NearDisplay {
        show_versions: true,
        ..NearDisplay::default()
    };
    let mut folded_across_batches = 0;
    for q in ["the", "archive", "news", "of the", "archive news"] {
        for per_site in [0, 2] {
            for near in [NearDisplay::default(), collapse, show] {
                let what = format!("{q:?}, hits per site {per_site}, {near:?}");
                let whole = all_pages(&index, q, per_site, near, 100);
                assert!(whole.len() > 5, "{what}: {} hits", whole.len());
                assert!(whole.len() <= 100, "{what}: one page of 100 holds them all");
                let mut seen = std::collections::HashSet::new();
                for h in &whole {
                    assert!(seen.insert((&h.0, &h.1)), "{what}: {h:?} twice");
                }
                for n in [3, 5, 10] {
                    let paged = all_pages(&index, q, per_site, near, n);
                    let first_difference = (paged.iter().zip(&whole)).position(|(a, b)| a != b);
                    assert!(
                        paged == whole,
                        "{what}: at {n} a page, {} hits against {} at 100; first difference at \
                         {first_difference:?}: {:?} against {:?}",
                        paged.len(),
                        whole.len(),
                        first_difference.map(|i| &paged[i]),
                        first_difference.map(|i| &whole[i]),
                    );
                }
                // Hits standing for versions of both batches: January or February, and
                // March.
                folded_across_batches += (whole.iter())
                    .filter(|h| {
                        h.2.iter().any(|d| d.starts_with("202403"))
                            && h.2.iter().any(|d| !d.starts_with("202403"))
                    })
                    .count();
            }
        }
    }
    assert!(
        folded_across_batches > 20,
        "the test needs hits folded across batches: {folded_across_batches}"
    );
}

/// The page offers a next page whenever the results have one, under the per-site limit
/// too, and says what it counts: the hits it can page through once known, and the
/// versions matched.
#[test]
fn the_page_links_the_next_page_whenever_there_is_one() {
    let dir = tempfile::tempdir().unwrap();
    let index = collection(dir.path());
    for per_site in [0, 2] {
        let mut start = 0;
        loop {
            let r = page(&index, "the", per_site, NearDisplay::default(), start, 3);
            let req = PageRequest {
                query: Some("the".into()),
                start,
                hits: 3,
                hits_per_site: per_site,
                ..PageRequest::default()
            };
            let html = render(&req, Some(&r), None, "footer");
            let what = format!("hits per site {per_site}, from {start}");
            let next = format!(
                "<a rel=\"next\" href=\"/?query=the&amp;start={}&amp;hitsPerPage=3&amp;hitsPerSite={per_site}\">",
                start + 3
            );
            assert_eq!(html.contains(&next), r.has_more, "{what}: {html}");
            let versions = format!("<b>{}</b> matching versions", r.versions_matched());
            assert!(html.contains(&versions), "{what}: {html}");
            match r.hits_total() {
                Some(n) => assert!(
                    html.contains(&format!("hits <b>{}–{}</b> of <b>{n}</b>", start + 1, n)),
                    "{what}: {html}"
                ),
                None => assert!(
                    html.contains(&format!("hits <b>{}–{}</b>", start + 1, start + 3))
                        && !html.contains(&format!("hits <b>{}–{}</b> of", start + 1, start + 3)),
                    "{what}: {html}"
                ),
            }
            if !r.has_more {
                break;
            }
            start += 3;
        }
        assert!(start > 3, "hits per site {per_site}: several pages");
    }
    // Every version its own hit: the next page lists them too.
    let show = NearDisplay {
        show_versions: true,
        ..NearDisplay::default()
    };
    let r = page(&index, "the", 2, show, 0, 3);
    let req = PageRequest {
        query: Some("the".into()),
        hits: 3,
        hits_per_site: 2,
        show_versions: true,
        ..PageRequest::default()
    };
    let html = render(&req, Some(&r), None, "footer");
    assert!(r.has_more);
    assert!(
        html.contains("start=3&amp;hitsPerPage=3&amp;hitsPerSite=2&amp;nearDups=show\">Next"),
        "{html}"
    );
}
