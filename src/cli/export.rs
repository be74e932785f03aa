//! `warcdex export`: every version a query matches, as CSV, JSON lines or Parquet, or
//! its captures' records as WARC or WACZ.

use std::path::PathBuf;

use clap::Args;
use warcdex::collection::Collection;
use warcdex::export::{
    default_fields, export, parse_fields, Export, ExportFormat, ExportReport, WaczScratch,
};
use warcdex::search::SearchIndex;

use super::access::AccessFlags;
use super::OutputFlag;

/// `warcdex export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The collection (or search directory: it holds `pindexes/<name>/{main,dates}`).
    #[arg(short = 'd', long = "dir", default_value = ".")]
    pub dir: PathBuf,
    /// csv (a header line; dates joined by spaces), jsonl (one JSON object a line) or
    /// parquet (dates as timestamps; for DuckDB, pandas, Spark), warc (every capture's
    /// records, gzipped, for replay) or wacz (that WARC with its index and page list).
    #[arg(long, default_value = "csv", value_parser = parse_format)]
    pub format: ExportFormat,
    /// The fields, comma-separated: url, surt, title, first_date, last_date, dates,
    /// digest, mime, status, language, site, collection, archive, record_offset, record_length,
    /// cluster, text (default: all but text).
    #[arg(long)]
    pub fields: Option<String>,
    /// With --format warc or wacz: leave out the pages' requisites (the stylesheets,
    /// scripts, images and fonts each HTML page loads, at the capture nearest its date),
    /// which are written beside it by default so that the export replays styled.
    #[arg(long)]
    pub no_requisites: bool,
    #[command(flatten)]
    pub output: OutputFlag,
    /// The access rules: the collection's `access.json`, and these (docs/access.md).
    #[command(flatten)]
    pub access: AccessFlags,
    /// Export as this user (access point) of the rules; none: the public.
    #[arg(long)]
    pub user: Option<String>,
    /// The query, as `warcdex search` takes it (filters, `as-of:` included); every
    /// version it matches is exported, not a page of hits.
    #[arg(required = true, num_args = 1..)]
    pub query: Vec<String>,
}

fn parse_format(s: &str) -> Result<ExportFormat, String> {
    ExportFormat::parse(s).ok_or_else(|| format!("{s:?}: csv, jsonl, parquet, warc or wacz"))
}

/// Runs `warcdex export`: 0, or 2 for a malformed query.
pub fn run(a: ExportArgs) -> anyhow::Result<i32> {
    // Every match is read once: its pages need not stay resident (as `graph` reads).
    let index = SearchIndex::open_released(&a.dir)?;
    let collection = Collection::open(&a.dir);
    let viewer = a.access.viewer(&a.dir, a.user.as_deref())?;
    let query = a.query.join(" ");
    let Some((selection, total)) = super::counted_selection(&index, &query, viewer)? else {
        return Ok(2);
    };
    let bar = warcdex::progress::count_bar(total, "export", "versions");
    let fields = match &a.fields {
        Some(f) => parse_fields(f).map_err(|e| anyhow::anyhow!("--fields: {e}"))?,
        None => default_fields(),
    };
    // A WACZ is packed beside its output, or in the system's temporary folder.
    let scratch = match a.output.output.as_deref().and_then(|p| p.parent()) {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::env::temp_dir(),
    };
    let what = Export {
        format: a.format,
        fields,
        scratch: WaczScratch::unlimited(&scratch),
        requisites: !a.no_requisites,
    };
    let report = super::with_output(a.output.output.as_deref(), |out| {
        export(&index, &collection, &selection, &what, out, &bar).map_err(anyhow::Error::new)
    })?;
    bar.finish_and_clear();
    match report {
        ExportReport::Versions(n) => {
            eprintln!("warcdex export: {n} versions");
            Ok(0)
        }
        ExportReport::Records(r) => {
            for p in &r.problems {
                eprintln!("warcdex export: left out: {p}");
            }
            eprintln!("warcdex export: {}", r.summary());
            Ok(if r.failed > 0 { 1 } else { 0 })
        }
    }
}
