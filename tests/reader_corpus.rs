//! The reader against every archive of the real corpus, with warcio 1.8.1's index
//! (`fixtures/corpus/expected/warcio-index/`) as the reference.

use std::collections::BTreeMap;

use serde_json::Value;
use warcdex::reader::records::RecordsOptions;

use crate::util::{assert_same_at_read_size, check_snapshot, corpus, records_of, BUFFER_SIZES};

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

/// Files warcio reads without error where warcdex deliberately differs. Our output for
/// each is pinned by a snapshot (`fixtures/corpus-records/<file>.jsonl`).
const DELIBERATE: [(&str, &str); 9] = [
    ("jwat/jwat-common/test-utf8.warc", "header values start with a tab; warcdex trims it (warcio keeps \"\\twarcinfo\")"),
    ("jwat/jwat-warc/valid-warcfile-fields-continuation.warc", "values on continuation lines; warcdex trims the leading space warcio keeps (\" continuation\", \"%20http://...\")"),
    ("jwat/jwat-warc/valid-warcfile-fields-metainfo.warc", "as above, leading tabs in values"),
    ("jwat/jwat-warc/valid-warcfile-fields-warcinfo.warc", "as above, leading tabs in values"),
    ("jwat/jwat-warc/invalid-warcfile-lonely-continuation.warc", "no Content-Length: warcio reads to the end of the file (41), warcdex takes an empty block (37) and counts bad-content-length"),
    ("jwat/jwat-warc/invalid-warcfile-lonely-monkeys.warc", "no Content-Length, as above (29 vs 31)"),
    ("jwat/jwat-warc/invalid-warcfile-lonely-warcinfo-metadata.warc", "no Content-Length: warcio swallows the second record into the first; warcdex reads both"),
    ("netarchivesuite/indexserver/data/originals/arcfiles/3-metadata-2.arc", "ARC lengths wrong: warcio takes body lines for ARC headers (URL \"metadata\"); warcdex resynchronises on the real header lines"),
    ("netarchivesuite/indexserver/data/originals/arcfiles/4-metadata-1.arc", "as above"),
];

/// Files warcio reads without error where the reader must report an error after what it kept.
const EXPECT_ERROR: [(&str, u64, &str); 1] = [(
    "resiliparse/clipped.warc.gz",
    1,
    "the only gzip member is cut short: the record is kept (as warcio keeps it) and the error follows",
)];

/// Files warcio could not read (RUNS.json `failed`): the record count warcdex reaches,
/// and whether an error is expected. Every one is also pinned by a snapshot.
const WARCIO_FAILED: [(&str, usize, bool, &str); 12] = [
    (
        "aut/arc/badexample.arc.gz",
        4,
        false,
        "whole-file gzip ARC: 4 records, each with the member's offset and length",
    ),
    (
        "jwat/jwat-arc/invalid-arcfile-record-then-garbage.arc",
        1,
        false,
        "no filedesc; one record, then garbage counted",
    ),
    (
        "jwat/jwat-warc/invalid-warcfile-fields-empty.warc",
        1,
        false,
        "empty header values; the second 'record' is HTTP text, counted as garbage",
    ),
    (
        "jwat/jwat-warc/invalid-warcfile-fields-invalidformat.warc",
        1,
        false,
        "as above",
    ),
    (
        "jwat/jwat-warc/invalid-warcfile-lonely-request-response-resource-conversion.warc",
        4,
        false,
        "records without WARC-Target-URI are still records",
    ),
    (
        "jwat/jwat-warc/invalid-warcfile-lonely-revisit.warc",
        1,
        false,
        "revisit without WARC-Target-URI",
    ),
    (
        "jwat/jwat-warc/invalid-warcfile-record-then-garbage.warc",
        1,
        false,
        "garbage after the record is counted, not parsed as an ARC record",
    ),
    (
        "pywb-2.10.0/warcs/example-bad.warc.gz.bad",
        6,
        false,
        "whole-file gzip WARC",
    ),
    (
        "warcio-py/example-bad-non-chunked.warc.gz",
        6,
        false,
        "whole-file gzip WARC",
    ),
    (
        "warcio-py/example-wrong-chunks.warc.gz",
        2,
        false,
        "gzip members not aligned with records: both records are read",
    ),
    (
        "webarchive-commons/format/arc/IAH-20080430204825-00000-blackbook-truncated.arc",
        9,
        false,
        "filedesc length wrong; every record after it is read",
    ),
    (
        "webarchive-commons/resource/html/link-extraction-test.warc",
        8,
        false,
        "hand-edited Content-Lengths; resynchronised on every record",
    ),
];

fn parse_lines(s: &str) -> Vec<BTreeMap<String, Value>> {
    s.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l:?}: {e}")))
        .collect()
}

fn runs() -> BTreeMap<String, Value> {
    let p = corpus().join("expected/RUNS.json");
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
                out.push(format!(
                    "record {i} {f}: ours {:?}, warcio {:?}",
                    a.get(f),
                    b.get(f)
                ));
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
    let corpus = corpus();
    let real = corpus.join("real");
    let expected = corpus.join("expected/warcio-index");
    let runs = runs();
    assert!(runs.len() >= 185, "RUNS.json lists {} files", runs.len());
    let mut problems = Vec::new();
    let (mut identical, mut deliberate, mut failed_seen) = (0, 0, 0);
    for (file, run) in &runs {
        let path = real.join(file);
        let (text, report) = records_of(&path, 256 * 1024, RecordsOptions::default());
        let ours = parse_lines(&text);
        let theirs_text =
            std::fs::read_to_string(expected.join(format!("{file}.jsonl"))).unwrap_or_default();
        let theirs = parse_lines(&theirs_text);
        let warcio_failed = run["warcio-index"]["failed"].as_bool().unwrap_or(true);
        if let Some((_, n, want_err, _)) = WARCIO_FAILED.iter().find(|(f, ..)| f == file) {
            failed_seen += 1;
            if !warcio_failed {
                problems.push(format!(
                    "{file}: listed as failed in warcio but RUNS.json says it succeeded"
                ));
            }
            if ours.len() != *n || report.error.is_some() != *want_err {
                problems.push(format!(
                    "{file}: {} records (want {n}), error {:?}",
                    ours.len(),
                    report.error.map(|e| e.to_string())
                ));
            }
            if let Err(e) = check_snapshot(&format!("corpus-records/{file}.jsonl"), &text) {
                problems.push(e);
            }
            continue;
        }
        if warcio_failed {
            problems.push(format!(
                "{file}: warcio failed on it but it is not in WARCIO_FAILED"
            ));
            continue;
        }
        if DELIBERATE.iter().any(|(f, _)| f == file) {
            deliberate += 1;
            if diff(&ours, &theirs).is_empty() {
                problems.push(format!(
                    "{file}: listed as a deliberate difference but identical to warcio"
                ));
            }
            if let Err(e) = check_snapshot(&format!("corpus-records/{file}.jsonl"), &text) {
                problems.push(e);
            }
            continue;
        }
        let d = diff(&ours, &theirs);
        let want_err = EXPECT_ERROR.iter().find(|(f, ..)| f == file);
        match (want_err, &report.error) {
            (Some((_, n, _)), Some(e)) => {
                assert!(
                    e.offset().is_some() && e.path().is_some(),
                    "{file}: error lacks a location: {e}"
                );
                assert_eq!(
                    ours.len() as u64,
                    *n,
                    "{file}: records kept before the error"
                );
            }
            (Some(_), None) => problems.push(format!("{file}: expected an error")),
            (None, Some(e)) => problems.push(format!("{file}: unexpected error {e}")),
            (None, None) => {}
        }
        if d.is_empty() {
            identical += 1;
        } else {
            problems.push(format!("{file}: {}", d.join("; ")));
        }
    }
    for p in &problems {
        eprintln!("{p}");
    }
    eprintln!("{identical} files identical to warcio, {deliberate} deliberate differences, {failed_seen} files warcio could not read");
    assert!(
        problems.is_empty(),
        "{} files differ:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert_eq!(failed_seen, WARCIO_FAILED.len());
    assert_eq!(deliberate, DELIBERATE.len());
}

/// The same corpus at the small read sizes: the output must not depend on where reads
/// split the input. Size 1 is limited to files under 32 KB and 7 to files under 512 KB
/// to keep the test quick; 4096 runs on everything.
#[test]
fn corpus_output_does_not_depend_on_read_size() {
    let corpus = corpus();
    let real = corpus.join("real");
    let mut checked = 0;
    for file in runs().keys() {
        let path = real.join(file);
        let len = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        let (want, wr) = records_of(&path, 256 * 1024, RecordsOptions::default());
        for size in BUFFER_SIZES {
            if (size == 1 && len > 32 * 1024) || (size == 7 && len > 512 * 1024) {
                continue;
            }
            assert_same_at_read_size(&path, size, RecordsOptions::default(), &want, &wr);
            checked += 1;
        }
    }
    assert!(checked > 500, "only {checked} runs");
}
