//! The README's commands are run as written: the "A collection in a
//! minute" block against the sample output it shows (scores included, so a stale sample
//! fails), and the workflow table step by step on fixtures/example, whose search must
//! answer what the collection of the minute block answers. docs/guide.md repeats the
//! table: it must be the README's.

use std::path::{Path, PathBuf};
use std::process::Command;

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

/// The text of `doc` from the heading `heading` to the next heading of that level.
fn section<'a>(doc: &'a str, heading: &str) -> &'a str {
    let start = doc
        .find(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("no {heading:?}"));
    let rest = &doc[start + heading.len() + 2..];
    let level = heading.split(' ').next().unwrap();
    let end = rest.find(&format!("\n{level} ")).unwrap_or(rest.len());
    &rest[..end]
}

/// The first fenced block of `text`, as lines.
fn first_block(text: &str) -> Vec<&str> {
    let mut lines = text.lines().skip_while(|l| !l.starts_with("```")).skip(1);
    lines
        .by_ref()
        .take_while(|l| !l.starts_with("```"))
        .collect()
}

/// The rows of the first table of `text`: each row's cells, trimmed.
fn table(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|row| {
            row.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

/// The `code spans` of a cell.
fn code_spans(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(String::from)
        .collect()
}

/// A temporary directory with `fixtures` linked in, as the README's commands, run from a
/// clone's top, expect.
fn workdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures"),
        dir.path().join("fixtures"),
    )
    .unwrap();
    dir
}

/// Whether a line of stderr is a stage line of `update` (printed when stderr is no
/// terminal; in the README's terminal the bars are drawn and cleared instead).
fn is_stage_line(l: &str) -> bool {
    let Some(rest) = l.strip_prefix("warcdex update: ") else {
        return false;
    };
    let stage = rest.split([':', ' ']).next().unwrap_or("");
    ["identify", "cdx", "import", "index", "dates", "captures"].contains(&stage)
        && (rest.starts_with(&format!("{stage}: "))
            || rest.starts_with(&format!("{stage} done in ")))
}

/// Runs `command` with bash in `cwd`, `warcdex` being the binary under test; must
/// succeed. Its stdout, then its stderr without stage lines.
fn sh(cwd: &Path, command: &str) -> String {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_warcdex"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .args(["-euo", "pipefail", "-c", command])
        .current_dir(cwd)
        .env("PATH", path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{command}:\n{stdout}\n{stderr}");
    let mut all = stdout.into_owned();
    for l in stderr.lines().filter(|l| !is_stage_line(l)) {
        all.push_str(l);
        all.push('\n');
    }
    all
}

/// Whether `got` is `want` where a line `...` of `want` (indented or not) stands for any
/// lines.
fn matches(want: &[&str], got: &[&str]) -> bool {
    match want.split_first() {
        None => got.is_empty(),
        Some((w, rest)) if w.trim() == "..." => (0..=got.len()).any(|i| matches(rest, &got[i..])),
        Some((w, rest)) => got
            .split_first()
            .is_some_and(|(g, grest)| g.trim_end() == w.trim_end() && matches(rest, grest)),
    }
}

/// The minute block: each `$ command` run, its output the lines shown under it.
fn run_minute_block(cwd: &Path) {
    let readme = read("README.md");
    let block = first_block(section(&readme, "## A collection in a minute"));
    let mut commands: Vec<(String, Vec<&str>)> = Vec::new();
    for line in block {
        match line.strip_prefix("$ ") {
            Some(c) => commands.push((c.to_string(), Vec::new())),
            None => commands
                .last_mut()
                .expect("output before a command")
                .1
                .push(line),
        }
    }
    assert!(commands.len() >= 3, "{commands:?}");
    for (command, want) in commands {
        if command.starts_with("warcdex serve") {
            // It serves until stopped; tests/front.rs and the serve tests cover it.
            assert!(want.is_empty(), "{command}: {want:?}");
            continue;
        }
        let got = sh(cwd, &command);
        let got: Vec<&str> = got.lines().collect();
        assert!(
            matches(&want, &got),
            "README's `{command}` shows\n{}\nbut prints\n{}",
            want.join("\n"),
            got.join("\n")
        );
    }
}

#[test]
fn readme_minute_block_prints_what_it_shows() {
    let dir = workdir();
    run_minute_block(dir.path());
}

#[test]
fn readme_workflow_table_runs_on_the_example_and_the_guide_repeats_it() {
    let readme = read("README.md");
    let workflow = section(&readme, "## The workflow, one line per step");
    let rows = table(workflow);
    let guide = read("docs/guide.md");
    assert_eq!(
        table(section(&guide, "## The workflow, step by step")),
        rows,
        "docs/guide.md's table differs from the README's"
    );

    // The directory the table's commands run in: the archives and a manifest, as the
    // text above the table describes it.
    let dir = workdir();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/example");
    let mut archives = Vec::new();
    for e in std::fs::read_dir(&example).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        if name.starts_with("crawl") {
            std::os::unix::fs::symlink(example.join(&name), work.join(&name)).unwrap();
            archives.push(name);
        }
    }
    archives.sort();
    assert!(
        workflow.contains("`manifest.txt`") && workflow.contains("`PATH [COLLECTION]`"),
        "the README does not say what manifest.txt is"
    );
    std::fs::copy(example.join("manifest.txt"), work.join("manifest.txt")).unwrap();

    let mut ran = Vec::new();
    let mut searched = None;
    for row in &rows {
        let spans = code_spans(&row[1]);
        let command = &spans[0];
        if row[0].starts_with("1.") {
            // One archive is named; the step is run for each.
            assert!(row[1].contains("once per archive"), "{row:?}");
            for a in &archives {
                sh(
                    &work,
                    &command
                        .replace("crawl.warc.gz", a)
                        .replace("crawl.cdx", &format!("{a}.cdx")),
                );
            }
        } else if command.starts_with("warcdex search") {
            searched = Some((command.clone(), sh(&work, command)));
        } else {
            sh(&work, command);
        }
        ran.push(command.clone());
    }
    // Every list a step writes is read by a later step.
    for (i, command) in ran.iter().enumerate() {
        if let Some(out) = command.split(" -o ").nth(1) {
            let out = out.split(' ').next().unwrap();
            if out.ends_with(".cdx") && !out.starts_with("all") {
                continue;
            }
            assert!(
                ran[i + 1..].iter().any(|c| c.contains(out)),
                "{out}, written by `{command}`, is used by no later step"
            );
        }
    }

    // The table's search answers what the minute block's collection answers, dates
    // (the skipped captures', the revisits') and scores included.
    let (command, got) = searched.expect("a search step");
    assert!(
        got.starts_with("5 matching versions; 5 hits\n"),
        "{command}: {got}"
    );
    run_minute_block(dir.path());
    let same = sh(dir.path(), &command.replace("-d .", "-d coll"));
    assert_eq!(
        got, same,
        "{command}: the table's collection against update's"
    );
}
