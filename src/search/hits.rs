//! The hit as shown: stored fields, every capture date, replay links, the snippet, the
//! versions of its URL; the candidates come from the collector (`collect.rs`) and the
//! selection across sets (`select.rs`), the snippet from `windows.rs`.

use serde::{Deserialize, Serialize};
use tantivy::DocId;

use super::access_view::SetView;
use super::select::{site, Candidate, Folded, HitSelection};
use super::set::OpenSet;
use super::windows::Snippets;

/// A snippet: a fragment of the page's text and the byte ranges of the query's words in
/// it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Snippet {
    /// The fragment, plain text.
    pub text: String,
    /// Byte ranges of `text` to highlight, ascending, not overlapping.
    pub highlighted: Vec<(usize, usize)>,
}

impl Snippet {
    /// The fragment with highlights between `open` and `close`, text passed through `esc`.
    pub fn render(&self, esc: impl Fn(&mut String, &str), open: &str, close: &str) -> String {
        let mut out = String::with_capacity(self.text.len() + 16);
        let mut at = 0;
        for &(a, b) in &self.highlighted {
            // A front server renders snippets a shard server sent: a range that is
            // reversed, past the end or inside a character is left unmarked, never sliced.
            if a < at
                || a > b
                || b > self.text.len()
                || !self.text.is_char_boundary(a)
                || !self.text.is_char_boundary(b)
            {
                continue;
            }
            esc(&mut out, &self.text[at..a]);
            out.push_str(open);
            esc(&mut out, &self.text[a..b]);
            out.push_str(close);
            at = b;
        }
        esc(&mut out, &self.text[at..]);
        out
    }
}

/// One search result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    /// Position in the whole result list (0-based).
    pub index: usize,
    /// Text relevance times the link score.
    pub score: f32,
    /// The parallel set it came from.
    pub set: String,
    /// The original URL.
    pub url: String,
    /// The page title (may be empty; see [`Hit::display_title`]).
    pub title: String,
    /// `sha1:DIGEST`.
    pub digest: String,
    /// MIME type.
    #[serde(rename = "type")]
    pub mime: String,
    /// Collection.
    pub collection: String,
    /// Host without `www.`.
    pub site: String,
    /// Stored record length of the earliest capture.
    pub length: u64,
    /// The archive holding the earliest capture's record (as `collection.json` and the
    /// CDX name it; empty in an index built without it, and when the asker's view (the
    /// access rules, an `as-of:` date) does not show that capture: then `offset` and
    /// `length` are 0 too).
    #[serde(default)]
    pub filename: String,
    /// That record's offset in its archive.
    #[serde(default)]
    pub offset: u64,
    /// Where the indexed text came from when not from the document itself: `final`,
    /// `text` or `pages`, the words a browser crawler recorded after the page's scripts
    /// ran (src/import/rendered.rs); `None`: the document's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_source: Option<String>,
    /// Every capture date of this version, 14 digits, ascending.
    pub dates: Vec<String>,
    /// A replay URL per date (same order), when a replay prefix is set.
    pub replay: Vec<String>,
    /// A fragment of the text with the query's words marked.
    pub snippet: Snippet,
    /// Hits from the same site were left out by the per-site limit.
    pub more_from_site: bool,
    /// Versions of this URL shown as this hit: near-identical to it, their
    /// dates all in `dates`; 1 when it stands alone. The hit shows the newest of them.
    #[serde(default)]
    pub near_versions: usize,
    /// Other hosts holding a near-identical page (`collapse=near`), folded into this hit,
    /// in name order: those met ranking the hits up to this page (`unwalked.rs`).
    #[serde(default)]
    pub also_at: Vec<String>,
    /// The versions of this URL (the latest [`HISTORY_CAP`]), earliest first, each with
    /// how much its text changed from the one before: when the page really changed.
    /// Empty when the URL has one version.
    #[serde(default)]
    pub history: Vec<VersionChange>,
    /// How many versions the URL has (up to [`RUN_CAP`] a set): `history` holds the
    /// latest [`HISTORY_CAP`] of them.
    #[serde(default)]
    pub versions_total: usize,
}

/// Versions of a URL listed with a hit, at most.
pub const HISTORY_CAP: u32 = 100;

/// Versions of a URL counted in a set, at most (their dates are in memory; only the
/// latest [`HISTORY_CAP`] are read further).
pub const RUN_CAP: u32 = 10_000;

/// One version of a hit's URL in its history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VersionChange {
    /// `sha1:DIGEST`.
    pub digest: String,
    /// Its first capture (14 digits; empty without a possible date).
    pub first_date: String,
    /// How many captures it has.
    pub captures: usize,
    /// The share of words changed from the version before, estimated from the two
    /// signatures: (1 − r) / (1 + r) of their resemblance r, what replacing that share of
    /// a text's words in one run gives (0 for the same text; `None` for the first or
    /// without signatures). The diff page has the exact share.
    #[serde(default)]
    pub changed: Option<f64>,
    /// The capture view of its first capture (`None` without a replay prefix).
    #[serde(default)]
    pub replay: Option<String>,
    /// What kind of change it is.
    pub change: super::history::Change,
    /// Whether this hit shows it (its dates are among the hit's).
    pub in_hit: bool,
}

impl Hit {
    /// The title, or the URL when the page has none (as NutchWAX shows it).
    pub fn display_title(&self) -> &str {
        if self.title.trim().is_empty() {
            &self.url
        } else {
            &self.title
        }
    }
}

/// Formats a stored date number back to its 14 digits (a larger number as it is).
pub(crate) fn date14(d: u64) -> String {
    warcdex_cdx::date::Date14::from_number(d)
        .map_or_else(|_| d.to_string(), |date| date.to_string())
}

/// The replay links of a capture of `url` at each of `dates`: `PREFIX/DATE14/URL`
/// (Wayback form); none without a prefix.
pub(crate) fn replay_links(prefix: Option<&str>, dates: &[String], url: &str) -> Vec<String> {
    match prefix {
        Some(p) => dates
            .iter()
            .map(|d| format!("{}/{d}/{url}", p.trim_end_matches('/')))
            .collect(),
        None => Vec::new(),
    }
}

/// The versions of a candidate's URL, in its set and in the sets whose versions were
/// folded into it, earliest first, each labelled against the one before; empty for a URL
/// of one version.
///
/// `known` is one version whose digest the caller has read from the store already: the
/// others' are looked up in their set's digest column, a block of its dictionary
/// decompressed for each (5 % of a loaded server's cycles).
fn url_history(
    sets: &[OpenSet],
    views: &[SetView],
    c: Candidate,
    folded: Option<&Folded>,
    shown: &[(usize, DocId)],
    known: ((usize, DocId), &str),
) -> (Vec<VersionChange>, usize) {
    let mut all: Vec<(usize, DocId)> = Vec::new();
    let starts = std::iter::once((c.0, c.1))
        .chain(folded.map_or(&[][..], |f| &f.versions[..]).iter().copied());
    for (s, d) in starts {
        if all.contains(&(s, d)) {
            continue;
        }
        all.extend(
            (sets[s].url_run(d, RUN_CAP))
                .filter(|&v| views[s].shows(v))
                .map(|v| (s, v)),
        );
    }
    let total = all.len();
    if total < 2 {
        return (Vec::new(), total);
    }
    let first = |(s, d): (usize, DocId)| views[s].dates.of(d).first().copied().unwrap_or(u64::MAX);
    // The latest versions by first capture (and the one before them, to tell how the
    // first of them changed): only theirs need digests.
    let cut = total > HISTORY_CAP as usize;
    if cut {
        all.sort_by_key(|&v| (first(v), v));
        all.drain(..total - HISTORY_CAP as usize - 1);
    }
    // ((first date, digest), (set, DocId)): sorted, the order of the history.
    type Row = ((u64, Vec<u8>), (usize, DocId));
    let mut rows: Vec<Row> = all
        .into_iter()
        .map(|v| {
            let digest = match v == known.0 {
                true => known.1.as_bytes().to_vec(),
                false => sets[v.0].order_digest(v.1),
            };
            ((first(v), digest), v)
        })
        .collect();
    rows.sort();
    let mut out: Vec<VersionChange> = Vec::with_capacity(rows.len());
    let mut before: Option<Option<crate::near::Signature>> = None;
    for ((date, digest), (s, d)) in rows {
        let print = sets[s]
            .near
            .as_ref()
            .and_then(|n| n.judged_any(d).ok().flatten());
        let (changed, change) = match &before {
            None => (None, super::history::Change::First),
            Some(prev) => match (prev, &print) {
                (Some(a), Some(b)) => {
                    let change = super::history::Change::between(a, b);
                    let r = a.resemblance(b);
                    let share = match change {
                        super::history::Change::Same => 0.0,
                        _ => ((1.0 - r) / (1.0 + r)).max(0.001),
                    };
                    (Some(share), change)
                }
                _ => (None, super::history::Change::Unknown),
            },
        };
        before = Some(print);
        out.push(VersionChange {
            digest: String::from_utf8_lossy(&digest).into_owned(),
            first_date: if date == u64::MAX {
                String::new()
            } else {
                date14(date)
            },
            captures: views[s].dates.of(d).len(),
            changed,
            replay: None,
            change,
            in_hit: shown.contains(&(s, d)),
        });
    }
    if cut {
        out.remove(0);
    }
    (out, total)
}

/// How the hits of a page are shown: from which selection of candidates, with which
/// replay links, with or without each URL's versions.
pub(crate) struct HitsShown<'a> {
    /// The candidates kept and folded.
    pub selection: &'a HitSelection,
    /// The prefix of replay links, if any.
    pub replay_prefix: Option<&'a str>,
    /// Whether each hit carries its URL's versions.
    pub with_history: bool,
}

/// Builds the hit shown for a candidate.
pub(crate) fn build_hit(
    (sets, views): (&[OpenSet], &[SetView]),
    c: Candidate,
    index: usize,
    snippets: &mut Snippets<'_>,
    shown: &HitsShown<'_>,
) -> tantivy::Result<Hit> {
    let HitsShown {
        selection,
        replay_prefix,
        with_history,
    } = *shown;
    let hidden_sites = &selection.hidden_sites;
    let (set, doc, score) = c;
    let folded = selection.folded.get(index);
    // A hit standing for versions from several sets shows the newest of them (latest
    // capture, then digest), as the collector picks within a set, so that a collection
    // kept in batches shows what one index of it would.
    let newness = |(vs, vd): (usize, DocId)| {
        let last = views[vs].dates.of(vd).last().copied().unwrap_or(0);
        (last, sets[vs].order_digest(vd))
    };
    let (set, doc) =
        folded
            .map_or(&[][..], |f| &f.versions[..])
            .iter()
            .fold((set, doc), |best, &v| {
                if newness(v) > newness(best) {
                    v
                } else {
                    best
                }
            });
    let s = &sets[set];
    let raw = s.stored_bytes(doc)?;
    let stored = s.shown(doc, &raw)?;
    let url = stored.url.to_string();
    // The record named is the version's earliest capture when its set was built; an
    // asker not shown that capture is not told where it lies (its archive, offset and
    // length), as the export is not (`matches.rs`).
    let (filename, offset, length) = views[set].record_of(&s.dates, doc, &stored);
    // The versions shown as this hit: its group of near-identical versions and those
    // folded in from other sets; every date of every one of them.
    let group = |set: usize, doc: DocId| -> Vec<DocId> {
        match (&sets[set].near, selection.near.show_versions) {
            (Some(near), false) => (near.members(doc).into_iter())
                .filter(|&d| views[set].shows(d))
                .collect(),
            _ => vec![doc],
        }
    };
    let mut versions: Vec<(usize, DocId)> = group(c.0, c.1).into_iter().map(|d| (c.0, d)).collect();
    for &(fs, fd) in folded.map_or(&[][..], |f| &f.versions[..]) {
        versions.extend(group(fs, fd).into_iter().map(|d| (fs, d)));
    }
    let mut all_dates: Vec<u64> = (versions.iter())
        .flat_map(|&(vs, vd)| views[vs].dates.of(vd).iter().copied())
        .collect();
    all_dates.sort_unstable();
    all_dates.dedup();
    let dates: Vec<String> = all_dates.into_iter().map(date14).collect();
    let (mut history, versions_total) = match with_history {
        true => url_history(
            sets,
            views,
            c,
            folded,
            &versions,
            ((set, doc), &stored.digest),
        ),
        false => (Vec::new(), 0),
    };
    for v in &mut history {
        if !v.first_date.is_empty() {
            v.replay = replay_links(replay_prefix, std::slice::from_ref(&v.first_date), &url).pop();
        }
    }
    let mut also_at: Vec<String> = Vec::new();
    for &(ms, md) in folded.map_or(&[][..], |f| &f.mirrors[..]) {
        if let Some(name) = site(sets, ms, md) {
            if !also_at.iter().any(|a| a == name) {
                also_at.push(name.to_string());
            }
        }
    }
    // In name order: the walk meets mirrors by score, `unwalked.rs` finds them after.
    also_at.sort_unstable();
    let replay = replay_links(replay_prefix, &dates, &url);
    // The main content, stored whole (an index built before it existed has none).
    let main = stored.main.as_ref();
    let site_name = stored.site.to_string();
    Ok(Hit {
        index,
        score,
        set: s.name.clone(),
        title: stored.title.to_string(),
        digest: stored.digest.to_string(),
        mime: stored.mime.to_string(),
        collection: stored.collection.to_string(),
        length,
        filename,
        offset,
        text_source: Some(stored.text_source.to_string()).filter(|t| !t.is_empty()),
        dates,
        replay,
        snippet: snippets.snippet_of(sets, set, main, || stored.text())?,
        more_from_site: hidden_sites.contains(&site_name),
        near_versions: versions.len(),
        history,
        versions_total,
        also_at: also_at.into_iter().filter(|a| *a != site_name).collect(),
        site: site_name,
        url,
    })
}
