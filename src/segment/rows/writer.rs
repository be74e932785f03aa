//! Writing segment rows: [`SegmentRow`]s into Arrow builders, record batches and a
//! zstd-compressed Parquet file.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

use arrow_array::builder::{
    ArrayBuilder, Int16Builder, Int64Builder, ListBuilder, StringBuilder, StructBuilder,
    TimestampMicrosecondBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;

use super::schema::{date_field, outlink_field, outlink_fields, schema, time_field, LIST_ELEMENT};
use super::DEFAULT_BATCH_ROWS;
use crate::path_error::ResultAtPath;
use crate::segment::{Error, Result, SegmentRow};

/// Default bound on a row group's estimated encoded (compressed) size. The writer keeps
/// the whole row group in memory until it is flushed, and many readers (async and object
/// store readers, pyarrow) load a row group's column chunks at once, so this bounds their
/// memory; [`read_rows`](super::read_rows) itself reads page by page.
pub const DEFAULT_ROW_GROUP_BYTES: usize = 64 * 1024 * 1024;

/// Default bound on a row group's row count (Parquet's own default).
pub const DEFAULT_ROW_GROUP_ROWS: usize = 1024 * 1024;

/// Buffered string bytes that force a batch out early. Arrow's `Utf8` arrays use 32-bit
/// offsets, so a batch of 1024 rows with very long texts could otherwise overflow them
/// (and hold far more memory than `batch_rows` suggests). One batch is built while the
/// one before is encoded, and a builder grows by doubling: at 64 MiB the bench's import
/// peaked 40–60 MiB higher than at 16 (docs/performance.md).
const MAX_BATCH_BYTES: usize = 16 * 1024 * 1024;

/// A single row whose strings add up to more than this cannot be stored in one batch
/// without risking the 32-bit offsets; the import caps text far below it.
const MAX_ROW_BYTES: usize = 1 << 30;

/// How a [`RowWriter`] buffers and groups rows. The defaults suit imports; tests use
/// small row groups to exercise files with many of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowWriterOptions {
    /// Rows buffered before they are encoded (also flushed early past 16 MiB of
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
        &["text_source"],
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
    outlinks: ListBuilder<StructBuilder>,
    text_source: StringBuilder,
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
            outlinks: ListBuilder::new(outlink).with_field(outlink_field()),
            text_source: StringBuilder::new(),
            now: warcdex_cdx::date::now_micros(),
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
        self.text_source.append_option(row.text_source.as_deref());
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
            Arc::new(self.outlinks.finish()),
            Arc::new(self.text_source.finish()),
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
        + opt(&row.text_source)
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
///
/// Batches are encoded (Parquet pages, zstd) on a thread of their own while the next batch
/// is built, one batch handed over at a time: the import's tail, rows read back from its
/// sort and encoded, ran on one core (docs/performance.md).
pub struct RowWriter {
    path: PathBuf,
    /// Batches to the encoding thread, then `None` to finish the file; `None` here once
    /// finished or failed. Dropped without the last `None`, the file gets no footer.
    batches: Option<SyncSender<Option<RecordBatch>>>,
    /// The encoding thread: the Parquet writer's error, if any, when it ends.
    encoder: Option<JoinHandle<parquet::errors::Result<()>>>,
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
        let mut writer =
            ArrowWriter::try_new(file, schema(), Some(writer_properties(&opts))).at(path)?;
        // A rendezvous: the builder thread waits while the encoder still has a batch, so
        // at most one batch is built and one encoded at a time.
        let (batches, received) = sync_channel::<Option<RecordBatch>>(0);
        let encoder = std::thread::Builder::new()
            .name("rows-encoder".into())
            .spawn(move || {
                for batch in received {
                    match batch {
                        Some(batch) => writer.write(&batch)?,
                        None => return writer.into_inner().map(drop),
                    }
                }
                // Dropped unfinished: no footer, as an unfinished file has none.
                Ok(())
            })
            .at(path)?;
        Ok(RowWriter {
            path: path.to_path_buf(),
            batches: Some(batches),
            encoder: Some(encoder),
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
        let sent = (self.batches.as_ref()).is_some_and(|b| b.send(Some(batch)).is_ok());
        if !sent {
            // The encoder stopped: its error says why (it stops on nothing else).
            self.encoded()?;
            return Err(Error::Io(std::io::Error::other(format!(
                "{}: the rows file's encoder stopped",
                self.path.display()
            ))));
        }
        self.rows += self.buffered_rows as u64;
        self.buffered_rows = 0;
        self.buffered_bytes = 0;
        Ok(())
    }

    /// Writes the remaining rows and the footer, and closes the file. Returns the number
    /// of rows written. The data is flushed to the operating system, not synced to disk.
    pub fn finish(mut self) -> Result<u64> {
        self.flush_batch()?;
        if let Some(b) = self.batches.take() {
            // A refusal means the encoder stopped on an error, which `encoded` returns.
            let _ = b.send(None);
        }
        self.encoded()?;
        Ok(self.rows)
    }

    /// Closes the batches and waits for the encoder: its error, if it stopped on one.
    fn encoded(&mut self) -> Result<()> {
        self.batches = None;
        match self.encoder.take().map(JoinHandle::join) {
            None => Err(Error::Io(std::io::Error::other(format!(
                "{}: the rows file's encoder stopped",
                self.path.display()
            )))),
            Some(Ok(r)) => r.at(&self.path).map_err(Error::from),
            Some(Err(panic)) => std::panic::resume_unwind(panic),
        }
    }
}

impl Drop for RowWriter {
    /// An unfinished writer stops its encoder (the file keeps no footer) and waits for it,
    /// so that the file is closed when the writer is gone.
    fn drop(&mut self) {
        self.batches = None;
        if let Some(e) = self.encoder.take() {
            let _ = e.join();
        }
    }
}
