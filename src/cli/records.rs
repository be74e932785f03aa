//! `warcdex records FILE...`

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use warcdex::progress::bytes_bar;
use warcdex::reader::error::AnomalyCounts;
use warcdex::reader::records::{write_records, RecordsOptions};
use warcdex::reader::wacz::archive_parts;
use warcdex::reader::ReaderOptions;

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
    /// Exit 1 when any file is damaged or any anomaly was found (see "Exit status").
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
    // Per file given (a WACZ is one file, whatever its parts): unreadable, or damaged.
    let (mut records, mut unreadable, mut damaged) = (0u64, 0u64, 0u64);
    for path in &args.files {
        let parts = match archive_parts(path) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("warcdex: {e}");
                unreadable += 1;
                continue;
            }
        };
        // What the file's parts came to: read at all, read with damage or an error.
        let (mut part_read, mut part_damaged, mut unverified) = (false, false, false);
        if args.verify {
            if let Some((wacz, _)) = &parts[0].in_wacz {
                // A WACZ whose entries cannot be read is one unreadable file, not the
                // end of the run.
                let v = match wacz.verify(args.max_messages) {
                    Ok(v) => v,
                    Err(e) => {
                        eprintln!("warcdex: {}: {e}", path.display());
                        unreadable += 1;
                        continue;
                    }
                };
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
                // Failed as `cdx` and `import` fail it (they do not read it): unreadable;
                // `records` still prints what it holds, to show what is wrong.
                unverified = !v.is_whole();
            }
        }
        for part in &parts {
            let name = part.display_path();
            let mut reader = match part.open(ReaderOptions::default()) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("warcdex: {e}");
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
            }
            // An error before the first record: nothing of it could be read.
            if report.error.is_none() || report.records > 0 {
                part_read = true;
            }
            if report.error.is_some() || report.counts.damage() > 0 {
                part_damaged = true;
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
        if !part_read || unverified {
            unreadable += 1;
        } else if part_damaged {
            damaged += 1;
        }
    }
    out.flush()?;
    bar.finish_and_clear();
    eprintln!(
        "warcdex records: {} files ({unreadable} unreadable, {damaged} damaged), {records} records; anomalies: {total}",
        args.files.len()
    );
    Ok(super::exit_status(
        unreadable,
        damaged,
        total.total(),
        args.strict,
    ))
}
