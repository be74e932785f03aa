//! `warcdex export`: every version a query matches, as CSV, JSON lines or Parquet, or
//! its captures' records as WARC or WACZ.

use std::path::PathBuf;

use clap::Args;
use warcdex::export::{
    default_fields, export_matches, export_wacz, export_warc, parse_fields, CaptureSource,
    ExportFormat, WaczScratch,
};
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
    /// parquet (dates as timestamps; for DuckDB, pandas, Spark), warc (every capture's
    /// records, gzipped, for replay) or wacz (that WARC with its index and page list).
    #[arg(long, default_value = "csv", value_parser = parse_format)]
    pub format: ExportFormat,
    /// The fields, comma-separated: url, surt, title, first_date, last_date, dates,
    /// digest, mime, status, language, site, collection, archive, record_offset, record_length,
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
    ExportFormat::parse(s).ok_or_else(|| format!("{s:?}: csv, jsonl, parquet, warc or wacz"))
}

/// How many versions `query` matches for `viewer` (the search's total), counted first for
/// a progress bar; `None` (after saying why) for a malformed query. `graph` counts so too.
pub(super) fn matches_total(
    index: &SearchIndex,
    query: &str,
    viewer: Option<&warcdex::access::Viewer>,
) -> anyhow::Result<Option<u64>> {
    let counted = index.search(&SearchRequest {
        query: query.to_string(),
        hits: 1,
        history: false,
        viewer: viewer.cloned(),
        ..SearchRequest::default()
    });
    match counted {
        Ok(r) => Ok(Some(r.total)),
        Err(warcdex::search::SearchError::Query(e)) => {
            eprintln!("warcdex: bad query: {e}");
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

/// Runs `warcdex export`: 0, or 2 for a malformed query.
pub fn run(a: ExportArgs) -> anyhow::Result<i32> {
    let index = SearchIndex::open(&a.dir)?;
    let viewer = a.access.viewer(&a.dir, a.user.as_deref())?;
    let query = a.query.join(" ");
    let Some(total) = matches_total(&index, &query, viewer.as_ref())? else {
        return Ok(2);
    };
    let bar = warcdex::progress::count_bar(total, "export", "versions");
    if a.format.holds_records() {
        return export_records(&a, &index, &query, viewer.as_ref(), &bar);
    }
    let fields = match &a.fields {
        Some(f) => parse_fields(f).map_err(|e| anyhow::anyhow!("--fields: {e}"))?,
        None => default_fields(),
    };
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

/// `--format warc|wacz`: the captures' records, from the collection's `all.cdx` and the
/// archives `collection.json` records.
fn export_records(
    a: &ExportArgs,
    index: &SearchIndex,
    query: &str,
    viewer: Option<&warcdex::access::Viewer>,
    bar: &indicatif::ProgressBar,
) -> anyhow::Result<i32> {
    let collection = warcdex::collection::Collection::open(&a.dir);
    let cdx = collection
        .cdx()
        .map_err(|e| anyhow::anyhow!("a WARC or WACZ export reads the collection's CDX: {e}"))?;
    let table = collection.archives().table()?;
    if table.is_empty() {
        anyhow::bail!(
            "{}: no archives in collection.json: a WARC or WACZ export needs the collection's archives",
            a.dir.display()
        );
    }
    let archive = |name: &str| table.location(name).cloned();
    let source = CaptureSource {
        cdx: &cdx,
        archive: &archive,
    };
    let scratch = match a.output.output.as_deref().and_then(|p| p.parent()) {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::env::temp_dir(),
    };
    let report = super::with_output(a.output.output.as_deref(), |out| {
        let r = match a.format {
            ExportFormat::Wacz => {
                let scratch = WaczScratch::unlimited(&scratch);
                export_wacz(index, query, viewer, &source, &scratch, out, bar)
            }
            _ => export_warc(
                index,
                query,
                viewer,
                &source,
                "export.warc.gz",
                out,
                bar,
                &mut |_| Ok(()),
            ),
        };
        r.map_err(anyhow::Error::new)
    })?;
    bar.finish_and_clear();
    for p in &report.problems {
        eprintln!("warcdex export: left out: {p}");
    }
    eprintln!("warcdex export: {}", report.summary());
    Ok(if report.failed > 0 { 1 } else { 0 })
}
