//! What one viewer may see of each set under the access rules: the documents
//! with at least one capture shown, and the dates of the captures shown. Every answer
//! of a search (hits, totals, facets, the timeline, dates, near-duplicate groups,
//! versions) reads these instead of the set's own tables, so it is what a collection
//! that never held the hidden captures would answer; a blocked capture is hidden as an
//! excluded one is (a search shows no text of it), the difference being made where a
//! capture is asked for by URL.
//!
//! A view is computed once per reading of the rules and class of user, by one walk
//! over the set's URLs (each URL's rule found once) and dates, and kept for the next
//! requests; rules whose answers move with time (`newer`, `older`) are walked again
//! each minute.

use std::sync::{Arc, Mutex};

use tantivy::DocId;

use super::set::{DateTable, OpenSet};
use super::stored::ShownFields;
use crate::access::{Access, UserClass, Viewer};

/// One set as a viewer sees it.
#[derive(Debug, Clone)]
pub(crate) struct SetView {
    /// A bit per DocId: the documents with a capture shown (`None`: all of them).
    pub visible: Option<Arc<Vec<u64>>>,
    /// The dates of the captures shown.
    pub dates: Arc<DateTable>,
    /// A bit per DocId: the documents with an anchor from a page with a version hidden
    /// (`None`: none). Their anchors are not searched for this viewer, so that a word
    /// only a hidden page's link text holds finds nothing.
    pub anchors_hidden: Option<Arc<Vec<u64>>>,
}

impl SetView {
    /// The set whole.
    pub(crate) fn whole(set: &OpenSet) -> SetView {
        SetView {
            visible: None,
            dates: set.dates.clone(),
            anchors_hidden: None,
        }
    }

    /// Whether document `doc` has a capture shown.
    pub(crate) fn shows(&self, doc: DocId) -> bool {
        match &self.visible {
            None => true,
            Some(bits) => bits
                .get(doc as usize / 64)
                .is_some_and(|w| w & (1 << (doc % 64)) != 0),
        }
    }

    /// The record document `doc` names (its archive, offset and length: the version's
    /// earliest capture when its set was built, of its first stored `date`), as this view
    /// may tell it: blank (`""`, 0, 0) where the view does not show that capture, so that
    /// an asker is not told where a hidden capture lies. `set_dates` are the set's own
    /// dates; a version with no date is judged as the view judged it.
    pub(crate) fn record_of(
        &self,
        set_dates: &Arc<DateTable>,
        doc: DocId,
        stored: &ShownFields<'_>,
    ) -> (String, u64, u64) {
        let shown = Arc::ptr_eq(&self.dates, set_dates)
            || match set_dates.of(doc).is_empty() {
                true => self.shows(doc),
                false => {
                    (stored.date.parse::<u64>()).is_ok_and(|d| self.dates.of(doc).contains(&d))
                }
            };
        match shown {
            true => (stored.filename.to_string(), stored.offset, stored.length),
            false => (String::new(), 0, 0),
        }
    }

    /// Computes the view of `set` for `viewer` at `now` (seconds since the epoch).
    fn of(set: &OpenSet, viewer: &Viewer, now: i64) -> SetView {
        let rules = &viewer.rules;
        // Each URL's rule, found once: documents are in URL key order, one run a URL.
        let mut rule_of = vec![None; set.docs as usize];
        let walked = set.for_each_url(|key, docs| {
            let rule = rules.rule_for(key, &viewer.class);
            for d in docs {
                rule_of[d as usize] = rule;
            }
        });
        if let Err(e) = walked {
            // Unreadable keys: nothing of the set is shown rather than what rules hide.
            eprintln!(
                "warcdex: {}: the URL keys do not read: {e}",
                set.main_dir.display()
            );
            return SetView {
                visible: Some(Arc::new(vec![0; (set.docs as usize).div_ceil(64)])),
                dates: Arc::new(set.dates.filtered(|_, _| false)),
                anchors_hidden: None,
            };
        }
        let shown = |doc: u32, date: u64| {
            let rule = rule_of.get(doc as usize).copied().flatten();
            rules.verdict(rule, date, now).access == Access::Allow
        };
        let dates = set.dates.filtered(shown);
        let mut bits = vec![0u64; (set.docs as usize).div_ceil(64)];
        let mut hidden = false;
        for doc in 0..set.docs {
            let visible = match set.dates.of(doc).is_empty() {
                // A version with no date (an index without its dates) is judged as of now.
                true => shown(doc, crate::access::time::seconds_date14(now)),
                false => !dates.of(doc).is_empty(),
            };
            if visible {
                bits[doc as usize / 64] |= 1 << (doc % 64);
            }
            hidden |= !visible || dates.of(doc).len() != set.dates.of(doc).len();
        }
        match hidden {
            false => SetView::whole(set),
            true => SetView {
                anchors_hidden: anchors_from_hidden(set, &bits),
                visible: Some(Arc::new(bits)),
                dates: Arc::new(dates),
            },
        }
    }
}

/// The views as they stood at the end of `at` (14 digits, a query's `as-of:`): only the
/// captures made at or before it, so that hits, dates, timelines, facets and counts show
/// what was known then and nothing of the future. Without `at`, the
/// views as they are.
pub(crate) fn as_of(views: Arc<Vec<SetView>>, at: Option<u64>) -> Arc<Vec<SetView>> {
    let Some(at) = at else {
        return views;
    };
    Arc::new(views.iter().map(|v| v.until(at)).collect())
}

impl SetView {
    /// This view without the captures after `at`: a version none of whose shown
    /// captures is that old is not shown (one with no dates at all is judged as before).
    fn until(&self, at: u64) -> SetView {
        let docs = self.dates.docs();
        let dates = self.dates.filtered(|_, date| date <= at);
        let mut bits = vec![0u64; (docs as usize).div_ceil(64)];
        for doc in 0..docs {
            let shown = match self.dates.of(doc).is_empty() {
                true => self.shows(doc),
                false => !dates.of(doc).is_empty(),
            };
            if shown {
                bits[doc as usize / 64] |= 1 << (doc % 64);
            }
        }
        SetView {
            visible: Some(Arc::new(bits)),
            dates: Arc::new(dates),
            anchors_hidden: self.anchors_hidden.clone(),
        }
    }
}

/// The documents of `set` with an anchor from a URL with a version not in `visible`
/// (its pages' links, hidden or not: which version held a link is not kept). Anchors of
/// unknown source (a merged index's, value 0), and every anchor of an index built before
/// anchors kept their sources, count as hidden.
fn anchors_from_hidden(set: &OpenSet, visible: &[u64]) -> Option<Arc<Vec<u64>>> {
    use tantivy::schema::IndexRecordOption;
    use tantivy::{DocSet, Term, TERMINATED};
    let words = (set.docs as usize).div_ceil(64);
    let Some(field) = set.fields.anchor_from else {
        return Some(Arc::new(vec![u64::MAX; words]));
    };
    let shown = |d: u32| {
        visible
            .get(d as usize / 64)
            .is_some_and(|w| w & (1 << (d % 64)) != 0)
    };
    let mut sources = vec![0u64];
    let walked = set.for_each_url(|key, mut docs| {
        if docs.any(|d| !shown(d)) {
            sources.push(crate::schema::anchor_source(key));
        }
    });
    let segment = set.searcher.segment_readers().first()?;
    let index = match (walked, segment.inverted_index(field)) {
        (Ok(()), Ok(i)) => i,
        // Unreadable: every anchor counts as hidden rather than one leaking.
        _ => return Some(Arc::new(vec![u64::MAX; words])),
    };
    let mut bits = vec![0u64; words];
    let mut any = false;
    for s in sources {
        let term = Term::from_field_u64(field, s);
        let Ok(Some(mut postings)) = index.read_postings(&term, IndexRecordOption::Basic) else {
            continue;
        };
        let mut doc = postings.doc();
        while doc != TERMINATED {
            if let Some(w) = bits.get_mut(doc as usize / 64) {
                *w |= 1 << (doc % 64);
                any = true;
            }
            doc = postings.advance();
        }
    }
    any.then(|| Arc::new(bits))
}

/// Which views are kept: a reading of the rules, a class of user, and the minute for
/// rules that move with time.
type ViewKey = (u64, UserClass, i64);

/// The views computed lately, newest last; a few, as each holds a copy of the dates.
#[derive(Debug, Default)]
pub(crate) struct ViewCache {
    views: Mutex<Vec<(ViewKey, Arc<Vec<SetView>>)>>,
}

/// How many views are kept.
const KEPT: usize = 6;

impl ViewCache {
    /// Every set as `viewer` sees it (the sets whole without a viewer or rules).
    pub(crate) fn views(&self, sets: &[OpenSet], viewer: Option<&Viewer>) -> Arc<Vec<SetView>> {
        let Some(viewer) = viewer.filter(|v| !v.sees_everything()) else {
            return Arc::new(sets.iter().map(SetView::whole).collect());
        };
        let now = warcdex_cdx::date::now_seconds();
        let minute = if viewer.rules.relative() { now / 60 } else { 0 };
        let key = (viewer.rules.generation(), viewer.class.clone(), minute);
        // Held while computing, so that requests arriving together compute it once.
        let mut views = self.views.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = views.iter().position(|(k, _)| *k == key) {
            let hit = views.remove(i);
            let out = hit.1.clone();
            views.push(hit);
            return out;
        }
        let computed: Arc<Vec<SetView>> =
            Arc::new(sets.iter().map(|s| SetView::of(s, viewer, now)).collect());
        // Views of older readings of the rules will not be asked for again.
        views.retain(|(k, _)| k.0 == key.0);
        if views.len() >= KEPT {
            views.remove(0);
        }
        views.push((key, computed.clone()));
        computed
    }
}
