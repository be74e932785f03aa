//! The access point's capture routes: `/web/DATE[MOD_]/URL`, the capture view (the
//! banner page, the archived page rewritten, the original payload), and Memento's
//! TimeGate (`/timegate/URL`) and TimeMaps (`/timemap/link/URL`, `/timemap/json/URL`).
//! Captures are found in the collection's sorted CDX (`all.cdx`), opened per request so
//! that a collection updated by a rename is seen; records are read from the archives of
//! the collection's archive table (`collection::archives`), never from a path in the
//! request. `/text/DATE/URL` is here too; what the capture routes share is
//! `capture_route.rs`.

use std::io::Write;
use std::sync::Arc;

use axum::http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode};
use warcdex_cdx::surt::surt_key;

use super::capture_route::{
    blocked_refusal, capture_route, index_route, not_archived, open_cdx, page_headers, refusal,
    rest_of, server_error, shown_to, with_captures, CaptureContext, St,
};
use super::streamed::{Refusal, Streamer};
use crate::access::Viewer;
use crate::collection::Collection;
use crate::reader::location::ArchiveLocation;
use crate::replay::archival_url::{self, ArchivalUrl, Mode};
use crate::replay::body::{replay, ReplayHead};
use crate::replay::capture::{nearest_in, original_in, Capture, Nearest};
use crate::replay::frame::frame_page;
use crate::replay::memento::{self, MementoUrls};
use crate::replay::record::with_record;
use crate::replay::rewrite::url::UrlRewriter;

/// The view's path prefix.
pub(crate) const PREFIX: &str = "/web";

/// The policy of a replayed capture: it may load only from this server (so from the
/// collection), run no script, and be framed only here.
const REPLAY_CSP: &str = "default-src 'self' data: blob:; style-src 'self' 'unsafe-inline' data:; \
script-src 'none'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'";
/// The policy of an `id_` answer, the payload unrewritten: sandboxed (no script, no
/// form, no navigation of another window), loading nothing. What could still lead off
/// the server is sent as an attachment (`replay::body`).
const IDENTITY_CSP: &str = "sandbox; default-src 'none'; img-src 'self' data:; \
media-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'self'";
/// The policy of the banner page: its own inline style and the frame, nothing else.
const FRAME_CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; frame-src 'self'; \
form-action 'self'; frame-ancestors 'self'";

/// The captures of `url` (its SURT key) nearest `date`, from `dir/all.cdx`, among those
/// `viewer` may see, found by lookups in the sorted CDX (never a reading of every capture
/// of the URL); counted up to `count_at_most` (0: not counted). A 451 when every
/// capture is hidden and one of them is blocked.
pub(super) fn lookup(
    collection: &Collection,
    url: &str,
    date: &str,
    viewer: Option<&Viewer>,
    count_at_most: u64,
) -> Result<(String, Nearest), Refusal> {
    let key = surt_key(url).map_err(|e| {
        refusal(
            StatusCode::BAD_REQUEST,
            format!("not a URL the CDX can key: {e}"),
        )
    })?;
    let (cdx, path) = open_cdx(collection)?;
    let viewer = viewer.filter(|v| !v.sees_everything());
    let mut blocked = false;
    let mut shown = |c: &Capture| shown_to(viewer, &key, c, &mut blocked);
    let n = nearest_in(&cdx, &key, date, &mut shown, count_at_most)
        .map_err(|e| server_error(&format!("{}: {e}", path.display())))?;
    // With no capture shown, every capture of the key was judged.
    if n.capture.is_none() && blocked {
        return Err(blocked_refusal(url));
    }
    Ok((key, n))
}

/// Captures a banner counts at most: past them it says "more than".
const COUNT_AT_MOST: u64 = 10_000;

/// The URL of pywb's capture list, `*/URL` or `DATE*/URL` (a date prefix); `None` for
/// any other archival URL.
fn capture_list_url(rest: &str) -> Option<&str> {
    let (date, url) = rest.split_once('/')?;
    let prefix = date.strip_suffix('*')?;
    (prefix.len() <= 14 && prefix.bytes().all(|b| b.is_ascii_digit()) && !url.is_empty())
        .then_some(url)
}

/// `/web/…`: the capture view.
pub(crate) fn web(ctx: CaptureContext, rest: String, out: &mut Streamer) -> Result<(), Refusal> {
    if let Some(url) = capture_list_url(&rest) {
        // pywb lists a URL's captures at `/web/*/URL` (and `/web/2007*/URL`); the history
        // page is that list here: every version, every capture linked to its view.
        let to = crate::replay::versions_page::history_link(url);
        return redirect(out, &to, HeaderMap::new());
    }
    let a = archival_url::parse(&rest).map_err(|e| refusal(StatusCode::BAD_REQUEST, e.0))?;
    if a.mode == Mode::Raw {
        // Unrewritten pages with their scripts never run on the search application's
        // origin: `ir_` is the replay origin's (`replay_origin.rs`).
        return Err(refusal(
            StatusCode::NOT_FOUND,
            "ir_ is answered on the replay origin (serve --replay scripts), not here",
        ));
    }
    let viewer = ctx.viewer.as_ref();
    // The banner says how many captures the URL has; the page and the payload do not.
    let count = match a.mode {
        Mode::Frame => COUNT_AT_MOST,
        _ => 0,
    };
    let (mut key, mut n) = lookup(&ctx.collection, &a.url, &a.date, viewer, count)?;
    if n.capture.is_none() {
        // A page asks for `site.css?v=2` and the crawl kept `site.css` (or the other way
        // round with a cache-busting query): the URL without its query, as pywb's
        // fuzzy match does, rather than a page without its stylesheet.
        if let Some((bare, _)) = a.url.split_once('?') {
            (key, n) = lookup(&ctx.collection, bare, &a.date, viewer, count)?;
        }
    }
    let Some(c) = n.capture.clone() else {
        return Err(not_archived(&a.url));
    };
    let urls = MementoUrls {
        base: ctx.base.clone(),
        original: a.url.clone(),
    };
    let mut headers = memento_headers(&urls, &c, &n);
    if a.mode == Mode::Frame {
        if c.timestamp != a.date {
            // The view of the nearest capture, under its own date (as Wayback does), so
            // the address names what is shown.
            let to = archival_url::format(PREFIX, &c.timestamp, Mode::Frame, &a.url);
            return redirect(out, &to, HeaderMap::new());
        }
        if c.status.starts_with('3') {
            // A redirect: the top page goes where it led, so the banner names the page
            // shown (a frame holding a second banner would not).
            if let Some(to) = redirect_target(&ctx, &c, &a.url)? {
                let to = archival_url::format(PREFIX, &c.timestamp, Mode::Frame, &to);
                return redirect(out, &to, headers);
            }
        }
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/html; charset=utf-8"),
        );
        let csp = match ctx.hifi.frame_origin() {
            "" => HeaderValue::from_static(FRAME_CSP),
            origin => HeaderValue::from_str(
                &FRAME_CSP.replace("frame-src 'self'", &format!("frame-src 'self' {origin}")),
            )
            .unwrap_or(HeaderValue::from_static(FRAME_CSP)),
        };
        headers.insert(header::CONTENT_SECURITY_POLICY, csp);
        out.start(StatusCode::OK, headers);
        let page = frame_page(PREFIX, &a.url, &n, &ctx.hifi);
        return out
            .write_all(page.as_bytes())
            .map_err(|e| refusal(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()));
    }
    let source = payload_of(&ctx.collection, &key, &c)?;
    replay_record(&ctx, &a, &c, &source, headers, out)
}

/// The policy of an `ir_` answer should a browser open it as a page: nothing runs, nothing
/// loads. (The service worker that asks for it reads the archived headers, not this.)
const RAW_CSP: &str = "sandbox; default-src 'none'";

/// `ir_` (the replay origin's service worker asks): the capture nearest the date, found
/// as `/cdx` finds it — the URL itself, else pywb's fuzzy rules (a stylesheet asked for
/// as `site.css?v=2` and archived without its query) — answered with its archived status
/// and headers, revisits resolved, under the access rules.
pub(super) fn raw(ctx: CaptureContext, a: ArchivalUrl, out: &mut Streamer) -> Result<(), Refusal> {
    let viewer = ctx.viewer.as_ref();
    let (mut key, mut n) = lookup(&ctx.collection, &a.url, &a.date, viewer, 0)?;
    if n.capture.is_none() {
        if let Some((url, date)) = fuzzy_match(&ctx.collection, &a.url, &a.date, viewer)? {
            (key, n) = lookup(&ctx.collection, &url, &date, viewer, 0)?;
        }
    }
    let Some(c) = n.capture.clone() else {
        return Err(not_archived(&a.url));
    };
    let mut headers = HeaderMap::new();
    insert_memento_datetime(&mut headers, &c);
    let source = payload_of(&ctx.collection, &key, &c)?;
    replay_record(&ctx, &a, &c, &source, headers, out)
}

/// The capture `/cdx` would answer for `url` near `date` when the URL itself has none:
/// its URL and date, by pywb's fuzzy rules, among the captures `viewer` may see.
fn fuzzy_match(
    collection: &Collection,
    url: &str,
    date: &str,
    viewer: Option<&Viewer>,
) -> Result<Option<(String, String)>, Refusal> {
    use warcdex_cdx::query::{AccessTest, CdxQuery};
    let q = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("url", url)
        .append_pair("closest", date)
        .append_pair("sort", "closest")
        .append_pair("limit", "1")
        .append_pair("output", "json")
        .append_pair("fl", "url,timestamp")
        .finish();
    let Ok(mut query) = CdxQuery::parse(q.as_bytes()) else {
        return Ok(None);
    };
    if let Some(v) = viewer.filter(|v| !v.sees_everything()).cloned() {
        query = query.with_access(AccessTest(Arc::new(move |key: &str, ts: &str| {
            v.access(key.as_bytes(), ts.parse().unwrap_or(0)) == crate::access::Access::Allow
        })));
    }
    let (cdx, path) = open_cdx(collection)?;
    let mut first = FirstLine(Vec::new());
    match query.answer(&cdx, &mut first) {
        Ok(()) => {}
        // The first line is all that was wanted.
        Err(warcdex_cdx::query::AnswerError::Io(e))
            if e.kind() == std::io::ErrorKind::WriteZero => {}
        Err(e) => return Err(server_error(&format!("{}: {e}", path.display()))),
    }
    #[derive(serde::Deserialize)]
    struct Found {
        url: String,
        timestamp: String,
    }
    Ok(serde_json::from_slice::<Found>(&first.0)
        .ok()
        .map(|f| (f.url, f.timestamp)))
}

/// A writer that keeps the first line written and refuses what follows it.
struct FirstLine(Vec<u8>);

impl Write for FirstLine {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.0.ends_with(b"\n") {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        match buf.iter().position(|&b| b == b'\n') {
            Some(i) => {
                self.0.extend_from_slice(&buf[..=i]);
                Ok(i + 1)
            }
            None if self.0.len() + buf.len() > 64 * 1024 => {
                Err(std::io::ErrorKind::WriteZero.into())
            }
            None => {
                self.0.extend_from_slice(buf);
                Ok(buf.len())
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Where a redirect capture of `url` led: its `Location` resolved against `url`, when it
/// is an http(s) URL.
fn redirect_target(
    ctx: &CaptureContext,
    c: &Capture,
    url: &str,
) -> Result<Option<String>, Refusal> {
    let path = archive_at(&ctx.collection, &c.filename)?;
    let location = with_record(&path, c.offset, c.length, |h, _| h.header_str("Location"))
        .map_err(|e| server_error(&crate::path_error::Chain(&e).to_string()))?;
    let Some(location) = location else {
        return Ok(None);
    };
    let to = url::Url::parse(url).and_then(|base| base.join(&location));
    Ok(to
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .map(String::from))
}

/// The capture whose record holds `c`'s payload: `c` itself, or for a revisit the
/// capture it stands for ([`original`]).
fn payload_of(collection: &Collection, key: &str, c: &Capture) -> Result<Capture, Refusal> {
    match c.is_revisit() {
        true => original(collection, key, c),
        false => Ok(c.clone()),
    }
}

/// The capture a revisit stands for: one of the same digest under the same URL, or
/// under the URL its record refers to.
fn original(collection: &Collection, key: &str, revisit: &Capture) -> Result<Capture, Refusal> {
    let (cdx, cdx_path) = open_cdx(collection)?;
    let cdx_error = |e: std::io::Error| server_error(&format!("{}: {e}", cdx_path.display()));
    let found = original_in(&cdx, key, &revisit.digest, &revisit.timestamp).map_err(cdx_error)?;
    if let Some(c) = found {
        return Ok(c);
    }
    let path = archive_at(collection, &revisit.filename)?;
    let refers = with_record(&path, revisit.offset, revisit.length, |h, _| {
        (h.refers_to_uri.clone(), h.refers_to_date.clone())
    })
    .map_err(|e| server_error(&crate::path_error::Chain(&e).to_string()))?;
    if let (Some(uri), date) = refers {
        if let Ok(k) = surt_key(&uri) {
            let date = date.unwrap_or_else(|| revisit.timestamp.clone());
            if let Some(c) = original_in(&cdx, &k, &revisit.digest, &date).map_err(cdx_error)? {
                return Ok(c);
            }
        }
    }
    Err(refusal(
        StatusCode::NOT_FOUND,
        format!("the capture of {} on {} records that it is unchanged, but the capture it repeats is not in this collection", revisit.original, revisit.timestamp),
    ))
}

/// Where the archive the CDX names `name` is (a 404 when the collection has none of
/// that name).
fn archive_at(collection: &Collection, name: &str) -> Result<ArchiveLocation, Refusal> {
    match collection.archives().location(name) {
        Ok(Some(at)) => Ok(at),
        Ok(None) => Err(refusal(
            StatusCode::NOT_FOUND,
            format!("the archive {name} is not in this collection"),
        )),
        Err(e) => Err(server_error(&crate::path_error::Chain(&e).to_string())),
    }
}

/// Streams `source`'s record as the answer for capture `shown`.
fn replay_record(
    ctx: &CaptureContext,
    a: &ArchivalUrl,
    shown: &Capture,
    source: &Capture,
    mut headers: HeaderMap,
    out: &mut Streamer,
) -> Result<(), Refusal> {
    let path = archive_at(&ctx.collection, &source.filename)?;
    let base =
        url::Url::parse(&a.url).map_err(|e| refusal(StatusCode::BAD_REQUEST, e.to_string()))?;
    let rw = UrlRewriter {
        base,
        date: shown.timestamp.clone(),
        prefix: PREFIX.to_string(),
    };
    let csp = match a.mode {
        Mode::Identity => IDENTITY_CSP,
        Mode::Raw => RAW_CSP,
        _ => REPLAY_CSP,
    };
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(csp),
    );
    // The head and the body are written by two closures.
    let out = std::cell::RefCell::new(out);
    let result = with_record(&path, source.offset, source.length, |head, body| {
        let mut started = false;
        let r = replay(
            head,
            body,
            a.mode,
            rw,
            |rh: ReplayHead| {
                for (name, value) in rh.headers {
                    if let (Ok(n), Ok(v)) = (
                        HeaderName::from_bytes(name.as_bytes()),
                        HeaderValue::from_bytes(&value),
                    ) {
                        headers.append(n, v);
                    }
                }
                let status = StatusCode::from_u16(rh.status).unwrap_or(StatusCode::OK);
                out.borrow_mut().start(status, std::mem::take(&mut headers));
                started = true;
            },
            &mut |b| out.borrow_mut().write_all(b),
        );
        (r, started)
    });
    match result {
        Ok((Ok(()), _)) => Ok(()),
        // The client went away, or the payload ended early: the answer stops there.
        Ok((Err(e), true)) => Err(refusal(StatusCode::OK, e.to_string())),
        Ok((Err(e), false)) => Err(server_error(&crate::path_error::Chain(&e).to_string())),
        Err(e) => Err(server_error(&crate::path_error::Chain(&e).to_string())),
    }
}

/// `Memento-Datetime` and `Link` of the capture `c` of `urls.original`.
fn memento_headers(urls: &MementoUrls, c: &Capture, n: &Nearest) -> HeaderMap {
    let mut h = HeaderMap::new();
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    insert_memento_datetime(&mut h, c);
    insert_links(&mut h, urls, c, n);
    h
}

/// The `Memento-Datetime` header of capture `c`.
fn insert_memento_datetime(h: &mut HeaderMap, c: &Capture) {
    if let Ok(v) = HeaderValue::from_str(&memento::http_date(&c.timestamp)) {
        h.insert("memento-datetime", v);
    }
}

/// The Memento `Link` header of capture `c` (a memento's, or a TimeGate's redirect to it).
fn insert_links(h: &mut HeaderMap, urls: &MementoUrls, c: &Capture, n: &Nearest) {
    if let Ok(v) = HeaderValue::from_str(&memento::memento_links(urls, c, n)) {
        h.insert(header::LINK, v);
    }
}

fn redirect(out: &mut Streamer, to: &str, mut headers: HeaderMap) -> Result<(), Refusal> {
    let loc = HeaderValue::from_str(to)
        .map_err(|_| refusal(StatusCode::BAD_REQUEST, "the URL cannot be a Location"))?;
    headers.insert(header::LOCATION, loc);
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    out.start(StatusCode::FOUND, headers);
    Ok(())
}

/// The archived URL of a Memento route (`/timegate/URL`, `/timemap/…/URL`), checked.
fn memento_target(rest: &str) -> Result<String, Refusal> {
    // The archival URL parser's checks, with a date that is not used.
    archival_url::parse(&format!("1/{rest}"))
        .map(|a| a.url)
        .map_err(|e| refusal(StatusCode::BAD_REQUEST, e.0))
}

/// `/timegate/URL`: a redirect to the memento nearest `Accept-Datetime` (the latest
/// without it), RFC 7089 §4.1.1 (pattern 2.2: the TimeGate is not the original).
pub(crate) fn timegate(
    ctx: CaptureContext,
    rest: String,
    accept: Option<String>,
    out: &mut Streamer,
) -> Result<(), Refusal> {
    let url = memento_target(&rest)?;
    let date = match accept {
        None => "99991231235959".to_string(),
        Some(v) => memento::parse_http_date(&v).ok_or_else(|| {
            refusal(StatusCode::BAD_REQUEST, "Accept-Datetime must be an HTTP date (RFC 7089 §2.1.1), like Thu, 01 Jan 2004 12:00:00 GMT")
        })?,
    };
    let (_, n) = lookup(&ctx.collection, &url, &date, ctx.viewer.as_ref(), 0)?;
    let Some(c) = n.capture.as_ref() else {
        return Err(not_archived(&url));
    };
    let urls = MementoUrls {
        base: ctx.base.clone(),
        original: url,
    };
    let mut h = HeaderMap::new();
    h.insert(header::VARY, HeaderValue::from_static("accept-datetime"));
    insert_links(&mut h, &urls, c, &n);
    redirect(out, &urls.memento(&c.timestamp), h)
}

/// `/timemap/link/URL` and `/timemap/json/URL`: every memento of the URL, streamed.
pub(crate) fn timemap(
    ctx: CaptureContext,
    rest: String,
    json: bool,
    out: &mut Streamer,
) -> Result<(), Refusal> {
    let url = memento_target(&rest)?;
    let key = surt_key(&url).map_err(|e| {
        refusal(
            StatusCode::BAD_REQUEST,
            format!("not a URL the CDX can key: {e}"),
        )
    })?;
    let urls = MementoUrls {
        base: ctx.base.clone(),
        original: url.clone(),
    };
    with_captures(&ctx.collection, &key, ctx.viewer.as_ref(), |caps| {
        let mut caps = caps.peekable();
        if caps.peek().is_none() {
            return Ok(false);
        }
        let mut h = HeaderMap::new();
        let ct = match json {
            true => "application/json",
            false => "application/link-format",
        };
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static(ct));
        out.start(StatusCode::OK, h);
        match json {
            true => memento::write_timemap_json(&urls, caps, out)?,
            false => memento::write_timemap_link(&urls, caps, out)?,
        };
        Ok(true)
    })
    .and_then(|found| match found {
        (true, _) => Ok(()),
        (false, true) => Err(blocked_refusal(&url)),
        (false, false) => Err(not_archived(&url)),
    })
}

/// The base of absolute links: `--public-url`, else `http://` and the request's `Host`
/// when it is a plain host and port (the address the client itself used), else none
/// (links are then relative to this server's root).
pub(crate) fn base_url(public: Option<&str>, headers: &HeaderMap) -> String {
    if let Some(p) = public {
        return p.trim_end_matches('/').to_string();
    }
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    let plain = !host.is_empty()
        && host.len() <= 255
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-.:[]".contains(&b));
    match plain {
        true => format!("http://{host}"),
        false => String::new(),
    }
}

/// `GET /web/DATE[MOD_]/URL`.
pub(crate) async fn web_route(
    axum::extract::State(state): St,
    uri: axum::http::Uri,
    headers: HeaderMap,
) -> axum::response::Response {
    let rest = rest_of(&uri, "/web/");
    capture_route(&state, &headers, move |a, out| web(a, rest, out)).await
}

/// `GET /timegate/URL` with `Accept-Datetime`.
pub(crate) async fn timegate_route(
    axum::extract::State(state): St,
    uri: axum::http::Uri,
    headers: HeaderMap,
) -> axum::response::Response {
    let rest = rest_of(&uri, "/timegate/");
    let accept = (headers.get("accept-datetime"))
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    capture_route(&state, &headers, move |a, out| {
        timegate(a, rest, accept, out)
    })
    .await
}

/// `GET /timemap/link/URL` and `GET /timemap/json/URL`.
pub(crate) async fn timemap_route(
    axum::extract::State(state): St,
    uri: axum::http::Uri,
    headers: HeaderMap,
) -> axum::response::Response {
    let (rest, json) = match uri.path().starts_with("/timemap/json/") {
        true => (rest_of(&uri, "/timemap/json/"), true),
        false => (rest_of(&uri, "/timemap/link/"), false),
    };
    capture_route(&state, &headers, move |a, out| timemap(a, rest, json, out)).await
}

/// `/text/DATE/URL`: the text the capture's version was indexed with.
fn text(
    ctx: CaptureContext,
    index: Arc<super::Loaded>,
    rest: String,
    out: &mut Streamer,
) -> Result<(), Refusal> {
    let a = archival_url::parse(&rest).map_err(|e| refusal(StatusCode::BAD_REQUEST, e.0))?;
    let (key, n) = lookup(&ctx.collection, &a.url, &a.date, ctx.viewer.as_ref(), 0)?;
    let Some(c) = n.capture else {
        return Err(not_archived(&a.url));
    };
    if c.timestamp != a.date {
        return redirect(
            out,
            &format!("/text/{}/{}", c.timestamp, a.url),
            HeaderMap::new(),
        );
    }
    let found = index
        .index
        .indexed_text(&key, &c.digest)
        .map_err(|e| server_error(&crate::path_error::Chain(&e).to_string()))?;
    let Some(t) = found else {
        return Err(refusal(
            StatusCode::NOT_FOUND,
            format!("the capture of {} on {} was not indexed (its type has no text, or it was left out at import)", a.url, c.timestamp),
        ));
    };
    let h = page_headers();
    out.start(StatusCode::OK, h);
    let page = crate::replay::text_page::text_page(PREFIX, &a.url, &c.timestamp, &t);
    out.write_all(page.as_bytes())
        .map_err(|e| refusal(StatusCode::OK, e.to_string()))
}

/// `GET /text/DATE/URL`.
pub(crate) async fn text_route(
    axum::extract::State(state): St,
    uri: axum::http::Uri,
    headers: HeaderMap,
) -> axum::response::Response {
    index_route(&state, &uri, &headers, "/text/", text).await
}
