//! The search's public types: the request, the results and their limits, and what is
//! reported of the sets (opened, or left out and why).

use std::path::PathBuf;

use serde::Serialize;

use super::facets::{Facets, MonthCount, Tally};
use super::hits::Hit;
use super::near::NearDisplay;

/// Most hits on one page; more are cut to this (as Nutch's `searcher.max.hits.per.page`).
pub const MAX_HITS_PER_PAGE: usize = 100;

/// The furthest first hit a request may ask for: deeper pages cost a ranking of that
/// many documents for every request.
pub const MAX_START: usize = 10_000;

/// NutchWAX's default number of hits shown per site.
pub const DEFAULT_HITS_PER_SITE: usize = 2;

/// A search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchRequest {
    /// The user's query ([`query::parse`](super::query::parse)).
    pub query: String,
    /// The first hit to return (0-based).
    pub start: usize,
    /// Hits per page (capped at [`MAX_HITS_PER_PAGE`]).
    pub hits: usize,
    /// At most this many hits per site, 0 for no limit. A query with `site:` is never
    /// limited: it is the "more from this site" view.
    pub hits_per_site: usize,
    /// Replay links are `PREFIX/DATE14/URL` (Wayback form); none without a prefix.
    pub replay_prefix: Option<String>,
    /// How near-duplicates are shown: by default the near-identical versions of a URL
    /// are one hit.
    pub near: NearDisplay,
    /// Whether each hit carries the versions of its URL ([`Hit::history`]); the
    /// OpenSearch feed shows none, and reading every version's digest for it was 5 % of
    /// a loaded server's cycles. A front server's shards read them anyway.
    pub history: bool,
    /// Who asks, under which access rules (`None`: everything is shown).
    pub viewer: Option<crate::access::Viewer>,
    /// The order of the hits: by relevance, or by capture date (`sort=date`, `-date`).
    pub order: HitOrder,
    /// Only pages with every word (`strict=1`): no fallback to fewer words or to a
    /// suggested query when nothing holds them all.
    pub strict: bool,
}

/// The order of hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HitOrder {
    /// Best first (the ranking).
    #[default]
    Relevance,
    /// Oldest first, by each version's first capture (`sort=date`).
    Oldest,
    /// Newest first, by each version's last capture (at or before `as-of:`; `sort=-date`).
    Newest,
}

impl HitOrder {
    /// Reads the APIs' `sort` value: `relevance`, `date`, `-date`.
    pub fn parse(v: &str) -> Option<HitOrder> {
        Some(match v {
            "" | "relevance" => HitOrder::Relevance,
            "date" => HitOrder::Oldest,
            "-date" => HitOrder::Newest,
            _ => return None,
        })
    }

    /// The APIs' name of the order.
    pub fn name(self) -> &'static str {
        match self {
            HitOrder::Relevance => "relevance",
            HitOrder::Oldest => "date",
            HitOrder::Newest => "-date",
        }
    }
}

impl Default for SearchRequest {
    fn default() -> Self {
        SearchRequest {
            query: String::new(),
            start: 0,
            hits: 10,
            hits_per_site: DEFAULT_HITS_PER_SITE,
            replay_prefix: None,
            near: NearDisplay::default(),
            history: true,
            viewer: None,
            order: HitOrder::Relevance,
            strict: false,
        }
    }
}

/// The results of a search.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchResults {
    /// The query as given.
    pub query: String,
    /// The first hit's position.
    pub start: usize,
    /// Hits per page asked for (after the cap).
    pub hits_per_page: usize,
    /// The per-site limit applied (0: none).
    pub hits_per_site: usize,
    /// Versions matching (documents of the index: a URL and a digest each), before
    /// near-identical versions are folded into one hit and before the per-site limit:
    /// not a number of hits ([`SearchResults::versions_matched`]).
    pub total: u64,
    /// Whether a next page exists (after folding and the per-site limit).
    pub has_more: bool,
    /// Whether the per-site limit left some hits out up to this page.
    pub site_limited: bool,
    /// Hits in the list a reader pages through (folded, per-site-limited) up to the end
    /// of this page and one more; when `has_more` is false that is the whole list, whose
    /// length is then known ([`SearchResults::hits_total`]).
    pub listed: u64,
    /// Seconds the search took.
    pub response_time: f64,
    /// This page's hits.
    pub hits: Vec<Hit>,
    /// Shard servers that did not answer (a front server's search, src/serve/remote.rs):
    /// each `URL: reason`. When not empty the results are partial.
    pub unavailable: Vec<String>,
    /// Sites some of whose matches the per-site limit left out up to this page.
    pub sites_limited: u64,
    /// Counts of all matching documents by site, year, type and language ([`facets`](super::facets)).
    pub facets: Facets,
    /// Captures of all matching documents per month, first to last month.
    pub timeline: Vec<MonthCount>,
    /// Every matching document is on one site (then the per-site limit is not applied;
    /// a front server asks its shard servers again without it).
    #[serde(skip)]
    pub one_site: bool,
    /// Set when no document held the query's words and the search was asked again with
    /// fewer of them required: the hits hold `needed` of the `words`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relaxed: Option<Relaxed>,
    /// Set when no document held a word of the query and the hits are those of this
    /// query instead, each such word replaced by the indexed word it begins.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
}

/// How a search that found nothing was relaxed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Relaxed {
    /// The query's words.
    pub words: usize,
    /// How many of them each hit holds at least.
    pub needed: usize,
}

impl Relaxed {
    /// What a reader is told: `pages with 3 of 4 words (none has all)`.
    pub fn message(&self) -> String {
        format!(
            "pages with {} of {} words (none has all)",
            self.needed, self.words
        )
    }
}

/// Whether every matching document is on one site: then the per-site limit is not
/// applied (it would hide all but a few hits and leave nothing else to show).
pub(crate) fn all_on_one_site(tally: &Tally, total: u64) -> bool {
    tally.sites.len() == 1 && tally.sites.values().sum::<u64>() == total
}

impl SearchResults {
    /// The number of hits a reader can page through (near-identical versions folded,
    /// the per-site limit applied), when known: once a page reaches the end of the list.
    /// Before that only a lower bound is known (`listed`); counting them all would
    /// rank every match.
    pub fn hits_total(&self) -> Option<u64> {
        (!self.has_more).then_some(self.listed)
    }

    /// The versions (documents) matching the query: `total`, named for what it counts.
    pub fn versions_matched(&self) -> u64 {
        self.total
    }

    /// The total to announce: the versions matching, unless this page reached the end
    /// of the list of hits, whose length is then known (NutchWAX's rule, so one number
    /// that counts either; [`SearchResults::versions_matched`] and
    /// [`SearchResults::hits_total`] name each). A page past the end announces that
    /// length too, never the offset asked for.
    pub fn total_results(&self) -> u64 {
        if self.has_more {
            self.total
        } else {
            self.listed
        }
    }
}

/// A parallel set that could not be opened, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BrokenSet {
    /// Its name under `pindexes/`.
    pub name: String,
    /// The error.
    pub error: String,
}

/// An opened parallel set, as reported by `/healthz`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SetSummary {
    /// Its name under `pindexes/`.
    pub name: String,
    /// Documents in main.
    pub documents: u32,
    /// Where main is.
    pub main: PathBuf,
    /// Where the dates index is, when there is one (else dates come from main).
    pub dates: Option<PathBuf>,
}
