//! `warcdex graph`: the graph of the example collection, kept in three
//! batches with a WARC of awkward links added, at every level and in every format,
//! equals a graph computed here from the segments' Parquet rows (read with the parquet
//! crate, not warcdex's reader), the capture dates of the collection's CDX and, for
//! `--query`, the versions `warcdex export` lists.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::Array;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use crate::util::{fixtures, run_warcdex, write_warc};

/// A version's row as the segment stores it.
struct Row {
    urlkey: String,
    digest: String,
    url: String,
    outlinks: Vec<(String, String)>,
}

/// Every row of the collection's segments, read with the parquet crate.
fn segment_rows(coll: &Path) -> Vec<Row> {
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(coll.join("segments"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    for dir in dirs {
        let file = File::open(dir.join("documents.parquet")).unwrap();
        let reader = ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap()
            .build()
            .unwrap();
        for batch in reader {
            let batch = batch.unwrap();
            let s = |name: &str| {
                batch
                    .column_by_name(name)
                    .unwrap()
                    .as_string::<i32>()
                    .clone()
            };
            let (urlkey, digest, url) = (s("urlkey"), s("digest"), s("url"));
            let links = batch.column_by_name("outlinks").unwrap().as_list::<i32>();
            for i in 0..batch.num_rows() {
                let l = links.value(i);
                let l = l.as_struct();
                let (u, a) = (
                    l.column(0).as_string::<i32>(),
                    l.column(1).as_string::<i32>(),
                );
                out.push(Row {
                    urlkey: urlkey.value(i).to_string(),
                    digest: digest.value(i).to_string(),
                    url: url.value(i).to_string(),
                    outlinks: (0..l.len())
                        .map(|j| (u.value(j).to_string(), a.value(j).to_string()))
                        .collect(),
                });
            }
        }
    }
    out
}

/// The capture dates of each (URL key, `sha1:DIGEST`), from `all.cdx` (revisits too).
fn cdx_dates(coll: &Path) -> BTreeMap<(String, String), Vec<u64>> {
    let mut out: BTreeMap<(String, String), Vec<u64>> = BTreeMap::new();
    for line in std::fs::read_to_string(coll.join("all.cdx"))
        .unwrap()
        .lines()
    {
        let f: Vec<&str> = line.split(' ').collect();
        if line.starts_with(' ') || f.len() < 6 {
            continue;
        }
        let key = (f[0].to_string(), format!("sha1:{}", f[5]));
        out.entry(key).or_default().push(f[1].parse().unwrap());
    }
    out
}

/// A node as the spec says: the URL, its lower-case host or its registered domain;
/// `None` for anything but an http(s) URL with a host.
fn node(u: &str, level: &str) -> Option<String> {
    let p = url::Url::parse(u).ok()?;
    if !matches!(p.scheme(), "http" | "https") {
        return None;
    }
    let host = p.host()?;
    Some(match (level, host) {
        ("page", _) => u.to_string(),
        (_, url::Host::Domain(d)) if level == "domain" => {
            let d = d.to_lowercase();
            psl::domain_str(&d).unwrap_or(&d).to_string()
        }
        (_, url::Host::Domain(d)) => d.to_lowercase(),
        (_, h) => h.to_string(),
    })
}

/// Nodes and edges: (source, target) -> (weight, anchors joined).
#[derive(Debug, PartialEq, Eq, Default)]
struct Graph {
    nodes: BTreeSet<String>,
    edges: BTreeMap<(String, String), (u64, String)>,
}

/// The graph of the rows `selected` keeps, at `level`, computed from the rows alone.
fn expected(rows: &[Row], level: &str, selected: impl Fn(&Row) -> bool) -> Graph {
    let mut g = Graph::default();
    let mut anchors: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for r in rows.iter().filter(|r| selected(r)) {
        let Some(s) = node(&r.url, level) else {
            continue;
        };
        g.nodes.insert(s.clone());
        for (u, a) in &r.outlinks {
            let Some(t) = node(u, level) else { continue };
            g.nodes.insert(t.clone());
            let e = (s.clone(), t);
            g.edges.entry(e.clone()).or_default().0 += 1;
            let a = a.split_whitespace().collect::<Vec<_>>().join(" ");
            let set = anchors.entry(e).or_default();
            if !a.is_empty() && level == "page" {
                set.insert(a);
            }
        }
    }
    for (e, set) in anchors {
        let kept: Vec<String> = set.into_iter().take(10).collect();
        g.edges.get_mut(&e).unwrap().1 = kept.join(" | ");
    }
    g
}

/// A CSV of quoted fields (RFC 4180) as rows of fields.
fn csv_rows(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let (mut row, mut field, mut quoted, mut chars) =
        (Vec::new(), String::new(), false, text.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => row.push(std::mem::take(&mut field)),
            ('\r', false) => {}
            ('\n', false) => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (c, _) => field.push(c),
        }
    }
    rows
}

/// The graph in `text`, as `format` writes it (CSV has no nodes: they are left empty).
fn parse(text: &str, format: &str) -> Graph {
    let mut g = Graph::default();
    if format == "csv" {
        let rows = csv_rows(text);
        for r in &rows[1..] {
            let anchors = r.get(3).cloned().unwrap_or_default();
            g.edges.insert(
                (r[0].clone(), r[1].clone()),
                (r[2].parse().unwrap(), anchors),
            );
        }
        return g;
    }
    let doc = roxmltree::Document::parse(text).unwrap();
    for n in doc.descendants() {
        match n.tag_name().name() {
            "node" => {
                assert!(
                    g.nodes.insert(n.attribute("id").unwrap().to_string()),
                    "a node twice"
                );
            }
            "edge" => {
                let data = |key: &str| {
                    n.descendants()
                        .find(|d| {
                            d.attribute("key") == Some(key) || d.attribute("for") == Some(key)
                        })
                        .map(|d| d.attribute("value").or(d.text()).unwrap_or("").to_string())
                };
                let weight = match format {
                    "gexf" => n.attribute("weight").unwrap().parse().unwrap(),
                    _ => data("weight").unwrap().parse().unwrap(),
                };
                let e = (
                    n.attribute("source").unwrap().to_string(),
                    n.attribute("target").unwrap().to_string(),
                );
                assert!(g
                    .edges
                    .insert(e, (weight, data("anchors").unwrap_or_default()))
                    .is_none());
            }
            _ => {}
        }
    }
    g
}

/// `warcdex graph COLL ARGS`, which must succeed: its stdout and stderr.
fn graph(coll: &Path, args: &[&str]) -> (String, String) {
    let mut all = vec!["graph", coll.to_str().unwrap()];
    all.extend_from_slice(args);
    let (code, out, err) = run_warcdex(&all);
    assert_eq!(code, 0, "warcdex {all:?}: {err}");
    (out, err)
}

/// The example collection in three batches (crawls 1-2; crawl 3 and a WARC of awkward
/// links; crawls 4-5, which only add dates to versions of the first batch).
fn collection(dir: &Path) -> PathBuf {
    let ex = fixtures().join("example");
    let odd = dir.join("odd-20080101.warc");
    let links = "<a href=\"mailto:a@example.org\">mail</a> <a href=\"javascript:void(0)\">js</a>\
        <a href=\"http://192.168.0.1:8080/x\">an IP</a> <a href=\"https://Sub.Example.co.uk/p?a=1&amp;b=2\"> &lt;Tags&gt; &amp; , \"quotes\" </a>\
        <a href=\"https://sub.example.co.uk/p?a=1&amp;b=2\">  &lt;Tags&gt; &amp;   ,   \"quotes\"</a>\
        <a href=\"/self\">Self</a> <a href=\"/self\">Self</a> <a href=\"/self\"></a>\
        <a href=\"http://localhost/\">local</a> <a href=\"ftp://ftp.example.org/pub/\">ftp</a> <a href=\"http://www.example.org/index.html\">Example</a>";
    write_warc(
        &odd,
        &[
            (
                "http://Edge.Example.co.uk/self?x=1&y='2'".to_string(),
                "2008-01-01T00:00:00Z".to_string(),
                format!("<html><head><title>Odd</title></head><body><p>odd links {links}</p></body></html>"),
            ),
            (
                "http://lonely.example.net/".to_string(),
                "2008-01-02T00:00:00Z".to_string(),
                "<html><head><title>Lonely</title></head><body><p>no links at all</p></body></html>".to_string(),
            ),
        ],
    );
    let coll = dir.join("coll");
    let c = coll.to_str().unwrap();
    let f = |name: &str| ex.join(name).to_str().unwrap().to_string();
    for batch in [
        vec![f("crawl1-20071001.arc"), f("crawl2-20071002.arc")],
        vec![f("crawl3-20071003.arc"), odd.to_str().unwrap().to_string()],
        vec![f("crawl4-20071004.warc.gz"), f("crawl5-20071005.warc")],
    ] {
        let mut args = vec!["update", c, "--collection-name", "example"];
        args.extend(batch.iter().map(String::as_str));
        let (code, _, err) = run_warcdex(&args);
        assert_eq!(code, 0, "{err}");
    }
    coll
}

#[test]
fn graph_equals_the_graph_of_the_segments_outlinks() {
    let dir = tempfile::tempdir().unwrap();
    let coll = collection(dir.path());
    let rows = segment_rows(&coll);
    assert_eq!(
        rows.len(),
        7,
        "five versions of the example and two odd pages"
    );
    let dates = cdx_dates(&coll);
    let dates_of = |r: &Row| dates[&(r.urlkey.clone(), r.digest.clone())].clone();

    // Every level, every format: the whole collection.
    for level in ["page", "host", "domain"] {
        let want = expected(&rows, level, |_| true);
        for format in ["csv", "gexf", "graphml"] {
            let (out, err) = graph(&coll, &["--level", level, "--format", format]);
            let got = parse(&out, format);
            assert_eq!(got.edges, want.edges, "{level} {format}");
            if format != "csv" {
                assert_eq!(got.nodes, want.nodes, "{level} {format}");
            }
            assert!(
                err.contains(&format!(
                    "7 sources (7 versions matched), {} nodes, {} edges",
                    want.nodes.len(),
                    want.edges.len()
                )),
                "{err}"
            );
            // ftp: (the import drops mailto: and javascript: links itself).
            assert!(err.contains("1 skipped (not http(s))"), "{err}");
        }
    }

    // What the odd page shows: escaping, weights, anchors, skipped links, a self-loop.
    let page = expected(&rows, "page", |_| true);
    let odd = "http://Edge.Example.co.uk/self?x=1&y='2'";
    let tags = &page.edges[&(
        odd.to_string(),
        "https://sub.example.co.uk/p?a=1&b=2".to_string(),
    )];
    assert_eq!(tags, &(2, "<Tags> & , \"quotes\"".to_string()));
    let own = &page.edges[&(
        odd.to_string(),
        "http://edge.example.co.uk/self".to_string(),
    )];
    assert_eq!(own, &(3, "Self".to_string()));
    assert!(
        page.nodes.contains("http://lonely.example.net/"),
        "a source without links"
    );
    let domain = expected(&rows, "domain", |_| true);
    assert_eq!(
        domain.edges[&("example.co.uk".into(), "example.co.uk".into())].0,
        5
    );
    assert!(domain.nodes.contains("192.168.0.1") && domain.nodes.contains("localhost"));

    // --from/--to: the dates are the dates index's, most of them only in later batches'.
    let window = |r: &Row| {
        dates_of(r)
            .iter()
            .any(|d| (20071004000000..=20071005999999).contains(d))
    };
    let in_window: Vec<&Row> = rows.iter().filter(|r| window(r)).collect();
    assert_eq!(
        in_window.len(),
        2,
        "index.html A and about.html, captured again in batch 3"
    );
    for level in ["page", "host"] {
        let want = expected(&rows, level, window);
        for format in ["csv", "graphml"] {
            let (out, err) = graph(
                &coll,
                &[
                    "--level", level, "--format", format, "--from", "20071004", "--to", "20071005",
                ],
            );
            assert_eq!(parse(&out, format).edges, want.edges, "{level} {format}");
            assert!(err.contains("2 sources (7 versions matched"), "{err}");
        }
    }
    // A window of a year (--to padded with 9s) and of a second.
    let y2008 = |r: &Row| dates_of(r).iter().any(|d| *d >= 20080000000000);
    let (out, _) = graph(
        &coll,
        &["--format", "gexf", "--from", "2008", "--to", "2008"],
    );
    assert_eq!(parse(&out, "gexf"), expected(&rows, "page", y2008));
    let second = |r: &Row| dates_of(r).contains(&20071005120100);
    let (out, _) = graph(
        &coll,
        &[
            "--format",
            "gexf",
            "--from",
            "20071005120100",
            "--to",
            "20071005120100",
        ],
    );
    assert_eq!(parse(&out, "gexf"), expected(&rows, "page", second));

    // --query: the versions `warcdex export` lists for it.
    for query in ["news", "site:example.org", "odd"] {
        let (code, csv, err) = run_warcdex(&[
            "export",
            "-d",
            coll.to_str().unwrap(),
            "--fields",
            "surt,digest",
            query,
        ]);
        assert_eq!(code, 0, "{err}");
        let listed: BTreeSet<(String, String)> = csv_rows(&csv)[1..]
            .iter()
            .map(|r| (r[0].clone(), r[1].clone()))
            .collect();
        assert!(
            !listed.is_empty() && listed.len() < rows.len(),
            "{query}: {listed:?}"
        );
        let want = expected(&rows, "page", |r| {
            listed.contains(&(r.urlkey.clone(), r.digest.clone()))
        });
        let (out, _) = graph(&coll, &["--format", "graphml", "--query", query]);
        assert_eq!(parse(&out, "graphml"), want, "{query}");
    }

    // -o: the same bytes, in a file.
    let file = dir.path().join("g.gexf");
    let (stdout, _) = graph(&coll, &["--format", "gexf", "--level", "host"]);
    let (nothing, _) = graph(
        &coll,
        &[
            "--format",
            "gexf",
            "--level",
            "host",
            "-o",
            file.to_str().unwrap(),
        ],
    );
    assert!(nothing.is_empty());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), stdout);
}

#[test]
fn graph_applies_the_access_rules_and_refuses_bad_dates() {
    let dir = tempfile::tempdir().unwrap();
    let coll = collection(dir.path());
    let rows = segment_rows(&coll);
    let acl = dir.path().join("rules.aclj");
    std::fs::write(
        &acl,
        "org,example)/news.html - {\"access\": \"block\"}\nuk,co,example,edge)/ - {\"access\": \"exclude\"}\n",
    )
    .unwrap();
    let shown = |r: &Row| {
        !r.urlkey.starts_with("org,example)/news.html")
            && !r.urlkey.starts_with("uk,co,example,edge)/")
    };
    let (out, err) = graph(
        &coll,
        &["--format", "graphml", "--acl", acl.to_str().unwrap()],
    );
    assert_eq!(parse(&out, "graphml"), expected(&rows, "page", shown));
    assert!(err.contains("4 sources"), "{err}");

    for (args, says) in [
        (vec!["--from", "2007x"], "--from 2007x"),
        (vec!["--to", "20071301"], "month 13"),
        (
            vec!["--from", "2008", "--to", "2007"],
            "--from is after --to",
        ),
        (vec!["--query", "pyth*"], "wildcards"),
    ] {
        let mut all = vec!["graph", coll.to_str().unwrap()];
        all.extend(args);
        let (code, out, err) = run_warcdex(&all);
        assert_eq!((code, out.as_str()), (2, ""), "{all:?}");
        assert!(err.contains(says), "{all:?}: {err}");
    }
    let (code, _, err) = run_warcdex(&["graph", dir.path().to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("not a collection"), "{err}");
}
