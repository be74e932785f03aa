//! The list commands from the command line: stdin, `-o`, messages and exit codes.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::util::fixtures;

fn warcdex(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_warcdex"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run warcdex");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn dedup(name: &str) -> String {
    std::fs::read_to_string(fixtures().join("dedup").join(name)).unwrap()
}

#[test]
fn dedup_cdx_reads_unsorted_stdin() {
    let mut lines: Vec<String> = dedup("worked.cdx11").lines().map(String::from).collect();
    lines.reverse();
    let (code, out, err) = warcdex(&["dedup-cdx", "-"], &(lines.join("\n") + "\n"));
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, dedup("worked-cdx11.dup"));
    assert!(err.contains("11 lines read (1 legend, 0 broken"), "{err}");
}

#[test]
fn revisits_of_wayback_cdx_to_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("all.rev");
    let input = fixtures().join("dedup/worked.cdx9");
    let (code, _, err) = warcdex(
        &[
            "revisits",
            "-o",
            out.to_str().unwrap(),
            input.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        dedup("worked-cdx9.rev")
    );
}

#[test]
fn broken_line_named_with_file_and_line_strict_fails() {
    let text = dedup("readme-10.cdx9") + "too few fields\n";
    let (code, out, err) = warcdex(&["dedup-cdx", "-"], &text);
    assert_eq!(code, 0);
    assert_eq!(out, dedup("readme-10.dup"));
    assert!(err.contains("-: line 11: 3 fields"), "{err}");
    let (code, _, err) = warcdex(&["dedup-cdx", "--strict", "-"], &text);
    assert_eq!(code, 1, "{err}");
}

#[test]
fn sort_cdx_then_check() {
    let mut lines: Vec<String> = dedup("worked.cdx11").lines().map(String::from).collect();
    lines.swap(2, 7);
    let (code, sorted, _) = warcdex(&["sort-cdx", "-"], &(lines.join("\n") + "\n"));
    assert_eq!(code, 0);
    assert_eq!(sorted, dedup("worked.cdx11"));
    let (code, _, err) = warcdex(&["sort-cdx", "--check", "-"], &(lines.join("\n") + "\n"));
    assert_eq!(code, 1);
    assert!(err.contains("line 4"), "{err}");
}

fn cdx11() -> String {
    fixtures().join("dedup/worked.cdx11").display().to_string()
}

/// Merge-cdx checks each input's order as it merges; an unsorted input
/// fails the run with its name and line, and no output is written.
#[test]
fn merge_cdx_refuses_an_unsorted_input_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.cdx");
    let b = dir.path().join("b.cdx");
    std::fs::write(&a, "a 1\nc 1\n").unwrap();
    std::fs::write(&b, "b 1\nd 1\nb 2\ne 1\n").unwrap();
    let out = dir.path().join("out.cdx");
    let merge = || {
        let paths = [&out, &a, &b].map(|p| p.to_str().unwrap());
        warcdex(&["merge-cdx", "-o", paths[0], paths[1], paths[2]], "")
    };
    let (code, _, err) = merge();
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!("{}: line 3 is out of order", b.display())),
        "{err}"
    );
    assert!(!out.exists());
    // Sorted inputs still merge.
    std::fs::write(&b, "b 1\nd 1\n").unwrap();
    let (code, _, err) = merge();
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "a 1\nb 1\nc 1\nd 1\n"
    );
}

/// A `-o` output is created as any file is, with the umask's mode,
/// not 0600 (a replay server running as another user must be able to read it).
#[test]
fn output_files_honour_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    for (umask, want) in [("022", 0o644), ("027", 0o640)] {
        let out = dir.path().join(format!("out-{umask}.cdx"));
        let status = Command::new("sh")
            .arg("-c")
            .arg(format!("umask {umask} && exec \"$0\" \"$@\""))
            .arg(env!("CARGO_BIN_EXE_warcdex"))
            .args(["sort-cdx", "-o", out.to_str().unwrap(), &cdx11()])
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, want, "umask {umask}: mode {mode:o}");
    }
}

/// Temporaries of a killed run (named `.warcdex-tmp.PID.…`) are
/// removed by the next run writing in that directory when their process is gone; those
/// of a live process are kept.
#[test]
fn stale_temporaries_are_removed_by_the_next_run() {
    let dir = tempfile::tempdir().unwrap();
    // pid_max is at most 2^22 on Linux: these processes cannot exist.
    let dead_file = dir.path().join(".warcdex-tmp.999999999.a1b2c3");
    std::fs::write(&dead_file, vec![0u8; 4096]).unwrap();
    let dead_dir = dir.path().join(".warcdex-tmp.999999998.d4e5f6");
    std::fs::create_dir(&dead_dir).unwrap();
    std::fs::write(dead_dir.join("documents.parquet"), "x").unwrap();
    let live = dir
        .path()
        .join(format!(".warcdex-tmp.{}.g7h8i9", std::process::id()));
    std::fs::write(&live, "x").unwrap();
    let out = dir.path().join("all.cdx");
    let (code, _, err) = warcdex(&["sort-cdx", "-o", out.to_str().unwrap(), &cdx11()], "");
    assert_eq!(code, 0, "{err}");
    assert!(!dead_file.exists(), "{err}");
    assert!(!dead_dir.exists(), "{err}");
    assert!(live.exists());
    assert!(
        err.contains(&format!("removed {}", dead_file.display())),
        "{err}"
    );
    // Only the output (and the live temporary) are left: the lock file is gone too.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 2, "{names:?}");
}

/// An I/O error names its path, even where the directory would be
/// used only for a large input.
#[test]
fn sort_cdx_names_a_missing_tmp_dir() {
    let (code, _, err) = warcdex(
        &[
            "sort-cdx",
            "--tmp-dir",
            "/nonexistent/warcdex-tmp",
            &cdx11(),
        ],
        "",
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("/nonexistent/warcdex-tmp"), "{err}");
}

/// An echoed field is cut at 200 bytes, and at most 10 broken lines
/// per file are shown, then a count.
#[test]
fn broken_line_messages_are_capped() {
    let mut input = String::new();
    let long_date = "9".repeat(5000);
    input.push_str(&format!(
        "a,b)/ {long_date} http://b/ text/html 200 AAAA - - 1 2 f.warc\n"
    ));
    for i in 0..29 {
        input.push_str(&format!("broken line {i}\n"));
    }
    let (code, _, err) = warcdex(&["dedup-cdx", "-"], &input);
    assert_eq!(code, 0, "{err}");
    assert!(err.lines().all(|l| l.len() < 400), "{err}");
    assert!(err.contains(&format!("{}…", "9".repeat(200))), "{err}");
    assert_eq!(err.matches(": line ").count(), 10, "{err}");
    assert!(err.contains("-: … and 20 more broken lines"), "{err}");
    assert!(err.contains("30 broken and skipped"), "{err}");
}

/// An input that cannot be read (missing, a directory) is reported,
/// the others are processed and written, and the run exits 1; with --strict nothing is
/// written.
#[test]
fn unreadable_inputs_exit_1_after_the_others_strict_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.cdx");
    let subdir = dir.path().join("a-directory");
    std::fs::create_dir(&subdir).unwrap();
    for cmd in ["dedup-cdx", "sort-cdx"] {
        let out = dir.path().join(format!("{cmd}.out"));
        let args = [
            cmd,
            "-o",
            out.to_str().unwrap(),
            missing.to_str().unwrap(),
            &cdx11(),
            subdir.to_str().unwrap(),
        ];
        let (code, _, err) = warcdex(&args, "");
        assert_eq!(code, 1, "{cmd}: {err}");
        assert!(err.contains(&missing.display().to_string()), "{err}");
        assert!(
            err.contains(&format!(
                "{}: cannot read: is a directory",
                subdir.display()
            )),
            "{err}"
        );
        let written = std::fs::read_to_string(&out).unwrap();
        if cmd == "dedup-cdx" {
            assert_eq!(written, dedup("worked-cdx11.dup"));
        } else {
            assert_eq!(written.lines().count(), 11, "{written}");
        }
        std::fs::remove_file(&out).unwrap();
        let mut strict = args.to_vec();
        strict.insert(1, "--strict");
        let (code, _, err) = warcdex(&strict, "");
        assert_eq!(code, 1, "{cmd}: {err}");
        assert!(!out.exists(), "{cmd} --strict wrote {}", out.display());
    }
}

/// A second writer of the same `-o` file waits for the first (one line
/// on stderr), or with --no-wait fails at once naming the output.
#[test]
fn a_locked_output_waits_or_fails_with_no_wait() {
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("all.cdx");
    // Another warcdex writing all.cdx holds an flock on its sibling `.all.cdx.lock`.
    let held = std::fs::File::create(dir.path().join(".all.cdx.lock")).unwrap();
    use std::os::fd::AsRawFd;
    // SAFETY: the descriptor is open for the life of `held`.
    assert_eq!(unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX) }, 0);
    let (code, _, err) = warcdex(
        &[
            "sort-cdx",
            "--no-wait",
            "-o",
            out.to_str().unwrap(),
            &cdx11(),
        ],
        "",
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains(&out.display().to_string()), "{err}");
    assert!(err.contains("--no-wait"), "{err}");
    assert!(!out.exists());
    let mut child = Command::new(env!("CARGO_BIN_EXE_warcdex"))
        .args(["sort-cdx", "-o", out.to_str().unwrap(), &cdx11()])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    stderr.read_line(&mut first).unwrap();
    assert_eq!(
        first,
        format!(
            "warcdex: waiting for the lock on {} held by another warcdex\n",
            out.display()
        )
    );
    assert!(!out.exists());
    drop(held);
    assert!(child.wait().unwrap().success());
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 11);
}

#[test]
fn an_output_that_is_not_a_file_is_written_into_not_replaced() {
    // `-o /dev/null` (or `/dev/stdout`) must not be renamed over: as root that replaced
    // /dev/null itself with a regular file. A named pipe stands for such outputs here.
    use std::io::Read;
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("out.pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    // Opened for reading and writing, so that opening it to write does not wait for a
    // reader and reading does not wait for a writer.
    let mut pipe = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    let input = fixtures().join("dedup/worked.cdx11");
    let (code, _, err) = warcdex(
        &[
            "dedup-cdx",
            "-o",
            fifo.to_str().unwrap(),
            input.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let mut got = vec![0u8; 1 << 16];
    let n = pipe.read(&mut got).expect("the output went into the pipe");
    assert_eq!(
        String::from_utf8_lossy(&got[..n]),
        dedup("worked-cdx11.dup")
    );
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        names,
        ["out.pipe"],
        "no lock or temporary file left beside it"
    );
}

#[test]
fn an_output_through_a_symbolic_link_replaces_the_file_and_keeps_the_link() {
    // `-o /dev/stdout` with stdout redirected to a file is such a link (through
    // /proc/self/fd/1): renaming over the link replaced /dev/stdout itself.
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("real.dup");
    std::fs::write(&target, "old\n").unwrap();
    let link = dir.path().join("link.dup");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let input = fixtures().join("dedup/worked.cdx11");
    let (code, _, err) = warcdex(
        &[
            "dedup-cdx",
            "-o",
            link.to_str().unwrap(),
            input.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        dedup("worked-cdx11.dup")
    );
}
