//! The selection across sets: the sets' candidates merged by score, under the per-site
//! limit, with versions of a URL from other sets and (with `collapse=near`) near-identical
//! pages of other URLs folded into the candidate they resemble.

use std::collections::{HashMap, HashSet};

use tantivy::{DocId, Score};

use super::collect::Fruit;
use super::near::NearDisplay;
use super::set::OpenSet;

/// A candidate: set number, DocId, score.
pub(crate) type Candidate = (usize, DocId, Score);

/// What the per-site walk kept.
pub(crate) struct HitSelection {
    /// Candidates kept, best first.
    pub kept: Vec<Candidate>,
    /// Sites (by name) some of whose hits were left out.
    pub hidden_sites: HashSet<String>,
    /// What was folded into each kept candidate (same order as `kept`).
    pub folded: Vec<Folded>,
    /// How near-duplicates are shown.
    pub near: NearDisplay,
    /// Whether candidates are folded into others: then the walk records what it met
    /// (`walked`, `keys`) for [`super::unwalked`], which folds in the candidates it did
    /// not reach.
    pub folding: bool,
    /// The fingerprint and URL key of each kept candidate (same order as `kept`), when
    /// folding.
    pub keys: Vec<Option<NearKey>>,
    /// Every candidate the walk met (kept, folded or left out), when folding.
    pub walked: HashSet<(usize, DocId)>,
    /// `Some` when the walk reached a set's floor before keeping `need`: candidates may
    /// be missing from there on, so the sets must be searched again keeping more.
    pub short: Option<Short>,
}

/// Which cut of a set's candidates a walk came short at ([`HitSelection::short`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Short {
    /// The best `limit`: keep more.
    Heap,
    /// A site's best: keep more of each site.
    Site,
}

/// Candidates folded into a kept one: versions of its URL from other sets,
/// and near-identical pages of other URLs (`collapse=near`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Folded {
    /// (set, DocId) of versions of the same URL.
    pub versions: Vec<(usize, DocId)>,
    /// (set, DocId) of pages of other URLs.
    pub mirrors: Vec<(usize, DocId)>,
}

/// A candidate's near-duplicate signature and URL key rank (`url_table.rs`).
pub(crate) type NearKey = (crate::near::Signature, u32);

/// The signature and URL key rank of a candidate, when its set has signatures and it
/// has enough words to be judged. A signature that cannot be read (a damaged
/// `near.sig`) leaves the candidate unfolded: shown on its own, never lost.
pub(super) fn near_key(sets: &[OpenSet], c: Candidate) -> Option<NearKey> {
    let s = &sets[c.0];
    let sig = s.near.as_ref()?.judged(c.1).ok()??;
    Some((sig, s.urls.rank(c.1)))
}

/// The kept candidate `c` folds into, if any: a version of the same URL in another set
/// (unless versions are shown), or with `collapse_urls` a page of another URL, whose
/// signature is near `c`'s ([`crate::near::Signature::is_near`]).
pub(super) fn fold_into(
    near: NearDisplay,
    keys: &[Option<NearKey>],
    kept: &[Candidate],
    c: Candidate,
    key: &Option<NearKey>,
) -> Option<(usize, bool)> {
    let (sig, url) = key.as_ref()?;
    keys.iter().enumerate().find_map(|(j, k)| {
        let (s, u) = k.as_ref()?;
        if !s.is_near(sig, crate::near::DEFAULT_THRESHOLD) {
            return None;
        }
        // Ranks are over every set's keys: equal ranks, one URL.
        let same_url = u == url;
        if same_url && !near.show_versions && kept[j].0 != c.0 {
            Some((j, true))
        } else if !same_url && near.collapse_urls {
            Some((j, false))
        } else {
            None
        }
    })
}

/// The site of a document, or `None` when it has none (never folded).
pub(super) fn site(sets: &[OpenSet], set: usize, doc: DocId) -> Option<&str> {
    let s = &sets[set];
    match s.site_of.get(doc as usize) {
        Some(&ord) if ord != u32::MAX => Some(s.site_names[ord as usize].as_str()),
        _ => None,
    }
}

/// Merges the sets' candidates by score and keeps at most `per_site` per site (0: no
/// limit; sites compared by name, as a site may be in several sets), stopping once
/// `need` are kept.
///
/// Without folding, the candidates each set kept are enough for the best `need`
/// (`capped_top.rs`). With folding they may not be: a set's kept candidates may fold
/// into hits of other sets (or into each other, as mirrors) and leave fewer hits than
/// they number. So the walk stops at a floor of a set ([`Fruit::floors`]), below which
/// that set's candidates were left out, when it has not kept `need` by then, and says so
/// ([`HitSelection::short`]); a site's floor counts only while the site has fewer than
/// `per_site` hits, as a site's further candidates are left out anyway once it has them.
/// What the walk kept before that point is exactly what a walk of every candidate keeps,
/// as nothing ranking above a floor is missing.
pub(crate) fn select(
    sets: &[OpenSet],
    per_set: &[Fruit],
    per_site: usize,
    need: usize,
    near: NearDisplay,
) -> HitSelection {
    let mut hidden_sites = HashSet::new();
    for (i, f) in per_set.iter().enumerate() {
        for &ord in &f.over_limit {
            hidden_sites.insert(sets[i].site_names[ord as usize].clone());
        }
    }
    let mut all: Vec<Candidate> = per_set
        .iter()
        .enumerate()
        .flat_map(|(i, f)| f.candidates.iter().map(move |&(s, d)| (i, d, s)))
        .collect();
    all.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)).then(a.1.cmp(&b.1)));
    let folding = near.collapse_urls || (!near.show_versions && sets.len() > 1);
    let floors: HashMap<(usize, DocId), Option<u32>> = match folding {
        true => (per_set.iter().enumerate())
            .flat_map(|(i, f)| f.floors.iter().map(move |&(d, site)| ((i, d), site)))
            .collect(),
        false => HashMap::new(),
    };
    let mut kept = Vec::with_capacity(need.min(all.len()));
    let mut folded: Vec<Folded> = Vec::new();
    let mut keys: Vec<Option<NearKey>> = Vec::new();
    let mut walked = HashSet::new();
    let mut short = None;
    let mut per: HashMap<&str, usize> = HashMap::new();
    let mut i = 0;
    'walk: while i < all.len() && kept.len() < need {
        // A run of equal scores from several sets is put in the order one index of the
        // collection would give it (within a set, DocIds already are in that order).
        let mut j = i + 1;
        while j < all.len() && all[j].2.total_cmp(&all[i].2).is_eq() {
            j += 1;
        }
        if all[j - 1].0 != all[i].0 {
            all[i..j].sort_by(|a, b| sets[a.0].order_cmp(a.1, &sets[b.0], b.1));
        }
        for &c in &all[i..j] {
            if kept.len() >= need {
                break;
            }
            let key = if folding { near_key(sets, c) } else { None };
            if folding {
                walked.insert((c.0, c.1));
            }
            // Limited only with a limit and a site: a document without one is its own.
            let limited = site(sets, c.0, c.1).filter(|_| per_site > 0);
            let full = |per: &HashMap<&str, usize>| {
                limited.is_some_and(|s| per.get(s).is_some_and(|&n| n >= per_site))
            };
            if let Some((j, same_url)) = fold_into(near, &keys, &kept, c, &key) {
                let f = &mut folded[j];
                if same_url {
                    &mut f.versions
                } else {
                    &mut f.mirrors
                }
                .push((c.0, c.1));
            } else if full(&per) {
                hidden_sites.extend(limited.map(str::to_string));
            } else {
                if let Some(s) = limited {
                    *per.entry(s).or_insert(0) += 1;
                }
                kept.push(c);
                keys.push(key);
                folded.push(Folded::default());
            }
            let Some(&floor) = floors.get(&(c.0, c.1)) else {
                continue;
            };
            if kept.len() < need && (floor.is_none() || !full(&per)) {
                short = Some(match floor {
                    None => Short::Heap,
                    Some(_) => Short::Site,
                });
                break 'walk;
            }
        }
        i = j;
    }
    HitSelection {
        kept,
        hidden_sites,
        folded,
        near,
        folding,
        keys: if folding { keys } else { Vec::new() },
        walked,
        short,
    }
}
