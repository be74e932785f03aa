//! The versions of a page's URLs that the walk did not reach.
//!
//! The walk across sets (`select.rs`) stops once it has kept `need` hits, and each set
//! kept only its best candidates; but a version of a kept hit's URL in another set may
//! rank anywhere below it, and folds into it when met. Left to the walk, a hit's dates
//! and the version it shows depended on how far the walk went, so on the page size:
//! paged at 3, a hit lacked the dates of a lower-ranked version its page of 100 had.
//!
//! So for each hit read, every set is asked directly for the versions of its URL (the
//! URL key's run of DocIds), each checked against the query and its date ranges, and
//! grouped as the collector groups them (`collect.rs`: a group of near-identical versions
//! is one candidate, shown as its newest matching version). A candidate the walk did not
//! meet ranks below every hit kept, and a walk of every candidate folds it into the
//! first kept hit it is near ([`fold_into`]); when one of the page's hits is near it, that
//! first one is among the hits kept so far, which come before any kept later. So it is
//! folded there now, and one not near any hit kept so far is left for a later page.
//!
//! Mirrors (`collapse=near`: near-identical pages of other URLs) have no such lookup; a
//! hit's `also_at` names those among the candidates the walk met.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use tantivy::query::{EnableScoring, Query};
use tantivy::{DocId, DocSet, TERMINATED};

use super::rank::Ranking;
use super::select::{fold_into, near_key, Candidate};
use super::set::{DateTable, OpenSet};
use super::{SearchError, SearchIndex};

impl SearchIndex {
    /// Folds into the kept hits every candidate of the URLs of the hits at `positions`
    /// (in `r.selection.kept`) that the walk did not meet and that folds into one of
    /// them.
    pub(super) fn fold_unwalked(
        &self,
        r: &mut Ranking,
        positions: &[usize],
    ) -> Result<(), SearchError> {
        let sel = &r.selection;
        if !sel.folding {
            return Ok(());
        }
        // Only a hit with a fingerprint takes in other candidates, and only versions of
        // its URL in other sets fold into it (`fold_into`): a set is asked for the URLs
        // of the hits from the other sets alone.
        let hits: Vec<(usize, u32)> = (positions.iter())
            .filter_map(|&j| {
                let (_, u) = sel.keys.get(j)?.as_ref()?;
                Some((sel.kept.get(j)?.0, *u))
            })
            .collect();
        if hits.is_empty() {
            return Ok(());
        }
        let mut found: Vec<Candidate> = Vec::new();
        for (i, s) in self.sets.iter().enumerate() {
            if !self.live(i) {
                continue;
            }
            let mut urlkeys: Vec<u32> = (hits.iter())
                .filter(|&&(set, _)| set != i)
                .map(|&(_, u)| u)
                .collect();
            urlkeys.sort_unstable();
            urlkeys.dedup();
            let filter = r.date_filters[i].as_deref();
            let near = !sel.near.show_versions;
            let candidates = catch_unwind(AssertUnwindSafe(|| {
                let asked = Asked {
                    query: &*r.queries[i],
                    filter,
                    near,
                };
                candidates_of(s, &r.views[i].dates, i, &asked, &urlkeys)
            }))
            .map_err(|p| self.after_panic(i, "reading the versions of a hit's URL", &*p))??;
            found.extend(candidates);
        }
        let sel = &mut r.selection;
        for c in found {
            if sel.walked.contains(&(c.0, c.1)) {
                continue;
            }
            let key = near_key(&self.sets, c);
            if let Some((j, same_url)) = fold_into(sel.near, &sel.keys, &sel.kept, c, &key) {
                let f = &mut sel.folded[j];
                match same_url {
                    true => f.versions.push((c.0, c.1)),
                    false => f.mirrors.push((c.0, c.1)),
                }
            }
            sel.walked.insert((c.0, c.1));
        }
        Ok(())
    }
}

/// What a set is asked for its candidates: the query, the date filter (a bit per DocId)
/// and whether near-identical versions are one.
struct Asked<'a> {
    query: &'a dyn Query,
    filter: Option<&'a Vec<u64>>,
    near: bool,
}

/// The candidates of set `set` (`s`) among the versions of the URLs whose key ranks
/// are `urlkeys` (`url_table.rs`): the
/// versions matching `query` and in `filter` (a bit per DocId), each group of
/// near-identical versions one candidate shown as its newest matching version (when
/// `near`), as the collector makes them. Their score is not needed, and left 0.
fn candidates_of(
    s: &OpenSet,
    dates: &DateTable,
    set: usize,
    asked: &Asked<'_>,
    urlkeys: &[u32],
) -> tantivy::Result<Vec<Candidate>> {
    let Asked {
        query,
        filter,
        near,
    } = *asked;
    let Some(reader) = s.searcher.segment_readers().first() else {
        return Ok(Vec::new());
    };
    let mut docs: Vec<DocId> = urlkeys.iter().flat_map(|&u| s.urls.docs_of(u)).collect();
    // Most URLs have versions in one set: then the others build no scorer.
    if docs.is_empty() {
        return Ok(Vec::new());
    }
    // Runs of distinct URL keys are disjoint; the scorer only moves forward.
    docs.sort_unstable();
    let weight = query.weight(EnableScoring::disabled_from_searcher(&s.searcher))?;
    let mut scorer = weight.scorer(reader, 1.0)?;
    let table = s.near.as_ref().filter(|_| near);
    // By group (its first DocId): the newest matching version, by (last date, DocId).
    let mut shown: BTreeMap<DocId, (u64, DocId)> = BTreeMap::new();
    for d in docs {
        if scorer.doc() != TERMINATED && scorer.doc() < d {
            scorer.seek(d);
        }
        let passes = filter.is_none_or(|bits| bits[d as usize / 64] & (1 << (d % 64)) != 0);
        if scorer.doc() != d || !passes || reader.is_deleted(d) {
            continue;
        }
        let group = table.map_or(d, |t| t.group_of(d));
        let newness = (dates.of(d).last().copied().unwrap_or(0), d);
        let best = shown.entry(group).or_insert(newness);
        *best = (*best).max(newness);
    }
    Ok(shown.into_values().map(|(_, d)| (set, d, 0.0)).collect())
}
