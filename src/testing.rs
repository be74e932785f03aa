//! Entry points shared by the `cargo fuzz` targets (`fuzz/fuzz_targets/*.rs`) and the
//! replay test (`tests/fuzz_replay.rs`): one function per target, taking the raw fuzz
//! input. Keeping them here means a reproducer under `fixtures/fuzz/<target>/` is
//! replayed by plain `cargo test` through exactly the code the fuzzer ran, on the stable
//! toolchain, without `cargo fuzz`. Built for the unit tests and with the feature
//! `testing`, which tests/ (through Cargo.toml's dev-dependency on this crate) and fuzz/
//! turn on; the library proper does without it.
//!
//! Every function must not panic on any input; that is the whole contract. Results are
//! computed and dropped. `http` additionally panics itself when a handler answers with a
//! server error (status ≥ 500), since `src/serve/mod.rs` promises a 400 for any malformed
//! request and keeps 500 for index errors, which the bundled index never has.

use std::io::{self, Cursor, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use warcdex_cdx::{CdxFormat, CdxLine, KeyStyle};

use crate::cdx_writer::{index_archive, CdxOptions};
use crate::path_error::ResultAtPath;
use crate::reader::records::{write_records, RecordsOptions};
use crate::reader::{ArchiveReader, ReaderOptions};

/// The names of the targets, as `fuzz/fuzz_targets/<name>.rs` and `fixtures/fuzz/<name>/`.
pub const TARGETS: [&str; 6] = ["reader", "import", "cdx_line", "html", "query", "http"];

/// Runs the entry point of target `name` on `data`; false for an unknown name.
pub fn run(name: &str, data: &[u8]) -> bool {
    match name {
        "reader" => reader(data),
        "import" => import(data),
        "cdx_line" => cdx_line(data),
        "html" => html(data),
        "query" => query(data),
        "http" => http(data),
        _ => return false,
    }
    true
}

/// Reads `data` as an archive in every way the commands do: each record's header
/// accessors, HTTP head, payload digest (header or computed), digest verification and
/// block; then `records --digest --verify` at an odd small read size (so every buffer
/// boundary moves); then `cdx` in the 11-field layout, the 9-field layout with URL keys,
/// and CDXJ with `-a -p` (request records and POST append, see `src/cdx_writer/post.rs`).
pub fn reader(data: &[u8]) {
    if let Ok(mut r) = ArchiveReader::new(Cursor::new(data)) {
        let mut block = Vec::new();
        // A reader error ends the file, exactly as the commands treat it.
        while let Ok(Some(mut rec)) = r.next_record() {
            let h = rec.header();
            let _ = (h.target_uri(), h.date_iso(), h.record_id(), h.type_name());
            let _ = rec.http().map(|h| h.map(|h| h.get_str("Content-Type")));
            let _ = rec.payload_digest();
            let _ = rec.verify_payload_digest();
            block.clear();
            let _ = rec.read_to_end(&mut block);
            let _ = rec.finish();
            let _ = r.take_anomalies();
        }
        let _ = (r.counts(), r.records_read(), r.stored_position());
    }

    let small = ReaderOptions {
        buffer_size: 61,
        ..ReaderOptions::default()
    };
    if let Ok(mut r) = ArchiveReader::with_options(Cursor::new(data), small) {
        let opts = RecordsOptions {
            digest: true,
            verify: true,
        };
        let _ = write_records(&mut r, &mut io::sink(), opts, &mut |_| {});
    }

    let cdx_modes = [
        CdxOptions::default(),
        CdxOptions {
            format: CdxFormat::Cdx9,
            key: KeyStyle::Url,
            ..CdxOptions::default()
        },
        CdxOptions {
            format: CdxFormat::Cdxj,
            all_records: true,
            post_append: true,
            key: KeyStyle::Surt,
        },
    ];
    for opts in &cdx_modes {
        if let Ok(mut r) = ArchiveReader::new(Cursor::new(data)) {
            let mut out = Vec::new();
            let _ = index_archive(
                &mut r,
                "fuzz.warc.gz",
                opts,
                &mut |line, _| {
                    line.write(opts.format, &mut out);
                    Ok(())
                },
                &mut |_| {},
                &mut |_| {},
            );
        }
    }
}

/// Runs `import` on `data` as a one-archive manifest (through a temporary file, since
/// import opens its archives by path) and writes the segment (`segment.json` and
/// Parquet rows) into a temporary directory.
pub fn import(data: &[u8]) {
    use crate::import::manifest::ManifestEntry;
    use crate::import::segment_dir::write_segment;
    use crate::import::{import_archives, ImportOptions};

    let Ok(dir) = tempfile::tempdir() else {
        return;
    };
    let archive = dir.path().join("fuzz.warc.gz");
    if std::fs::write(&archive, data).is_err() {
        return;
    }
    let entries = [ManifestEntry {
        path: archive,
        collection: None,
        line: 1,
    }];
    // A small content limit reaches the truncation paths with small inputs.
    let opts = ImportOptions {
        content_limit: 4096,
        ..ImportOptions::default()
    };
    let (rows, reports) = import_archives(&entries, None, &opts, &|_| {}, &|_| {})
        .expect("the row sort's temporary files");
    let _ = write_segment(&dir.path().join("seg"), &rows, reports, &opts, None);
}

/// Parses each line of `data` (lossily decoded) as a CDX/CDXJ line in every layout,
/// writes what parsed in every layout and parses that again; canonicalises the line and
/// its URL fields as SURT and URL keys; and parses it as the lists read it (`dedup-cdx`'s
/// capture, add-dates' `URLKEY sha1:DIGEST DATE14` line). The whole input is also
/// loaded as an exclusion list.
pub fn cdx_line(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for line in text.split('\n') {
        let mut parsed = Vec::new();
        if let Ok((_, l)) = CdxLine::parse(line) {
            parsed.push(l);
        }
        for f in [CdxFormat::Cdx9, CdxFormat::Cdx10, CdxFormat::Cdx11] {
            if let Ok(l) = CdxLine::parse_classic(f, line) {
                parsed.push(l);
            }
        }
        for l in &parsed {
            for f in [CdxFormat::Cdx9, CdxFormat::Cdx11, CdxFormat::Cdxj] {
                let mut out = Vec::new();
                l.write(f, &mut out);
                let _ = CdxLine::parse(&String::from_utf8_lossy(&out));
            }
            for u in [Some(&l.urlkey), l.original.as_ref(), l.redirect.as_ref()]
                .into_iter()
                .flatten()
            {
                keys(u);
            }
        }
        keys(line);
        let _ = warcdex_cdx::dedup::parse_capture(line);
        let _ = crate::dates::records::parse_line(line.as_bytes());
        let _ = crate::dates::records::java_split(line.as_bytes());
    }
    let _ = crate::import::exclusions::Exclusions::load(data, KeyStyle::Surt, &mut |_, _| {});
}

fn keys(url: &str) {
    let _ = warcdex_cdx::surt_key(url);
    let _ = warcdex_cdx::url_key(url, KeyStyle::Url);
}

/// Extracts text, title and links from `data` as an HTML page, as a `text/plain` page,
/// and after undoing a content coding (`src/extract/body.rs`).
///
/// Layout: byte 0 picks the text limit (low 3 bits) and the content coding (next 2
/// bits); byte 1 is the length of the Content-Type that follows (0: none); the next
/// byte is the length of the page URL that follows; the rest is the body. Short inputs
/// leave the later parts empty.
pub fn html(data: &[u8]) {
    const LIMITS: [usize; 8] = [0, 1, 7, 64, 1000, 4096, 1 << 16, 1 << 20];
    const CODINGS: [&str; 4] = ["gzip", "deflate", "x-gzip", "identity"];
    let mut rest = data;
    let take = |n: usize, rest: &mut &[u8]| -> Vec<u8> {
        let n = n.min(rest.len());
        let (a, b) = rest.split_at(n);
        *rest = b;
        a.to_vec()
    };
    let Some((&sel, r)) = rest.split_first() else {
        return;
    };
    rest = r;
    let limit = LIMITS[usize::from(sel & 7)];
    let coding = CODINGS[usize::from((sel >> 3) & 3)];
    let ct_len = take(1, &mut rest).first().copied().unwrap_or(0);
    let ct = take(usize::from(ct_len), &mut rest);
    let url_len = take(1, &mut rest).first().copied().unwrap_or(0);
    let url = take(usize::from(url_len), &mut rest);
    let body = rest;

    let ct = String::from_utf8_lossy(&ct);
    let ct = (!ct.is_empty()).then_some(&*ct);
    let url = String::from_utf8_lossy(&url);
    let _ = crate::html::parse_html(body, ct, &url, limit);
    let _ = crate::html::plain_text(body, ct, limit);
    let _ = crate::html::detect_charset(body, ct, Some(&url));
    let _ = crate::reader::chunked::dechunk(body);
    if let Some(decoded) = crate::extract::body::decode_content(body, coding, limit.max(1)) {
        let _ = crate::html::parse_html(&decoded, ct, &url, limit);
    }
}

/// Parses `data` (lossily decoded) as a search query, as a `date:` value, and each
/// whitespace-separated part as a `date:` value and as every filter's value.
pub fn query(data: &[u8]) {
    use crate::search::query::{parse, parse_date, FilterField};
    let q = String::from_utf8_lossy(data);
    let _ = parse(&q);
    let _ = parse_date(&q);
    for part in q.split_whitespace().take(64) {
        let value = part.split_once(':').map_or(part, |(_, v)| v);
        let _ = parse_date(value);
        for f in [
            FilterField::Site,
            FilterField::Type,
            FilterField::Collection,
            FilterField::Lang,
        ] {
            let _ = f.normalise(value);
        }
    }
}

/// The router of `warcdex serve` over the bundled example collection, built once per
/// process into a temporary directory, and the runtime that drives it.
struct HttpApp {
    router: axum::Router,
    rt: tokio::runtime::Runtime,
    _dir: tempfile::TempDir,
}

/// Built on first use; dropped after a request that failed (a panic or a status ≥ 500),
/// because the server may then have set the index aside as damaged (src/serve/mod.rs) and
/// every later request would miss the index, so one replay could hide the next.
static HTTP_APP: Mutex<Option<Arc<HttpApp>>> = Mutex::new(None);

/// The archives of `fixtures/<collection>/manifest.txt`, paths made absolute.
pub fn fixture_manifest(
    collection: &str,
) -> io::Result<Vec<crate::import::manifest::ManifestEntry>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(collection);
    let manifest = dir.join("manifest.txt");
    let f = std::fs::File::open(&manifest)
        .at(&manifest)
        .map_err(|e| io::Error::new(e.source.kind(), e))?;
    crate::import::manifest::read_manifest(io::BufReader::new(f), Some(&dir))
}

/// What the first pipeline steps make of a fixture collection, as files in a directory.
pub struct FixtureLists {
    /// `DIR/<collection>.cdx`: `cdx` over every archive of the manifest.
    pub cdx: PathBuf,
    /// `dedup-cdx` of it, also written to `DIR/<collection>.dup`.
    pub dup: Vec<u8>,
}

/// The workflow's first steps over `fixtures/<collection>`, in-process: `cdx` over every
/// archive of its manifest to `DIR/<collection>.cdx`, and `dedup-cdx` of that to
/// `DIR/<collection>.dup`; a broken CDX line is an error (the fixtures have none). The
/// tests and the http target share it.
pub fn fixture_lists(dir: &Path, collection: &str) -> io::Result<FixtureLists> {
    use crate::cdx_writer::run::{run_cdx, RunOptions};
    use warcdex_cdx::dedup::{dedup_cdx, Input, ListOptions};

    let files: Vec<PathBuf> = fixture_manifest(collection)?
        .into_iter()
        .map(|e| e.path)
        .collect();
    let mut cdx = Vec::new();
    run_cdx(&files, &RunOptions::default(), &mut cdx, &(), &mut |_| {})?;
    let cdx_path = dir.join(format!("{collection}.cdx"));
    std::fs::write(&cdx_path, &cdx)?;
    let mut dup = Vec::new();
    let mut broken = None;
    dedup_cdx(
        &[Input::File(cdx_path.clone())],
        &mut dup,
        &ListOptions::default(),
        &mut |b| broken = Some(b.to_string()),
    )?;
    if let Some(b) = broken {
        return Err(io::Error::new(io::ErrorKind::InvalidData, b));
    }
    std::fs::write(dir.join(format!("{collection}.dup")), &dup)?;
    Ok(FixtureLists { cdx: cdx_path, dup })
}

/// Builds `DIR/pindexes/<set>/{main,dates}` from `fixtures/<collection>` the way the
/// workflow does (cdx → dedup-cdx → import -e → index → add-dates), in-process, with the
/// lists of [`fixture_lists`] and the segment at `DIR/seg`.
pub fn build_fixture_index(dir: &Path, collection: &str, set: &str) -> io::Result<()> {
    use crate::dates::add::{add_dates, AddDatesOptions, DatesInput};
    use crate::import::exclusions::Exclusions;
    use crate::import::segment_dir::write_segment;
    use crate::import::{import_archives, ImportOptions};
    use crate::index::{build_index, IndexOptions};

    let entries = fixture_manifest(collection)?;
    let FixtureLists { dup, .. } = fixture_lists(dir, collection)?;
    let ex = Exclusions::load(&dup[..], KeyStyle::Surt, &mut |_, _| {})?;
    let opts = ImportOptions::default();
    let (rows, reports) = import_archives(&entries, Some(&ex), &opts, &|_| {}, &|_| {})?;
    let seg = dir.join("seg");
    write_segment(&seg, &rows, reports, &opts, None)?;
    let set_dir = dir.join("pindexes").join(set);
    let main = set_dir.join("main");
    build_index(&[seg], &main, &IndexOptions::default())?;
    add_dates(
        &main,
        std::slice::from_ref(&main),
        &set_dir.join("dates"),
        &DatesInput::File(dir.join(format!("{collection}.dup"))),
        &AddDatesOptions::default(),
    )?;
    Ok(())
}

fn http_app() -> Arc<HttpApp> {
    let mut cached = HTTP_APP.lock().unwrap_or_else(|e| e.into_inner());
    cached
        .get_or_insert_with(|| {
            Arc::new({
                let dir = tempfile::tempdir().expect("a temporary directory for the fuzz index");
                build_fixture_index(dir.path(), "example", "example")
                    .expect("the example index builds");
                let index =
                    crate::search::SearchIndex::open(dir.path()).expect("the example index opens");
                assert!(
                    index.broken().is_empty(),
                    "the example index is served whole"
                );
                let opts = crate::serve::ServeOptions {
                    replay_prefix: Some("http://wayback.example/web".into()),
                    search_threads: 1,
                    // The shard routes are fuzzed too.
                    shard: true,
                    ..crate::serve::ServeOptions::default()
                };
                // A current-thread runtime: `block_on` may be called from several test threads
                // at once (they take turns), and searches still go to its blocking pool.
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .max_blocking_threads(2)
                    .build()
                    .expect("a tokio runtime");
                HttpApp {
                    router: crate::serve::router(
                        crate::collection::Collection::open(index.dir()),
                        index,
                        opts,
                    ),
                    rt,
                    _dir: dir,
                }
            })
        })
        .clone()
}

/// Forgets the cached app when dropped during a panic or when `failed` was set.
struct ResetOnFailure {
    failed: bool,
}

impl Drop for ResetOnFailure {
    fn drop(&mut self) {
        if self.failed || std::thread::panicking() {
            HTTP_APP.lock().unwrap_or_else(|e| e.into_inner()).take();
        }
    }
}

/// Builds the example index and router now, so a fuzzer's first input is not charged
/// for it (and a failure to build is reported before fuzzing starts).
pub fn http_init() {
    http_app();
}

/// Percent-encodes the bytes a request target may not hold, so every input becomes a
/// request the handlers see (instead of one `http::Uri` refuses).
fn uri_safe(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len());
    for &b in bytes {
        if b.is_ascii_graphic()
            && !matches!(
                b,
                b'#' | b'"' | b'<' | b'>' | b'\\' | b'^' | b'`' | b'{' | b'|' | b'}'
            )
        {
            s.push(char::from(b));
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

/// Sends one request built from `data` to the `warcdex serve` routes and reads the
/// whole response; panics when the status is 500 or above.
///
/// Layout: the first line is the request target. When it starts with `/` it is used as
/// it is (bytes a URI may not hold are percent-encoded); otherwise byte 0 picks the
/// route (`/`, `/opensearch`, `/search.json`, `/healthz`) and the rest of the line is
/// its query string. Each further line `Name: value` is a request header (invalid ones
/// are left out).
pub fn http(data: &[u8]) {
    let mut reset = ResetOnFailure { failed: false };
    if let Some((target, status, body)) = http_response(data) {
        reset.failed = status >= 500;
        assert!(
            status < 500,
            "{target}: status {status}: {}",
            String::from_utf8_lossy(&body)
        );
    }
}

/// The request [`http`] builds from `data`, answered: its target, the status and the
/// body; `None` when no request could be built (a target `http::Uri` refuses).
pub fn http_response(data: &[u8]) -> Option<(String, u16, Vec<u8>)> {
    use axum::body::Body;
    use axum::http::{HeaderName, HeaderValue, Request};
    use tower::ServiceExt;

    const ROUTES: [&str; 4] = ["/", "/opensearch", "/search.json", "/healthz"];
    let mut lines = data.split(|&b| b == b'\n');
    let first = lines.next().unwrap_or_default();
    let first = first.strip_suffix(b"\r").unwrap_or(first);
    let target = match first.split_first() {
        Some((b'/', _)) => uri_safe(first),
        Some((&sel, query)) => format!(
            "{}?{}",
            ROUTES[usize::from(sel) % ROUTES.len()],
            uri_safe(query)
        ),
        None => "/".to_string(),
    };
    let mut req = Request::builder().uri(target.as_str());
    for line in lines.take(32) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            continue;
        };
        let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(&line[..colon]),
            HeaderValue::from_bytes(line[colon + 1..].trim_ascii()),
        ) else {
            continue;
        };
        req = req.header(name, value);
    }
    let req = req.body(Body::empty()).ok()?;
    let app = http_app();
    let (status, body) = app.rt.block_on(async {
        let resp = app
            .router
            .clone()
            .oneshot(req)
            .await
            .expect("the router is infallible");
        let status = resp.status();
        let body = axum::body::to_bytes(resp.into_body(), usize::MAX)
            .await
            .expect("a response body is readable");
        (status, body)
    });
    Some((target, status.as_u16(), body.to_vec()))
}
