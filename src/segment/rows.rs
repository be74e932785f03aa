//! Parquet I/O for segment rows: [`RowWriter`] streams [`SegmentRow`]s into a file,
//! [`read_rows`] streams them back in file order, [`row_count`] reads only the footer.
//!
//! Memory stays bounded on both sides: the writer holds at most one batch of rows
//! (as Arrow builders) plus the row group being encoded, and the reader decodes one
//! batch at a time. Errors are the segment layer's [`super::Error`]: the file's path with the
//! Parquet, Arrow or system error as the source.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use arrow_array::builder::{
    ArrayBuilder, Int16Builder, Int32Builder, Int64Builder, ListBuilder, StringBuilder,
    StructBuilder, TimestampMicrosecondBuilder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::{Int16Type, Int32Type, Int64Type, UInt16Type, UInt64Type};
use arrow_array::{
    Array, ArrayRef, Int16Array, Int32Array, Int64Array, ListArray, RecordBatch, StringArray,
    StructArray, UInt16Array, UInt64Array,
};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::ParquetMetaDataReader;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;

use super::{Error, Outlink, Result, SegmentRow};
use crate::path_error::{AtPath, ResultAtPath};

/// Rows buffered by a [`RowWriter`] (and decoded per batch by [`read_rows`]) by default.
pub const DEFAULT_BATCH_ROWS: usize = 1024;

/// Default bound on a row group's estimated encoded (compressed) size. The writer keeps
/// the whole row group in memory until it is flushed, and many readers (async and object
/// store readers, pyarrow) load a row group's column chunks at once, so this bounds their
/// memory; [`read_rows`] itself reads page by page.
pub const DEFAULT_ROW_GROUP_BYTES: usize = 64 * 1024 * 1024;

/// Default bound on a row group's row count (Parquet's own default).
pub const DEFAULT_ROW_GROUP_ROWS: usize = 1024 * 1024;

/// Buffered string bytes that force a batch out early. Arrow's `Utf8` arrays use 32-bit
/// offsets, so a batch of 1024 rows with very long texts could otherwise overflow them
/// (and hold far more memory than `batch_rows` suggests).
const MAX_BATCH_BYTES: usize = 64 * 1024 * 1024;

/// A single row whose strings add up to more than this cannot be stored in one batch
/// without risking the 32-bit offsets; the import caps text far below it.
const MAX_ROW_BYTES: usize = 1 << 30;

/// The name of a list's element field: the Parquet spec's name (`element`), rather
/// than Arrow's default (`item`), so readers that look for the standard three-level
/// list layout (Spark, Hive, Trino) read `dates` and `outlinks` as lists.
const LIST_ELEMENT: &str = "element";

/// The Arrow/Parquet schema of segment rows (format version 2), in the field order of
/// [`SegmentRow`], with the capture times beside the dates.
///
/// | # | column          | Arrow type                                   | nullable |
/// |---|-----------------|----------------------------------------------|----------|
/// | 0 | `key`           | `Utf8`                                       | no       |
/// | 1 | `url`           | `Utf8`                                       | no       |
/// | 2 | `urlkey`        | `Utf8`                                       | no       |
/// | 3 | `digest`        | `Utf8`                                       | no       |
/// | 4 | `dates`         | `List<element: Utf8 not null>`               | no       |
/// | 5 | `capture_times` | `List<element: Timestamp(µs, UTC)>`          | no       |
/// | 6 | `first_date`    | `Utf8`                                       | no       |
/// | 7 | `first_time`    | `Timestamp(µs, UTC)`                         | yes      |
/// | 8 | `collection`    | `Utf8`                                       | no       |
/// | 9 | `filename`      | `Utf8`                                       | no       |
/// |10 | `archive`       | `Utf8`                                       | no       |
/// |11 | `offset`        | `Int64`                                      | no       |
/// |12 | `length`        | `Int64`                                      | no       |
/// |13 | `mime`          | `Utf8`                                       | no       |
/// |14 | `status`        | `Int16`                                      | yes      |
/// |15 | `charset`       | `Utf8`                                       | yes      |
/// |16 | `lang`          | `Utf8`                                       | yes      |
/// |17 | `title`         | `Utf8`                                       | yes      |
/// |18 | `text`          | `Utf8`                                       | no       |
/// |19 | `main_text`     | `Utf8`                                       | yes      |
/// |20 | `simhash`       | `Int64`                                      | yes      |
/// |21 | `simhash_words` | `Int32`                                      | yes      |
/// |22 | `outlinks`      | `List<element: Struct<url: Utf8, anchor: Utf8> not null>` | no |
///
/// Every integer is signed (Spark before 3.2 cannot read unsigned 64-bit columns, and
/// later versions read them as decimals). `capture_times` holds one timestamp per date of
/// `dates`, in the same order, null where the date is not a possible capture date
/// ([`crate::reader::date::capture_micros`]); `first_time` is that of `first_date`. They
/// are written for readers of the files (Spark, DuckDB, pandas) and not read back: the
/// 14-digit strings are the dates. In Parquet terms: strings are `BYTE_ARRAY`
/// (`STRING`), `offset`/`length` are `INT64`, `status` is `INT32` (`INTEGER(16,
/// signed)`), the times are `INT64` (`TIMESTAMP(MICROS, true)`), and the lists use the
/// standard three-level layout (`dates.list.element`, `outlinks.list.element.url`).
///
/// `simhash` is the near-duplicate fingerprint (`crate::near::simhash`: 64 bits read as a signed
/// integer, as Spark and DuckDB have no unsigned 64-bit type) and `simhash_words` the words
/// it was made from; both null for documents import did not parse (images, failed parses).
///
/// Files of format version 1 (unsigned `offset`, `length` and `status`; no times,
/// `archive`, `lang` or `main_text`) and 2 (no `simhash`) are still read: see
/// [`read_rows`].
pub fn schema() -> SchemaRef {
    static SCHEMA: OnceLock<SchemaRef> = OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            let utf8 = |name: &str| Field::new(name, DataType::Utf8, false);
            Arc::new(Schema::new(vec![
                utf8("key"),
                utf8("url"),
                utf8("urlkey"),
                utf8("digest"),
                Field::new("dates", DataType::List(date_field()), false),
                Field::new("capture_times", DataType::List(time_field()), false),
                utf8("first_date"),
                Field::new("first_time", time_type(), true),
                utf8("collection"),
                utf8("filename"),
                utf8("archive"),
                Field::new("offset", DataType::Int64, false),
                Field::new("length", DataType::Int64, false),
                utf8("mime"),
                Field::new("status", DataType::Int16, true),
                Field::new("charset", DataType::Utf8, true),
                Field::new("lang", DataType::Utf8, true),
                Field::new("title", DataType::Utf8, true),
                utf8("text"),
                Field::new("main_text", DataType::Utf8, true),
                Field::new("simhash", DataType::Int64, true),
                Field::new("simhash_words", DataType::Int32, true),
                Field::new("outlinks", DataType::List(outlink_field()), false),
            ]))
        })
        .clone()
}

/// The type of a capture time: microseconds since 1970 in UTC.
fn time_type() -> DataType {
    DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
}

/// The element of `dates`.
fn date_field() -> Arc<Field> {
    Arc::new(Field::new(LIST_ELEMENT, DataType::Utf8, false))
}

/// The element of `capture_times`: null for a date that is not a possible capture date.
fn time_field() -> Arc<Field> {
    Arc::new(Field::new(LIST_ELEMENT, time_type(), true))
}

/// The fields of an outlink struct.
fn outlink_fields() -> Fields {
    Fields::from(vec![
        Field::new("url", DataType::Utf8, false),
        Field::new("anchor", DataType::Utf8, false),
    ])
}

/// The element of `outlinks`.
fn outlink_field() -> Arc<Field> {
    Arc::new(Field::new(
        LIST_ELEMENT,
        DataType::Struct(outlink_fields()),
        false,
    ))
}

/// How a [`RowWriter`] buffers and groups rows. The defaults suit imports; tests use
/// small row groups to exercise files with many of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowWriterOptions {
    /// Rows buffered before they are encoded (also flushed early past 64 MiB of
    /// strings). Must be at least 1.
    pub batch_rows: usize,
    /// Upper bound on a row group's estimated encoded size. Must be at least 1.
    pub row_group_bytes: usize,
    /// Upper bound on a row group's row count. Must be at least 1.
    pub row_group_rows: usize,
}

impl Default for RowWriterOptions {
    fn default() -> Self {
        RowWriterOptions {
            batch_rows: DEFAULT_BATCH_ROWS,
            row_group_bytes: DEFAULT_ROW_GROUP_BYTES,
            row_group_rows: DEFAULT_ROW_GROUP_ROWS,
        }
    }
}

/// The Parquet writer settings for segment files.
fn writer_properties(opts: &RowWriterOptions) -> WriterProperties {
    let path =
        |parts: &[&str]| ColumnPath::from(parts.iter().map(|p| p.to_string()).collect::<Vec<_>>());
    let mut b = WriterProperties::builder()
        // Level 1 (the parquet crate's default): the text column dominates the file,
        // and on 100k rows of 4 KB text level 3 took 70% longer for a 1% smaller file.
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_max_row_group_bytes(Some(opts.row_group_bytes))
        .set_max_row_group_row_count(Some(opts.row_group_rows))
        // Most columns are (nearly) unique per row: keys, URLs, digests, texts, titles,
        // outlinks. A dictionary there is built, overflows its page limit and is
        // abandoned, which only costs time; zstd handles the repetition instead.
        .set_dictionary_enabled(false);
    // Columns whose values repeat across many rows, where a dictionary shrinks the data
    // before compression and speeds up filtering on them.
    for p in [
        &["collection"][..],
        &["filename"],
        &["archive"],
        &["mime"],
        &["lang"],
        &["charset"],
        &["status"],
        &["first_date"],
        &["dates", "list", LIST_ELEMENT],
    ] {
        b = b.set_column_dictionary_enabled(path(p), true);
    }
    // Min/max of page text or anchors prunes nothing and only fills the page index.
    for p in [
        &["text"][..],
        &["main_text"],
        &["outlinks", "list", LIST_ELEMENT, "url"],
        &["outlinks", "list", LIST_ELEMENT, "anchor"],
    ] {
        b = b.set_column_statistics_enabled(path(p), EnabledStatistics::None);
    }
    b.build()
}

/// One column builder per field of [`schema`]: rows go straight into Arrow buffers, so
/// the writer never clones a [`SegmentRow`].
struct Builders {
    key: StringBuilder,
    url: StringBuilder,
    urlkey: StringBuilder,
    digest: StringBuilder,
    dates: ListBuilder<StringBuilder>,
    capture_times: ListBuilder<TimestampMicrosecondBuilder>,
    first_date: StringBuilder,
    first_time: TimestampMicrosecondBuilder,
    collection: StringBuilder,
    filename: StringBuilder,
    archive: StringBuilder,
    offset: Int64Builder,
    length: Int64Builder,
    mime: StringBuilder,
    status: Int16Builder,
    charset: StringBuilder,
    lang: StringBuilder,
    title: StringBuilder,
    text: StringBuilder,
    main_text: StringBuilder,
    simhash: Int64Builder,
    simhash_words: Int32Builder,
    outlinks: ListBuilder<StructBuilder>,
    /// The bound of a possible capture time (now, when the writer was made).
    now: i64,
}

impl Builders {
    fn new() -> Self {
        let outlink = StructBuilder::new(
            outlink_fields(),
            vec![
                Box::new(StringBuilder::new()) as Box<dyn ArrayBuilder>,
                Box::new(StringBuilder::new()),
            ],
        );
        let times = || TimestampMicrosecondBuilder::new().with_timezone("UTC");
        Builders {
            key: StringBuilder::new(),
            url: StringBuilder::new(),
            urlkey: StringBuilder::new(),
            digest: StringBuilder::new(),
            dates: ListBuilder::new(StringBuilder::new()).with_field(date_field()),
            capture_times: ListBuilder::new(times()).with_field(time_field()),
            first_date: StringBuilder::new(),
            first_time: times(),
            collection: StringBuilder::new(),
            filename: StringBuilder::new(),
            archive: StringBuilder::new(),
            offset: Int64Builder::new(),
            length: Int64Builder::new(),
            mime: StringBuilder::new(),
            status: Int16Builder::new(),
            charset: StringBuilder::new(),
            lang: StringBuilder::new(),
            title: StringBuilder::new(),
            text: StringBuilder::new(),
            main_text: StringBuilder::new(),
            simhash: Int64Builder::new(),
            simhash_words: Int32Builder::new(),
            outlinks: ListBuilder::new(outlink).with_field(outlink_field()),
            now: crate::reader::date::now_micros(),
        }
    }

    fn append(&mut self, row: &SegmentRow) {
        let time = |d: &str| crate::reader::date::capture_micros(d, self.now);
        self.key.append_value(&row.key);
        self.url.append_value(&row.url);
        self.urlkey.append_value(&row.urlkey);
        self.digest.append_value(&row.digest);
        for d in &row.dates {
            self.dates.values().append_value(d);
            self.capture_times.values().append_option(time(d));
        }
        self.dates.append(true);
        self.capture_times.append(true);
        self.first_date.append_value(&row.first_date);
        self.first_time.append_option(time(&row.first_date));
        self.collection.append_value(&row.collection);
        self.filename.append_value(&row.filename);
        self.archive.append_value(&row.archive);
        // Offsets and lengths of real files are far below 2^63.
        self.offset.append_value(signed(row.offset));
        self.length.append_value(signed(row.length));
        self.mime.append_value(&row.mime);
        // HTTP status codes are three digits (a reader refuses others), far below 2^15.
        self.status
            .append_option(row.status.map(|s| i16::try_from(s).unwrap_or(i16::MAX)));
        self.charset.append_option(row.charset.as_deref());
        self.lang.append_option(row.lang.as_deref());
        self.title.append_option(row.title.as_deref());
        self.text.append_value(&row.text);
        self.main_text.append_option(row.main_text.as_deref());
        self.simhash.append_option(row.simhash);
        self.simhash_words.append_option(
            row.simhash_words
                .map(|w| i32::try_from(w).unwrap_or(i32::MAX)),
        );
        let links = self.outlinks.values();
        for link in &row.outlinks {
            // The builders were created just above as StringBuilders, so these
            // downcasts cannot fail.
            links
                .field_builder::<StringBuilder>(0)
                .expect("outlink url builder")
                .append_value(&link.url);
            links
                .field_builder::<StringBuilder>(1)
                .expect("outlink anchor builder")
                .append_value(&link.anchor);
            links.append(true);
        }
        self.outlinks.append(true);
    }

    /// Takes the buffered rows as a batch, leaving the builders empty and reusable.
    fn finish(&mut self) -> Result<RecordBatch, arrow_schema::ArrowError> {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.key.finish()),
            Arc::new(self.url.finish()),
            Arc::new(self.urlkey.finish()),
            Arc::new(self.digest.finish()),
            Arc::new(self.dates.finish()),
            Arc::new(self.capture_times.finish()),
            Arc::new(self.first_date.finish()),
            Arc::new(self.first_time.finish()),
            Arc::new(self.collection.finish()),
            Arc::new(self.filename.finish()),
            Arc::new(self.archive.finish()),
            Arc::new(self.offset.finish()),
            Arc::new(self.length.finish()),
            Arc::new(self.mime.finish()),
            Arc::new(self.status.finish()),
            Arc::new(self.charset.finish()),
            Arc::new(self.lang.finish()),
            Arc::new(self.title.finish()),
            Arc::new(self.text.finish()),
            Arc::new(self.main_text.finish()),
            Arc::new(self.simhash.finish()),
            Arc::new(self.simhash_words.finish()),
            Arc::new(self.outlinks.finish()),
        ];
        RecordBatch::try_new(schema(), columns)
    }
}

/// A file offset or length as the signed 64-bit integer the schema stores.
fn signed(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// The string bytes a row adds to the builders.
fn row_bytes(row: &SegmentRow) -> usize {
    let opt = |s: &Option<String>| s.as_ref().map_or(0, String::len);
    row.key.len()
        + row.url.len()
        + row.urlkey.len()
        + row.digest.len()
        + row.dates.iter().map(String::len).sum::<usize>()
        + row.first_date.len()
        + row.collection.len()
        + row.filename.len()
        + row.archive.len()
        + row.mime.len()
        + opt(&row.charset)
        + opt(&row.lang)
        + opt(&row.title)
        + row.text.len()
        + opt(&row.main_text)
        + row
            .outlinks
            .iter()
            .map(|l| l.url.len() + l.anchor.len())
            .sum::<usize>()
}

/// Streams [`SegmentRow`]s into a Parquet file with the [`schema`], zstd-compressed, in
/// row groups bounded by [`RowWriterOptions`].
///
/// The file is only valid once [`RowWriter::finish`] returns: a writer dropped before
/// that (or after an error) leaves a file without a footer, which is why callers write
/// to a temporary name and rename it.
pub struct RowWriter {
    path: PathBuf,
    writer: ArrowWriter<File>,
    builders: Builders,
    batch_rows: usize,
    buffered_rows: usize,
    buffered_bytes: usize,
    rows: u64,
}

impl std::fmt::Debug for RowWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowWriter")
            .field("path", &self.path)
            .field("buffered_rows", &self.buffered_rows)
            .field("rows", &self.rows)
            .finish_non_exhaustive()
    }
}

impl RowWriter {
    /// Creates (or truncates) the file at exactly `path`, with the default options.
    pub fn create(path: &Path) -> Result<Self> {
        Self::create_with(path, RowWriterOptions::default())
    }

    /// Creates (or truncates) the file at exactly `path`.
    ///
    /// Fails with [`Error::RowOptions`] (`InvalidInput`) when an option is 0.
    pub fn create_with(path: &Path, opts: RowWriterOptions) -> Result<Self> {
        if opts.batch_rows == 0 || opts.row_group_bytes == 0 || opts.row_group_rows == 0 {
            // The parquet crate panics on zero limits; refuse them politely instead.
            return Err(Error::RowOptions {
                path: path.to_path_buf(),
                options: format!("{opts:?}"),
            });
        }
        let file = File::create(path).at(path)?;
        let writer =
            ArrowWriter::try_new(file, schema(), Some(writer_properties(&opts))).at(path)?;
        Ok(RowWriter {
            path: path.to_path_buf(),
            writer,
            builders: Builders::new(),
            batch_rows: opts.batch_rows,
            buffered_rows: 0,
            buffered_bytes: 0,
            rows: 0,
        })
    }

    /// Adds a row. It reaches the file when its batch is full or at [`RowWriter::finish`].
    ///
    /// Fails with [`Error::RowTooLarge`] (`InvalidInput`) for a row whose strings add up
    /// to more than 1 GiB (Arrow's 32-bit string offsets could not hold a batch of them).
    pub fn write(&mut self, row: &SegmentRow) -> Result<()> {
        let bytes = row_bytes(row);
        if bytes > MAX_ROW_BYTES {
            return Err(Error::RowTooLarge {
                path: self.path.clone(),
                key: row.key.clone(),
                bytes,
                max: MAX_ROW_BYTES,
            });
        }
        // Flush before appending so that a batch never exceeds the byte bound by more
        // than the row that crossed it.
        if self.buffered_rows > 0 && self.buffered_bytes + bytes > MAX_BATCH_BYTES {
            self.flush_batch()?;
        }
        self.builders.append(row);
        self.buffered_rows += 1;
        self.buffered_bytes += bytes;
        if self.buffered_rows >= self.batch_rows {
            self.flush_batch()?;
        }
        Ok(())
    }

    /// Encodes the buffered rows (the Arrow writer starts a new row group when the
    /// current one reaches its bounds).
    fn flush_batch(&mut self) -> Result<()> {
        if self.buffered_rows == 0 {
            return Ok(());
        }
        let batch = self.builders.finish().at(&self.path)?;
        self.writer.write(&batch).at(&self.path)?;
        self.rows += self.buffered_rows as u64;
        self.buffered_rows = 0;
        self.buffered_bytes = 0;
        Ok(())
    }

    /// Writes the remaining rows and the footer, and closes the file. Returns the number
    /// of rows written. The data is flushed to the operating system, not synced to disk.
    pub fn finish(mut self) -> Result<u64> {
        self.flush_batch()?;
        self.writer.into_inner().at(&self.path)?;
        Ok(self.rows)
    }
}

/// Number of rows in a segment file, from its footer alone.
pub fn row_count(path: &Path) -> Result<u64> {
    let file = File::open(path).at(path)?;
    let meta = ParquetMetaDataReader::new()
        .parse_and_finish(&file)
        .at(path)?;
    u64::try_from(meta.file_metadata().num_rows())
        .map_err(|_| Error::NegativeRowCount(path.to_path_buf()))
}

/// Reads the rows of a segment file back, one batch of [`DEFAULT_BATCH_ROWS`] rows in
/// memory at a time, in file order.
///
/// Columns are found by name, so files of format version 1 (unsigned integers, without
/// `archive`, `lang`, `main_text` and the capture times) read as rows whose new fields
/// are empty. Fails at once when the file is not Parquet or a column a row needs is
/// missing or of another type.
pub fn read_rows(path: &Path) -> Result<RowReader> {
    read_rows_with(path, Columns::All)
}

/// Which columns a [`RowReader`] decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Columns {
    /// Every column.
    All,
    /// All but `title`, `text` and `main_text`, the bulk of a segment: the rows have no
    /// title and an empty text. For the link graph (src/index/graph.rs), which reads the
    /// whole collection in one task and needs only keys, URLs and outlinks.
    WithoutText,
    /// All but `outlinks`: the rows have none. For the pass of `index` that writes the
    /// documents (src/index/mod.rs), after the links were taken in a pass of their own.
    WithoutOutlinks,
}

/// The columns [`Columns::WithoutText`] leaves out.
const TEXT_COLUMNS: [&str; 3] = ["title", "text", "main_text"];

/// Columns written for other readers and never read back (see [`schema`]).
const WRITE_ONLY_COLUMNS: [&str; 2] = ["capture_times", "first_time"];

/// Columns a file of format version 1 lacks: a row read from it has them empty.
const NEWER_COLUMNS: [&str; 5] = ["archive", "lang", "main_text", "simhash", "simhash_words"];

/// [`read_rows`] decoding only `columns`: Parquet skips the column chunks of the others.
pub fn read_rows_with(path: &Path, columns: Columns) -> Result<RowReader> {
    let file = File::open(path).at(path)?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).at(path)?;
    check_schema(path, builder.schema())?;
    let skipped = |name: &str| {
        WRITE_ONLY_COLUMNS.contains(&name)
            || (columns == Columns::WithoutText && TEXT_COLUMNS.contains(&name))
            || (columns == Columns::WithoutOutlinks && name == "outlinks")
    };
    let roots: Vec<usize> = (builder.schema().fields().iter().enumerate())
        .filter(|(_, f)| !skipped(f.name()))
        .map(|(i, _)| i)
        .collect();
    let mask = ProjectionMask::roots(builder.parquet_schema(), roots);
    let batches = builder
        .with_projection(mask)
        .with_batch_size(DEFAULT_BATCH_ROWS)
        .build()
        .at(path)?;
    Ok(RowReader {
        path: path.to_path_buf(),
        batches,
        current: None,
        done: false,
    })
}

/// Whether a column of type `found` can be read as column `name` of [`schema`]: the same
/// type, or for the integers, the unsigned type of format version 1.
fn readable_as(name: &str, found: &DataType, want: &DataType) -> bool {
    found == want
        || matches!(
            (name, found),
            ("offset" | "length", DataType::UInt64) | ("status", DataType::UInt16)
        )
}

/// Refuses a file that lacks a column a row needs, or has one of another type.
fn check_schema(path: &Path, found: &Schema) -> Result<()> {
    let want = schema();
    let problems: Vec<String> = want
        .fields()
        .iter()
        .filter(|w| !WRITE_ONLY_COLUMNS.contains(&w.name().as_str()))
        .filter_map(|w| match found.field_with_name(w.name()) {
            Ok(f) if readable_as(w.name(), f.data_type(), w.data_type()) => None,
            Ok(f) => Some(format!(
                "column {} is {}, expected {}",
                w.name(),
                f.data_type(),
                w.data_type()
            )),
            Err(_) if NEWER_COLUMNS.contains(&w.name().as_str()) => None,
            Err(_) => Some(format!("no column {}", w.name())),
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Error::NotARowsFile {
            path: path.to_path_buf(),
            problems: problems.join("; "),
        })
    }
}

/// A 64-bit integer column: signed (format version 2) or unsigned (version 1).
enum Int64s {
    Signed(Int64Array),
    Unsigned(UInt64Array),
}

impl Int64s {
    fn of(a: &ArrayRef) -> Option<Self> {
        a.as_primitive_opt::<Int64Type>()
            .map(|a| Int64s::Signed(a.clone()))
            .or_else(|| {
                a.as_primitive_opt::<UInt64Type>()
                    .map(|a| Int64s::Unsigned(a.clone()))
            })
    }

    fn value(&self, i: usize) -> u64 {
        match self {
            // Written from u64 values, so never negative unless the file was forged.
            Int64s::Signed(a) => u64::try_from(a.value(i)).unwrap_or(0),
            Int64s::Unsigned(a) => a.value(i),
        }
    }
}

/// The status column: signed (format version 2) or unsigned (version 1).
enum Statuses {
    Signed(Int16Array),
    Unsigned(UInt16Array),
}

impl Statuses {
    fn of(a: &ArrayRef) -> Option<Self> {
        a.as_primitive_opt::<Int16Type>()
            .map(|a| Statuses::Signed(a.clone()))
            .or_else(|| {
                a.as_primitive_opt::<UInt16Type>()
                    .map(|a| Statuses::Unsigned(a.clone()))
            })
    }

    fn value(&self, i: usize) -> Option<u16> {
        match self {
            Statuses::Signed(a) => a
                .is_valid(i)
                .then(|| a.value(i))
                .and_then(|v| u16::try_from(v).ok()),
            Statuses::Unsigned(a) => a.is_valid(i).then(|| a.value(i)),
        }
    }
}

/// The columns of one decoded batch, downcast once, and the next row to hand out.
/// Rows are built one at a time from the batch so that a batch's strings are not held
/// twice (as Arrow buffers and as `String`s) at once. A column the file or the
/// projection lacks is `None` and reads as empty.
struct Batch {
    key: StringArray,
    url: StringArray,
    urlkey: StringArray,
    digest: StringArray,
    dates: ListArray,
    dates_values: StringArray,
    first_date: StringArray,
    collection: StringArray,
    filename: StringArray,
    archive: Option<StringArray>,
    offset: Int64s,
    length: Int64s,
    mime: StringArray,
    status: Statuses,
    charset: StringArray,
    lang: Option<StringArray>,
    title: Option<StringArray>,
    text: Option<StringArray>,
    main_text: Option<StringArray>,
    simhash: Option<Int64Array>,
    simhash_words: Option<Int32Array>,
    /// The `outlinks` list and its URLs and anchors.
    outlinks: Option<(ListArray, StringArray, StringArray)>,
    next: usize,
    len: usize,
}

impl Batch {
    /// Downcasts the columns; [`check_schema`] already guaranteed their types, so a
    /// failure here means a reader bug, reported rather than panicking.
    fn new(batch: &RecordBatch) -> Option<Self> {
        let col = |name: &str| batch.column_by_name(name);
        let opt_s = |name: &str| col(name).and_then(|c| c.as_string_opt::<i32>().cloned());
        let s = &opt_s;
        let dates = col("dates")?.as_list_opt::<i32>()?.clone();
        let dates_values = dates.values().as_string_opt::<i32>()?.clone();
        let outlinks = match col("outlinks") {
            None => None,
            Some(c) => {
                let outlinks = c.as_list_opt::<i32>()?.clone();
                let links: &StructArray = outlinks.values().as_struct_opt()?;
                let urls = links.column(0).as_string_opt::<i32>()?.clone();
                let anchors = links.column(1).as_string_opt::<i32>()?.clone();
                Some((outlinks, urls, anchors))
            }
        };
        Some(Batch {
            key: s("key")?,
            url: s("url")?,
            urlkey: s("urlkey")?,
            digest: s("digest")?,
            dates,
            dates_values,
            first_date: s("first_date")?,
            collection: s("collection")?,
            filename: s("filename")?,
            archive: opt_s("archive"),
            offset: Int64s::of(col("offset")?)?,
            length: Int64s::of(col("length")?)?,
            mime: s("mime")?,
            status: Statuses::of(col("status")?)?,
            charset: s("charset")?,
            lang: opt_s("lang"),
            title: opt_s("title"),
            text: opt_s("text"),
            main_text: opt_s("main_text"),
            simhash: col("simhash").and_then(|c| c.as_primitive_opt::<Int64Type>().cloned()),
            simhash_words: col("simhash_words")
                .and_then(|c| c.as_primitive_opt::<Int32Type>().cloned()),
            outlinks,
            next: 0,
            len: batch.num_rows(),
        })
    }

    /// The row at `i`.
    fn row(&self, i: usize) -> SegmentRow {
        let opt_str = |a: &StringArray| a.is_valid(i).then(|| a.value(i).to_string());
        let maybe = |a: &Option<StringArray>| a.as_ref().and_then(opt_str);
        // Offsets index the flattened child arrays directly, which avoids slicing a
        // child array (an allocation) per row.
        let range = |l: &ListArray| {
            let o = l.value_offsets();
            o[i] as usize..o[i + 1] as usize
        };
        SegmentRow {
            key: self.key.value(i).to_string(),
            url: self.url.value(i).to_string(),
            urlkey: self.urlkey.value(i).to_string(),
            digest: self.digest.value(i).to_string(),
            dates: range(&self.dates)
                .map(|j| self.dates_values.value(j).to_string())
                .collect(),
            first_date: self.first_date.value(i).to_string(),
            collection: self.collection.value(i).to_string(),
            filename: self.filename.value(i).to_string(),
            archive: maybe(&self.archive).unwrap_or_default(),
            offset: self.offset.value(i),
            length: self.length.value(i),
            mime: self.mime.value(i).to_string(),
            status: self.status.value(i),
            charset: opt_str(&self.charset),
            lang: maybe(&self.lang),
            title: maybe(&self.title),
            text: maybe(&self.text).unwrap_or_default(),
            main_text: maybe(&self.main_text),
            simhash: (self.simhash.as_ref()).and_then(|a| a.is_valid(i).then(|| a.value(i))),
            simhash_words: (self.simhash_words.as_ref())
                .and_then(|a| a.is_valid(i).then(|| a.value(i)))
                .and_then(|w| u32::try_from(w).ok()),
            outlinks: match &self.outlinks {
                None => Vec::new(),
                Some((list, urls, anchors)) => range(list)
                    .map(|j| Outlink {
                        url: urls.value(j).to_string(),
                        anchor: anchors.value(j).to_string(),
                    })
                    .collect(),
            },
        }
    }
}

/// The rows of a segment file, in file order (see [`read_rows`]). Yields each error
/// once and then ends.
pub struct RowReader {
    path: PathBuf,
    batches: ParquetRecordBatchReader,
    current: Option<Batch>,
    done: bool,
}

impl std::fmt::Debug for RowReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowReader")
            .field("path", &self.path)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl Iterator for RowReader {
    type Item = Result<SegmentRow>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.done {
                return None;
            }
            if let Some(b) = &mut self.current {
                if b.next < b.len {
                    let row = b.row(b.next);
                    b.next += 1;
                    return Some(Ok(row));
                }
                // Drop the spent batch before decoding the next: one batch in memory.
                self.current = None;
            }
            match self.batches.next() {
                None => {
                    self.done = true;
                    return None;
                }
                Some(Err(e)) => {
                    // A decoding error leaves the reader in no state to resume from.
                    self.done = true;
                    return Some(Err(AtPath {
                        path: self.path.clone(),
                        source: e,
                    }
                    .into()));
                }
                Some(Ok(batch)) => match Batch::new(&batch) {
                    Some(b) => self.current = Some(b),
                    None => {
                        self.done = true;
                        return Some(Err(Error::BatchSchema(self.path.clone())));
                    }
                },
            }
        }
    }
}
