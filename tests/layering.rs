//! The crate's floor plan, kept: every `crate::` path (and `super::` path that leaves its
//! top module) in `src/` names a module of a lower floor than its own, and no file is over
//! 700 lines of logic. Test code (`#[cfg(test)]` modules and `src/html/tests/`) may use
//! any floor, as a dev-dependency may: it is not part of the library.
//!
//! The table below is the plan that ARCHITECTURE.md draws; a new module gets a floor here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The floors, lowest first. A module may use the modules of the floors below its own,
/// none of its own floor and none above.
const FLOORS: &[&[&str]] = &[
    &["progress", "path_error", "test_rng", "freshness"],
    // `output` names the paths of its errors with `path_error`, a floor below.
    &["reader", "output"],
    &["cdx_writer", "access"],
    &["collection"],
    &["extract", "near"],
    &["html"],
    &["segment"],
    &["import"],
    &["schema"],
    &["pindex"],
    &["index", "dates"],
    &["search"],
    &["render", "export", "graph"],
    &["recrawl"],
    &["replay"],
    &["serve"],
    &["update"],
    &["testing"],
];

/// Files allowed more than [`MAX_LOGIC`] lines of logic: a state machine that reads best
/// whole, an engine of one job, generated data.
const LONG_FILES: &[&str] = &[
    "src/html/tokenizer.rs",
    "src/extract/pdf.rs",
    "src/html/entity_table.rs",
];

/// The most lines of logic (not blank, not a comment, not in a test module) of a file.
const MAX_LOGIC: usize = 700;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The files of the library (`src/` but the binary's `main.rs` and `cli/`), as paths
/// relative to `src/`.
fn library_files() -> Vec<(String, String)> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut out = Vec::new();
    for f in files {
        let rel = f
            .strip_prefix(src())
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel == "main.rs" || rel.starts_with("cli/") {
            continue;
        }
        out.push((rel, std::fs::read_to_string(&f).unwrap()));
    }
    // A file declared by `#[cfg(test)] mod name;` is test code, and so is what it declares.
    let mut tests = BTreeSet::new();
    loop {
        let before = tests.len();
        for (rel, text) in &out {
            let dir = match rel.rsplit_once('/') {
                _ if rel == "lib.rs" => String::new(),
                Some((dir, "mod.rs")) => format!("{dir}/"),
                _ => format!("{}/", rel.trim_end_matches(".rs")),
            };
            let all_test = tests.contains(rel);
            let mut pending = false;
            for line in text.lines() {
                let t = line.trim();
                if t.starts_with("#[cfg(test)]") {
                    pending = true;
                    continue;
                }
                if let Some(name) = t.strip_prefix("mod ").or(t.strip_prefix("pub mod ")) {
                    if let Some(name) = name.strip_suffix(';') {
                        if pending || all_test {
                            tests.insert(format!("{dir}{name}.rs"));
                            tests.insert(format!("{dir}{name}/mod.rs"));
                        }
                    }
                }
                if !t.starts_with("#[") && !t.is_empty() {
                    pending = false;
                }
            }
        }
        if tests.len() == before {
            break;
        }
    }
    out.retain(|(rel, _)| rel != "lib.rs" && !tests.contains(rel));
    out.sort();
    out
}

/// Each line of `text` with its comment removed and whether it is test code: a line of a
/// `#[cfg(test)]` item (a module, a function, a `use`) or of a file under a `tests/` folder.
fn code_lines(rel: &str, text: &str) -> Vec<(usize, String, bool)> {
    let whole_file_is_test = rel.split('/').any(|c| c == "tests");
    let mut out = Vec::new();
    let mut test_depth: Option<i64> = None;
    let mut depth: i64 = 0;
    let mut cfg_test_pending = false;
    for (i, line) in text.lines().enumerate() {
        let code = strip_comment(line);
        let trimmed = code.trim();
        if trimmed.starts_with("#[cfg(test)]") || trimmed.starts_with("#[cfg(all(test") {
            cfg_test_pending = true;
        }
        let in_test = whole_file_is_test || test_depth.is_some() || cfg_test_pending;
        let opens = code.matches('{').count() as i64;
        let closes = code.matches('}').count() as i64;
        if cfg_test_pending && !trimmed.starts_with("#[") && !trimmed.is_empty() {
            // The item the attribute is on: a block to its closing brace, or one line.
            cfg_test_pending = false;
            if opens > closes {
                test_depth = Some(depth);
            }
        }
        depth += opens - closes;
        out.push((i + 1, code, in_test));
        if let Some(d) = test_depth {
            if depth <= d {
                test_depth = None;
            }
        }
    }
    out
}

/// The line without its `//` comment (a `//` inside a string literal is rare enough in
/// `use` lines not to matter; string contents are kept).
fn strip_comment(line: &str) -> String {
    let mut in_str = false;
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if in_str => i += 1,
            b'"' => in_str = !in_str,
            b'/' if !in_str && bytes.get(i + 1) == Some(&b'/') => return line[..i].to_string(),
            _ => {}
        }
        i += 1;
    }
    line.to_string()
}

/// The module path of a file: `reader/mod.rs` → [reader], `reader/wacz.rs` → [reader, wacz].
fn module_path(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The top modules `code` reaches: by `crate::NAME`, and by `super::` chains that climb
/// out of the file's top module. `super` in a file's inline module is counted from the
/// file, which can only undercount a climb, never invent one.
fn modules_named(code: &str, own: &[String]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        let after = &rest[at + "crate::".len()..];
        if !before.is_some_and(|c| is_ident(c) || c == '$') {
            let name: String = after.chars().take_while(|&c| is_ident(c)).collect();
            if !name.is_empty() {
                out.insert(name);
            }
        }
        rest = after;
    }
    let mut rest = code;
    while let Some(at) = rest.find("super::") {
        let before = rest[..at].chars().next_back();
        let mut after = &rest[at..];
        if before.is_some_and(|c| is_ident(c) || c == ':') {
            rest = &rest[at + "super::".len()..];
            continue;
        }
        let mut climbs = 0;
        while let Some(r) = after.strip_prefix("super::") {
            climbs += 1;
            after = r;
        }
        if climbs >= own.len() {
            let name: String = after.chars().take_while(|&c| is_ident(c)).collect();
            if !name.is_empty() {
                out.insert(name);
            }
        }
        rest = after;
    }
    out
}

fn floor_of() -> BTreeMap<&'static str, usize> {
    let mut out = BTreeMap::new();
    for (floor, modules) in FLOORS.iter().enumerate() {
        for m in *modules {
            assert!(out.insert(*m, floor).is_none(), "{m} is on two floors");
        }
    }
    out
}

/// Every `use` from a floor to its own or a higher one, as `file:line: a -> b`.
fn upward_edges(files: &[(String, String)]) -> Vec<String> {
    let floors = floor_of();
    let mut bad = Vec::new();
    for (rel, text) in files {
        let own = module_path(rel);
        let top = own[0].as_str();
        let Some(&mine) = floors.get(top) else {
            bad.push(format!(
                "src/{rel}: module {top} has no floor in tests/layering.rs"
            ));
            continue;
        };
        for (line, code, in_test) in code_lines(rel, text) {
            if in_test {
                continue;
            }
            for used in modules_named(&code, &own) {
                if used == top {
                    continue;
                }
                match floors.get(used.as_str()) {
                    Some(&theirs) if theirs < mine => {}
                    Some(&theirs) => bad.push(format!(
                        "src/{rel}:{line}: {top} (floor {mine}) uses {used} (floor {theirs})"
                    )),
                    None => {}
                }
            }
        }
    }
    bad
}

#[test]
fn every_module_uses_only_the_floors_below_it() {
    let bad = upward_edges(&library_files());
    assert!(
        bad.is_empty(),
        "uses against the floor plan:\n{}",
        bad.join("\n")
    );
}

#[test]
fn every_library_module_has_a_floor() {
    let floors = floor_of();
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    for line in lib.lines() {
        if let Some(name) = line
            .trim()
            .strip_prefix("pub mod ")
            .or(line.trim().strip_prefix("mod "))
        {
            let name = name.trim_end_matches(';');
            assert!(
                floors.contains_key(name),
                "src/lib.rs declares {name}, which has no floor"
            );
        }
    }
}

/// The check itself can fail: an upward `use` added to a low floor is found, with its
/// file and line, and so is a `super::` climb out of a top module.
#[test]
fn an_upward_use_is_found() {
    let files = vec![
        (
            "reader/wacz.rs".to_string(),
            "use crate::progress;\nuse crate::search::SearchIndex;\n".to_string(),
        ),
        (
            "near/clusters.rs".to_string(),
            "fn f() { super::super::index::build(); }\n#[cfg(test)]\nmod tests {\n    use crate::testing::x;\n}\n"
                .to_string(),
        ),
    ];
    let bad = upward_edges(&files);
    assert_eq!(
        bad,
        [
            "src/reader/wacz.rs:2: reader (floor 1) uses search (floor 11)",
            "src/near/clusters.rs:1: near (floor 4) uses index (floor 10)",
        ]
    );
}

/// Lines that are code: not blank, not a comment, not in a test module.
fn lines_of_logic(rel: &str, text: &str) -> usize {
    code_lines(rel, text)
        .into_iter()
        .filter(|(_, code, in_test)| !in_test && !code.trim().is_empty())
        .count()
}

#[test]
fn no_file_has_more_than_700_lines_of_logic() {
    let mut long = Vec::new();
    for (rel, text) in library_files() {
        let path = format!("src/{rel}");
        let n = lines_of_logic(&rel, &text);
        if n > MAX_LOGIC && !LONG_FILES.contains(&path.as_str()) {
            long.push(format!("{path}: {n} lines of logic"));
        }
    }
    // The binary's modules and the `warcdex-cdx` crate keep the same rule.
    let mut others = Vec::new();
    rust_files(&src().join("cli"), &mut others);
    rust_files(&src().join("../cdx/src"), &mut others);
    for f in others {
        let text = std::fs::read_to_string(&f).unwrap();
        let n = lines_of_logic("cli", &text);
        if n > MAX_LOGIC {
            long.push(format!("{}: {n} lines of logic", f.display()));
        }
    }
    assert!(
        long.is_empty(),
        "files over {MAX_LOGIC} lines of logic:\n{}",
        long.join("\n")
    );
}

#[test]
fn lines_of_logic_leave_out_comments_blanks_and_tests() {
    let text = "//! doc\nfn a() {\n    // why\n    let x = 1; // count\n\n}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\nfn b() {}\n";
    assert_eq!(lines_of_logic("x.rs", text), 4);
}
