//! `as-of:DATE`: the collection as it stood at the end of a date. For each
//! URL, the version whose latest capture at or before that moment is the latest of all
//! the URL's versions in every set is the one live then; the others are not searched.
//! Only the captures the asker may see count (the access view's dates), so a hidden
//! capture never makes an older version disappear.

use rustc_hash::FxHashMap;
use tantivy::{DocId, Score};

use super::HitOrder;

use super::access_view::SetView;
use super::set::OpenSet;

/// A bit per DocId of each set: the versions live at `at` (14 digits). `live(i)`: set i
/// is searched.
pub(super) fn live_versions(
    sets: &[OpenSet],
    views: &[SetView],
    live: impl Fn(usize) -> bool,
    at: u64,
) -> Vec<Vec<u64>> {
    let mut bits: Vec<Vec<u64>> = (sets.iter())
        .map(|s| vec![0u64; (s.docs as usize).div_ceil(64)])
        .collect();
    // By URL key rank (shared by every set): the latest capture at or before `at`, and
    // whose version it is.
    let mut best: FxHashMap<u32, (u64, usize, DocId)> = FxHashMap::default();
    for (i, s) in sets.iter().enumerate() {
        if !live(i) {
            continue;
        }
        for d in 0..s.docs {
            if !views[i].shows(d) {
                continue;
            }
            let dates = views[i].dates.of(d);
            let k = dates.partition_point(|&x| x <= at);
            let Some(&date) = k.checked_sub(1).and_then(|k| dates.get(k)) else {
                continue;
            };
            match s.urls.rank(d) {
                // A version without a URL key is its own URL.
                0 => bits[i][d as usize / 64] |= 1 << (d % 64),
                rank => {
                    let e = best.entry(rank).or_insert((date, i, d));
                    if (date, i, d) > *e {
                        *e = (date, i, d);
                    }
                }
            }
        }
    }
    for (_, i, d) in best.into_values() {
        bits[i][d as usize / 64] |= 1 << (d % 64);
    }
    bits
}

/// Each document's score when hits are ordered by date: the place of its date (first
/// capture for the oldest first, last at or before `as_of` for the newest first) among
/// every distinct date of the live sets, so that scores compare across sets and exactly
/// (a date as an `f32` would be a couple of minutes wide).
pub(super) fn date_orders(
    sets: &[OpenSet],
    views: &[SetView],
    live: impl Fn(usize) -> bool,
    order: HitOrder,
    as_of: Option<u64>,
) -> Vec<Option<std::sync::Arc<Vec<Score>>>> {
    let at = as_of.unwrap_or(u64::MAX);
    let date_of = |dates: &[u64]| -> Option<u64> {
        match order {
            HitOrder::Newest => dates[..dates.partition_point(|&x| x <= at)].last().copied(),
            _ => dates.first().copied(),
        }
    };
    let mut all: Vec<u64> = Vec::new();
    for (i, s) in sets.iter().enumerate() {
        if live(i) {
            all.extend((0..s.docs).filter_map(|d| date_of(views[i].dates.of(d))));
        }
    }
    all.sort_unstable();
    all.dedup();
    let n = all.len() as f32;
    sets.iter()
        .enumerate()
        .map(|(i, s)| {
            if !live(i) {
                return None;
            }
            let scores = (0..s.docs)
                .map(|d| match date_of(views[i].dates.of(d)) {
                    None => 0.0,
                    Some(date) => {
                        let place = all.partition_point(|&x| x < date) as f32;
                        match order {
                            HitOrder::Oldest => n - place,
                            _ => place + 1.0,
                        }
                    }
                })
                .collect();
            Some(std::sync::Arc::new(scores))
        })
        .collect()
}
