//! The collector of a set's search: among the documents passing the date filter, each
//! scored by its text score times its factor (the link prior, the link-list demotion), the best candidates under the per-site
//! limit, near-identical versions of a URL as one (`near.rs`), and the facet counts.

use std::sync::Arc;

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader};

use super::capped_top::{CappedTop, Harvest, Ranked, NO_SITE};
use super::facets::{FacetSources, SetTally};
use super::near::NearTable;
use super::set::DateTable;

/// Collects, among the documents passing the date filter (a bit per DocId), scored by
/// text score × factor (`weights.rs`): the best `limit` overall when there is no per-site limit, else
/// the best `per_site` of each site (and the best `limit` of documents without a site).
/// Keeping each site's best is what makes one pass enough: the hits of a page under a
/// per-site limit are always among them. Counts every document passing the filter.
pub(crate) struct TopFiltered {
    pub limit: usize,
    /// How many of each site's best are kept (0: none apart).
    pub per_site: usize,
    /// The per-site limit, which sites are reported over (0: none).
    pub report_over: usize,
    pub filter: Option<Arc<Vec<u64>>>,
    pub site_of: Arc<Vec<u32>>,
    /// Near-identical versions of a URL are one candidate (`near.rs`), unless `None`.
    pub near: Option<Arc<NearTable>>,
    /// The documents' dates: a group is shown as its newest version.
    pub dates: Arc<DateTable>,
    /// Counted for the facets and the timeline, when asked for.
    pub facets: Option<Arc<FacetSources>>,
    /// Each document's factor (`OpenSet::factor`).
    pub factor: Option<Arc<Vec<Score>>>,
    /// Each document's place in an order by date (`as_of::date_orders`), which then
    /// stands for its score.
    pub order: Option<Arc<Vec<Score>>>,
    /// Whether only the best `limit` candidates are asked for, so that the others need
    /// not be kept (`capped_top.rs`): not when hits are folded together or sets merged.
    pub prune: bool,
}

/// What a set's search gives.
#[derive(Default)]
pub(crate) struct Fruit {
    /// Documents matching.
    pub count: u64,
    /// Candidates best first.
    pub candidates: Vec<(Score, DocId)>,
    /// The sites (ordinals) with more candidates than the per-site limit.
    pub over_limit: Vec<u32>,
    /// Where the candidates were cut ([`Harvest::floors`]).
    pub floors: Vec<(DocId, Option<u32>)>,
    /// The facet counts.
    pub tally: SetTally,
}

pub(crate) struct TopFilteredSegment {
    filter: Option<Arc<Vec<u64>>>,
    site_of: Arc<Vec<u32>>,
    facets: Option<Arc<FacetSources>>,
    tally: SetTally,
    factor: Option<Arc<Vec<Score>>>,
    order: Option<Arc<Vec<Score>>>,
    count: u64,
    top: CappedTop,
    near: Option<Arc<NearTable>>,
    dates: Arc<DateTable>,
    /// Groups of near-identical versions met and not yet complete.
    pending: Vec<PendingGroup>,
}

/// A group of near-identical versions while its members are collected: its best score,
/// and the version it is shown as (the newest: latest capture, then highest DocId).
struct PendingGroup {
    last: DocId,
    score: Score,
    shown: DocId,
    shown_date: u64,
}

impl Collector for TopFiltered {
    type Fruit = Fruit;
    type Child = TopFilteredSegment;

    fn for_segment(
        &self,
        _ord: SegmentOrdinal,
        _segment: &SegmentReader,
    ) -> tantivy::Result<TopFilteredSegment> {
        // Sets are single-segment (checked on open): the set's factors are the segment's.
        let factor = self.factor.clone();
        Ok(TopFilteredSegment {
            order: self.order.clone(),
            filter: self.filter.clone(),
            site_of: self.site_of.clone(),
            facets: self.facets.clone(),
            tally: SetTally::default(),
            factor,
            count: 0,
            top: CappedTop::new(self.limit, self.per_site, self.report_over, self.prune),
            near: self.near.clone(),
            dates: self.dates.clone(),
            pending: Vec::new(),
        })
    }

    fn requires_scoring(&self) -> bool {
        true
    }

    fn merge_fruits(&self, fruits: Vec<Fruit>) -> tantivy::Result<Fruit> {
        // Sets are single-segment (checked on open), so DocIds need no segment number.
        let mut out = Fruit::default();
        for f in fruits {
            out.count += f.count;
            out.candidates.extend(f.candidates);
            out.over_limit.extend(f.over_limit);
            out.floors.extend(f.floors);
            out.tally.absorb(f.tally);
        }
        Ok(out)
    }
}

impl SegmentCollector for TopFilteredSegment {
    type Fruit = Fruit;

    fn collect(&mut self, doc: DocId, score: Score) {
        if let Some(bits) = &self.filter {
            if bits[doc as usize / 64] & (1 << (doc % 64)) == 0 {
                return;
            }
        }
        self.count += 1;
        if let Some(src) = &self.facets {
            self.tally.count(src, doc);
        }
        let r = match &self.order {
            Some(o) => Ranked(o.get(doc as usize).copied().unwrap_or(0.0), doc),
            None => {
                let factor = (self.factor.as_ref())
                    .map_or(1.0, |b| b.get(doc as usize).copied().unwrap_or(1.0));
                Ranked(score * factor, doc)
            }
        };
        if self.near.is_some() {
            self.collect_version(r);
        } else {
            self.offer(r);
        }
    }

    fn harvest(mut self) -> Fruit {
        self.flush_groups(DocId::MAX);
        self.harvest_offered()
    }
}

impl TopFilteredSegment {
    /// A matching version when near-identical versions are one candidate: alone, it is
    /// offered at once; in a group, it waits for the group's last member.
    fn collect_version(&mut self, r: Ranked) {
        let doc = r.1;
        self.flush_groups(doc);
        let Some(near) = &self.near else { return };
        let group = near.group_of(doc);
        let last = near.last_of(group);
        if group == doc && last == doc {
            self.offer(r);
            return;
        }
        let date = self.dates.of(doc).last().copied().unwrap_or(0);
        match self
            .pending
            .iter_mut()
            // Groups are disjoint, so a group's last member names it.
            .find(|p| p.last == last)
        {
            Some(p) => {
                p.score = p.score.max(r.0);
                if (date, doc) >= (p.shown_date, p.shown) {
                    p.shown = doc;
                    p.shown_date = date;
                }
            }
            None => self.pending.push(PendingGroup {
                last,
                score: r.0,
                shown: doc,
                shown_date: date,
            }),
        }
    }

    /// Offers the groups whose last member comes before `doc` (DocIds arrive in order).
    fn flush_groups(&mut self, doc: DocId) {
        let mut i = 0;
        while i < self.pending.len() {
            if self.pending[i].last < doc {
                let p = self.pending.swap_remove(i);
                self.offer(Ranked(p.score, p.shown));
            } else {
                i += 1;
            }
        }
    }

    /// Puts a candidate in the top list, under the per-site limit.
    fn offer(&mut self, r: Ranked) {
        let site = self.site_of.get(r.1 as usize).copied().unwrap_or(NO_SITE);
        self.top.offer(r, site);
    }

    fn harvest_offered(self) -> Fruit {
        let Harvest {
            candidates,
            over_limit,
            floors,
        } = self.top.harvest();
        Fruit {
            count: self.count,
            candidates,
            over_limit,
            floors,
            tally: self.tally,
        }
    }
}
