//! Replays every input a fuzzer ever crashed on: each file under `fixtures/fuzz/<target>/`
//! goes through `warcdex::testing::run(<target>, ...)` (src/testing.rs), the function the
//! `cargo fuzz` target of that name calls (fuzz/fuzz_targets/). A panic fails the test;
//! all files are run first, so one run lists every failing file with its panic message
//! and source location.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::Once;

use warcdex::testing::{run, TARGETS};

use crate::util::fixtures;

thread_local! {
    /// Where the last panic on this thread happened (`file:line:col`), taken by the hook.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Chains a panic hook that remembers the location of each panic on its thread, then
/// calls the hook that was there (so the usual message still reaches stderr).
fn record_panic_locations() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let at = info.location().map(|l| l.to_string());
            LAST_PANIC.with(|p| *p.borrow_mut() = at);
            previous(info);
        }));
    });
}

/// Runs target `name` on every file of `dir`: how many it ran, and the failures as
/// `path: message (at location)`.
fn replay(name: &str, dir: &Path) -> (usize, Vec<String>) {
    record_panic_locations();
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries.map(|e| e.unwrap().path()).collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (0, Vec::new()),
        Err(e) => panic!("{}: {e}", dir.display()),
    };
    // `.gitkeep` holds an empty directory in git; it is not a reproducer.
    files.retain(|p| p.is_file() && !p.file_name().unwrap().to_string_lossy().starts_with('.'));
    files.sort();
    let ran = files.len();
    let mut failures = Vec::new();
    for path in files {
        let data = std::fs::read(&path).unwrap();
        LAST_PANIC.with(|p| p.borrow_mut().take());
        if let Err(payload) = std::panic::catch_unwind(|| assert!(run(name, &data))) {
            let msg = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "(a panic without a message)".into());
            let at = LAST_PANIC
                .with(|p| p.borrow_mut().take())
                .unwrap_or_else(|| "unknown location".into());
            failures.push(format!("{}: {msg} (at {at})", path.display()));
        }
    }
    (ran, failures)
}

/// Replays `fixtures/fuzz/<name>/`, which must hold exactly `expected` inputs: seeds
/// (`seed-*`, inputs that reach the target's paths, so the test replays something even
/// while no crash was found) and crash reproducers. A reproducer added or lost changes the
/// count, so a directory that quietly went empty fails here.
fn check(name: &str, expected: usize) {
    let dir = fixtures().join("fuzz").join(name);
    let (ran, failures) = replay(name, &dir);
    assert_eq!(ran, expected, "fixtures/fuzz/{name}: inputs replayed");
    assert!(
        failures.is_empty(),
        "{} of the {name} reproducers panic:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn reader_reproducers() {
    check("reader", 5);
}

#[test]
fn import_reproducers() {
    check("import", 5);
}

#[test]
fn cdx_line_reproducers() {
    check("cdx_line", 3);
}

#[test]
fn html_reproducers() {
    check("html", 3);
}

#[test]
fn query_reproducers() {
    check("query", 5);
}

#[test]
fn http_reproducers() {
    check("http", 23);
}

/// Every target has its test above and its directory, and an unknown name is refused
/// rather than replayed as nothing.
#[test]
fn every_target_is_replayed() {
    let src = include_str!("fuzz_replay.rs");
    for t in TARGETS {
        assert!(
            src.contains(&format!("check(\"{t}\", ")),
            "no replay test for {t}"
        );
        assert!(
            fixtures().join("fuzz").join(t).is_dir(),
            "fixtures/fuzz/{t} is missing"
        );
        assert!(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(format!("fuzz/fuzz_targets/{t}.rs"))
                .is_file(),
            "fuzz/fuzz_targets/{t}.rs is missing"
        );
    }
    assert!(!run("no-such-target", b""));
}

/// The harness itself: a well-formed request to every route answers below 500, a search
/// finds the example's pages (so `http` searches a real index, not an empty one), and a
/// malformed parameter is a 400.
#[test]
fn http_entry_point_searches_the_example() {
    for route in ["/", "/opensearch", "/search.json", "/healthz"] {
        warcdex::testing::http(format!("{route}?query=example").as_bytes());
    }
    // Byte 2 selects /search.json.
    let (target, status, body) = warcdex::testing::http_response(b"\x02query=lisbon").unwrap();
    assert_eq!(
        (target.as_str(), status),
        ("/search.json?query=lisbon", 200)
    );
    let json: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert!(json.to_string().contains("www.example.org"), "{json}");
    let (_, status, _) = warcdex::testing::http_response(b"\x02query=example&start=x").unwrap();
    assert_eq!(status, 400);
}
