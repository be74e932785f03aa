//! Exports of what a query matched, for research: every matching version, not
//! a page of hits, with the fields asked for, as CSV (RFC 4180, a header line), JSON
//! lines or Parquet; or their captures' records, as WARC ([`warc`]) or WACZ ([`wacz`]).
//! The versions come from [`SearchIndex::for_each_match`], so an export holds exactly
//! the versions the same search counts, under the same access rules.

mod parquet;
mod requisites;
pub mod wacz;
pub mod warc;

pub use wacz::{export_wacz, WaczScratch};
pub use warc::{export_warc, CaptureSource, WarcReport};

use std::io::{self, Write};

use crate::collection::Collection;
use crate::progress::Progress;
use crate::search::{MatchedVersion, SearchError, SearchIndex, Selection};

/// How an export of fields writes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldFormat {
    /// Comma-separated values with a header line; dates joined by spaces.
    Csv,
    /// One JSON object a line; dates as an array.
    Jsonl,
    /// Parquet: dates as timestamps, `dates` a list of them (DuckDB, pandas, Spark).
    Parquet,
}

/// How an export of the captures' records packs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordFormat {
    /// The captures' records, gzip members of a WARC file ([`export_warc`]).
    Warc,
    /// The WARC packed as WACZ 1.1.1 with its index and pages ([`export_wacz`]).
    Wacz,
}

/// An export's format: the versions' fields, or their captures' records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// Fields of every version ([`export_fields`]).
    Fields(FieldFormat),
    /// Records of every capture ([`export_warc`], [`export_wacz`]).
    Records(RecordFormat),
}

impl ExportFormat {
    /// CSV.
    pub const CSV: ExportFormat = ExportFormat::Fields(FieldFormat::Csv);

    /// Reads `csv`, `jsonl`, `parquet`, `warc` or `wacz`.
    pub fn parse(s: &str) -> Option<ExportFormat> {
        use ExportFormat::{Fields, Records};
        match s {
            "csv" => Some(Fields(FieldFormat::Csv)),
            "jsonl" | "ndjson" => Some(Fields(FieldFormat::Jsonl)),
            "parquet" => Some(Fields(FieldFormat::Parquet)),
            "warc" | "warc.gz" => Some(Records(RecordFormat::Warc)),
            "wacz" => Some(Records(RecordFormat::Wacz)),
            _ => None,
        }
    }

    /// Whether the export holds the captures' records (WARC, WACZ), not fields.
    pub fn holds_records(self) -> bool {
        matches!(self, ExportFormat::Records(_))
    }

    /// The file name an export in this format is offered under.
    pub fn file_name(self) -> &'static str {
        use ExportFormat::{Fields, Records};
        match self {
            Fields(FieldFormat::Csv) => "export.csv",
            Fields(FieldFormat::Jsonl) => "export.jsonl",
            Fields(FieldFormat::Parquet) => "export.parquet",
            Records(RecordFormat::Warc) => "export.warc.gz",
            Records(RecordFormat::Wacz) => "export.wacz",
        }
    }

    /// The MIME type of an answer in this format.
    pub fn content_type(self) -> &'static str {
        use ExportFormat::{Fields, Records};
        match self {
            Fields(FieldFormat::Csv) => "text/csv; charset=utf-8",
            Fields(FieldFormat::Jsonl) => "application/x-ndjson",
            Fields(FieldFormat::Parquet) => "application/vnd.apache.parquet",
            Records(RecordFormat::Warc) => "application/warc",
            Records(RecordFormat::Wacz) => "application/zip",
        }
    }
}

/// A field of an exported version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// The URL.
    Url,
    /// The URL key (SURT).
    Surt,
    /// The title.
    Title,
    /// The first capture date (14 digits).
    FirstDate,
    /// The last capture date.
    LastDate,
    /// Every capture date.
    Dates,
    /// The payload digest.
    Digest,
    /// The MIME type.
    Mime,
    /// The HTTP status.
    Status,
    /// The language.
    Language,
    /// The site (host).
    Site,
    /// The collections it was captured in.
    Collection,
    /// The archive of its first capture.
    Archive,
    /// Its record's offset in that archive.
    RecordOffset,
    /// Its record's stored length.
    RecordLength,
    /// Its near-duplicate cluster.
    Cluster,
    /// Its indexed text.
    Text,
}

impl Field {
    /// Every field, in the default order (`text` last: it is not in the default).
    pub const ALL: [Field; 17] = [
        Field::Url,
        Field::Surt,
        Field::Title,
        Field::FirstDate,
        Field::LastDate,
        Field::Dates,
        Field::Digest,
        Field::Mime,
        Field::Status,
        Field::Language,
        Field::Site,
        Field::Collection,
        Field::Archive,
        Field::RecordOffset,
        Field::RecordLength,
        Field::Cluster,
        Field::Text,
    ];

    /// Its name: the CSV header, the JSON key, the Parquet column.
    pub fn name(self) -> &'static str {
        match self {
            Field::Url => "url",
            Field::Surt => "surt",
            Field::Title => "title",
            Field::FirstDate => "first_date",
            Field::LastDate => "last_date",
            Field::Dates => "dates",
            Field::Digest => "digest",
            Field::Mime => "mime",
            Field::Status => "status",
            Field::Language => "language",
            Field::Site => "site",
            Field::Collection => "collection",
            Field::Archive => "archive",
            Field::RecordOffset => "record_offset",
            Field::RecordLength => "record_length",
            Field::Cluster => "cluster",
            Field::Text => "text",
        }
    }

    /// The field named `name`, if one is.
    pub fn parse(name: &str) -> Option<Field> {
        Field::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// The fields exported when none are named: all but `text`.
pub fn default_fields() -> Vec<Field> {
    (Field::ALL.into_iter())
        .filter(|f| *f != Field::Text)
        .collect()
}

/// Reads `a,b,c` into fields, refusing a name that is none.
pub fn parse_fields(s: &str) -> Result<Vec<Field>, String> {
    let names: Vec<&str> = (s.split(','))
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .collect();
    if names.is_empty() {
        return Err("name at least one field".into());
    }
    (names.iter())
        .map(|f| {
            Field::parse(f).ok_or_else(|| {
                let all: Vec<&str> = Field::ALL.iter().map(|f| f.name()).collect();
                format!("{f:?} is not a field; fields: {}", all.join(", "))
            })
        })
        .collect()
}

/// A field's value: text, a number, or a list of texts.
pub(crate) enum Value<'a> {
    Text(&'a str),
    Number(u64),
    List(&'a [String]),
    /// No value (a version without an HTTP status).
    Null,
}

pub(crate) fn value(v: &MatchedVersion, field: Field) -> Value<'_> {
    let first = v.dates.first().map_or("", String::as_str);
    let last = v.dates.last().map_or("", String::as_str);
    match field {
        Field::Url => Value::Text(&v.url),
        Field::Surt => Value::Text(&v.urlkey),
        Field::Title => Value::Text(&v.title),
        Field::FirstDate => Value::Text(first),
        Field::LastDate => Value::Text(last),
        Field::Dates => Value::List(&v.dates),
        Field::Digest => Value::Text(&v.digest),
        Field::Mime => Value::Text(&v.mime),
        Field::Language => Value::Text(&v.language),
        Field::Site => Value::Text(&v.site),
        Field::Collection => Value::Text(&v.collection),
        Field::Archive => Value::Text(&v.archive),
        Field::RecordOffset => Value::Number(v.offset),
        Field::RecordLength => Value::Number(v.length),
        Field::Status => v.status.map_or(Value::Null, |s| Value::Number(s.into())),
        Field::Cluster => Value::Text(&v.cluster),
        Field::Text => Value::Text(&v.text),
    }
}

/// A CSV line of `v`'s `fields`.
fn csv_row(out: &mut Vec<u8>, v: &MatchedVersion, fields: &[Field]) {
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        match value(v, *f) {
            Value::Text(t) => crate::output::csv_field(out, t),
            Value::Number(n) => out.extend_from_slice(n.to_string().as_bytes()),
            Value::List(l) => crate::output::csv_field(out, &l.join(" ")),
            Value::Null => {}
        }
    }
    out.extend_from_slice(b"\r\n");
}

/// A JSON line of `v`'s `fields`.
fn json_row(out: &mut Vec<u8>, v: &MatchedVersion, fields: &[Field]) {
    let mut obj = serde_json::Map::new();
    for f in fields {
        let j = match value(v, *f) {
            Value::Text(t) => serde_json::Value::from(t),
            Value::Number(n) => serde_json::Value::from(n),
            Value::List(l) => serde_json::Value::from(l.to_vec()),
            Value::Null => serde_json::Value::Null,
        };
        obj.insert(f.name().to_string(), j);
    }
    serde_json::to_writer(&mut *out, &obj).expect("a JSON object serializes");
    out.push(b'\n');
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
    /// A record export found no CDX of the collection to find the records by.
    #[error("a WARC or WACZ export reads the collection's CDX")]
    NoCdx(#[source] io::Error),
    /// A record export found no archives in the collection.
    #[error("{}: no archives in collection.json: a WARC or WACZ export needs the collection's archives", .0.display())]
    NoArchives(std::path::PathBuf),
    /// The collection's archive table could not be read.
    #[error(transparent)]
    Archives(#[from] crate::collection::ArchivesError),
}

/// What to export, besides the selection: the format, the fields (of a fields format)
/// and the scratch space (of a WACZ).
pub struct Export<'a> {
    /// The format.
    pub format: ExportFormat,
    /// The fields, in order (a fields format).
    pub fields: Vec<Field>,
    /// Where a WACZ is packed.
    pub scratch: WaczScratch<'a>,
    /// Whether a records format holds each HTML page's requisites (stylesheets,
    /// scripts, images, fonts) beside it, so that it replays styled.
    pub requisites: bool,
}

/// What an export wrote.
#[derive(Debug)]
pub enum ExportReport {
    /// Versions, as fields.
    Versions(u64),
    /// Records of the versions' captures.
    Records(WarcReport),
}

/// Writes the export of every version `selection` matches (and its viewer may see) in
/// `collection`, searched in `index`, to `out`: the one entry point of `warcdex export`
/// and `/export`.
pub fn export(
    index: &SearchIndex,
    collection: &Collection,
    selection: &Selection,
    what: &Export<'_>,
    out: &mut dyn Write,
    progress: &dyn Progress,
) -> Result<ExportReport, ExportError> {
    let record_format = match what.format {
        ExportFormat::Fields(f) => {
            let n = export_fields(index, selection, f, &what.fields, out, progress)?;
            return Ok(ExportReport::Versions(n));
        }
        ExportFormat::Records(r) => r,
    };
    let cdx = collection.cdx().map_err(ExportError::NoCdx)?;
    let table = collection.archives().table()?;
    if table.is_empty() {
        return Err(ExportError::NoArchives(collection.dir().to_path_buf()));
    }
    let archive = |name: &str| table.location(name).cloned();
    let source = CaptureSource {
        cdx: &cdx,
        archive: &archive,
        requisites: what.requisites,
    };
    let report = match record_format {
        RecordFormat::Warc => export_warc(index, selection, &source, out, progress)?,
        RecordFormat::Wacz => export_wacz(index, selection, &source, &what.scratch, out, progress)?,
    };
    Ok(ExportReport::Records(report))
}

/// Writes every version `selection` matches that its viewer may see to `out`, as
/// `format` with `fields` (a header line first in CSV); returns how many.
pub fn export_fields(
    index: &SearchIndex,
    selection: &Selection,
    format: FieldFormat,
    fields: &[Field],
    out: &mut dyn Write,
    progress: &dyn Progress,
) -> Result<u64, ExportError> {
    if format == FieldFormat::Csv {
        let names: Vec<&str> = fields.iter().map(|f| f.name()).collect();
        out.write_all(names.join(",").as_bytes())?;
        out.write_all(b"\r\n")?;
    }
    let with_text = fields.contains(&Field::Text);
    if format == FieldFormat::Parquet {
        let mut p = parquet::ParquetExport::new(fields).map_err(io::Error::other)?;
        let n = index.for_each_match(selection, with_text, |v| {
            progress.advance(1);
            p.push(v, out)
        })?;
        p.finish(out)?;
        return Ok(n);
    }
    let row = match format {
        FieldFormat::Jsonl => json_row,
        _ => csv_row,
    };
    let mut buf = Vec::with_capacity(4096);
    let n = index.for_each_match(selection, with_text, |v| {
        buf.clear();
        row(&mut buf, v, fields);
        progress.advance(1);
        out.write_all(&buf)
    })?;
    Ok(n)
}
