//! `warcdex cdx` against every corpus archive that pywb 2.10 `cdx-indexer` and
//! `cdxj-indexer` 1.5 index without error, byte for byte
//! (`fixtures/corpus/expected/{pywb-cdx-indexer-cdx11-sorted,
//! pywb-cdx-indexer-cdx11-allrecords, cdxj-indexer}/`).

use std::path::Path;

use serde_json::Value;
use warcdex::cdx_writer::run::{run_cdx, RunOptions};
use warcdex::cdx_writer::CdxOptions;
use warcdex_cdx::{CdxFormat, KeyStyle};

use crate::util::{check_snapshot, corpus};

/// Files where the reference tool is wrong and warcdex differs on purpose; each is in
/// `docs/cdx-differences.md`, and our output is pinned by the snapshot
/// `fixtures/cdx-differences/<tool>/<file>.<ext>`.
const DIFFERENCES: [(&str, &str); 7] = [
    (
        "pywb-cdx-indexer-cdx11-sorted",
        "netarchivesuite/indexserver/data/originals/arcfiles/3-metadata-2.arc",
    ),
    (
        "pywb-cdx-indexer-cdx11-sorted",
        "netarchivesuite/indexserver/data/originals/arcfiles/4-metadata-1.arc",
    ),
    (
        "pywb-cdx-indexer-cdx11-allrecords",
        "netarchivesuite/indexserver/data/originals/arcfiles/3-metadata-2.arc",
    ),
    (
        "pywb-cdx-indexer-cdx11-allrecords",
        "netarchivesuite/indexserver/data/originals/arcfiles/4-metadata-1.arc",
    ),
    (
        "cdxj-indexer",
        "netarchivesuite/indexserver/data/originals/arcfiles/3-metadata-2.arc",
    ),
    (
        "cdxj-indexer",
        "netarchivesuite/indexserver/data/originals/arcfiles/4-metadata-1.arc",
    ),
    (
        "cdxj-indexer",
        "jwat/jwat-warc/valid-warcfile-fields-metainfo.warc",
    ),
];

/// Runs `warcdex cdx` in-process over one file.
pub fn cdx_of(path: &Path, cdx: CdxOptions, sort: bool) -> String {
    let opts = RunOptions {
        cdx,
        sort,
        sort_memory: 1 << 20,
        ..RunOptions::default()
    };
    let mut out = Vec::new();
    run_cdx(&[path.to_path_buf()], &opts, &mut out, &(), &mut |_| {}).expect("in-memory output");
    String::from_utf8(out).expect("CDX is UTF-8")
}

fn compare_with(tool: &str, ext: &str, cdx: CdxOptions, sort: bool) {
    let expected = corpus().join("expected");
    let runs: Value = serde_json::from_str(
        &std::fs::read_to_string(expected.join("RUNS.json")).expect("RUNS.json"),
    )
    .expect("RUNS.json is JSON");
    let (mut same, mut pinned) = (0, 0);
    let mut failures = Vec::new();
    for (file, run) in runs.as_object().expect("object") {
        if run[tool]["failed"] != Value::Bool(false) {
            continue;
        }
        let path = corpus().join("real").join(file);
        let got = cdx_of(&path, cdx, sort);
        let want = std::fs::read_to_string(expected.join(tool).join(format!("{file}{ext}")))
            .expect("expected output");
        if DIFFERENCES.contains(&(tool, file.as_str())) {
            assert_ne!(
                got, want,
                "{file}: listed as a difference but now identical to {tool}"
            );
            match check_snapshot(&format!("cdx-differences/{tool}/{file}{ext}"), &got) {
                Ok(()) => pinned += 1,
                Err(e) => failures.push(e),
            }
            continue;
        }
        if got == want {
            same += 1;
        } else {
            let line = want
                .lines()
                .zip(got.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(want.lines().count().min(got.lines().count()));
            failures.push(format!(
                "{file}: line {}:\n  {tool}: {}\n  warcdex: {}",
                line + 1,
                want.lines().nth(line).unwrap_or("<end>"),
                got.lines().nth(line).unwrap_or("<end>")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} files differ from {tool} ({same} identical):\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(same > 150, "only {same} files compared with {tool}");
    assert_eq!(pinned, DIFFERENCES.iter().filter(|d| d.0 == tool).count());
}

#[test]
fn cdx11_sorted_matches_pywb() {
    compare_with(
        "pywb-cdx-indexer-cdx11-sorted",
        ".cdx",
        CdxOptions::default(),
        true,
    );
}

#[test]
fn cdx11_all_records_matches_pywb() {
    let cdx = CdxOptions {
        all_records: true,
        ..CdxOptions::default()
    };
    compare_with("pywb-cdx-indexer-cdx11-allrecords", ".cdx", cdx, true);
}

#[test]
fn cdxj_matches_cdxj_indexer() {
    let cdx = CdxOptions {
        format: CdxFormat::Cdxj,
        ..CdxOptions::default()
    };
    compare_with("cdxj-indexer", ".cdxj", cdx, false);
}

/// The 9-field layout and non-SURT keys (pywb `-9`, `-u`) on pywb's example WARC.
#[test]
fn cdx9_and_url_keys() {
    let warc = corpus().join("real/pywb-2.10.0/warcs/example.warc.gz");
    let cdx9 = cdx_of(
        &warc,
        CdxOptions {
            format: CdxFormat::Cdx9,
            ..CdxOptions::default()
        },
        true,
    );
    let cdx11 = cdx_of(&warc, CdxOptions::default(), true);
    // The 9-field layout is the 11-field one without M and S (pywb CDX09 writer).
    let projected: String = cdx11
        .lines()
        .map(|l| {
            if l.starts_with(" CDX") {
                " CDX N b a m s k r V g\n".to_string()
            } else {
                let f: Vec<&str> = l.split(' ').collect();
                format!("{} {}\n", f[..7].join(" "), f[9..].join(" "))
            }
        })
        .collect();
    assert_eq!(cdx9, projected);
    // pywb ships `cdx-indexer -u` output for the same WARC.
    let urls = cdx_of(
        &warc,
        CdxOptions {
            key: KeyStyle::Url,
            ..CdxOptions::default()
        },
        true,
    );
    let want = std::fs::read_to_string(
        corpus().join("real/pywb-2.10.0/non-surt-cdx/example-non-surt.cdx"),
    )
    .expect("pywb sample");
    assert_eq!(urls, want);
}
