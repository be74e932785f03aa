//! Every version a query matches, not its best few: the query run
//! with a collector that only marks documents, filtered as a search filters them
//! (`date:`, `as-of:`, the access rules), then read set by set in URL key order. Memory
//! is a bit per document of a set and one version at a time, whatever the matches.

use std::io;

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader};

use super::{date14, SearchError, SearchIndex, SearchRequest, Selection};

/// One matching version, as an export writes it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MatchedVersion {
    /// The URL as captured.
    pub url: String,
    /// Its URL key (SURT, as the CDX's).
    pub urlkey: String,
    /// The title (may be empty).
    pub title: String,
    /// `sha1:DIGEST` of the payload.
    pub digest: String,
    /// The MIME type.
    pub mime: String,
    /// The language detected at import (ISO 639-1; empty when none).
    pub language: String,
    /// The host without `www.`.
    pub site: String,
    /// Every collection it was captured in, in name order, separated by spaces.
    pub collection: String,
    /// The indexed text (empty unless asked for).
    pub text: String,
    /// The archive of its earliest capture, its offset and stored length there.
    pub archive: String,
    /// See `archive`.
    pub offset: u64,
    /// See `archive`.
    pub length: u64,
    /// The HTTP status of its earliest capture, when it had one.
    pub status: Option<u16>,
    /// Every capture date the asker may see, 14 digits, ascending.
    pub dates: Vec<String>,
    /// Its near-duplicate cluster: `SET/DOCID` of the cluster's first version (itself
    /// when alone); empty for an index without fingerprints.
    pub cluster: String,
}

/// Marks the documents a query matches, a bit per DocId.
struct Marker {
    docs: u32,
}

struct SegmentMarker {
    bits: Vec<u64>,
}

impl Collector for Marker {
    type Fruit = Vec<u64>;
    type Child = SegmentMarker;

    fn for_segment(&self, _: SegmentOrdinal, _: &SegmentReader) -> tantivy::Result<SegmentMarker> {
        Ok(SegmentMarker {
            bits: vec![0; (self.docs as usize).div_ceil(64)],
        })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<Vec<u64>>) -> tantivy::Result<Vec<u64>> {
        // Sets are single-segment (checked on open).
        Ok(fruits.into_iter().next().unwrap_or_default())
    }
}

impl SegmentCollector for SegmentMarker {
    type Fruit = Vec<u64>;

    fn collect(&mut self, doc: DocId, _: Score) {
        if let Some(w) = self.bits.get_mut(doc as usize / 64) {
            *w |= 1 << (doc % 64);
        }
    }

    fn harvest(self) -> Vec<u64> {
        self.bits
    }
}

impl SearchIndex {
    /// How many versions `selection` matches for its viewer: the `total` of its search,
    /// which [`SearchIndex::for_each_match`] hands over (counted first, for a progress bar).
    pub fn count(&self, selection: &Selection) -> Result<u64, SearchError> {
        let r = self.search(&SearchRequest {
            query: selection.text.clone(),
            hits: 1,
            history: false,
            viewer: selection.viewer.clone(),
            ..SearchRequest::default()
        })?;
        Ok(r.total)
    }

    /// Hands every version `selection` matches and its viewer may see to `f`, set by set
    /// in URL key and digest order, and returns how many: the `total` of the same search.
    /// `with_text`: read each version's indexed text (the bulk of the store).
    pub fn for_each_match(
        &self,
        selection: &Selection,
        with_text: bool,
        mut f: impl FnMut(&MatchedVersion) -> io::Result<()>,
    ) -> Result<u64, SearchError> {
        let parsed = &selection.query;
        let viewer = selection.viewer.as_ref();
        let views = super::access_view::as_of(self.views.views(&self.sets, viewer), parsed.as_of);
        let (_, queries) = self.queries(parsed, Some(&views))?;
        let filters = self.filters(parsed, &views);
        let mut n = 0;
        for (i, s) in self.sets.iter().enumerate() {
            if !self.live(i) {
                continue;
            }
            let mut bits = s.searcher.search(&*queries[i], &Marker { docs: s.docs })?;
            if let Some(filter) = &filters[i] {
                for (b, f) in bits.iter_mut().zip(filter.iter()) {
                    *b &= f;
                }
            }
            let marked = |d: DocId| bits[d as usize / 64] & (1 << (d % 64)) != 0;
            let mut failed: Option<SearchError> = None;
            let walked = s.for_each_url(|key, docs| {
                for d in docs {
                    if failed.is_some() || !marked(d) {
                        continue;
                    }
                    let v = (|| -> Result<MatchedVersion, SearchError> {
                        let raw = s.stored_bytes(d)?;
                        let shown = s.shown(d, &raw)?;
                        // The record only to an asker shown it (as a hit, `hits.rs`).
                        let (archive, offset, length) = views[i].record_of(&s.dates, d, &shown);
                        let lang = (s.lang_of.get(d as usize))
                            .and_then(|&l| s.lang_names.get(l as usize))
                            .cloned()
                            .unwrap_or_default();
                        let cluster = match &s.near {
                            Some(t) => format!("{}/{}", s.name, t.group_of(d)),
                            None => String::new(),
                        };
                        Ok(MatchedVersion {
                            url: shown.url.to_string(),
                            urlkey: String::from_utf8_lossy(key).into_owned(),
                            title: shown.title.to_string(),
                            digest: shown.digest.to_string(),
                            mime: shown.mime.to_string(),
                            language: lang,
                            site: shown.site.to_string(),
                            // Every collection the version was captured in, in name order,
                            // separated by spaces (a collection's name has none).
                            collection: match s.collections.names_of(d) {
                                v if v.is_empty() => shown.collection.to_string(),
                                v => v.join(" "),
                            },
                            text: match with_text {
                                true => String::from_utf8_lossy(&shown.text()).into_owned(),
                                false => String::new(),
                            },
                            archive,
                            offset,
                            length,
                            status: u16::try_from(shown.status).ok().filter(|&s| s > 0),
                            dates: views[i].dates.of(d).iter().map(|&x| date14(x)).collect(),
                            cluster,
                        })
                    })();
                    match v.and_then(|v| f(&v).map_err(|e| SearchError::Index(Box::new(e)))) {
                        Ok(()) => n += 1,
                        Err(e) => failed = Some(e),
                    }
                }
            });
            if let Some(e) = failed {
                return Err(e);
            }
            walked.map_err(|e| SearchError::Index(Box::new(e)))?;
        }
        Ok(n)
    }
}
