//! Panic quarantine: a set in which tantivy panics (a damaged index the checksums did not
//! catch) is disabled and listed as broken, and the search runs again over the others;
//! a panic in a set whose files are intact fails only the query that tripped it.

use std::io;
use std::path::Path;
use std::sync::atomic::Ordering as AtomicOrdering;

use super::set::{self, OpenSet};
use super::{BrokenSet, QueryError, SearchError, SearchIndex};

/// The message of a caught panic.
fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into())
}

/// Opens one set; a panic inside tantivy (a damaged index) becomes an error naming the
/// directory, and a file that vanished (an `add-dates --in-place` swap between reading
/// `meta.json` and opening the segment files) is retried once.
pub(super) fn open_set_guarded(dir: &Path, released: bool) -> io::Result<OpenSet> {
    let once = || {
        std::panic::catch_unwind(|| set::open(dir, released)).unwrap_or_else(|p| {
            Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{}: damaged index: reading it panicked: {}",
                    dir.display(),
                    panic_message(&*p)
                ),
            ))
        })
    };
    match once() {
        Err(e) if e.kind() == io::ErrorKind::NotFound && dir.join("main").is_dir() => once(),
        r => r,
    }
}

impl SearchIndex {
    /// The sets being searched (opened, and not disabled since), in name order.
    pub(crate) fn live_sets(&self) -> impl Iterator<Item = &OpenSet> {
        (self.sets.iter().enumerate())
            .filter(|(i, _)| self.live(*i))
            .map(|(_, s)| s)
    }

    pub(super) fn live(&self, i: usize) -> bool {
        !self.disabled[i].load(AtomicOrdering::Relaxed)
    }

    /// After a panic in set `i`: a set whose files still pass their checksums is healthy
    /// and the query tripped the engine, so only this query fails (a 400: a hostile query
    /// must not switch a set off for everyone); otherwise the set is damaged and disabled.
    pub(super) fn after_panic(
        &self,
        i: usize,
        what: &str,
        p: &(dyn std::any::Any + Send),
    ) -> SearchError {
        if set::still_intact(&self.sets[i]) {
            return SearchError::Query(QueryError(format!(
                "this query cannot be answered ({what} failed: {})",
                panic_message(p)
            )));
        }
        self.disable(i, what, p);
        SearchError::Index(format!("set {} is damaged", self.sets[i].name).into())
    }

    /// Stops searching set `i` after a panic in it, and lists it as broken.
    fn disable(&self, i: usize, what: &str, p: &(dyn std::any::Any + Send)) {
        if self.disabled[i].swap(true, AtomicOrdering::Relaxed) {
            return;
        }
        let s = &self.sets[i];
        let error = format!(
            "{}: damaged index: {what} panicked: {}; the set is no longer searched",
            s.main_dir.display(),
            panic_message(p)
        );
        eprintln!("warcdex: parallel set {} is not searched: {error}", s.name);
        self.broken
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(BrokenSet {
                name: s.name.clone(),
                error,
            });
    }

    pub(super) fn live_count(&self) -> usize {
        (0..self.sets.len()).filter(|&i| self.live(i)).count()
    }

    /// Runs `f` again when it failed because a set panicked and was disabled, as long
    /// as other sets are left.
    pub(super) fn retrying<T>(
        &self,
        f: impl Fn() -> Result<T, SearchError>,
    ) -> Result<T, SearchError> {
        loop {
            let live = self.live_count();
            match f() {
                // A set was disabled by this attempt; the others may still answer.
                Err(SearchError::Index(_)) if live > 1 && self.live_count() < live => {}
                r => return r,
            }
        }
    }
}
