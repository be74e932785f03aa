//! The best candidates of one set's search under a per-site limit, kept in one pass
//! over every matching document (`collect.rs`'s collector offers them here).
//!
//! Without a per-site limit the best `limit` are a heap's. With one, the hits of a page
//! are the best `limit` of the union of every site's best `per_site` (and the best
//! `limit` without a site): taking candidates best first and skipping one whose site
//! already has `per_site` gives exactly them. So each site's best are kept, and how many
//! documents each site matched (a site with more is listed as limited).
//!
//! On a large collection that was a hash-map probe per matching document: 36 % of the
//! server's cycles on the 1,000,000-document scale collection under load.
//! When asked to ([`CappedTop::new`]'s `prune`), a candidate below the `limit`-th best
//! of what is kept is not kept: it can never be among the best `limit`. Why that is
//! exact: if `limit` kept candidates, at most `per_site` of each site, are better than
//! `x`, then taking candidates best first reaches, before `x`, either each of them or
//! `per_site` better ones of its site, so `limit` are taken before `x`. And a candidate
//! that is among the best `limit` has fewer than `per_site` better ones in its site, so
//! it stays among its site's kept. Only the best `limit` of the result are the same: the
//! caller must look no further, which is why a search that folds hits together or merges
//! sets does not prune (`rank.rs`, `rank`).

use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeSet, BinaryHeap, HashMap};

use tantivy::{DocId, Score};

/// A score that orders as a number (NaN last).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Ranked(pub Score, pub DocId);

impl Eq for Ranked {}

impl Ord for Ranked {
    /// Higher score first; on a tie the lower DocId (key order) first, so results are
    /// deterministic.
    fn cmp(&self, o: &Self) -> Ordering {
        self.0.total_cmp(&o.0).then_with(|| o.1.cmp(&self.1))
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// A hasher for `u32` site ordinals: one multiplication instead of SipHash, which
/// showed in profiles (the map is probed once per kept candidate).
#[derive(Default)]
struct OrdHasher(u64);

impl std::hash::Hasher for OrdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.0 = u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type OrdMap<V> = HashMap<u32, V, std::hash::BuildHasherDefault<OrdHasher>>;

/// The site ordinal of a document without a site.
pub(crate) const NO_SITE: u32 = u32::MAX;

/// One set's best candidates under a per-site limit, and its sites' match counts.
pub(crate) struct CappedTop {
    limit: usize,
    /// Each site's best this many are kept (0: no per-site keeping, every candidate
    /// competes in `heap`). Above the per-site limit when the selection folds hits
    /// together (`rank.rs`): a site's kept candidates may fold away there.
    per_site: usize,
    /// The per-site limit itself, which a site is reported over (0: none).
    report_over: usize,
    /// The best `limit` candidates without a site (all of them, with no per-site limit).
    heap: BinaryHeap<Reverse<Ranked>>,
    /// Each site's best `per_site`.
    sites: OrdMap<Vec<Ranked>>,
    /// Documents offered per site ordinal (grown to the largest seen).
    seen: Vec<u32>,
    /// When pruning: the best `limit` of the candidates kept (in `heap` and `sites`).
    best: Option<BTreeSet<Ranked>>,
    /// Whether `heap` left out a candidate offered to it.
    heap_cut: bool,
}

/// What one set's search keeps ([`CappedTop::harvest`]).
pub(crate) struct Harvest {
    /// The candidates kept, best first.
    pub candidates: Vec<(Score, DocId)>,
    /// The sites (ordinals, ascending) that matched more documents than the per-site
    /// limit.
    pub over_limit: Vec<u32>,
    /// Where the list was cut: each a kept candidate below which candidates were left
    /// out, with the site they were left out of (`None`: of the heap, any site).
    pub floors: Vec<(DocId, Option<u32>)>,
}

impl CappedTop {
    /// Keeps the best `limit`, at most `per_site` of a site (0: no limit), and counts the
    /// sites over `report_over` (0: none); with `prune`, only the best `limit` of
    /// [`CappedTop::harvest`]'s list are right.
    pub(crate) fn new(limit: usize, per_site: usize, report_over: usize, prune: bool) -> Self {
        CappedTop {
            limit,
            per_site,
            report_over,
            heap: BinaryHeap::with_capacity(limit.min(1 << 16) + 1),
            sites: OrdMap::default(),
            seen: Vec::new(),
            // Without a per-site limit the heap prunes by itself.
            best: (prune && per_site > 0).then(BTreeSet::new),
            heap_cut: false,
        }
    }

    /// Offers a candidate of site ordinal `site` ([`NO_SITE`]: none).
    pub(crate) fn offer(&mut self, r: Ranked, site: u32) {
        // Counted whatever is kept, so that the sites reported over the limit do not
        // depend on how many candidates were asked for.
        if site != NO_SITE && (self.per_site > 0 || self.report_over > 0) {
            let i = site as usize;
            if i >= self.seen.len() {
                self.seen.resize(i + 1, 0);
            }
            self.seen[i] += 1;
        }
        if self.per_site == 0 || site == NO_SITE {
            if self.heap.len() < self.limit {
                self.heap.push(Reverse(r));
                self.kept(None, r);
                return;
            }
            self.heap_cut = true;
            if self.heap.peek().is_some_and(|Reverse(worst)| r > *worst) {
                let out = self.heap.pop().map(|Reverse(w)| w);
                self.heap.push(Reverse(r));
                self.kept(out, r);
            }
            return;
        }
        if let Some(best) = &self.best {
            if best.len() >= self.limit && best.first().is_some_and(|floor| r < *floor) {
                return;
            }
        }
        let k = self.per_site;
        let top = self
            .sites
            .entry(site)
            .or_insert_with(|| Vec::with_capacity(k.min(16)));
        if top.len() < k {
            top.push(r);
            self.kept(None, r);
        } else if let Some((i, worst)) = top.iter().enumerate().min_by(|a, b| a.1.cmp(b.1)) {
            let worst = *worst;
            if r > worst {
                top[i] = r;
                self.kept(Some(worst), r);
            }
        }
    }

    /// `r` is kept, in place of `out` if that was dropped for it: the best `limit`
    /// follow.
    fn kept(&mut self, out: Option<Ranked>, r: Ranked) {
        let Some(best) = &mut self.best else { return };
        // `r` is better than `out`: it takes its place when `out` was among the best.
        if out.is_some_and(|o| best.remove(&o)) {
            best.insert(r);
            return;
        }
        if best.len() < self.limit {
            best.insert(r);
        } else if best.first().is_some_and(|floor| r > *floor) {
            best.pop_first();
            best.insert(r);
        }
    }

    /// The candidates kept, best first, the sites over the per-site limit and where the
    /// list was cut. A floor is exact only without pruning.
    pub(crate) fn harvest(self) -> Harvest {
        let mut floors = Vec::new();
        if self.heap_cut {
            floors.extend(self.heap.peek().map(|Reverse(worst)| (worst.1, None)));
        }
        let mut v: Vec<Ranked> = self.heap.into_iter().map(|Reverse(r)| r).collect();
        for (site, top) in self.sites {
            if self
                .seen
                .get(site as usize)
                .is_some_and(|&n| n as usize > top.len())
            {
                floors.extend(top.iter().min().map(|worst| (worst.1, Some(site))));
            }
            v.extend(top);
        }
        v.sort_by(|a, b| b.cmp(a));
        let over_limit = match self.report_over {
            0 => Vec::new(),
            limit => (self.seen.iter().enumerate())
                .filter(|(_, &n)| n as usize > limit)
                .map(|(site, _)| site as u32)
                .collect(),
        };
        Harvest {
            candidates: v.into_iter().map(|r| (r.0, r.1)).collect(),
            over_limit,
            floors,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::XorShift;

    /// The best `limit` of the list, and the limited sites.
    fn run(
        limit: usize,
        per_site: usize,
        prune: bool,
        offers: &[(Ranked, u32)],
    ) -> (Vec<(Score, DocId)>, Vec<u32>) {
        let mut t = CappedTop::new(limit, per_site, per_site, prune);
        for &(r, site) in offers {
            t.offer(r, site);
        }
        let Harvest {
            candidates: mut v,
            over_limit,
            ..
        } = t.harvest();
        v.truncate(limit);
        (v, over_limit)
    }

    /// What the page shows, by the rule itself: all candidates best first, skipping one
    /// whose site already has `per_site`, the first `limit`.
    fn by_rule(limit: usize, per_site: usize, offers: &[(Ranked, u32)]) -> Vec<(Score, DocId)> {
        let mut all = offers.to_vec();
        all.sort_by_key(|c| Reverse(c.0));
        let mut taken: HashMap<u32, usize> = HashMap::new();
        let mut out = Vec::new();
        for (r, site) in all {
            if per_site > 0 && site != NO_SITE {
                let n = taken.entry(site).or_default();
                if *n >= per_site {
                    continue;
                }
                *n += 1;
            }
            out.push((r.0, r.1));
            if out.len() == limit {
                break;
            }
        }
        out
    }

    /// `n` offers in DocId order, as a collector makes them: one of `scores` distinct
    /// scores each, so that ties (broken by DocId) are common, and one in `no_site` without
    /// a site.
    fn random_offers(
        rng: &mut XorShift,
        n: usize,
        sites: u32,
        scores: usize,
        no_site: usize,
    ) -> Vec<(Ranked, u32)> {
        (0..n as u32)
            .map(|doc| {
                let score = rng.below(scores) as f32 / 4.0;
                let site = match rng.below(no_site) {
                    0 => NO_SITE,
                    _ => rng.below(sites as usize) as u32,
                };
                (Ranked(score, doc), site)
            })
            .collect()
    }

    #[test]
    fn pruning_keeps_the_best_under_the_per_site_limit_exactly() {
        let mut rng = XorShift::new(22);
        for case in 0..3000 {
            let n = rng.below(400);
            let sites = 1 + rng.below(40) as u32;
            let limit = 1 + rng.below(30);
            let per_site = rng.below(4);
            let offers = random_offers(&mut rng, n, sites, 12, 10);
            let whole = run(limit, per_site, false, &offers);
            let pruned = run(limit, per_site, true, &offers);
            assert_eq!(pruned, whole, "case {case}");
            assert_eq!(whole.0, by_rule(limit, per_site, &offers), "case {case}");
        }
    }

    /// Every candidate left out ranks below a floor of its kind: its site's when it has
    /// one and sites keep their best, else the heap's.
    #[test]
    fn floors_bound_every_candidate_left_out() {
        let mut rng = XorShift::new(41);
        for case in 0..2000 {
            let n = rng.below(200);
            let sites = 1 + rng.below(12) as u32;
            let limit = 1 + rng.below(20);
            let per_site = rng.below(4);
            let offers = random_offers(&mut rng, n, sites, 8, 6);
            let mut t = CappedTop::new(limit, per_site, per_site, false);
            for &(r, site) in &offers {
                t.offer(r, site);
            }
            let h = t.harvest();
            let score_of = |d: DocId| offers[d as usize].0;
            for &(r, site) in &offers {
                if h.candidates.contains(&(r.0, r.1)) {
                    continue;
                }
                let kind = (per_site > 0 && site != NO_SITE).then_some(site);
                let floor = h.floors.iter().find(|f| f.1 == kind);
                assert!(
                    floor.is_some_and(|f| r < score_of(f.0)),
                    "case {case}: {r:?} of site {site} left out, floors {:?}",
                    h.floors
                );
            }
        }
    }

    #[test]
    fn limited_sites_are_those_with_more_matches_than_the_limit() {
        let offers = [
            (Ranked(1.0, 0), 3),
            (Ranked(0.5, 1), 3),
            (Ranked(0.1, 2), 3),
            (Ranked(2.0, 3), 1),
            (Ranked(0.0, 4), NO_SITE),
            (Ranked(0.2, 5), 1),
        ];
        for prune in [false, true] {
            let (v, hidden) = run(1, 2, prune, &offers);
            assert_eq!((v, hidden), (vec![(2.0, 3)], vec![3]), "prune {prune}");
        }
    }
}
