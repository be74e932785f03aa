//! Reader tests on the small fixtures: every read size gives the same records, the
//! defects each fixture is named for are counted, and clipped gzip never panics.

use warcdex::reader::error::AnomalyKind;
use warcdex::reader::records::RecordsOptions;

use crate::util::{
    assert_same_at_read_size, check_snapshot, fixtures, records_of, records_of_bytes, BUFFER_SIZES,
};

/// Every fixture archive, with the anomaly it must report (if any) and its record count.
const FIXTURES: [(&str, usize, Option<AnomalyKind>); 18] = [
    ("warc/example.warc.gz", 6, None),
    ("warc/wget-fextra.warc.gz", 2, None),
    (
        "warc/empty-gzip-members.warc.gz",
        9,
        Some(AnomalyKind::EmptyGzipMember),
    ),
    (
        "warc/continuation-lines.warc",
        1,
        Some(AnomalyKind::HeaderContinuation),
    ),
    (
        "warc/lf-only-headers.warc.gz",
        1,
        Some(AnomalyKind::LfLineEndings),
    ),
    ("warc/block-crossing.warc.gz", 2, None),
    ("arc/example.arc.gz", 2, None),
    (
        "arc/spaces-in-url.arc.gz",
        2,
        Some(AnomalyKind::ArcUrlWithSpaces),
    ),
    (
        "bad/nul-bytes-after-record.warc",
        4,
        Some(AnomalyKind::GarbageBetweenRecords),
    ),
    (
        "bad/trunc-mid-body.warc",
        3,
        Some(AnomalyKind::TruncatedRecord),
    ),
    (
        "bad/content-length-short.warc",
        6,
        Some(AnomalyKind::GarbageBetweenRecords),
    ),
    (
        "bad/content-length-long.warc",
        3,
        Some(AnomalyKind::ContentLengthMismatch),
    ),
    (
        "bad/content-length-long.warc.gz",
        3,
        Some(AnomalyKind::ContentLengthMismatch),
    ),
    (
        "bad/garbage-between-records.warc",
        3,
        Some(AnomalyKind::GarbageBetweenRecords),
    ),
    (
        "bad/garbage-between-records.warc.gz",
        3,
        Some(AnomalyKind::GarbageBetweenRecords),
    ),
    (
        "bad/missing-trailing-newlines.warc",
        3,
        Some(AnomalyKind::MissingTrailingNewline),
    ),
    (
        "bad/whole-file-gzip.warc.gz",
        6,
        Some(AnomalyKind::MultiRecordGzipMember),
    ),
    (
        "bad/clipped-gzip.warc.gz",
        1,
        Some(AnomalyKind::TruncatedRecord),
    ),
];

#[test]
fn fixtures_give_the_same_records_at_every_read_size() {
    for (name, count, anomaly) in FIXTURES {
        let path = fixtures().join(name);
        let (want, report) = records_of(
            &path,
            256 * 1024,
            RecordsOptions {
                digest: true,
                verify: false,
            },
        );
        assert_eq!(want.lines().count(), count, "{name}: record count");
        if let Some(kind) = anomaly {
            assert!(
                report.counts.get(kind) > 0,
                "{name}: expected {kind:?}, got {}",
                report.counts
            );
        } else {
            assert_eq!(
                report.counts.total(),
                0,
                "{name}: unexpected anomalies {}",
                report.counts
            );
        }
        check_snapshot(&format!("{name}.records.jsonl"), &want).unwrap_or_else(|e| panic!("{e}"));
        for size in BUFFER_SIZES {
            let opts = RecordsOptions {
                digest: true,
                verify: false,
            };
            assert_same_at_read_size(&path, size, opts, &want, &report);
        }
    }
}

#[test]
fn clipped_error_names_the_file_and_offset() {
    let path = fixtures().join("bad/clipped-gzip.warc.gz");
    let (_, report) = records_of(&path, 4096, RecordsOptions::default());
    let e = report.error.expect("a cut gzip member is an error");
    let msg = e.to_string();
    assert!(
        msg.contains("clipped-gzip.warc.gz") && msg.contains("offset 18184"),
        "{msg}"
    );
}

/// Every gzip fixture cut at every byte: an error with an offset, or a clean shorter
/// result; never a panic, and never more records than the whole file has.
#[test]
fn gzip_fixtures_clipped_at_every_byte() {
    for (name, count, _) in FIXTURES {
        if !name.ends_with(".gz") || name.contains("clipped") {
            continue;
        }
        let bytes = std::fs::read(fixtures().join(name)).expect("fixture");
        for cut in 0..bytes.len() {
            for size in [7, 4096] {
                let (out, report) = records_of_bytes(&bytes[..cut], size);
                let n = out.lines().count();
                assert!(n <= count, "{name} cut at {cut}: {n} records > {count}");
                if let Some(e) = &report.error {
                    assert!(
                        e.offset().is_some(),
                        "{name} cut at {cut}: error without offset: {e}"
                    );
                }
            }
        }
    }
}

#[test]
fn verify_reports_stored_and_dechunked_matches() {
    let (out, _) = records_of(
        &fixtures().join("warc/example.warc.gz"),
        4096,
        RecordsOptions {
            digest: false,
            verify: true,
        },
    );
    let checks: Vec<&str> = out
        .lines()
        .map(|l| {
            l.split("\"digest-check\": \"")
                .nth(1)
                .unwrap_or("")
                .trim_end_matches("\"}")
        })
        .collect();
    // Only the two responses carry a payload digest to check; a revisit's digest is the
    // original's and is never recomputed.
    assert_eq!(
        checks,
        ["none", "ok", "none", "none", "none", "ok"],
        "{out}"
    );
}
