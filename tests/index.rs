//! The pipeline up to the main index: README-dedup's ten captures (docs/formats.md §5.6) and
//! the worked example (§5.4) through cdx → dedup-cdx → import -e → index → dumpindex;
//! anchors and link scores on a small multi-host site; determinism.

use std::path::{Path, PathBuf};

use warcdex::import::exclusions::Exclusions;
use warcdex::import::segment_dir::write_segment;
use warcdex::import::{import_archives, ImportOptions};
use warcdex::index::links::{analyse, LinkOptions};
use warcdex::index::{build_index, IndexOptions};
use warcdex::pindex::dump::{dump, DumpMode};
use warcdex::segment::{Outlink, SegmentRow};
use warcdex_cdx::{url_key, KeyStyle};

use crate::util::{check_snapshot, fixture_lists, fixture_manifest};

/// cdx + dedup-cdx over a fixture collection; returns the exclusion list text.
fn dedup_list(dir: &Path, collection: &str) -> String {
    String::from_utf8(fixture_lists(dir, collection).dup).unwrap()
}

/// import -e LIST, then index; returns the index directory.
fn import_and_index(dir: &Path, collection: &str, list: Option<&str>) -> PathBuf {
    let entries = fixture_manifest(collection);
    let ex = list.map(|l| {
        Exclusions::load(l.as_bytes(), KeyStyle::Surt, &mut |n, m| panic!("{n}: {m}")).unwrap()
    });
    let opts = ImportOptions::default();
    let (rows, reports) = import_archives(&entries, ex.as_ref(), &opts, &|_| {}, &|_| {}).unwrap();
    let seg = dir.join(format!("{collection}-seg"));
    write_segment(&seg, &rows, reports, &opts, None).unwrap();
    let main = dir.join(format!("pindexes/{collection}/main"));
    build_index(&[seg], &main, &IndexOptions::default()).unwrap();
    main
}

fn dump_str(dirs: &[&Path], mode: DumpMode) -> String {
    let mut out = Vec::new();
    dump(dirs, &mode, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// docs/formats.md §5.6: the exclusion list with real digests, then five documents for the
/// one URL, each version once, each with its first capture's date.
#[test]
fn readme_dedup_ten_captures_five_documents() {
    let dir = tempfile::tempdir().unwrap();
    let list = dedup_list(dir.path(), "readme-dedup");
    assert_eq!(
        list,
        "org,example)/index.html sha1:HR3KJYW5MBIZX2CUVEMMYDR223ADTTI5 20071009120000 crawl-20071009.arc.gz\n\
         org,example)/index.html sha1:PSYV4TEPLB5JFMKJZ2QLBJ7QUJF5VO64 20071004120000 crawl-20071004.arc.gz\n\
         org,example)/index.html sha1:R5EYEZEKR6U7ULOYWXCUC5IKVUN6VPUS 20071002120000 crawl-20071002.arc.gz\n\
         org,example)/index.html sha1:R5EYEZEKR6U7ULOYWXCUC5IKVUN6VPUS 20071005120000 crawl-20071005.arc.gz\n\
         org,example)/index.html sha1:R5EYEZEKR6U7ULOYWXCUC5IKVUN6VPUS 20071006120000 crawl-20071006.arc.gz\n"
    );
    let main = import_and_index(dir.path(), "readme-dedup", Some(&list));
    assert_eq!(dump_str(&[&main], DumpMode::Count), "5\n");
    assert_eq!(
        dump_str(&[&main], DumpMode::Field("key".into())),
        "[http://www.example.org/index.html sha1:5ADGYSXFEDDNLK5U7EW5V3OR4SN66WWQ]\n\
         [http://www.example.org/index.html sha1:HR3KJYW5MBIZX2CUVEMMYDR223ADTTI5]\n\
         [http://www.example.org/index.html sha1:PSYV4TEPLB5JFMKJZ2QLBJ7QUJF5VO64]\n\
         [http://www.example.org/index.html sha1:R5EYEZEKR6U7ULOYWXCUC5IKVUN6VPUS]\n\
         [http://www.example.org/index.html sha1:RAOLUEITV3XV7KAOZJAUQSTZWDR5O2UE]\n"
    );
    // ghi789, jkl012, def456, abc123, mno345: each keeps its first capture's date.
    assert_eq!(
        dump_str(&[&main], DumpMode::Field("date".into())),
        "[20071007120000]\n[20071008120000]\n[20071003120000]\n[20071001120000]\n[20071010120000]\n"
    );
}

/// docs/formats.md §5.4: `dumpindex main` of the worked example (5 documents); indexing twice
/// gives the same dump.
#[test]
fn worked_example_dumpindex_and_determinism() {
    let dir = tempfile::tempdir().unwrap();
    let list = dedup_list(dir.path(), "example");
    let main = import_and_index(dir.path(), "example", Some(&list));
    let all = dump_str(&[&main], DumpMode::All);
    assert_eq!(all.lines().count(), 6, "{all}");
    assert!(all.starts_with("anchor\tanchor_internal\tboost\tcollection\tcontent\tdate\tdigest\tfilename\thost\tkey\tlang\tlength\tmain\toffset\tseq\tsite\tstatus\ttext_source\ttitle\ttype\turl\turlkey\t\n"), "{all}");
    check_snapshot("example/dumpindex-main.txt", &all).unwrap();
    assert_eq!(
        dump_str(&[&main], DumpMode::Field("title".into())),
        "[About C]\n[Example B]\n[Example A]\n[News D]\n[News E]\n"
    );
    let again = dir.path().join("again");
    std::fs::create_dir(&again).unwrap();
    let main2 = import_and_index(&again, "example", Some(&list));
    assert_eq!(dump_str(&[&main2], DumpMode::All), all);
}

fn page(url: &str, title: &str, text: &str, links: &[(&str, &str)]) -> SegmentRow {
    SegmentRow {
        key: format!("{url} sha1:X"),
        url: url.into(),
        urlkey: url_key(url, KeyStyle::Surt).unwrap(),
        digest: "sha1:X".into(),
        dates: vec!["20200101000000".into()],
        first_date: "20200101000000".into(),
        title: Some(title.into()),
        text: text.into(),
        mime: "text/html".into(),
        outlinks: Outlink::list(links),
        ..SegmentRow::default()
    }
}

/// A site of four pages on three hosts with known links. Anchors: hub links to
/// alpha ("marmalade recipes") and beta ("lighthouse keepers"); alpha links to beta
/// ("lighthouse keepers" again, from another source) and to its own host (ignored as an
/// anchor, kept as a link); beta links to hub.
///
/// Scores by hand (d = 0.85, fixed point of s(v) = 0.15 + 0.85 Σ s(u)/out(u)):
/// H = 0.15 + 0.85 B, A = 0.15 + 0.425 H, M = 0.15 + 0.425 A, B = 0.15 + 0.425 H + 0.425 A.
/// So B = 0.21375 + 0.605625 H and H = 0.3316875 / 0.48521875 = 0.68358, B = 0.62774,
/// A = 0.44052, M = 0.33722: hub > beta > alpha > more.
#[test]
fn anchors_scores_and_an_anchor_only_word() {
    let mut rows = vec![
        page(
            "http://hub.example/",
            "Hub",
            "index of things",
            &[
                ("http://alpha.example/", "marmalade recipes"),
                ("http://beta.example/", "lighthouse keepers"),
            ],
        ),
        page(
            "http://alpha.example/",
            "Alpha",
            "oranges and sugar",
            &[
                ("http://beta.example/", "lighthouse keepers"),
                ("http://alpha.example/more", "more alpha"),
            ],
        ),
        page(
            "http://alpha.example/more",
            "More",
            "second alpha page",
            &[],
        ),
        page(
            "http://beta.example/",
            "Beta",
            "towers by the sea",
            &[("http://hub.example/", "back to the hub")],
        ),
    ];
    rows.sort_by(|a, b| a.urlkey.cmp(&b.urlkey));
    let opts = LinkOptions::default();
    let graph = analyse(&rows, &opts, KeyStyle::Surt).unwrap();
    let k = |u: &str| url_key(u, KeyStyle::Surt).unwrap();
    let score = |u: &str| graph.score_of(&k(u));
    for (u, want) in [
        ("http://hub.example/", 0.68358),
        ("http://beta.example/", 0.62774),
        ("http://alpha.example/", 0.44052),
        ("http://alpha.example/more", 0.33722),
    ] {
        assert!(
            (score(u) - want).abs() < 1e-3,
            "{u}: {} vs {want}",
            score(u)
        );
    }

    // The index, built from a segment in bounded memory (tiny sort budgets force
    // spills), holds the same anchors and boosts = score^0.5, in key order:
    // alpha, alpha/more, beta, hub.
    let dir = tempfile::tempdir().unwrap();
    let seg = dir.path().join("seg");
    let iopts = ImportOptions::default();
    write_segment(&seg, &rows, vec![], &iopts, None).unwrap();
    let main = dir.path().join("main");
    let small = IndexOptions {
        sort: warcdex_cdx::sort::SortOptions {
            memory: 300,
            ..Default::default()
        },
        ..IndexOptions::default()
    };
    build_index(&[seg], &main, &small).unwrap();
    assert_eq!(
        dump_str(&[&main], DumpMode::Field("anchor".into())),
        "[marmalade recipes]\n[]\n[lighthouse keepers, lighthouse keepers]\n[back to the hub]\n"
    );
    let boosts: Vec<f64> = dump_str(&[&main], DumpMode::Field("boost".into()))
        .lines()
        .map(|l| l.trim_matches(['[', ']']).parse().unwrap())
        .collect();
    let want: Vec<f64> = [
        "http://alpha.example/",
        "http://alpha.example/more",
        "http://beta.example/",
        "http://hub.example/",
    ]
    .iter()
    .map(|u| score(u).sqrt())
    .collect();
    assert_eq!(boosts, want);
    // "marmalade" is only in the hub's link text: the query finds alpha through its anchors.
    let index = tantivy::Index::open_in_dir(&main).unwrap();
    // The text fields are analyzed by warcdex's analyzer, which a reader registers.
    warcdex::schema::analysis::register(&index);
    let schema = index.schema();
    let fields: Vec<_> = ["title", "content", "anchor"]
        .iter()
        .map(|f| schema.get_field(f).unwrap())
        .collect();
    let parser = tantivy::query::QueryParser::for_index(&index, fields);
    let searcher = index.reader().unwrap().searcher();
    let q = parser.parse_query("marmalade").unwrap();
    let hits = searcher
        .search(
            &q,
            &tantivy::collector::TopDocs::with_limit(5).order_by_score(),
        )
        .unwrap();
    assert_eq!(hits.len(), 1);
    let doc: tantivy::TantivyDocument = searcher.doc(hits[0].1).unwrap();
    let url = schema.get_field("url").unwrap();
    use tantivy::schema::Value;
    assert_eq!(
        doc.get_first(url)
            .and_then(|v| v.as_str().map(String::from))
            .unwrap(),
        "http://alpha.example/"
    );
}

/// Segments of the worked example: the ARC crawls, the WARC crawls, and all five.
fn example_segments(dir: &Path) -> Vec<PathBuf> {
    let entries = fixture_manifest("example");
    let opts = ImportOptions::default();
    [
        ("arcs", &entries[..3]),
        ("warcs", &entries[3..]),
        ("all", &entries[..]),
    ]
    .into_iter()
    .map(|(name, part)| {
        let (rows, reports) = import_archives(part, None, &opts, &|_| {}, &|_| {}).unwrap();
        let seg = dir.join(format!("seg-{name}"));
        write_segment(&seg, &rows, reports, &opts, None).unwrap();
        seg
    })
    .collect()
}

/// Two segments (the ARC crawls, then the WARC crawls) indexed separately and merged
/// give the same documents and dates as one index over everything (without -e the
/// dates of repeated captures are unioned across indexes).
#[test]
fn merge_equals_one_index() {
    let dir = tempfile::tempdir().unwrap();
    let mut mains = Vec::new();
    for (name, seg) in ["arcs", "warcs", "all"]
        .iter()
        .zip(example_segments(dir.path()))
    {
        let main = dir.path().join(format!("{name}/main"));
        build_index(&[seg], &main, &IndexOptions::default()).unwrap();
        mains.push(main);
    }
    let merged = dir.path().join("merged/main");
    warcdex::index::merge::merge_indexes(&mains[..2], &merged, &Default::default()).unwrap();
    for field in ["key", "date", "title", "seq"] {
        assert_eq!(
            dump_str(&[&merged], DumpMode::Field(field.into())),
            dump_str(&[&mains[2]], DumpMode::Field(field.into())),
            "{field}"
        );
    }
}

/// The rows of a segment, in file order.
fn segment_rows(seg: &Path) -> Vec<SegmentRow> {
    warcdex::segment::rows::read_rows(&seg.join("documents.parquet"))
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap()
}

/// Segments in key order are merged without a sort; a segment out of order goes through
/// the external sort instead. Both give the index of one segment holding everything:
/// here two segments sharing versions (index A is in the ARCs and the WARCs), and the
/// same rows written in reverse order.
#[test]
fn sorted_merge_and_sort_fallback_agree() {
    let dir = tempfile::tempdir().unwrap();
    let mut segs = example_segments(dir.path());
    let all = segment_rows(&segs[2]);
    let reversed = dir.path().join("seg-reversed");
    let rows: Vec<SegmentRow> = all.into_iter().rev().collect();
    assert!(
        rows.windows(2).any(|w| w[0].key > w[1].key),
        "the reversed segment is out of order"
    );
    write_segment(&reversed, &rows, vec![], &ImportOptions::default(), None).unwrap();
    segs.push(reversed);
    let build = |name: &str, inputs: &[PathBuf]| {
        let main = dir.path().join(name);
        build_index(inputs, &main, &IndexOptions::default()).unwrap();
        main
    };
    let two = build("two", &segs[..2]);
    let one = build("one", &segs[2..3]);
    let reversed = build("reversed", &segs[3..4]);
    let want = dump_str(&[&one], DumpMode::All);
    assert_eq!(want.lines().count(), 6, "{want}");
    assert_eq!(dump_str(&[&two], DumpMode::All), want);
    assert_eq!(dump_str(&[&reversed], DumpMode::All), want);
}

/// Segments of some earlier imports also held a 64-bit SimHash (`simhash`,
/// `simhash_words` columns): they still read, their extra columns are not decoded, and
/// they give the index today's segments give.
#[test]
fn segments_with_the_old_simhash_columns_index_as_today() {
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let segs = example_segments(dir.path());
    let today = &segs[2];
    let old = dir.path().join("seg-old");
    std::fs::create_dir(&old).unwrap();
    // The manifest as such an import wrote it: without the rows file's checksum, which
    // segments record from format version 3.
    let mut manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(today.join("segment.json")).unwrap())
            .unwrap();
    manifest.as_object_mut().unwrap().remove("rows_crc32");
    manifest["version"] = 2.into();
    std::fs::write(old.join("segment.json"), manifest.to_string()).unwrap();
    // The same rows with the two columns those imports added.
    let rows_file = warcdex::segment::layout::ROWS_FILE;
    let file = std::fs::File::open(today.join(rows_file)).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    let mut writer = None;
    for batch in reader {
        let batch = batch.unwrap();
        let n = batch.num_rows();
        let mut fields: Vec<arrow_schema::Field> = (batch.schema().fields().iter())
            .map(|f| f.as_ref().clone())
            .collect();
        let mut columns = batch.columns().to_vec();
        let at = fields.len() - 1; // before `outlinks`, where they were
        fields.insert(
            at,
            arrow_schema::Field::new("simhash", arrow_schema::DataType::Int64, true),
        );
        fields.insert(
            at + 1,
            arrow_schema::Field::new("simhash_words", arrow_schema::DataType::Int32, true),
        );
        columns.insert(
            at,
            Arc::new(arrow_array::Int64Array::from_iter_values(
                (0..n as i64).map(|i| i * 7919),
            )),
        );
        columns.insert(
            at + 1,
            Arc::new(arrow_array::Int32Array::from(vec![Some(60); n])),
        );
        let schema = Arc::new(arrow_schema::Schema::new(fields));
        let batch = arrow_array::RecordBatch::try_new(schema.clone(), columns).unwrap();
        let w = writer.get_or_insert_with(|| {
            let f = std::fs::File::create(old.join(rows_file)).unwrap();
            parquet::arrow::ArrowWriter::try_new(f, schema, None).unwrap()
        });
        w.write(&batch).unwrap();
    }
    writer.unwrap().close().unwrap();
    assert_eq!(segment_rows(&old), segment_rows(today));
    let build = |name: &str, input: &PathBuf| {
        let main = dir.path().join(name);
        build_index(std::slice::from_ref(input), &main, &IndexOptions::default()).unwrap();
        main
    };
    let (new_main, old_main) = (build("new", today), build("old", &old));
    let want = dump_str(&[&new_main], DumpMode::All);
    assert_eq!(want.lines().count(), 6, "{want}");
    assert!(!want.contains("simhash"), "{want}");
    assert_eq!(dump_str(&[&old_main], DumpMode::All), want);
    let sigs =
        |main: &PathBuf| std::fs::read(main.join(warcdex::near::sig_file::SIG_FILE)).unwrap();
    assert_eq!(sigs(&old_main), sigs(&new_main));
}

/// Numeric flags are checked when parsed (NaN, negative or > 1
/// damping made every score NaN); nothing is built, and the message names the flag.
#[test]
fn numeric_flags_are_validated() {
    let dir = tempfile::tempdir().unwrap();
    let main = import_and_index(dir.path(), "example", None);
    let seg = dir.path().join("example-seg");
    let out = dir.path().join("bad");
    let seg_s = seg.to_str().unwrap();
    let out_s = out.to_str().unwrap();
    let bad: &[&[&str]] = &[
        &["index", "--damping", "NaN", "--out", out_s, seg_s],
        &["index", "--damping", "-0.5", "--out", out_s, seg_s][..],
        &["index", "--damping", "1.5", "--out", out_s, seg_s],
        &["index", "--score-power", "inf", "--out", out_s, seg_s],
        &["index", "--memory", "0", "--out", out_s, seg_s],
        &[
            "merge",
            "--memory",
            "0",
            "--out",
            out_s,
            main.to_str().unwrap(),
        ],
        &["import", "-j", "0", "m.txt", out_s],
        &["import", "--content-limit", "0", "m.txt", out_s],
        &["sort-cdx", "--memory", "0", "-"],
        &["add-dates", "--memory", "0", "a", "b", "c", "d"],
    ];
    for args in bad {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_warcdex"))
            .args(*args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(&format!("'{}'", args[2])), "{args:?}: {err}");
        assert!(err.contains("invalid value"), "{args:?}: {err}");
        assert!(!out.exists(), "{args:?}");
    }
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_warcdex"))
        .args(["index", "--damping", "1", "--out", out_s, seg_s])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// The documents of one index as lines of `fields`, one per document, sorted.
fn documents_of(main: &Path, fields: &[&str]) -> Vec<String> {
    let columns: Vec<Vec<String>> = fields
        .iter()
        .map(|f| {
            dump_str(&[main], DumpMode::Field((*f).into()))
                .lines()
                .map(str::to_string)
                .collect()
        })
        .collect();
    let mut docs: Vec<String> = (0..columns[0].len())
        .map(|i| {
            columns
                .iter()
                .map(|c| c[i].as_str())
                .collect::<Vec<_>>()
                .join("\t")
        })
        .collect();
    docs.sort();
    docs
}

/// `index --shard K/N` for every K: each shard holds the documents whose URL key FNV-1a
/// puts in it, and together they are the one index's documents with the same anchors and
/// link boosts (the graph is every segment's in each shard), nothing more or less.
#[test]
fn shards_together_are_the_one_index() {
    let dir = tempfile::tempdir().unwrap();
    let seg = example_segments(dir.path()).pop().unwrap();
    let fields = [
        "urlkey", "digest", "boost", "anchor", "date", "title", "url",
    ];
    let one = dir.path().join("one/main");
    build_index(std::slice::from_ref(&seg), &one, &IndexOptions::default()).unwrap();
    let mut together = Vec::new();
    for k in 0..3 {
        let main = dir.path().join(format!("shard-{k}/main"));
        let shard = warcdex_cdx::shard::Shard { index: k, count: 3 };
        let opts = IndexOptions {
            shard: Some(shard),
            ..IndexOptions::default()
        };
        let info = build_index(std::slice::from_ref(&seg), &main, &opts).unwrap();
        assert_eq!(info.shard.as_deref(), Some(format!("{k}/3").as_str()));
        let docs = documents_of(&main, &fields);
        assert_eq!(docs.len() as u64, info.documents);
        for d in &docs {
            let key = d
                .split('\t')
                .next()
                .unwrap()
                .trim_matches(|c| c == '[' || c == ']');
            assert!(shard.holds(key), "{key} in shard {k}");
        }
        together.extend(docs);
    }
    together.sort();
    let whole = documents_of(&one, &fields);
    assert!(whole.len() > 3, "{whole:?}");
    assert_eq!(together, whole);
    // More than one shard holds documents, so the split is a real one.
    let per_shard: Vec<u64> = (0..3)
        .map(|k| {
            dump_str(
                &[&dir.path().join(format!("shard-{k}/main"))],
                DumpMode::Count,
            )
            .trim()
            .parse()
            .unwrap()
        })
        .collect();
    assert!(
        per_shard.iter().filter(|&&n| n > 0).count() > 1,
        "{per_shard:?}"
    );
}

/// The Spark driver's way (docs/cluster.md): `import --shards 3` splits the versions
/// into one segment per shard, `link-graph` computes the links once over all of them,
/// and each shard's index reads only its own segment and the graph. Its documents are
/// those of `index --shard K/3` over the whole segment: the same anchors and boosts.
#[test]
fn a_link_graph_over_sharded_segments_gives_the_same_shards() {
    use warcdex::import::import_versions;
    use warcdex::import::segment_dir::write_imported_sharded;
    use warcdex::index::link_shards::build_graph;

    let dir = tempfile::tempdir().unwrap();
    let whole = example_segments(dir.path()).pop().unwrap();
    let opts = ImportOptions::default();
    let (versions, reports) =
        import_versions(&fixture_manifest("example"), None, &opts, &|_| {}, &|_| {});
    let split = dir.path().join("split");
    let parts = write_imported_sharded(&split, 3, versions, reports, &opts, None).unwrap();
    let whole_docs = warcdex::segment::layout::read_manifest(&whole)
        .unwrap()
        .documents;
    assert_eq!(parts.iter().map(|p| p.documents).sum::<u64>(), whole_docs);
    assert_eq!(parts[1].shard.as_deref(), Some("1/3"));
    let shard_segments: Vec<PathBuf> = (0..3).map(|k| split.join(format!("shard-{k}"))).collect();
    let graph = dir.path().join("graph");
    let info = build_graph(&shard_segments, &graph, 3, &IndexOptions::default()).unwrap();
    let fields = [
        "urlkey", "digest", "boost", "anchor", "date", "title", "url",
    ];
    let mut anchored = 0;
    for k in 0..3u32 {
        let shard = warcdex_cdx::shard::Shard { index: k, count: 3 };
        let want = dir.path().join(format!("want-{k}"));
        let sharded = IndexOptions {
            shard: Some(shard),
            ..IndexOptions::default()
        };
        build_index(std::slice::from_ref(&whole), &want, &sharded).unwrap();
        let got = dir.path().join(format!("got-{k}"));
        let from_graph = IndexOptions {
            graph: Some(graph.clone()),
            ..sharded
        };
        build_index(&shard_segments[k as usize..=k as usize], &got, &from_graph).unwrap();
        let want_docs = documents_of(&want, &fields);
        assert_eq!(documents_of(&got, &fields), want_docs, "shard {k}");
        let urls: std::collections::BTreeSet<&str> = want_docs
            .iter()
            .map(|d| d.split('\t').next().unwrap())
            .collect();
        assert_eq!(info.urls_per_shard[k as usize], urls.len() as u64);
        anchored += want_docs
            .iter()
            .filter(|d| d.split('\t').nth(3) != Some("[]"))
            .count();
    }
    assert!(
        anchored > 0,
        "no document has anchors: the test shows nothing"
    );
    // A graph of another shard count is refused, naming it.
    let other = IndexOptions {
        shard: Some(warcdex_cdx::shard::Shard { index: 0, count: 2 }),
        graph: Some(graph.clone()),
        ..IndexOptions::default()
    };
    let e = build_index(&shard_segments[..1], &dir.path().join("x"), &other).unwrap_err();
    assert!(e.to_string().contains("graph of 3 shards"), "{e}");
    // Versions the graph was not made from are refused.
    let partial = dir.path().join("partial-graph");
    let others = [shard_segments[0].clone(), shard_segments[2].clone()];
    build_graph(&others, &partial, 3, &IndexOptions::default()).unwrap();
    assert!(parts[1].documents > 0);
    let e = build_index(
        &shard_segments[1..2],
        &dir.path().join("y"),
        &IndexOptions {
            shard: Some(warcdex_cdx::shard::Shard { index: 1, count: 3 }),
            graph: Some(partial),
            ..IndexOptions::default()
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("made from other segments"), "{e}");
}

/// `dumpindex` checks every segment file's checksum before it prints,
/// so a damaged index prints nothing (not the rows before the damage, nor rows read from
/// a damaged file it does not otherwise check) and the error names the file.
#[test]
fn dumpindex_of_a_damaged_index_prints_nothing_and_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let list = dedup_list(dir.path(), "example");
    let main = import_and_index(dir.path(), "example", Some(&list));
    let intact = dump_str(&[&main], DumpMode::All);
    for ext in ["store", "pos", "idx"] {
        let file = std::fs::read_dir(&main)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == ext))
            .unwrap();
        let bytes = std::fs::read(&file).unwrap();
        let mut damaged = bytes.clone();
        damaged[bytes.len() / 3] ^= 0x10;
        std::fs::write(&file, &damaged).unwrap();
        for mode in [DumpMode::All, DumpMode::Field("title".into())] {
            let mut out = Vec::new();
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                dump(&[&main], &mode, &mut out)
            }));
            let e = match r {
                Ok(Ok(())) => panic!("{}: {mode:?} printed a damaged index", file.display()),
                Ok(Err(e)) => e.to_string(),
                Err(_) => panic!("{}: {mode:?} panicked", file.display()),
            };
            let name = file.file_name().unwrap().to_str().unwrap();
            assert!(e.contains(name), "{}: {e}", file.display());
            assert!(e.contains("checksum"), "{e}");
            assert_eq!(String::from_utf8_lossy(&out), "", "{}: {e}", file.display());
        }
        std::fs::write(&file, &bytes).unwrap();
        assert_eq!(dump_str(&[&main], DumpMode::All), intact);
    }
}
