//! Generates a synthetic main index for `scripts/bench-dates.sh`: N one-date documents
//! `http://example.com/pNNNNNNNNN` with digest `sha1:` + the number on 32 digits, so
//! that the dates list can be written by awk in the index's order.
//!
//! Usage: `dates_bench_main DIR N` → DIR/seg-K (segments of 100 000 rows), DIR/main.

use std::path::PathBuf;

use warcdex::import::segment_dir::write_segment;
use warcdex::import::ImportOptions;
use warcdex::index::{build_index, IndexOptions};
use warcdex::segment::SegmentRow;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: dates_bench_main DIR N");
        std::process::exit(2);
    }
    let dir = PathBuf::from(&args[1]);
    let n: u64 = args[2].parse().expect("N is a number");
    let opts = ImportOptions::default();
    let chunk = 100_000;
    let mut segments = Vec::new();
    for (k, start) in (0..n).step_by(chunk as usize).enumerate() {
        let rows: Vec<SegmentRow> = (start..(start + chunk).min(n))
            .map(|i| {
                let url = format!("http://example.com/p{i:09}");
                let digest = format!("sha1:{i:032}");
                let date = "20070101000000".to_string();
                SegmentRow {
                    key: format!("{url} {digest}"),
                    urlkey: format!("com,example)/p{i:09}"),
                    url,
                    digest,
                    dates: vec![date.clone()],
                    first_date: date,
                    mime: "text/html".into(),
                    status: Some(200),
                    title: Some(format!("page {i}")),
                    text: format!("synthetic page number {i}"),
                    collection: "bench".into(),
                    filename: "bench.warc.gz".into(),
                    ..SegmentRow::default()
                }
            })
            .collect();
        let seg = dir.join(format!("seg-{k}"));
        write_segment(&seg, &rows, Vec::new(), &opts, None)?;
        segments.push(seg);
    }
    let info = build_index(&segments, &dir.join("main"), &IndexOptions::default())?;
    eprintln!(
        "{} documents in {}",
        info.documents,
        dir.join("main").display()
    );
    Ok(())
}
