//! The reader against every archive of the real corpus, with warcio 1.8.1's index
//! (`../shared/corpus/expected/warcio-index/`) as the reference.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;
use warcdex::records::RecordsOptions;

use crate::util::{records_of, shared};

/// Fields compared with warcio for every record. `warc-record-id` is compared for WARC
/// only: warcio invents a random one for each ARC record.
const FIELDS: [&str; 8] = [
    "offset",
    "length",
    "warc-type",
    "warc-target-uri",
    "warc-date",
    "http:status",
    "http:content-type",
    "warc-payload-digest",
];

fn parse_lines(s: &str) -> Vec<BTreeMap<String, Value>> {
    s.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l:?}: {e}")))
        .collect()
}

fn runs() -> BTreeMap<String, Value> {
    let p = shared().join("corpus/expected/RUNS.json");
    serde_json::from_str(&std::fs::read_to_string(p).expect("RUNS.json")).expect("RUNS.json parses")
}

/// Differences between our record lines and warcio's, as human-readable strings.
fn diff(ours: &[BTreeMap<String, Value>], theirs: &[BTreeMap<String, Value>]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, (a, b)) in ours.iter().zip(theirs.iter()).enumerate() {
        let arc = a.get("format").and_then(Value::as_str) == Some("arc");
        let mut fields: Vec<&str> = FIELDS.to_vec();
        if !arc {
            fields.push("warc-record-id");
        }
        for f in fields {
            if a.get(f) != b.get(f) {
                out.push(format!("record {i} {f}: ours {:?}, warcio {:?}", a.get(f), b.get(f)));
            }
        }
    }
    if ours.len() != theirs.len() {
        out.push(format!("{} records, warcio {}", ours.len(), theirs.len()));
    }
    out
}

#[test]
fn every_corpus_archive_matches_warcio() {
    let shared = shared();
    let real = shared.join("corpus/real");
    let expected = shared.join("corpus/expected/warcio-index");
    let runs = runs();
    let mut problems = Vec::new();
    let mut compared = 0;
    for (file, run) in &runs {
        let warcio = &run["warcio-index"];
        let path = real.join(file);
        let (ours, report) = records_of(&path, 256 * 1024, RecordsOptions::default());
        let ours = parse_lines(&ours);
        let theirs = parse_lines(&std::fs::read_to_string(expected.join(format!("{file}.jsonl"))).unwrap_or_default());
        let failed = warcio["failed"].as_bool().unwrap_or(true);
        let d = diff(&ours, &theirs);
        if !failed {
            compared += 1;
            if !d.is_empty() || report.error.is_some() {
                problems.push(format!("{file}: error {:?}; {}", report.error.map(|e| e.to_string()), d.join("; ")));
            }
        } else {
            problems.push(format!("FAILED-IN-WARCIO {file}: ours {} records, error {:?}; {}", ours.len(), report.error.map(|e| e.to_string()), d.join("; ")));
        }
    }
    for p in &problems {
        eprintln!("{p}");
    }
    eprintln!("compared {compared} files");
    assert!(problems.is_empty(), "{} files differ", problems.len());
    let _ = Path::new("");
}
