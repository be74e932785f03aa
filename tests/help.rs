//! The one-liners of `warcdex --help` against what the commands accept and what the docs
//! list: each is derived from its source here, so a format, container
//! or route added on one side and not the other fails.

use crate::util::run_warcdex;

/// `warcdex --help`'s one-liner of `command` (clap joins the doc comment's first
/// paragraph; a long one wraps onto indented lines, joined again here).
fn one_liner(command: &str) -> String {
    let (code, out, err) = run_warcdex(&["--help"]);
    assert_eq!(code, 0, "{err}");
    let mut lines = out.lines().skip_while(|l| !l.starts_with("Commands:"));
    let mut found: Option<String> = None;
    for l in lines.by_ref() {
        let t = l.trim_start();
        let indent = l.len() - t.len();
        match &mut found {
            None => {
                if let Some(rest) = t.strip_prefix(command) {
                    if rest.starts_with("  ") && indent == 2 {
                        found = Some(rest.trim().to_string());
                    }
                }
            }
            // A continuation is indented deeper than a command name.
            Some(s) if indent > 2 && !t.is_empty() => {
                s.push(' ');
                s.push_str(t);
            }
            Some(_) => break,
        }
    }
    found.unwrap_or_else(|| panic!("no {command} in --help:\n{out}"))
}

/// The values a flag's parser accepts, as its error lists them (`"x": a, b or c`).
fn accepted_values(args: &[&str]) -> Vec<String> {
    let (code, _, err) = run_warcdex(args);
    assert_eq!(code, 2, "{err}");
    let list = err
        .lines()
        .find_map(|l| l.split_once("\"nope\": ").map(|(_, v)| v.to_string()))
        .unwrap_or_else(|| panic!("no list of values in {err}"));
    list.replace(" or ", ", ")
        .split(", ")
        .map(|v| v.trim().to_string())
        .collect()
}

/// How a one-liner names a format value.
fn format_name(value: &str) -> &'static str {
    match value {
        "csv" => "CSV",
        "jsonl" => "JSON lines",
        "parquet" => "Parquet",
        "warc" => "WARC",
        "wacz" => "WACZ",
        "gexf" => "GEXF",
        "graphml" => "GraphML",
        other => panic!("a format the test does not know: {other}; name it here"),
    }
}

#[test]
fn export_and_graph_one_liners_name_every_format_their_flag_accepts() {
    for (command, args) in [
        (
            "export",
            vec!["export", "-d", "/nonexistent", "q", "--format", "nope"],
        ),
        ("graph", vec!["graph", "/nonexistent", "--format", "nope"]),
    ] {
        let values = accepted_values(&args);
        assert!(values.len() >= 3, "{values:?}");
        let line = one_liner(command);
        for v in &values {
            assert!(
                line.contains(format_name(v)),
                "{command}'s one-liner {line:?} does not name {v}"
            );
        }
    }
}

#[test]
fn cdx_one_liner_names_every_container_the_readme_lists() {
    // The README's first sentence: "turns web archives (ARC, WARC, WARC-zstd and WACZ
    // files written by ...)".
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let list = readme
        .split_once("web archives (")
        .and_then(|(_, rest)| rest.split_once(" files"))
        .map(|(l, _)| l.to_string())
        .expect("the README's list of containers");
    let containers: Vec<&str> = list
        .split([',', ' '])
        .filter(|w| !w.is_empty() && *w != "and")
        .collect();
    assert_eq!(containers, ["ARC", "WARC", "WARC-zstd", "WACZ"]);
    for command in ["cdx", "records", "import", "update"] {
        let line = one_liner(command);
        let words: Vec<&str> = line
            .split(|c: char| !(c.is_alphanumeric() || c == '-'))
            .collect();
        for c in &containers {
            assert!(
                words.contains(c),
                "{command}'s one-liner {line:?} does not name {c}"
            );
        }
    }
}

#[test]
fn serve_one_liner_names_every_route_of_the_api() {
    let api = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/api.md")).unwrap();
    let table = api
        .split_once("| route | method | answers |")
        .map(|(_, t)| t)
        .unwrap();
    let line = one_liner("serve");
    let mut routes = 0;
    for row in table.lines().skip(2).take_while(|l| l.starts_with('|')) {
        let route = row.split('|').nth(1).unwrap().trim();
        let first = route.trim_matches('`').split(['`', ',']).next().unwrap();
        // How the one-liner names what each route answers.
        let name = match first {
            "/" => "search page",
            "/search.json" => "JSON",
            "/opensearch" => "OpenSearch",
            "/healthz" => "/healthz",
            p if p.starts_with("/web/") => "capture view",
            "/history/URL" | "/diff/DATE1/DATE2/URL" => "history",
            "/text/DATE/URL" => "indexed text",
            "/timegate/URL" | "/timemap/link/URL" => "Memento",
            "/warcs/NAME" => "/warcs",
            "/warcs/index.cdxj" => "CDXJ index",
            "/cdx" => "CDX API",
            "/export" => "export",
            "/pages" => "page query",
            "/changes" => "change feeds",
            "/mcp" => "MCP",
            "/shard/stats.json" => "front server",
            other => panic!("a route the test does not know: {other}; name it here"),
        };
        assert!(
            line.contains(name),
            "serve's one-liner {line:?} does not name {name} ({route})"
        );
        routes += 1;
    }
    assert!(routes >= 10, "{table}");
}

#[test]
fn search_one_liner_ranks_as_the_ranking_doc_says() {
    let ranking =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/ranking.md")).unwrap();
    let line = one_liner("search");
    // docs/ranking.md: a word over all its fields at once (BM25F), the title and other
    // sites' anchors weighing most; the link analysis is stored but does not rank.
    assert!(
        ranking.contains("but does not rank"),
        "docs/ranking.md changed"
    );
    assert!(
        !line.contains("link"),
        "search's one-liner {line:?} says links rank"
    );
    assert!(ranking.contains("`title` × 6"), "docs/ranking.md changed");
    assert!(
        ranking.contains("(`anchor`)\n  × 12"),
        "docs/ranking.md changed"
    );
    assert!(
        line.contains("BM25F") && line.contains("title and other sites' anchor text weighing most"),
        "search's one-liner {line:?} does not say how hits rank"
    );
    for filter in ["site:", "type:", "lang:", "collection:", "date:", "as-of:"] {
        assert!(line.contains(filter), "{line:?} does not name {filter}");
    }
}
