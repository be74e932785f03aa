//! The capture table, `COLL/captures/<batch>.parquet`: one row per capture of
//! `all.cdx` (revisits included), kept by `update` batch by batch, with typed columns
//! (DuckDB reads them without casts: scripts/test-captures-duckdb.sh); a capture of a
//! version first seen in an earlier batch carries that version's language.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use arrow_array::{Array, Int32Array, Int64Array, StringArray, TimestampMicrosecondArray};
use arrow_schema::{DataType, TimeUnit};

use crate::util::{fixtures, run_warcdex, write_warc};

const NET: &str = "http://www.example.net/";

fn net_page() -> String {
    "<html><head><title>Example net</title></head><body><p>The example network is where \
     the examples of the documentation live, and every one of them is short.</p></body></html>"
        .into()
}

/// Three batches: the example crawls of 2007 (ARC and WARC, revisits), a page of 2023,
/// then the zstd WARC of 2014 (revisits) with the same page unchanged in 2024.
fn collection(dir: &Path) -> PathBuf {
    let coll = dir.join("coll");
    let example = fixtures().join("example");
    let mut first: Vec<PathBuf> = (std::fs::read_dir(&example).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_str().unwrap().contains("/crawl"))
        .collect();
    first.sort();
    let second = dir.join("net-2023.warc");
    write_warc(
        &second,
        &[(NET.into(), "2023-03-01T10:00:00Z".into(), net_page())],
    );
    let third = dir.join("net-2024.warc");
    write_warc(
        &third,
        &[(NET.into(), "2024-03-02T10:00:00Z".into(), net_page())],
    );
    let batches = vec![
        first,
        vec![second],
        vec![fixtures().join("zstd/dupes.warc.zst"), third],
    ];
    for archives in batches {
        let mut args: Vec<&std::ffi::OsStr> = vec!["update".as_ref(), coll.as_os_str()];
        args.extend(archives.iter().map(|p| p.as_os_str()));
        let (code, _, err) = run_warcdex(&args);
        assert_eq!(code, 0, "{err}");
    }
    coll
}

/// Every row of every capture table: (surt, 14-digit date, digest, mime, status,
/// offset, length, language, domain, batch).
type Row = (
    String,
    String,
    String,
    String,
    String,
    i64,
    i64,
    String,
    String,
    String,
);

fn read_tables(coll: &Path) -> Vec<Row> {
    let mut files: Vec<PathBuf> = (std::fs::read_dir(coll.join("captures")).unwrap())
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut rows = Vec::new();
    for f in files {
        assert_eq!(f.extension().unwrap(), "parquet", "{}", f.display());
        let file = std::fs::File::open(&f).unwrap();
        let reader =
            parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
        let schema = reader.schema().clone();
        assert_eq!(
            schema.field_with_name("capture_time").unwrap().data_type(),
            &DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
        );
        assert_eq!(
            schema.field_with_name("status").unwrap().data_type(),
            &DataType::Int32
        );
        for batch in reader.build().unwrap() {
            let b = batch.unwrap();
            let text = |n: &str| {
                b.column_by_name(n)
                    .unwrap()
                    .as_any()
                    .downcast_ref::<StringArray>()
                    .unwrap()
                    .clone()
            };
            let int = |n: &str| {
                b.column_by_name(n)
                    .unwrap()
                    .as_any()
                    .downcast_ref::<Int64Array>()
                    .unwrap()
                    .clone()
            };
            let (surt, digest, mime, lang, domain, batch_name) = (
                text("surt"),
                text("digest"),
                text("mime"),
                text("language"),
                text("domain"),
                text("batch"),
            );
            let status = b
                .column_by_name("status")
                .unwrap()
                .as_any()
                .downcast_ref::<Int32Array>()
                .unwrap()
                .clone();
            let time = b
                .column_by_name("capture_time")
                .unwrap()
                .as_any()
                .downcast_ref::<TimestampMicrosecondArray>()
                .unwrap()
                .clone();
            let (offset, length) = (int("record_offset"), int("record_length"));
            for i in 0..b.num_rows() {
                let t = time.value(i);
                let secs = t.div_euclid(1_000_000);
                let d = warcdex_cdx::date::Date14::from_unix(secs)
                    .unwrap()
                    .to_string();
                let opt = |a: &StringArray| {
                    if a.is_null(i) {
                        "-".to_string()
                    } else {
                        a.value(i).to_string()
                    }
                };
                rows.push((
                    surt.value(i).to_string(),
                    d,
                    opt(&digest),
                    opt(&mime),
                    if status.is_null(i) {
                        "-".into()
                    } else {
                        status.value(i).to_string()
                    },
                    offset.value(i),
                    length.value(i),
                    opt(&lang),
                    opt(&domain),
                    batch_name.value(i).to_string(),
                ));
            }
        }
    }
    rows
}

#[test]
fn the_capture_table_holds_every_line_of_all_cdx() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = collection(tmp.path());
    let rows = read_tables(&coll);
    let all = std::fs::read_to_string(coll.join("all.cdx")).unwrap();
    // Each CDX line is a row: key, date, digest, mime, status, offset, length.
    let mut want: Vec<String> = (all.lines().skip(1))
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            format!(
                "{} {} sha1:{} {} {} {} {}",
                f[0], f[1], f[5], f[3], f[4], f[9], f[8]
            )
        })
        .collect();
    want.sort();
    let mut got: Vec<String> = (rows.iter())
        .map(|r| format!("{} {} {} {} {} {} {}", r.0, r.1, r.2, r.3, r.4, r.5, r.6))
        .collect();
    got.sort();
    assert_eq!(got, want);
    // Captures per year, as a DuckDB GROUP BY would count them.
    let mut per_year: BTreeMap<String, u64> = BTreeMap::new();
    for l in all.lines().skip(1) {
        *per_year
            .entry(l.split(' ').nth(1).unwrap()[..4].into())
            .or_default() += 1;
    }
    let mut table_years: BTreeMap<String, u64> = BTreeMap::new();
    for r in &rows {
        *table_years.entry(r.1[..4].into()).or_default() += 1;
    }
    assert_eq!(table_years, per_year);
    assert_eq!(per_year.len(), 4, "{per_year:?}");
    assert!(
        rows.iter().any(|r| r.3 == "warc/revisit"),
        "revisits are rows"
    );
    // The 2024 capture is of the version of 2023: same language, batch 3's row.
    let net: Vec<&Row> = rows.iter().filter(|r| r.0 == "net,example)/").collect();
    assert_eq!(net.len(), 2);
    assert_eq!(net[0].7, "en");
    assert_eq!(net[1].7, "en");
    assert_eq!(net[1].9, "batch-0003");
    assert!(rows
        .iter()
        .all(|r| r.8.starts_with("example.") || r.8 == "iana.org"));
}

#[test]
fn a_batch_without_its_table_gets_it_at_the_next_update() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = collection(tmp.path());
    let before = read_tables(&coll);
    let t2 = coll.join("captures/batch-0002.parquet");
    std::fs::remove_file(&t2).unwrap();
    // An update that adds nothing (the archive is already in) still writes it.
    let again = tmp.path().join("net-2023.warc");
    let (code, _, err) = run_warcdex(&["update".as_ref(), coll.as_os_str(), again.as_os_str()]);
    assert_eq!(code, 0, "{err}");
    assert!(t2.exists());
    assert_eq!(read_tables(&coll), before);
}

#[test]
fn a_batch_of_dates_only_gets_its_table_and_leaves_exports_working() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = tmp.path().join("coll");
    let example = fixtures().join("example");
    let first = example.join("crawl4-20071004.warc.gz");
    let (code, _, err) = run_warcdex(&["update".as_ref(), coll.as_os_str(), first.as_os_str()]);
    assert_eq!(code, 0, "{err}");
    // The same records under another name: a batch of no new version (an empty set).
    let again = tmp.path().join("copy-20071004.warc.gz");
    std::fs::copy(&first, &again).unwrap();
    let (code, _, err) = run_warcdex(&["update".as_ref(), coll.as_os_str(), again.as_os_str()]);
    assert_eq!(code, 0, "{err}");
    assert!(coll.join("captures/batch-0002.parquet").exists());
    let rows = read_tables(&coll);
    let all = std::fs::read_to_string(coll.join("all.cdx")).unwrap();
    assert_eq!(rows.len(), all.lines().count() - 1);
    let (code, out, err) = run_warcdex(&["export", "-d", coll.to_str().unwrap(), "*"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.lines().count() > 1, "{out}");
}
