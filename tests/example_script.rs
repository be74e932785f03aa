//! The README's run command: `scripts/example.sh` takes the bundled collection through
//! the whole workflow (cdx → sort-cdx → dedup-cdx + revisits → import -e → index →
//! add-dates → search); its output is checked here.

use std::process::Command;

/// The five versions of fixtures/example (DIGESTS.txt): A is crawled four times
/// unchanged (three of them excluded by the list, one a revisit), the others change.
const VERSIONS: [(&str, &str); 5] = [
    ("S42IR7LMWWS7QPU5BCR7NIAJVCMMCCIV", "Example A"),
    ("4IKAZ3R4KNKTKYATMCZAEY6LADRQ2PZQ", "Example B"),
    ("LLNFXU4SCMETNWECK6B4QM3EJAMNQLHX", "About C"),
    ("AVGMQS5POH2JR777DGRK7ETXHTWU2N7U", "News D"),
    ("HQJAGUTV7326ZEPND7ZHHECEEBXI3NIK", "News E"),
];

#[test]
fn example_script_runs_the_whole_workflow() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("example");
    let out = Command::new("bash")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/example.sh"))
        .arg(&work)
        .env("WARCDEX_BIN", env!("CARGO_BIN_EXE_warcdex"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for want in [
        "all.cdx: 10 captures",
        "all.dup: 5 captures repeat an earlier one",
        "all.rev: 2 revisit records",
        "segment: 5 versions (URL + digest)",
        "main: 5 documents",
        // Step 8: the same archives kept by `update` in two batches, then compacted.
        "batch-0001: 3 archives added, 0 skipped; 7 captures (0 revisits), 5 new versions, 0 dates added to earlier versions",
        "batch-0002: 2 archives added, 0 skipped; 3 captures (2 revisits), 0 new versions, 3 dates added to earlier versions",
        "nothing new: 2 archives skipped",
        "compacted 2 batches into pindexes/compacted (5 documents)",
        "dumpindex of the compacted collection = dumpindex of steps 1-6: identical",
    ] {
        assert!(stdout.contains(want), "missing {want:?} in\n{stdout}");
    }
    let steps_1_to_7 = stdout.split("== 8.").next().unwrap();
    let queries: Vec<&str> = steps_1_to_7.split("-- warcdex search").skip(1).collect();
    assert_eq!(queries.len(), 5, "{stdout}");
    let hits = |q: &str| -> Vec<String> {
        q.lines()
            .filter(|l| l.contains("[sha1:"))
            .map(String::from)
            .collect()
    };

    // The page crawled four times unchanged is one hit with all four dates, found by any
    // of them (20071004 is a later capture, excluded at import, added by add-dates).
    let a = "[sha1:S42IR7LMWWS7QPU5BCR7NIAJVCMMCCIV] [20071001120000, 20071002120000, 20071004120000, 20071005120000] [Example A]";
    let by_date = hits(queries[1]);
    assert_eq!(by_date.len(), 1, "{}", queries[1]);
    assert!(by_date[0].contains(a), "{}", by_date[0]);
    let examples = hits(queries[0]);
    assert_eq!(
        examples.iter().filter(|h| h.contains("Example A")).count(),
        1,
        "{}",
        queries[0]
    );

    // Every version of a changed page is searchable: both news versions, and all five
    // versions for a word they share, each once.
    let news = hits(queries[2]);
    for digest in [VERSIONS[3].0, VERSIONS[4].0] {
        assert!(
            news.iter().any(|h| h.contains(digest)),
            "{digest} in {}",
            queries[2]
        );
    }
    let all = hits(queries[4]);
    assert_eq!(all.len(), 5, "{}", queries[4]);
    for (digest, title) in VERSIONS {
        assert_eq!(
            all.iter()
                .filter(|h| h.contains(digest) && h.ends_with(&format!("[{title}]")))
                .count(),
            1,
            "{digest} {title} in {}",
            queries[4]
        );
    }
}
