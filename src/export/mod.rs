//! Exports of what a query matched, for research: every matching version, not
//! a page of hits, with the fields asked for, as CSV (RFC 4180, a header line), JSON
//! lines or Parquet; or their captures' records, as WARC ([`warc`]) or WACZ ([`wacz`]).
//! The versions come from [`SearchIndex::for_each_match`], so an export holds exactly
//! the versions the same search counts, under the same access rules.

mod parquet;
pub mod wacz;
pub mod warc;

pub use wacz::{export_wacz, WaczScratch};
pub use warc::{export_warc, CaptureSource, WarcReport};

use std::io::{self, Write};

use crate::access::Viewer;
use crate::progress::Progress;
use crate::search::{MatchedVersion, SearchError, SearchIndex};

/// An export's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// Comma-separated values with a header line; dates joined by spaces.
    Csv,
    /// One JSON object a line; dates as an array.
    Jsonl,
    /// Parquet: dates as timestamps, `dates` a list of them (DuckDB, pandas, Spark).
    Parquet,
    /// The captures' records, gzip members of a WARC file ([`export_warc`]).
    Warc,
    /// The WARC packed as WACZ 1.1.1 with its index and pages ([`export_wacz`]).
    Wacz,
}

impl ExportFormat {
    /// Reads `csv`, `jsonl`, `parquet`, `warc` or `wacz`.
    pub fn parse(s: &str) -> Option<ExportFormat> {
        match s {
            "csv" => Some(ExportFormat::Csv),
            "jsonl" | "ndjson" => Some(ExportFormat::Jsonl),
            "parquet" => Some(ExportFormat::Parquet),
            "warc" | "warc.gz" => Some(ExportFormat::Warc),
            "wacz" => Some(ExportFormat::Wacz),
            _ => None,
        }
    }

    /// Whether the export holds the captures' records (WARC, WACZ), not fields.
    pub fn holds_records(self) -> bool {
        matches!(self, ExportFormat::Warc | ExportFormat::Wacz)
    }

    /// The file name an export in this format is offered under.
    pub fn file_name(self) -> &'static str {
        match self {
            ExportFormat::Csv => "export.csv",
            ExportFormat::Jsonl => "export.jsonl",
            ExportFormat::Parquet => "export.parquet",
            ExportFormat::Warc => "export.warc.gz",
            ExportFormat::Wacz => "export.wacz",
        }
    }

    /// The MIME type of an answer in this format.
    pub fn content_type(self) -> &'static str {
        match self {
            ExportFormat::Csv => "text/csv; charset=utf-8",
            ExportFormat::Jsonl => "application/x-ndjson",
            ExportFormat::Parquet => "application/vnd.apache.parquet",
            ExportFormat::Warc => "application/warc",
            ExportFormat::Wacz => "application/zip",
        }
    }
}

/// The fields an export can hold, in their default order (`text` is not in the
/// default: it is most of an export's size).
pub const FIELDS: &[&str] = &[
    "url",
    "surt",
    "title",
    "first_date",
    "last_date",
    "dates",
    "digest",
    "mime",
    "status",
    "language",
    "site",
    "collection",
    "archive",
    "record_offset",
    "record_length",
    "cluster",
    "text",
];

/// The fields exported when none are named: all but `text`.
pub fn default_fields() -> Vec<String> {
    FIELDS
        .iter()
        .filter(|f| **f != "text")
        .map(|f| f.to_string())
        .collect()
}

/// Reads `a,b,c` into fields, refusing a name that is none.
pub fn parse_fields(s: &str) -> Result<Vec<String>, String> {
    let fields: Vec<String> = (s.split(','))
        .map(|f| f.trim().to_string())
        .filter(|f| !f.is_empty())
        .collect();
    if fields.is_empty() {
        return Err("name at least one field".into());
    }
    for f in &fields {
        if !FIELDS.contains(&f.as_str()) {
            return Err(format!(
                "{f:?} is not a field; fields: {}",
                FIELDS.join(", ")
            ));
        }
    }
    Ok(fields)
}

/// A field's value: text, a number, or a list of texts.
pub(crate) enum Value<'a> {
    Text(&'a str),
    Number(u64),
    List(&'a [String]),
    /// No value (a version without an HTTP status).
    Null,
}

pub(crate) fn value<'a>(v: &'a MatchedVersion, field: &str) -> Value<'a> {
    let first = v.dates.first().map_or("", String::as_str);
    let last = v.dates.last().map_or("", String::as_str);
    match field {
        "url" => Value::Text(&v.url),
        "surt" => Value::Text(&v.urlkey),
        "title" => Value::Text(&v.title),
        "first_date" => Value::Text(first),
        "last_date" => Value::Text(last),
        "dates" => Value::List(&v.dates),
        "digest" => Value::Text(&v.digest),
        "mime" => Value::Text(&v.mime),
        "language" => Value::Text(&v.language),
        "site" => Value::Text(&v.site),
        "collection" => Value::Text(&v.collection),
        "archive" => Value::Text(&v.archive),
        "record_offset" => Value::Number(v.offset),
        "record_length" => Value::Number(v.length),
        "status" => v.status.map_or(Value::Null, |s| Value::Number(s.into())),
        "cluster" => Value::Text(&v.cluster),
        _ => Value::Text(&v.text),
    }
}

fn write_row(out: &mut Vec<u8>, v: &MatchedVersion, fields: &[String], format: ExportFormat) {
    match format {
        ExportFormat::Csv => {
            for (i, f) in fields.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                match value(v, f) {
                    Value::Text(t) => crate::output::csv_field(out, t),
                    Value::Number(n) => out.extend_from_slice(n.to_string().as_bytes()),
                    Value::List(l) => crate::output::csv_field(out, &l.join(" ")),
                    Value::Null => {}
                }
            }
            out.extend_from_slice(b"\r\n");
        }
        ExportFormat::Parquet | ExportFormat::Warc | ExportFormat::Wacz => {
            unreachable!("export_matches writes these otherwise")
        }
        ExportFormat::Jsonl => {
            let mut obj = serde_json::Map::new();
            for f in fields {
                let j = match value(v, f) {
                    Value::Text(t) => serde_json::Value::from(t),
                    Value::Number(n) => serde_json::Value::from(n),
                    Value::List(l) => serde_json::Value::from(l.to_vec()),
                    Value::Null => serde_json::Value::Null,
                };
                obj.insert(f.clone(), j);
            }
            serde_json::to_writer(&mut *out, &obj).expect("a JSON object serializes");
            out.push(b'\n');
        }
    }
}

/// Why an export stopped.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The search failed (a malformed query is the user's).
    #[error(transparent)]
    Search(#[from] SearchError),
    /// Writing failed.
    #[error("writing the export")]
    Io(#[from] io::Error),
    /// A WACZ export needed more temporary space than its limit
    /// ([`wacz::WaczScratch::limit`]).
    #[error("the WACZ export needs more than {limit} bytes of temporary space: narrow the query, export it as WARC, or raise the limit")]
    ScratchFull {
        /// The limit, in bytes.
        limit: u64,
    },
    /// The export was no longer wanted ([`wacz::WaczScratch::cancelled`]).
    #[error("the export was cancelled: its client went away")]
    Cancelled,
    /// WARC or WACZ asked of the export of fields.
    #[error("WARC and WACZ exports hold records: export_warc or export_wacz writes them")]
    Records,
}

/// Writes every version matching `query` that `viewer` may see to `out`, as `format`
/// with `fields` (a header line first in CSV); returns how many. WARC and WACZ hold
/// records, not fields: [`export_warc`] and [`export_wacz`] write them.
pub fn export_matches(
    index: &SearchIndex,
    query: &str,
    viewer: Option<&Viewer>,
    format: ExportFormat,
    fields: &[String],
    out: &mut dyn Write,
    progress: &dyn Progress,
) -> Result<u64, ExportError> {
    if format.holds_records() {
        return Err(ExportError::Records);
    }
    if format == ExportFormat::Csv {
        let mut head = Vec::new();
        for (i, f) in fields.iter().enumerate() {
            if i > 0 {
                head.push(b',');
            }
            head.extend_from_slice(f.as_bytes());
        }
        head.extend_from_slice(b"\r\n");
        out.write_all(&head)?;
    }
    let with_text = fields.iter().any(|f| f == "text");
    if format == ExportFormat::Parquet {
        let mut p = parquet::ParquetExport::new(fields).map_err(io::Error::other)?;
        let n = index.for_each_match(query, viewer, with_text, |v| {
            progress.advance(1);
            p.push(v, out)
        })?;
        p.finish(out)?;
        return Ok(n);
    }
    let mut buf = Vec::with_capacity(4096);
    let n = index.for_each_match(query, viewer, with_text, |v| {
        buf.clear();
        write_row(&mut buf, v, fields, format);
        progress.advance(1);
        out.write_all(&buf)
    })?;
    Ok(n)
}
