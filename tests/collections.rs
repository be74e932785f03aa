//! A version belongs to every collection it was captured in, not only
//! to its first capture's: `collection:` (alone, with `date:`, negated), the collection
//! facet, export and graph count it in each, whether the other capture came in a later
//! batch or in another archive of the same batch.

use std::path::Path;

use serde_json::Value;

use crate::util::{run_warcdex, write_warc};

const PAGE: &str = "http://harbour.example/tides";

fn page() -> String {
    "<html><head><title>Tide tables</title></head><body><p>High water at the harbour \
     mouth; the tide tables of the port.</p></body></html>"
        .to_string()
}

fn other(word: &str) -> String {
    format!(
        "<html><head><title>Harbour {word}</title></head><body><p>The harbour's {word} \
         page.</p></body></html>"
    )
}

fn warc(dir: &Path, name: &str, caps: &[(&str, &str, String)]) -> std::path::PathBuf {
    let caps: Vec<(String, String, String)> = (caps.iter())
        .map(|(u, d, h)| (u.to_string(), d.to_string(), h.clone()))
        .collect();
    let p = dir.join(name);
    write_warc(&p, &caps);
    p
}

fn update(coll: &Path, name: &str, archives: &[&Path]) {
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "update".as_ref(),
        coll.as_os_str(),
        "--collection-name".as_ref(),
        name.as_ref(),
    ];
    args.extend(archives.iter().map(|a| a.as_os_str()));
    let (code, _, err) = run_warcdex(&args);
    assert_eq!(code, 0, "{err}");
}

fn search(coll: &Path, q: &str) -> Value {
    let (code, out, err) = run_warcdex(&[
        "search",
        "-d",
        coll.to_str().unwrap(),
        "--json",
        "--hits-per-site",
        "0",
        q,
    ]);
    assert_eq!(code, 0, "{q}: {err}");
    serde_json::from_str(&out).unwrap()
}

fn total(coll: &Path, q: &str) -> u64 {
    search(coll, q)["total"].as_u64().unwrap()
}

fn facet(coll: &Path, q: &str) -> Vec<(String, u64)> {
    (search(coll, q)["facets"]["collection"]
        .as_array()
        .unwrap()
        .iter())
    .map(|c| {
        (
            c["value"].as_str().unwrap().to_string(),
            c["count"].as_u64().unwrap(),
        )
    })
    .collect()
}

#[test]
fn a_version_belongs_to_every_collection_it_was_captured_in() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    // news (2023): the tide page and the news page; docs (2024, a later batch): the tide
    // page unchanged; in one batch (2025) the tide page again in "maps", and the
    // "almanac" archive holding only the about page.
    let a = warc(
        d,
        "news-2023.warc",
        &[
            (PAGE, "2023-05-01T10:00:00Z", page()),
            (
                "http://harbour.example/news",
                "2023-05-01T10:01:00Z",
                other("news"),
            ),
        ],
    );
    let b = warc(
        d,
        "docs-2024.warc",
        &[(PAGE, "2024-06-01T10:00:00Z", page())],
    );
    let c1 = warc(
        d,
        "maps-2025.warc",
        &[(PAGE, "2025-07-01T10:00:00Z", page())],
    );
    let c2 = warc(
        d,
        "almanac-2025.warc",
        &[(
            "http://harbour.example/about",
            "2025-07-01T10:05:00Z",
            other("about"),
        )],
    );
    let coll = d.join("coll");
    update(&coll, "news", &[&a]);
    update(&coll, "docs", &[&b]);
    // Two collections in one batch: a manifest of PATH COLLECTION lines.
    let manifest = d.join("batch3.txt");
    std::fs::write(
        &manifest,
        format!("{} maps\n{} almanac\n", c1.display(), c2.display()),
    )
    .unwrap();
    let (code, _, err) = run_warcdex(&[
        "update",
        coll.to_str().unwrap(),
        "--from",
        manifest.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");

    assert_eq!(total(&coll, "tide"), 1, "one version");
    for c in ["news", "docs", "maps"] {
        assert_eq!(
            total(&coll, &format!("tide collection:{c}")),
            1,
            "collection:{c}"
        );
    }
    assert_eq!(total(&coll, "tide collection:almanac"), 0);
    assert_eq!(total(&coll, "tide collection:nosuch"), 0);
    assert_eq!(total(&coll, "tide collection:docs date:2024"), 1);
    assert_eq!(total(&coll, "tide -collection:docs"), 0);
    assert_eq!(
        total(&coll, "harbour -collection:docs"),
        2,
        "news and about"
    );
    assert_eq!(
        total(&coll, "harbour collection:news collection:almanac"),
        3
    );
    // Most frequent first, ties by name.
    let want: Vec<(String, u64)> = [("news", 2), ("almanac", 1), ("docs", 1), ("maps", 1)]
        .iter()
        .map(|(n, c)| (n.to_string(), *c))
        .collect();
    assert_eq!(facet(&coll, "harbour"), want);
    // Compacted into one set, the same.
    let (code, _, err) = run_warcdex(&["update", "--compact", coll.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    for c in ["news", "docs", "maps"] {
        assert_eq!(
            total(&coll, &format!("tide collection:{c}")),
            1,
            "compacted collection:{c}"
        );
    }
    // Export lists every collection of the version.
    let (code, out, err) = run_warcdex(&[
        "export",
        "-d",
        coll.to_str().unwrap(),
        "tide",
        "--format",
        "jsonl",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(v["collection"], "docs maps news", "{v}");
}
