//! Link inversion and link analysis over the collection's URL graph
//! (nutch-scoring.md §1–2).
//!
//! - **Anchors**: every outlink whose target (canonicalized) is a URL of the collection
//!   gives its anchor text to every document of that URL. Links between pages of the
//!   same host are ignored unless `internal_links` (Nutch `db.ignore.internal.links`);
//!   one anchor per (source URL, anchor text), at most `max_anchors` per target.
//! - **Score**: OPIC's cash distribution run to a fixed point, i.e. PageRank with the
//!   score-splitting rule: every URL starts at 1.0, and each iteration gives a URL
//!   `(1 - damping) + damping * sum(score(u) / outdegree(u))` over the URLs `u` that
//!   link to it. Only links between URLs of the collection count (links leaving the
//!   collection are dropped, self-links ignored, duplicate links counted once); the cash
//!   of a URL without outlinks is not passed on (classic PageRank without teleporting
//!   dangling mass, so sinks do not accumulate). 50 iterations by default: the error
//!   shrinks by the damping factor each time (0.85^50 < 0.0003). The boost is
//!   `score ^ score_power` (Nutch `indexer.score.power`, 0.5).

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};
use warcdex_cdx::{url_key, KeyStyle};

use crate::segment::SegmentRow;

/// Link analysis settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkOptions {
    /// Keep anchors of links within one host.
    pub internal_links: bool,
    /// PageRank damping factor.
    pub damping: f64,
    /// Iterations of the score distribution.
    pub iterations: u32,
    /// Boost = score ^ power.
    pub score_power: f64,
    /// Anchors kept per target URL.
    pub max_anchors: usize,
}

impl Default for LinkOptions {
    fn default() -> Self {
        LinkOptions {
            internal_links: false,
            damping: 0.85,
            iterations: 50,
            score_power: 0.5,
            max_anchors: 1000,
        }
    }
}

/// Anchors and scores by URL key.
#[derive(Debug, Clone, Default)]
pub struct LinkAnalysis {
    anchors: HashMap<String, Vec<String>>,
    scores: HashMap<String, f64>,
    power: f64,
}

impl LinkAnalysis {
    /// Anchor texts of links to `urlkey`, in source order.
    pub fn anchors_of(&self, urlkey: &str) -> &[String] {
        self.anchors.get(urlkey).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The link score of `urlkey` (1.0 for an unknown URL).
    pub fn score_of(&self, urlkey: &str) -> f64 {
        self.scores.get(urlkey).copied().unwrap_or(1.0)
    }

    /// The boost of `urlkey`: score ^ power.
    pub fn boost_of(&self, urlkey: &str) -> f64 {
        self.score_of(urlkey).powf(self.power)
    }
}

impl LinkAnalysis {
    /// Anchors and boosts given directly (a merge of indexes keeps what each index
    /// computed): `boost_of` returns the boost as given.
    pub fn from_boosts(
        anchors: HashMap<String, Vec<String>>,
        boosts: HashMap<String, f64>,
    ) -> Self {
        LinkAnalysis {
            anchors,
            scores: boosts,
            power: 1.0,
        }
    }
}

/// The lower-case host of a URL, if it has one.
pub fn host_of(url: &str) -> Option<String> {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(|h| h.to_ascii_lowercase()))
}

/// Builds anchors and scores for rows (URL keys made with `style`).
pub fn analyse(rows: &[SegmentRow], opts: &LinkOptions, style: KeyStyle) -> LinkAnalysis {
    // Node ids in URL key order, so the computation is the same on every run.
    let keys: BTreeMap<&str, usize> = {
        let mut set: Vec<&str> = rows.iter().map(|r| r.urlkey.as_str()).collect();
        set.dedup();
        set.into_iter().enumerate().map(|(i, k)| (k, i)).collect()
    };
    let n = keys.len();
    let mut edges: Vec<HashSet<usize>> = vec![HashSet::new(); n];
    let mut anchors: HashMap<String, Vec<String>> = HashMap::new();
    let mut seen_anchor: HashSet<(usize, usize, String)> = HashSet::new();
    for row in rows {
        let src = keys[row.urlkey.as_str()];
        let src_host = host_of(&row.url);
        for link in &row.outlinks {
            let Ok(target_key) = url_key(&link.url, style) else {
                continue;
            };
            let Some(&dst) = keys.get(target_key.as_str()) else {
                continue;
            };
            if dst != src {
                edges[src].insert(dst);
            }
            let anchor = link.anchor.trim();
            if anchor.is_empty() {
                continue;
            }
            let internal = src_host.is_some() && src_host == host_of(&link.url);
            if internal && !opts.internal_links {
                continue;
            }
            if !seen_anchor.insert((src, dst, anchor.to_string())) {
                continue;
            }
            let list = anchors.entry(target_key).or_default();
            if list.len() < opts.max_anchors {
                list.push(anchor.to_string());
            }
        }
    }
    let edges: Vec<Vec<usize>> = edges
        .into_iter()
        .map(|s| {
            let mut v: Vec<usize> = s.into_iter().collect();
            v.sort_unstable();
            v
        })
        .collect();
    let mut score = vec![1.0f64; n];
    for _ in 0..opts.iterations {
        let mut next = vec![1.0 - opts.damping; n];
        for (u, targets) in edges.iter().enumerate() {
            if targets.is_empty() {
                continue;
            }
            let share = score[u] / targets.len() as f64;
            for &v in targets {
                next[v] += opts.damping * share;
            }
        }
        score = next;
    }
    LinkAnalysis {
        anchors,
        scores: keys
            .into_iter()
            .map(|(k, i)| (k.to_string(), score[i]))
            .collect(),
        power: opts.score_power,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment::Outlink;

    fn page(url: &str, links: &[(&str, &str)]) -> SegmentRow {
        SegmentRow {
            url: url.into(),
            urlkey: url_key(url, KeyStyle::Surt).unwrap(),
            outlinks: links
                .iter()
                .map(|(u, a)| Outlink {
                    url: u.to_string(),
                    anchor: a.to_string(),
                })
                .collect(),
            ..SegmentRow::default()
        }
    }

    /// Three pages on three hosts: a → b, a → c, b → c, c → a. Hand computation of
    /// one iteration from all-ones with d = 0.85: a = 0.15 + 0.85·1 = 1.0,
    /// b = 0.15 + 0.85·0.5 = 0.575, c = 0.15 + 0.85·(0.5 + 1) = 1.425.
    #[test]
    fn one_iteration_by_hand_and_order_at_the_fixed_point() {
        let mut rows = vec![
            page(
                "http://a.example/",
                &[("http://b.example/", "bee"), ("http://c.example/", "sea")],
            ),
            page("http://b.example/", &[("http://c.example/", "sea two")]),
            page("http://c.example/", &[("http://a.example/", "ay")]),
        ];
        rows.sort_by(|x, y| x.urlkey.cmp(&y.urlkey));
        let one = analyse(
            &rows,
            &LinkOptions {
                iterations: 1,
                ..LinkOptions::default()
            },
            KeyStyle::Surt,
        );
        let s = |k: &str| one.score_of(&url_key(k, KeyStyle::Surt).unwrap());
        assert!((s("http://a.example/") - 1.0).abs() < 1e-12);
        assert!((s("http://b.example/") - 0.575).abs() < 1e-12);
        assert!((s("http://c.example/") - 1.425).abs() < 1e-12);
        let full = analyse(&rows, &LinkOptions::default(), KeyStyle::Surt);
        let f = |k: &str| full.score_of(&url_key(k, KeyStyle::Surt).unwrap());
        assert!(f("http://c.example/") > f("http://a.example/"));
        assert!(f("http://a.example/") > f("http://b.example/"));
        let c = url_key("http://c.example/", KeyStyle::Surt).unwrap();
        assert_eq!(full.anchors_of(&c), ["sea", "sea two"]);
    }

    #[test]
    fn internal_links_give_no_anchor_unless_asked() {
        let rows = vec![
            page("http://a.example/", &[("http://a.example/x", "inside")]),
            page("http://a.example/x", &[]),
        ];
        let x = url_key("http://a.example/x", KeyStyle::Surt).unwrap();
        assert!(analyse(&rows, &LinkOptions::default(), KeyStyle::Surt)
            .anchors_of(&x)
            .is_empty());
        let with = LinkOptions {
            internal_links: true,
            ..LinkOptions::default()
        };
        assert_eq!(
            analyse(&rows, &with, KeyStyle::Surt).anchors_of(&x),
            ["inside"]
        );
    }
}
