//! `GET /cdx` against pywb 2.10's answers (fixtures/cdx-api/answers.jsonl, written by
//! scripts/cdx-api-goldens.py over fixtures/cdx-api/all.cdx), byte for byte; then
//! hostile requests, which get a 4xx and leave the server answering.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::time::Duration;

use sha2::{Digest, Sha256};
use warcdex::search::SearchIndex;
use warcdex::serve::{front_router, router, serve, Front, ServeOptions};

use crate::util::{page_row, write_rows_index};

const FIXTURE: &str = "fixtures/cdx-api";

/// A collection directory: one tiny set (so the server opens) and the fixture's
/// all.cdx.
fn collection(dir: &Path, with_cdx: bool) {
    let rows = vec![page_row(
        "http://www.iana.org/",
        "IANA",
        "Internet Assigned Numbers Authority",
        "20140126200624",
    )];
    write_rows_index(&dir.join("pindexes/a/main"), rows);
    if with_cdx {
        std::fs::copy(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(FIXTURE)
                .join("all.cdx"),
            dir.join("all.cdx"),
        )
        .unwrap();
    }
}

fn start(dir: &Path) -> String {
    let index = SearchIndex::open(dir).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let opts = ServeOptions::default();
    let app = router(
        warcdex::collection::Collection::open(index.dir()),
        index,
        opts.clone(),
    );
    std::thread::spawn(move || serve(listener, app, &opts).unwrap());
    addr
}

struct Answer {
    status: u16,
    content_type: String,
    body: Vec<u8>,
}

/// One request on its own connection; a chunked body is decoded.
fn get(addr: &str, target: &[u8]) -> Answer {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut req = b"GET ".to_vec();
    req.extend_from_slice(target);
    req.extend_from_slice(
        format!(" HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes(),
    );
    s.write_all(&req).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head");
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let mut body = raw[split + 4..].to_vec();
    let status = head[9..12].parse().unwrap();
    let header = |name: &str| {
        head.lines()
            .find_map(|l| l.strip_prefix(name).map(|v| v.trim().to_string()))
            .unwrap_or_default()
    };
    if header("transfer-encoding:") == "chunked" {
        body = dechunk(&body);
    }
    Answer {
        status,
        content_type: header("content-type:"),
        body,
    }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let eol = data
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("a chunk size");
        let size =
            usize::from_str_radix(std::str::from_utf8(&data[..eol]).unwrap().trim(), 16).unwrap();
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&data[eol + 2..eol + 2 + size]);
        data = &data[eol + 2 + size + 2..];
    }
}

fn golden() -> Vec<serde_json::Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(FIXTURE)
        .join("answers.jsonl");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Every golden query answered as pywb answered it: the same status, Content-Type and
/// body for the answers, a 4xx where pywb refused (or failed with a 500).
#[test]
fn cdx_api_answers_as_pywb() {
    let dir = tempfile::tempdir().unwrap();
    collection(dir.path(), true);
    let addr = start(dir.path());
    let answers = golden();
    assert!(answers.len() >= 300, "{} goldens", answers.len());
    let mut differences = Vec::new();
    for g in &answers {
        let query = g["query"].as_str().unwrap();
        let want_status = g["status"].as_u64().unwrap() as u16;
        let got = get(&addr, format!("/cdx?{query}").as_bytes());
        let body = String::from_utf8_lossy(&got.body);
        if want_status != 200 {
            let agrees = (400..500).contains(&got.status)
                && (want_status == got.status || want_status >= 500);
            if !agrees {
                differences.push(format!(
                    "{query}: status {} where pywb answered {want_status}",
                    got.status
                ));
            }
            continue;
        }
        if got.status != 200 || got.content_type != g["content_type"].as_str().unwrap() {
            differences.push(format!(
                "{query}: {} {} ({body})",
                got.status, got.content_type
            ));
            continue;
        }
        let same = match g.get("body").and_then(|b| b.as_str()) {
            Some(want) => want.as_bytes() == got.body.as_slice(),
            None => {
                let digest = Sha256::digest(&got.body);
                let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
                hex == g["sha256"].as_str().unwrap()
            }
        };
        if !same {
            let want = g
                .get("body")
                .and_then(|b| b.as_str())
                .map_or_else(|| format!("(digest) {}", g["head"]), str::to_string);
            differences.push(format!("{query}:\n  pywb: {want}\n  ours: {body}"));
        }
    }
    assert!(
        differences.is_empty(),
        "{} of {} queries differ:\n{}",
        differences.len(),
        answers.len(),
        differences.join("\n")
    );
}

/// A collection without all.cdx: a 404 with a message.
#[test]
fn cdx_api_without_an_index_is_a_404() {
    let dir = tempfile::tempdir().unwrap();
    collection(dir.path(), false);
    let addr = start(dir.path());
    let got = get(&addr, b"/cdx?url=iana.org/");
    assert_eq!(got.status, 404);
    assert!(String::from_utf8_lossy(&got.body).contains("all.cdx"));
    assert!(got.content_type.starts_with("text/plain"));
}

/// A front server (`serve --remote`) has no all.cdx: a 501 with a message.
#[test]
fn cdx_api_on_a_front_server_is_a_501() {
    let dir = tempfile::tempdir().unwrap();
    collection(dir.path(), true);
    let shard = start(dir.path());
    let front = Front::new(&[format!("http://{shard}")], Duration::from_secs(10)).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let opts = ServeOptions::default();
    let app = front_router(front, opts.clone());
    std::thread::spawn(move || serve(listener, app, &opts).unwrap());
    let got = get(&addr, b"/cdx?url=iana.org/");
    assert_eq!(got.status, 501);
    assert!(String::from_utf8_lossy(&got.body).contains("front server"));
}

/// Hostile requests: each a 4xx in plain text, and the server still answers after them.
#[test]
fn cdx_api_hostile_requests() {
    let dir = tempfile::tempdir().unwrap();
    collection(dir.path(), true);
    let addr = start(dir.path());
    let long_url = format!("/cdx?url=http://a.com/{}", "a".repeat(20_000));
    let bomb = "/cdx?url=iana.org/*&filter=~url:(a%2B)%2B%24".to_string();
    let huge_regex = format!("/cdx?url=iana.org/*&filter=~url:{}", "(a{1000}){1000}");
    let long_pattern = format!("/cdx?url=iana.org/&filter=~url:{}", "a".repeat(5000));
    let many_filters = format!("/cdx?url=iana.org/{}", "&filter=url:a".repeat(100));
    let refused: Vec<Vec<u8>> = vec![
        long_url.into_bytes(),
        huge_regex.into_bytes(),
        long_pattern.into_bytes(),
        many_filters.into_bytes(),
        b"/cdx?url=iana.org/&matchType=%ff%fe".to_vec(),
        b"/cdx?url=iana.org/&limit=1e9".to_vec(),
        b"/cdx?url=iana.org/&filter=~url:%28%3F%3Dx%29".to_vec(),
        b"/cdx?url=iana.org/&output=%3Cscript%3E".to_vec(),
        b"/cdx?url=iana.org/&showNumPages=true".to_vec(),
        b"/cdx?url=iana.org/&sort=reverse&limit=-3".to_vec(),
    ];
    for target in &refused {
        let got = get(&addr, target);
        let shown = String::from_utf8_lossy(&target[..target.len().min(80)]).into_owned();
        assert!(
            (400..500).contains(&got.status),
            "{shown}: {} {}",
            got.status,
            String::from_utf8_lossy(&got.body)
        );
        assert!(got.content_type.starts_with("text/plain"), "{shown}");
        assert!(
            got.body.len() < 1000,
            "{shown}: the message echoes too much"
        );
    }
    // Answered, in linear time: the regex engine has no backtracking.
    let got = get(&addr, bomb.as_bytes());
    assert_eq!(got.status, 200, "{}", String::from_utf8_lossy(&got.body));
    // Invalid UTF-8 in escapes is replaced, as Python's parse_qsl does.
    assert_eq!(get(&addr, b"/cdx?url=iana.org/%ff%fe").status, 200);
    // A huge limit is no limit.
    let all = get(
        &addr,
        b"/cdx?url=iana.org/*&limit=99999999999999999999&output=text",
    );
    assert_eq!(all.status, 200);
    assert!(all.body.split(|&b| b == b'\n').count() > 100);
    // closest with a huge limit holds only the captures there are (fewer than the cap).
    let near = get(
        &addr,
        b"/cdx?url=iana.org/*&closest=2014&limit=99999999999999999999",
    );
    assert_eq!(near.status, 200);
    // Still serving.
    let ok = get(&addr, b"/cdx?url=iana.org/&output=json");
    assert_eq!(ok.status, 200);
    assert!(String::from_utf8_lossy(&ok.body).contains("\"urlkey\": \"org,iana)/\""));
}

/// Clients that ask for a large CDX answer and read none of it hold their connections'
/// buffers, not the server's search threads: with as many of them as search threads, a
/// search is still answered at once, and a stalled answer is still whole when it is read.
#[test]
fn stalled_cdx_readers_leave_the_searches_answering() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    collection(dir, false);
    // About 45 MB of CDX, far more than the socket buffers and the answer's channel hold.
    const LINES: usize = 300_000;
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(dir.join("all.cdx")).unwrap());
        writeln!(f, " CDX N b a m s k r M S V g").unwrap();
        for i in 0..LINES {
            writeln!(
                f,
                "org,example)/page{i:07} 20240101000000 http://example.org/page{i:07} text/html 200 \
                 AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA - - 1000 {} big.warc.gz",
                i * 1000
            )
            .unwrap();
        }
    }
    let index = SearchIndex::open(dir).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let opts = ServeOptions {
        search_threads: 2,
        ..ServeOptions::default()
    };
    let app = router(
        warcdex::collection::Collection::open(index.dir()),
        index,
        opts.clone(),
    );
    std::thread::spawn(move || serve(listener, app, &opts).unwrap());
    let target = "/cdx?url=example.org/*&limit=0&output=text";
    let stalled: Vec<TcpStream> = (0..3)
        .map(|_| {
            let mut s = TcpStream::connect(&addr).unwrap();
            write!(
                s,
                "GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            )
            .unwrap();
            s
        })
        .collect();
    // Time for the writers to fill every buffer between them and the stalled clients.
    std::thread::sleep(Duration::from_secs(2));
    let asked = std::time::Instant::now();
    let searched = get(&addr, b"/search.json?query=iana");
    let took = asked.elapsed();
    assert_eq!(
        searched.status,
        200,
        "{}",
        String::from_utf8_lossy(&searched.body)
    );
    assert!(
        String::from_utf8_lossy(&searched.body).contains("www.iana.org"),
        "{}",
        String::from_utf8_lossy(&searched.body)
    );
    assert!(
        took < Duration::from_secs(10),
        "a search waited {took:?} behind stalled CDX readers"
    );
    // A stalled answer, read now, is whole.
    for mut s in stalled {
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).unwrap();
        let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        let body = dechunk(&raw[split + 4..]);
        let lines = body
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .count();
        assert_eq!(lines, LINES);
    }
}
