//! Damaged gzip members: the damage is reported with
//! its offset and counted, reading resumes at the next gzip member, the records in the
//! damaged member are counted as lost, and nothing panics. The archives are built here
//! with flate2, so each test shows the exact bytes it damages.

use std::io::Write;
use std::process::{Command, Stdio};

use flate2::write::GzEncoder;
use flate2::Compression;
use warcdex::import::manifest::ManifestEntry;
use warcdex::import::{import_archives, ImportOptions};
use warcdex::segment::layout::SourceReport;
use warcdex::segment::SegmentRow;

use crate::util::{fixtures, records_at_every_read_size, records_of_bytes, warc_record};

fn gz_with(data: &[u8], level: Compression) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), level);
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn gz(data: &[u8]) -> Vec<u8> {
    gz_with(data, Compression::default())
}

/// `n` one-record members; returns the file and each member's start offset.
fn members(n: usize) -> (Vec<u8>, Vec<usize>) {
    let mut file = Vec::new();
    let mut starts = Vec::new();
    for i in 0..n {
        starts.push(file.len());
        let body = format!(
            "<html><title>page {i}</title>{}</html>",
            "text ".repeat(20 + i)
        );
        file.extend(gz(&warc_record(
            &format!("http://example.org/{i}"),
            &body,
            "",
        )));
    }
    (file, starts)
}

fn uris(out: &str) -> Vec<String> {
    out.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["warc-target-uri"].as_str().unwrap_or("").to_string()
        })
        .collect()
}

/// Reads `bytes` at every read size; all must agree. Returns the target URIs read and
/// the anomaly counts as text.
fn read_all_sizes(bytes: &[u8]) -> (Vec<String>, String) {
    let (want, report) = records_at_every_read_size(bytes);
    assert!(
        report.error.is_none(),
        "no error expected: {:?}",
        report.error
    );
    (uris(&want), report.counts.to_string())
}

fn count_of(counts: &str, name: &str) -> u64 {
    counts
        .split(", ")
        .find_map(|p| p.strip_prefix(&format!("{name} ")))
        .map_or(0, |n| n.parse().unwrap())
}

/// Reads `file` at every read size: `kept` are the records read, and exactly one gzip
/// member was damaged and one record lost (`what` names the case in a failure).
fn assert_one_member_lost(file: &[u8], kept: &[&str], what: &str) {
    let (u, counts) = read_all_sizes(file);
    assert_eq!(u, kept, "{what} {counts}");
    assert_eq!(
        count_of(&counts, "damaged-gzip-member"),
        1,
        "{what} {counts}"
    );
    assert_eq!(count_of(&counts, "lost-record"), 1, "{what} {counts}");
}

/// The crc1.warc.gz: two one-record members, one bit of member 1's CRC-32 flipped.
fn crc1() -> Vec<u8> {
    let m1 = gz(&warc_record("http://example.org/one", "first", ""));
    let m2 = gz(&warc_record("http://example.org/two", "second", ""));
    let mut bad = m1.clone();
    let n = bad.len();
    bad[n - 8] ^= 1;
    bad.extend(m2);
    bad
}

#[test]
fn crc_flip_in_first_member_keeps_the_second_record() {
    assert_one_member_lost(&crc1(), &["http://example.org/two"], "");
}

#[test]
fn isize_mismatch_is_damage_with_an_exact_resume() {
    let (mut file, starts) = members(3);
    let end1 = starts[1];
    file[end1 - 1] ^= 0x10; // ISIZE's high byte of member 1 (index 0)
    assert_one_member_lost(&file, &["http://example.org/1", "http://example.org/2"], "");
}

#[test]
fn broken_deflate_in_the_middle_member_resyncs_by_scanning() {
    let (mut file, starts) = members(3);
    // BFINAL=1, BTYPE=11 (reserved): the deflate stream is invalid at its first byte.
    file[starts[1] + 10] = 0x07;
    assert_one_member_lost(&file, &["http://example.org/0", "http://example.org/2"], "");
}

/// A stored block whose LEN (and NLEN) were changed makes the decoder read on into the
/// next member: the scan must restart at the damaged member's start, not where the
/// decoder stopped, or the next member is lost too.
#[test]
fn a_member_whose_decoder_overran_into_the_next_is_not_lost() {
    let m0 = gz(&warc_record("http://example.org/0", "zero", ""));
    let mut m1 = gz_with(
        &warc_record("http://example.org/1", "one", ""),
        Compression::none(),
    );
    let m2 = gz(&warc_record("http://example.org/2", "two", ""));
    // Member header (10 bytes), then the stored block: 0x01, LEN, NLEN.
    assert_eq!(m1[10] & 0x06, 0, "flate2 wrote a stored block");
    let len = u16::from_le_bytes([m1[11], m1[12]]) + 40;
    m1[11..13].copy_from_slice(&len.to_le_bytes());
    m1[13..15].copy_from_slice(&(!len).to_le_bytes());
    let file = [m0, m1, m2].concat();
    let (u, counts) = read_all_sizes(&file);
    assert_eq!(
        u,
        ["http://example.org/0", "http://example.org/2"],
        "{counts}"
    );
    assert_eq!(count_of(&counts, "lost-record"), 1, "{counts}");
}

#[test]
fn bad_gzip_header_in_the_middle() {
    for (at, value) in [(1, 0x8c), (2, 9)] {
        let (mut file, starts) = members(3);
        file[starts[1] + at] = value;
        assert_one_member_lost(
            &file,
            &["http://example.org/0", "http://example.org/2"],
            &format!("byte {at}"),
        );
    }
}

/// The first member's magic damaged: the file is still read as gzip, from member 2.
#[test]
fn bad_magic_in_the_first_member() {
    for at in [0, 1] {
        let (mut file, _) = members(3);
        file[at] ^= 0x40;
        assert_one_member_lost(
            &file,
            &["http://example.org/1", "http://example.org/2"],
            &format!("byte {at}"),
        );
    }
}

#[test]
fn damage_in_the_last_member() {
    let (mut file, _) = members(3);
    let n = file.len();
    file[n - 6] ^= 0x80; // CRC-32 of the last member
    assert_one_member_lost(&file, &["http://example.org/0", "http://example.org/1"], "");
}

/// The pywb example (one member per record): a flipped CRC bit in member k loses record
/// k only; every other record is read exactly as in the undamaged file.
#[test]
fn crc_flip_in_each_member_of_a_real_archive_loses_one_record() {
    let bytes = std::fs::read(fixtures().join("warc/example.warc.gz")).unwrap();
    let (good, _) = records_of_bytes(&bytes, 4096);
    let lines: Vec<&str> = good.lines().collect();
    let spans: Vec<(usize, usize)> = lines
        .iter()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let o: usize = v["offset"].as_str().unwrap().parse().unwrap();
            let n: usize = v["length"].as_str().unwrap().parse().unwrap();
            (o, n)
        })
        .collect();
    for (k, (o, n)) in spans.iter().enumerate() {
        let mut bad = bytes.clone();
        bad[o + n - 8] ^= 1;
        let (out, report) = records_of_bytes(&bad, 4096);
        let mut want = lines.clone();
        want.remove(k);
        assert_eq!(out.lines().collect::<Vec<_>>(), want, "member {k}");
        let counts = report.counts.to_string();
        assert_eq!(count_of(&counts, "lost-record"), 1, "member {k}: {counts}");
        assert_eq!(count_of(&counts, "damaged-gzip-member"), 1, "{counts}");
    }
}

/// A whole-file gzip damaged half-way: what came before is kept, the rest of that member
/// is lost (counted), and a member after it is read.
#[test]
fn whole_file_gzip_damaged_midway_resumes_at_the_next_member() {
    let mut bytes = std::fs::read(fixtures().join("bad/whole-file-gzip.warc.gz")).unwrap();
    let mid = bytes.len() / 2;
    for b in &mut bytes[mid..mid + 16] {
        *b = 0xff;
    }
    bytes.extend(gz(&warc_record("http://example.org/after", "after", "")));
    let (out, report) = records_of_bytes(&bytes, 4096);
    assert!(report.error.is_none(), "{:?}", report.error);
    let u = uris(&out);
    assert_eq!(
        u.last().map(String::as_str),
        Some("http://example.org/after")
    );
    assert!(u.len() < 7, "{u:?}");
    let counts = report.counts.to_string();
    assert_eq!(count_of(&counts, "damaged-gzip-member"), 1, "{counts}");
    assert!(count_of(&counts, "lost-record") >= 1, "{counts}");
}

/// Every byte of every gzip fixture replaced in turn: no panic, an error only with an
/// offset, and at most the records of the whole file plus the damage counted.
#[test]
fn gzip_fixtures_with_each_byte_damaged() {
    for name in [
        "warc/example.warc.gz",
        "warc/wget-fextra.warc.gz",
        "warc/empty-gzip-members.warc.gz",
        "arc/example.arc.gz",
        "bad/whole-file-gzip.warc.gz",
        "bad/content-length-long.warc.gz",
    ] {
        let bytes = std::fs::read(fixtures().join(name)).unwrap();
        let (good, _) = records_of_bytes(&bytes, 4096);
        let count = good.lines().count();
        for at in 0..bytes.len() {
            for flip in [0x01u8, 0xff] {
                let mut bad = bytes.clone();
                bad[at] ^= flip;
                let (out, report) = records_of_bytes(&bad, 4096);
                let n = out.lines().count();
                assert!(n <= count + 1, "{name} byte {at}: {n} records > {count}");
                if let Some(e) = &report.error {
                    assert!(e.offset().is_some(), "{name} byte {at}: {e}");
                }
            }
        }
    }
}

fn warcdex(args: &[&str], stdin: Option<&[u8]>) -> (i32, Vec<u8>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_warcdex"))
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run warcdex");
    if let Some(input) = stdin {
        child.stdin.take().unwrap().write_all(input).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn cli_reports_damage_with_file_and_offset_and_strict_fails() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("crc1.warc.gz");
    std::fs::write(&f, crc1()).unwrap();
    let f = f.to_str().unwrap();
    for cmd in ["records", "cdx"] {
        let (code, out, err) = warcdex(&[cmd, "--strict", f], None);
        assert_eq!(code, 1, "{cmd} --strict: {err}");
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("example.org/two"), "{cmd}: {out}");
        assert!(!out.contains("example.org/one"), "{cmd}: {out}");
        assert!(
            err.contains(&format!("{f}: offset 0: damaged-gzip-member")),
            "{cmd}: {err}"
        );
        let (code, _, err) = warcdex(&[cmd, f], None);
        assert_eq!(code, 0, "{cmd}: {err}");
        assert!(err.contains("lost-record 1"), "{cmd}: {err}");
    }
}

#[test]
fn records_and_cdx_read_stdin() {
    for name in ["warc/example.warc.gz", "bad/garbage-between-records.warc"] {
        let path = fixtures().join(name);
        let p = path.to_str().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let (code, from_file, err) = warcdex(&["records", p], None);
        assert_eq!(code, 0, "{err}");
        let (code, from_stdin, err) = warcdex(&["records", "-"], Some(&bytes));
        assert_eq!(code, 0, "{name}: {err}");
        assert_eq!(from_stdin, from_file, "{name}");
        let (code, from_file, err) = warcdex(&["cdx", p], None);
        assert_eq!(code, 0, "{err}");
        let (code, from_stdin, err) = warcdex(&["cdx", "-"], Some(&bytes));
        assert_eq!(code, 0, "{name}: {err}");
        let base = path.file_name().unwrap().to_str().unwrap();
        let want = String::from_utf8(from_file).unwrap().replace(base, "-");
        assert_eq!(String::from_utf8(from_stdin).unwrap(), want, "{name}");
        assert!(want.lines().count() > 1, "{want}");
    }
}

/// `import` of one archive, with default options and no exclusions.
fn import_file(path: std::path::PathBuf) -> (Vec<SegmentRow>, Vec<SourceReport>) {
    let entries = [ManifestEntry {
        path,
        collection: None,
        line: 1,
    }];
    import_archives(&entries, None, &ImportOptions::default(), &|_| {}, &|_| {}).unwrap()
}

/// A damaged member reaches import through the reader: counted, not fatal, and the
/// records after it are imported.
#[test]
fn import_counts_damage_and_reads_on() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("crc1.warc.gz");
    std::fs::write(&f, crc1()).unwrap();
    let (rows, reports) = import_file(f);
    assert_eq!(reports[0].error, None);
    assert_eq!(reports[0].anomalies.get("damaged-gzip-member"), Some(&1));
    assert_eq!(reports[0].anomalies.get("lost-record"), Some(&1));
    let urls: Vec<&str> = rows.iter().map(|r| r.url.as_str()).collect();
    assert_eq!(urls, ["http://example.org/two"]);
}

/// Item 5: a WARC-Payload-Digest with a multi-byte character in its first five bytes
/// panicked import (a str sliced inside a character).
#[test]
fn import_survives_a_non_ascii_payload_digest() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("digest.warc");
    let mut bytes = warc_record(
        "http://example.org/d",
        "<html>d</html>",
        "WARC-Payload-Digest: sha1\u{e9}ABCDEFGHIJKLMNOPQRSTUVWXYZ234567\r\n",
    );
    bytes.extend(warc_record("http://example.org/e", "<html>e</html>", ""));
    std::fs::write(&f, &bytes).unwrap();
    let (rows, reports) = import_file(f);
    assert_eq!(reports[0].error, None);
    assert_eq!(rows.len(), 2);
}

/// Item 17: a NUL byte in a target URI is percent-encoded in the key and the URL field,
/// never written raw.
#[test]
fn nul_in_target_uri_is_percent_encoded_in_cdx() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("nul.warc");
    std::fs::write(
        &f,
        warc_record("http://example.org/a\0b", "<html>x</html>", ""),
    )
    .unwrap();
    let f = f.to_str().unwrap();
    for format in ["cdx11", "cdxj"] {
        let (code, out, err) = warcdex(&["cdx", "--format", format, f], None);
        assert_eq!(code, 0, "{err}");
        assert!(!out.contains(&0u8), "{format}: raw NUL in {out:?}");
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("org,example)/a%00b "), "{format}: {out}");
        // cdxj-indexer's JSON escapes the NUL itself (`\u0000`); the classic layouts
        // have no escaping, so the URL field gets `%00`.
        let url = if format == "cdxj" {
            "\"http://example.org/a\\u0000b\""
        } else {
            " http://example.org/a%00b "
        };
        assert!(out.contains(url), "{format}: {out}");
    }
}
