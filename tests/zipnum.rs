//! ZipNum clusters (`sort-cdx --zipnum`, `merge-cdx --zipnum`, `update --zipnum`): the
//! blocks decode back to exactly the sorted CDX, every `cluster.idx` line points at one
//! whole gzip member whose first line it names, and `--lines-per-block` cuts the blocks.
//! scripts/test-zipnum.sh checks the same clusters through pywb's reader.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use warcdex::cdx_writer::zipnum::{write_zipnum, ZipNumOptions, IDX_NAME, LOC_NAME, PART_NAME};

use crate::util::{corpus, fixtures};

fn warcdex(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warcdex"))
        .args(args)
        .output()
        .unwrap()
}

/// Runs warcdex; exit codes 0 and `also` are success. Returns stderr.
fn ok(args: &[&str], also: i32) -> String {
    let out = warcdex(args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let code = out.status.code().unwrap_or(-1);
    assert!(code == 0 || code == also, "warcdex {args:?}: {err}");
    err
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The example's crawls and some real archives of the corpus (Heritrix, wget, pywb's
/// own, warcio's, an ARC file).
fn archives() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(fixtures().join("example"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("crawl")
        })
        .collect();
    for a in [
        "webarchive-discovery/gov.uk-revisit-warcs/BL-20140325121225068-00000-32090~opera~8443.warc.gz",
        "wget-1.21.3-local/wget-1.21.3-uncompressed-00000.warc",
        "pywb-2.10.0/warcs/iana.warc.gz",
        "pywb-2.10.0/warcs/example.arc.gz",
        "node-warc/books.toscrape.warc",
    ] {
        v.push(corpus().join("real").join(a));
    }
    assert!(v.iter().all(|p| p.is_file()), "{v:?}");
    v.sort();
    v
}

/// `cdx` of the archives, then `sort-cdx` to `dir/sorted.cdx`; returns the raw CDX
/// and the sorted one.
fn sorted_cdx(dir: &Path) -> (PathBuf, PathBuf) {
    let raw = dir.join("raw.cdx");
    let mut args = vec!["cdx", "-o", s(&raw)];
    let archives = archives();
    args.extend(archives.iter().map(|p| s(p)));
    ok(&args, 1);
    let sorted = dir.join("sorted.cdx");
    ok(&["sort-cdx", "-o", s(&sorted), s(&raw)], 0);
    (raw, sorted)
}

/// One block as `cluster.idx` describes it.
#[derive(Debug)]
struct Block {
    key: String,
    lines: Vec<String>,
}

/// Reads a cluster back, checking that each `cluster.idx` line is `KEY TIMESTAMP`, the
/// part, an offset and a length that are exactly one gzip member (the next block starts
/// where it ends, the last ends the file) and its number from 1.
fn read_cluster(dir: &Path) -> Vec<Block> {
    assert_eq!(
        std::fs::read_to_string(dir.join(LOC_NAME)).unwrap(),
        format!("{PART_NAME}\t{PART_NAME}\n")
    );
    let part = std::fs::read(dir.join(PART_NAME)).unwrap();
    let idx = std::fs::read_to_string(dir.join(IDX_NAME)).unwrap();
    let mut blocks = Vec::new();
    let mut end = 0;
    for (n, line) in idx.lines().enumerate() {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 5, "{line}");
        assert_eq!((f[1], f[4]), (PART_NAME, (n + 1).to_string().as_str()));
        let (off, len): (usize, usize) = (f[2].parse().unwrap(), f[3].parse().unwrap());
        assert_eq!(off, end, "block {} does not follow the one before", n + 1);
        end = off + len;
        let mut member = flate2::bufread::GzDecoder::new(&part[off..end]);
        let mut text = String::new();
        member.read_to_string(&mut text).unwrap();
        assert!(
            member.into_inner().is_empty(),
            "block {}: more than one gzip member in its range",
            n + 1
        );
        assert!(text.ends_with('\n'), "block {}", n + 1);
        let lines: Vec<String> = text.lines().map(String::from).collect();
        let first_two: Vec<&str> = lines[0].splitn(3, ' ').take(2).collect();
        assert_eq!(f[0], first_two.join(" "), "block {}", n + 1);
        blocks.push(Block {
            key: f[0].to_string(),
            lines,
        });
    }
    assert_eq!(end, part.len(), "bytes after the last block");
    blocks
}

/// The sorted CDX's capture lines (the legend is not in a cluster).
fn captures(sorted: &Path) -> Vec<String> {
    std::fs::read_to_string(sorted)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with(" CDX "))
        .map(String::from)
        .collect()
}

fn assert_cluster_of(dir: &Path, want: &[String], lines_per_block: usize) -> Vec<Block> {
    let blocks = read_cluster(dir);
    assert_eq!(blocks.len(), want.len().div_ceil(lines_per_block));
    for (i, b) in blocks.iter().enumerate() {
        if i + 1 < blocks.len() {
            assert_eq!(b.lines.len(), lines_per_block, "block {}", i + 1);
        }
    }
    let got: Vec<String> = blocks.iter().flat_map(|b| b.lines.clone()).collect();
    assert!(got == want, "the blocks are not the sorted CDX");
    blocks
}

#[test]
fn sort_cdx_zipnum_decodes_to_the_sorted_cdx_at_every_block_size() {
    let tmp = tempfile::tempdir().unwrap();
    let (raw, sorted) = sorted_cdx(tmp.path());
    let want = captures(&sorted);
    assert!(want.len() > 250, "{}", want.len());
    for n in [1, 7, 50, 3000] {
        let dir = tmp.path().join(format!("z{n}"));
        let nn = n.to_string();
        let mut args = vec!["sort-cdx", "--zipnum", s(&dir), s(&raw)];
        if n != 3000 {
            args.extend(["--lines-per-block", &nn]);
        }
        let err = ok(&args, 0);
        assert!(
            err.contains(&format!("{} lines in", want.len())) && err.contains("legend left out"),
            "{err}"
        );
        let blocks = assert_cluster_of(&dir, &want, n);
        if n == 7 {
            // Keys whose lines are cut by a block's end are there, so lookups must step
            // back a block (pywb's prev_size=1).
            let crossing = blocks
                .windows(2)
                .filter(|w| {
                    let last = w[0].lines.last().unwrap().split(' ').next();
                    last == w[1].key.split(' ').next()
                })
                .count();
            assert!(crossing > 0);
        }
        // merge-cdx of the sorted file and the library on it write the same bytes.
        let merged = tmp.path().join(format!("m{n}"));
        let mut args = vec!["merge-cdx", "--zipnum", s(&merged), s(&sorted)];
        if n != 3000 {
            args.extend(["--lines-per-block", &nn]);
        }
        ok(&args, 0);
        let lib = tmp.path().join(format!("l{n}"));
        let r = write_zipnum(&sorted, &lib, &ZipNumOptions { lines_per_block: n }).unwrap();
        assert_eq!(
            (r.lines, r.blocks, r.legends),
            (want.len() as u64, blocks.len() as u64, 1)
        );
        for f in [PART_NAME, IDX_NAME, LOC_NAME] {
            let a = std::fs::read(dir.join(f)).unwrap();
            assert_eq!(a, std::fs::read(merged.join(f)).unwrap(), "merge-cdx {f}");
            assert_eq!(a, std::fs::read(lib.join(f)).unwrap(), "write_zipnum {f}");
        }
    }
}

#[test]
fn zipnum_replaces_a_cluster_refuses_other_directories_and_unsorted_input() {
    let tmp = tempfile::tempdir().unwrap();
    let (raw, sorted) = sorted_cdx(tmp.path());
    let dir = tmp.path().join("z");
    ok(
        &[
            "sort-cdx",
            "--zipnum",
            s(&dir),
            "--lines-per-block",
            "10",
            s(&raw),
        ],
        0,
    );
    ok(
        &[
            "sort-cdx",
            "--zipnum",
            s(&dir),
            "--lines-per-block",
            "20",
            s(&raw),
        ],
        0,
    );
    assert_cluster_of(&dir, &captures(&sorted), 20);
    let names: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| !n.starts_with(".warcdex-tmp")),
        "{names:?}"
    );

    // merge-cdx of an unsorted file: refused, naming the file and line; nothing written.
    let out = warcdex(&["merge-cdx", "--zipnum", s(&tmp.path().join("u")), s(&raw)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("raw.cdx") && err.contains("line"),
        "{err}"
    );
    assert!(!tmp.path().join("u").exists());

    let mine = tmp.path().join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("notes.txt"), "x").unwrap();
    let out = warcdex(&["sort-cdx", "--zipnum", s(&mine), s(&raw)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("not a ZipNum cluster"),
        "{err}"
    );
    assert!(mine.join("notes.txt").exists());

    // No line: the cluster is written, with a warning (pywb fails on an empty one).
    let empty = tmp.path().join("empty.cdx");
    std::fs::write(&empty, " CDX N b a m s k r M S V g\n").unwrap();
    let err = ok(
        &["sort-cdx", "--zipnum", s(&tmp.path().join("e")), s(&empty)],
        0,
    );
    assert!(err.contains("has no line"), "{err}");
    assert!(read_cluster(&tmp.path().join("e")).is_empty());

    // --lines-per-block needs --zipnum; --zipnum and -o exclude each other.
    assert!(!warcdex(&["sort-cdx", "--lines-per-block", "5", s(&raw)])
        .status
        .success());
    let out = warcdex(&["sort-cdx", "--zipnum", s(&dir), "-o", "x", s(&raw)]);
    assert!(!out.status.success());
    assert!(!warcdex(&[
        "sort-cdx",
        "--zipnum",
        s(&dir),
        "--lines-per-block",
        "0",
        s(&raw)
    ])
    .status
    .success());
}

/// The collection's cluster: `zipnum` is a link to `.zipnum/<name>`, the only cluster
/// there, and it decodes to `all.cdx`.
fn assert_collection_cluster(coll: &Path, lines_per_block: usize) -> String {
    let link = std::fs::read_link(coll.join("zipnum")).unwrap();
    let clusters: Vec<PathBuf> = std::fs::read_dir(coll.join(".zipnum"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(clusters.len(), 1, "{clusters:?}");
    assert_eq!(coll.join(&link), clusters[0]);
    assert_cluster_of(
        &coll.join("zipnum"),
        &captures(&coll.join("all.cdx")),
        lines_per_block,
    );
    link.display().to_string()
}

#[test]
fn update_zipnum_keeps_the_cluster_of_all_cdx_batch_after_batch() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = tmp.path().join("c");
    let ex = fixtures().join("example");
    let crawl = |n: &str| ex.join(n).display().to_string();
    let (c1, c2, c3) = (
        crawl("crawl1-20071001.arc"),
        crawl("crawl2-20071002.arc"),
        crawl("crawl3-20071003.arc"),
    );
    // Without the flag, no cluster.
    ok(&["update", s(&coll), &c1], 0);
    assert!(!coll.join("zipnum").exists());
    // Alone, --zipnum writes the cluster of the collection as it is, and records it.
    let err = ok(
        &["update", s(&coll), "--zipnum", "--lines-per-block", "3"],
        0,
    );
    assert!(err.contains("ZipNum cluster"), "{err}");
    assert_eq!(assert_collection_cluster(&coll, 3), ".zipnum/batch-0001-r1");
    let m = std::fs::read_to_string(coll.join("collection.json")).unwrap();
    assert!(m.contains("\"lines_per_block\": 3"), "{m}");
    // Later batches keep it without the flag.
    ok(&["update", s(&coll), &c2], 0);
    assert_eq!(assert_collection_cluster(&coll, 3), ".zipnum/batch-0002");
    // Asked again with the same settings: nothing to do.
    let err = ok(
        &["update", s(&coll), "--zipnum", "--lines-per-block", "3"],
        0,
    );
    assert!(!err.contains("ZipNum cluster"), "{err}");
    // Other settings: written again; and with a batch in the same run.
    ok(
        &[
            "update",
            s(&coll),
            "--zipnum",
            "--lines-per-block",
            "4",
            &c3,
        ],
        0,
    );
    assert_eq!(assert_collection_cluster(&coll, 4), ".zipnum/batch-0003");
    ok(&["update", s(&coll), "--zipnum"], 0);
    assert_eq!(
        assert_collection_cluster(&coll, 3000),
        ".zipnum/batch-0003-r1"
    );
}
