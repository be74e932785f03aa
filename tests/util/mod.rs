//! Shared test helpers: corpus paths, running the reader in-process, comparing lines.

pub mod http;

use std::path::{Path, PathBuf};

use warcdex::import::manifest::ManifestEntry;
use warcdex::index::links::{analyse, LinkOptions};
use warcdex::index::write_index;
use warcdex::reader::records::{write_records, FileReport, RecordsOptions};
use warcdex::reader::{ArchiveReader, ReaderOptions};
use warcdex::segment::SegmentRow;
use warcdex_cdx::{url_key, KeyStyle};

/// `fixtures/corpus`: the real third-party corpus (`real/`, provenance in `real/MANIFEST.md`,
/// licences in `LICENSES.md`) and the peer tools' outputs for it (`expected/`).
pub fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/corpus")
}

/// The WARCs under a WACZ's `archive/`, written to `out` under their own names, sorted.
pub fn unpack_wacz(wacz: &Path, out: &Path) -> Vec<PathBuf> {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(wacz).unwrap()).unwrap();
    std::fs::create_dir_all(out).unwrap();
    let mut warcs = Vec::new();
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).unwrap();
        let name = entry.name().unwrap().to_string();
        if let Some(base) = name.strip_prefix("archive/") {
            let path = out.join(base);
            let mut file = std::fs::File::create(&path).unwrap();
            std::io::copy(&mut entry, &mut file).unwrap();
            warcs.push(path);
        }
    }
    warcs.sort();
    assert!(
        !warcs.is_empty(),
        "{} holds WARCs under archive/",
        wacz.display()
    );
    warcs
}

/// `fixtures/` in the repository.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Runs `records` over a file in-process with the given read size.
pub fn records_of(path: &Path, buffer_size: usize, opts: RecordsOptions) -> (String, FileReport) {
    let ropts = ReaderOptions {
        buffer_size,
        ..ReaderOptions::default()
    };
    let mut reader = ArchiveReader::open_with(path, ropts).unwrap_or_else(|e| panic!("{e}"));
    let mut out = Vec::new();
    let report = write_records(&mut reader, &mut out, opts, &mut |_| {}).expect("writing to a Vec");
    (String::from_utf8(out).expect("JSON is UTF-8"), report)
}

/// Runs `records` over bytes in memory with the given read size.
pub fn records_of_bytes(bytes: &[u8], buffer_size: usize) -> (String, FileReport) {
    let ropts = ReaderOptions {
        buffer_size,
        ..ReaderOptions::default()
    };
    let mut out = Vec::new();
    let report = match ArchiveReader::with_options(bytes, ropts) {
        Ok(mut reader) => write_records(
            &mut reader,
            &mut out,
            RecordsOptions::default(),
            &mut |_| {},
        )
        .expect("Vec"),
        Err(e) => FileReport {
            error: Some(e),
            ..FileReport::default()
        },
    };
    (String::from_utf8(out).expect("JSON is UTF-8"), report)
}

/// Reads `bytes` at every read size of [`BUFFER_SIZES`] and asserts that each gives the
/// output, the anomaly counts and the presence of an error of the default size, which
/// it returns.
pub fn records_at_every_read_size(bytes: &[u8]) -> (String, FileReport) {
    let (want, report) = records_of_bytes(bytes, 256 * 1024);
    for size in BUFFER_SIZES {
        let (got, r) = records_of_bytes(bytes, size);
        assert_eq!(got, want, "read size {size} changes the output");
        assert_eq!(
            r.counts, report.counts,
            "read size {size} changes the counts"
        );
        assert_eq!(
            r.error.is_some(),
            report.error.is_some(),
            "read size {size} changes the error: {:?}",
            r.error
        );
    }
    (want, report)
}

/// Asserts that reading `path` with read size `size` gives exactly `want` (the output at
/// the default size), the same anomaly counts, and an error exactly when `report` had one.
pub fn assert_same_at_read_size(
    path: &Path,
    size: usize,
    opts: RecordsOptions,
    want: &str,
    report: &FileReport,
) {
    let (got, r) = records_of(path, size, opts);
    let name = path.display();
    assert_eq!(got, want, "{name}: read size {size} changes the output");
    assert_eq!(
        r.counts, report.counts,
        "{name}: read size {size} changes the anomaly counts"
    );
    assert_eq!(
        r.error.is_some(),
        report.error.is_some(),
        "{name}: read size {size} changes the error"
    );
}

/// One WARC response record for `uri`, with an HTTP body of `body` and `extra` header
/// lines (each ending in CRLF) before Content-Type: what the reader tests build their
/// damaged files from.
pub fn warc_record(uri: &str, body: &str, extra: &str) -> Vec<u8> {
    let http = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut r = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\n\
         WARC-Date: 2020-01-01T00:00:00Z\r\n\
         WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{:012}>\r\n{extra}\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        uri.len(),
        http.len()
    )
    .into_bytes();
    r.extend_from_slice(http.as_bytes());
    r.extend_from_slice(b"\r\n\r\n");
    r
}

/// The read sizes every reader test runs with.
pub const BUFFER_SIZES: [usize; 4] = [1, 7, 4096, 256 * 1024];

/// Compares `got` with the snapshot `fixtures/<name>`, or writes it when
/// `WARCDEX_BLESS=1`. Snapshots are warcdex's own output; reference goldens from other
/// tools are never blessed.
pub fn check_snapshot(name: &str, got: &str) -> Result<(), String> {
    let path = fixtures().join(name);
    if std::env::var("WARCDEX_BLESS").as_deref() == Ok("1") {
        std::fs::create_dir_all(path.parent().expect("has a parent")).expect("mkdir");
        std::fs::write(&path, got).expect("write snapshot");
        return Ok(());
    }
    let want = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "{}: {e} (run with WARCDEX_BLESS=1 to create it)",
            path.display()
        )
    })?;
    if want == got {
        return Ok(());
    }
    let line = want
        .lines()
        .zip(got.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(want.lines().count().min(got.lines().count()));
    Err(format!(
        "{}: differs at line {}:\n  want: {}\n  got:  {}",
        path.display(),
        line + 1,
        want.lines().nth(line).unwrap_or("<end>"),
        got.lines().nth(line).unwrap_or("<end>")
    ))
}

/// The archives of `fixtures/<collection>/manifest.txt`.
pub fn fixture_manifest(collection: &str) -> Vec<ManifestEntry> {
    warcdex::testing::fixture_manifest(collection).expect("fixture manifest")
}

pub use warcdex::testing::FixtureLists;

/// Runs `cdx` and `dedup-cdx` in-process over `fixtures/<collection>`.
pub fn fixture_lists(dir: &Path, collection: &str) -> FixtureLists {
    warcdex::testing::fixture_lists(dir, collection).unwrap()
}

/// Imports the archives `archives` (paths under `fixtures/corpus/real`) as `import`
/// does, indexes them as `index` does into `dir/pindexes/corpus/main` (no dates index:
/// the segments' dates are the dates) and opens the search over `dir`.
pub fn corpus_search_index(dir: &Path, archives: &[&str]) -> warcdex::search::SearchIndex {
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/corpus/real");
    let entries: Vec<ManifestEntry> = archives
        .iter()
        .enumerate()
        .map(|(i, a)| ManifestEntry {
            path: real.join(a),
            collection: Some("corpus".into()),
            line: i as u64 + 1,
        })
        .collect();
    search_index_of(dir, &entries, "corpus")
}

/// Imports `entries` as `import` does into `dir/seg`, indexes them as `index` does into
/// `dir/pindexes/SET/main` and opens the search over `dir`.
pub fn search_index_of(
    dir: &Path,
    entries: &[ManifestEntry],
    set: &str,
) -> warcdex::search::SearchIndex {
    use warcdex::import::segment_dir::write_segment;
    use warcdex::import::{import_archives, ImportOptions};
    use warcdex::index::{build_index, IndexOptions};
    let opts = ImportOptions::default();
    let (rows, reports) = import_archives(entries, None, &opts, &|_| {}, &|_| {}).unwrap();
    let seg = dir.join("seg");
    write_segment(&seg, &rows, reports, &opts, None).unwrap();
    build_index(
        &[seg],
        &dir.join("pindexes").join(set).join("main"),
        &IndexOptions::default(),
    )
    .unwrap();
    warcdex::search::SearchIndex::open(dir).unwrap()
}

/// Runs the warcdex binary with `args`: its exit code (-1 when killed), stdout, stderr.
pub fn run_warcdex<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_warcdex"))
        .args(args)
        .output()
        .expect("run warcdex");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `warcdex ARGS` run in the working directory `cwd`, which must succeed: its stdout.
pub fn ok_in(cwd: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_warcdex"))
        .current_dir(cwd)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "warcdex {args:?} in {}: {}",
        cwd.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A plain WARC of `response` records (URL, date `YYYY-MM-DDTHH:MM:SSZ`, HTML), as a
/// crawler writes them. Record IDs are made of the date and the offset, so the files of
/// several crawls never share one.
pub fn write_warc(path: &Path, captures: &[(String, String, String)]) {
    let mut out = Vec::new();
    for (url, date, html) in captures {
        let http = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\r\n{html}",
            html.len()
        );
        let stamp: String = date.chars().filter(char::is_ascii_digit).collect();
        out.extend_from_slice(
            format!(
                "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {url}\r\nWARC-Date: {date}\r\n\
                 WARC-Record-ID: <urn:uuid:{stamp:0>16}{:016x}>\r\nContent-Type: application/http; msgtype=response\r\n\
                 Content-Length: {}\r\n\r\n{http}\r\n\r\n",
                out.len(),
                http.len()
            )
            .as_bytes(),
        );
    }
    std::fs::write(path, out).unwrap();
}

/// A version of an HTML page for an index built from rows: one capture on `date`, in
/// collection `other`.
pub fn page_row(url: &str, title: &str, text: &str, date: &str) -> SegmentRow {
    SegmentRow {
        key: format!("{url} sha1:X"),
        url: url.into(),
        urlkey: url_key(url, KeyStyle::Surt).unwrap(),
        digest: "sha1:X".into(),
        dates: vec![date.into()],
        first_date: date.into(),
        title: Some(title.into()),
        text: text.into(),
        mime: "text/html".into(),
        collection: "other".into(),
        ..SegmentRow::default()
    }
}

/// Writes a main index of `rows` (sorted here) at `out`, with the default link analysis.
pub fn write_rows_index(out: &Path, mut rows: Vec<SegmentRow>) {
    rows.sort_by(|a, b| (&a.urlkey, &a.digest).cmp(&(&b.urlkey, &b.digest)));
    let graph = analyse(&rows, &LinkOptions::default(), KeyStyle::Surt).unwrap();
    write_index(
        out,
        &rows,
        &graph,
        "surt".into(),
        Vec::new(),
        &LinkOptions::default(),
    )
    .unwrap();
}

/// Starts `warcdex serve` in-process over `dir` with `opts`; returns its address.
pub fn start_in_process(dir: &Path, opts: warcdex::serve::ServeOptions) -> String {
    let index = warcdex::search::SearchIndex::open(dir).unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let app = warcdex::serve::router(
        warcdex::collection::Collection::open(index.dir()),
        index,
        opts.clone(),
    );
    std::thread::spawn(move || warcdex::serve::serve(listener, app, &opts).unwrap());
    addr
}

/// Starts `warcdex serve --replay scripts` in-process over `dir` with `opts` and a
/// stand-in for wabac.js's service worker (its bytes: `sw`); returns the search
/// application's address and the replay origin's.
pub fn start_with_replay(
    dir: &Path,
    mut opts: warcdex::serve::ServeOptions,
    sw: &[u8],
) -> (String, String) {
    let index = warcdex::search::SearchIndex::open(dir).unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let replay = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let replay_addr = replay.local_addr().unwrap();
    opts.scripts = Some(warcdex::serve::ScriptReplay {
        service_worker: sw.into(),
        replay_port: replay_addr.port(),
        replay_url: None,
        app_port: addr.port(),
    });
    let (app, routes) = warcdex::serve::routers(
        warcdex::collection::Collection::open(index.dir()),
        index,
        opts.clone(),
    );
    let routes = routes.expect("the replay origin's routes");
    std::thread::spawn(move || {
        warcdex::serve::serve_with_replay(listener, app, Some((replay, routes)), &opts).unwrap()
    });
    (addr.to_string(), replay_addr.to_string())
}

/// Reads until the server closes the connection; panics if it has not within a minute.
pub fn assert_closed_by_server(mut s: std::net::TcpStream, what: &str) -> Vec<u8> {
    s.set_read_timeout(Some(std::time::Duration::from_secs(60)))
        .unwrap();
    let mut got = Vec::new();
    match std::io::Read::read_to_end(&mut s, &mut got) {
        Ok(_) => {}
        // Closed with bytes of a half-sent request unread: the kernel resets.
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
        Err(e) => panic!("{what}: the server did not close the connection: {e}"),
    }
    got
}

/// A tiny deterministic generator: the tests need variety, not randomness (their seeds are
/// fixed).
pub struct Lcg(pub u64);

impl Lcg {
    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}
