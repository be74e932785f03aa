//! `/warcs/NAME`: a collection's archives over HTTP for replay tools. Whole files and
//! byte ranges equal the bytes on disk, a record read at its offset and length from
//! `all.cdx` is exactly that record, names are looked up and never used as paths, a
//! collection grown by `update` is served without a restart, and hostile clients (one
//! that stops reading, malformed or countless ranges) do not hold the server.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::util::http::{request, Answer};
use crate::util::{assert_closed_by_server, fixtures, run_warcdex, start_in_process};
use warcdex::serve::{ConnLimits, ServeOptions};

fn get(addr: &str, path: &str) -> Answer {
    request(addr, "GET", path, "")
}

fn get_range(addr: &str, path: &str, range: &str) -> Answer {
    request(addr, "GET", path, format!("Range: {range}\r\n"))
}

fn update(dir: &Path, archives: &[PathBuf]) {
    let mut args: Vec<std::ffi::OsString> = vec![
        "update".into(),
        dir.into(),
        "--collection-name".into(),
        "c".into(),
    ];
    args.extend(archives.iter().map(|p| p.into()));
    let (code, _, err) = run_warcdex(&args);
    assert_eq!(code, 0, "update: {err}");
}

/// The collection the tests serve: a first batch of archives outside the collection
/// (recorded by absolute path): the example's WARCs and a pywb fixture of many gzip
/// members.
fn first_batch(dir: &Path) {
    let ex = fixtures().join("example");
    update(
        dir,
        &[
            ex.join("crawl4-20071004.warc.gz"),
            ex.join("crawl5-20071005.warc"),
            fixtures().join("corpus/real/pywb-2.10.0/warcs/iana.warc.gz"),
        ],
    );
}

/// The second batch: the example's ARCs copied into the collection (recorded by a path
/// relative to it).
fn second_batch(dir: &Path) {
    let inside = dir.join("warcs");
    std::fs::create_dir_all(&inside).unwrap();
    let mut copies = Vec::new();
    for n in [
        "crawl1-20071001.arc",
        "crawl2-20071002.arc",
        "crawl3-20071003.arc",
    ] {
        std::fs::copy(fixtures().join("example").join(n), inside.join(n)).unwrap();
        copies.push(inside.join(n));
    }
    update(dir, &copies);
}

/// The collection's archives as recorded: name and path.
fn recorded(dir: &Path) -> Vec<(String, String)> {
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("collection.json")).unwrap()).unwrap();
    m["archives"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["name"].as_str().unwrap().to_string(),
                a["path"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The bytes of a recorded archive, read from the disk.
fn on_disk(dir: &Path, name: &str) -> Vec<u8> {
    let (_, path) = recorded(dir).into_iter().find(|(n, _)| n == name).unwrap();
    std::fs::read(dir.join(path)).unwrap()
}

fn assert_part(a: &Answer, file: &[u8], start: usize, end: usize) {
    assert_eq!(a.status, 206, "{}", String::from_utf8_lossy(&a.body));
    let size = file.len();
    assert_eq!(
        a.header("content-range"),
        Some(format!("bytes {start}-{end}/{size}").as_str())
    );
    assert_eq!(
        a.header("content-length"),
        Some((end - start + 1).to_string().as_str())
    );
    assert!(a.body == file[start..=end], "bytes {start}-{end} differ");
}

/// Whole files and ranges equal the files; records at their CDX offsets; HEAD; names
/// that are not recorded (a path, an escape, another file of the collection) are 404;
/// archives added by a second `update` are served without a restart.
#[test]
fn archives_whole_ranges_records_and_names() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    first_batch(dir);
    let addr = start_in_process(dir, ServeOptions::default());

    let iana = on_disk(dir, "iana.warc.gz");
    let a = get(&addr, "/warcs/iana.warc.gz");
    assert_eq!(a.status, 200);
    assert_eq!(a.header("accept-ranges"), Some("bytes"));
    assert_eq!(a.header("content-type"), Some("application/octet-stream"));
    assert_eq!(
        a.header("content-length"),
        Some(iana.len().to_string().as_str())
    );
    assert!(a.body == iana, "the whole file differs from the disk's");

    let n = iana.len();
    let path = "/warcs/iana.warc.gz";
    assert_part(&get_range(&addr, path, "bytes=0-99"), &iana, 0, 99);
    // Across the server's read pieces (128 KiB).
    let (s, e) = (100_000, 400_000);
    assert_part(
        &get_range(&addr, path, &format!("bytes={s}-{e}")),
        &iana,
        s,
        e,
    );
    assert_part(&get_range(&addr, path, "bytes=-500"), &iana, n - 500, n - 1);
    assert_part(
        &get_range(&addr, path, "bytes=700000-"),
        &iana,
        700_000,
        n - 1,
    );
    assert_part(
        &get_range(&addr, path, &format!("bytes={}-{}", n - 1, n + 1000)),
        &iana,
        n - 1,
        n - 1,
    );

    // Past the end, and malformed.
    for range in [format!("bytes={n}-"), "bytes=5-2".into(), "bytes=x".into()] {
        let a = get_range(&addr, path, &range);
        assert_eq!(a.status, 416, "{range}");
        assert_eq!(
            a.header("content-range"),
            Some(format!("bytes */{n}").as_str()),
            "{range}"
        );
    }

    // HEAD: the headers of GET, no body.
    let h = request(&addr, "HEAD", path, "");
    assert_eq!(h.status, 200);
    assert_eq!(h.header("content-length"), Some(n.to_string().as_str()));
    assert!(h.body.is_empty());
    let h = request(&addr, "HEAD", path, "Range: bytes=10-19\r\n");
    assert_eq!(h.status, 206);
    assert_eq!(
        h.header("content-range"),
        Some(format!("bytes 10-19/{n}").as_str())
    );
    assert!(h.body.is_empty());

    // Not recorded: unknown, escapes, other files of the collection's directory.
    for p in [
        "/warcs/nothing.warc.gz",
        "/warcs/..%2F..%2Fetc%2Fpasswd",
        "/warcs/..%2Fcollection.json",
        "/warcs/%2Fetc%2Fpasswd",
        "/warcs/collection.json",
        "/warcs/all.cdx",
        "/warcs/..",
        "/warcs/iana.warc.gz%00",
        "/warcs/iana.warc.gz%2F",
        "/warcs/IANA.WARC.GZ",
        "/warcs/",
        "/warcs",
        "/warcs/../collection.json",
        "/warcs/x/iana.warc.gz",
    ] {
        let a = get(&addr, p);
        assert!(
            a.status == 404 || a.status == 400,
            "{p}: {} {}",
            a.status,
            String::from_utf8_lossy(&a.body)
        );
        assert!(
            !a.body.starts_with(b"{") && !a.body.starts_with(b"WARC"),
            "{p}"
        );
    }
    // The archives of the second batch are not there yet...
    assert_eq!(get(&addr, "/warcs/crawl1-20071001.arc").status, 404);
    second_batch(dir);
    // ...and are once `update` has recorded them (no restart).
    let rec = recorded(dir);
    let crawl1 = rec
        .iter()
        .find(|(n, _)| n == "crawl1-20071001.arc")
        .unwrap();
    assert_eq!(crawl1.1, "warcs/crawl1-20071001.arc", "recorded relative");
    let iana_rec = rec.iter().find(|(n, _)| n == "iana.warc.gz").unwrap();
    assert!(Path::new(&iana_rec.1).is_absolute(), "recorded absolute");
    for (name, _) in &rec {
        let a = get(&addr, &format!("/warcs/{name}"));
        assert_eq!(a.status, 200, "{name}");
        assert!(a.body == on_disk(dir, name), "{name}");
    }

    // Every capture of all.cdx, read by offset and length: exactly its record, and in a
    // gzip file one whole member.
    let cdx = std::fs::read_to_string(dir.join("all.cdx")).unwrap();
    let mut members = 0;
    for line in cdx.lines().filter(|l| !l.starts_with(' ')) {
        let f: Vec<&str> = line.split(' ').collect();
        let (len, offset, name): (usize, usize, &str) =
            (f[8].parse().unwrap(), f[9].parse().unwrap(), f[10]);
        let file = on_disk(dir, name);
        let a = get_range(
            &addr,
            &format!("/warcs/{name}"),
            &format!("bytes={offset}-{}", offset + len - 1),
        );
        assert_part(&a, &file, offset, offset + len - 1);
        if name.ends_with(".gz") {
            let mut rest: &[u8] = &a.body;
            let mut record = Vec::new();
            flate2::bufread::GzDecoder::new(&mut rest)
                .read_to_end(&mut record)
                .unwrap();
            assert!(rest.is_empty(), "{line}: more than one gzip member");
            assert!(record.starts_with(b"WARC/1."), "{line}");
            members += 1;
        } else {
            let url = f[2];
            assert!(
                a.body.starts_with(b"WARC/1.") || a.body.starts_with(url.as_bytes()),
                "{line}"
            );
        }
    }
    assert!(members > 10, "only {members} gzip records checked");
}

/// A front server (`serve --remote`) holds no archives.
#[test]
fn a_front_server_has_no_archives() {
    let front =
        warcdex::serve::Front::new(&["http://127.0.0.1:9".into()], Duration::from_secs(1)).unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let opts = ServeOptions::default();
    let app = warcdex::serve::front_router(front, opts.clone());
    std::thread::spawn(move || warcdex::serve::serve(listener, app, &opts).unwrap());
    assert_eq!(get(&addr, "/warcs/iana.warc.gz").status, 404);
}

/// Hostile clients of `/warcs/`: one that asks for a large range and stops reading is
/// closed after the idle timeout, with the archive's file never read whole into memory;
/// malformed ranges are 416s and countless ranges the whole file, and the server
/// answers others throughout.
#[test]
fn archives_and_hostile_clients() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    first_batch(dir);
    // A large archive: recorded as `update` would, its bytes sparse (zeros).
    let big_len: u64 = 256 << 20;
    let big = dir.join("big.warc");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(big_len)
        .unwrap();
    let manifest = dir.join("collection.json");
    let mut m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
    let mut entry = m["archives"][0].clone();
    entry["name"] = "big.warc".into();
    entry["path"] = "big.warc".into();
    entry["size"] = big_len.into();
    m["archives"].as_array_mut().unwrap().push(entry);
    std::fs::write(&manifest, serde_json::to_vec_pretty(&m).unwrap()).unwrap();

    let addr = start_in_process(
        dir,
        ServeOptions {
            limits: ConnLimits {
                header_timeout: Duration::from_secs(300),
                idle_timeout: Duration::from_secs(1),
                max_connections: 64,
            },
            ..ServeOptions::default()
        },
    );
    // Asks for 255 MiB and reads nothing for three seconds: the socket buffers fill, no
    // byte moves, the idle timeout closes the connection.
    let mut stalled = TcpStream::connect(&addr).unwrap();
    write!(
        stalled,
        "GET /warcs/big.warc HTTP/1.1\r\nHost: x\r\nRange: bytes=1048576-\r\n\r\n"
    )
    .unwrap();
    // Meanwhile, other requests are answered.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(get(&addr, "/healthz").status, 200);
    let a = get_range(&addr, "/warcs/big.warc", "bytes=-10");
    assert_eq!(a.status, 206);
    assert_eq!(a.body, [0; 10]);
    std::thread::sleep(Duration::from_secs(3));
    let got = assert_closed_by_server(stalled, "stalled reader of a large range");
    assert!(
        got.starts_with(b"HTTP/1.1 206"),
        "{:?}",
        &got[..got.len().min(200)]
    );
    assert!(
        (got.len() as u64) < big_len / 2,
        "{} bytes came: the connection was never idle",
        got.len()
    );

    // Malformed Range headers: 416, saying the size.
    let iana = on_disk(dir, "iana.warc.gz");
    let size = format!("bytes */{}", iana.len());
    for range in [
        "bytes=",
        "bytes=-",
        "bytes=--5",
        "bytes=5",
        "bytes=a-b",
        "bytes=1-2-3",
        "bytes=18446744073709551616-",
        "bytes=-0",
        "0-10",
        "bytes 0-10",
    ] {
        let a = get_range(&addr, "/warcs/iana.warc.gz", range);
        assert_eq!(a.status, 416, "{range}");
        assert_eq!(a.header("content-range"), Some(size.as_str()), "{range}");
    }
    // Bytes that are not text in the header.
    let a = request(
        &addr,
        "GET",
        "/warcs/iana.warc.gz",
        b"Range: bytes=\xff-1\r\n",
    );
    assert_eq!(a.status, 416);

    // Several ranges, and very many (16,000 in a 96 KiB header): the whole file.
    let a = get_range(&addr, "/warcs/iana.warc.gz", "bytes=0-0,5-9");
    assert_eq!(a.status, 200);
    assert!(a.body == iana);
    let many = format!("bytes={}", "1000-1001,".repeat(16_000));
    let a = get_range(&addr, "/warcs/iana.warc.gz", &many);
    assert_eq!(a.status, 200);
    assert!(a.body == iana);
    // A header larger than the server reads is refused whole, and the server goes on.
    let huge = format!("bytes={}", "1000-1001,".repeat(200_000));
    let mut s = TcpStream::connect(&addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let _ = write!(
        s,
        "GET /warcs/iana.warc.gz HTTP/1.1\r\nHost: x\r\nRange: {huge}\r\n\r\n"
    );
    let mut head = [0u8; 12];
    if s.read_exact(&mut head).is_ok() {
        assert!(!head.starts_with(b"HTTP/1.1 2"), "{head:?}");
    }
    drop(s);
    assert_eq!(get(&addr, "/healthz").status, 200);
    assert_eq!(
        get_range(&addr, "/warcs/iana.warc.gz", "bytes=0-9").body,
        &iana[..10]
    );
}
