//! What one viewer may see of each set under the access rules (issue 45): the documents
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
use crate::access::{Access, UserClass, Viewer};

/// One set as a viewer sees it.
#[derive(Debug, Clone)]
pub(crate) struct SetView {
    /// A bit per DocId: the documents with a capture shown (`None`: all of them).
    pub visible: Option<Arc<Vec<u64>>>,
    /// The dates of the captures shown.
    pub dates: Arc<DateTable>,
}

impl SetView {
    /// The set whole.
    pub(crate) fn whole(set: &OpenSet) -> SetView {
        SetView {
            visible: None,
            dates: set.dates.clone(),
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
                visible: Some(Arc::new(bits)),
                dates: Arc::new(dates),
            },
        }
    }
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
        let now = crate::access::now_seconds();
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
