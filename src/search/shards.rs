//! A search across shard servers: what each shard server answers ([`ShardResults`]) and
//! how a front server merges the answers into one page of results ([`merge`]).
//!
//! Each shard ranks its documents with the collection's term statistics (summed over
//! every shard first, `stats.rs`), so a document's score is the one it has in a single
//! index of the collection; ties in score are broken by (URL key, digest), the order of
//! documents in such an index. A shard returns its best `start + hits + 1` hits under
//! the per-site limit; the front sorts them together and applies the per-site limit
//! again. That is enough: a hit the whole collection keeps on the page is kept by its
//! own shard too, because whatever ranks above it in its shard ranks above it in the
//! collection, site by site (a site's pages are spread over the shards, as they are
//! sharded by URL).

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::facets::Tally;
use super::hits::replay_links;
use super::{all_on_one_site, query, Hit, QueryError, SearchError, SearchRequest, SearchResults};
use super::{MAX_HITS_PER_PAGE, MAX_START};

/// A hit as a shard server returns it: the hit, and its URL key, which orders hits of
/// equal score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardHit {
    /// The hit (its `index` is its place in the shard's list).
    #[serde(flatten)]
    pub hit: Hit,
    /// The SURT key of its URL.
    pub urlkey: String,
}

/// What a shard server answers to `/shard/suggest.json`: its suggestion for a query the
/// front server found nothing for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardSuggestion {
    /// The query put right from this server's words, if it could be.
    pub suggestion: Option<String>,
}

/// What a shard server answers to a front server (`/shard/search.json`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ShardResults {
    /// Documents matching in this shard, before the per-site limit.
    pub total: u64,
    /// Their facet and timeline counts (the shard's most frequent sites only:
    /// [`crate::search::facets::SHARD_SITES`]).
    #[serde(default)]
    pub tally: Tally,
    /// Sites some of whose matches this shard left out under the per-site limit.
    pub hidden_sites: Vec<String>,
    /// The shard's best hits under the per-site limit, best first.
    pub hits: Vec<ShardHit>,
}

/// Why a shard server's answer is refused as a whole ([`ShardResults::check`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BadAnswer {
    /// A hit's score is not a finite number ≥ 0, which no shard computes (BM25 times a
    /// link boost, both ≥ 0): an infinite one (1e308 is infinite as an `f32`) was shown
    /// as `null`, and sorted above every true hit.
    #[error("the answer is refused: the hit {url} has the score {score}, not a finite number ≥ 0")]
    Score {
        /// The hit's URL.
        url: String,
        /// Its score.
        score: f32,
    },
}

impl ShardResults {
    /// Whether this answer can be a shard server's. One impossible score refuses the
    /// whole answer, not just its hit: the shard is broken or hostile, so the order and
    /// scores of its other hits cannot be trusted either, and the front names it in
    /// `unavailable` (the results are partial).
    pub fn check(&self) -> Result<(), BadAnswer> {
        match self
            .hits
            .iter()
            .find(|h| !(h.hit.score.is_finite() && h.hit.score >= 0.0))
        {
            Some(h) => Err(BadAnswer::Score {
                url: h.hit.url.clone(),
                score: h.hit.score,
            }),
            None => Ok(()),
        }
    }
}

/// One shard server's answer, or why there is none.
#[derive(Debug)]
pub struct ShardAnswer {
    /// The shard server (its base URL).
    pub server: String,
    /// Its results, or the reason it gave none (unreachable, too slow, an error).
    pub results: Result<ShardResults, String>,
}

/// What a front server asks each shard for, worked out from the request once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Hits on the page (the request's, capped at [`MAX_HITS_PER_PAGE`]).
    pub hits_per_page: usize,
    /// Hits each shard returns: up to the page's end, and one more to know whether a
    /// next page exists.
    pub need: usize,
    /// The per-site limit (0 with `site:`).
    pub per_site: usize,
    /// How many of the query's words a hit must hold (`None`: as the shards' weights
    /// say): a search that found nothing is asked again with fewer (issue 61).
    pub min_words: Option<usize>,
}

/// The plan of the request `req`; a malformed query or an out-of-range request is the
/// user's error, found before any shard is asked.
pub fn plan(req: &SearchRequest) -> Result<Plan, SearchError> {
    if req.start > MAX_START {
        return Err(QueryError(format!("start is at most {MAX_START}")).into());
    }
    let parsed = query::parse(&req.query)?;
    let hits_per_page = req.hits.clamp(1, MAX_HITS_PER_PAGE);
    let per_site = if parsed.has_site_filter() {
        0
    } else {
        req.hits_per_site
    };
    Ok(Plan {
        hits_per_page,
        need: req.start + hits_per_page + 1,
        per_site,
        min_words: None,
    })
}

/// Merges the shards' answers to `req` (planned as `plan`) into a page: the hits of
/// every shard by score (ties by URL key, then digest), at most `plan.per_site` per
/// site, then the page at `req.start`. Shards without an answer are listed in
/// `unavailable`.
pub fn merge(
    req: &SearchRequest,
    plan: &Plan,
    answers: Vec<ShardAnswer>,
    took: Duration,
) -> SearchResults {
    let Plan {
        hits_per_page,
        need,
        per_site,
        ..
    } = *plan;
    let mut total = 0;
    let mut tally = Tally::default();
    let mut hidden: HashSet<String> = HashSet::new();
    let mut all: Vec<ShardHit> = Vec::new();
    let mut unavailable = Vec::new();
    for a in answers {
        match a.results {
            Ok(r) => {
                // Saturating: a shard may send any count, and a sum that wrapped around
                // showed 2^64 - 1 and 246 matches as 245.
                total = u64::saturating_add(total, r.total);
                tally.add(&r.tally);
                hidden.extend(r.hidden_sites);
                all.extend(r.hits);
            }
            Err(e) => unavailable.push(format!("{}: {e}", a.server)),
        }
    }
    all.sort_by(|a, b| {
        b.hit
            .score
            .total_cmp(&a.hit.score)
            .then_with(|| a.urlkey.as_bytes().cmp(b.urlkey.as_bytes()))
            .then_with(|| a.hit.digest.as_bytes().cmp(b.hit.digest.as_bytes()))
    });
    let mut kept: Vec<Hit> = Vec::with_capacity(need.min(all.len()));
    let mut per: HashMap<String, usize> = HashMap::new();
    for h in all {
        if kept.len() >= need {
            break;
        }
        // A document without a site is its own site, never folded with others.
        if per_site > 0 && !h.hit.site.is_empty() {
            let n = per.entry(h.hit.site.clone()).or_insert(0);
            if *n >= per_site {
                hidden.insert(h.hit.site);
                continue;
            }
            *n += 1;
        }
        kept.push(h.hit);
    }
    let listed = kept.len() as u64;
    let has_more = kept.len() > req.start + hits_per_page;
    let page: Vec<Hit> = kept
        .into_iter()
        .enumerate()
        .skip(req.start)
        .take(hits_per_page)
        .map(|(i, mut h)| {
            h.index = i;
            h.more_from_site = hidden.contains(&h.site);
            h.replay = replay_links(req.replay_prefix.as_deref(), &h.dates, &h.url);
            h
        })
        .collect();
    SearchResults {
        query: req.query.clone(),
        start: req.start,
        hits_per_page,
        hits_per_site: per_site,
        total,
        has_more,
        site_limited: !hidden.is_empty(),
        listed,
        response_time: took.as_secs_f64(),
        hits: page,
        unavailable,
        sites_limited: hidden.len() as u64,
        facets: tally.facets(),
        timeline: tally.timeline(),
        one_site: all_on_one_site(&tally, total),
        // Said by the front server when it asked again (`remote.rs`).
        relaxed: None,
        suggestion: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Snippet;

    fn hit(url: &str, site: &str, score: f32) -> ShardHit {
        ShardHit {
            hit: Hit {
                index: 0,
                score,
                set: "s".into(),
                url: url.into(),
                title: String::new(),
                digest: "sha1:X".into(),
                mime: "text/html".into(),
                collection: String::new(),
                site: site.into(),
                length: 0,
                filename: String::new(),
                offset: 0,
                text_source: None,
                dates: vec!["20240101000000".into()],
                replay: Vec::new(),
                snippet: Snippet::default(),
                more_from_site: false,
                near_versions: 1,
                also_at: Vec::new(),
                history: Vec::new(),
                versions_total: 0,
            },
            urlkey: url.into(),
        }
    }

    fn answer(hits: Vec<ShardHit>) -> ShardAnswer {
        ShardAnswer {
            server: "http://shard".into(),
            results: Ok(ShardResults {
                total: hits.len() as u64,
                tally: Tally::default(),
                hidden_sites: Vec::new(),
                hits,
            }),
        }
    }

    fn req(start: usize, hits: usize, per_site: usize) -> SearchRequest {
        SearchRequest {
            query: "words".into(),
            start,
            hits,
            hits_per_site: per_site,
            replay_prefix: Some("http://replay/".into()),
            near: Default::default(),
            history: true,
            viewer: None,
            order: Default::default(),
            strict: false,
        }
    }

    fn merged(req: &SearchRequest, answers: Vec<ShardAnswer>) -> SearchResults {
        merge(req, &plan(req).unwrap(), answers, Duration::ZERO)
    }

    fn urls(r: &SearchResults) -> Vec<&str> {
        r.hits.iter().map(|h| h.url.as_str()).collect()
    }

    #[test]
    fn merges_by_score_then_key_and_limits_sites_after() {
        let a = answer(vec![
            hit("a1", "a", 3.0),
            hit("a2", "a", 2.0),
            hit("c", "", 1.0),
        ]);
        let b = answer(vec![hit("a0", "a", 4.0), hit("b", "b", 2.0)]);
        let r = merged(&req(0, 10, 2), vec![a, b]);
        // a2 ties with b at 2.0 and sorts first by key, but is the third hit of site a.
        assert_eq!(urls(&r), ["a0", "a1", "b", "c"]);
        assert_eq!(r.total, 5);
        assert!(r.site_limited && !r.has_more);
        assert_eq!(r.listed, 4);
        assert!(r.hits[0].more_from_site && !r.hits[2].more_from_site);
        assert_eq!(r.hits[2].index, 2);
        assert_eq!(r.hits[0].replay, ["http://replay/20240101000000/a0"]);
        // The second page of one hit each.
        let a = answer(vec![hit("x", "x", 2.0), hit("y", "y", 1.0)]);
        let b = answer(vec![hit("w", "w", 1.5)]);
        let r = merged(&req(1, 1, 0), vec![a, b]);
        assert_eq!(urls(&r), ["w"]);
        assert!(r.has_more);
        assert_eq!(r.hits[0].index, 1);
    }

    #[test]
    fn a_missing_shard_is_named() {
        let a = answer(vec![hit("a", "a", 1.0)]);
        let down = ShardAnswer {
            server: "http://down:1".into(),
            results: Err("connection refused".into()),
        };
        let r = merged(&req(0, 10, 2), vec![a, down]);
        assert_eq!(urls(&r), ["a"]);
        assert_eq!(r.unavailable, ["http://down:1: connection refused"]);
    }

    #[test]
    fn totals_saturate() {
        let mut big = answer(vec![hit("a", "a", 1.0)]);
        if let Ok(r) = &mut big.results {
            r.total = u64::MAX;
            r.tally.sites.insert("a".into(), u64::MAX);
        }
        let mut small = answer(vec![hit("b", "b", 0.5)]);
        if let Ok(r) = &mut small.results {
            r.tally.sites.insert("a".into(), 246);
        }
        let r = merged(&req(0, 10, 2), vec![big, small]);
        assert_eq!(r.total, u64::MAX);
        assert_eq!(urls(&r), ["a", "b"]);
    }

    #[test]
    fn impossible_scores_refuse_the_answer() {
        let ok = ShardResults {
            hits: vec![hit("a", "a", 0.0), hit("b", "b", f32::MAX)],
            ..ShardResults::default()
        };
        assert_eq!(ok.check(), Ok(()));
        for score in [f32::INFINITY, f32::NEG_INFINITY, f32::NAN, -1.0] {
            let bad = ShardResults {
                hits: vec![hit("a", "a", 1.0), hit("b", "b", score)],
                ..ShardResults::default()
            };
            let e = bad.check().unwrap_err();
            assert!(
                matches!(&e, BadAnswer::Score { url, .. } if url == "b"),
                "{e:?}"
            );
        }
    }

    #[test]
    fn a_site_query_is_not_limited() {
        let a = answer(vec![
            hit("a1", "a", 3.0),
            hit("a2", "a", 2.0),
            hit("a3", "a", 1.0),
        ]);
        let mut q = req(0, 10, 2);
        q.query = "site:a".into();
        let r = merged(&q, vec![a]);
        assert_eq!(urls(&r), ["a1", "a2", "a3"]);
        assert_eq!(r.hits_per_site, 0);
    }
}
