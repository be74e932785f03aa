//! Facets, timelines, `lang:` and `type:` filters and honest counts under the per-site
//! limit, on real pages of the corpus: resiliparse's
//! `warcfile.warc` (16 pages of 15 sites in several languages).

use std::path::Path;

use warcdex::import::manifest::ManifestEntry;
use warcdex::import::{import_archives, ImportOptions};
use warcdex::search::{SearchIndex, SearchRequest, SearchResults};

fn index_of(dir: &Path, archives: &[&str]) -> SearchIndex {
    crate::util::corpus_search_index(dir, archives)
}

fn search(index: &SearchIndex, q: &str, per_site: usize) -> SearchResults {
    index
        .search(&SearchRequest {
            query: q.into(),
            hits: 20,
            hits_per_site: per_site,
            ..SearchRequest::default()
        })
        .unwrap_or_else(|e| panic!("{q}: {e}"))
}

fn counts(list: &serde_json::Value) -> Vec<(String, u64)> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["value"].as_str().unwrap().to_string(),
                c["count"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn pairs(v: &[(&str, u64)]) -> Vec<(String, u64)> {
    v.iter().map(|(s, n)| (s.to_string(), *n)).collect()
}

#[test]
fn facets_timeline_filters_and_counts() {
    let dir = tempfile::tempdir().unwrap();
    let index = index_of(dir.path(), &["resiliparse/warcfile.warc"]);
    let r = search(&index, "type:text/html", 0);
    assert_eq!(r.total, 16);
    let json: serde_json::Value =
        serde_json::from_str(&warcdex::render::json::to_json(&r)).unwrap();
    let f = &json["facets"];
    // Counted over all 16 matches; the ten most frequent sites, then by name.
    let sites = counts(&f["site"]);
    assert_eq!(sites.len(), 10);
    assert_eq!(sites[0], ("06.live-radsport.ch".to_string(), 2));
    assert_eq!(sites[1], ("003338.cn".to_string(), 1));
    assert_eq!(counts(&f["type"]), pairs(&[("text/html", 16)]));
    assert_eq!(counts(&f["year"]), pairs(&[("2020", 16)]));
    // whatlang, on the main content, tells 15 of the 16 (one page has too little text
    // to say).
    assert_eq!(
        counts(&f["lang"]),
        pairs(&[("zh", 10), ("en", 2), ("de", 1), ("nl", 1), ("ru", 1)])
    );
    assert_eq!(json["timeline"][0]["month"], "2020-08");
    assert_eq!(json["timeline"][0]["count"], 16);
    assert_eq!(json["timeline"].as_array().unwrap().len(), 1);

    // lang: and type: filter; the facets follow the query.
    let ru = search(&index, "lang:ru", 0);
    assert_eq!(ru.total, 1);
    assert_eq!(ru.hits[0].site, "01spb.ru");
    assert_eq!(ru.facets.lang.len(), 1);
    assert_eq!(search(&index, "lang:zh", 0).total, 10);
    assert_eq!(search(&index, "lang:ZH type:text/html", 0).total, 10);
    assert_eq!(search(&index, "type:text/html -lang:zh", 0).total, 6);
    assert_eq!(search(&index, "type:application/pdf", 0).total, 0);

    // The per-site limit: the true number of matches, the sites limited and the
    // length of the list it leaves.
    let limited = search(&index, "type:text/html", 1);
    assert_eq!(limited.total, 16);
    assert!(limited.site_limited);
    assert_eq!(limited.sites_limited, 1);
    assert_eq!(limited.listed, 15);
    assert_eq!(limited.hits.len(), 15);
    assert_eq!(limited.facets, r.facets);
}

/// An ARC date that is not a date (cdx-writer's
/// `hex_instead_of_date.arc.gz` has a hex digest there, which warcio's rules read as
/// 2999-12-31) is counted as an anomaly, the capture imported, and the date kept out
/// of search dates, replay links and the timeline.
#[test]
fn impossible_dates_are_counted_and_not_searched() {
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/corpus/real");
    let entries = [ManifestEntry {
        path: real.join("cdx-writer/small_warcs/hex_instead_of_date.arc.gz"),
        collection: None,
        line: 1,
    }];
    let (rows, reports) =
        import_archives(&entries, None, &ImportOptions::default(), &|_| {}, &|_| {}).unwrap();
    assert_eq!(reports[0].anomalies.get("impossible-date"), Some(&1));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].dates, ["29991231231659"]);

    let dir = tempfile::tempdir().unwrap();
    let index = index_of(
        dir.path(),
        &["cdx-writer/small_warcs/hex_instead_of_date.arc.gz"],
    );
    let r = index
        .search(&SearchRequest {
            query: "type:text/html".into(),
            replay_prefix: Some("http://wayback.test/web".into()),
            ..SearchRequest::default()
        })
        .unwrap();
    assert_eq!(r.total, 1);
    assert!(r.hits[0].dates.is_empty(), "{:?}", r.hits[0].dates);
    assert!(r.hits[0].replay.is_empty());
    assert!(r.timeline.is_empty() && r.facets.year.is_empty());
    assert_eq!(search(&index, "type:text/html date:2999", 0).total, 0);
}
