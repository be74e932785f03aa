//! Hostile WACZ files: containers built to cost memory, time or trust. Each is
//! made here, highly compressible, so a few hundred KB on disk stand for hundreds of MB
//! inflated; the binary must read them in bounded memory (its peak RSS is measured),
//! keep its messages within their caps, and refuse ZIP layouts and entry names no WACZ
//! writer makes.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use zip::write::SimpleFileOptions;

use crate::util::warc_record;

/// The peak resident memory allowed to a run over a hostile WACZ: the `--memory` default
/// of the commands that sort, which the WACZ's parts read into memory must stay well
/// under.
const PEAK_RSS_LIMIT_KIB: u64 = 256 * 1024;

/// What a run printed on stderr, summarized as it is read (a run before the fixes wrote
/// a 220 MB line and 4,000,004 lines there, which the test must not hold).
#[derive(Debug, Default)]
struct Stderr {
    /// Its first 64 KiB.
    head: String,
    /// Its lines.
    lines: u64,
    /// Bytes of its longest line.
    longest: usize,
}

/// What a run of the binary did.
struct Run {
    code: i32,
    stdout: String,
    stderr: Stderr,
    /// The child's peak resident set, in KiB (`ru_maxrss` of this child alone).
    peak_kib: u64,
}

/// Runs the warcdex binary with `args` in `dir` and measures its peak RSS with `wait4`,
/// which reports the resources of that one child (RUSAGE_CHILDREN would mix in the
/// children of the tests running beside it).
// The child is reaped by `wait4` (for its rusage), not by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn run_measured(dir: &Path, args: &[&OsStr]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_warcdex"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run warcdex");
    let mut out = child.stdout.take().unwrap();
    let err = child.stderr.take().unwrap();
    let stdout = std::thread::spawn(move || {
        let mut s = Vec::new();
        out.read_to_end(&mut s).unwrap();
        String::from_utf8_lossy(&s).into_owned()
    });
    let stderr = std::thread::spawn(move || {
        let mut summary = Stderr::default();
        let mut r = BufReader::new(err);
        loop {
            // Read in pieces so a line of hundreds of MB is measured, not held.
            let mut len = 0usize;
            let mut ended = false;
            while !ended {
                let buf = r.fill_buf().unwrap();
                if buf.is_empty() {
                    break;
                }
                let (take, nl) = match buf.iter().position(|&b| b == b'\n') {
                    Some(i) => (i + 1, true),
                    None => (buf.len(), false),
                };
                if summary.head.len() < 64 * 1024 {
                    let room = 64 * 1024 - summary.head.len();
                    summary
                        .head
                        .push_str(&String::from_utf8_lossy(&buf[..take.min(room)]));
                }
                len += take;
                ended = nl;
                r.consume(take);
            }
            if len == 0 {
                break;
            }
            summary.lines += 1;
            summary.longest = summary.longest.max(len);
        }
        summary
    });
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value to be filled in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not yet waited for; both pointers are to live locals.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4: {}", std::io::Error::last_os_error());
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    Run {
        code,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
        peak_kib: usage.ru_maxrss as u64,
    }
}

/// One entry of a WACZ to build: its name, how it is stored, and its bytes written in
/// pieces (so the test never holds a big entry).
struct Part<'a> {
    name: &'a str,
    deflated: bool,
    pieces: Box<dyn Iterator<Item = Vec<u8>> + 'a>,
}

impl<'a> Part<'a> {
    fn bytes(name: &'a str, deflated: bool, bytes: Vec<u8>) -> Self {
        Part {
            name,
            deflated,
            pieces: Box::new(std::iter::once(bytes)),
        }
    }
}

/// Writes a ZIP of `parts` at `path` (deflate at the default level: the hostile parts are
/// runs of repeated bytes, which it compresses about 1000:1; level 1's fast matcher
/// compresses them 100:1 only).
fn write_zip(path: &Path, parts: Vec<Part<'_>>) {
    let mut z = zip::ZipWriter::new(File::create(path).unwrap());
    for p in parts {
        let opts = if p.deflated {
            SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated)
                .large_file(true)
        } else {
            SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored)
        };
        z.start_file(p.name, opts).unwrap();
        for piece in p.pieces {
            z.write_all(&piece).unwrap();
        }
    }
    z.finish().unwrap();
}

/// A small WARC: a titled page and an untitled one.
fn warc() -> Vec<u8> {
    [
        warc_record("http://example.org/", "<title>Own title</title>", ""),
        warc_record("http://example.org/untitled", "no title here", ""),
    ]
    .concat()
}

/// `n` pieces of 1 MiB of `byte`.
fn mib_of(byte: u8, n: usize) -> impl Iterator<Item = Vec<u8>> {
    std::iter::repeat_n(vec![byte; 1 << 20], n)
}

fn os(s: &str) -> OsString {
    OsString::from(s)
}

/// A page list whose second line is 300 MB (one title) was read whole
/// (1.86 GB peak for a 600 MB line). The line is skipped and counted with a message
/// naming the WACZ's entry and the line; the page list's other lines still title pages;
/// `import` and `update` stay under the peak limit.
#[test]
fn a_huge_page_list_line_is_skipped_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let wacz = dir.path().join("pages.wacz");
    let head = b"{\"format\": \"json-pages-1.0\", \"id\": \"pages\"}\n\
                 {\"url\": \"http://example.org/x\", \"title\": \""
        .to_vec();
    let tail =
        b"\"}\n{\"url\": \"http://example.org/untitled\", \"title\": \"From pages\"}\n".to_vec();
    let pieces = std::iter::once(head)
        .chain(mib_of(b'a', 300))
        .chain(std::iter::once(tail));
    write_zip(
        &wacz,
        vec![
            Part::bytes("archive/data.warc", false, warc()),
            Part {
                name: "pages/pages.jsonl",
                deflated: true,
                pieces: Box::new(pieces),
            },
        ],
    );
    let size = std::fs::metadata(&wacz).unwrap().len();
    assert!(size < 2 << 20, "{size} bytes");
    let manifest = dir.path().join("manifest.txt");
    std::fs::write(&manifest, format!("{}\n", wacz.display())).unwrap();

    let seg = dir.path().join("seg");
    let run = run_measured(
        dir.path(),
        &[&os("import"), manifest.as_os_str(), seg.as_os_str()],
    );
    let err = &run.stderr.head;
    assert_eq!(run.code, 0, "{err}");
    assert!(
        err.contains("pages.wacz#pages/pages.jsonl: line 2:") && err.contains("skipped"),
        "{err}"
    );
    assert!(run.stderr.longest < 1000, "{err}");
    assert!(
        run.peak_kib < PEAK_RSS_LIMIT_KIB,
        "import: peak RSS {} KiB",
        run.peak_kib
    );
    // The line after the long one still titles its page.
    let rows = warcdex::segment::rows::read_rows(&seg.join("documents.parquet"))
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let untitled = rows
        .iter()
        .find(|r| r.url == "http://example.org/untitled")
        .expect("the untitled page is imported");
    assert_eq!(untitled.title.as_deref(), Some("From pages"));

    // `update` shows the cdx stage's messages, not the import stage's (the same archive
    // problems twice): here only its memory is the point.
    let run = run_measured(dir.path(), &[&os("update"), &os("coll"), wacz.as_os_str()]);
    assert_eq!(run.code, 0, "{}", run.stderr.head);
    assert!(
        run.peak_kib < PEAK_RSS_LIMIT_KIB,
        "update: peak RSS {} KiB",
        run.peak_kib
    );
}

/// A `datapackage.json` of `resources` entries like `resource`, all naming files the WACZ
/// does not hold, in pieces.
fn package_pieces(resource: &'static str, resources: usize) -> impl Iterator<Item = Vec<u8>> {
    const BATCH: usize = 10_000;
    let head = b"{\"profile\": \"data-package\", \"resources\": [".to_vec();
    let body = (0..resources.div_ceil(BATCH)).map(move |b| {
        let n = BATCH.min(resources - b * BATCH);
        let mut s = Vec::with_capacity(n * (resource.len() + 1));
        for i in 0..n {
            if b > 0 || i > 0 {
                s.push(b',');
            }
            s.extend_from_slice(resource.as_bytes());
        }
        s
    });
    std::iter::once(head)
        .chain(body)
        .chain(std::iter::once(b"]}".to_vec()))
}

/// `cdx --verify` of a WACZ whose `datapackage.json` is 300 MB (four
/// million resources, none in the WACZ) took 1.24 GB and printed one 220 MB line;
/// `records --verify` printed 4,000,004 lines. A package that large is refused for
/// verification, in bounded memory, with one short message.
#[test]
fn a_huge_datapackage_is_refused_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let wacz = dir.path().join("package.wacz");
    let resource = r#"{"path": "archive/missing.warc.gz", "hash": "sha256:0", "bytes": 1}"#;
    write_zip(
        &wacz,
        vec![
            Part::bytes("archive/data.warc", false, warc()),
            Part {
                name: "datapackage.json",
                deflated: true,
                pieces: Box::new(package_pieces(resource, 4_500_000)),
            },
        ],
    );
    let size = std::fs::metadata(&wacz).unwrap().len();
    assert!(size < 2 << 20, "{size} bytes");

    let run = run_measured(dir.path(), &[&os("cdx"), &os("--verify"), wacz.as_os_str()]);
    let err = &run.stderr.head;
    assert_eq!(run.code, 1, "{err}");
    assert!(
        err.contains("package.wacz: not indexed, verification failed: datapackage.json:")
            && err.contains("more than the"),
        "{err}"
    );
    assert!(run.stderr.longest < 1000, "{err}");
    assert!(!run.stdout.contains("example.org"), "{}", run.stdout);
    assert!(
        run.peak_kib < PEAK_RSS_LIMIT_KIB,
        "cdx --verify: peak RSS {} KiB",
        run.peak_kib
    );

    let run = run_measured(
        dir.path(),
        &[&os("records"), &os("--verify"), wacz.as_os_str()],
    );
    assert!(run.stderr.lines < 10, "{}", run.stderr.head);
    assert!(run.stderr.longest < 1000, "{}", run.stderr.head);
    assert!(
        run.peak_kib < PEAK_RSS_LIMIT_KIB,
        "records --verify: peak RSS {} KiB",
        run.peak_kib
    );
}

/// A `datapackage.json` within the size limit can still list many
/// missing resources and echo long paths. `--max-messages` caps the problems shown (the
/// rest are counted) and every echoed path is cut.
#[test]
fn verification_problems_obey_max_messages_and_echo_caps() {
    let dir = tempfile::tempdir().unwrap();
    let wacz = dir.path().join("many.wacz");
    let long_path = format!(r#"{{"path": "archive/{}.warc.gz"}}"#, "p".repeat(1 << 20));
    let pieces = package_pieces(r#"{"path": "archive/missing.warc.gz"}"#, 50_000)
        .enumerate()
        .map(move |(i, mut p)| {
            // The long path goes first, in the list's first batch.
            if i == 1 {
                let mut first = long_path.clone().into_bytes();
                first.push(b',');
                first.append(&mut p);
                p = first;
            }
            p
        });
    write_zip(
        &wacz,
        vec![
            Part::bytes("archive/data.warc", false, warc()),
            Part {
                name: "datapackage.json",
                deflated: true,
                pieces: Box::new(pieces),
            },
        ],
    );

    let run = run_measured(
        dir.path(),
        &[
            &os("records"),
            &os("--verify"),
            &os("--max-messages"),
            &os("3"),
            wacz.as_os_str(),
        ],
    );
    let err = &run.stderr.head;
    assert!(run.stderr.lines < 10, "{} lines: {err}", run.stderr.lines);
    assert!(run.stderr.longest < 1000, "{err}");
    assert!(err.contains("and 49998 more problems"), "{err}");
    assert!(err.contains("pppp…"), "{err}");

    let run = run_measured(
        dir.path(),
        &[
            &os("cdx"),
            &os("--verify"),
            &os("--max-messages"),
            &os("3"),
            wacz.as_os_str(),
        ],
    );
    let err = &run.stderr.head;
    assert_eq!(run.code, 1, "{err}");
    assert!(run.stderr.longest < 1000, "{err}");
    assert!(
        err.contains("not indexed, verification failed:") && err.contains("and 49998 more"),
        "{err}"
    );
}

/// A stored WACZ entry's local header, name and data, for a ZIP written by hand.
fn local_entry(name: &str, data: &[u8]) -> Vec<u8> {
    let crc = crc32(data);
    let mut h = Vec::new();
    h.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
    h.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0, 0]); // version, flags, stored, time, date
    h.extend_from_slice(&crc.to_le_bytes());
    h.extend_from_slice(&(data.len() as u32).to_le_bytes());
    h.extend_from_slice(&(data.len() as u32).to_le_bytes());
    h.extend_from_slice(&(name.len() as u16).to_le_bytes());
    h.extend_from_slice(&0u16.to_le_bytes());
    h.extend_from_slice(name.as_bytes());
    h.extend_from_slice(data);
    h
}

/// A central directory entry for a stored entry of `data`, its local header at `offset`.
fn central_entry(name: &str, data: &[u8], offset: u32) -> Vec<u8> {
    let mut c = Vec::new();
    c.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
    c.extend_from_slice(&[20, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0]); // made by, needed, flags, method, time, date
    c.extend_from_slice(&crc32(data).to_le_bytes());
    c.extend_from_slice(&(data.len() as u32).to_le_bytes());
    c.extend_from_slice(&(data.len() as u32).to_le_bytes());
    c.extend_from_slice(&(name.len() as u16).to_le_bytes());
    c.extend_from_slice(&[0; 12]); // extra, comment, disk, internal, external attributes
    c.extend_from_slice(&offset.to_le_bytes());
    c.extend_from_slice(name.as_bytes());
    c
}

fn crc32(data: &[u8]) -> u32 {
    let mut h = flate2::Crc::new();
    h.update(data);
    h.sum()
}

/// A ZIP whose central directory lists `central` (name, local header offset) over the
/// one stored entry `archive/a.warc` holding `data`: the Fifield construction, where
/// several central entries share one local entry's bytes.
fn zip_with_shared_data(path: &Path, data: &[u8], central: &[&str]) {
    let mut z = local_entry("archive/a.warc", data);
    let dir_start = z.len() as u32;
    let mut dir = Vec::new();
    for name in central {
        dir.extend(central_entry(name, data, 0));
    }
    z.extend_from_slice(&dir);
    z.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    z.extend_from_slice(&[0; 4]);
    z.extend_from_slice(&(central.len() as u16).to_le_bytes());
    z.extend_from_slice(&(central.len() as u16).to_le_bytes());
    z.extend_from_slice(&(dir.len() as u32).to_le_bytes());
    z.extend_from_slice(&dir_start.to_le_bytes());
    z.extend_from_slice(&0u16.to_le_bytes());
    std::fs::write(path, z).unwrap();
}

fn warcdex(args: &[&OsStr]) -> (i32, String, String) {
    crate::util::run_warcdex(args)
}

/// Central entries that share their bytes were each inflated (10 GiB of
/// work from 263 KB). A WACZ whose entries overlap is refused, naming it and two of the
/// entries, and nothing of it is indexed.
#[test]
fn overlapping_zip_entries_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let wacz = dir.path().join("overlap.wacz");
    zip_with_shared_data(&wacz, &warc(), &["archive/a.warc", "archive/b.warc"]);
    let (code, out, err) = warcdex(&[&os("cdx"), wacz.as_os_str()]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("overlap.wacz: entries archive/a.warc and archive/b.warc overlap"),
        "{err}"
    );
    assert!(!out.contains("example.org"), "{out}");
    // The same layout with one central entry is a good WACZ: the refusal is the overlap.
    let single = dir.path().join("single.wacz");
    zip_with_shared_data(&single, &warc(), &["archive/a.warc"]);
    let (code, out, err) = warcdex(&[&os("cdx"), single.as_os_str()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.matches("example.org").count(), 2, "{out}");
}

/// An entry named `archive/..\..\evil.warc` put `..\..\evil.warc` in
/// the CDX filename field. Names a WACZ writer never makes (backslashes, `..`, absolute
/// paths, control characters) are refused, with the name shown escaped.
#[test]
fn unsafe_entry_names_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for (name, shown) in [
        (r"archive/..\..\evil.warc", r#""archive/..\\..\\evil.warc""#),
        ("archive/../evil.warc", r#""archive/../evil.warc""#),
        ("/archive/evil.warc", r#""/archive/evil.warc""#),
        (
            "archive/evil\u{1b}[2J.warc",
            r#""archive/evil\u{1b}[2J.warc""#,
        ),
    ] {
        let wacz: PathBuf = dir.path().join("names.wacz");
        write_zip(&wacz, vec![Part::bytes(name, false, warc())]);
        let (code, out, err) = warcdex(&[&os("cdx"), wacz.as_os_str()]);
        assert_eq!(code, 1, "{name}: {err}");
        assert!(
            err.contains(&format!("names.wacz: entry {shown}: unsafe name")),
            "{name}: {err}"
        );
        assert!(!out.contains("example.org"), "{name}: {out}");
    }
}
