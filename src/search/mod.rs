//! Searching `DIR/pindexes/*/{main,dates}` (docs/design.md §3–4, docs/formats.md §4.7, §4.9):
//! `warcdex search` and `warcdex serve` both call [`SearchIndex::search`].
//!
//! A query is words and phrases over title, content, anchor and URL (tantivy's
//! `QueryParser`, anchor and title weighing more than content), each document's text
//! score multiplied by its link-analysis `boost`, with the NutchWAX filters `site:`,
//! `type:`, `collection:` and `date:` ([`query`]). `date:` is evaluated on the dates
//! index: a version matches if any of its capture dates is in the range. Hits are
//! limited per site (NutchWAX `hitsPerSite`, default 2) and show every capture date.
//!
//! Every set is opened once ([`SearchIndex::open`]) and searched through the same
//! tantivy `Searcher` for the life of the process; a set that fails to open or whose
//! main and dates do not align is reported and left out, and the others are searched.

pub(crate) mod ascii_words;
mod capped_top;
pub mod facets;
pub mod history;
pub mod hits;
pub(crate) mod near;
pub mod near_dups;
pub mod query;
mod query_words;
mod set;
pub mod shards;
mod snippet;
pub mod stats;
mod stored;

use std::fmt;
use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use tantivy::query::{AllQuery, BooleanQuery, ConstScoreQuery, Occur, Query, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::Term;

pub(crate) use hits::date14;
pub use hits::{Hit, Snippet, VersionChange, HISTORY_CAP};
pub use near::NearDisplay;
pub use query::{ParsedQuery, QueryError};

use facets::{FacetSources, Facets, MonthCount, SetTally, Tally};
use hits::{build_hit, select, Candidate, Selection, Snippets, TopFiltered};
pub(crate) use set::OpenSet;
pub use shards::{ShardHit, ShardResults};
use stats::Statistics;
pub use stats::{ImpossibleStats, TermStats};

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
    /// The user's query ([`query::parse`]).
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
    /// a loaded server's cycles (issue 22). A front server's shards read them anyway.
    pub history: bool,
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
    /// Documents matching, before the per-site limit.
    pub total: u64,
    /// Whether a next page exists (after the per-site limit).
    pub has_more: bool,
    /// Whether the per-site limit left some hits out up to this page.
    pub site_limited: bool,
    /// Hits in the per-site-limited list up to this page; when `has_more` is false that
    /// is the whole list, whose length is then known.
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
    /// Counts of all matching documents by site, year, type and language ([`facets`]).
    pub facets: Facets,
    /// Captures of all matching documents per month, first to last month.
    pub timeline: Vec<MonthCount>,
    /// Every matching document is on one site (then the per-site limit is not applied;
    /// a front server asks its shard servers again without it).
    #[serde(skip)]
    pub one_site: bool,
}

/// Whether every matching document is on one site: then the per-site limit is not
/// applied (it would hide all but a few hits and leave nothing else to show).
pub(crate) fn all_on_one_site(tally: &Tally, total: u64) -> bool {
    tally.sites.len() == 1 && tally.sites.values().sum::<u64>() == total
}

impl SearchResults {
    /// The total to announce: the documents matching, unless this page reached the end
    /// of the per-site-limited list, whose length is then known (NutchWAX's rule). A page
    /// past the end announces that length too, never the offset asked for.
    pub fn total_results(&self) -> u64 {
        if self.has_more {
            self.total
        } else {
            self.listed
        }
    }
}

/// Why a search failed.
#[derive(Debug)]
pub enum SearchError {
    /// The query is malformed or over a limit: the user's to fix (HTTP 400).
    Query(QueryError),
    /// Reading an index failed (HTTP 500): tantivy's error, or what was found damaged.
    Index(Box<dyn std::error::Error + Send + Sync>),
    /// A shard server was sent term statistics no collection can have (HTTP 400: the
    /// asker's error, as a malformed query is).
    Statistics(ImpossibleStats),
}

impl fmt::Display for SearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchError::Query(e) => write!(f, "bad query: {e}"),
            SearchError::Index(e) => write!(f, "index error: {e}"),
            SearchError::Statistics(e) => write!(f, "cannot rank with the statistics sent: {e}"),
        }
    }
}

impl std::error::Error for SearchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SearchError::Statistics(e) => Some(e),
            SearchError::Index(e) => Some(&**e),
            SearchError::Query(_) => None,
        }
    }
}

impl From<QueryError> for SearchError {
    fn from(e: QueryError) -> Self {
        SearchError::Query(e)
    }
}

impl From<tantivy::TantivyError> for SearchError {
    fn from(e: tantivy::TantivyError) -> Self {
        match e {
            // The schema of a set is fixed and opened without error, so a schema error, an
            // unknown field or an invalid argument while searching comes from the query:
            // tantivy's parser accepts `title:*` and `a TO b` on any field, but they need a
            // fast field, and `-url:*` after a stray word names a field that does not exist
            // (found by the `http` fuzz target, fixtures/fuzz/http/). The user's to fix.
            tantivy::TantivyError::SchemaError(m)
            | tantivy::TantivyError::InvalidArgument(m)
            | tantivy::TantivyError::FieldNotFound(m) => SearchError::Query(QueryError(format!(
                "this query cannot be answered: {m} (ranges and `field:*` work only on date:)"
            ))),
            e => SearchError::Index(Box::new(e)),
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

/// What the sets of a search directory look like on disk: each set's `main` and
/// `dates` `pindex.json` (modification time, length, inode), by path. `add-dates`,
/// `index` and `merge` write a new `pindex.json` with every index they write, so a
/// changed stamp means a set must be reopened to be seen.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Stamp(Vec<(PathBuf, Option<FileStamp>)>);

/// A file's modification time, length and inode.
type FileStamp = (Option<std::time::SystemTime>, u64, u64);

impl Stamp {
    fn of(dir: &Path) -> Stamp {
        let mut out = Vec::new();
        if let Ok(entries) = std::fs::read_dir(resolved_pindexes(dir)) {
            for e in entries.flatten() {
                let set = e.path();
                if !set.is_dir() {
                    continue;
                }
                for part in ["main", "dates"] {
                    let p = set.join(part).join(crate::pindex::PINDEX_FILE);
                    let m = std::fs::metadata(&p).ok().map(|m| {
                        #[cfg(unix)]
                        let ino = std::os::unix::fs::MetadataExt::ino(&m);
                        #[cfg(not(unix))]
                        let ino = 0;
                        (m.modified().ok(), m.len(), ino)
                    });
                    out.push((p, m));
                }
            }
        }
        out.sort();
        Stamp(out)
    }
}

/// `DIR/pindexes` with its symbolic links resolved, once: in a collection made by
/// `update` it is a link that moves from one generation to the next
/// (src/collection/layout.rs), and reading every set through the one resolved path
/// keeps a search from mixing two generations when the link moves while it opens them.
fn resolved_pindexes(dir: &Path) -> PathBuf {
    let p = dir.join("pindexes");
    std::fs::canonicalize(&p).unwrap_or(p)
}

/// Every parallel set of a search directory, opened.
pub struct SearchIndex {
    dir: PathBuf,
    /// The sets on disk just before they were opened.
    stamp: Stamp,
    sets: Vec<OpenSet>,
    /// `disabled[i]`: set i panicked in a search (a damaged index the checksums did not
    /// catch) and is no longer searched.
    disabled: Vec<AtomicBool>,
    /// Sets refused when opened, then sets disabled while searching.
    broken: Mutex<Vec<BrokenSet>>,
}

/// The message of a caught panic.
fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into())
}

/// Opens one set; a panic inside tantivy (a damaged index) becomes an error naming the
/// directory, and a file that vanished (an `add-dates --in-place` swap between reading
/// `meta.json` and opening the segment files) is retried once.
fn open_set_guarded(dir: &Path, released: bool) -> io::Result<OpenSet> {
    let once = || {
        std::panic::catch_unwind(|| set::open(dir, released)).unwrap_or_else(|p| {
            Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{}: damaged index: reading it panicked: {}",
                    dir.display(),
                    panic_message(&*p)
                ),
            ))
        })
    };
    match once() {
        Err(e) if e.kind() == io::ErrorKind::NotFound && dir.join("main").is_dir() => once(),
        r => r,
    }
}

impl fmt::Debug for SearchIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SearchIndex")
            .field("dir", &self.dir)
            .field("sets", &self.sets())
            .field("broken", &self.broken())
            .finish()
    }
}

impl SearchIndex {
    /// Opens every `DIR/pindexes/<name>/` in name order. A set that does not open or
    /// whose `main` and `dates` do not align is logged on stderr and listed by
    /// [`SearchIndex::broken`]; only a missing or unreadable `pindexes/` is an error.
    pub fn open(dir: &Path) -> io::Result<SearchIndex> {
        Self::open_with(dir, false)
    }

    /// [`SearchIndex::open`] for a command that reads the sets through once
    /// (`near-dups`, `history`): the index files are read through
    /// `pindex::directory::ReleasingDirectory`, so the pages read (the checksums read
    /// every file) do not stay resident. At 1,000,000 versions `near-dups` peaked at
    /// 1.3 GB with the server's mapping, most of it the index's file pages.
    pub fn open_released(dir: &Path) -> io::Result<SearchIndex> {
        Self::open_with(dir, true)
    }

    fn open_with(dir: &Path, released: bool) -> io::Result<SearchIndex> {
        // Taken first, so that a change made while opening is seen by the next check.
        let stamp = Stamp::of(dir);
        let pindexes = resolved_pindexes(dir);
        let entries = std::fs::read_dir(&pindexes).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!(
                    "{}: {e} (a search directory holds pindexes/<name>/main)",
                    pindexes.display()
                ),
            )
        })?;
        let mut dirs: Vec<PathBuf> = Vec::new();
        for e in entries {
            let p = e?.path();
            if p.is_dir() {
                dirs.push(p);
            }
        }
        dirs.sort();
        let mut sets = Vec::new();
        let mut broken = Vec::new();
        for d in dirs {
            let name = d
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            match open_set_guarded(&d, released) {
                Ok(s) => sets.push(s),
                Err(e) => {
                    let error = crate::path_error::Chain(&e).to_string();
                    eprintln!("warcdex: parallel set {name} is not searched: {error}");
                    broken.push(BrokenSet { name, error });
                }
            }
        }
        Ok(SearchIndex {
            dir: dir.to_path_buf(),
            stamp,
            disabled: sets.iter().map(|_| AtomicBool::new(false)).collect(),
            sets,
            broken: Mutex::new(broken),
        })
    }

    /// The sets being searched (opened, and not disabled since), in name order.
    pub(crate) fn live_sets(&self) -> impl Iterator<Item = &OpenSet> {
        (self.sets.iter().enumerate())
            .filter(|(i, _)| self.live(*i))
            .map(|(_, s)| s)
    }

    fn live(&self, i: usize) -> bool {
        !self.disabled[i].load(AtomicOrdering::Relaxed)
    }

    /// After a panic in set `i`: a set whose files still pass their checksums is healthy
    /// and the query tripped the engine, so only this query fails (a 400: a hostile query
    /// must not switch a set off for everyone); otherwise the set is damaged and disabled.
    fn after_panic(&self, i: usize, what: &str, p: &(dyn std::any::Any + Send)) -> SearchError {
        if set::still_intact(&self.sets[i]) {
            return SearchError::Query(QueryError(format!(
                "this query cannot be answered ({what} failed: {})",
                panic_message(p)
            )));
        }
        self.disable(i, what, p);
        SearchError::Index(format!("set {} is damaged", self.sets[i].name).into())
    }

    /// Stops searching set `i` after a panic in it, and lists it as broken.
    fn disable(&self, i: usize, what: &str, p: &(dyn std::any::Any + Send)) {
        if self.disabled[i].swap(true, AtomicOrdering::Relaxed) {
            return;
        }
        let s = &self.sets[i];
        let error = format!(
            "{}: damaged index: {what} panicked: {}; the set is no longer searched",
            s.main_dir.display(),
            panic_message(p)
        );
        eprintln!("warcdex: parallel set {} is not searched: {error}", s.name);
        self.broken
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(BrokenSet {
                name: s.name.clone(),
                error,
            });
    }

    /// The sets being searched.
    pub fn sets(&self) -> Vec<SetSummary> {
        self.sets
            .iter()
            .enumerate()
            .filter(|&(i, _)| self.live(i))
            .map(|(_, s)| SetSummary {
                name: s.name.clone(),
                documents: s.docs,
                main: s.main_dir.clone(),
                dates: s.dates_dir.clone(),
            })
            .collect()
    }

    /// The sets left out, with the reason: refused when opened, or disabled after a
    /// search panicked in them.
    pub fn broken(&self) -> Vec<BrokenSet> {
        self.broken
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The search directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether a set was added, removed or rewritten (its `pindex.json` changed) since
    /// this index was opened: `serve` then reopens the directory.
    pub fn changed(&self) -> bool {
        Stamp::of(&self.dir) != self.stamp
    }

    /// Runs a search over every set. A set in which the search panics (a damaged index)
    /// is disabled, listed by [`SearchIndex::broken`], and the search is run again over
    /// the others.
    pub fn search(&self, req: &SearchRequest) -> Result<SearchResults, SearchError> {
        self.retrying(|| self.search_live(req))
    }

    fn live_count(&self) -> usize {
        (0..self.sets.len()).filter(|&i| self.live(i)).count()
    }

    fn search_live(&self, req: &SearchRequest) -> Result<SearchResults, SearchError> {
        let t0 = Instant::now();
        if req.start > MAX_START {
            return Err(QueryError(format!("start is at most {MAX_START}")).into());
        }
        let hits = req.hits.clamp(1, MAX_HITS_PER_PAGE);
        let need = req.start + hits + 1;
        let mut r = self.rank(&req.query, req.hits_per_site, need, None, req.near)?;
        if r.per_site > 0
            && !r.selection.hidden_sites.is_empty()
            && all_on_one_site(&r.tally, r.total)
        {
            r = self.rank(&req.query, 0, need, None, req.near)?;
        }
        let has_more = r.selection.kept.len() > req.start + hits;
        let page: Vec<_> = r
            .selection
            .kept
            .iter()
            .enumerate()
            .skip(req.start)
            .take(hits)
            .map(|(i, &c)| (i, c))
            .collect();
        let out = self.read_hits(&r, &page, req.replay_prefix.as_deref(), req.history)?;
        Ok(SearchResults {
            query: req.query.clone(),
            start: req.start,
            hits_per_page: hits,
            hits_per_site: r.per_site,
            total: r.total,
            has_more,
            site_limited: !r.selection.hidden_sites.is_empty(),
            listed: r.selection.kept.len() as u64,
            response_time: Duration::as_secs_f64(&t0.elapsed()),
            hits: out,
            unavailable: Vec::new(),
            sites_limited: r.selection.hidden_sites.len() as u64,
            facets: r.tally.facets(),
            timeline: r.tally.timeline(),
            one_site: all_on_one_site(&r.tally, r.total),
        })
    }

    /// The statistics of `query`'s terms over every set searched here: what a front
    /// server sums over its shard servers ([`stats`]).
    pub fn term_stats(&self, query: &str) -> Result<TermStats, SearchError> {
        self.retrying(|| {
            let parsed = query::parse(query)?;
            let (_, queries) = self.queries(&parsed)?;
            self.live_stats(&queries)
        })
    }

    /// A shard server's part of a search across shard servers: its best `need` hits
    /// under the per-site limit, read in full, ranked with the collection's statistics
    /// `stats` (the sum of every shard's [`SearchIndex::term_stats`]). The front server
    /// merges the parts ([`shards::merge`]).
    pub fn search_shard(
        &self,
        query: &str,
        hits_per_site: usize,
        need: usize,
        stats: &TermStats,
    ) -> Result<ShardResults, SearchError> {
        let most = MAX_START + MAX_HITS_PER_PAGE + 1;
        if need > most {
            return Err(QueryError(format!("a shard returns at most {most} hits")).into());
        }
        // Checked before tantivy sees them: its BM25 asserts what `check` refuses, and
        // the panic, though caught, logged a backtrace for every such request.
        stats.check().map_err(SearchError::Statistics)?;
        self.retrying(|| {
            let r = self.rank(
                query,
                hits_per_site,
                need.max(1),
                Some(stats),
                NearDisplay::default(),
            )?;
            let all: Vec<_> = r.selection.kept.iter().copied().enumerate().collect();
            let hits = self.read_hits(&r, &all, None, true)?;
            let mut hidden_sites: Vec<String> = r.selection.hidden_sites.iter().cloned().collect();
            hidden_sites.sort();
            Ok(ShardResults {
                total: r.total,
                tally: r.tally.clone().for_front(),
                hidden_sites,
                hits: hits
                    .into_iter()
                    .zip(&r.selection.kept)
                    .map(|(hit, &(set, doc, _))| ShardHit {
                        urlkey: String::from_utf8_lossy(&self.sets[set].order_urlkey(doc))
                            .into_owned(),
                        hit,
                    })
                    .collect(),
            })
        })
    }

    /// Runs `f` again when it failed because a set panicked and was disabled, as long
    /// as other sets are left.
    fn retrying<T>(&self, f: impl Fn() -> Result<T, SearchError>) -> Result<T, SearchError> {
        loop {
            let live = self.live_count();
            match f() {
                // A set was disabled by this attempt; the others may still answer.
                Err(SearchError::Index(_)) if live > 1 && self.live_count() < live => {}
                r => return r,
            }
        }
    }

    /// The query parsed for every set: its words alone (none without words), and the
    /// whole query with the filters.
    #[allow(clippy::type_complexity)]
    fn queries(
        &self,
        parsed: &ParsedQuery,
    ) -> Result<(Vec<Option<Box<dyn Query>>>, Vec<Box<dyn Query>>), SearchError> {
        let mut text_queries = Vec::with_capacity(self.sets.len());
        let mut queries = Vec::with_capacity(self.sets.len());
        for s in &self.sets {
            let text = match parsed.text.is_empty() {
                true => None,
                false => Some(s.parser.parse_query(&parsed.text).map_err(|e| {
                    QueryError(format!("cannot read the query {:?}: {e}", parsed.text))
                })?),
            };
            queries.push(full_query(s, parsed, text.as_ref().map(|q| q.box_clone())));
            text_queries.push(text);
        }
        Ok((text_queries, queries))
    }

    /// The statistics of the queries' terms summed over the live sets.
    fn live_stats(&self, queries: &[Box<dyn Query>]) -> Result<TermStats, SearchError> {
        let mut stats = TermStats::default();
        for (i, s) in self.sets.iter().enumerate() {
            if !self.live(i) {
                continue;
            }
            catch_unwind(AssertUnwindSafe(|| {
                stats.add_set(&s.searcher, &*queries[i])
            }))
            .map_err(|p| self.after_panic(i, "reading term statistics", &*p))??;
        }
        Ok(stats)
    }

    /// Ranks the documents matching `query` in every live set, scored with `given`
    /// statistics or else with those of the sets searched here, and keeps the best
    /// `need` under the per-site limit.
    fn rank(
        &self,
        query: &str,
        hits_per_site: usize,
        need: usize,
        given: Option<&TermStats>,
        near: NearDisplay,
    ) -> Result<Ranking, SearchError> {
        let parsed = query::parse(query)?;
        let per_site = if parsed.has_site_filter() {
            0
        } else {
            hits_per_site
        };
        let (text_queries, queries) = self.queries(&parsed)?;
        let stats = match given {
            Some(s) => s.clone(),
            // One set scores with its own statistics, which is what `Statistics` falls
            // back to for what the sums do not name: summing them first only looked
            // every term up twice (2 % of a loaded server's cycles, issue 22).
            None if self.live_count() == 1 => TermStats::default(),
            None => self.live_stats(&queries)?,
        };
        let mut total = 0;
        let mut per_set = Vec::with_capacity(self.sets.len());
        for (i, s) in self.sets.iter().enumerate() {
            if !self.live(i) {
                per_set.push((0, Vec::new(), Vec::new(), SetTally::default()));
                continue;
            }
            let collector = TopFiltered {
                limit: need,
                // A limit of `need` or more per site can never leave a hit out.
                per_site: if per_site >= need { 0 } else { per_site },
                filter: date_filter(s, &parsed),
                site_of: s.site_of.clone(),
                near: (!near.show_versions).then(|| s.near.clone()).flatten(),
                dates: s.dates.clone(),
                boost: s.boost.clone(),
                // One set, hits not folded: `select` takes the best `need` and no more.
                prune: self.sets.len() == 1 && !near.collapse_urls,
                facets: Some(Arc::new(FacetSources {
                    site_of: s.site_of.clone(),
                    type_of: s.type_of.clone(),
                    lang_of: s.lang_of.clone(),
                    dates: s.dates.clone(),
                })),
            };
            let statistics = Statistics {
                stats: &stats,
                searcher: &s.searcher,
            };
            let fruit = catch_unwind(AssertUnwindSafe(|| {
                s.searcher
                    .search_with_statistics_provider(&*queries[i], &collector, &statistics)
            }))
            .map_err(|p| self.after_panic(i, "a search", &*p))??;
            total += fruit.0;
            per_set.push(fruit);
        }
        let mut tally = Tally::default();
        for (i, fruit) in per_set.iter().enumerate() {
            tally.add_set(&self.sets[i], &fruit.3);
        }
        let selection = select(&self.sets, &per_set, per_site, need, near);
        Ok(Ranking {
            per_site,
            total,
            tally,
            selection,
            text_queries,
            stats,
        })
    }

    /// Reads the hits at the given (position, candidate) pairs.
    fn read_hits(
        &self,
        r: &Ranking,
        page: &[(usize, Candidate)],
        replay_prefix: Option<&str>,
        history: bool,
    ) -> Result<Vec<Hit>, SearchError> {
        // One snippet generator per set; the first text query stands for all, as every
        // set parses the query alike.
        let text_query = r.text_queries.iter().flatten().next().map(|q| &**q);
        let mut snippets = Snippets::new(text_query, &r.stats, self.sets.len());
        let mut out = Vec::with_capacity(page.len());
        for &(i, c) in page {
            let hit = catch_unwind(AssertUnwindSafe(|| {
                build_hit(
                    &self.sets,
                    c,
                    i,
                    &mut snippets,
                    replay_prefix,
                    &r.selection,
                    history,
                )
            }))
            .map_err(|p| self.after_panic(c.0, "reading a hit", &*p))??;
            out.push(hit);
        }
        Ok(out)
    }
}

/// A search ranked over the live sets, before its hits are read.
struct Ranking {
    /// The per-site limit applied (0 with `site:`).
    per_site: usize,
    /// Documents matching.
    total: u64,
    /// Their facet and timeline counts.
    tally: Tally,
    selection: Selection,
    /// Each set's parse of the query's words.
    text_queries: Vec<Option<Box<dyn Query>>>,
    /// The statistics the documents were scored with.
    stats: TermStats,
}

/// The tantivy query for a set: the words (or every document) with the filters as
/// constant-score (score 0) clauses, so filters never change the ranking.
fn full_query(s: &OpenSet, p: &ParsedQuery, text: Option<Box<dyn Query>>) -> Box<dyn Query> {
    let main: Box<dyn Query> = text.unwrap_or_else(|| Box::new(AllQuery));
    if p.filters.is_empty() && p.excluded.is_empty() {
        return main;
    }
    let schema = s.index.schema();
    let term = |f: query::FilterField, v: &str| -> Box<dyn Query> {
        match schema.get_field(f.field_name()) {
            Ok(field) => Box::new(TermQuery::new(
                Term::from_field_text(field, v),
                IndexRecordOption::Basic,
            )),
            // `lang:` on an index built before languages were: no document has one.
            Err(_) => Box::new(tantivy::query::EmptyQuery),
        }
    };
    // `type:image` (no `/`) is every type of the set under `image/`, as well as the type
    // `image` itself: the indexed value is the whole MIME type, so a term query on
    // `image` silently matched nothing. The set's types are few (one term each).
    let values = |f: query::FilterField, v: &str| -> Vec<String> {
        let mut all = vec![v.to_string()];
        if f == query::FilterField::Type && !v.contains('/') {
            let under = format!("{v}/");
            all.extend(
                s.type_names
                    .iter()
                    .filter(|t| t.starts_with(&under))
                    .cloned(),
            );
        }
        all
    };
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, main)];
    for f in [
        query::FilterField::Site,
        query::FilterField::Type,
        query::FilterField::Collection,
        query::FilterField::Lang,
    ] {
        let alternatives: Vec<(Occur, Box<dyn Query>)> = p
            .filters
            .iter()
            .filter(|(g, _)| *g == f)
            .flat_map(|(_, v)| values(f, v))
            .map(|v| (Occur::Should, term(f, &v)))
            .collect();
        if !alternatives.is_empty() {
            clauses.push((
                Occur::Must,
                Box::new(ConstScoreQuery::new(
                    Box::new(BooleanQuery::new(alternatives)),
                    0.0,
                )),
            ));
        }
    }
    for (f, v) in &p.excluded {
        for v in values(*f, v) {
            clauses.push((Occur::MustNot, term(*f, &v)));
        }
    }
    Box::new(BooleanQuery::new(clauses))
}

/// The documents of a set with a capture date in any of the query's ranges, a bit per
/// DocId; `None` when the query has no `date:`.
fn date_filter(s: &OpenSet, p: &ParsedQuery) -> Option<Arc<Vec<u64>>> {
    if p.dates.is_empty() {
        return None;
    }
    let mut bits = vec![0u64; (s.docs as usize).div_ceil(64)];
    for r in &p.dates {
        s.dates.mark_range(r.from, r.to, &mut bits);
    }
    Some(Arc::new(bits))
}
