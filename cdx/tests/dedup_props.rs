//! dedup-cdx and revisits against a naive in-memory model, on random CDX: random order,
//! repeated captures, revisits, several files, small memory (forcing external runs).

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use proptest::prelude::*;
use warcdex_cdx::dedup::{dedup_cdx, revisits, Input, ListOptions};

#[derive(Debug, Clone)]
struct Cap {
    key: u8,
    digest: u8,
    day: u8,
    file: u8,
    revisit: bool,
}

fn line(c: &Cap) -> String {
    let mime = if c.revisit {
        "warc/revisit"
    } else {
        "text/html"
    };
    format!(
        "org,example)/p{} 200710{:02}120000 http://example.org/p{} {mime} 200 D{} - - 100 0 f{}.warc.gz",
        c.key, c.day, c.key, c.digest, c.file
    )
}

/// The model: project, unique, sort; within (key, digest) all but the first.
fn model(caps: &[Cap]) -> (String, String) {
    let projected: BTreeSet<String> = caps
        .iter()
        .map(|c| {
            format!(
                "org,example)/p{} sha1:D{} 200710{:02}120000 f{}.warc.gz",
                c.key, c.digest, c.day, c.file
            )
        })
        .collect();
    let mut seen: HashMap<String, ()> = HashMap::new();
    let mut dup = String::new();
    for l in &projected {
        let group: String = l.split(' ').take(2).collect::<Vec<_>>().join(" ");
        if seen.insert(group, ()).is_some() {
            dup.push_str(l);
            dup.push('\n');
        }
    }
    let rev: BTreeSet<String> = caps
        .iter()
        .filter(|c| c.revisit)
        .map(|c| {
            format!(
                "org,example)/p{} sha1:D{} 200710{:02}120000",
                c.key, c.digest, c.day
            )
        })
        .collect();
    let rev: String = rev.into_iter().map(|l| l + "\n").collect();
    (dup, rev)
}

fn write_files(dir: &Path, files: &[Vec<String>]) -> Vec<Input> {
    files
        .iter()
        .enumerate()
        .map(|(i, lines)| {
            let p = dir.join(format!("in{i}.cdx"));
            let mut text = String::from(" CDX N b a m s k r M S V g\n");
            for l in lines {
                text.push_str(l);
                text.push('\n');
            }
            std::fs::write(&p, text).unwrap();
            Input::File(p)
        })
        .collect()
}

fn cap() -> impl Strategy<Value = Cap> {
    (0u8..6, 0u8..4, 1u8..29, 0u8..3, prop::bool::weighted(0.2)).prop_map(
        |(key, digest, day, file, revisit)| Cap {
            key,
            digest,
            day,
            file,
            revisit,
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn lists_equal_the_model(caps in prop::collection::vec(cap(), 0..120), nfiles in 1usize..4, memory in 0usize..3) {
        let (want_dup, want_rev) = model(&caps);
        let dir = tempfile::tempdir().unwrap();
        let lines: Vec<String> = caps.iter().map(line).collect();
        // Unsorted, split round-robin over files.
        let mut files = vec![Vec::new(); nfiles];
        for (i, l) in lines.iter().enumerate() {
            files[i % nfiles].push(l.clone());
        }
        let opts = ListOptions { memory: [4096, 1 << 16, 1 << 24][memory], ..ListOptions::default() };
        let inputs = write_files(dir.path(), &files);
        let mut out = Vec::new();
        dedup_cdx(&inputs, &mut out, &opts, &mut |b| panic!("{b}")).unwrap();
        prop_assert_eq!(String::from_utf8(out).unwrap(), want_dup.clone());
        let mut out = Vec::new();
        revisits(&inputs, &mut out, &opts, &mut |b| panic!("{b}")).unwrap();
        prop_assert_eq!(String::from_utf8(out).unwrap(), want_rev.clone());

        // The same lines sorted (each file sorted, as `LC_ALL=C sort` leaves them).
        for f in files.iter_mut() {
            f.sort();
        }
        let sorted_dir = tempfile::tempdir().unwrap();
        let inputs = write_files(sorted_dir.path(), &files);
        let mut out = Vec::new();
        let r = dedup_cdx(&inputs, &mut out, &opts, &mut |b| panic!("{b}")).unwrap();
        prop_assert!(!r.external_sort);
        prop_assert_eq!(String::from_utf8(out).unwrap(), want_dup);
        let mut out = Vec::new();
        revisits(&inputs, &mut out, &opts, &mut |b| panic!("{b}")).unwrap();
        prop_assert_eq!(String::from_utf8(out).unwrap(), want_rev);
    }
}
