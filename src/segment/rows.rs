//! Parquet I/O for segment rows: [`RowWriter`] streams [`SegmentRow`]s into a file,
//! [`read_rows`] streams them back in file order, [`row_count`] reads only the footer.
//!
//! Memory stays bounded on both sides: the writer holds at most one batch of rows
//! (as Arrow builders) plus the row group being encoded, and the reader decodes one
//! batch at a time. Errors are the segment layer's [`super::Error`]: the file's path with the
//! Parquet, Arrow or system error as the source.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use arrow_array::builder::{
    ArrayBuilder, ListBuilder, StringBuilder, StructBuilder, UInt16Builder, UInt64Builder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::{UInt16Type, UInt64Type};
use arrow_array::{
    Array, ArrayRef, ListArray, RecordBatch, StringArray, StructArray, UInt16Array, UInt64Array,
};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::ParquetMetaDataReader;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;

use super::{Outlink, Result, SegmentRow};
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

/// The Arrow/Parquet schema of segment rows, in the field order of [`SegmentRow`].
///
/// | # | column       | Arrow type                                  | nullable |
/// |---|--------------|---------------------------------------------|----------|
/// | 0 | `key`        | `Utf8`                                      | no       |
/// | 1 | `url`        | `Utf8`                                      | no       |
/// | 2 | `urlkey`     | `Utf8`                                      | no       |
/// | 3 | `digest`     | `Utf8`                                      | no       |
/// | 4 | `dates`      | `List<element: Utf8 not null>`              | no       |
/// | 5 | `first_date` | `Utf8`                                      | no       |
/// | 6 | `collection` | `Utf8`                                      | no       |
/// | 7 | `filename`   | `Utf8`                                      | no       |
/// | 8 | `offset`     | `UInt64`                                    | no       |
/// | 9 | `length`     | `UInt64`                                    | no       |
/// |10 | `mime`       | `Utf8`                                      | no       |
/// |11 | `status`     | `UInt16`                                    | yes      |
/// |12 | `charset`    | `Utf8`                                      | yes      |
/// |13 | `title`      | `Utf8`                                      | yes      |
/// |14 | `text`       | `Utf8`                                      | no       |
/// |15 | `outlinks`   | `List<element: Struct<url: Utf8, anchor: Utf8> not null>` | no |
///
/// The list elements and the struct's `url` and `anchor` are non-null too. In Parquet
/// terms: strings are `BYTE_ARRAY` (`STRING`), `offset`/`length` are `INT64`
/// (`INTEGER(64, unsigned)`), `status` is `INT32` (`INTEGER(16, unsigned)`), and the
/// lists use the standard three-level layout (`dates.list.element`,
/// `outlinks.list.element.url`, `outlinks.list.element.anchor`).
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
                utf8("first_date"),
                utf8("collection"),
                utf8("filename"),
                Field::new("offset", DataType::UInt64, false),
                Field::new("length", DataType::UInt64, false),
                utf8("mime"),
                Field::new("status", DataType::UInt16, true),
                Field::new("charset", DataType::Utf8, true),
                Field::new("title", DataType::Utf8, true),
                utf8("text"),
                Field::new("outlinks", DataType::List(outlink_field()), false),
            ]))
        })
        .clone()
}

/// The element of `dates`.
fn date_field() -> Arc<Field> {
    Arc::new(Field::new(LIST_ELEMENT, DataType::Utf8, false))
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
        &["mime"],
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
    first_date: StringBuilder,
    collection: StringBuilder,
    filename: StringBuilder,
    offset: UInt64Builder,
    length: UInt64Builder,
    mime: StringBuilder,
    status: UInt16Builder,
    charset: StringBuilder,
    title: StringBuilder,
    text: StringBuilder,
    outlinks: ListBuilder<StructBuilder>,
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
        Builders {
            key: StringBuilder::new(),
            url: StringBuilder::new(),
            urlkey: StringBuilder::new(),
            digest: StringBuilder::new(),
            dates: ListBuilder::new(StringBuilder::new()).with_field(date_field()),
            first_date: StringBuilder::new(),
            collection: StringBuilder::new(),
            filename: StringBuilder::new(),
            offset: UInt64Builder::new(),
            length: UInt64Builder::new(),
            mime: StringBuilder::new(),
            status: UInt16Builder::new(),
            charset: StringBuilder::new(),
            title: StringBuilder::new(),
            text: StringBuilder::new(),
            outlinks: ListBuilder::new(outlink).with_field(outlink_field()),
        }
    }

    fn append(&mut self, row: &SegmentRow) {
        self.key.append_value(&row.key);
        self.url.append_value(&row.url);
        self.urlkey.append_value(&row.urlkey);
        self.digest.append_value(&row.digest);
        for d in &row.dates {
            self.dates.values().append_value(d);
        }
        self.dates.append(true);
        self.first_date.append_value(&row.first_date);
        self.collection.append_value(&row.collection);
        self.filename.append_value(&row.filename);
        self.offset.append_value(row.offset);
        self.length.append_value(row.length);
        self.mime.append_value(&row.mime);
        self.status.append_option(row.status);
        self.charset.append_option(row.charset.as_deref());
        self.title.append_option(row.title.as_deref());
        self.text.append_value(&row.text);
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
            Arc::new(self.first_date.finish()),
            Arc::new(self.collection.finish()),
            Arc::new(self.filename.finish()),
            Arc::new(self.offset.finish()),
            Arc::new(self.length.finish()),
            Arc::new(self.mime.finish()),
            Arc::new(self.status.finish()),
            Arc::new(self.charset.finish()),
            Arc::new(self.title.finish()),
            Arc::new(self.text.finish()),
            Arc::new(self.outlinks.finish()),
        ];
        RecordBatch::try_new(schema(), columns)
    }
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
        + row.mime.len()
        + opt(&row.charset)
        + opt(&row.title)
        + row.text.len()
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
    /// Fails with [`io::ErrorKind::InvalidInput`] when an option is 0.
    pub fn create_with(path: &Path, opts: RowWriterOptions) -> Result<Self> {
        if opts.batch_rows == 0 || opts.row_group_bytes == 0 || opts.row_group_rows == 0 {
            // The parquet crate panics on zero limits; refuse them politely instead.
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{}: row writer options must be at least 1: {opts:?}",
                    path.display()
                ),
            )
            .into());
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
    /// Fails with [`io::ErrorKind::InvalidInput`] for a row whose strings add up to more
    /// than 1 GiB (Arrow's 32-bit string offsets could not hold a batch of them).
    pub fn write(&mut self, row: &SegmentRow) -> Result<()> {
        let bytes = row_bytes(row);
        if bytes > MAX_ROW_BYTES {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{}: row {:?} holds {bytes} bytes of strings, more than {MAX_ROW_BYTES}",
                    self.path.display(),
                    row.key
                ),
            )
            .into());
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
    u64::try_from(meta.file_metadata().num_rows()).map_err(|_| {
        io::Error::other(format!(
            "{}: negative row count in the footer",
            path.display()
        ))
        .into()
    })
}

/// Reads the rows of a segment file back, one batch of [`DEFAULT_BATCH_ROWS`] rows in
/// memory at a time, in file order.
///
/// Fails at once when the file is not Parquet or its columns do not match [`schema`]
/// (names, order, types and nullability; field metadata is ignored).
pub fn read_rows(path: &Path) -> Result<RowReader> {
    read_rows_with(path, Columns::All)
}

/// Which columns a [`RowReader`] decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Columns {
    /// Every column.
    All,
    /// All but `title` and `text`, the bulk of a segment: the rows have no title and an
    /// empty text. For the link graph (src/index/graph.rs), which reads the whole
    /// collection in one task and needs only keys, URLs and outlinks.
    WithoutText,
}

/// The columns [`Columns::WithoutText`] leaves out, by position in [`schema`].
const TITLE_COLUMN: usize = 13;
const TEXT_COLUMN: usize = 14;

/// [`read_rows`] decoding only `columns`: Parquet skips the column chunks of the others.
pub fn read_rows_with(path: &Path, columns: Columns) -> Result<RowReader> {
    let file = File::open(path).at(path)?;
    let mut builder = ParquetRecordBatchReaderBuilder::try_new(file).at(path)?;
    check_schema(path, builder.schema())?;
    if columns == Columns::WithoutText {
        let roots = (0..schema().fields().len()).filter(|&i| i != TITLE_COLUMN && i != TEXT_COLUMN);
        let mask = ProjectionMask::roots(builder.parquet_schema(), roots);
        builder = builder.with_projection(mask);
    }
    let batches = builder
        .with_batch_size(DEFAULT_BATCH_ROWS)
        .build()
        .at(path)?;
    Ok(RowReader {
        path: path.to_path_buf(),
        batches,
        columns,
        current: None,
        done: false,
    })
}

/// A batch read [`Columns::WithoutText`], with a null `title` and an empty `text` put
/// back, so that it has the [`schema`] rows are built from.
fn with_empty_text(batch: RecordBatch) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let n = batch.num_rows();
    let mut columns: Vec<ArrayRef> = batch.columns().to_vec();
    columns.insert(
        TITLE_COLUMN,
        arrow_array::new_null_array(&DataType::Utf8, n),
    );
    columns.insert(
        TEXT_COLUMN,
        Arc::new(StringArray::from_iter_values(std::iter::repeat_n("", n))),
    );
    RecordBatch::try_new(schema(), columns)
}

/// Refuses a file whose columns are not exactly ours.
fn check_schema(path: &Path, found: &Schema) -> Result<()> {
    let want = schema();
    let same = found.fields().len() == want.fields().len()
        && found.fields().iter().zip(want.fields()).all(|(f, w)| {
            f.name() == w.name()
                && f.is_nullable() == w.is_nullable()
                && f.data_type() == w.data_type()
        });
    if same {
        Ok(())
    } else {
        Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{}: not a segment rows file: columns are {:?}, expected {:?}",
                path.display(),
                found.fields(),
                want.fields()
            ),
        )
        .into())
    }
}

/// The columns of one decoded batch, downcast once, and the next row to hand out.
/// Rows are built one at a time from the batch so that a batch's strings are not held
/// twice (as Arrow buffers and as `String`s) at once.
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
    offset: UInt64Array,
    length: UInt64Array,
    mime: StringArray,
    status: UInt16Array,
    charset: StringArray,
    title: StringArray,
    text: StringArray,
    outlinks: ListArray,
    outlink_urls: StringArray,
    outlink_anchors: StringArray,
    next: usize,
    len: usize,
}

impl Batch {
    /// Downcasts the columns; [`check_schema`] already guaranteed their types, so a
    /// failure here means a reader bug, reported rather than panicking.
    fn new(batch: &RecordBatch) -> Option<Self> {
        let s = |i: usize| batch.column(i).as_string_opt::<i32>().cloned();
        let u64s = |i: usize| batch.column(i).as_primitive_opt::<UInt64Type>().cloned();
        let dates = batch.column(4).as_list_opt::<i32>()?.clone();
        let dates_values = dates.values().as_string_opt::<i32>()?.clone();
        let outlinks = batch.column(15).as_list_opt::<i32>()?.clone();
        let links: &StructArray = outlinks.values().as_struct_opt()?;
        let outlink_urls = links.column(0).as_string_opt::<i32>()?.clone();
        let outlink_anchors = links.column(1).as_string_opt::<i32>()?.clone();
        Some(Batch {
            key: s(0)?,
            url: s(1)?,
            urlkey: s(2)?,
            digest: s(3)?,
            dates,
            dates_values,
            first_date: s(5)?,
            collection: s(6)?,
            filename: s(7)?,
            offset: u64s(8)?,
            length: u64s(9)?,
            mime: s(10)?,
            status: batch.column(11).as_primitive_opt::<UInt16Type>()?.clone(),
            charset: s(12)?,
            title: s(13)?,
            text: s(14)?,
            outlinks,
            outlink_urls,
            outlink_anchors,
            next: 0,
            len: batch.num_rows(),
        })
    }

    /// The row at `i`.
    fn row(&self, i: usize) -> SegmentRow {
        let opt_str = |a: &StringArray| a.is_valid(i).then(|| a.value(i).to_string());
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
            offset: self.offset.value(i),
            length: self.length.value(i),
            mime: self.mime.value(i).to_string(),
            status: self.status.is_valid(i).then(|| self.status.value(i)),
            charset: opt_str(&self.charset),
            title: opt_str(&self.title),
            text: self.text.value(i).to_string(),
            outlinks: range(&self.outlinks)
                .map(|j| Outlink {
                    url: self.outlink_urls.value(j).to_string(),
                    anchor: self.outlink_anchors.value(j).to_string(),
                })
                .collect(),
        }
    }
}

/// The rows of a segment file, in file order (see [`read_rows`]). Yields each error
/// once and then ends.
pub struct RowReader {
    path: PathBuf,
    batches: ParquetRecordBatchReader,
    columns: Columns,
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
                Some(Ok(batch)) => match match self.columns {
                    Columns::All => Some(batch),
                    Columns::WithoutText => with_empty_text(batch).ok(),
                }
                .as_ref()
                .and_then(Batch::new)
                {
                    Some(b) => self.current = Some(b),
                    None => {
                        self.done = true;
                        return Some(Err(io::Error::other(format!(
                            "{}: a decoded batch does not have the segment rows schema",
                            self.path.display()
                        ))
                        .into()));
                    }
                },
            }
        }
    }
}
