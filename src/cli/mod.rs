//! The command line: flag parsing (clap derive) and one small module per subcommand.

pub mod cdx;
pub mod records;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// warcdex: web archives (ARC/WARC) to CDX and a de-duplicated full-text index.
#[derive(Debug, Parser)]
#[command(name = "warcdex", version, about)]
pub struct Cli {
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// One JSON line per record (offset, length, type, URI, date, id, HTTP status and
    /// type, payload digest), as `warcio index` writes them; anomaly counts on stderr.
    Records(records::RecordsArgs),
    /// CDX (11- or 9-field, as pywb `cdx-indexer` writes it) or CDXJ (as `cdxj-indexer`
    /// writes it) for ARC and WARC files, optionally sorted in C byte order.
    Cdx(cdx::CdxArgs),
    /// Decompress every gzip member and discard the output (the benchmark's lower bound).
    #[command(hide = true)]
    Inflate {
        /// A gzip file.
        file: PathBuf,
    },
}

/// Shared: a list of input files.
pub fn inputs_total_size(paths: &[PathBuf]) -> u64 {
    paths
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum()
}
