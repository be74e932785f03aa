//! Segment rows as Parquet: round trips, the file as another reader sees it, and the
//! compression.

use std::path::Path;
use std::sync::Arc;

use parquet::basic::{Compression, LogicalType, Repetition, Type as PhysicalType};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::{Field, ListAccessor, Row, RowAccessor};
use warcdex::segment::rows::{read_rows, row_count, schema, RowWriter, RowWriterOptions};
use warcdex::segment::{Outlink, SegmentRow};

/// A deterministic generator, so that failures reproduce without a seed to report.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const WORDS: &[&str] = &[
    "archive",
    "web",
    "Zürich",
    "naïve",
    "東京",
    "данные",
    "crawl",
    "🦀",
    "page",
    "the",
    "of",
    "link",
    "\u{0}",
    "tab\there",
    "line\nbreak",
    "ελληνικά",
    "",
];

fn words(rng: &mut Lcg, n: u64) -> String {
    let mut s = String::new();
    for i in 0..n {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
    }
    s
}

/// Up to `max - 1` words.
fn some_words(rng: &mut Lcg, max: u64) -> String {
    let n = rng.below(max);
    words(rng, n)
}

/// Row `i`: fields vary with `i` (None, empty lists, unicode) so that every column sees
/// nulls, empties and long values somewhere.
fn row(i: u64, rng: &mut Lcg) -> SegmentRow {
    let url = format!("http://example{}.org/{}/{}", i % 97, words(rng, 1), i);
    let digest = format!("sha1:{:032X}", rng.next() as u128 * 7919 + i as u128);
    let ndates = rng.below(4) + 1;
    let dates: Vec<String> = (0..ndates)
        .map(|d| format!("2024{:02}{:02}120000", 1 + (i + d) % 12, 1 + d))
        .collect();
    let noutlinks = if i.is_multiple_of(5) {
        0
    } else {
        rng.below(20)
    };
    SegmentRow {
        key: format!("{url} {digest}"),
        urlkey: format!("org,example{})/{}", i % 97, i),
        url,
        digest,
        first_date: dates[0].clone(),
        dates,
        collection: if i.is_multiple_of(2) {
            "coll-a"
        } else {
            "Sammlung-ü"
        }
        .to_string(),
        filename: format!("crawl-{:05}.warc.gz", i / 1000),
        archive: format!("batch-{}/crawl-{:05}.warc.gz", i % 3, i / 1000),
        lang: (!i.is_multiple_of(6)).then(|| ["en", "zh", "fr"][(i % 3) as usize].to_string()),
        main_text: (i % 4 != 2).then(|| some_words(rng, 100)),
        text_source: (i % 5 == 1).then(|| ["final", "text", "pages"][(i % 3) as usize].to_string()),
        offset: i * 1_000_003 + (i64::MAX as u64 - 10_000_000_000_000) * (i % 3 / 2),
        length: rng.below(1 << 20),
        mime: ["text/html", "application/pdf", "text/plain", ""][(i % 4) as usize].to_string(),
        status: (!i.is_multiple_of(7)).then_some([200, 404, 301, 0, 999][(i % 5) as usize]),
        charset: (!i.is_multiple_of(3))
            .then(|| ["", "UTF-8", "windows-1252"][(i % 3) as usize].to_string()),
        title: (i % 4 != 1).then(|| some_words(rng, 8)),
        text: some_words(rng, 300),
        outlinks: (0..noutlinks)
            .map(|k| Outlink {
                url: format!("http://example.org/{i}/{k}"),
                anchor: words(rng, k % 4),
            })
            .collect(),
    }
}

/// 10,000 varied rows, the first few of them extreme.
fn varied_rows() -> Vec<SegmentRow> {
    let mut rng = Lcg(42);
    let mut rows: Vec<SegmentRow> = (0..10_000).map(|i| row(i, &mut rng)).collect();
    // Everything optional absent and every list empty.
    rows[0] = SegmentRow::default();
    // A 1 MB text that is mostly multi-byte characters.
    rows[1].text = "日本語のテキスト ".repeat(1024 * 1024 / 25);
    assert!(rows[1].text.len() >= 1_000_000);
    // Optional strings present but empty (distinct from None).
    rows[2].charset = Some(String::new());
    rows[2].title = Some(String::new());
    rows[2].status = Some(0);
    rows
}

fn write_all(path: &Path, rows: &[SegmentRow], opts: RowWriterOptions) -> u64 {
    let mut w = RowWriter::create_with(path, opts).unwrap();
    for r in rows {
        w.write(r).unwrap();
    }
    w.finish().unwrap()
}

fn read_all(path: &Path) -> Vec<SegmentRow> {
    read_rows(path)
        .unwrap()
        .collect::<warcdex::segment::Result<_>>()
        .unwrap()
}

fn assert_rows_eq(got: &[SegmentRow], want: &[SegmentRow]) {
    assert_eq!(got.len(), want.len(), "row count");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        // Row by row, so that a failure names the row instead of printing 10,000.
        assert_eq!(g, w, "row {i}");
    }
}

fn row_groups(path: &Path) -> usize {
    let reader = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    reader.num_row_groups()
}

#[test]
fn round_trip_over_many_row_groups() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows.parquet");
    let rows = varied_rows();
    // Batches that do not divide the row group size, so that batches straddle groups.
    let opts = RowWriterOptions {
        batch_rows: 300,
        row_group_rows: 1_000,
        ..RowWriterOptions::default()
    };
    assert_eq!(write_all(&path, &rows, opts), 10_000);
    assert_eq!(row_count(&path).unwrap(), 10_000);
    assert_eq!(row_groups(&path), 10);
    assert_rows_eq(&read_all(&path), &rows);
}

#[test]
fn round_trip_with_row_groups_bounded_by_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows.parquet");
    let rows = varied_rows();
    let opts = RowWriterOptions {
        row_group_bytes: 256 * 1024,
        ..RowWriterOptions::default()
    };
    assert_eq!(write_all(&path, &rows, opts), 10_000);
    let groups = row_groups(&path);
    assert!(groups > 3, "{groups} row groups for a 256 KiB bound");
    assert_rows_eq(&read_all(&path), &rows);
}

#[test]
fn round_trip_with_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows.parquet");
    let rows = varied_rows();
    let mut w = RowWriter::create(&path).unwrap();
    for r in &rows {
        w.write(r).unwrap();
    }
    assert_eq!(w.finish().unwrap(), 10_000);
    assert_eq!(row_groups(&path), 1);
    assert_rows_eq(&read_all(&path), &rows);
}

#[test]
fn empty_file_is_valid() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.parquet");
    assert_eq!(RowWriter::create(&path).unwrap().finish().unwrap(), 0);
    assert_eq!(row_count(&path).unwrap(), 0);
    assert_eq!(read_all(&path), vec![]);
}

#[test]
fn texts_past_the_batch_byte_bound_round_trip() {
    // Three 30 MB texts cross the writer's 64 MiB batch bound, so the batch is cut short
    // by bytes rather than rows (not observable from here); the rows must still come
    // back whole and in order.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.parquet");
    let rows: Vec<SegmentRow> = (0..3u8)
        .map(|i| SegmentRow {
            key: format!("k{i}"),
            text: char::from(b'a' + i).to_string().repeat(30 << 20),
            ..SegmentRow::default()
        })
        .collect();
    assert_eq!(write_all(&path, &rows, RowWriterOptions::default()), 3);
    let got = read_all(&path);
    assert_eq!(got.len(), 3);
    for (g, w) in got.iter().zip(&rows) {
        assert!(g == w, "row {} differs", w.key);
    }
}

#[test]
fn zero_options_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.parquet");
    let opts = RowWriterOptions {
        batch_rows: 0,
        ..RowWriterOptions::default()
    };
    let e = RowWriter::create_with(&path, opts).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
}

#[test]
fn not_parquet_and_other_schemas_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.parquet");
    std::fs::write(&junk, b"this is not parquet at all").unwrap();
    let e = read_rows(&junk).unwrap_err();
    assert!(e.to_string().contains("junk.parquet"), "{e}");
    assert!(row_count(&junk).is_err());

    // A valid Parquet file with another schema.
    let other = dir.path().join("other.parquet");
    let s = Arc::new(arrow_schema::Schema::new(vec![arrow_schema::Field::new(
        "key",
        arrow_schema::DataType::Utf8,
        false,
    )]));
    let batch = arrow_array::RecordBatch::try_new(
        s.clone(),
        vec![Arc::new(arrow_array::StringArray::from(vec!["a"]))],
    )
    .unwrap();
    let mut w =
        parquet::arrow::ArrowWriter::try_new(std::fs::File::create(&other).unwrap(), s, None)
            .unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let e = read_rows(&other).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidData, "{e}");
    assert!(e.to_string().contains("not a segment rows file"), "{e}");

    let missing = dir.path().join("missing.parquet");
    assert_eq!(
        read_rows(&missing).unwrap_err().kind(),
        std::io::ErrorKind::NotFound
    );
}

/// The value of the column named `name` in a record-API row.
fn field<'a>(row: &'a Row, name: &str) -> &'a Field {
    row.get_column_iter()
        .find(|(n, _)| n.as_str() == name)
        .unwrap_or_else(|| panic!("no column {name}"))
        .1
}

fn opt_str(row: &Row, name: &str) -> Option<String> {
    match field(row, name) {
        Field::Null => None,
        Field::Str(s) => Some(s.clone()),
        f => panic!("{name}: {f:?}"),
    }
}

#[test]
fn opens_in_a_reader_that_is_not_ours() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows.parquet");
    let rows = varied_rows();
    let opts = RowWriterOptions {
        row_group_rows: 4_000,
        ..RowWriterOptions::default()
    };
    write_all(&path, &rows, opts);

    // The low-level reader: Parquet's own schema and record API, no Arrow.
    let reader = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
    let meta = reader.metadata();
    assert_eq!(meta.file_metadata().num_rows(), 10_000);
    assert_eq!(meta.num_row_groups(), 3);

    // Leaf columns: path, physical type, logical type, repetition.
    let string = Some(LogicalType::String);
    // A signed 64-bit integer is plain INT64, without a logical type.
    let i64 = None;
    let i16 = Some(LogicalType::integer(16, true));
    let micros = Some(LogicalType::timestamp(
        true,
        parquet::basic::TimeUnit::MICROS,
    ));
    use PhysicalType::{BYTE_ARRAY, INT32, INT64};
    // `Repetition` is a type alias, so its variants cannot be imported.
    let (required, optional, repeated) = (
        Repetition::REQUIRED,
        Repetition::OPTIONAL,
        Repetition::REPEATED,
    );
    let want: Vec<(&str, PhysicalType, Option<LogicalType>, Repetition)> = vec![
        ("key", BYTE_ARRAY, string.clone(), required),
        ("url", BYTE_ARRAY, string.clone(), required),
        ("urlkey", BYTE_ARRAY, string.clone(), required),
        ("digest", BYTE_ARRAY, string.clone(), required),
        ("dates.list.element", BYTE_ARRAY, string.clone(), required),
        (
            "capture_times.list.element",
            INT64,
            micros.clone(),
            optional,
        ),
        ("first_date", BYTE_ARRAY, string.clone(), required),
        ("first_time", INT64, micros, optional),
        ("collection", BYTE_ARRAY, string.clone(), required),
        ("filename", BYTE_ARRAY, string.clone(), required),
        ("archive", BYTE_ARRAY, string.clone(), required),
        ("offset", INT64, i64.clone(), required),
        ("length", INT64, i64, required),
        ("mime", BYTE_ARRAY, string.clone(), required),
        ("status", INT32, i16, optional),
        ("charset", BYTE_ARRAY, string.clone(), optional),
        ("lang", BYTE_ARRAY, string.clone(), optional),
        ("title", BYTE_ARRAY, string.clone(), optional),
        ("text", BYTE_ARRAY, string.clone(), required),
        ("main_text", BYTE_ARRAY, string.clone(), optional),
        (
            "outlinks.list.element.url",
            BYTE_ARRAY,
            string.clone(),
            required,
        ),
        (
            "outlinks.list.element.anchor",
            BYTE_ARRAY,
            string.clone(),
            required,
        ),
        ("text_source", BYTE_ARRAY, string, optional),
    ];
    let descr = meta.file_metadata().schema_descr();
    let got: Vec<_> = descr
        .columns()
        .iter()
        .map(|c| {
            (
                c.path().string(),
                c.physical_type(),
                c.logical_type_ref().cloned(),
                c.self_type().get_basic_info().repetition(),
            )
        })
        .collect();
    let want: Vec<_> = want
        .into_iter()
        .map(|(p, t, l, r)| (p.to_string(), t, l, r))
        .collect();
    assert_eq!(got, want);

    // Top-level fields: our names in our order; the two lists are annotated LIST with
    // the standard three levels (required group, repeated group `list`, element).
    let root = descr.root_schema();
    let names: Vec<&str> = root.get_fields().iter().map(|f| f.name()).collect();
    let arrow_names: Vec<String> = schema().fields().iter().map(|f| f.name().clone()).collect();
    assert_eq!(names, arrow_names);
    for list in ["dates", "capture_times", "outlinks"] {
        let f = root.get_fields().iter().find(|f| f.name() == list).unwrap();
        let info = f.get_basic_info();
        assert_eq!(info.logical_type_ref(), Some(&LogicalType::List), "{list}");
        assert_eq!(info.repetition(), required, "{list}");
        let inner = &f.get_fields()[0];
        assert_eq!(inner.name(), "list", "{list}");
        assert_eq!(inner.get_basic_info().repetition(), repeated, "{list}");
    }

    // Values through the record API, in file order across row groups.
    let picks = [0usize, 1, 2, 3, 5, 3_999, 4_000, 9_999];
    let mut it = reader.get_row_iter(None).unwrap();
    let mut at = 0;
    for &i in &picks {
        let got = it.nth(i - at).unwrap().unwrap();
        at = i + 1;
        let want = &rows[i];
        assert_eq!(got.get_string(0).unwrap(), &want.key, "row {i} key");
        assert_eq!(got.get_string(1).unwrap(), &want.url, "row {i} url");
        let dates: Vec<String> = match field(&got, "dates") {
            Field::ListInternal(l) => (0..l.len())
                .map(|j| l.get_string(j).unwrap().clone())
                .collect(),
            f => panic!("dates: {f:?}"),
        };
        assert_eq!(dates, want.dates, "row {i} dates");
        // Capture times: microseconds since 1970 UTC, one per date.
        let times: Vec<i64> = match field(&got, "capture_times") {
            Field::ListInternal(l) => (0..l.len())
                .map(|j| match &l.elements()[j] {
                    Field::TimestampMicros(t) => *t,
                    f => panic!("capture time: {f:?}"),
                })
                .collect(),
            f => panic!("capture_times: {f:?}"),
        };
        let want_times: Vec<i64> = want
            .dates
            .iter()
            .map(|d| warcdex::reader::date::capture_micros(d, i64::MAX).unwrap())
            .collect();
        assert_eq!(times, want_times, "row {i} capture_times");
        assert_eq!(
            got.get_long(11).unwrap() as u64,
            want.offset,
            "row {i} offset"
        );
        assert_eq!(
            got.get_long(12).unwrap() as u64,
            want.length,
            "row {i} length"
        );
        let status = match field(&got, "status") {
            Field::Null => None,
            Field::Short(s) => Some(*s as u16),
            f => panic!("status: {f:?}"),
        };
        assert_eq!(status, want.status, "row {i} status");
        assert_eq!(opt_str(&got, "charset"), want.charset, "row {i} charset");
        assert_eq!(opt_str(&got, "title"), want.title, "row {i} title");
        assert_eq!(got.get_string(18).unwrap(), &want.text, "row {i} text");
        assert_eq!(
            opt_str(&got, "archive").unwrap(),
            want.archive,
            "row {i} archive"
        );
        assert_eq!(opt_str(&got, "lang"), want.lang, "row {i} lang");
        assert_eq!(
            opt_str(&got, "main_text"),
            want.main_text,
            "row {i} main_text"
        );
        assert_eq!(
            opt_str(&got, "text_source"),
            want.text_source,
            "row {i} text_source"
        );
        let links: Vec<Outlink> = match field(&got, "outlinks") {
            Field::ListInternal(l) => (0..l.len())
                .map(|j| {
                    let g = l.get_group(j).unwrap();
                    Outlink {
                        url: g.get_string(0).unwrap().clone(),
                        anchor: g.get_string(1).unwrap().clone(),
                    }
                })
                .collect(),
            f => panic!("outlinks: {f:?}"),
        };
        assert_eq!(links, want.outlinks, "row {i} outlinks");
    }
}

#[test]
fn every_column_chunk_is_zstd() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows.parquet");
    let opts = RowWriterOptions {
        row_group_rows: 2_500,
        ..RowWriterOptions::default()
    };
    write_all(&path, &varied_rows(), opts);
    let reader = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
    let meta = reader.metadata();
    assert_eq!(meta.num_row_groups(), 4);
    for rg in meta.row_groups() {
        assert_eq!(rg.num_columns(), 23);
        for c in rg.columns() {
            assert!(
                matches!(c.compression(), Compression::ZSTD(_)),
                "{}: {:?}",
                c.column_path(),
                c.compression()
            );
            // Compression must actually take effect on the bulky column.
            let name = c.column_path().string();
            if name == "text" {
                assert!(c.compressed_size() < c.uncompressed_size());
            }
            // The per-column settings reach the columns they name: a dictionary only
            // on the repetitive columns, no statistics on text and outlinks.
            let dictionary = c.dictionary_page_offset().is_some();
            let repetitive = [
                "collection",
                "filename",
                "archive",
                "mime",
                "lang",
                "text_source",
                "charset",
                "status",
                "first_date",
                "dates.list.element",
            ]
            .contains(&name.as_str());
            assert_eq!(dictionary, repetitive, "{name}: dictionary");
            let no_stats = name == "text" || name == "main_text" || name.starts_with("outlinks.");
            assert_eq!(c.statistics().is_none(), no_stats, "{name}: statistics");
        }
    }
}

/// A file of segment format version 1 (as imports before this one wrote it: unsigned
/// `offset`, `length` and `status`, no times, `archive`, `lang` or `main_text`) still
/// reads, its new fields empty.
#[test]
fn format_version_1_files_still_read() {
    use arrow_array::builder::{ListBuilder, StringBuilder, StructBuilder};
    use arrow_array::{ArrayRef, StringArray, UInt16Array, UInt64Array};
    use arrow_schema::{DataType, Field as AField, Fields};
    let element = |t: DataType| Arc::new(AField::new("element", t, false));
    let link_fields = Fields::from(vec![
        AField::new("url", DataType::Utf8, false),
        AField::new("anchor", DataType::Utf8, false),
    ]);
    let utf8 = |n: &str| AField::new(n, DataType::Utf8, false);
    let v1 = Arc::new(arrow_schema::Schema::new(vec![
        utf8("key"),
        utf8("url"),
        utf8("urlkey"),
        utf8("digest"),
        AField::new("dates", DataType::List(element(DataType::Utf8)), false),
        utf8("first_date"),
        utf8("collection"),
        utf8("filename"),
        AField::new("offset", DataType::UInt64, false),
        AField::new("length", DataType::UInt64, false),
        utf8("mime"),
        AField::new("status", DataType::UInt16, true),
        AField::new("charset", DataType::Utf8, true),
        AField::new("title", DataType::Utf8, true),
        utf8("text"),
        AField::new(
            "outlinks",
            DataType::List(element(DataType::Struct(link_fields.clone()))),
            false,
        ),
    ]));
    let s = |v: &str| Arc::new(StringArray::from(vec![v])) as ArrayRef;
    let mut dates = ListBuilder::new(StringBuilder::new()).with_field(element(DataType::Utf8));
    dates.values().append_value("20050101000000");
    dates.append(true);
    let mut links = ListBuilder::new(StructBuilder::from_fields(link_fields.clone(), 1))
        .with_field(element(DataType::Struct(link_fields)));
    let l = links.values();
    l.field_builder::<StringBuilder>(0)
        .unwrap()
        .append_value("http://b.org/");
    l.field_builder::<StringBuilder>(1)
        .unwrap()
        .append_value("b");
    l.append(true);
    links.append(true);
    let batch = arrow_array::RecordBatch::try_new(
        v1.clone(),
        vec![
            s("http://a.org/ sha1:X"),
            s("http://a.org/"),
            s("org,a)/"),
            s("sha1:X"),
            Arc::new(dates.finish()),
            s("20050101000000"),
            s("c"),
            s("a.arc.gz"),
            Arc::new(UInt64Array::from(vec![1234])),
            Arc::new(UInt64Array::from(vec![567])),
            s("text/html"),
            Arc::new(UInt16Array::from(vec![Some(200)])),
            s("UTF-8"),
            s("A"),
            s("words"),
            Arc::new(links.finish()),
        ],
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v1.parquet");
    let mut w =
        parquet::arrow::ArrowWriter::try_new(std::fs::File::create(&path).unwrap(), v1, None)
            .unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let rows = read_all(&path);
    assert_eq!(
        rows,
        vec![SegmentRow {
            key: "http://a.org/ sha1:X".into(),
            url: "http://a.org/".into(),
            urlkey: "org,a)/".into(),
            digest: "sha1:X".into(),
            dates: vec!["20050101000000".into()],
            first_date: "20050101000000".into(),
            collection: "c".into(),
            filename: "a.arc.gz".into(),
            offset: 1234,
            length: 567,
            mime: "text/html".into(),
            status: Some(200),
            charset: Some("UTF-8".into()),
            title: Some("A".into()),
            text: "words".into(),
            outlinks: Outlink::list(&[("http://b.org/", "b")]),
            ..SegmentRow::default()
        }]
    );
}

/// A segment of a few varied rows, written as `import` writes one.
fn small_segment(dir: &Path) -> std::path::PathBuf {
    use warcdex::import::segment_dir::write_segment;
    use warcdex::import::ImportOptions;
    let mut rng = Lcg(7);
    let mut rows: Vec<SegmentRow> = (0..6).map(|i| row(i, &mut rng)).collect();
    rows.sort_by(|a, b| (&a.urlkey, &a.digest).cmp(&(&b.urlkey, &b.digest)));
    let seg = dir.join("seg");
    write_segment(&seg, &rows, Vec::new(), &ImportOptions::default(), None).unwrap();
    seg
}

/// Everything a reader of a segment reads: every column set, and the row count.
fn read_everything(rows: &Path) -> warcdex::segment::Result<()> {
    use warcdex::segment::rows::{read_rows_with, Columns};
    row_count(rows)?;
    for c in [Columns::All, Columns::WithoutText, Columns::WithoutOutlinks] {
        for r in read_rows_with(rows, c)? {
            r?;
        }
    }
    Ok(())
}

/// One bit flipped in any byte of a segment's rows file is an error
/// naming the file, found by the checksum `segment.json` records before anything is
/// decoded: never a panic, never rows read as if nothing happened.
#[test]
fn a_bit_flipped_in_any_byte_of_a_segment_is_an_error_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let seg = small_segment(tmp.path());
    let path = seg.join("documents.parquet");
    let good = std::fs::read(&path).unwrap();
    read_everything(&path).unwrap();
    for at in 0..good.len() {
        let mut bad = good.clone();
        bad[at] ^= 1 << (at % 8);
        std::fs::write(&path, &bad).unwrap();
        let e = read_everything(&path).expect_err(&format!("byte {at}: read as if intact"));
        let msg = e.to_string();
        assert!(
            msg.contains("documents.parquet") && msg.contains("checksum"),
            "byte {at}: {msg}"
        );
    }
}

/// A segment written before its checksum was recorded (format version 2) is read
/// unchecked; a bit flipped in any byte of it is then read, or an error naming the file,
/// and never a panic out of the parquet crate (which `read_rows` catches).
#[test]
fn a_damaged_segment_without_a_checksum_never_panics() {
    let tmp = tempfile::tempdir().unwrap();
    let seg = small_segment(tmp.path());
    let manifest = seg.join("segment.json");
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    m.as_object_mut().unwrap().remove("rows_crc32");
    m["version"] = 2.into();
    std::fs::write(&manifest, serde_json::to_string(&m).unwrap()).unwrap();
    let path = seg.join("documents.parquet");
    let good = std::fs::read(&path).unwrap();
    read_everything(&path).unwrap();
    // The panics the reader catches would fill the log: this thread's are not shown.
    let quiet = "unchecked-segment-flips";
    let shown = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().name() != Some(quiet) {
            shown(info);
        }
    }));
    let flips = std::thread::Builder::new()
        .name(quiet.into())
        .spawn(move || {
            let mut failed = Vec::new();
            for at in 0..good.len() {
                let mut bad = good.clone();
                bad[at] ^= 1 << (at % 8);
                std::fs::write(&path, &bad).unwrap();
                if let Err(e) = read_everything(&path) {
                    if !e.to_string().contains("documents.parquet") {
                        failed.push(format!("byte {at}: {e}"));
                    }
                }
            }
            failed
        })
        .unwrap()
        .join();
    let failed = flips.expect("a flipped byte panicked a reader");
    assert!(failed.is_empty(), "errors not naming the file: {failed:?}");
}

/// The commands that read segments (`segment-info --rows`, `index`) refuse a damaged
/// one with an error naming its rows file, not a panic.
#[test]
fn commands_refuse_a_damaged_segment_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let seg = small_segment(tmp.path());
    let path = seg.join("documents.parquet");
    let good = std::fs::read(&path).unwrap();
    let out = tmp.path().join("main");
    for k in 1..6 {
        let at = k * good.len() / 6;
        let mut bad = good.clone();
        bad[at] ^= 0x10;
        std::fs::write(&path, &bad).unwrap();
        for args in [
            vec!["segment-info", "--rows", seg.to_str().unwrap()],
            vec![
                "index",
                "--out",
                out.to_str().unwrap(),
                seg.to_str().unwrap(),
            ],
        ] {
            let (code, _, err) = crate::util::run_warcdex(&args);
            assert_ne!(code, 0, "{args:?} byte {at}: {err}");
            assert!(!err.contains("panicked"), "{args:?} byte {at}: {err}");
            assert!(
                err.contains("documents.parquet"),
                "{args:?} byte {at}: {err}"
            );
        }
    }
}
