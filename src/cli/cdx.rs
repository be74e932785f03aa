//! `warcdex cdx [--format cdx11|cdx9|cdxj] [--all-records] [--sort] [--key surt|url] [-o OUT] FILE...`

use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, ValueEnum};

use warcdex::cdx_writer::run::{run_cdx, RunOptions};
use warcdex::cdx_writer::CdxOptions;
use warcdex::progress::bytes_bar;
use warcdex_cdx::{CdxFormat, KeyStyle};

/// Output layouts.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FormatArg {
    /// ` CDX N b a m s k r M S V g` (pywb `cdx-indexer`).
    Cdx11,
    /// ` CDX N b a m s k r V g` (pywb `cdx-indexer -9`).
    Cdx9,
    /// `urlkey timestamp {json}` (`cdxj-indexer`).
    Cdxj,
}

/// URL key styles.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum KeyArg {
    /// SURT keys: `org,example)/path`.
    Surt,
    /// Canonical URLs without the SURT reordering: `example.org/path` (pywb `-u`).
    Url,
}

impl KeyArg {
    /// The canonicalizer this names.
    pub fn style(self) -> KeyStyle {
        match self {
            KeyArg::Surt => KeyStyle::Surt,
            KeyArg::Url => KeyStyle::Url,
        }
    }
}

/// Flags of `warcdex cdx`.
#[derive(Debug, Args)]
pub struct CdxArgs {
    /// ARC or WARC files (plain, gzip or zstd) or WACZ files (each WARC inside); `-`
    /// reads standard input.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Output layout.
    #[arg(long, value_enum, default_value = "cdx11")]
    pub format: FormatArg,
    /// Index request records too (pywb `-a`).
    #[arg(short = 'a', long)]
    pub all_records: bool,
    /// Append a POST/PUT request's form body to its response's URL key (pywb `-p`).
    #[arg(short = 'p', long)]
    pub post_append: bool,
    /// Sort the output in C byte order (as `LC_ALL=C sort`), in bounded memory.
    #[arg(short = 's', long)]
    pub sort: bool,
    /// URL key style.
    #[arg(long, value_enum, default_value = "surt")]
    pub key: KeyArg,
    /// The output file.
    #[command(flatten)]
    pub output: super::OutputFlag,
    /// Threads (default: the number of CPUs): files indexed at once; with fewer files than
    /// twice the threads, a large gzip WARC is cut into pieces at record starts and its
    /// pieces indexed at once, with the same output as one thread.
    #[arg(short = 'j', long)]
    pub jobs: Option<usize>,
    /// Memory and temporary files of `--sort`.
    #[command(flatten)]
    pub memory: super::MemoryFlags,
    /// Exit 1 when any file is damaged or any anomaly was found (see "Exit status").
    #[arg(long)]
    pub strict: bool,
    /// Print at most this many messages per file and anomaly kind (counts are complete).
    #[arg(long, default_value_t = 5)]
    pub max_messages: usize,
    /// Check each WACZ's `datapackage.json` (every resource's size and SHA-256) first; a
    /// WACZ that fails is reported and not indexed.
    #[arg(long)]
    pub verify: bool,
}

/// Runs `cdx`; returns the exit code.
pub fn run(args: CdxArgs) -> Result<i32> {
    args.memory.check()?;
    let opts = RunOptions {
        cdx: CdxOptions {
            format: match args.format {
                FormatArg::Cdx11 => CdxFormat::Cdx11,
                FormatArg::Cdx9 => CdxFormat::Cdx9,
                FormatArg::Cdxj => CdxFormat::Cdxj,
            },
            all_records: args.all_records,
            post_append: args.post_append,
            key: args.key.style(),
        },
        sort: args.sort,
        sort_memory: args.memory.bytes(1),
        tmp_dir: args.memory.tmp_dir.clone(),
        jobs: args.jobs.unwrap_or_else(rayon::current_num_threads).max(1),
        max_messages: args.max_messages,
        verify_wacz: args.verify,
        ..RunOptions::default()
    };
    let bar = bytes_bar(super::inputs_total_size(&args.files), "cdx");
    let mut log = |m: &str| {
        bar.suspend(|| eprintln!("warcdex: {m}"));
    };
    let report = super::with_output(args.output.output.as_deref(), |out| {
        Ok(run_cdx(&args.files, &opts, out, &bar, &mut log)?)
    })?;
    bar.finish_and_clear();
    let t = &report.total;
    eprintln!(
        "warcdex cdx: {} files ({} unreadable, {} damaged), {} records, {} lines; skipped: {}; anomalies: {}",
        report.files,
        report.unopened,
        report.damaged,
        t.records,
        t.lines,
        t.skipped_summary(),
        t.counts
    );
    Ok(super::exit_status(
        report.unopened,
        report.damaged,
        t.counts.total(),
        args.strict,
    ))
}
