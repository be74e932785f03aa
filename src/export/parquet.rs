//! An export as Parquet: the fields asked for as columns (text and numbers as they are,
//! dates as `TIMESTAMP(MICROS, UTC)`, `dates` a list of them), zstd, a row group every
//! [`ROWS_PER_GROUP`] versions or [`BYTES_PER_GROUP`] of text. The file is written as it goes: the writer appends, so
//! each finished row group is handed on and dropped, and memory holds one group.

use std::io::Write;
use std::sync::Arc;

use arrow_array::builder::{Int64Builder, ListBuilder, StringBuilder, TimestampMicrosecondBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field as ArrowField, Schema, SchemaRef, TimeUnit};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

use super::{value, Field, Value};
use crate::search::MatchedVersion;

/// Versions per row group, at most.
pub const ROWS_PER_GROUP: usize = 8192;

/// Bytes of text per row group, at most: with `text`, a group of 8,192 pages held 300 MB.
pub const BYTES_PER_GROUP: usize = 16 << 20;

fn time_type() -> DataType {
    DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
}

/// A field's column type.
fn column_type(field: Field) -> DataType {
    match field {
        Field::FirstDate | Field::LastDate => time_type(),
        Field::Dates => DataType::List(Arc::new(ArrowField::new("element", time_type(), true))),
        Field::RecordOffset | Field::RecordLength | Field::Status => DataType::Int64,
        _ => DataType::Utf8,
    }
}

/// Microseconds since 1970 of a 14-digit date (`None`: not a possible capture date).
fn micros(date: &str) -> Option<i64> {
    crate::reader::date::capture_micros(date, i64::MAX / 2)
}

enum Column {
    Text(StringBuilder),
    Number(Int64Builder),
    Time(TimestampMicrosecondBuilder),
    Times(ListBuilder<TimestampMicrosecondBuilder>),
}

/// Rows gathered into columns, written a row group at a time.
pub(super) struct ParquetExport {
    fields: Vec<Field>,
    schema: SchemaRef,
    columns: Vec<Column>,
    rows: usize,
    /// Bytes of text in the group so far.
    bytes: usize,
    writer: ArrowWriter<Vec<u8>>,
}

impl ParquetExport {
    pub(super) fn new(fields: &[Field]) -> parquet::errors::Result<ParquetExport> {
        let schema: SchemaRef = Arc::new(Schema::new(
            (fields.iter())
                .map(|f| ArrowField::new(f.name(), column_type(*f), true))
                .collect::<Vec<_>>(),
        ));
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::default()))
            .set_max_row_group_row_count(Some(ROWS_PER_GROUP))
            .build();
        let writer = ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props))?;
        let mut e = ParquetExport {
            fields: fields.to_vec(),
            schema,
            columns: Vec::new(),
            rows: 0,
            bytes: 0,
            writer,
        };
        e.columns = e.new_columns();
        Ok(e)
    }

    fn new_columns(&self) -> Vec<Column> {
        (self.fields.iter())
            .map(|f| match column_type(*f) {
                DataType::Utf8 => Column::Text(StringBuilder::new()),
                DataType::Int64 => Column::Number(Int64Builder::new()),
                DataType::List(_) => Column::Times(
                    ListBuilder::new(TimestampMicrosecondBuilder::new().with_timezone("UTC"))
                        .with_field(Arc::new(ArrowField::new("element", time_type(), true))),
                ),
                _ => Column::Time(TimestampMicrosecondBuilder::new().with_timezone("UTC")),
            })
            .collect()
    }

    /// Adds a version; a full row group is written to `out`.
    pub(super) fn push(&mut self, v: &MatchedVersion, out: &mut dyn Write) -> std::io::Result<()> {
        for (f, c) in self.fields.iter().zip(&mut self.columns) {
            match (c, value(v, *f)) {
                (Column::Text(b), Value::Text(t)) => {
                    self.bytes += t.len();
                    b.append_value(t)
                }
                (Column::Number(b), Value::Number(n)) => b.append_value(n as i64),
                (Column::Time(b), Value::Text(t)) => b.append_option(micros(t)),
                (Column::Times(b), Value::List(l)) => {
                    for d in l {
                        b.values().append_option(micros(d));
                    }
                    b.append(true);
                }
                (Column::Text(b), _) => b.append_null(),
                (Column::Number(b), _) => b.append_null(),
                (Column::Time(b), _) => b.append_null(),
                (Column::Times(b), _) => b.append_null(),
            }
        }
        self.rows += 1;
        if self.rows >= ROWS_PER_GROUP || self.bytes >= BYTES_PER_GROUP {
            self.write_group(out)?;
        }
        Ok(())
    }

    fn write_group(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        if self.rows == 0 {
            return Ok(());
        }
        let arrays: Vec<ArrayRef> = (self.columns.iter_mut())
            .map(|c| -> ArrayRef {
                match c {
                    Column::Text(b) => Arc::new(b.finish()),
                    Column::Number(b) => Arc::new(b.finish()),
                    Column::Time(b) => Arc::new(b.finish()),
                    Column::Times(b) => Arc::new(b.finish()),
                }
            })
            .collect();
        let batch =
            RecordBatch::try_new(self.schema.clone(), arrays).map_err(std::io::Error::other)?;
        self.writer.write(&batch).map_err(std::io::Error::other)?;
        self.writer.flush().map_err(std::io::Error::other)?;
        self.rows = 0;
        self.bytes = 0;
        // The writer only appends: what it has written so far is handed on.
        out.write_all(&std::mem::take(self.writer.inner_mut()))
    }

    /// Writes the last row group and the footer.
    pub(super) fn finish(mut self, out: &mut dyn Write) -> std::io::Result<()> {
        self.write_group(out)?;
        let rest = self.writer.into_inner().map_err(std::io::Error::other)?;
        out.write_all(&rest)
    }
}
