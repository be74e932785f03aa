//! The MCP server at `serve`'s `/mcp` (scripts/test-mcp.sh drives it, and `warcdex mcp`,
//! with the official Python client): the tools and their schemas, answers with
//! provenance equal to what `/search.json` and `/cdx` say, bad arguments as tool errors
//! (never protocol errors) with the server answering after them, and what a hostile
//! client sends refused without harm.

use serde_json::{json, Value};

use crate::util::http::{mcp, mcp_tool, post, request};
use crate::util::{fixtures, run_warcdex, start_in_process};

const HOME: &str = "http://www.example.org/index.html";

fn example_server() -> (tempfile::TempDir, String) {
    let tmp = tempfile::tempdir().unwrap();
    let coll = tmp.path().join("coll");
    let ex = fixtures().join("example");
    let mut args = vec!["update".into(), coll.clone().into_os_string()];
    for n in 1..=5 {
        let name = std::fs::read_dir(&ex)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| {
                let f = p.file_name().unwrap().to_string_lossy().to_string();
                f.starts_with(&format!("crawl{n}-"))
            })
            .unwrap();
        args.push(name.into_os_string());
    }
    let (code, _, err) = run_warcdex(&args);
    assert_eq!(code, 0, "{err}");
    let opts = warcdex::serve::ServeOptions {
        replay_prefix: Some(warcdex::serve::VIEW_PREFIX.into()),
        ..Default::default()
    };
    let addr = start_in_process(&coll, opts);
    (tmp, addr)
}

fn is_error(r: &Value) -> bool {
    r["isError"] == json!(true)
}

fn text(r: &Value) -> String {
    (r["content"].as_array().unwrap().iter())
        .map(|c| c["text"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn the_five_tools_answer_with_the_provenance_the_other_routes_give() {
    let (_tmp, addr) = example_server();
    let (status, tools) = mcp(&addr, "tools/list", json!({}), "");
    assert_eq!(status, 200, "{tools}");
    let mut names: Vec<&str> = (tools["result"]["tools"].as_array().unwrap().iter())
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["diff", "get_text", "history", "list_captures", "search"]
    );
    for t in tools["result"]["tools"].as_array().unwrap() {
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
        assert_eq!(t["outputSchema"]["type"], "object", "{t}");
        assert_eq!(t["annotations"]["readOnlyHint"], true, "{t}");
    }

    // search: the same hits as /search.json, each with its record's place.
    let r = mcp_tool(
        &addr,
        "search",
        json!({"query": "example", "page_size": 3}),
        "",
    );
    assert!(!is_error(&r), "{r}");
    let sc = &r["structuredContent"];
    let a = request(&addr, "GET", "/search.json?query=example&hitsPerPage=3", "");
    let js: Value = serde_json::from_slice(&a.body).unwrap();
    assert_eq!(sc["total"], js["total"]);
    let hits = sc["hits"].as_array().unwrap();
    assert_eq!(hits.len(), js["hits"].as_array().unwrap().len());
    for (h, j) in hits.iter().zip(js["hits"].as_array().unwrap()) {
        assert_eq!(h["url"], j["url"]);
        let p = &h["provenance"];
        assert_eq!(p["digest"], j["digest"]);
        assert_eq!(p["timestamp"], j["dates"][0]);
        // The capture's line in the CDX names the same archive, offset and length.
        let cdx = request(
            &addr,
            "GET",
            &format!(
                "/cdx?url={}&output=json&from={}&to={}",
                p["url"].as_str().unwrap(),
                p["timestamp"].as_str().unwrap(),
                p["timestamp"].as_str().unwrap()
            ),
            "",
        )
        .text();
        let line: Value = serde_json::from_str(cdx.lines().next().unwrap()).unwrap();
        assert_eq!(p["archive"], line["filename"], "{cdx}");
        assert_eq!(p["offset"].to_string(), line["offset"].as_str().unwrap());
        assert_eq!(p["length"].to_string(), line["length"].as_str().unwrap());
        assert!(text(&r).contains(p["archive"].as_str().unwrap()));
    }

    // list_captures: /cdx's captures.
    let r = mcp_tool(&addr, "list_captures", json!({"url": HOME}), "");
    let stamps: Vec<&str> = (r["structuredContent"]["captures"]
        .as_array()
        .unwrap()
        .iter())
    .map(|c| c["timestamp"].as_str().unwrap())
    .collect();
    let cdx = request(&addr, "GET", &format!("/cdx?url={HOME}&output=json"), "").text();
    let want: Vec<String> = (cdx.lines())
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["timestamp"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(stamps, want);
    assert_eq!(stamps.len(), 5);

    // history and diff: the two versions, and what changed.
    let r = mcp_tool(&addr, "history", json!({"url": HOME}), "");
    assert_eq!(r["structuredContent"]["versions_total"], 2, "{r}");
    let r = mcp_tool(
        &addr,
        "diff",
        json!({"url": HOME, "date1": "20071001120000", "date2": "20071003120000"}),
        "",
    );
    let added = r["structuredContent"]["added"].to_string();
    assert!(added.contains("logo"), "{r}");
    // The collection's description: what a search of everything counts.
    let (_, d) = mcp(
        &addr,
        "resources/read",
        json!({"uri": "warcdex://collection"}),
        "",
    );
    let d: Value =
        serde_json::from_str(d["result"]["contents"][0]["text"].as_str().unwrap()).unwrap();
    let all = request(&addr, "GET", "/search.json?query=*", "");
    let all: Value = serde_json::from_slice(&all.body).unwrap();
    assert_eq!(d["versions"], all["total"], "{d}");
    assert_eq!(
        (d["first_year"].as_str(), d["sets"].as_u64()),
        (Some("2007"), Some(1)),
        "{d}"
    );
    let (_, e) = mcp(
        &addr,
        "resources/read",
        json!({"uri": "file:///etc/passwd"}),
        "",
    );
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no resource"),
        "{e}"
    );
    // get_text: the text of the capture asked for, in parts.
    let r = mcp_tool(
        &addr,
        "get_text",
        json!({"url": HOME, "date": "20071003120000"}),
        "",
    );
    assert!(r["structuredContent"]["text"]
        .as_str()
        .unwrap()
        .contains("logo"));
    assert_eq!(
        r["structuredContent"]["provenance"]["timestamp"],
        "20071003120000"
    );
}

#[test]
fn bad_arguments_are_tool_errors_and_the_server_stays_up() {
    let (_tmp, addr) = example_server();
    let cases = [
        (
            "search",
            json!({"query": "example", "page_size": 1_000_000}),
            "page_size is at most 50",
        ),
        ("search", json!({"query": ["a"]}), "invalid type"),
        ("search", json!({"query": "a", "as_of": "2007-10"}), "as_of"),
        ("search", json!({"query": "a", "site": "a b"}), "site"),
        ("search", json!({"query": "a", "from": "20071301"}), "from"),
        ("search", json!({"query": "\"unclosed"}), "phrase"),
        ("get_text", json!({"url": ""}), "url is empty"),
        (
            "get_text",
            json!({"url": "http://unknown.example/"}),
            "not in this collection",
        ),
        (
            "get_text",
            json!({"url": HOME, "max_chars": 0}),
            "max_chars is at least 1",
        ),
        (
            "list_captures",
            json!({"url": HOME, "limit": 5000}),
            "limit is at most 1000",
        ),
        ("history", json!({"url": 7}), "invalid type"),
        (
            "diff",
            json!({"url": HOME, "date1": "2007"}),
            "missing field `date2`",
        ),
        ("no_such_tool", json!({}), "no tool named"),
    ];
    for (tool, args, says) in cases {
        let r = mcp_tool(&addr, tool, args.clone(), "");
        assert!(is_error(&r), "{tool} {args}: {r}");
        assert!(text(&r).contains(says), "{tool} {args}: {}", text(&r));
    }
    // Not JSON-RPC at all, a body past the transport's bound: refused, no crash.
    assert!(post(&addr, "/mcp", b"{not json", "").status >= 400);
    let huge = vec![b' '; 40 << 20];
    assert!(post(&addr, "/mcp", &huge, "").status >= 400);
    let r = mcp_tool(&addr, "search", json!({"query": "logo"}), "");
    assert_eq!(r["structuredContent"]["total"], 1, "{r}");
}
