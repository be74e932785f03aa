//! The results as one JSON document (`warcdex search --json`, `/search.json`): the
//! [`SearchResults`] fields, each hit with its snippet also as HTML, then the facets
//! (`"facets": {"site": [{"value": …, "count": N}, …], "year": …, "type": …, "lang": …}`)
//! and the capture timeline (`"timeline": [{"month": "2007-10", "count": N}, …]`).

use serde::Serialize;

use super::escape::snippet_html;
use crate::search::facets::{Facets, MonthCount};
use crate::search::{Hit, SearchResults};

#[derive(Serialize)]
struct JsonHit<'a> {
    #[serde(flatten)]
    hit: &'a Hit,
    title_or_url: &'a str,
    snippet_html: String,
    /// The first and last of `dates`: when the version shown was first and last seen.
    first_seen: Option<&'a str>,
    last_seen: Option<&'a str>,
}

#[derive(Serialize)]
struct JsonResults<'a> {
    query: &'a str,
    start: usize,
    hits_per_page: usize,
    hits_per_site: usize,
    /// Versions matched (documents), as NutchWAX's `total`: not hits.
    total: u64,
    total_results: u64,
    /// The same as `total`, named for what it counts.
    versions_matched: u64,
    /// Hits one can page through, once known (`null` until a page reaches the end).
    hits_total: Option<u64>,
    has_more: bool,
    site_limited: bool,
    sites_limited: u64,
    response_time: f64,
    /// Only when a front server's shard servers did not all answer.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    unavailable: &'a [String],
    /// Only when no version held every word and the search was asked again with fewer:
    /// `{"words": 4, "needed": 3, "message": "pages with 3 of 4 words (none has all)"}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    relaxed: Option<JsonRelaxed>,
    /// Only when no document held a word and the hits are this query's instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    suggestion: Option<&'a str>,
    hits: Vec<JsonHit<'a>>,
    facets: &'a Facets,
    timeline: &'a [MonthCount],
}

/// How a search that found nothing was relaxed, for the JSON.
#[derive(Serialize)]
struct JsonRelaxed {
    words: usize,
    needed: usize,
    message: String,
}

/// `r` as pretty JSON; `total_results` is the count to announce
/// ([`SearchResults::total_results`]), `versions_matched` and `hits_total` the two
/// counts it is one of ([`SearchResults::versions_matched`],
/// [`SearchResults::hits_total`]).
pub fn to_json(r: &SearchResults) -> String {
    let doc = JsonResults {
        query: &r.query,
        start: r.start,
        hits_per_page: r.hits_per_page,
        hits_per_site: r.hits_per_site,
        total: r.total,
        total_results: r.total_results(),
        versions_matched: r.versions_matched(),
        hits_total: r.hits_total(),
        has_more: r.has_more,
        site_limited: r.site_limited,
        sites_limited: r.sites_limited,
        response_time: r.response_time,
        unavailable: &r.unavailable,
        relaxed: r.relaxed.map(|x| JsonRelaxed {
            words: x.words,
            needed: x.needed,
            message: x.message(),
        }),
        suggestion: r.suggestion.as_deref(),
        hits: r
            .hits
            .iter()
            .map(|h| JsonHit {
                hit: h,
                title_or_url: h.display_title(),
                snippet_html: snippet_html(&h.snippet),
                first_seen: h.dates.first().map(String::as_str),
                last_seen: h.dates.last().map(String::as_str),
            })
            .collect(),
        facets: &r.facets,
        timeline: &r.timeline,
    };
    serde_json::to_string_pretty(&doc).expect("results serialize")
}
