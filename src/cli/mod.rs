//! The command line: flag parsing (clap derive) and one small module per subcommand.

pub mod cdx;
pub mod dates;
pub mod import;
pub mod index;
pub mod lists;
pub mod records;
pub mod search;

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;

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
    /// The exclusion list: every capture of a URL key + digest except the earliest, as
    /// `URLKEY sha1:DIGEST DATE14 FILE`, sorted (NutchWAX `dedup-cdx`).
    DedupCdx(lists::ListArgs),
    /// Revisit records as `URLKEY sha1:DIGEST DATE14`, sorted and unique (NutchWAX
    /// `revisits`; mime `warc/revisit`, or a Wayback 1.x line whose 9th field is `-`).
    Revisits(lists::ListArgs),
    /// Sort CDX in C byte order (`LC_ALL=C sort`) in bounded memory, one legend on top.
    SortCdx(lists::SortArgs),
    /// Merge sorted CDX files into one sorted file, one legend on top.
    MergeCdx(lists::SortArgs),
    /// Parse archives into a segment: one document per URL + digest (title, text, links,
    /// charset, every capture date), skipping captures the exclusion list names.
    Import(import::ImportArgs),
    /// A segment's manifest and counts, or its rows as JSON lines (`--rows`).
    SegmentInfo(import::SegmentInfoArgs),
    /// Build the main full-text index from segments: one document per URL + digest,
    /// anchor text of inbound links, link-analysis boost, one segment in key order.
    Index(index::IndexArgs),
    /// NutchWAX `dumpindex`: fields and values of one or several parallel indexes.
    Dumpindex(index::DumpArgs),
    /// Merge main indexes: one document per URL + digest, dates and anchors unioned.
    Merge(index::MergeArgs),
    /// NutchWAX `add-dates`: the parallel dates index of a main index (one document per
    /// main document, at the same position), the sources' dates and a dates list unioned.
    AddDates(dates::AddDatesArgs),
    /// Search `DIR/pindexes/*/{main,dates}`: words and phrases ranked by text and link
    /// score, filters site:, type:, collection:, date:; every capture date per hit.
    Search(search::SearchArgs),
    /// Serve the search over HTTP: a search page, OpenSearch RSS, JSON and /healthz.
    Serve(search::ServeArgs),
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

/// Runs `f` with stdout, or with a temporary file beside `path` that is renamed to
/// `path` only when `f` succeeds (so a crash never leaves half an output).
pub fn with_output<T>(
    path: Option<&Path>,
    f: impl FnOnce(&mut dyn Write) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    match path {
        None => {
            let stdout = io::stdout();
            let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
            let r = f(&mut out)?;
            out.flush()?;
            Ok(r)
        }
        Some(path) => {
            let dir = path
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            let tmp = tempfile::Builder::new()
                .prefix(".warcdex-")
                .tempfile_in(dir)
                .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
            let mut out = BufWriter::with_capacity(1 << 16, tmp);
            let r = f(&mut out)?;
            out.flush()?;
            let tmp = out.into_inner().map_err(|e| e.into_error())?;
            tmp.persist(path)
                .with_context(|| format!("cannot rename the output to {}", path.display()))?;
            Ok(r)
        }
    }
}
