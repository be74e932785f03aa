//! `warcdex add-dates` (docs/formats.md §4.8, §5.4, §5.6): the worked example's dates index
//! and joined view, revisits-only and incremental runs (sorted-unique and `--compat`),
//! README-dedup's ten captures, misaligned pairs, reported lines, unsorted input,
//! `--in-place`, the CLI, and incremental = one step (proptest).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use proptest::prelude::*;

use warcdex::dates::add::{
    add_dates, add_dates_of_segment, AddDatesOptions, AddDatesReport, DatesInput,
};
use warcdex::dates::open_set;
use warcdex::import::exclusions::Exclusions;
use warcdex::import::segment_dir::write_segment;
use warcdex::import::{import_archives, ImportOptions};
use warcdex::index::{build_index, IndexOptions};
use warcdex::pindex::dump::{dump, DumpMode};
use warcdex::segment::SegmentRow;
use warcdex_cdx::dedup::{revisits, Input, ListOptions};
use warcdex_cdx::KeyStyle;

use crate::util::{fixture_lists, fixture_manifest, FixtureLists};

/// cdx, then dedup-cdx and revisits over a fixture collection: (all.dup, all.rev).
fn lists(dir: &Path, collection: &str) -> (PathBuf, PathBuf) {
    let FixtureLists { cdx, dup } = fixture_lists(dir, collection);
    let mut rev = Vec::new();
    let input = [Input::File(cdx)];
    revisits(&input, &mut rev, &ListOptions::default(), &mut |b| {
        panic!("{b}")
    })
    .unwrap();
    let (d, r) = (dir.join("all.dup"), dir.join("all.rev"));
    std::fs::write(&d, dup).unwrap();
    std::fs::write(&r, rev).unwrap();
    (d, r)
}

/// import -e all.dup, then index: `DIR/pindexes/COLLECTION/main`.
fn main_index(dir: &Path, collection: &str, dup: &Path) -> PathBuf {
    let entries = fixture_manifest(collection);
    let text = std::fs::read(dup).unwrap();
    let ex = Exclusions::load(&text[..], KeyStyle::Surt, &mut |n, m| panic!("{n}: {m}")).unwrap();
    let opts = ImportOptions::default();
    let (rows, reports) = import_archives(&entries, Some(&ex), &opts, &|_| {}, &|_| {}).unwrap();
    let seg = dir.join(format!("{collection}-seg"));
    write_segment(&seg, &rows, reports, &opts, None).unwrap();
    let main = dir.join(format!("pindexes/{collection}/main"));
    build_index(&[seg], &main, &IndexOptions::default()).unwrap();
    main
}

fn add(main: &Path, sources: &[&Path], dest: &Path, list: &Path, compat: bool) -> AddDatesReport {
    let opts = AddDatesOptions {
        compat,
        ..AddDatesOptions::default()
    };
    let sources: Vec<PathBuf> = sources.iter().map(|p| p.to_path_buf()).collect();
    add_dates(main, &sources, dest, &DatesInput::File(list.into()), &opts).unwrap()
}

fn dump_str(dirs: &[&Path], mode: DumpMode) -> String {
    let mut out = Vec::new();
    dump(dirs, &mode, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// One value per document of `field` (`[a, b]` lines, as dumpindex -f prints them).
fn column(dirs: &[&Path], field: &str) -> Vec<String> {
    dump_str(dirs, DumpMode::Field(field.into()))
        .lines()
        .map(str::to_string)
        .collect()
}

/// title → dates of the dates index (through `open_set`/`dates_of`).
fn dates_by_title(main: &Path, dates: &Path) -> BTreeMap<String, Vec<String>> {
    let set = open_set(main, Some(dates)).unwrap();
    let titles = column(&[main], "title");
    (0..set.documents())
        .map(|i| (titles[i as usize].clone(), set.dates_of(i).unwrap()))
        .collect()
}

fn v(s: &[&str]) -> Vec<String> {
    s.iter().map(|x| x.to_string()).collect()
}

/// docs/formats.md §5.4 `dumpindex dates` values by document title.
fn example_after_dup() -> BTreeMap<&'static str, &'static str> {
    BTreeMap::from([
        (
            "[About C]",
            "[20071001120100, 20071002120100, 20071005120100]",
        ),
        (
            "[Example A]",
            "[20071001120000, 20071002120000, 20071004120000, 20071005120000]",
        ),
        ("[Example B]", "[20071003120000]"),
        ("[News D]", "[20071001120200]"),
        ("[News E]", "[20071002120200]"),
    ])
}

/// §5.4: `add-dates main main dates all.dup`, then `dumpindex dates` (one column, each
/// line ending with a tab) and `dumpindex dates main` (dates from dates, the rest from
/// main). Our digests differ from the stand-in index's, so documents are compared by
/// title; the text is compared byte for byte in our document order. `--compat` gives
/// the same output here (one source date, list dates already in order).
/// The files of an index directory by name, the segment's random name replaced by its
/// extension, `meta.json` and `.managed.json` left out (they name the segment).
fn files_of(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            !["meta.json", ".managed.json"].contains(&&*p.file_name().unwrap().to_string_lossy())
        })
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let name = match name.split_once('.') {
                Some((stem, ext)) if stem.len() == 32 => ext.to_string(),
                _ => name,
            };
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

/// `update` builds a new set's dates index from its segment's rows while main is being
/// written (`add_dates_of_segment`): the same files, `pindex.json` included, as
/// add-dates of main with main as its source; a list out of order is left to add-dates.
#[test]
fn dates_read_from_the_segment_are_those_read_from_main() {
    let dir = tempfile::tempdir().unwrap();
    let (dup, rev) = lists(dir.path(), "example");
    let main = main_index(dir.path(), "example", &dup);
    let seg = dir.path().join("example-seg");
    for (i, list) in [&dup, &rev].into_iter().enumerate() {
        let (from_main, from_seg) = (
            dir.path().join(format!("m{i}")),
            dir.path().join(format!("s{i}")),
        );
        let r = add(&main, &[&main], &from_main, list, false);
        let input = DatesInput::File(list.to_path_buf());
        let ours =
            add_dates_of_segment(&seg, &main, &from_seg, &input, &AddDatesOptions::default())
                .unwrap()
                .expect("a sorted list");
        assert_eq!(ours.info, r.info);
        assert!(r.info.counts.dates_written > 0);
        let (a, b) = (files_of(&from_main), files_of(&from_seg));
        assert!(
            a.contains_key("store") && a.contains_key("pindex.json"),
            "{:?}",
            a.keys()
        );
        assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
        for (name, bytes) in &a {
            assert!(b[name] == *bytes, "{name} differs");
        }
    }
    let mut lines: Vec<String> = std::fs::read_to_string(&dup)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    lines.reverse();
    let backwards = dir.path().join("backwards.dup");
    std::fs::write(&backwards, lines.join("\n") + "\n").unwrap();
    let input = DatesInput::File(backwards);
    let dest = dir.path().join("never");
    assert!(
        add_dates_of_segment(&seg, &main, &dest, &input, &AddDatesOptions::default())
            .unwrap()
            .is_none()
    );
    assert!(!dest.exists());
}

/// main's keyhashes read in dictionary order for the alignment check are those of each
/// document's key looked up alone, in whatever order the documents are asked.
#[test]
fn keyhashes_in_dictionary_order_are_each_keys_hash() {
    use warcdex::pindex::keys::{keyhash, MainKeys};
    let dir = tempfile::tempdir().unwrap();
    let (dup, _) = lists(dir.path(), "example");
    let main = main_index(dir.path(), "example", &dup);
    let (_index, searcher) = warcdex::pindex::open::open_parallel_index(&main).unwrap();
    let keys = MainKeys::open(&main, &searcher).unwrap();
    let n = warcdex::pindex::open::doc_count(&searcher);
    assert!(n > 3);
    let docs: Vec<u32> = (0..n).rev().collect();
    let got = keys.keyhashes(&docs).unwrap();
    let mut key = String::new();
    for (doc, got) in docs.iter().zip(got) {
        keys.key(*doc, &mut key).unwrap();
        assert_eq!(got, keyhash(&key), "document {doc}");
    }
}

#[test]
fn worked_example_dumpindex_dates_and_joined_view() {
    let dir = tempfile::tempdir().unwrap();
    let (dup, _) = lists(dir.path(), "example");
    let main = main_index(dir.path(), "example", &dup);
    let dates = main.with_file_name("dates");
    let r = add(&main, &[&main], &dates, &dup, false);
    let c = &r.info.counts;
    assert_eq!(
        (
            c.documents,
            c.lines,
            c.matched_lines,
            c.unmatched_lines,
            c.malformed_lines
        ),
        (5, 5, 5, 0, 0)
    );
    assert_eq!(
        (c.documents_with_dates_added, c.dates_added, c.dates_written),
        (2, 5, 10)
    );
    assert!(!r.external_sort);
    let want = example_after_dup();
    let titles = column(&[&main], "title");
    let mut expected = String::from("date\t\n");
    for t in &titles {
        expected.push_str(want[t.as_str()]);
        expected.push_str("\t\n");
    }
    assert_eq!(dump_str(&[&dates], DumpMode::All), expected);
    assert_eq!(dump_str(&[&dates], DumpMode::List), "date\n");
    assert_eq!(dump_str(&[&dates], DumpMode::Count), "5\n");

    // The joined view: main's columns with `date` replaced by the dates index's.
    let joined = dump_str(&[&dates, &main], DumpMode::All);
    let alone = dump_str(&[&main], DumpMode::All);
    let header: Vec<&str> = alone.lines().next().unwrap().split('\t').collect();
    let date_col = header.iter().position(|h| *h == "date").unwrap();
    assert_eq!(joined.lines().next(), alone.lines().next());
    for ((j, a), t) in joined
        .lines()
        .skip(1)
        .zip(alone.lines().skip(1))
        .zip(&titles)
    {
        let (j, a): (Vec<&str>, Vec<&str>) = (j.split('\t').collect(), a.split('\t').collect());
        for (k, (x, y)) in j.iter().zip(&a).enumerate() {
            if k == date_col {
                assert_eq!(*x, want[t.as_str()]);
            } else {
                assert_eq!(x, y, "column {}", header[k]);
            }
        }
    }
    // §4.9: with main first, main's single date wins.
    assert_eq!(column(&[&main, &dates], "date"), column(&[&main], "date"));

    let compat = main.with_file_name("dates-compat");
    add(&main, &[&main], &compat, &dup, true);
    assert_eq!(dump_str(&[&compat], DumpMode::All), expected);
}

/// §5.4 "other runs": revisits only, and the incremental run, sorted-unique by default
/// and NutchWAX's exact sequences with `--compat`.
#[test]
fn worked_example_revisits_and_incremental() {
    let dir = tempfile::tempdir().unwrap();
    let (dup, rev) = lists(dir.path(), "example");
    assert_eq!(std::fs::read_to_string(&rev).unwrap().lines().count(), 2);
    let main = main_index(dir.path(), "example", &dup);
    let p = |n: &str| main.with_file_name(n);

    add(&main, &[&main], &p("dates-rev"), &rev, false);
    let got = dates_by_title(&main, &p("dates-rev"));
    assert_eq!(got["[About C]"], v(&["20071001120100", "20071005120100"]));
    assert_eq!(got["[Example A]"], v(&["20071001120000", "20071005120000"]));
    assert_eq!(got["[Example B]"], v(&["20071003120000"]));
    assert_eq!(got["[News D]"], v(&["20071001120200"]));
    assert_eq!(got["[News E]"], v(&["20071002120200"]));

    // Sorted and unique: the revisit dates are already there.
    add(&main, &[&main], &p("dates"), &dup, false);
    let r = add(&main, &[&main, &p("dates")], &p("dates2"), &rev, false);
    assert_eq!(r.info.counts.dates_added, 0);
    assert_eq!(r.info.counts.matched_lines, 2);
    let got = dates_by_title(&main, &p("dates2"));
    let first = dates_by_title(&main, &p("dates"));
    assert_eq!(got, first);
    assert_eq!(
        got["[Example A]"],
        v(&[
            "20071001120000",
            "20071002120000",
            "20071004120000",
            "20071005120000"
        ])
    );

    // --compat: HashSet order, then the list's dates appended again.
    add(&main, &[&main], &p("cdates"), &dup, true);
    let r = add(&main, &[&main, &p("cdates")], &p("cdates2"), &rev, true);
    assert_eq!(r.info.counts.dates_added, 2);
    assert!(r.info.compat);
    let got = dates_by_title(&main, &p("cdates2"));
    assert_eq!(
        got["[About C]"],
        v(&[
            "20071001120100",
            "20071002120100",
            "20071005120100",
            "20071005120100"
        ])
    );
    assert_eq!(
        got["[Example A]"],
        v(&[
            "20071004120000",
            "20071001120000",
            "20071005120000",
            "20071002120000",
            "20071005120000"
        ])
    );
    assert_eq!(got["[Example B]"], v(&["20071003120000"]));
}

/// §5.6: README-dedup's ten captures, five versions, every date back on its version.
#[test]
fn readme_dedup_dates() {
    let dir = tempfile::tempdir().unwrap();
    let (dup, _) = lists(dir.path(), "readme-dedup");
    let main = main_index(dir.path(), "readme-dedup", &dup);
    let dates = main.with_file_name("dates");
    let r = add(&main, &[&main], &dates, &dup, false);
    assert_eq!(r.info.counts.dates_added, 5);
    let set = open_set(&main, Some(&dates)).unwrap();
    let digests = column(&[&main], "digest");
    let got: BTreeMap<String, String> = (0..set.documents())
        .map(|i| {
            (
                digests[i as usize].clone(),
                set.dates_of(i).unwrap().join(" "),
            )
        })
        .collect();
    let d = |x: &str| format!("[sha1:{x}]");
    let day = |n: &[u32]| {
        n.iter()
            .map(|d| format!("200710{d:02}120000"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let want = BTreeMap::from([
        (d("R5EYEZEKR6U7ULOYWXCUC5IKVUN6VPUS"), day(&[1, 2, 5, 6])), // abc123
        (d("PSYV4TEPLB5JFMKJZ2QLBJ7QUJF5VO64"), day(&[3, 4])),       // def456
        (d("5ADGYSXFEDDNLK5U7EW5V3OR4SN66WWQ"), day(&[7])),          // ghi789
        (d("HR3KJYW5MBIZX2CUVEMMYDR223ADTTI5"), day(&[8, 9])),       // jkl012
        (d("RAOLUEITV3XV7KAOZJAUQSTZWDR5O2UE"), day(&[10])),         // mno345
    ]);
    assert_eq!(got, want);
}

/// A dates index built for another main: open_set, dumpindex and add-dates refuse it
/// with a message naming both directories.
#[test]
fn misaligned_pair_names_both_directories() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    let (dup_a, _) = lists(&a, "example");
    let main_a = main_index(&a, "example", &dup_a);
    let (dup_b, _) = lists(&b, "readme-dedup");
    let main_b = main_index(&b, "readme-dedup", &dup_b);
    let dates_b = main_b.with_file_name("dates");
    add(&main_b, &[&main_b], &dates_b, &dup_b, false);

    // Same document count (5), other keys.
    let e = open_set(&main_a, Some(&dates_b)).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains(&main_a.display().to_string()), "{msg}");
    assert!(msg.contains(&dates_b.display().to_string()), "{msg}");
    assert!(open_set(&main_b, Some(&dates_b)).is_ok());

    let mut out = Vec::new();
    let e = dump(&[&dates_b, &main_a], &DumpMode::All, &mut out).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains(&main_a.display().to_string()), "{msg}");
    assert!(msg.contains(&dates_b.display().to_string()), "{msg}");

    let e = add_dates(
        &main_a,
        &[main_a.clone(), dates_b.clone()],
        &a.join("pindexes/example/dates"),
        &DatesInput::File(dup_a.clone()),
        &AddDatesOptions::default(),
    )
    .unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains(&main_a.display().to_string()), "{msg}");
    assert!(msg.contains(&dates_b.display().to_string()), "{msg}");
    assert!(!a.join("pindexes/example/dates").exists());
}

/// Malformed lines (NutchWAX's message, with the line number) and lines matching no
/// document are counted and reported; `--strict` stops at the first malformed line.
/// An unsorted list is sorted externally and gives the same index.
#[test]
fn unmatched_malformed_and_unsorted_lines() {
    let dir = tempfile::tempdir().unwrap();
    let (dup, _) = lists(dir.path(), "example");
    let main = main_index(dir.path(), "example", &dup);
    let text = std::fs::read_to_string(&dup).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(1, "onlytwo fields");
    lines.insert(2, "");
    lines.push("org,example)/nosuch.html sha1:AAAA 20071001120000 x.arc");
    lines.push("org,example)/nosuch.html sha1:AAAA crawl.arc");
    lines.push("zzz sha1:BBBB 20071009000000");
    let bad = dir.path().join("bad.dup");
    std::fs::write(&bad, lines.join("\n") + "\n").unwrap();
    let dates = main.with_file_name("dates");
    let r = add(&main, &[&main], &dates, &bad, false);
    let c = &r.info.counts;
    assert_eq!(
        (
            c.lines,
            c.matched_lines,
            c.unmatched_lines,
            c.malformed_lines
        ),
        (10, 5, 2, 3)
    );
    let shown: Vec<String> = r.malformed.iter().map(|m| m.to_string()).collect();
    let name = bad.display().to_string();
    assert_eq!(
        shown,
        [
            format!("{name}:2: Malformed line, not enough fields (2): onlytwo fields"),
            format!("{name}:3: Malformed line, not enough fields (1): "),
            format!(
                "{name}:9: Malformed line, field 3 \"crawl.arc\" is not a 14-digit date: \
                 org,example)/nosuch.html sha1:AAAA crawl.arc"
            ),
        ]
    );
    assert_eq!(
        r.unmatched,
        [
            "org,example)/nosuch.html sha1:AAAA 20071001120000",
            "zzz sha1:BBBB 20071009000000"
        ]
    );
    let reference = dump_str(&[&dates], DumpMode::All);

    let opts = AddDatesOptions {
        strict: true,
        ..AddDatesOptions::default()
    };
    let strict = main.with_file_name("strict");
    let e = add_dates(
        &main,
        std::slice::from_ref(&main),
        &strict,
        &DatesInput::File(bad.clone()),
        &opts,
    )
    .unwrap_err();
    assert!(
        e.to_string().contains(&format!("{name}:2: Malformed line")),
        "{e}"
    );
    assert!(!strict.exists());

    // Reversed: the streaming join gives up and the external sort takes over.
    let good: Vec<&str> = text.lines().rev().collect();
    let rev = dir.path().join("reversed.dup");
    std::fs::write(&rev, good.join("\n") + "\n").unwrap();
    let sorted = main.with_file_name("sorted");
    let r = add(&main, &[&main], &sorted, &rev, false);
    assert!(r.external_sort);
    assert_eq!(dump_str(&[&sorted], DumpMode::All), reference);
    // No temporary directory left behind.
    let names: Vec<String> = std::fs::read_dir(main.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
}

/// `--in-place`: DEST is a source; it is replaced by the new index, nothing is left
/// beside it; without the flag DEST must not exist.
#[test]
fn in_place_replaces_the_source() {
    let dir = tempfile::tempdir().unwrap();
    let (dup, rev) = lists(dir.path(), "example");
    let main = main_index(dir.path(), "example", &dup);
    let dates = main.with_file_name("dates");
    add(&main, &[&main], &dates, &rev, false);
    let e = add_dates(
        &main,
        &[main.clone(), dates.clone()],
        &dates,
        &DatesInput::File(dup.clone()),
        &AddDatesOptions::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("--in-place"), "{e}");
    let opts = AddDatesOptions {
        in_place: true,
        ..AddDatesOptions::default()
    };
    add_dates(
        &main,
        &[main.clone(), dates.clone()],
        &dates,
        &DatesInput::File(dup),
        &opts,
    )
    .unwrap();
    let got = dates_by_title(&main, &dates);
    for (t, want) in example_after_dup() {
        assert_eq!(format!("[{}]", got[t].join(", ")), want, "{t}");
    }
    let names: Vec<String> = std::fs::read_dir(main.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

/// The binary: `warcdex add-dates main main dates -` (stdin) reports the malformed and
/// unmatched lines and the counts on stderr, and `dumpindex dates main` shows the join.
#[test]
fn cli_add_dates_from_stdin() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let (dup, _) = lists(dir.path(), "example");
    let main = main_index(dir.path(), "example", &dup);
    let dates = main.with_file_name("dates");
    let mut input = std::fs::read_to_string(&dup).unwrap();
    input.push_str("onlytwo fields\nzzz sha1:B 20071009000000\n");
    let mut child = Command::new(env!("CARGO_BIN_EXE_warcdex"))
        .arg("add-dates")
        .args([&main, &main, &dates])
        .arg("-")
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("-:6: Malformed line, not enough fields (2): onlytwo fields"),
        "{err}"
    );
    assert!(err.contains("1 lines of - match no document"), "{err}");
    assert!(
        err.contains("warcdex:   zzz sha1:B 20071009000000"),
        "{err}"
    );
    assert!(
        err.contains("5 documents (5 with dates, 2 with dates added), 10 dates written (5 added); 7 lines read: 5 matched, 1 unmatched, 1 malformed; the list was not sorted: external sort used"),
        "{err}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_warcdex"))
        .args(["dumpindex", "-f", "date"])
        .args([&dates, &main])
        .output()
        .unwrap();
    let got: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let titles = column(&[&main], "title");
    let want = example_after_dup();
    let want: Vec<String> = titles
        .iter()
        .map(|t| want[t.as_str()].to_string())
        .collect();
    assert_eq!(got, want);
}

fn synthetic_main(dir: &Path, rows: &[(u8, u8, Vec<u32>)]) -> PathBuf {
    let rows: Vec<SegmentRow> = rows
        .iter()
        .map(|(u, d, dates)| {
            let url = format!("http://example.org/p{u}");
            let digest = format!("sha1:D{d}");
            let dates: Vec<String> = dates.iter().map(|x| format!("2007{x:010}")).collect();
            SegmentRow {
                key: format!("{url} {digest}"),
                urlkey: format!("org,example)/p{u}"),
                url,
                digest,
                first_date: dates.iter().min().cloned().unwrap_or_default(),
                dates,
                mime: "text/html".into(),
                text: "x".into(),
                ..SegmentRow::default()
            }
        })
        .collect();
    let seg = dir.join("seg");
    let opts = ImportOptions::default();
    write_segment(&seg, &rows, Vec::new(), &opts, None).unwrap();
    let main = dir.join("main");
    build_index(&[seg], &main, &IndexOptions::default()).unwrap();
    main
}

fn all_dates(main: &Path, dates: &Path) -> Vec<Vec<String>> {
    let set = open_set(main, Some(dates)).unwrap();
    (0..set.documents())
        .map(|i| set.dates_of(i).unwrap())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Adding a list chunk by chunk (`add-dates main dates_k dates_k+1 chunk`) gives
    /// the same dates index as one run with the whole list, and every document's dates
    /// are sorted and unique.
    #[test]
    fn incremental_equals_one_step(
        rows in prop::collection::vec((0u8..6, 0u8..3, prop::collection::vec(0u32..50, 1..3)), 1..10),
        lines in prop::collection::vec((0u8..7, 0u8..4, 0u32..50, any::<bool>()), 0..40),
        k in 1usize..4,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let main = synthetic_main(dir.path(), &rows);
        let text: Vec<String> = lines
            .iter()
            .map(|(u, d, x, file)| {
                let tail = if *file { " crawl.arc" } else { "" };
                format!("org,example)/p{u} sha1:D{d} 2007{x:010}{tail}")
            })
            .collect();
        let whole = dir.path().join("whole.txt");
        std::fs::write(&whole, text.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
        let one = dir.path().join("one");
        add(&main, &[&main], &one, &whole, false);
        let mut prev = main.clone();
        let size = text.len().div_ceil(k).max(1);
        let chunks: Vec<&[String]> = if text.is_empty() { vec![&[]] } else { text.chunks(size).collect() };
        for (i, chunk) in chunks.iter().enumerate() {
            let list = dir.path().join(format!("chunk{i}.txt"));
            std::fs::write(&list, chunk.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
            let next = dir.path().join(format!("dates{i}"));
            add(&main, &[&prev], &next, &list, false);
            prev = next;
        }
        let a = all_dates(&main, &one);
        let b = all_dates(&main, &prev);
        prop_assert_eq!(&a, &b);
        for d in &a {
            let mut s = d.clone();
            s.sort();
            s.dedup();
            prop_assert_eq!(&s, d);
        }
    }
}

/// `list` with every date replaced by `date` (the same versions, a new capture date).
fn redated(list: &Path, date: &str) -> String {
    std::fs::read_to_string(list)
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            format!("{} {} {date}\n", f[0], f[1])
        })
        .collect()
}

/// Two `add-dates --in-place` on the same dates index at once. Each
/// reads its list from stdin, so neither can finish before the test feeds it; without a
/// lock both read the old index and the second rename drops the first run's dates.
/// With the lock (taken before the sources are read) the second run waits and reads
/// the first one's result: both lists' dates are there at the end, whatever the order.
#[test]
fn concurrent_in_place_runs_keep_both_lists() {
    use std::io::Write;
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let (dup, rev) = lists(dir.path(), "example");
    let main = main_index(dir.path(), "example", &dup);
    let dates = main.with_file_name("dates");
    add(&main, &[&main], &dates, &rev, false);
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_warcdex"))
            .args(["add-dates", "--in-place"])
            .args([&main, &main, &dates, &dates])
            .arg("-")
            .stdin(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let mut a = spawn();
    let mut b = spawn();
    // Lets both processes start and (without a lock) open the old index; the outcome
    // with the lock does not depend on it.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    for (child, date) in [(&mut a, "19990101000000"), (&mut b, "19980101000000")] {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(redated(&dup, date).as_bytes())
            .unwrap();
    }
    for child in [a, b] {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let got = dates_by_title(&main, &dates);
    // Every version named by all.dup gets both new dates.
    let versions: std::collections::BTreeSet<(String, String)> = std::fs::read_to_string(&dup)
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            (f[0].to_string(), f[1].to_string())
        })
        .collect();
    let with = |d: &str| got.values().filter(|v| v.iter().any(|x| x == d)).count();
    assert!(!versions.is_empty());
    assert_eq!(with("19990101000000"), versions.len(), "{got:?}");
    assert_eq!(with("19980101000000"), versions.len(), "{got:?}");
    let names: Vec<String> = std::fs::read_dir(main.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}
