//! The near-duplicate signature on real pages of the corpus
//! (`fixtures/corpus/real/`), and `near-dups`, `history` and search's collapsing on
//! generated captures.

use std::path::Path;

use warcdex::import::manifest::ManifestEntry;
use warcdex::import::{import_archives, ImportOptions};
use warcdex::near::{Signature, DEFAULT_THRESHOLD};

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
fn identical_text_resembles_fully() {
    let pages = corpus_pages(20);
    assert!(pages.len() >= 10, "{} pages", pages.len());
    for (_, text) in &pages {
        let a = Signature::of(text, Some("t"));
        assert_eq!(a.resemblance(&Signature::of(&text.clone(), Some("t"))), 1.0);
        // Whitespace is not a word, but the text is not the same.
        let spaced = Signature::of(&text.replace(' ', "  \n "), Some("t"));
        assert_eq!(a.resemblance(&spaced), 1.0);
        assert_ne!(a.text, spaced.text);
    }
}

/// One word changed in a 500-word page: every position of a page, one in 25, on every
/// page of the corpus with 500 words or more; the estimate of 3 shingles in 498 changed
/// (a resemblance of 0.988) stays near.
#[test]
fn one_changed_word_in_500_stays_near() {
    let pages = corpus_pages(500);
    assert!(pages.len() >= 5, "{} pages of 500 words", pages.len());
    let mut worst = 1.0f64;
    let mut tried = 0;
    for (url, text) in &pages {
        let base = Signature::of(&words_with(text, 500, None, ""), None);
        for at in (0..500).step_by(25) {
            let changed = Signature::of(&words_with(text, 500, Some(at), "zeppelin"), None);
            let r = base.resemblance(&changed);
            tried += 1;
            worst = worst.min(r);
            assert!(
                base.is_near(&changed, DEFAULT_THRESHOLD),
                "{url}: word {at} changed: {r}"
            );
        }
    }
    assert!(tried >= 100, "{tried}");
    eprintln!("one changed word in 500: lowest resemblance {worst:.3} over {tried} changes");
}

/// Different pages of the corpus (several of one site) are never near, on average far
/// below the threshold.
#[test]
fn unrelated_pages_do_not_resemble() {
    let pages = corpus_pages(50);
    let sigs: Vec<Signature> = pages.iter().map(|(_, t)| Signature::of(t, None)).collect();
    let mut sum = 0.0;
    let mut pairs = 0u64;
    for i in 0..sigs.len() {
        for j in i + 1..sigs.len() {
            let r = sigs[i].resemblance(&sigs[j]);
            sum += r;
            pairs += 1;
            assert!(
                !sigs[i].is_near(&sigs[j], DEFAULT_THRESHOLD),
                "{} and {}: {r}",
                pages[i].0,
                pages[j].0
            );
        }
    }
    assert!(pairs >= 100, "{pairs} pairs");
    let mean = sum / pairs as f64;
    eprintln!("unrelated pages: {pairs} pairs, mean resemblance {mean:.3}");
    assert!(mean <= 0.1, "mean {mean}");
}

const DAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// The front page of a news site on day `day` of March 2025: only its date line changes.
fn front_page(day: usize, body: &str) -> String {
    format!(
        "<html><head><title>Daily Courier</title></head><body>\
         <p class=\"date\">{}, {} March 2025</p><h1>Daily Courier front page</h1>\
         <p>{body}</p></body></html>",
        DAYS[day % 7],
        day + 1
    )
}

const STORY: &str = "The harbour authority approved the new ferry terminal after a long public \
    consultation in which fishermen, residents and shop owners argued about noise, traffic and \
    the future of the old quay. Construction starts in spring and the first boats should dock \
    there within two years, the council said, adding that the historic warehouses will be kept \
    and turned into a market hall with a library, a café and rooms for local clubs";

const OTHER: &str = "Scientists at the observatory recorded an unusual burst of radio waves \
    from a distant galaxy and asked amateur astronomers across the region to share their own \
    measurements, hoping that many small telescopes together can tell whether the signal \
    repeats, as some theories of neutron stars predict, or was a single event never to return";

/// Twenty daily captures of one front page (twenty digests, only the date line changes),
/// a mirror of it on another host, and a rewritten version: imported, indexed, opened.
fn daily_front_page(dir: &Path) -> warcdex::search::SearchIndex {
    let mut captures: Vec<(String, String, String)> = (0..20)
        .map(|d| {
            (
                "http://courier.example/".to_string(),
                format!("2025-03-{:02}T06:00:00Z", d + 1),
                front_page(d, STORY),
            )
        })
        .collect();
    captures.push((
        "http://courier-mirror.example.net/".into(),
        "2025-03-21T06:00:00Z".into(),
        front_page(0, STORY),
    ));
    captures.push((
        "http://courier.example/".into(),
        "2025-03-22T06:00:00Z".into(),
        front_page(21, &format!("{OTHER}. {}", &STORY[..120])),
    ));
    let warc = dir.join("courier.warc");
    crate::util::write_warc(&warc, &captures);
    let entries = [ManifestEntry {
        path: warc,
        collection: None,
        line: 1,
    }];
    let index = crate::util::search_index_of(dir, &entries, "courier");
    assert_eq!(index.sets()[0].documents, 22, "22 versions");
    index
}

fn search(
    index: &warcdex::search::SearchIndex,
    q: &str,
    near: warcdex::search::NearDisplay,
) -> warcdex::search::SearchResults {
    index
        .search(&warcdex::search::SearchRequest {
            query: q.into(),
            hits: 50,
            near,
            ..Default::default()
        })
        .unwrap()
}

/// The acceptance's daily front page: one hit with its 20 dates by default, 20 hits with
/// `--near-dups show`; the rewritten version stays a hit of its own either way.
#[test]
fn daily_front_page_is_one_hit_with_every_date() {
    use warcdex::search::NearDisplay;
    let dir = tempfile::tempdir().unwrap();
    let index = daily_front_page(dir.path());
    let r = search(
        &index,
        "ferry terminal site:courier.example",
        NearDisplay::default(),
    );
    let urls: Vec<(&str, usize, usize)> = (r.hits.iter())
        .map(|h| (h.url.as_str(), h.dates.len(), h.near_versions))
        .collect();
    assert_eq!(
        urls,
        [
            ("http://courier.example/", 20, 20),
            ("http://courier.example/", 1, 1)
        ],
        "{r:#?}"
    );
    // The newest of the twenty is shown, with all twenty dates.
    let h = &r.hits[0];
    assert_eq!(h.dates.first().unwrap(), "20250301060000");
    assert_eq!(h.dates.last().unwrap(), "20250320060000");
    assert!(h.snippet.text.contains("ferry"), "{:?}", h.snippet);
    // The hit's history: all 21 versions of the URL, the 20 it stands for marked, the
    // rewrite a major change from the version before it.
    use warcdex::search::history::Change;
    assert_eq!(h.history.len(), 21);
    assert_eq!(h.history.iter().filter(|v| v.in_hit).count(), 20);
    assert_eq!(h.history[0].change, Change::First);
    let last = h.history.last().unwrap();
    assert_eq!(
        (last.first_date.as_str(), last.change, last.in_hit),
        ("20250322060000", Change::Major, false)
    );
    assert!(h.history[1..20]
        .iter()
        .all(|v| matches!(v.change, Change::Same | Change::Minor)));
    // Asked without histories (as the OpenSearch feed asks), the same hits without them.
    let plain = index
        .search(&warcdex::search::SearchRequest {
            query: "ferry terminal site:courier.example".into(),
            hits: 50,
            history: false,
            ..Default::default()
        })
        .unwrap();
    let mut want = r.hits.clone();
    for h in &mut want {
        h.history.clear();
        h.versions_total = 0;
    }
    assert_eq!(plain.hits, want);

    let shown = NearDisplay {
        show_versions: true,
        ..NearDisplay::default()
    };
    let r = search(&index, "ferry terminal site:courier.example", shown);
    assert_eq!(r.hits.len(), 21);
    assert!(r
        .hits
        .iter()
        .all(|h| h.dates.len() == 1 && h.near_versions == 1));
    let front: Vec<_> = r
        .hits
        .iter()
        .filter(|h| h.digest != urls_digest_of_rewrite(&r))
        .collect();
    assert_eq!(front.len(), 20);

    // Mirrors: two hits (two URLs) by default, one with "also at" when collapsed.
    let r = search(&index, "ferry terminal", NearDisplay::default());
    assert_eq!(r.hits.len(), 3, "{r:#?}");
    let collapsed = NearDisplay {
        collapse_urls: true,
        ..NearDisplay::default()
    };
    let r = search(&index, "ferry terminal", collapsed);
    assert_eq!(r.hits.len(), 2, "{r:#?}");
    let with_mirror = r
        .hits
        .iter()
        .find(|h| !h.also_at.is_empty())
        .expect("a folded mirror");
    assert!(
        with_mirror.also_at == ["courier-mirror.example.net"]
            || with_mirror.also_at == ["courier.example"],
        "{:?}",
        with_mirror.also_at
    );
}

/// The digest of the rewritten version: the one captured on 22 March.
fn urls_digest_of_rewrite(r: &warcdex::search::SearchResults) -> String {
    r.hits
        .iter()
        .find(|h| h.dates == ["20250322060000"])
        .map(|h| h.digest.clone())
        .unwrap()
}

/// `near-dups` lists the 20 versions and the mirror as one cluster, sorted by URL then
/// digest, and leaves the rewrite out; `history` calls the daily versions the same text
/// and the rewrite a major change.
#[test]
fn near_dups_lists_one_cluster_and_history_tells_minor_from_major() {
    use warcdex::search::history::history;
    use warcdex::search::near_dups::{near_dups, NearOptions};
    let dir = tempfile::tempdir().unwrap();
    let index = daily_front_page(dir.path());
    let mut out = Vec::new();
    let report = near_dups(&index, &NearOptions::default(), &mut out, &()).unwrap();
    let out = String::from_utf8(out).unwrap();
    let lines: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(lines.len(), 21, "{out}");
    assert!(lines.iter().all(|l| l.len() == 4 && l[0] == "1"), "{out}");
    let mut sorted = lines.clone();
    sorted.sort_by(|a, b| (a[1], a[2]).cmp(&(b[1], b[2])));
    assert_eq!(lines, sorted);
    assert_eq!(lines[0][1], "http://courier-mirror.example.net/");
    assert_eq!(lines[0][3], "20250321060000");
    assert_eq!(
        (report.clusters, report.clustered, report.largest),
        (1, 21, 21)
    );
    assert_eq!(report.documents, 22);

    // The rewrite (a third of the page) is in no cluster.
    assert!(!out.contains("\t20250322060000\n"), "{out}");

    let versions = history(&index, "http://courier.example/").unwrap();
    assert_eq!(versions.len(), 21);
    let labels: Vec<&str> = versions.iter().map(|v| v.change.label()).collect();
    assert_eq!(labels[0], "first");
    assert!(
        labels[1..20].iter().all(|l| *l == "minor change"),
        "{labels:?}"
    );
    assert_eq!(labels[20], "major change");
    // A date line's weekday and day: 2 words removed and 2 added of the two texts'.
    let words = versions[0].words;
    assert_eq!(versions[1].changed, Some(4.0 / (2 * words) as f64));
    assert!(
        versions[20].changed.unwrap() > 0.5,
        "{:?}",
        versions[20].changed
    );
    assert_eq!(versions[20].dates, ["20250322060000"]);
}

/// `warcdex diff`: the versions nearest two dates, the share of words changed and the
/// words themselves.
#[test]
fn diff_shows_the_words_that_changed() {
    let dir = tempfile::tempdir().unwrap();
    let index = daily_front_page(dir.path());
    let words =
        warcdex::search::history::history(&index, "http://courier.example/").unwrap()[0].words;
    drop(index);
    let diff = |url: &str, d1: &str, d2: &str| {
        let d = dir.path().as_os_str();
        crate::util::run_warcdex(&[
            "diff".as_ref(),
            "-d".as_ref(),
            d,
            url.as_ref(),
            d1.as_ref(),
            d2.as_ref(),
        ])
    };
    let (code, text, err) = diff("http://courier.example/", "20250301", "20250302070000");
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(lines[0].starts_with("old\t20250301060000\tsha1:"), "{text}");
    assert!(lines[1].starts_with("new\t20250302060000\tsha1:"), "{text}");
    assert!(lines[0].ends_with(&format!("\t{words} words")), "{text}");
    let share = 4.0 * 100.0 / (2 * words) as f64;
    assert_eq!(
        lines[2],
        format!("changed\t{share:.1} %\tremoved 2\tadded 2"),
        "{text}"
    );
    assert!(
        lines[3].starts_with(
            "[-Monday, 1-] {+Tuesday, 2+} March 2025 Daily Courier front page The harbour"
        ),
        "{text}"
    );
    assert_eq!(lines[3].matches("[-").count(), 1, "{text}");
    // A URL with no version: exit 1.
    assert_eq!(diff("http://elsewhere.example/", "2025", "2026").0, 1);
}

/// A page captured 400 times (a visit counter makes each capture a version of
/// its own) is one hit whose HTML stays small: its first and last dates, a line per year
/// with a link per month, the latest 10 versions and links to all of them, not 400 date
/// links.
#[test]
fn a_page_with_400_captures_renders_a_bounded_hit() {
    let dir = tempfile::tempdir().unwrap();
    let captures: Vec<(String, String, String)> = (0..400)
        .map(|i| {
            // 28 days a month from January 2024: 15 months.
            let (month, day) = (i / 28, i % 28 + 1);
            (
                "http://library.example/".to_string(),
                format!(
                    "{}-{:02}-{day:02}T06:00:00Z",
                    2024 + month / 12,
                    month % 12 + 1
                ),
                format!(
                    "<html><head><title>Town library</title></head><body><h1>Town library</h1>\
                     <p>{STORY}</p><p>Visitors: {}</p></body></html>",
                    1000 + i
                ),
            )
        })
        .collect();
    let warc = dir.path().join("library.warc");
    crate::util::write_warc(&warc, &captures);
    let entries = [ManifestEntry {
        path: warc,
        collection: None,
        line: 1,
    }];
    let index = crate::util::search_index_of(dir.path(), &entries, "library");
    let results = index
        .search(&warcdex::search::SearchRequest {
            query: "harbour ferry".into(),
            hits: 10,
            replay_prefix: Some("/web".into()),
            history: true,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(results.hits.len(), 1);
    assert_eq!(results.hits[0].dates.len(), 400);
    let req = warcdex::render::page::PageRequest {
        query: Some("harbour ferry".into()),
        start: 0,
        hits: 10,
        hits_per_site: 0,
        collapse_near: false,
        show_versions: false,
        ..Default::default()
    };
    let page = warcdex::render::page::render(&req, Some(&results), None, "");
    eprintln!("400 captures: {} bytes", page.len());
    // 15,270 bytes when written, 5 KB of it the style sheet; one link per capture took
    // 44 KB more.
    assert!(page.len() < 20_000, "{} bytes", page.len());
    assert!(
        page.contains("First <a href=\"/web/20240101060000/http://library.example/\""),
        "{page}"
    );
    assert!(
        page.contains("last <a href=\"/web/20250308060000/http://library.example/\""),
        "{page}"
    );
    assert!(page
        .contains("<a href=\"/history/http://library.example/\">all 400 captures, by version</a>"));
    assert!(page.contains("<a href=\"/history/http://library.example/\">all 400 versions</a>"));
    // A line per year, a link per month: January 2024 holds 28 captures.
    assert!(page.contains("<li><b>2024</b> <a href=\"/web/20240101060000/http://library.example/\" title=\"20240101060000\">Jan (28)</a>"), "{page}");
    assert!(page.contains("Mar (8)</a></li></ul>"), "{page}");
    // Capture links: the title's, first and last, 15 months, 10 versions.
    assert_eq!(page.matches("/web/20").count(), 1 + 2 + 15 + 10, "{page}");
    // The latest versions are links, their changes links to the diff.
    assert!(
        page.contains("/diff/20250307060000/20250308060000/http://library.example/"),
        "{page}"
    );
}
