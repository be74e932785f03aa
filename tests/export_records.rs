//! `export --format warc|wacz` writes every capture of every matching version,
//! its records taken from the archives (ARC converted, gzip members copied, plain and
//! zstd records compressed), so that the export's CDX is the matching lines of the
//! collection's `all.cdx` apart from file, offset and length; a revisit goes with the
//! record it revisits; the WACZ is WACZ 1.1.1's layout with correct hashes.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::util::{fixtures, run_warcdex, write_warc};

/// Three batches: the example crawls (ARC, `.warc.gz` with revisits, plain WARC), a zstd
/// WARC with revisits, and a WARC of new pages and one more capture of an old one.
fn collection(dir: &Path) -> PathBuf {
    let coll = dir.join("coll");
    let example = fixtures().join("example");
    let mut first: Vec<PathBuf> = std::fs::read_dir(&example)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_str().unwrap().contains("/crawl"))
        .collect();
    first.sort();
    let zstd = fixtures().join("zstd/dupes.warc.zst");
    let third = dir.join("crawl-2024.warc");
    let caps: Vec<(String, String, String)> = vec![
        (
            "http://example.net/".into(),
            "2024-03-01T10:00:00Z".into(),
            "<html><head><title>Example net</title></head><body><p>An example network, \
             with a link to <a href=\"http://example.org/\">the example org</a>.</p></body></html>"
                .into(),
        ),
        (
            "http://example.net/".into(),
            "2024-03-02T10:00:00Z".into(),
            "<html><head><title>Example net</title></head><body><p>An example network, \
             with a link to <a href=\"http://example.org/\">the example org</a>.</p></body></html>"
                .into(),
        ),
    ];
    write_warc(&third, &caps);
    let mut batches: Vec<Vec<PathBuf>> = vec![first, vec![zstd], vec![third]];
    for archives in batches.drain(..) {
        let mut args: Vec<&std::ffi::OsStr> = vec!["update".as_ref(), coll.as_os_str()];
        args.extend(archives.iter().map(|p| p.as_os_str()));
        let (code, _, err) = run_warcdex(&args);
        assert_eq!(code, 0, "{err}");
    }
    coll
}

/// A CDX11 line without its length, offset and filename (the last three fields).
fn without_place(line: &str) -> String {
    let f: Vec<&str> = line.split(' ').collect();
    f[..f.len() - 3].join(" ")
}

/// The lines of `all.cdx` that are captures of the versions the query matches (by the
/// JSON lines export: URL key, digest, dates), without their place.
fn expected_lines(coll: &Path, query: &str, extra: &[&str]) -> Vec<String> {
    let dir = coll.to_str().unwrap();
    let mut args = vec!["export", "-d", dir, "--format", "jsonl"];
    args.extend_from_slice(extra);
    args.push(query);
    let (code, jsonl, err) = run_warcdex(&args);
    assert_eq!(code, 0, "{err}");
    let mut captures = BTreeSet::new();
    for l in jsonl.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        // Every version here is of a 200 (the index's stored status).
        assert_eq!(v["status"], 200, "{l}");
        let surt = v["surt"].as_str().unwrap();
        let digest = v["digest"].as_str().unwrap().trim_start_matches("sha1:");
        for d in v["dates"].as_array().unwrap() {
            let d = d.as_str().unwrap();
            captures.insert((surt.to_string(), digest.to_string(), d.to_string()));
        }
    }
    let all = std::fs::read_to_string(coll.join("all.cdx")).unwrap();
    let mut want: Vec<String> = (all.lines().skip(1))
        .filter(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            captures.contains(&(f[0].to_string(), f[5].to_string(), f[1].to_string()))
        })
        .map(without_place)
        .collect();
    want.sort();
    want
}

/// The CDX11 lines of an archive (`warcdex cdx`, pywb's lines), without their place.
fn cdx_of(archive: &Path) -> Vec<String> {
    let (code, out, err) = run_warcdex(&["cdx", archive.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let mut lines: Vec<String> = out.lines().skip(1).map(without_place).collect();
    lines.sort();
    lines
}

fn export(coll: &Path, format: &str, out: &Path, extra: &[&str], query: &str) -> String {
    let dir = coll.to_str().unwrap();
    let mut args = vec!["export", "-d", dir, "--format", format, "-o"];
    args.push(out.to_str().unwrap());
    args.extend_from_slice(extra);
    args.push(query);
    let (code, _, err) = run_warcdex(&args);
    assert_eq!(code, 0, "{err}");
    err
}

#[test]
fn a_warc_export_holds_the_matching_captures_of_all_cdx() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = collection(tmp.path());
    for q in ["example", "news", "example as-of:20071003", "network"] {
        let out = tmp.path().join("out.warc.gz");
        let err = export(&coll, "warc", &out, &[], q);
        let want = expected_lines(&coll, q, &[]);
        assert!(!want.is_empty(), "{q}");
        assert_eq!(cdx_of(&out), want, "{q}: {err}");
    }
    // Every way a record is stored went through: "example" reaches ARC, gzip, plain
    // and zstd WARC records.
    let out = tmp.path().join("example.warc.gz");
    let err = export(&coll, "warc", &out, &[], "example");
    for how in [
        "copied",
        "compressed",
        "recompressed from zstd",
        "converted from ARC",
    ] {
        assert!(err.contains(how), "{how}: {err}");
    }
    assert!(err.contains("0 captures left out"), "{err}");
    // Each record is one gzip member; the first is the export's warcinfo.
    let bytes = std::fs::read(&out).unwrap();
    let mut gz = flate2::read::MultiGzDecoder::new(&bytes[..]);
    let mut text = Vec::new();
    gz.read_to_end(&mut text).unwrap();
    let text = String::from_utf8_lossy(&text);
    assert!(
        text.starts_with("WARC/1.0\r\nWARC-Type: warcinfo\r\n"),
        "{text}"
    );
    // A gzip member of the collection's `.warc.gz` is copied byte for byte.
    let source = std::fs::read(fixtures().join("example/crawl4-20071004.warc.gz")).unwrap();
    let all = std::fs::read_to_string(coll.join("all.cdx")).unwrap();
    let line = (all.lines())
        .find(|l| l.ends_with("crawl4-20071004.warc.gz") && l.contains(" text/html "))
        .unwrap();
    let f: Vec<&str> = line.split(' ').collect();
    let (len, off): (usize, usize) = (f[8].parse().unwrap(), f[9].parse().unwrap());
    let member = &source[off..off + len];
    assert!(
        bytes.windows(member.len()).any(|w| w == member),
        "the member of {line} is not in the export"
    );
}

#[test]
fn a_revisit_goes_with_the_record_it_revisits_and_rules_keep_the_rest_out() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = collection(tmp.path());
    // The about page's two responses are blocked, its revisit of 2007-10-05 is not; the
    // news page is blocked whole.
    let rules = tmp.path().join("rules.aclj");
    std::fs::write(
        &rules,
        "org,example)/news.html - {\"access\": \"block\"}\n\
         org,example)/about.html - {\"access\": \"block\", \"before\": \"20071003\"}\n",
    )
    .unwrap();
    let acl = ["--acl", rules.to_str().unwrap()];
    let out = tmp.path().join("about.warc.gz");
    let err = export(&coll, "warc", &out, &acl, "title:about OR title:news");
    let got = cdx_of(&out);
    let mut want = expected_lines(&coll, "title:about OR title:news", &acl);
    assert!(
        want.iter().all(|l| l.contains(" warc/revisit ")) && want.len() == 1,
        "{want:?}"
    );
    // The record the revisit needs: the version's first capture with a payload.
    want.push(
        "org,example)/about.html 20071001120100 http://example.org/about.html text/html 200 \
         LLNFXU4SCMETNWECK6B4QM3EJAMNQLHX - -"
            .into(),
    );
    want.sort();
    assert_eq!(got, want, "{err}");
    assert!(err.contains("1 revisited records added"), "{err}");
}

fn zip_entry(zip: &mut zip::ZipArchive<std::fs::File>, name: &str) -> (Vec<u8>, bool) {
    let mut f = zip.by_name(name).unwrap();
    let stored = f.compression() == zip::CompressionMethod::Stored;
    let mut v = Vec::new();
    f.read_to_end(&mut v).unwrap();
    (v, stored)
}

#[test]
fn a_wacz_export_packs_the_warc_its_index_and_pages() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = collection(tmp.path());
    let out = tmp.path().join("example.wacz");
    export(&coll, "wacz", &out, &[], "example");
    let mut zip = zip::ZipArchive::new(std::fs::File::open(&out).unwrap()).unwrap();
    let (warc, stored) = zip_entry(&mut zip, "archive/data.warc.gz");
    assert!(
        stored,
        "a replayer reads the WARC by range: it is stored, not deflated"
    );
    let warc_path = tmp.path().join("data.warc.gz");
    std::fs::write(&warc_path, &warc).unwrap();
    assert_eq!(cdx_of(&warc_path), expected_lines(&coll, "example", &[]));
    // The index is the WARC's CDXJ, sorted.
    let (index, _) = zip_entry(&mut zip, "indexes/index.cdx");
    let (code, cdxj, err) = run_warcdex(&["cdx", "--format", "cdxj", warc_path.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let mut want: Vec<&str> = cdxj.lines().collect();
    want.sort();
    assert_eq!(String::from_utf8(index).unwrap(), want.join("\n") + "\n");
    // One page a version of an HTML page, after the header line.
    let (pages, _) = zip_entry(&mut zip, "pages/pages.jsonl");
    let pages = String::from_utf8(pages).unwrap();
    let mut lines = pages.lines();
    let head: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(head["format"], "json-pages-1.0");
    let entries: Vec<serde_json::Value> = lines.map(|l| serde_json::from_str(l).unwrap()).collect();
    let (_, csv, _) = run_warcdex(&[
        "export",
        "-d",
        coll.to_str().unwrap(),
        "--fields",
        "url,mime,first_date",
        "example",
    ]);
    let html: Vec<&str> = (csv.lines().skip(1))
        .filter(|l| l.contains(",text/html,"))
        .collect();
    assert_eq!(entries.len(), html.len(), "{pages}");
    assert!(entries
        .iter()
        .any(|e| e["url"] == "http://www.example.org/index.html"
            && e["ts"] == "2007-10-01T12:00:00Z"
            && e["title"] == "Example A"));
    // datapackage.json lists every other file with its size and SHA-256.
    let (package, _) = zip_entry(&mut zip, "datapackage.json");
    let p: serde_json::Value = serde_json::from_slice(&package).unwrap();
    assert_eq!(p["wacz_version"], "1.1.1");
    assert_eq!(p["profile"], "data-package");
    let resources = p["resources"].as_array().unwrap();
    assert_eq!(resources.len(), 3);
    for r in resources {
        let (bytes, _) = zip_entry(&mut zip, r["path"].as_str().unwrap());
        assert_eq!(r["bytes"].as_u64().unwrap(), bytes.len() as u64);
        let hash = format!(
            "sha256:{}",
            data_encoding::HEXLOWER.encode(&Sha256::digest(&bytes))
        );
        assert_eq!(r["hash"].as_str().unwrap(), hash);
    }
    let (digest, _) = zip_entry(&mut zip, "datapackage-digest.json");
    let d: serde_json::Value = serde_json::from_slice(&digest).unwrap();
    assert_eq!(
        d["hash"].as_str().unwrap(),
        format!(
            "sha256:{}",
            data_encoding::HEXLOWER.encode(&Sha256::digest(&package))
        )
    );
}

#[test]
fn serve_exports_the_same_warc_and_wacz() {
    use crate::util::http::request;
    let tmp = tempfile::tempdir().unwrap();
    let coll = collection(tmp.path());
    let addr = crate::util::start_in_process(&coll, warcdex::serve::ServeOptions::default());
    let warc = request(&addr, "GET", "/export?query=example&format=warc", "");
    assert_eq!(warc.status, 200);
    assert_eq!(warc.header("content-type"), Some("application/warc"));
    assert!(warc
        .header("content-disposition")
        .unwrap()
        .contains("export.warc.gz"));
    let path = tmp.path().join("served.warc.gz");
    std::fs::write(&path, &warc.body).unwrap();
    assert_eq!(cdx_of(&path), expected_lines(&coll, "example", &[]));
    let wacz = request(&addr, "GET", "/export?query=news&format=wacz", "");
    assert_eq!(wacz.status, 200);
    let path = tmp.path().join("served.wacz");
    std::fs::write(&path, &wacz.body).unwrap();
    let mut zip = zip::ZipArchive::new(std::fs::File::open(&path).unwrap()).unwrap();
    let (inner, _) = zip_entry(&mut zip, "archive/data.warc.gz");
    let inner_path = tmp.path().join("inner.warc.gz");
    std::fs::write(&inner_path, inner).unwrap();
    assert_eq!(cdx_of(&inner_path), expected_lines(&coll, "news", &[]));
}

/// A collection of 200 pages of about 200 KiB each (40 MB of archive), all of them
/// holding "zeppelin", the rest pseudo-random words so that the export's gzip takes a
/// while; built once for the tests of the WACZ export's packing folder.
fn big_collection() -> &'static Path {
    static BIG: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BIG.get_or_init(|| {
        // In cargo's folder for the tests' files, not the system's temporary folder: a
        // static is never dropped, and this one copy is replaced by the next run.
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("issue56-big-wacz");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut word = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let n = 3 + (state % 7) as usize;
            (0..n)
                .map(|i| (b'a' + ((state >> (5 * i)) % 26) as u8) as char)
                .collect::<String>()
        };
        let caps: Vec<(String, String, String)> = (0..200)
            .map(|i| {
                let mut body = String::with_capacity(210 << 10);
                body.push_str("<html><head><title>Zeppelin</title></head><body><p>zeppelin ");
                while body.len() < 200 << 10 {
                    body.push_str(&word());
                    body.push(' ');
                }
                body.push_str("</p></body></html>");
                (
                    format!("http://big.example.org/page{i}"),
                    "2024-05-01T10:00:00Z".to_string(),
                    body,
                )
            })
            .collect();
        let warc = dir.join("big.warc");
        write_warc(&warc, &caps);
        let coll = dir.join("coll");
        let (code, _, err) = run_warcdex(&[Path::new("update"), &coll, &warc]);
        assert_eq!(code, 0, "{err}");
        coll
    })
}

/// The temporaries of ours in `dir` (files and folders named `.warcdex-…`).
fn temporaries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".warcdex-"))
        .collect();
    v.sort();
    v
}

/// The first folder of ours in `dir` holding the WACZ's WARC with some bytes in it.
fn packing_folder(dir: &Path) -> Option<PathBuf> {
    (std::fs::read_dir(dir).ok()?)
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(".warcdex-")
        })
        .find(|p| std::fs::metadata(p.join("data.warc.gz")).is_ok_and(|m| m.len() > 0))
}

/// The packing folder of a killed `export --format wacz -o F` is
/// removed by the next export into F's folder.
#[test]
fn a_killed_wacz_export_leaves_nothing_after_the_next() {
    let coll = big_collection();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_warcdex"))
        .args(["export", "-d"])
        .arg(coll)
        .args(["--format", "wacz", "-o"])
        .arg(out.join("first.wacz"))
        .arg("zeppelin")
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while packing_folder(&out).is_none() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(120),
            "no packing folder appeared in {}: {:?}",
            out.display(),
            temporaries(&out)
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        packing_folder(&out).is_some(),
        "the killed export left no packing folder: {:?}",
        temporaries(&out)
    );
    export(coll, "wacz", &out.join("second.wacz"), &[], "zeppelin");
    assert!(out.join("second.wacz").metadata().unwrap().len() > 1 << 20);
    assert_eq!(temporaries(&out), Vec::<String>::new());
}

/// `/export?format=wacz` past the temporary space allowed is a 507
/// saying so, and leaves nothing behind.
#[test]
fn a_served_wacz_export_past_its_temporary_space_is_refused() {
    use crate::util::http::request;
    let coll = big_collection();
    let tmp = tempfile::tempdir().unwrap();
    let opts = warcdex::serve::ServeOptions {
        export_tmp_dir: Some(tmp.path().to_path_buf()),
        export_tmp_limit: Some(4 << 20),
        ..warcdex::serve::ServeOptions::default()
    };
    let addr = crate::util::start_in_process(coll, opts);
    let r = request(&addr, "GET", "/export?query=zeppelin&format=wacz", "");
    assert_eq!(r.status, 507, "{}", r.text());
    assert!(
        r.text()
            .contains("more than 4194304 bytes of temporary space"),
        "{}",
        r.text()
    );
    assert_eq!(temporaries(tmp.path()), Vec::<String>::new());
}

/// A client that goes away while its WACZ is being packed stops the
/// packing: no index or package is made after, and the folder goes.
#[test]
fn a_served_wacz_export_stops_when_its_client_goes() {
    use std::io::Write;
    let coll = big_collection();
    let tmp = tempfile::tempdir().unwrap();
    let opts = warcdex::serve::ServeOptions {
        export_tmp_dir: Some(tmp.path().to_path_buf()),
        ..warcdex::serve::ServeOptions::default()
    };
    let addr = crate::util::start_in_process(coll, opts);
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    write!(
        s,
        "GET /export?query=zeppelin&format=wacz HTTP/1.1\r\nHost: x\r\n\r\n"
    )
    .unwrap();
    let started = std::time::Instant::now();
    let folder = loop {
        if let Some(f) = packing_folder(tmp.path()) {
            break f;
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(120));
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    drop(s);
    let gone = std::time::Instant::now();
    while folder.exists() {
        for later in ["index.cdx", "export.wacz"] {
            assert!(
                !folder.join(later).exists(),
                "{later} was made after the client went away"
            );
        }
        assert!(
            gone.elapsed() < std::time::Duration::from_secs(60),
            "the packing folder is still there"
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    assert_eq!(temporaries(tmp.path()), Vec::<String>::new());
}
