//! Facets and the capture timeline of a query (issue 19, items 9–10): over every
//! document that matches (not only the page shown), counts by site, year of capture,
//! MIME type and language, and the captures per month.
//!
//! The counting happens in the search's own collector (src/search/hits.rs), one pass for
//! ranking and counting: each set's [`SetTally`] counts by ordinals (the set's sites,
//! types and languages are numbered once when it is opened, src/search/set.rs), and the
//! sets' tallies are summed by name into a [`Tally`], which a shard server also sends its
//! front server ([`crate::search::shards`]).
//!
//! A document is a version (URL + digest) with one or more capture dates: it counts once
//! for its site, type and language, once for each year it was captured in, and the
//! timeline counts its captures (a version crawled every day of March counts 31 there).

use std::collections::{BTreeMap, HashMap};
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
    pub dates: Arc<DateTable>,
}

/// Counts by ordinal. FxHash, not the standard SipHash: `count` runs for every matching
/// document of every query, and hashing ordinals with SipHash was 3 % of the server's
/// cycles under load (issue 22's profile of `scripts/bench-serve.sh`); the keys are small
/// integers from the index, not from clients.
type OrdinalCounts = HashMap<u32, u64, rustc_hash::FxBuildHasher>;

/// One set's counts, by ordinal.
#[derive(Debug, Default, Clone)]
pub(crate) struct SetTally {
    sites: OrdinalCounts,
    types: OrdinalCounts,
    langs: OrdinalCounts,
    /// Documents per year (`YYYY`).
    years: BTreeMap<u32, u64>,
    /// Captures per month (`YYYYMM`).
    months: BTreeMap<u32, u64>,
}

impl SetTally {
    /// Counts document `doc`.
    pub fn count(&mut self, src: &FacetSources, doc: DocId) {
        let d = doc as usize;
        for (of, map) in [
            (&src.site_of, &mut self.sites),
            (&src.type_of, &mut self.types),
            (&src.lang_of, &mut self.langs),
        ] {
            if let Some(&o) = of.get(d).filter(|&&o| o != u32::MAX) {
                *map.entry(o).or_default() += 1;
            }
        }
        let mut last_year = 0;
        for &date in src.dates.of(doc) {
            // 14 digits: YYYYMMDDhhmmss.
            let month = (date / 100_000_000) as u32;
            *self.months.entry(month).or_default() += 1;
            let year = month / 100;
            // A document's dates are ascending: each year once.
            if year != last_year {
                *self.years.entry(year).or_default() += 1;
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
        ] {
            for (k, n) in theirs {
                *mine.entry(k).or_default() += n;
            }
        }
        for (mine, theirs) in [
            (&mut self.years, other.years),
            (&mut self.months, other.months),
        ] {
            for (k, n) in theirs {
                *mine.entry(k).or_default() += n;
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
    /// Documents per year of capture.
    pub years: BTreeMap<u32, u64>,
    /// Captures per month (`YYYYMM`).
    pub months: BTreeMap<u32, u64>,
}

impl Tally {
    /// Adds set `set`'s counts.
    pub(crate) fn add_set(&mut self, set: &OpenSet, t: &SetTally) {
        let named = |names: &[String], counts: &OrdinalCounts, into: &mut BTreeMap<String, u64>| {
            for (&o, &n) in counts {
                if let Some(name) = names.get(o as usize) {
                    *into.entry(name.clone()).or_default() += n;
                }
            }
        };
        named(&set.site_names, &t.sites, &mut self.sites);
        named(&set.type_names, &t.types, &mut self.types);
        named(&set.lang_names, &t.langs, &mut self.langs);
        for (&y, &n) in &t.years {
            *self.years.entry(y).or_default() += n;
        }
        for (&m, &n) in &t.months {
            *self.months.entry(m).or_default() += n;
        }
    }

    /// Adds another tally (a shard server's).
    pub fn add(&mut self, other: &Tally) {
        for (mine, theirs) in [
            (&mut self.sites, &other.sites),
            (&mut self.types, &other.types),
            (&mut self.langs, &other.langs),
        ] {
            for (k, &n) in theirs {
                *mine.entry(k.clone()).or_default() += n;
            }
        }
        for (mine, theirs) in [
            (&mut self.years, &other.years),
            (&mut self.months, &other.months),
        ] {
            for (&k, &n) in theirs {
                *mine.entry(k).or_default() += n;
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

    /// Distinct sites among the matches.
    pub fn site_count(&self) -> usize {
        self.sites.len()
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
