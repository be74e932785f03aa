//! Facets and the capture timeline of a query: over every
//! document that matches (not only the page shown), counts by site, year of capture,
//! MIME type, language and collection, and the captures per month.
//!
//! The counting happens in the search's own collector (src/search/collect.rs), one pass for
//! ranking and counting: each set's [`SetTally`] counts by ordinals (the set's sites,
//! types and languages are numbered once when it is opened, src/search/set.rs), and the
//! sets' tallies are summed by name into a [`Tally`], which a shard server also sends its
//! front server ([`crate::search::shards`]).
//!
//! A document is a version (URL + digest) with one or more capture dates: it counts once
//! for its site, type and language, once for each year it was captured in, and the
//! timeline counts its captures (a version crawled every day of March counts 31 there).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tantivy::DocId;

use super::set::{DateTable, OpenSet};

/// Values listed per facet on a page and in `/search.json` (the most frequent); years
/// are all listed.
pub const FACET_VALUES: usize = 10;

/// Sites a shard server sends its front server, the most frequent first: a front server
/// adds these up, so a site outside every shard's first thousand is not counted.
pub const SHARD_SITES: usize = 1000;

/// One value of a facet and the documents that have it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FacetCount {
    /// The site, year, MIME type or language.
    pub value: String,
    /// Matching documents with it.
    pub count: u64,
}

/// The facets of a search: each list most frequent first (ties by value), years in
/// order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Facets {
    /// By site (host without `www.`).
    pub site: Vec<FacetCount>,
    /// By year of capture (4 digits), earliest first.
    pub year: Vec<FacetCount>,
    /// By MIME type.
    #[serde(rename = "type")]
    pub mime: Vec<FacetCount>,
    /// By language (ISO 639-1).
    pub lang: Vec<FacetCount>,
    /// By collection: a version counts in every collection it was captured in.
    #[serde(default)]
    pub collection: Vec<FacetCount>,
}

/// Captures of matching documents in one month.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MonthCount {
    /// `YYYY-MM`.
    pub month: String,
    /// Captures in it.
    pub count: u64,
}

/// What a set's documents are numbered by, for counting: their site, type and language
/// ordinals (`u32::MAX`: none) and their capture dates.
#[derive(Debug)]
pub(crate) struct FacetSources {
    pub site_of: Arc<Vec<u32>>,
    pub type_of: Arc<Vec<u32>>,
    pub lang_of: Arc<Vec<u32>>,
    pub collections: Arc<super::collections::CollectionTable>,
    pub dates: Arc<DateTable>,
}

/// Counts by ordinal, in a vector indexed by it (grown to the largest ordinal seen).
/// `count` runs for every matching document of every query: on the 1,000,000-document
/// scale collection, hashing ordinals into maps (FxHash) and finding months in B-trees
/// were 30 % of the server's cycles under load; an index into a vector is
/// neither. At most one entry per site, type or language of the set.
#[derive(Debug, Default, Clone)]
struct OrdinalCounts(Vec<u64>);

impl OrdinalCounts {
    fn add(&mut self, ordinal: u32, n: u64) {
        let i = ordinal as usize;
        if i >= self.0.len() {
            self.0.resize(i + 1, 0);
        }
        self.0[i] += n;
    }

    /// The ordinals counted, with their counts.
    fn counted(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        (self.0.iter().enumerate())
            .filter(|(_, &n)| n > 0)
            .map(|(o, &n)| (o as u32, n))
    }
}

/// Counts by month (`YYYYMM`) or year: a few direct-mapped slots in front of a B-tree.
/// A query's documents have their dates in a few months (a crawl's), so nearly every
/// count lands in a slot; a key that finds its slot taken moves the slot's count to the
/// tree. The counts are those of the tree alone.
#[derive(Debug, Default, Clone)]
struct DateCounts {
    slots: [(u32, u64); DATE_SLOTS],
    rest: BTreeMap<u32, u64>,
}

/// Slots of a [`DateCounts`]: sixteen consecutive months, or years, take one each.
const DATE_SLOTS: usize = 16;

impl DateCounts {
    /// Adds one to `key`'s count, kept in slot `slot` modulo [`DATE_SLOTS`].
    fn add_one(&mut self, key: u32, slot: usize) {
        let s = &mut self.slots[slot % DATE_SLOTS];
        if s.0 != key {
            if s.1 > 0 {
                *self.rest.entry(s.0).or_default() += s.1;
            }
            *s = (key, 0);
        }
        s.1 += 1;
    }

    /// All counts, by key.
    fn into_map(mut self) -> BTreeMap<u32, u64> {
        for (key, n) in self.slots {
            if n > 0 {
                *self.rest.entry(key).or_default() += n;
            }
        }
        self.rest
    }
}

/// One set's counts, by ordinal.
#[derive(Debug, Default, Clone)]
pub(crate) struct SetTally {
    sites: OrdinalCounts,
    types: OrdinalCounts,
    langs: OrdinalCounts,
    collections: OrdinalCounts,
    /// Documents per year (`YYYY`).
    years: DateCounts,
    /// Captures per month (`YYYYMM`).
    months: DateCounts,
}

impl SetTally {
    /// Counts document `doc`.
    pub fn count(&mut self, src: &FacetSources, doc: DocId) {
        let d = doc as usize;
        for (of, counts) in [
            (&src.site_of, &mut self.sites),
            (&src.type_of, &mut self.types),
            (&src.lang_of, &mut self.langs),
        ] {
            if let Some(&o) = of.get(d).filter(|&&o| o != u32::MAX) {
                counts.add(o, 1);
            }
        }
        for &c in src.collections.of(doc) {
            self.collections.add(c, 1);
        }
        let mut last_year = 0;
        for &date in src.dates.of(doc) {
            // 14 digits: YYYYMMDDhhmmss.
            let month = (date / 100_000_000) as u32;
            let year = month / 100;
            // Consecutive months, consecutive slots.
            self.months
                .add_one(month, year as usize * 12 + (month % 100) as usize);
            // A document's dates are ascending: each year once.
            if year != last_year {
                self.years.add_one(year, year as usize);
                last_year = year;
            }
        }
    }

    /// Adds another part of the same set (another segment).
    pub fn absorb(&mut self, other: SetTally) {
        for (mine, theirs) in [
            (&mut self.sites, other.sites),
            (&mut self.types, other.types),
            (&mut self.langs, other.langs),
            (&mut self.collections, other.collections),
        ] {
            for (o, n) in theirs.counted() {
                mine.add(o, n);
            }
        }
        for (mine, theirs) in [
            (&mut self.years, other.years),
            (&mut self.months, other.months),
        ] {
            for (k, n) in theirs.into_map() {
                *mine.rest.entry(k).or_default() += n;
            }
        }
    }
}

/// Counts of a search summed over sets (and shard servers), by value.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Documents per site.
    pub sites: BTreeMap<String, u64>,
    /// Documents per MIME type.
    pub types: BTreeMap<String, u64>,
    /// Documents per language.
    pub langs: BTreeMap<String, u64>,
    /// Documents per collection.
    #[serde(default)]
    pub collections: BTreeMap<String, u64>,
    /// Documents per year of capture.
    pub years: BTreeMap<u32, u64>,
    /// Captures per month (`YYYYMM`).
    pub months: BTreeMap<u32, u64>,
}

impl Tally {
    /// Adds set `set`'s counts.
    pub(crate) fn add_set(&mut self, set: &OpenSet, t: &SetTally) {
        let named = |names: &[String], counts: &OrdinalCounts, into: &mut BTreeMap<String, u64>| {
            for (o, n) in counts.counted() {
                if let Some(name) = names.get(o as usize) {
                    *into.entry(name.clone()).or_default() += n;
                }
            }
        };
        named(&set.site_names, &t.sites, &mut self.sites);
        named(&set.type_names, &t.types, &mut self.types);
        named(&set.lang_names, &t.langs, &mut self.langs);
        named(
            &set.collections.names,
            &t.collections,
            &mut self.collections,
        );
        for (y, n) in t.years.clone().into_map() {
            *self.years.entry(y).or_default() += n;
        }
        for (m, n) in t.months.clone().into_map() {
            *self.months.entry(m).or_default() += n;
        }
    }

    /// Adds another tally (a shard server's). The sums saturate: a shard server may
    /// send any count, and a sum that wrapped around would show fewer than a part.
    pub fn add(&mut self, other: &Tally) {
        for (mine, theirs) in [
            (&mut self.sites, &other.sites),
            (&mut self.types, &other.types),
            (&mut self.langs, &other.langs),
            (&mut self.collections, &other.collections),
        ] {
            for (k, &n) in theirs {
                let m = mine.entry(k.clone()).or_default();
                *m = m.saturating_add(n);
            }
        }
        for (mine, theirs) in [
            (&mut self.years, &other.years),
            (&mut self.months, &other.months),
        ] {
            for (&k, &n) in theirs {
                let m = mine.entry(k).or_default();
                *m = m.saturating_add(n);
            }
        }
    }

    /// The tally a shard server sends: its [`SHARD_SITES`] most frequent sites only.
    pub fn for_front(mut self) -> Tally {
        if self.sites.len() > SHARD_SITES {
            let kept: BTreeMap<String, u64> = most_frequent(&self.sites, SHARD_SITES)
                .into_iter()
                .map(|c| (c.value, c.count))
                .collect();
            self.sites = kept;
        }
        self
    }

    /// The facets to show.
    pub fn facets(&self) -> Facets {
        Facets {
            site: most_frequent(&self.sites, FACET_VALUES),
            year: (self.years.iter())
                .map(|(y, &n)| FacetCount {
                    value: format!("{y:04}"),
                    count: n,
                })
                .collect(),
            mime: most_frequent(&self.types, FACET_VALUES),
            lang: most_frequent(&self.langs, FACET_VALUES),
            collection: most_frequent(&self.collections, FACET_VALUES),
        }
    }

    /// The capture timeline: every month from the first to the last with a capture,
    /// months without one at 0, so that a chart of it has an even time axis.
    pub fn timeline(&self) -> Vec<MonthCount> {
        let (Some((&first, _)), Some((&last, _))) =
            (self.months.first_key_value(), self.months.last_key_value())
        else {
            return Vec::new();
        };
        let index = |m: u32| (m / 100) * 12 + (m % 100).saturating_sub(1);
        (index(first)..=index(last))
            .map(|i| {
                let m = (i / 12) * 100 + i % 12 + 1;
                MonthCount {
                    month: format!("{:04}-{:02}", m / 100, m % 100),
                    count: self.months.get(&m).copied().unwrap_or(0),
                }
            })
            .collect()
    }
}

/// The `n` values with the highest counts, ties by value.
fn most_frequent(counts: &BTreeMap<String, u64>, n: usize) -> Vec<FacetCount> {
    let mut v: Vec<FacetCount> = counts
        .iter()
        .map(|(value, &count)| FacetCount {
            value: value.clone(),
            count,
        })
        .collect();
    v.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.value.cmp(&b.value)));
    v.truncate(n);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The slots give the counts a B-tree alone gives, also when keys collide in a slot
    /// and take it from each other; ordinal counts list only what was counted.
    #[test]
    fn date_slots_and_ordinal_vectors_count_as_maps_do() {
        let mut slots = DateCounts::default();
        let mut plain: BTreeMap<u32, u64> = BTreeMap::new();
        // Months of 40 years (slots are taken and given back), in an order that
        // returns to earlier keys.
        let mut x: u32 = 7;
        for _ in 0..5_000 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let year = 1996 + (x >> 8) % 40;
            let month = year * 100 + 1 + (x >> 20) % 12;
            slots.add_one(month, year as usize * 12 + (month % 100) as usize);
            *plain.entry(month).or_default() += 1;
        }
        assert_eq!(slots.into_map(), plain);

        let mut counts = OrdinalCounts::default();
        for o in [5, 0, 5, 900, 5] {
            counts.add(o, 1);
        }
        let listed: Vec<(u32, u64)> = counts.counted().collect();
        assert_eq!(listed, vec![(0, 1), (5, 3), (900, 1)]);
    }

    #[test]
    fn facets_sort_and_timeline_fills_gaps() {
        let mut t = Tally::default();
        for (s, n) in [("b.org", 3), ("a.org", 3), ("c.org", 5)] {
            t.sites.insert(s.into(), n);
        }
        t.months.insert(200711, 2);
        t.months.insert(200802, 1);
        t.years.insert(2007, 2);
        t.years.insert(2008, 1);
        let f = t.facets();
        let sites: Vec<_> = f.site.iter().map(|c| (c.value.as_str(), c.count)).collect();
        assert_eq!(sites, [("c.org", 5), ("a.org", 3), ("b.org", 3)]);
        assert_eq!(f.year[0].value, "2007");
        let tl: Vec<_> = t
            .timeline()
            .into_iter()
            .map(|m| (m.month, m.count))
            .collect();
        assert_eq!(
            tl,
            [
                ("2007-11".to_string(), 2),
                ("2007-12".to_string(), 0),
                ("2008-01".to_string(), 0),
                ("2008-02".to_string(), 1)
            ]
        );
        let mut front = Tally::default();
        front.add(&t);
        front.add(&t);
        assert_eq!(front.sites["c.org"], 10);
        assert_eq!(front.months[&200711], 4);
    }
}
