//! The CDX server API of pywb 2.10 (`/COLL/cdx`) over a [`SortedCdx`]: a query string
//! parsed as pywb parses it, answered as it answers, written to any [`Write`] as the
//! captures are found.
//!
//! Parameters: `url` (`*.host` is `matchType=domain`, `url*` is `prefix`), `matchType`
//! (`exact`, `prefix`, `host`, `domain`), `from`/`from_ts`, `to` (padded to 14 digits
//! and compared as text), `closest` (any timestamp or `now`; `sort=closest` is not
//! needed), `sort=reverse` or `reverse=1`, `limit` (100000 by default; 0 is none),
//! `filter` (repeatable: `[!][=|~][field:]text`), `fl`/`fields`, `collapseTime`,
//! `content_type`, `allowFuzzy`, `output` (`cdxj` by default, `json`, `text`).
//!
//! Bounded memory: every order streams; `closest` merges the two directions from the
//! time when the captures' times are in file order, else keeps its best `limit` in a
//! heap of at most [`MAX_CLOSEST`] (a query that would need more is refused before any
//! output). What pywb answers with a 500 (a limit that is not a number, a
//! regular expression it cannot compile) is a 400 here; `output=link`,
//! `resolveRevisits` and `showNumPages` are refused. The differences are listed in
//! docs/api.md.
//!
//! ```no_run
//! use warcdex_cdx::lookup::SortedCdx;
//! use warcdex_cdx::query::CdxQuery;
//! let cdx = SortedCdx::open("all.cdx".as_ref())?;
//! let query = CdxQuery::parse(b"url=example.com/*&output=json&limit=10").expect("a valid query");
//! query.answer(&cdx, &mut std::io::stdout()).expect("an answer");
//! # Ok::<(), std::io::Error>(())
//! ```

mod closest;
mod filter;
mod fuzzy;
mod fuzzy_rules;
mod params;
mod record;
mod run;
mod time;

use std::io::{self, Write};

pub use filter::{MAX_FILTERS, MAX_PATTERN};
pub use run::AccessTest;

/// A classic CDX line (CDX9 to CDX11, as `all.cdx` holds) as the CDXJ line pywb's
/// `output=cdxj` writes (`urlkey timestamp {"url": …, "mime": …, …}`, newline included):
/// the form wabac.js loads a remote index from.
pub fn cdxj_line(line: &[u8], out: &mut Vec<u8>) -> Result<(), QueryError> {
    record::Record::parse(line)?.write_cdxj(None, out);
    Ok(())
}

use crate::lookup::SortedCdx;
use filter::Filter;
pub(crate) use params::python_int;
use params::{search_range, to_bool, MatchType, Params};
use run::{Order, Plan};
use time::{pad_timestamp, PAD_14_DOWN, PAD_14_UP};

/// The most captures `closest=` holds at once: its heap over a range whose times are not
/// in file order, or one second's captures in its merge (pywb holds `limit` of them).
pub const MAX_CLOSEST: usize = 10_000;
/// The most bytes of captures `closest=` holds.
pub const MAX_CLOSEST_BYTES: usize = 16 << 20;
/// The longest `url=`, in bytes.
pub const MAX_URL: usize = 8192;
/// `limit` when none is given (pywb's `CDXQuery.limit`).
pub const DEFAULT_LIMIT: i64 = 100_000;
/// The fuzzy fallback's limit when the query gives none (pywb's `fuzzy_search_limit`).
const FUZZY_LIMIT: i64 = 100;

/// A request pywb would refuse, or this server refuses: the HTTP status and a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct QueryError {
    /// 400 for a malformed or refused query.
    pub status: u16,
    /// What is wrong, in pywb's words where pywb has some.
    pub message: String,
}

impl QueryError {
    fn bad(message: impl Into<String>) -> QueryError {
        QueryError {
            status: 400,
            message: message.into(),
        }
    }
}

/// Why an answer stopped: the query (found while reading, e.g. a line of an unknown
/// layout or too many captures for `closest`), or reading and writing.
#[derive(Debug, thiserror::Error)]
pub enum AnswerError {
    /// The query cannot be answered.
    #[error(transparent)]
    Query(#[from] QueryError),
    /// Reading the index or writing the answer failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// The answer's layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// `urlkey timestamp {json}` (pywb's default).
    Cdxj,
    /// One JSON object a line.
    Json,
    /// The CDX line, or the `fl` fields separated by spaces.
    Text,
}

impl Output {
    /// The Content-Type pywb sends.
    pub fn content_type(self) -> &'static str {
        match self {
            Output::Cdxj => "text/x-cdxj",
            Output::Json => "text/x-ndjson",
            Output::Text => "text/plain",
        }
    }
}

/// A parsed query, ready to answer.
#[derive(Debug)]
pub struct CdxQuery {
    output: Output,
    fields: Option<Vec<String>>,
    plan: Plan,
    /// The fallback query, when the query finds nothing.
    fuzzy: Option<Fallback>,
}

/// pywb's fuzzy fallback: the second query, and the URL and key its captures are tested
/// against (none for a site rule, which keeps them all).
#[derive(Debug)]
struct Fallback {
    plan: Plan,
    test: Option<(String, String)>,
}

impl CdxQuery {
    /// Parses a raw query string (percent-encoded, as in the request line).
    pub fn parse(query: &[u8]) -> Result<CdxQuery, QueryError> {
        let p = Params::parse(query);
        // pywb checks the output before the URL.
        let output = match p.get("output").unwrap_or("cdxj") {
            "cdxj" => Output::Cdxj,
            "json" => Output::Json,
            "text" => Output::Text,
            "link" => return Err(QueryError::bad("output=link is not supported by warcdex")),
            other => {
                return Err(QueryError::bad(format!(
                    "output={} not supported",
                    crate::message::echo(other)
                )))
            }
        };
        let Some(url) = p.get("url") else {
            return Err(QueryError::bad("The \"url\" param is required"));
        };
        if url.len() > MAX_URL {
            return Err(QueryError::bad(format!(
                "url= is limited to {MAX_URL} bytes"
            )));
        }
        for unsupported in ["resolveRevisits", "showNumPages", "showPagedIndex"] {
            if to_bool(p.get(unsupported)) {
                return Err(QueryError::bad(format!(
                    "{unsupported} is not supported by warcdex"
                )));
            }
        }
        let (url, match_type) = match p.get("matchType") {
            Some(m) => (url.to_string(), MatchType::parse(m)?),
            None => {
                if let Some(rest) = url.strip_prefix("*.") {
                    (rest.to_string(), MatchType::Domain)
                } else if let Some(rest) = url.strip_suffix('*') {
                    (rest.to_string(), MatchType::Prefix)
                } else {
                    (url.to_string(), MatchType::Exact)
                }
            }
        };
        let range = search_range(&url, match_type)?;
        let limit = parse_limit(p.get("limit"), DEFAULT_LIMIT)?;
        let filters = parse_filters(&p)?;
        let collapse = parse_collapse(&p)?;
        let from = p
            .get("from")
            .or(p.get("from_ts"))
            .map(|f| pad(f, PAD_14_DOWN));
        let to = p.get("to").map(|t| pad(t, PAD_14_UP));
        let reverse = to_bool(p.get("reverse")) || p.get("sort") == Some("reverse");
        let order = match p.get("closest") {
            Some("now") => Order::Closest {
                sec: crate::date::now_seconds(),
                limit,
            },
            Some(c) => Order::Closest {
                sec: crate::date::Date14::pad_up(c).unix_seconds(),
                limit,
            },
            None if reverse => Order::Reverse { limit },
            None => Order::Forward { limit },
        };
        let fields = p
            .get("fields")
            .or(p.get("fl"))
            .map(|f| f.split(',').map(str::to_string).collect());
        let allow_fuzzy = p.get("allowFuzzy").is_none_or(|v| to_bool(Some(v)));
        let key = String::from_utf8_lossy(&range.start).into_owned();
        let fuzzy = match allow_fuzzy.then(|| fuzzy::fallback(&url, &key)).flatten() {
            Some(fb) => {
                // The fallback keeps every parameter but `url`, `matchType`, `filter`,
                // `closest` and `reverse` (pywb's FUZZY_SKIP_PARAMS).
                let match_type = if fb.domain {
                    MatchType::Domain
                } else {
                    MatchType::Prefix
                };
                let fb_filters = match p.get("content_type") {
                    Some(ct) => vec![Filter::parse(&format!("=mime:{ct}"))?],
                    None => fb
                        .filters
                        .iter()
                        .map(|f| Filter::parse_unbounded(f))
                        .collect::<Result<_, _>>()?,
                };
                let fb_limit = parse_limit(p.get("limit"), FUZZY_LIMIT)?;
                let fb_order = if p.get("sort") == Some("reverse") {
                    Order::Reverse { limit: fb_limit }
                } else {
                    Order::Forward { limit: fb_limit }
                };
                // A fallback URL pywb cannot canonicalize fails there; none here.
                search_range(&fb.url, match_type)
                    .ok()
                    .map(|fb_range| Fallback {
                        plan: Plan {
                            range: fb_range,
                            filters: fb_filters,
                            from: from.clone(),
                            to: to.clone(),
                            collapse,
                            order: fb_order,
                            access: None,
                        },
                        test: (!fb.custom).then(|| (url.clone(), key.clone())),
                    })
            }
            None => None,
        };
        Ok(CdxQuery {
            output,
            fields,
            plan: Plan {
                range,
                filters,
                from,
                to,
                collapse,
                order,
                access: None,
            },
            fuzzy,
        })
    }

    /// Answers only the captures `keep` (URL key, timestamp) keeps, as if the others were
    /// not in the index: before limits, collapsing and the fuzzy fallback (a server's
    /// access rules).
    pub fn with_access(mut self, keep: AccessTest) -> CdxQuery {
        self.plan.access = Some(keep.clone());
        if let Some(fb) = &mut self.fuzzy {
            fb.plan.access = Some(keep);
        }
        self
    }

    /// The answer's layout.
    pub fn output(&self) -> Output {
        self.output
    }

    /// Answers the query from `cdx`, writing each capture to `out` as it is found.
    pub fn answer(&self, cdx: &SortedCdx, out: &mut dyn Write) -> Result<(), AnswerError> {
        let mut buf = Vec::with_capacity(1024);
        let mut emit = |r: &record::Record| -> io::Result<()> {
            buf.clear();
            let fl = self.fields.as_deref();
            match self.output {
                Output::Cdxj => r.write_cdxj(fl, &mut buf),
                Output::Json => r.write_json(fl, &mut buf),
                Output::Text => r.write_text(fl, &mut buf),
            }
            out.write_all(&buf)
        };
        let found = run::run(cdx, &self.plan, &mut emit)?;
        if found > 0 {
            return Ok(());
        }
        if let Some(fb) = &self.fuzzy {
            let mut test = fb
                .test
                .as_ref()
                .map(|(url, key)| fuzzy::FuzzyMatch::new(url, key));
            run::run(cdx, &fb.plan, &mut |r| {
                if test.as_mut().is_some_and(|t| !t.accepts(r)) {
                    return Ok(());
                }
                // The record is the fallback's own; marking a copy keeps `run` simple.
                let mut marked = record::Record::parse(r.line().as_bytes())
                    .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
                marked.fuzzy = true;
                emit(&marked)
            })?;
        }
        Ok(())
    }
}

fn pad(ts: &str, with: &str) -> String {
    if ts.chars().count() < 14 {
        pad_timestamp(ts, with)
    } else {
        ts.to_string()
    }
}

fn parse_limit(v: Option<&str>, default: i64) -> Result<i64, QueryError> {
    match v {
        None => Ok(default),
        Some(v) => python_int(v).ok_or_else(|| {
            QueryError::bad(format!(
                "Invalid value for limit= param: {}",
                crate::message::echo(v)
            ))
        }),
    }
}

fn parse_filters(p: &Params) -> Result<Vec<Filter>, QueryError> {
    // `content_type` replaces every `filter` (pywb's BaseAggregator).
    if let Some(ct) = p.get("content_type") {
        return Ok(vec![Filter::parse(&format!("=mime:{ct}"))?]);
    }
    let given: Vec<&str> = p.all("filter").collect();
    if given.len() > MAX_FILTERS {
        return Err(QueryError::bad(format!(
            "at most {MAX_FILTERS} filter= params are allowed"
        )));
    }
    given.into_iter().map(Filter::parse).collect()
}

fn parse_collapse(p: &Params) -> Result<Option<i64>, QueryError> {
    match p.get("collapseTime") {
        None => Ok(None),
        Some(v) => match python_int(v) {
            // `0` still collapses: pywb tests the string, then `[:0]` leaves the status
            // alone in the token.
            Some(n) => Ok(Some(n)),
            None => Err(QueryError::bad(format!(
                "Invalid value for collapseTime= param: {}",
                crate::message::echo(v)
            ))),
        },
    }
}

#[cfg(test)]
mod tests;
