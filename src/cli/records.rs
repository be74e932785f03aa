//! `warcdex records FILE...`

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use warcdex::error::AnomalyCounts;
use warcdex::progress::bytes_bar;
use warcdex::reader::ReaderOptions;
use warcdex::records::{write_records, RecordsOptions};
use warcdex::wacz::archive_parts;

/// Flags of `warcdex records`.
#[derive(Debug, Args)]
pub struct RecordsArgs {
    /// ARC or WARC files (plain, gzip or zstd) or WACZ files (each WARC inside); `-`
    /// reads standard input.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Add `payload-digest`, computing base32 SHA-1 of the payload where the record
    /// carries no sha1 digest.
    #[arg(long)]
    pub digest: bool,
    /// Recompute payload digests and report mismatches (stored and de-chunked forms);
    /// check each WACZ's `datapackage.json` (every resource's size and SHA-256).
    #[arg(long)]
    pub verify: bool,
    /// Exit 1 when any anomaly or error was found.
    #[arg(long)]
    pub strict: bool,
    /// Print at most this many anomaly messages per file and kind (counts are complete).
    #[arg(long, default_value_t = 5)]
    pub max_messages: usize,
}

/// Runs `records`; returns the exit code.
pub fn run(args: RecordsArgs) -> Result<i32> {
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let bar = bytes_bar(super::inputs_total_size(&args.files), "records");
    let opts = RecordsOptions {
        digest: args.digest,
        verify: args.verify,
    };
    let mut total = AnomalyCounts::default();
    let (mut records, mut failed_files, mut unopened) = (0u64, 0u64, 0u64);
    for path in &args.files {
        let parts = match archive_parts(path) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("warcdex: {e}");
                unopened += 1;
                failed_files += 1;
                continue;
            }
        };
        if args.verify {
            if let Some((wacz, _)) = &parts[0].in_wacz {
                let v = wacz.verify(args.max_messages)?;
                for p in &v.problems {
                    eprintln!("warcdex: {}: datapackage.json: {p}", path.display());
                }
                let more = v.problem_count - v.problems.len() as u64;
                if more > 0 {
                    eprintln!(
                        "warcdex: {}: datapackage.json: … and {more} more problems",
                        path.display()
                    );
                }
                eprintln!(
                    "warcdex: {}: datapackage.json: {} resources verified, {} problems",
                    path.display(),
                    v.checked,
                    v.problem_count
                );
                if !v.is_whole() {
                    failed_files += 1;
                }
            }
        }
        for part in &parts {
            let name = part.display_path();
            let mut reader = match part.open(ReaderOptions::default()) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("warcdex: {e}");
                    unopened += 1;
                    failed_files += 1;
                    continue;
                }
            };
            let mut shown = std::collections::HashMap::new();
            let max = args.max_messages;
            let report = write_records(&mut reader, &mut out, opts, &mut |a| {
                let n = shown.entry(a.kind).or_insert(0usize);
                *n += 1;
                if *n <= max {
                    eprintln!("warcdex: {}: {a}", name.display());
                }
            })?;
            bar.inc(part.stored_len());
            records += report.records;
            total.merge(&report.counts);
            if let Some(e) = &report.error {
                eprintln!("warcdex: {e} (kept {} records before it)", report.records);
                failed_files += 1;
            }
            if report.counts.total() > 0 {
                eprintln!(
                    "warcdex: {}: {} records; anomalies: {}",
                    name.display(),
                    report.records,
                    report.counts
                );
            }
        }
    }
    out.flush()?;
    bar.finish_and_clear();
    eprintln!(
        "warcdex records: {} files, {records} records, {failed_files} files with errors; anomalies: {total}",
        args.files.len()
    );
    // A file that cannot be opened is a failure; damage inside a file is reported and
    // counted, and fails the run only with --strict.
    Ok(
        if unopened > 0 || (args.strict && (failed_files > 0 || total.total() > 0)) {
            1
        } else {
            0
        },
    )
}
