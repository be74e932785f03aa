//! What the routes share: the index being served (`Loaded`), reopened when a set changes
//! ([`current`]), the collection and its capture positions (`LocalState`), or the shard
//! servers of a front server (`Backend`).

use super::{remote::Front, streamed, warcs_access, ServeOptions};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

use crate::collection::Collection;
use crate::search::SearchIndex;

/// The index being served and the footer line about it.
pub(super) struct Loaded {
    pub(super) index: SearchIndex,
    pub(super) footer: String,
}

impl Loaded {
    pub(super) fn new(index: SearchIndex) -> Arc<Loaded> {
        let sets = index.sets();
        let docs: u64 = sets.iter().map(|s| u64::from(s.documents)).sum();
        let mut footer = format!(
            "{docs} documents in {} parallel set{}",
            sets.len(),
            if sets.len() == 1 { "" } else { "s" }
        );
        let broken = index.broken().len();
        if broken > 0 {
            footer.push_str(&format!("; {broken} set(s) refused, see /healthz"));
        }
        Arc::new(Loaded { index, footer })
    }
}

/// The sets searched in this process, reopened when they change.
pub(super) struct LocalState {
    pub(super) current: RwLock<Arc<Loaded>>,
    /// When a request last checked for changed sets.
    pub(super) checked: Mutex<Instant>,
    /// A reopen is under way (one at a time; other requests use the current index).
    pub(super) reloading: AtomicBool,
    /// The collection served: its archives (`/warcs/NAME`, captures) and CDX.
    pub(super) collection: Arc<Collection>,
    /// Where each capture lies in its archive, for `/warcs/NAME` under access rules.
    pub(super) positions: Arc<warcs_access::PositionsCache>,
}

impl LocalState {
    pub(super) fn loaded(&self) -> Arc<Loaded> {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// What answers the searches: sets opened here, or shard servers (`serve --remote`).
pub(super) enum Backend {
    Local(LocalState),
    Remote(Front),
}

pub(super) struct AppState {
    pub(super) backend: Backend,
    pub(super) opts: ServeOptions,
    /// `--search-threads` permits, taken by every search and by the writers of streamed
    /// answers while they compute (`streamed.rs`).
    pub(super) permits: streamed::Permits,
}

impl AppState {
    /// The footer line as it is now (without reopening anything).
    pub(super) fn footer(&self) -> String {
        match &self.backend {
            Backend::Local(l) => l.loaded().footer.clone(),
            Backend::Remote(f) => f.footer(),
        }
    }

    /// The footer line, after reopening changed sets.
    pub(super) async fn current_footer(&self) -> String {
        match &self.backend {
            Backend::Local(l) => current(l, &self.opts).await.footer.clone(),
            Backend::Remote(f) => f.footer(),
        }
    }
}

/// The index to answer a request with: the current one, reopened first when the
/// reload interval has passed and a set changed (its `pindex.json`, or the sets
/// themselves). A reopen that fails keeps the current index, and is tried again at the
/// next check.
pub(super) async fn current(state: &LocalState, opts: &ServeOptions) -> Arc<Loaded> {
    let cur = state.loaded();
    let Some(every) = opts.reload_interval else {
        return cur;
    };
    {
        let mut checked = state.checked.lock().unwrap_or_else(|e| e.into_inner());
        if !every.is_zero() && checked.elapsed() < every {
            return cur;
        }
        *checked = Instant::now();
    }
    if state.reloading.swap(true, Ordering::AcqRel) {
        return cur;
    }
    let old = cur.clone();
    let reopened = tokio::task::spawn_blocking(move || {
        if !old.index.changed() {
            return None;
        }
        Some(SearchIndex::open(old.index.dir()))
    })
    .await;
    let out = match reopened {
        Ok(None) => cur,
        Ok(Some(Ok(index))) if !index.sets().is_empty() => {
            eprintln!(
                "warcdex serve: reopened {}: {} set(s), {} refused",
                index.dir().display(),
                index.sets().len(),
                index.broken().len()
            );
            let new = Loaded::new(index);
            *state.current.write().unwrap_or_else(|e| e.into_inner()) = new.clone();
            new
        }
        Ok(Some(Ok(index))) => {
            eprintln!(
                "warcdex serve: {} changed but no set opens now; still serving the sets opened before",
                index.dir().display()
            );
            cur
        }
        Ok(Some(Err(e))) => {
            eprintln!(
                "warcdex serve: cannot reopen: {}; still serving the sets opened before",
                crate::path_error::Chain(&e)
            );
            cur
        }
        Err(e) => {
            eprintln!("warcdex serve: reopening failed: {e}; still serving the sets opened before");
            cur
        }
    };
    state.reloading.store(false, Ordering::Release);
    out
}
