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

mod access_view;
mod as_of;
pub(crate) mod ascii_words;
mod capped_top;
mod collect;
mod collections;
mod doc_bits;
mod every_word;
pub mod facets;
mod fields_bm25;
pub mod history;
pub mod hits;
mod indexed_text;
mod matches;
pub(crate) mod near;
pub mod near_dups;
mod quarantine;
pub mod query;
mod query_words;
mod rank;
mod reload;
mod select;
pub mod selection;
mod set;
pub mod shards;
mod snippet;
pub mod stats;
mod stored;
mod suggest;
mod types;
mod unwalked;
mod url_table;
mod weights;
mod windows;

use std::fmt;
use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::access::Viewer;

pub(crate) use hits::date14;
pub use hits::{Hit, Snippet, VersionChange, HISTORY_CAP};
pub use indexed_text::IndexedText;
pub use matches::MatchedVersion;
pub use near::NearDisplay;
pub use query::{ParsedQuery, QueryError};
pub use selection::Selection;

use hits::build_hit;
use quarantine::open_set_guarded;
use rank::{Ranking, Shape};
use reload::{resolved_pindexes, Stamp};
use select::Candidate;
pub(crate) use set::OpenSet;
pub use shards::{ShardHit, ShardResults, ShardSuggestion};
pub use stats::{ImpossibleStats, TermStats};
pub(crate) use types::all_on_one_site;
pub use types::{
    BrokenSet, HitOrder, Relaxed, SearchRequest, SearchResults, SetSummary, DEFAULT_HITS_PER_SITE,
    MAX_HITS_PER_PAGE, MAX_START,
};
use windows::Snippets;

/// Why a search failed.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The query is malformed or over a limit: the user's to fix (HTTP 400). The text
    /// is the query error's (it has no source).
    #[error("bad query: {0}")]
    Query(QueryError),
    /// Reading an index failed (HTTP 500): tantivy's error, or what was found damaged.
    #[error("index error")]
    Index(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// A shard server was sent term statistics no collection can have (HTTP 400: the
    /// asker's error, as a malformed query is).
    #[error("cannot rank with the statistics sent")]
    Statistics(#[source] ImpossibleStats),
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
    /// The sets as viewers under access rules see them (`access_view.rs`).
    views: access_view::ViewCache,
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
    /// (`near-dups`, `history`, `graph`, `export`): the index files are read through
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
        // Ties in score across sets are ordered by URL key ranks over every set.
        OpenSet::rank_urls(&mut sets)?;
        Ok(SearchIndex {
            dir: dir.to_path_buf(),
            stamp,
            disabled: sets.iter().map(|_| AtomicBool::new(false)).collect(),
            sets,
            broken: Mutex::new(broken),
            views: access_view::ViewCache::default(),
        })
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

    /// Runs a search over every set. A set in which the search panics (a damaged index)
    /// is disabled, listed by [`SearchIndex::broken`], and the search is run again over
    /// the others.
    pub fn search(&self, req: &SearchRequest) -> Result<SearchResults, SearchError> {
        self.retrying(|| self.search_live(req))
    }

    fn search_live(&self, req: &SearchRequest) -> Result<SearchResults, SearchError> {
        let t0 = Instant::now();
        if req.start > MAX_START {
            return Err(QueryError(format!("start is at most {MAX_START}")).into());
        }
        let hits = req.hits.clamp(1, MAX_HITS_PER_PAGE);
        let need = req.start + hits + 1;
        let views = self.views.views(&self.sets, req.viewer.as_ref());
        // One search of `query` with `per_site` hits a site, `min_words` of its words
        // required (`None`: as the weights say).
        let rank = |query: &str, per_site: usize, min_words: Option<usize>| {
            let shape = Shape {
                near: req.near,
                order: req.order,
                views: views.clone(),
                min_words,
            };
            self.rank(query, per_site, need, None, shape)
        };
        let mut r = rank(&req.query, req.hits_per_site, None)?;
        // Nothing holds every word (or all but the one the ranking lets go): asked again
        // with fewer words required, one fewer at a time, down to any one of them, so a
        // page that holds most of the words is found rather than nothing.
        let mut relaxed = None;
        let fallback = !req.strict && self.sets.first().is_some_and(|s| s.weights.fallback > 0.0);
        if r.total == 0 && fallback {
            let words = query::relaxable_words(&req.query);
            for k in (1..words).rev() {
                let again = rank(&req.query, req.hits_per_site, Some(k))?;
                if again.total > 0 {
                    r = again;
                    relaxed = Some(Relaxed { words, needed: k });
                    break;
                }
            }
        }
        // Still nothing: a word no document holds, put right from the index's words.
        let mut suggestion = None;
        if r.total == 0 && fallback {
            let visible = |words: &str| self.shown_somewhere(words, &views);
            if let Some(q) = self.suggestion(&req.query, &visible) {
                let again = rank(&q, req.hits_per_site, None)?;
                if again.total > 0 {
                    r = again;
                    suggestion = Some(q);
                }
            }
        }
        if r.per_site > 0
            && !r.selection.hidden_sites.is_empty()
            && all_on_one_site(&r.tally, r.total)
        {
            // Again without the per-site limit, as the query that found the hits: the
            // suggested one, with as many words required.
            let shown = suggestion.as_deref().unwrap_or(&req.query);
            r = rank(shown, 0, relaxed.map(|x| x.needed))?;
        }
        let has_more = r.selection.kept.len() > req.start + hits;
        let end = r.selection.kept.len().min(req.start + hits);
        let positions: Vec<usize> = (req.start.min(end)..end).collect();
        self.fold_unwalked(&mut r, &positions)?;
        let page: Vec<_> = (positions.iter())
            .map(|&i| (i, r.selection.kept[i]))
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
            relaxed,
            suggestion,
        })
    }

    /// A shard server's suggestion for a query its front server found nothing for: as
    /// [`SearchIndex::search`] makes it, from this server's words, naming only words a
    /// page `viewer` may see here holds.
    pub fn shard_suggestion(
        &self,
        query: &str,
        viewer: Option<&Viewer>,
    ) -> Result<Option<String>, SearchError> {
        query::parse(query)?;
        self.retrying(|| {
            let views = self.views.views(&self.sets, viewer);
            let visible = |words: &str| self.shown_somewhere(words, &views);
            Ok(self.suggestion(query, &visible))
        })
    }

    /// Whether a version shown under `views` matches `words`: what a suggestion may name
    /// ([`SearchIndex::suggestion`]).
    fn shown_somewhere(
        &self,
        words: &str,
        views: &std::sync::Arc<Vec<access_view::SetView>>,
    ) -> bool {
        let shape = Shape {
            near: NearDisplay::default(),
            order: HitOrder::Relevance,
            views: views.clone(),
            min_words: None,
        };
        (self.rank(words, 0, 1, None, shape)).is_ok_and(|r| r.total > 0)
    }

    /// The statistics of `query`'s terms over every set searched here, counting only the
    /// versions `viewer` may see: what a front server sums over its shard servers
    /// ([`stats`]).
    pub fn term_stats(
        &self,
        query: &str,
        viewer: Option<&Viewer>,
    ) -> Result<TermStats, SearchError> {
        self.retrying(|| {
            let parsed = query::parse(query)?;
            let views = self.views.views(&self.sets, viewer);
            let (_, queries) = self.queries(&parsed, Some(&views))?;
            self.live_stats(&queries, &views)
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
        viewer: Option<&Viewer>,
        min_words: Option<usize>,
    ) -> Result<ShardResults, SearchError> {
        let most = MAX_START + MAX_HITS_PER_PAGE + 1;
        if need > most {
            return Err(QueryError(format!("a shard returns at most {most} hits")).into());
        }
        // Checked before tantivy sees them: its BM25 asserts what `check` refuses, and
        // the panic, though caught, logged a backtrace for every such request.
        stats.check().map_err(SearchError::Statistics)?;
        self.retrying(|| {
            let mut r = self.rank(
                query,
                hits_per_site,
                need.max(1),
                Some(stats),
                Shape {
                    near: NearDisplay::default(),
                    // Shards rank by score: dates would not merge across them.
                    order: HitOrder::Relevance,
                    views: self.views.views(&self.sets, viewer),
                    min_words,
                },
            )?;
            let positions: Vec<usize> = (0..r.selection.kept.len()).collect();
            self.fold_unwalked(&mut r, &positions)?;
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
                let shown = hits::HitsShown {
                    selection: &r.selection,
                    replay_prefix,
                    with_history: history,
                };
                build_hit((&self.sets, &r.views), c, i, &mut snippets, &shown)
            }))
            .map_err(|p| self.after_panic(c.0, "reading a hit", &*p))??;
            out.push(hit);
        }
        Ok(out)
    }
}
