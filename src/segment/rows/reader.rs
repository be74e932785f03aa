//! Reading segment rows: Parquet back to [`SegmentRow`]s one batch at a time, columns
//! found by name so that files of older format versions still read.
//!
//! A damaged file is an error naming it, never a panic (one bit
//! flipped panicked five commands inside the parquet crate). Two guards: the file is
//! checked first against the CRC-32 its `segment.json` records ([`verify_rows`];
//! segments written before format version 3 have none and are read unchecked), and
//! every call into the parquet crate runs under [`guarded`], which turns a panic into
//! [`Error::DamagedRows`].

use std::fs::File;
use std::io::Read;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{Int16Type, Int64Type, UInt16Type, UInt64Type};
use arrow_array::{
    Array, ArrayRef, Int16Array, Int64Array, ListArray, RecordBatch, StringArray, StructArray,
    UInt16Array, UInt64Array,
};
use arrow_schema::{DataType, Schema};
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use parquet::arrow::ProjectionMask;
use parquet::file::metadata::ParquetMetaDataReader;

use super::schema::schema;
use super::DEFAULT_BATCH_ROWS;
use crate::path_error::{AtPath, ResultAtPath};
use crate::segment::{Error, Outlink, Result, SegmentRow};

/// Runs `f`, a call into the parquet or arrow crates over the rows file `path`,
/// turning a panic into [`Error::DamagedRows`] naming the file: the crates panic on some
/// damaged files ("column start and length should not be negative"), and a segment
/// written before its checksum was recorded can only be guarded so.
fn guarded<T>(path: &Path, f: impl FnOnce() -> Result<T>) -> Result<T> {
    std::panic::catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let why = (panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".into());
        Err(Error::DamagedRows {
            path: path.to_path_buf(),
            why,
        })
    })
}

/// The CRC-32 of a file, read through once.
pub fn crc32_of(path: &Path) -> Result<u32> {
    let mut f = File::open(path).at(path)?;
    let mut crc = crc32fast::Hasher::new();
    let mut buf = vec![0u8; 256 << 10];
    loop {
        let n = f.read(&mut buf).at(path)?;
        if n == 0 {
            return Ok(crc.finalize());
        }
        crc.update(&buf[..n]);
    }
}

/// Checks the rows file `path` against the CRC-32 that the `segment.json` beside it
/// records. A file without a `segment.json` beside it, or whose manifest records none (a
/// segment written before format version 3), is not checked; a manifest that does not
/// parse is an error naming it.
pub fn verify_rows(path: &Path) -> Result<()> {
    let Some(dir) = path.parent() else {
        return Ok(());
    };
    if !dir.join(crate::segment::layout::MANIFEST_FILE).exists() {
        return Ok(());
    }
    let Some(expected) = crate::segment::layout::read_manifest(dir)?.rows_crc32 else {
        return Ok(());
    };
    let found = crc32_of(path)?;
    if found != expected {
        return Err(Error::RowsChecksum {
            path: path.to_path_buf(),
            expected,
            found,
        });
    }
    Ok(())
}

/// Number of rows in a segment file, from its footer alone (after [`verify_rows`]).
pub fn row_count(path: &Path) -> Result<u64> {
    verify_rows(path)?;
    let file = File::open(path).at(path)?;
    let meta = guarded(path, || {
        Ok(ParquetMetaDataReader::new()
            .parse_and_finish(&file)
            .at(path)?)
    })?;
    u64::try_from(meta.file_metadata().num_rows())
        .map_err(|_| Error::NegativeRowCount(path.to_path_buf()))
}

/// The record batches of the columns `names` of the rows file `path` (those it has),
/// in file order, after [`verify_rows`], each decoded under [`guarded`]: for a reader of
/// a few columns of every segment (the capture table's languages).
pub fn read_columns(
    path: &Path,
    names: &[&str],
) -> Result<impl Iterator<Item = Result<RecordBatch>>> {
    verify_rows(path)?;
    let file = File::open(path).at(path)?;
    let mut batches = guarded(path, || {
        let builder = ParquetRecordBatchReaderBuilder::try_new(file).at(path)?;
        let roots: Vec<usize> = (builder.schema().fields().iter().enumerate())
            .filter(|(_, c)| names.contains(&c.name().as_str()))
            .map(|(i, _)| i)
            .collect();
        let mask = ProjectionMask::roots(builder.parquet_schema(), roots);
        Ok(builder.with_projection(mask).build().at(path)?)
    })?;
    let path = path.to_path_buf();
    let mut done = false;
    Ok(std::iter::from_fn(move || {
        if done {
            return None;
        }
        let next = guarded(&path, || Ok(batches.next().transpose().at(&path)?));
        match next {
            Ok(Some(b)) => Some(Ok(b)),
            Ok(None) => None,
            Err(e) => {
                done = true;
                Some(Err(e))
            }
        }
    }))
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
    /// title and an empty text. For the link graph (src/index/link_shards.rs), which reads the
    /// whole collection in one task and needs only keys, URLs and outlinks.
    WithoutText,
    /// All but `outlinks`: the rows have none. For the pass of `index` that writes the
    /// documents (src/index/mod.rs), after the links were taken in a pass of their own.
    WithoutOutlinks,
    /// All but the text columns and `outlinks`: keys, dates and each version's capture
    /// fields. For the dates index of a segment's set (src/dates/add/docs.rs).
    WithoutTextOrOutlinks,
}

/// The columns [`Columns::WithoutText`] leaves out.
const TEXT_COLUMNS: [&str; 3] = ["title", "text", "main_text"];

/// Columns written for other readers and never read back (see [`schema`]).
const WRITE_ONLY_COLUMNS: [&str; 2] = ["capture_times", "first_time"];

/// Columns a file of format version 1 lacks: a row read from it has them empty.
const NEWER_COLUMNS: [&str; 4] = ["archive", "lang", "main_text", "text_source"];

/// [`read_rows`] decoding only `columns`: Parquet skips the column chunks of the others.
/// The file is checked first ([`verify_rows`]).
pub fn read_rows_with(path: &Path, columns: Columns) -> Result<RowReader> {
    verify_rows(path)?;
    guarded(path, || open_rows(path, columns))
}

/// [`read_rows_with`] after the check.
fn open_rows(path: &Path, columns: Columns) -> Result<RowReader> {
    let file = File::open(path).at(path)?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).at(path)?;
    check_schema(path, builder.schema())?;
    let wanted = schema();
    let skipped = |name: &str| {
        // Columns of no row field (an older file's `simhash`) are not decoded either.
        wanted.field_with_name(name).is_err()
            || WRITE_ONLY_COLUMNS.contains(&name)
            || (matches!(
                columns,
                Columns::WithoutText | Columns::WithoutTextOrOutlinks
            ) && TEXT_COLUMNS.contains(&name))
            || (matches!(
                columns,
                Columns::WithoutOutlinks | Columns::WithoutTextOrOutlinks
            ) && name == "outlinks")
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
    text_source: Option<StringArray>,
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
            text_source: opt_s("text_source"),
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
            text_source: maybe(&self.text_source),
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
        let path = self.path.clone();
        match guarded(&path, || Ok(self.next_unguarded())) {
            Ok(r) => r,
            Err(e) => {
                // A panic leaves the decoder in no state to resume from.
                self.done = true;
                self.current = None;
                Some(Err(e))
            }
        }
    }
}

impl RowReader {
    /// [`Iterator::next`], which runs it under [`guarded`].
    fn next_unguarded(&mut self) -> Option<Result<SegmentRow>> {
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
