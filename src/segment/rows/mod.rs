//! Parquet I/O for segment rows: [`RowWriter`] streams [`SegmentRow`]s into a file,
//! [`read_rows`] streams them back in file order, [`row_count`] reads only the footer.
//!
//! Memory stays bounded on both sides: the writer holds at most one batch of rows
//! (as Arrow builders) plus the row group being encoded, and the reader decodes one
//! batch at a time. Errors are the segment layer's [`super::Error`]: the file's path with the
//! Parquet, Arrow or system error as the source.
//!
//! - `schema`: the Arrow/Parquet schema of the rows ([`schema()`]).
//! - `writer`: rows to record batches to Parquet ([`RowWriter`]).
//! - `reader`: Parquet back to rows, columns found by name ([`read_rows`], [`Columns`]).
//!
//! [`SegmentRow`]: super::SegmentRow

mod reader;
mod schema;
mod writer;

pub use reader::{
    crc32_of, read_columns, read_rows, read_rows_with, row_count, verify_rows, Columns, RowReader,
};
pub use schema::schema;
pub use writer::{RowWriter, RowWriterOptions, DEFAULT_ROW_GROUP_BYTES, DEFAULT_ROW_GROUP_ROWS};

/// Rows buffered by a [`RowWriter`] (and decoded per batch by [`read_rows`]) by default.
pub const DEFAULT_BATCH_ROWS: usize = 1024;
