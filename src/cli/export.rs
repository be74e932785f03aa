//! `warcdex export`: every version a query matches, as CSV or JSON lines.

use std::path::PathBuf;

use clap::Args;
use warcdex::export::{default_fields, export_matches, parse_fields, ExportFormat};
use warcdex::search::{SearchIndex, SearchRequest};

use super::access::AccessFlags;
use super::OutputFlag;

/// `warcdex export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The collection (or search directory: it holds `pindexes/<name>/{main,dates}`).
    #[arg(short = 'd', long = "dir", default_value = ".")]
    pub dir: PathBuf,
    /// csv (a header line; dates joined by spaces), jsonl (one JSON object a line) or
    /// parquet (dates as timestamps; for DuckDB, pandas, Spark).
    #[arg(long, default_value = "csv", value_parser = parse_format)]
    pub format: ExportFormat,
    /// The fields, comma-separated: url, surt, title, first_date, last_date, dates,
    /// digest, mime, language, site, collection, archive, record_offset, record_length,
    /// cluster, text (default: all but text).
    #[arg(long)]
    pub fields: Option<String>,
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
    ExportFormat::parse(s).ok_or_else(|| format!("{s:?}: csv, jsonl or parquet"))
}

/// Runs `warcdex export`: 0, or 2 for a malformed query.
pub fn run(a: ExportArgs) -> anyhow::Result<i32> {
    let index = SearchIndex::open(&a.dir)?;
    let viewer = a.access.viewer(&a.dir, a.user.as_deref())?;
    let query = a.query.join(" ");
    // The count first, for the progress bar: the same search's total.
    let counted = index.search(&SearchRequest {
        query: query.clone(),
        hits: 1,
        history: false,
        viewer: viewer.clone(),
        ..SearchRequest::default()
    });
    let total = match counted {
        Ok(r) => r.total,
        Err(warcdex::search::SearchError::Query(e)) => {
            eprintln!("warcdex: bad query: {e}");
            return Ok(2);
        }
        Err(e) => return Err(e.into()),
    };
    let fields = match &a.fields {
        Some(f) => parse_fields(f).map_err(|e| anyhow::anyhow!("--fields: {e}"))?,
        None => default_fields(),
    };
    let bar = warcdex::progress::count_bar(total, "export", "versions");
    let n = super::with_output(a.output.output.as_deref(), |out| {
        export_matches(
            &index,
            &query,
            viewer.as_ref(),
            a.format,
            &fields,
            out,
            &bar,
        )
        .map_err(anyhow::Error::new)
    })?;
    bar.finish_and_clear();
    eprintln!("warcdex export: {n} versions");
    Ok(0)
}
