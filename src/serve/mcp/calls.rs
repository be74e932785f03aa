//! The five tools' work, over the same state, functions and access rules as the HTTP
//! routes: `search` is `/search.json`'s search, `get_text` `/text/`'s lookup, `list_captures`
//! `/cdx`'s query, `history` and `diff` those of `/history/` and `/diff/`. Whatever the
//! asker may not see stays out exactly as it does there; a capture blocked to the asker is
//! named as blocked, an excluded one as never archived.

use std::sync::Arc;

use axum::http::HeaderMap;
use warcdex_cdx::query::{AccessTest, AnswerError, CdxQuery};

use super::answers::{
    CaptureRow, CapturesAnswer, CollectionAnswer, DiffAnswer, DiffSide, FacetValue, Facets,
    HistoryAnswer, Provenance, SearchAnswer, SearchHit, TextAnswer, VersionRow,
};
use super::args::{self, DiffArgs, GetTextArgs, HistoryArgs, ListCapturesArgs, SearchArgs};
use crate::access::{Access, Viewer};
use crate::near::word_diff::WordRun;
use crate::search::history::diff_versions;
use crate::search::{Hit, SearchRequest, Selection, MAX_START};

use super::super::capture_route::shown_to;
use super::super::state::{current, AppState, Backend, Loaded};
use super::super::{search_routes, versions, web};

/// Versions `history` lists at most (the latest).
const MAX_VERSIONS: usize = 200;
/// Characters of removed (and of added) words `diff` lists at most.
const MAX_DIFF_CHARS: usize = 20_000;
/// Capture dates listed with a hit at most.
const MAX_HIT_DATES: usize = 50;
/// Values of a facet listed at most.
const MAX_FACET_VALUES: usize = 10;
/// The date "latest": the capture nearest it is the last.
const LATEST: &str = "99991231235959";

/// Who asks and how links are written: one tool call's context.
pub struct Ask {
    /// The server's state (index, collection, rules, permits).
    pub state: Arc<AppState>,
    /// The headers the asker's user is read from (the HTTP request's, or the stdio
    /// server's fixed user).
    pub headers: HeaderMap,
}

impl Ask {
    fn viewer(&self) -> Option<Viewer> {
        self.state.opts.viewer(&self.headers)
    }

    /// The capture view's link to `url` at `date`: absolute on `--public-url` or the
    /// request's host, else a path (stdio without `--public-url`).
    fn view_link(&self, date: &str, url: &str) -> String {
        let base = web::base_url(self.state.opts.public_url.as_deref(), &self.headers);
        format!("{base}{}/{date}/{url}", web::PREFIX)
    }

    /// The index and collection, on a server of sets; a front server holds no captures.
    async fn local(&self) -> Result<(Arc<Loaded>, Arc<crate::collection::Collection>), String> {
        match &self.state.backend {
            Backend::Local(l) => Ok((current(l, &self.state.opts).await, l.collection.clone())),
            Backend::Remote(_) => {
                Err("this is a front server: it holds no captures (ask a shard server)".into())
            }
        }
    }

    /// Runs `f` on the blocking pool under one of the search permits.
    async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> Result<T, String> + Send + 'static,
    ) -> Result<T, String> {
        let permit = (self.state.permits.clone().acquire_owned().await)
            .map_err(|_| "the server is shutting down".to_string())?;
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            f()
        })
        .await
        .unwrap_or_else(|e| {
            eprintln!("warcdex mcp: a tool call failed: {e}");
            Err("the collection could not be read".into())
        })
    }
}

/// For an archive inside a WACZ: `WACZ-FILE-NAME#PATH-IN-IT` (no folder: the server's
/// paths are not the asker's business).
fn container(collection: &crate::collection::Collection, archive: &str) -> Option<String> {
    in_wacz(&*collection.archives().table().ok()?, archive)
}

/// [`container`] from the archive table read once.
fn in_wacz(table: &crate::collection::ArchiveTable, archive: &str) -> Option<String> {
    let loc = table.location(archive)?;
    let entry = loc.entry_name()?;
    let file = loc.path().file_name()?.to_string_lossy().into_owned();
    Some(format!("{file}#{entry}"))
}

fn refusal_text((_, msg): (axum::http::StatusCode, String)) -> String {
    msg
}

/// `search`.
pub async fn search(ask: &Ask, a: SearchArgs) -> Result<SearchAnswer, String> {
    let mut query = a.query.trim().to_string();
    if query.is_empty() {
        return Err("query is empty: give words to search for".into());
    }
    if let Some(s) = &a.site {
        query.push_str(&format!(" site:{}", args::site(s)?));
    }
    if a.from.is_some() || a.to.is_some() {
        let from = a
            .from
            .as_deref()
            .map(|d| args::date("from", d))
            .transpose()?;
        let to = a.to.as_deref().map(|d| args::date("to", d)).transpose()?;
        let from = from.unwrap_or_else(|| "1000".into());
        let to = to.unwrap_or_else(|| "9999".into());
        query.push_str(&format!(" date:{from}-{to}"));
    }
    let as_of = a
        .as_of
        .as_deref()
        .map(|d| args::date("as_of", d))
        .transpose()?;
    let page_size = args::bounded("page_size", a.page_size, 10, args::MAX_PAGE_SIZE)?;
    let page = args::bounded("page", a.page, 1, usize::MAX)?;
    let start = (page - 1).saturating_mul(page_size);
    if start > MAX_START {
        return Err(format!(
            "page {page} is too deep: the first {MAX_START} hits can be paged through"
        ));
    }
    let selection =
        Selection::as_of(&query, as_of.as_deref(), ask.viewer()).map_err(|e| e.to_string())?;
    let req = SearchRequest {
        viewer: selection.viewer,
        query: selection.text.clone(),
        start,
        hits: page_size,
        hits_per_site: ask.state.opts.hits_per_site,
        replay_prefix: None,
        history: true,
        ..SearchRequest::default()
    };
    let r = search_routes::run_request(&ask.state, req, &ask.headers)
        .await
        .map_err(refusal_text)?;
    let hits = provenance_of_hits(ask, &r.hits).await?;
    Ok(SearchAnswer {
        query: selection.text,
        total: r.total,
        page,
        page_size,
        has_more: r.has_more,
        relaxed: r.relaxed.map(|x| x.message()),
        suggestion: r.suggestion.clone(),
        unavailable: r.unavailable.clone(),
        facets: Facets {
            site: facet_values(&r.facets.site, MAX_FACET_VALUES),
            year: facet_values(&r.facets.year, usize::MAX),
            mime: facet_values(&r.facets.mime, MAX_FACET_VALUES),
            lang: facet_values(&r.facets.lang, MAX_FACET_VALUES),
        },
        hits: r
            .hits
            .iter()
            .zip(hits)
            .map(|(h, provenance)| SearchHit {
                rank: h.index + 1,
                url: h.url.clone(),
                title: h.title.clone(),
                snippet: h.snippet.render(|o, t| o.push_str(t), "«", "»"),
                site: h.site.clone(),
                mime: h.mime.clone(),
                capture_dates: h.dates.iter().take(MAX_HIT_DATES).cloned().collect(),
                captures: h.dates.len(),
                capture_view: ask.view_link(&provenance.timestamp, &h.url),
                provenance,
                versions: h.versions_total.max(1),
            })
            .collect(),
    })
}

/// The `warcdex://collection` resource: every version the asker may see, counted by year,
/// site, type and language (a search of `*`).
pub async fn describe(ask: &Ask) -> Result<CollectionAnswer, String> {
    let req = SearchRequest {
        viewer: ask.viewer(),
        query: "*".into(),
        hits: 1,
        history: false,
        ..SearchRequest::default()
    };
    let r = search_routes::run_request(&ask.state, req, &ask.headers)
        .await
        .map_err(refusal_text)?;
    let sets = match &ask.state.backend {
        Backend::Local(l) => l.loaded().index.sets().len(),
        Backend::Remote(_) => 0,
    };
    Ok(CollectionAnswer {
        versions: r.total,
        sets,
        first_year: r.facets.year.first().map(|y| y.value.clone()),
        last_year: r.facets.year.last().map(|y| y.value.clone()),
        years: facet_values(&r.facets.year, usize::MAX),
        sites: facet_values(&r.facets.site, 25),
        types: facet_values(&r.facets.mime, MAX_FACET_VALUES),
        languages: facet_values(&r.facets.lang, MAX_FACET_VALUES),
    })
}

/// The first `n` values of a facet.
fn facet_values(v: &[crate::search::facets::FacetCount], n: usize) -> Vec<FacetValue> {
    (v.iter().take(n))
        .map(|f| FacetValue {
            value: f.value.clone(),
            count: f.count,
        })
        .collect()
}

/// Each hit's first capture shown to the asker, from the CDX: the hit's own record
/// (its version's earliest capture) may be one the rules hide from them. A front server
/// has no CDX: its shards' records are given as they are.
async fn provenance_of_hits(ask: &Ask, hits: &[Hit]) -> Result<Vec<Provenance>, String> {
    let own = |h: &Hit| Provenance {
        url: h.url.clone(),
        timestamp: h.dates.first().cloned().unwrap_or_default(),
        archive: h.filename.clone(),
        container: None,
        offset: h.offset,
        length: h.length,
        digest: h.digest.clone(),
    };
    let Backend::Local(l) = &ask.state.backend else {
        return Ok(hits.iter().map(own).collect());
    };
    let viewer = ask.viewer().filter(|v| !v.sees_everything());
    let collection = l.collection.clone();
    let wanted: Vec<Provenance> = hits.iter().map(own).collect();
    ask.blocking(move || {
        let table = collection.archives().table().ok();
        let wacz_of = |archive: &str| table.as_ref().and_then(|t| in_wacz(t, archive));
        let Some(viewer) = viewer else {
            // Every capture is shown: the hit's record is its first capture's (a lookup
            // per hit in the CDX cost two thirds of the call).
            return Ok((wanted.into_iter())
                .map(|want| Provenance {
                    container: wacz_of(&want.archive),
                    ..want
                })
                .collect());
        };
        let cdx = collection.cdx().ok();
        Ok(wanted
            .into_iter()
            .map(|want| {
                match (cdx.as_ref()).and_then(|cdx| shown_capture(cdx, &want, Some(&viewer))) {
                    Some(c) => Provenance {
                        url: c.original,
                        timestamp: c.timestamp,
                        container: wacz_of(&c.filename),
                        archive: c.filename,
                        offset: c.offset,
                        length: c.length,
                        digest: format!("sha1:{}", c.digest),
                    },
                    // The hit's own record is its version's first capture, which the asker
                    // may not see: said only as the CDX shows it.
                    None => Provenance {
                        archive: String::new(),
                        container: None,
                        offset: 0,
                        length: 0,
                        ..want
                    },
                }
            })
            .collect())
    })
    .await
}

/// The capture of `want`'s URL at its date that `viewer` may see, from the CDX lines of
/// that key and date (one search of the sorted file; the version's own digest first).
fn shown_capture(
    cdx: &warcdex_cdx::lookup::SortedCdx,
    want: &Provenance,
    viewer: Option<&Viewer>,
) -> Option<crate::replay::capture::Capture> {
    let key = warcdex_cdx::surt::surt_key(&want.url).ok()?;
    let from = format!("{key} {}", want.timestamp);
    let digest = want.digest.trim_start_matches("sha1:");
    let mut shown = Vec::new();
    let mut blocked = false;
    // Lines of one URL key and second: a handful (a capture and its revisits); read 64 at most.
    for line in cdx.lines_from(from.as_bytes()).ok()?.take(64) {
        let line = line.ok()?;
        if !line.starts_with(from.as_bytes()) {
            break;
        }
        let Some(c) = crate::replay::capture::Capture::parse(&line) else {
            continue;
        };
        if c.urlkey == key
            && c.timestamp == want.timestamp
            && shown_to(viewer, &key, &c, &mut blocked)
        {
            if c.digest == digest {
                return Some(c);
            }
            shown.push(c);
        }
    }
    shown.into_iter().next()
}

/// `get_text`.
pub async fn get_text(ask: &Ask, a: GetTextArgs) -> Result<TextAnswer, String> {
    let url = args::url("url", &a.url)?;
    let date = match &a.date {
        Some(d) => crate::search::history::pad_date(&args::date("date", d)?).unwrap_or_default(),
        None => LATEST.to_string(),
    };
    let max = args::bounded(
        "max_chars",
        a.max_chars,
        args::DEFAULT_TEXT_CHARS,
        args::MAX_TEXT_CHARS,
    )?;
    let offset = a.offset.unwrap_or(0);
    let (loaded, collection) = ask.local().await?;
    let viewer = ask.viewer();
    let found = ask
        .blocking(move || {
            let (key, n) = web::lookup(&collection, &url, &date, viewer.as_ref(), 0)
                .map_err(refusal_text)?;
            let c = n.capture.ok_or_else(|| format!("{url} is not in this collection"))?;
            let t = (loaded.index.indexed_text(&key, &c.digest))
                .map_err(|e| {
                    eprintln!("warcdex mcp: {}", crate::path_error::Chain(&e));
                    "the collection could not be read".to_string()
                })?
                .ok_or_else(|| {
                    format!("the capture of {url} on {} was not indexed (its type has no text, or it was left out at import)", c.timestamp)
                })?;
            let inside = container(&collection, &c.filename);
            Ok((url, c, t, inside))
        })
        .await?;
    let (url, c, t, inside) = found;
    let total = t.text.chars().count() as u64;
    if offset > total {
        return Err(format!(
            "offset {offset} is past the end of the text ({total} characters)"
        ));
    }
    let text: String = t.text.chars().skip(offset as usize).take(max).collect();
    let end = offset + text.chars().count() as u64;
    Ok(TextAnswer {
        capture_view: ask.view_link(&c.timestamp, &url),
        provenance: Provenance {
            url: c.original,
            timestamp: c.timestamp,
            archive: c.filename,
            container: inside,
            offset: c.offset,
            length: c.length,
            digest: t.digest.clone(),
        },
        title: t.title,
        mime: t.mime,
        text,
        offset,
        total_chars: total,
        next_offset: (end < total).then_some(end),
    })
}

/// `list_captures`: pywb's CDX API query, as `/cdx?output=json` answers it.
pub async fn list_captures(ask: &Ask, a: ListCapturesArgs) -> Result<CapturesAnswer, String> {
    let url = args::url("url", &a.url)?;
    let match_type = a.match_type.unwrap_or(args::MatchType::Exact);
    let limit = args::bounded("limit", a.limit, args::DEFAULT_CAPTURES, args::MAX_CAPTURES)?;
    let mut params = vec![
        ("url", url.clone()),
        ("matchType", match_type.name().to_string()),
        ("output", "json".to_string()),
        ("limit", (limit + 1).to_string()),
    ];
    for (name, v) in [("from", &a.from), ("to", &a.to)] {
        if let Some(d) = v {
            params.push((name, args::date(name, d)?));
        }
    }
    let narrowed = a.from.is_some() || a.to.is_some();
    let query = serde_urlencoded::to_string(&params).map_err(|e| e.to_string())?;
    let (_, collection) = ask.local().await?;
    let viewer = ask.viewer().filter(|v| !v.sees_everything());
    let mut captures = ask
        .blocking(move || {
            let mut q = CdxQuery::parse(query.as_bytes()).map_err(|e| e.message)?;
            if let Some(v) = viewer {
                q = q.with_access(AccessTest(Arc::new(move |key: &str, ts: &str| {
                    v.access(key.as_bytes(), ts.parse().unwrap_or(0)) == Access::Allow
                })));
            }
            let cdx = collection
                .cdx()
                .map_err(|_| "this collection has no CDX index (all.cdx)".to_string())?;
            let mut out = Vec::new();
            q.answer(&cdx, &mut out).map_err(|e| match e {
                AnswerError::Query(e) => e.message,
                AnswerError::Io(e) => {
                    eprintln!("warcdex mcp: {}: {e}", collection.cdx_path().display());
                    "the collection could not be read".to_string()
                }
            })?;
            let table = collection.archives().table().ok();
            capture_rows(&out, table.as_deref())
        })
        .await?;
    if captures.is_empty() && !narrowed {
        return Err(format!("{url} is not in this collection"));
    }
    let truncated = captures.len() > limit;
    captures.truncate(limit);
    Ok(CapturesAnswer {
        url,
        match_type: match_type.name().into(),
        captures,
        truncated,
    })
}

/// The rows of the CDX API's JSON lines, each archive's container from `table`.
fn capture_rows(
    lines: &[u8],
    table: Option<&crate::collection::ArchiveTable>,
) -> Result<Vec<CaptureRow>, String> {
    let mut captures: Vec<CaptureRow> = Vec::new();
    for line in lines.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let v: serde_json::Value = serde_json::from_slice(line).map_err(|e| e.to_string())?;
        let s = |k: &str| v.get(k).and_then(|x| x.as_str()).unwrap_or("").to_string();
        let n = |k: &str| s(k).parse::<u64>().unwrap_or(0);
        let digest = s("digest");
        captures.push(CaptureRow {
            timestamp: s("timestamp"),
            url: s("url"),
            status: s("status"),
            mime: s("mime"),
            digest: match digest.is_empty() || digest == "-" || digest.contains(':') {
                true => digest,
                false => format!("sha1:{digest}"),
            },
            container: table.and_then(|t| in_wacz(t, &s("filename"))),
            archive: s("filename"),
            offset: n("offset"),
            length: n("length"),
        });
    }
    Ok(captures)
}

/// `history`.
pub async fn history(ask: &Ask, a: HistoryArgs) -> Result<HistoryAnswer, String> {
    let url = args::url("url", &a.url)?;
    let (loaded, _) = ask.local().await?;
    let viewer = ask.viewer();
    let (url, versions) = ask
        .blocking(move || {
            let v = versions::versions_of(&loaded, &url, viewer.as_ref()).map_err(refusal_text)?;
            Ok((url, v))
        })
        .await?;
    let total = versions.len();
    let rows = versions
        .iter()
        .skip(total.saturating_sub(MAX_VERSIONS))
        .map(|v| VersionRow {
            digest: v.digest.clone(),
            first_capture: v.dates.first().cloned().unwrap_or_default(),
            last_capture: v.dates.last().cloned().unwrap_or_default(),
            captures: v.dates.len(),
            words: v.words,
            changed: v.changed,
            change: v.change.label().into(),
        })
        .collect();
    Ok(HistoryAnswer {
        url,
        versions_total: total,
        versions: rows,
    })
}

/// `diff`.
pub async fn diff(ask: &Ask, a: DiffArgs) -> Result<DiffAnswer, String> {
    let url = args::url("url", &a.url)?;
    let d1 = args::date("date1", &a.date1)?;
    let d2 = args::date("date2", &a.date2)?;
    let (loaded, _) = ask.local().await?;
    let viewer = ask.viewer();
    let (url, v) = ask
        .blocking(move || {
            let found =
                diff_versions(&loaded.index, &url, &d1, &d2, viewer.as_ref()).map_err(|e| {
                    eprintln!("warcdex mcp: {}", crate::path_error::Chain(&e));
                    "the collection could not be read".to_string()
                })?;
            match found {
                Some(v) => Ok((url, v)),
                None => Err(refusal_text(versions::absent(
                    &loaded,
                    &url,
                    viewer.as_ref(),
                ))),
            }
        })
        .await?;
    let mut cut = v.diff.cut;
    let mut removed = Vec::new();
    let mut added = Vec::new();
    let (mut removed_chars, mut added_chars) = (0, 0);
    for run in &v.diff.runs {
        let (list, used, text) = match run {
            WordRun::Removed(t) => (&mut removed, &mut removed_chars, t),
            WordRun::Added(t) => (&mut added, &mut added_chars, t),
            WordRun::Same(_) => continue,
        };
        let n = text.chars().count();
        if *used + n > MAX_DIFF_CHARS {
            cut = true;
            continue;
        }
        *used += n;
        list.push(text.clone());
    }
    let side = |(version, at): &(crate::search::history::Version, String)| DiffSide {
        capture: at.clone(),
        digest: version.digest.clone(),
        words: version.words,
    };
    Ok(DiffAnswer {
        url,
        old: side(&v.old),
        new: side(&v.new),
        share_changed: v.diff.share_changed(),
        words_removed: v.diff.removed,
        words_added: v.diff.added,
        removed,
        added,
        truncated: cut,
    })
}
