//! `warcdex update`: a collection built one batch at a time holds the same
//! documents, dates and hits as one batch of everything, and after `--compact` the same
//! bytes as the step-by-step build of scripts/example.sh; archives already held are
//! skipped and a changed one is refused; a run killed at any stage or moment, then run
//! again, gives the collection an uninterrupted run gives, and no reader ever sees half
//! of a batch.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::util::{ok_in, unpack_wacz};
use warcdex::update::CRASH_POINTS;

fn warcdex(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warcdex"))
        .args(args)
        .output()
        .unwrap()
}

fn ok(args: &[&str]) -> String {
    let out = warcdex(args);
    assert!(
        out.status.success(),
        "warcdex {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// fixtures/example's five crawls in three batches: crawls 1–2, 3, 4–5 (crawl 4 repeats
/// versions of crawls 1–2, crawl 5 is revisits of them).
fn example_batches() -> Vec<Vec<PathBuf>> {
    let ex = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/example");
    let f = |n: &str| ex.join(n);
    vec![
        vec![f("crawl1-20071001.arc"), f("crawl2-20071002.arc")],
        vec![f("crawl3-20071003.arc")],
        vec![f("crawl4-20071004.warc.gz"), f("crawl5-20071005.warc")],
    ]
}

/// Real archives of the corpus in three batches: two Heritrix crawls of gov.uk whose
/// second is mostly revisits of the first, three wget crawls of one site, and others.
fn corpus_batches() -> Vec<Vec<PathBuf>> {
    let c = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/corpus/real");
    let f = |n: &str| c.join(n);
    vec![
        vec![
            f("webarchive-discovery/gov.uk-revisit-warcs/BL-20140325121225068-00000-32090~opera~8443.warc.gz"),
            f("wget-1.21.3-local/wget-1.21.3-uncompressed-00000.warc"),
            f("pywb-2.10.0/warcs/iana.warc.gz"),
        ],
        vec![
            f("webarchive-discovery/gov.uk-revisit-warcs/BL-20140325122341434-00000-32090~opera~8443.warc.gz"),
            f("wget-1.21.3-local/wget-1.21.3-uncompressed-00001.warc"),
            f("node-warc/books.toscrape.warc"),
        ],
        vec![
            f("wget-1.21.3-local/wget-1.21.3-uncompressed-00002.warc"),
            f("netarchivesuite/warc/data/input/fyensdk.warc"),
        ],
    ]
}

fn update(dir: &Path, archives: &[PathBuf], extra: &[&str]) -> Output {
    let mut args = vec!["update", s(dir), "--collection-name", "c"];
    args.extend_from_slice(extra);
    args.extend(archives.iter().map(|p| s(p)));
    warcdex(&args)
}

fn update_ok(dir: &Path, archives: &[PathBuf]) -> String {
    let out = update(dir, archives, &[]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "update {}: {err}", dir.display());
    err
}

/// The parallel sets search reads, by name.
fn sets(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir.join("pindexes"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    v
}

/// Every document of the collection (`URL sha1:DIGEST`) with its dates.
fn documents(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for set in sets(dir) {
        let keys = ok(&["dumpindex", "-f", "key", s(&set.join("main"))]);
        let dates = ok(&["dumpindex", "-f", "date", s(&set.join("dates"))]);
        assert_eq!(keys.lines().count(), dates.lines().count());
        for (k, d) in keys.lines().zip(dates.lines()) {
            assert!(
                out.insert(k.to_string(), d.to_string()).is_none(),
                "{k} is a document of two sets of {}",
                dir.display()
            );
        }
    }
    out
}

/// The hits of a query (URL, digest, dates, title), as a set: ranks differ between
/// builds because link analysis runs within each batch.
fn hits(dir: &Path, q: &str) -> BTreeSet<String> {
    ok(&[
        "search",
        "-d",
        s(dir),
        "--hits-per-site",
        "0",
        "-n",
        "1000",
        q,
    ])
    .lines()
    .filter(|l| l.contains("[sha1:"))
    .map(|l| l[l.find('[').unwrap()..].to_string())
    .collect()
}

/// What search and serve see: every set's dump.
fn visible(dir: &Path) -> String {
    let mut out = String::new();
    for set in sets(dir) {
        out.push_str(&format!(
            "== {}\n",
            set.file_name().unwrap().to_string_lossy()
        ));
        out.push_str(&ok(&[
            "dumpindex",
            s(&set.join("main")),
            s(&set.join("dates")),
        ]));
    }
    out
}

/// Everything the collection holds, but the segments' creation times.
fn state(dir: &Path) -> String {
    let mut out = visible(dir);
    for f in [
        "collection.json",
        "all.cdx",
        "all.pos",
        "all.dup",
        "all.rev",
    ] {
        out.push_str(&std::fs::read_to_string(dir.join(f)).unwrap());
    }
    // The ZipNum cluster (`update --zipnum`): where the link points, the block index and
    // a hash of the part's bytes; and that it is the only cluster kept.
    if let Ok(link) = std::fs::read_link(dir.join("zipnum")) {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        std::fs::read(dir.join("zipnum/cdx-00000.gz"))
            .unwrap()
            .hash(&mut h);
        let kept = std::fs::read_dir(dir.join(".zipnum")).unwrap().count();
        out.push_str(&format!(
            "zipnum -> {} ({kept} kept), part {:x}\n{}",
            link.display(),
            h.finish(),
            std::fs::read_to_string(dir.join("zipnum/cluster.idx")).unwrap()
        ));
    }
    let mut cdx: Vec<PathBuf> = std::fs::read_dir(dir.join("cdx"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    cdx.sort();
    for f in cdx {
        out.push_str(&std::fs::read_to_string(f).unwrap());
    }
    let mut segs: Vec<PathBuf> = std::fs::read_dir(dir.join("segments"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    segs.sort();
    for seg in segs {
        out.push_str(&ok(&["segment-info", "--rows", s(&seg)]));
    }
    out
}

/// The step-by-step build of scripts/example.sh over `archives` in `dir`: cdx per
/// archive, sort-cdx, dedup-cdx, revisits, import -e, index, add-dates twice.
fn one_shot(dir: &Path, archives: &[PathBuf]) -> PathBuf {
    std::fs::create_dir_all(dir.join("cdx")).unwrap();
    let mut cdx = Vec::new();
    let mut manifest = String::new();
    for a in archives {
        let out = dir
            .join("cdx")
            .join(format!("{}.cdx", a.file_name().unwrap().to_string_lossy()));
        ok(&["cdx", s(a), "-o", s(&out)]);
        cdx.push(out);
        manifest.push_str(&format!("{} c\n", s(a)));
    }
    std::fs::write(dir.join("manifest.txt"), manifest).unwrap();
    let all = dir.join("all.cdx");
    let mut args = vec!["sort-cdx", "-o", s(&all)];
    args.extend(cdx.iter().map(|p| s(p)));
    ok(&args);
    let (dup, rev) = (dir.join("all.dup"), dir.join("all.rev"));
    ok(&["dedup-cdx", s(&all), "-o", s(&dup)]);
    ok(&["revisits", s(&all), "-o", s(&rev)]);
    let seg = dir.join("segments/one");
    ok(&[
        "import",
        "-e",
        s(&dup),
        s(&dir.join("manifest.txt")),
        s(&seg),
    ]);
    let set = dir.join("pindexes/one");
    let (main, dates) = (set.join("main"), set.join("dates"));
    ok(&["index", "--out", s(&main), s(&seg)]);
    ok(&["add-dates", s(&main), s(&main), s(&dates), s(&dup)]);
    ok(&[
        "add-dates",
        "--in-place",
        s(&main),
        s(&dates),
        s(&dates),
        s(&rev),
    ]);
    set
}

/// The files of a tantivy index directory by extension (`idx`, `store`, ...; a segment's
/// name is random), with `near.sig`; `meta.json` and `pindex.json` (which name the
/// segment and its sources) left out.
fn index_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e != "json"))
        .map(|p| {
            let ext = p.extension().unwrap().to_string_lossy().into_owned();
            (ext, std::fs::read(&p).unwrap())
        })
        .collect()
}

/// `update` of one batch makes its index's first pass from the rows as the import writes
/// them: the index is byte for byte the one `index` makes reading the batch's segment.
fn same_index_as_index_of_its_segment(collection: &Path, again: &Path) {
    let segments: Vec<PathBuf> = std::fs::read_dir(collection.join("segments"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(segments.len(), 1, "{segments:?}");
    ok(&["index", "--out", s(again), s(&segments[0])]);
    let set = &sets(collection)[0];
    let (ours, theirs) = (index_files(&set.join("main")), index_files(again));
    assert!(
        ours.contains_key("store") && ours.contains_key("sig"),
        "{:?}",
        ours.keys()
    );
    for (ext, bytes) in &theirs {
        assert!(ours.get(ext) == Some(bytes), "main's .{ext} differs");
    }
    assert_eq!(ours.len(), theirs.len());
}

fn same_as_one_batch_then_compacted_as_one_shot(batches: Vec<Vec<PathBuf>>, queries: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let (by_batch, at_once) = (tmp.path().join("by-batch"), tmp.path().join("at-once"));
    for b in &batches {
        update_ok(&by_batch, b);
    }
    let all: Vec<PathBuf> = batches.concat();
    update_ok(&at_once, &all);
    same_index_as_index_of_its_segment(&at_once, &tmp.path().join("again"));
    assert_eq!(sets(&by_batch).len(), batches.len());
    let docs = documents(&by_batch);
    assert!(docs.len() > 3, "{docs:?}");
    assert_eq!(docs, documents(&at_once));
    for q in queries {
        let h = hits(&by_batch, q);
        assert!(!h.is_empty(), "no hit for {q:?}");
        assert_eq!(h, hits(&at_once, q), "hits for {q:?}");
    }
    let reference = one_shot(&tmp.path().join("one-shot"), &all);
    let ref_dir = reference.parent().unwrap().parent().unwrap();
    for f in ["all.cdx", "all.dup", "all.rev"] {
        assert_eq!(
            std::fs::read(by_batch.join(f)).unwrap(),
            std::fs::read(ref_dir.join(f)).unwrap(),
            "{f}"
        );
    }
    ok(&["update", "--compact", s(&by_batch)]);
    let compacted = sets(&by_batch);
    assert_eq!(compacted.len(), 1);
    for part in ["main", "dates"] {
        assert_eq!(
            ok(&["dumpindex", s(&compacted[0].join(part))]),
            ok(&["dumpindex", s(&reference.join(part))]),
            "dumpindex {part} after --compact"
        );
    }
}

#[test]
fn example_in_three_batches_is_one_batch_and_compacts_to_the_one_shot_build() {
    same_as_one_batch_then_compacted_as_one_shot(
        example_batches(),
        &[
            "examples",
            "example date:20071004",
            "news",
            "lisbon",
            "organisation",
        ],
    );
}

#[test]
fn corpus_crawls_in_three_batches_are_one_batch_and_compact_to_the_one_shot_build() {
    same_as_one_batch_then_compacted_as_one_shot(
        corpus_batches(),
        &[
            "government",
            "books",
            "python tutorial",
            "iana",
            "denmark",
            "blogs",
            "the",
        ],
    );
}

#[test]
fn an_archive_added_again_adds_nothing_and_a_changed_one_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    let batches = example_batches();
    update_ok(&dir, &batches[0]);
    let before = state(&dir);
    let err = update_ok(&dir, &batches[0]);
    assert!(err.contains("already in the collection"), "{err}");
    assert!(err.contains("nothing new: 2 archives skipped"), "{err}");
    assert_eq!(state(&dir), before);
    // The same archives listed in a --from file (the import manifest's format).
    let list = tmp.path().join("list.txt");
    let lines: Vec<String> = batches[0].iter().map(|p| format!("{} c", s(p))).collect();
    std::fs::write(&list, lines.join("\n") + "\n").unwrap();
    let out = warcdex(&["update", s(&dir), "--from", s(&list)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && err.contains("nothing new: 2 archives skipped"),
        "{err}"
    );
    assert_eq!(state(&dir), before);

    // The same name for other bytes: refused, naming both files, and nothing changes.
    let changed = tmp.path().join("crawl1-20071001.arc");
    let mut bytes = std::fs::read(&batches[0][0]).unwrap();
    bytes.extend_from_slice(b"\n");
    std::fs::write(&changed, bytes).unwrap();
    let out = update(&dir, &[changed.clone(), batches[1][0].clone()], &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains(s(&changed)) && err.contains(s(&batches[0][0])),
        "{err}"
    );
    assert!(err.contains("crawl1-20071001.arc"), "{err}");
    assert_eq!(state(&dir), before);

    // Another directory's files are not a collection to write into.
    let foreign = tmp.path().join("foreign");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join("notes.txt"), "mine").unwrap();
    let out = update(&foreign, &batches[0], &[]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a warcdex collection"));
}

#[test]
fn a_second_update_waits_or_fails_with_no_wait() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    let batches = example_batches();
    update_ok(&dir, &batches[0]);
    let lock = warcdex::output::OutputLock::acquire(&dir.join("collection.json"), true).unwrap();
    let mut args = vec!["--no-wait", "update", s(&dir)];
    args.extend(batches[1].iter().map(|p| s(p)));
    let out = warcdex(&args);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("collection.json"), "{err}");
    drop(lock);
    update_ok(&dir, &batches[1]);
    assert_eq!(sets(&dir).len(), 2);
}

/// Runs `update` of batch 2 killed by `kill`, checks that readers see batch 1 or both
/// batches, never something else, then runs it again and compares with `want`. Batch 1
/// is added with the flags `first`.
fn killed_then_resumed(
    batches: &[Vec<PathBuf>],
    first: &[&str],
    before: &str,
    after: &str,
    want: &str,
    kill: impl FnOnce(&Path, &[PathBuf]),
) -> bool {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    assert!(update(&dir, &batches[0], first).status.success());
    kill(&dir, &batches[1]);
    let seen = visible(&dir);
    assert!(
        seen == before || seen == after,
        "a reader saw half a batch:\n{seen}"
    );
    update_ok(&dir, &batches[1]);
    assert_eq!(state(&dir), want);
    seen == after
}

#[test]
fn update_killed_at_every_stage_then_run_again_gives_the_same_collection() {
    // The collection keeps a ZipNum cluster (recorded by batch 1, so batch 2 writes it
    // again without the flag): its stage and publishing are among the points.
    let batches = example_batches();
    let first = ["--zipnum", "--lines-per-block", "5"];
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    assert!(update(&dir, &batches[0], &first).status.success());
    let before = visible(&dir);
    update_ok(&dir, &batches[1]);
    let (after, want) = (visible(&dir), state(&dir));
    let mut published = 0;
    for point in CRASH_POINTS {
        let killed = |dir: &Path, archives: &[PathBuf]| {
            let mut args = vec!["update", s(dir), "--collection-name", "c"];
            args.extend(archives.iter().map(|p| s(p)));
            let out = Command::new(env!("CARGO_BIN_EXE_warcdex"))
                .args(&args)
                .env("WARCDEX_CRASH_AT", point)
                .output()
                .unwrap();
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(out.status.signal(), Some(9), "not killed at {point}");
        };
        if killed_then_resumed(&batches, &first, &before, &after, &want, killed) {
            published += 1;
        }
    }
    // The batch becomes visible when the pindexes link moves, and only then.
    let at = CRASH_POINTS
        .iter()
        .position(|p| *p == "publish-link")
        .unwrap();
    assert_eq!(published, CRASH_POINTS.len() - at);
}

#[test]
fn update_killed_at_random_moments_then_run_again_gives_the_same_collection() {
    let batches = corpus_batches();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    update_ok(&dir, &batches[0]);
    let before = visible(&dir);
    let started = std::time::Instant::now();
    update_ok(&dir, &batches[1]);
    let took = started.elapsed().as_millis() as u64;
    let (after, want) = (visible(&dir), state(&dir));
    // A fixed sequence of moments spread over the run (a linear congruential generator,
    // so a failure can be replayed).
    let mut x: u64 = 17;
    for _ in 0..6 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let at = (x >> 33) % took.max(1);
        let killed = |dir: &Path, archives: &[PathBuf]| {
            let mut args = vec!["update", s(dir), "--collection-name", "c"];
            args.extend(archives.iter().map(|p| s(p)));
            let mut child = Command::new(env!("CARGO_BIN_EXE_warcdex"))
                .args(&args)
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            std::thread::sleep(std::time::Duration::from_millis(at));
            let _ = child.kill(); // SIGKILL
            let _ = child.wait();
        };
        killed_then_resumed(&batches, &[], &before, &after, &want, killed);
    }
}

#[test]
fn crawls_added_in_reverse_order_make_no_second_document_of_a_version() {
    // Crawls 4–5 (repeats and revisits of versions first seen in crawls 1–2) first: when
    // crawls 1–2 come later, their earlier captures of those versions only add dates.
    let mut batches = example_batches();
    batches.reverse();
    let tmp = tempfile::tempdir().unwrap();
    let (reversed, at_once) = (tmp.path().join("reversed"), tmp.path().join("at-once"));
    for b in &batches {
        update_ok(&reversed, b);
    }
    update_ok(&at_once, &batches.concat());
    assert_eq!(documents(&reversed), documents(&at_once));
    for q in ["examples", "example date:20071001", "news", "lisbon"] {
        assert_eq!(hits(&reversed, q), hits(&at_once, q), "hits for {q:?}");
    }
}

#[test]
fn serve_sees_each_new_batch_and_not_an_archive_added_again() {
    // `serve` reopens when `SearchIndex::changed` says so: a batch moves the pindexes
    // link, an archive added again moves nothing; two generations stay on disk.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    let batches = example_batches();
    update_ok(&dir, &batches[0]);
    let first = warcdex::search::SearchIndex::open(&dir).unwrap();
    assert_eq!(first.sets().len(), 1);
    update_ok(&dir, &batches[0]);
    assert!(!first.changed());
    update_ok(&dir, &batches[1]);
    assert!(first.changed());
    let second = warcdex::search::SearchIndex::open(&dir).unwrap();
    assert_eq!(second.sets().len(), 2);
    update_ok(&dir, &batches[2]);
    assert!(second.changed());
    assert_eq!(
        warcdex::search::SearchIndex::open(&dir)
            .unwrap()
            .sets()
            .len(),
        3
    );
    assert_eq!(
        std::fs::read_dir(dir.join(".generations")).unwrap().count(),
        2,
        "the current generation and the one before"
    );
}

#[test]
fn damage_is_reported_per_archive_and_strict_adds_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let archives = [
        root.join("fixtures/bad/garbage-between-records.warc.gz"),
        example_batches()[0][0].clone(),
    ];
    let out = update(&dir, &archives, &["--strict"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("--strict: damage or anomalies in") && err.contains("garbage-between"),
        "{err}"
    );
    assert!(!dir.join("pindexes").exists() && !dir.join(".staging").exists());
    let err = update_ok(&dir, &archives);
    assert!(err.contains("batch-0001: 2 archives added"), "{err}");
    assert!(
        err.contains("offset 233: garbage-between-records: skipped 29 bytes"),
        "{err}"
    );
    assert!(
        err.contains("garbage-between-records.warc.gz: garbage-between-records 1"),
        "{err}"
    );
    let m = std::fs::read_to_string(dir.join("collection.json")).unwrap();
    assert!(m.contains("\"garbage-between-records\": 1"), "{m}");
}

/// `update` reads WARC-zstd and WACZ as it reads gzip WARC. The zstd copies of
/// two pywb archives (one with a dictionary) make the collection their gzip originals
/// make, and a WACZ the collection of the WARCs packed in it.
#[test]
fn zstd_and_wacz_archives_make_the_collection_their_warcs_make() {
    let fx = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let dir = tempfile::tempdir().unwrap();
    let build = |name: &str, archives: &[PathBuf]| {
        let coll = dir.path().join(name);
        update_ok(&coll, archives);
        documents(&coll)
    };
    let zst = build(
        "zst",
        &[
            fx.join("zstd/example.warc.zst"),
            fx.join("zstd/dupes-dict.warc.zst"),
        ],
    );
    let gz = build(
        "gz",
        &[
            fx.join("zstd/example.warc.gz"),
            fx.join("zstd/dupes.warc.gz"),
        ],
    );
    assert!(gz.len() >= 2, "{gz:?}");
    assert_eq!(zst, gz);

    // The WARCs of the WACZ, taken out of it, against the WACZ itself.
    let wacz = fx.join("wacz/crawl.wacz");
    let warcs = unpack_wacz(&wacz, &dir.path().join("unpacked"));
    let from_wacz = build("wacz", &[wacz]);
    let from_warcs = build("warcs", &warcs);
    assert!(!from_wacz.is_empty());
    assert_eq!(from_wacz, from_warcs);
}

/// Identity does not depend on the container. A WACZ whose WARCs (or
/// some of them) the collection already holds, added after them or before them, makes
/// the collection those WARCs alone make: the same versions with the same dates, and
/// `all.cdx` without a capture listed twice under one file name (the WACZ's CDX lines
/// name its inner WARCs, the names the plain WARCs have).
#[test]
fn a_wacz_of_warcs_already_held_makes_no_second_version_in_either_order() {
    let fx = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let tmp = tempfile::tempdir().unwrap();
    let wacz = fx.join("wacz/crawl.wacz");
    let warcs = unpack_wacz(&wacz, &tmp.path().join("unpacked"));
    let reference = tmp.path().join("warcs");
    update_ok(&reference, &warcs);
    let want_docs = documents(&reference);
    let want_cdx = std::fs::read_to_string(reference.join("all.cdx")).unwrap();
    let want_dup = std::fs::read_to_string(reference.join("all.dup")).unwrap();
    assert!(want_docs.len() >= 3, "{want_docs:?}");
    let orders: [(&str, Vec<Vec<PathBuf>>); 4] = [
        ("warcs-then-wacz", vec![warcs.clone(), vec![wacz.clone()]]),
        ("wacz-then-warcs", vec![vec![wacz.clone()], warcs.clone()]),
        (
            "one-warc-then-wacz",
            vec![vec![warcs[0].clone()], vec![wacz.clone()]],
        ),
        (
            "wacz-then-one-warc",
            vec![vec![wacz.clone()], vec![warcs[1].clone()]],
        ),
    ];
    for (name, batches) in orders {
        let coll = tmp.path().join(name);
        for b in &batches {
            update_ok(&coll, b);
        }
        assert_eq!(documents(&coll), want_docs, "{name}: versions and dates");
        let cdx = std::fs::read_to_string(coll.join("all.cdx")).unwrap();
        assert_eq!(cdx, want_cdx, "{name}: all.cdx");
        let dup = std::fs::read_to_string(coll.join("all.dup")).unwrap();
        assert_eq!(dup, want_dup, "{name}: all.dup");
        let m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(coll.join("collection.json")).unwrap())
                .unwrap();
        let new: u64 = m["batches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["new_versions"].as_u64().unwrap())
            .sum();
        assert_eq!(
            new,
            want_docs.len() as u64,
            "{name}: new versions over the batches"
        );
    }
}

/// Every archive path the collection at `dir` records (collection.json's archives, each
/// segment's sources and rows), each of which must name an existing file when read from
/// the collection's directory, whatever the working directory.
fn recorded_archive_paths(dir: &Path) -> Vec<String> {
    let mut paths = Vec::new();
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("collection.json")).unwrap())
            .unwrap();
    for a in m["archives"].as_array().unwrap() {
        paths.push(a["path"].as_str().unwrap().to_string());
    }
    for seg in std::fs::read_dir(dir.join("segments")).unwrap() {
        let seg = seg.unwrap().path();
        let info: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(seg.join("segment.json")).unwrap())
                .unwrap();
        for src in info["sources"].as_array().unwrap() {
            paths.push(src["path"].as_str().unwrap().to_string());
        }
        for row in ok(&["segment-info", "--rows", s(&seg)]).lines() {
            let row: serde_json::Value = serde_json::from_str(row).unwrap();
            paths.push(row["archive"].as_str().unwrap().to_string());
        }
    }
    paths.sort();
    paths.dedup();
    paths
}

/// Archive paths do not depend on where `update` ran. Given as paths
/// relative to another working directory, archives inside the collection are recorded
/// relative to it and the others absolute, so every recorded path resolves from the
/// collection's directory; search, compaction and later batches work from elsewhere,
/// and after the collection is moved with the archives it holds.
#[test]
fn archive_paths_resolve_from_the_collection_wherever_update_ran_and_after_a_move() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let batches = example_batches();
    let coll = root.join("place/coll");
    let inside = coll.join("archives");
    let outside = root.join("crawls");
    std::fs::create_dir_all(&outside).unwrap();
    let copy = |from: &Path, dir: &Path| {
        let to = dir.join(from.file_name().unwrap());
        std::fs::copy(from, &to).unwrap();
        to
    };
    // Deeper than the collection, so that a path relative to it does not by chance
    // resolve from the collection too.
    let elsewhere = root.join("elsewhere/a/b");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let rel = |p: &Path| format!("../../../{}", p.strip_prefix(root).unwrap().display());
    let update_in = |archives: &[PathBuf], extra: &[&str]| {
        let mut args = vec!["update".to_string(), rel(&coll)];
        args.extend(archives.iter().map(|p| rel(p)));
        args.extend(extra.iter().map(|a| a.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        ok_in(&elsewhere, &args)
    };
    // Batch 1 lies outside the collection (and makes it), batch 2 inside it; each is
    // given relative to a working directory that is neither the collection's nor the
    // archives'.
    let b1: Vec<PathBuf> = batches[0].iter().map(|p| copy(p, &outside)).collect();
    update_in(&b1, &[]);
    std::fs::create_dir_all(&inside).unwrap();
    let b2: Vec<PathBuf> = batches[1].iter().map(|p| copy(p, &inside)).collect();
    update_in(&b2, &[]);
    let recorded = recorded_archive_paths(&coll);
    assert!(!recorded.is_empty());
    for p in &recorded {
        assert!(
            coll.join(p).is_file(),
            "{p}: recorded in {} but not a file from there",
            coll.display()
        );
    }
    assert!(
        recorded.iter().any(|p| p.starts_with("archives/")),
        "archives inside the collection are recorded relative to it: {recorded:?}"
    );
    let want = documents(&coll);

    // Move the collection (with the archives it holds) and use it from elsewhere.
    let moved = root.join("moved/coll");
    std::fs::create_dir_all(moved.parent().unwrap()).unwrap();
    std::fs::rename(&coll, &moved).unwrap();
    for p in &recorded {
        assert!(
            moved.join(p).is_file(),
            "{p}: not a file from the moved collection"
        );
    }
    assert_eq!(documents(&moved), want);
    let moved_rel = rel(&moved);
    let found = ok_in(&elsewhere, &["search", "-d", &moved_rel, "examples"]);
    assert!(found.contains("[sha1:"), "{found}");
    assert_eq!(
        warcdex::search::SearchIndex::open(&moved)
            .unwrap()
            .sets()
            .len(),
        2
    );
    // The second batch again, given at its new place: already held, skipped; then
    // compacted from elsewhere.
    let mut args = vec!["update".to_string(), moved_rel.clone(), "--compact".into()];
    args.extend(
        b2.iter()
            .map(|p| rel(&moved.join(p.strip_prefix(&coll).unwrap()))),
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    ok_in(&elsewhere, &args);
    assert_eq!(documents(&moved), want);
    for p in recorded_archive_paths(&moved) {
        assert!(
            moved.join(&p).is_file(),
            "{p}: not a file from the moved collection"
        );
    }
}

/// Every file and directory under `dir` whose mode is not `file`/`dir` (lock files
/// excepted: they are only held, never read), as `PATH MODE` lines.
fn modes_other_than(dir: &Path, file: u32, dirmode: u32) -> Vec<String> {
    use std::os::unix::fs::PermissionsExt;
    let mut wrong = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            let mode = m.permissions().mode() & 0o777;
            if m.file_type().is_symlink() {
                continue;
            }
            if m.is_dir() {
                todo.push(p.clone());
                if mode != dirmode {
                    wrong.push(format!("{} {mode:o}", p.display()));
                }
            } else if mode != file && !p.to_string_lossy().ends_with(".lock") {
                wrong.push(format!("{} {mode:o}", p.display()));
            }
        }
    }
    wrong.sort();
    wrong
}

/// Every output of `update` (index files such as tantivy's `meta.json`
/// and `.managed.json`, dates, segments, `collection.json`, the ZipNum cluster, the
/// compacted set) follows the umask, as `-o` files do: tantivy wrote `meta.json` with
/// mode 0600, so `search` run as another user could open no set.
#[test]
fn update_outputs_follow_the_umask() {
    let dir = tempfile::tempdir().unwrap();
    let coll = dir.path().join("coll");
    let run = |umask: &str, extra: &[&str], archives: &[PathBuf]| {
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("umask {umask} && exec \"$0\" \"$@\""))
            .arg(env!("CARGO_BIN_EXE_warcdex"))
            .args(["update", s(&coll), "--collection-name", "c", "--zipnum"])
            .args(extra)
            .args(archives.iter().map(|p| s(p)))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let batches = example_batches();
    run("022", &[], &batches[0]);
    run("022", &[], &batches[1]);
    run("022", &["--compact"], &[]);
    assert_eq!(modes_other_than(&coll, 0o644, 0o755), Vec::<String>::new());
    assert!(coll.join("pindexes/compacted/main/meta.json").exists());
    // Another umask gives other modes: the umask decides, not a fixed mode.
    let coll2 = dir.path().join("coll2");
    std::fs::rename(&coll, &coll2).unwrap();
    run("027", &[], &batches[0]);
    assert_eq!(modes_other_than(&coll, 0o640, 0o750), Vec::<String>::new());
}

/// A text file named like an archive is refused: named with its first
/// bytes, not recorded in `collection.json`, not imported, reported as unreadable in the
/// summary, and the run exits 1; the good archive beside it is added. A run given only
/// a missing file leaves no collection behind.
#[test]
fn a_file_that_is_no_archive_is_refused_and_the_others_are_added() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    let text = tmp.path().join("x.warc.gz");
    std::fs::write(&text, "This is a plain text file, not an archive at all.\n").unwrap();
    let good = example_batches()[0][0].clone();
    let out = update(&dir, &[text.clone(), good], &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "{}: offset 0: not an ARC or WARC file",
            text.display()
        )),
        "{err}"
    );
    assert!(err.contains("1 archives added"), "{err}");
    assert!(err.contains("1 archives unreadable, not added"), "{err}");
    let m = std::fs::read_to_string(dir.join("collection.json")).unwrap();
    assert!(
        !m.contains("x.warc.gz") && m.contains("crawl1-20071001.arc"),
        "{m}"
    );
    assert!(!std::fs::read_to_string(dir.join("all.cdx"))
        .unwrap()
        .contains("x.warc.gz"));

    let out = update(&dir, std::slice::from_ref(&text), &["--strict"]);
    assert_eq!(out.status.code(), Some(1));

    let missing = tmp.path().join("missing.warc.gz");
    let fresh = tmp.path().join("fresh");
    for bad in [&missing, &text] {
        let out = update(&fresh, std::slice::from_ref(bad), &[]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(&bad.display().to_string()), "{err}");
        assert!(!fresh.exists(), "{err}");
    }
}

/// A capture held in two archives of one batch (a WARC copied under
/// another name, the same name in two directories, a WACZ and its WARCs under other
/// names, an ARC beside its copy) is one version with its dates, never lost from both:
/// the collection is the one the first archive alone makes, and the second copy's
/// captures are counted as excluded.
#[test]
fn a_capture_held_in_two_archives_of_one_batch_is_kept_once() {
    let fx = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let tmp = tempfile::tempdir().unwrap();
    let copy = |from: &Path, to: &Path| {
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from, to).unwrap();
        to.to_path_buf()
    };
    let warc = fx.join("example/crawl4-20071004.warc.gz");
    let arc = fx.join("example/crawl1-20071001.arc");
    let wacz = fx.join("wacz/crawl.wacz");
    let inner = unpack_wacz(&wacz, &tmp.path().join("unpacked"));
    let renamed: Vec<PathBuf> = inner
        .iter()
        .map(|p| {
            let name = format!("renamed-{}", p.file_name().unwrap().to_string_lossy());
            copy(p, &tmp.path().join("renamed").join(name))
        })
        .collect();
    let cases: [(&str, Vec<PathBuf>, Vec<PathBuf>); 4] = [
        (
            "warc-and-its-copy",
            vec![warc.clone()],
            vec![
                warc.clone(),
                copy(&warc, &tmp.path().join("c1/copy.warc.gz")),
            ],
        ),
        (
            "same-name-in-two-directories",
            vec![warc.clone()],
            vec![
                copy(&warc, &tmp.path().join("a/crawl4.warc.gz")),
                copy(&warc, &tmp.path().join("b/crawl4.warc.gz")),
            ],
        ),
        (
            "arc-and-its-copy",
            vec![arc.clone()],
            vec![arc.clone(), copy(&arc, &tmp.path().join("c2/copy.arc"))],
        ),
        (
            "wacz-and-its-warcs-renamed",
            vec![wacz.clone()],
            [vec![wacz.clone()], renamed.clone()].concat(),
        ),
    ];
    for (name, alone, both) in cases {
        let reference = tmp.path().join(format!("{name}-alone"));
        update_ok(&reference, &alone);
        let want = documents(&reference);
        assert!(!want.is_empty(), "{name}: the archive alone has versions");
        let coll = tmp.path().join(name);
        let said = update_ok(&coll, &both);
        assert_eq!(documents(&coll), want, "{name}: versions and dates");
        let m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(coll.join("collection.json")).unwrap())
                .unwrap();
        let new: u64 = m["batches"][0]["new_versions"].as_u64().unwrap();
        assert_eq!(new, want.len() as u64, "{name}: new versions ({said})");
    }
}

/// One gzip member holding `record`, as crawlers write each record.
fn gzip_member(record: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(record).unwrap();
    e.finish().unwrap()
}

/// A gzip WARC of a request and a response record a capture (URL, date, status, body;
/// `WARC-Payload-Digest` given when `digest`), each record its own gzip member.
fn write_gzip_warc(path: &Path, captures: &[(&str, &str, u16, &str, bool)]) {
    use sha1::{Digest, Sha1};
    let mut out = Vec::new();
    for (i, &(url, date, status, body, digest)) in captures.iter().enumerate() {
        let request = format!("GET / HTTP/1.1\r\nHost: {url}\r\n\r\n");
        out.extend(gzip_member(
            format!(
                "WARC/1.0\r\nWARC-Type: request\r\nWARC-Target-URI: {url}\r\nWARC-Date: {date}\r\n\
                 WARC-Record-ID: <urn:uuid:q{i}>\r\nContent-Type: application/http; msgtype=request\r\n\
                 Content-Length: {}\r\n\r\n{request}\r\n\r\n",
                request.len()
            )
            .as_bytes(),
        ));
        let http = format!(
            "HTTP/1.1 {status} X\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let digest = if digest {
            let d = data_encoding::BASE32.encode(&Sha1::digest(body.as_bytes()));
            format!("WARC-Payload-Digest: sha1:{d}\r\n")
        } else {
            String::new()
        };
        out.extend(gzip_member(
            format!(
                "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {url}\r\nWARC-Date: {date}\r\n\
                 WARC-Record-ID: <urn:uuid:r{i}>\r\n{digest}Content-Type: application/http; msgtype=response\r\n\
                 Content-Length: {}\r\n\r\n{http}\r\n\r\n",
                http.len()
            )
            .as_bytes(),
        ));
    }
    std::fs::write(path, out).unwrap();
}

/// The rows of a segment, with what depends on where it was built (the archive's path
/// as recorded, the collection's name) left out.
fn segment_rows(seg: &Path) -> Vec<warcdex::segment::SegmentRow> {
    warcdex::segment::rows::read_rows(&seg.join("documents.parquet"))
        .unwrap()
        .map(|r| {
            let mut r = r.unwrap();
            r.archive = Path::new(&r.archive)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into();
            r.collection.clear();
            r
        })
        .collect()
}

/// Each archive's counts in `segment.json`: records, imported, excluded, filtered, skipped.
fn source_counts(seg: &Path) -> Vec<String> {
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(seg.join("segment.json")).unwrap()).unwrap();
    let sources = m["sources"].as_array().unwrap();
    sources
        .iter()
        .map(|s| {
            let f = |k: &str| s[k].to_string();
            let keys = [
                "records",
                "imported",
                "excluded",
                "status_filtered",
                "skipped",
            ];
            keys.map(f).join(" ")
        })
        .collect()
}

/// A batch whose archives capture pages again, within one archive and across two: the
/// captures the batch's list excludes are passed over unread (the reader skips their
/// gzip members, as their CDX lines place them), and the segment is the one `import -e`
/// of the same archives makes reading every record: the same rows and the same counts
/// of records read, imported, excluded and filtered.
#[test]
fn excluded_captures_passed_over_unread_make_the_segment_reading_them_makes() {
    let tmp = tempfile::tempdir().unwrap();
    let (c1, c2) = (tmp.path().join("c1.warc.gz"), tmp.path().join("c2.warc.gz"));
    let (a, b, c, d, e) = (
        "http://a.example/",
        "http://b.example/",
        "http://c.example/",
        "http://d.example/",
        "http://e.example/",
    );
    write_gzip_warc(
        &c1,
        &[
            (
                a,
                "2024-01-01T00:00:00Z",
                200,
                "<title>A</title>alpha",
                true,
            ),
            (b, "2024-01-01T00:00:01Z", 200, "<title>B</title>beta", true),
            (
                a,
                "2024-01-02T00:00:00Z",
                200,
                "<title>A</title>alpha",
                true,
            ),
            (c, "2024-01-01T00:00:02Z", 404, "gone", true),
            (c, "2024-01-02T00:00:02Z", 404, "gone", true),
            (
                b,
                "2024-01-03T00:00:01Z",
                200,
                "<title>B</title>beta again",
                true,
            ),
            (
                d,
                "2024-01-01T00:00:03Z",
                200,
                "<title>D</title>delta",
                false,
            ),
            (
                d,
                "2024-01-02T00:00:03Z",
                200,
                "<title>D</title>delta",
                false,
            ),
        ],
    );
    write_gzip_warc(
        &c2,
        &[
            (
                a,
                "2023-12-31T00:00:00Z",
                200,
                "<title>A</title>alpha",
                true,
            ),
            (e, "2024-01-04T00:00:00Z", 200, "<title>E</title>eps", true),
        ],
    );
    let archives = [c1.clone(), c2.clone()];
    let coll = tmp.path().join("coll");
    update_ok(&coll, &archives);
    let seg = coll.join("segments/batch-0001");

    // The same archives the long way: every record read.
    let one = tmp.path().join("one");
    std::fs::create_dir_all(&one).unwrap();
    let (mut cdx, mut manifest) = (Vec::new(), String::new());
    for a in &archives {
        let out = one.join(format!("{}.cdx", a.file_name().unwrap().to_string_lossy()));
        ok(&["cdx", s(a), "-o", s(&out)]);
        cdx.push(out);
        manifest.push_str(&format!("{}\n", s(a)));
    }
    std::fs::write(one.join("manifest.txt"), manifest).unwrap();
    let (all, dup) = (one.join("all.cdx"), one.join("all.dup"));
    let mut args = vec!["sort-cdx", "-o", s(&all)];
    args.extend(cdx.iter().map(|p| s(p)));
    ok(&args);
    ok(&["dedup-cdx", s(&all), "-o", s(&dup)]);
    let one_seg = one.join("seg");
    ok(&[
        "import",
        "-e",
        s(&dup),
        s(&one.join("manifest.txt")),
        s(&one_seg),
    ]);

    let rows = segment_rows(&seg);
    assert_eq!(rows.len(), 5, "A, B twice, D, E: {rows:?}");
    assert_eq!(rows, segment_rows(&one_seg));
    let counts = source_counts(&seg);
    assert_eq!(counts, source_counts(&one_seg));
    // c1: 16 records; B, B', D imported; both of A's captures (c2 holds an earlier one)
    // and D's second excluded, C's two filtered. c2: A and E imported.
    assert_eq!(counts[0], r#"16 3 3 2 {"request":8}"#);
    assert_eq!(counts[1], r#"4 2 0 0 {"request":2}"#);

    // What was passed over: the excluded captures whose CDX line places them.
    let exclusions =
        warcdex::import::load_exclusions(&dup, warcdex_cdx::KeyStyle::Surt, &mut |m| panic!("{m}"))
            .unwrap();
    let status = warcdex::segment::layout::StatusFilter::default();
    let spans = warcdex::update::excluded_spans::excluded_spans(&cdx[0], &c1, &exclusions, &status)
        .unwrap();
    assert_eq!(spans.len(), 3, "A's captures and D's second: {spans:?}");
    let read = |skip: &[(u64, u64)]| {
        let mut r = warcdex::reader::ArchiveReader::open(&c1).unwrap();
        r.skip_members(skip.to_vec());
        let mut seen = Vec::new();
        while let Some(rec) = r.next_record().unwrap() {
            let span = rec.finish().unwrap();
            seen.push((span.offset, span.length));
        }
        (seen, r.members_skipped())
    };
    let (every, none_skipped) = read(&[]);
    let (rest, skipped) = read(&spans);
    assert_eq!((none_skipped, skipped), (0, 3));
    let want: Vec<_> = every
        .iter()
        .filter(|s| !spans.contains(s))
        .copied()
        .collect();
    assert_eq!(rest, want, "the other records, where they are stored");
    // A span that does not start a member is read as usual.
    let (off, _) = read(&[(spans[0].0 + 1, spans[0].1)]);
    assert_eq!(off, every);
}
