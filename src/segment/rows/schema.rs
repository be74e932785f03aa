//! The Arrow/Parquet schema of segment rows: the columns, their types, and the fields of
//! the lists the writer builds.

use std::sync::{Arc, OnceLock};

use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};

/// The name of a list's element field: the Parquet spec's name (`element`), rather
/// than Arrow's default (`item`), so readers that look for the standard three-level
/// list layout (Spark, Hive, Trino) read `dates` and `outlinks` as lists.
pub(super) const LIST_ELEMENT: &str = "element";

/// The Arrow/Parquet schema of segment rows (format version 2), in the field order of
/// [`SegmentRow`](crate::segment::SegmentRow), with the capture times beside the dates.
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
/// |20 | `outlinks`      | `List<element: Struct<url: Utf8, anchor: Utf8> not null>` | no |
/// |21 | `text_source`   | `Utf8` (`final`, `text`, `pages`: rendered text)  | yes      |
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
/// Files of format version 1 (unsigned `offset`, `length` and `status`; no times,
/// `archive`, `lang` or `main_text`) are still read, and so are the files of earlier imports
/// that also held a 64-bit SimHash (`simhash`, `simhash_words`; the
/// signatures of `near.sig` replaced it, and computing it was an eighth of `import`):
/// see [`read_rows`](super::read_rows).
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
                Field::new("outlinks", DataType::List(outlink_field()), false),
                Field::new("text_source", DataType::Utf8, true),
            ]))
        })
        .clone()
}

/// The type of a capture time: microseconds since 1970 in UTC.
fn time_type() -> DataType {
    DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
}

/// The element of `dates`.
pub(super) fn date_field() -> Arc<Field> {
    Arc::new(Field::new(LIST_ELEMENT, DataType::Utf8, false))
}

/// The element of `capture_times`: null for a date that is not a possible capture date.
pub(super) fn time_field() -> Arc<Field> {
    Arc::new(Field::new(LIST_ELEMENT, time_type(), true))
}

/// The fields of an outlink struct.
pub(super) fn outlink_fields() -> Fields {
    Fields::from(vec![
        Field::new("url", DataType::Utf8, false),
        Field::new("anchor", DataType::Utf8, false),
    ])
}

/// The element of `outlinks`.
pub(super) fn outlink_field() -> Arc<Field> {
    Arc::new(Field::new(
        LIST_ELEMENT,
        DataType::Struct(outlink_fields()),
        false,
    ))
}
