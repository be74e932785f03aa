//! Ranking and hits: a collector that applies the date filter and the link score, the
//! per-site limit across every set, and the hit as shown (stored fields, all dates,
//! replay links, snippet).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tantivy::collector::{Collector, SegmentCollector};
use tantivy::query::Query;
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader};

use super::capped_top::{CappedTop, Ranked, NO_SITE};
use super::facets::{FacetSources, SetTally};
use super::near::{NearDisplay, NearTable};
use super::query_words::QueryWords;
use super::set::{DateTable, OpenSet};
use super::snippet::Highlighter;
use super::stats::{snippet_weights, Statistics, TermStats};
use super::stored::stored_str;

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
    /// Every capture date of this version, 14 digits, ascending.
    pub dates: Vec<String>,
    /// A replay URL per date (same order), when a replay prefix is set.
    pub replay: Vec<String>,
    /// A fragment of the text with the query's words marked.
    pub snippet: Snippet,
    /// Hits from the same site were left out by the per-site limit.
    pub more_from_site: bool,
    /// Versions of this URL shown as this hit: near-identical to it (issue 20), their
    /// dates all in `dates`; 1 when it stands alone. The hit shows the newest of them.
    #[serde(default)]
    pub near_versions: usize,
    /// Other hosts holding a near-identical page (`collapse=near`), folded into this hit.
    #[serde(default)]
    pub also_at: Vec<String>,
    /// Every version of this URL (up to [`HISTORY_CAP`]), earliest first, each with how
    /// far its text is from the one before: when the page really changed (issue 20).
    /// Empty when the URL has one version.
    #[serde(default)]
    pub history: Vec<VersionChange>,
}

/// Versions of a URL listed with a hit, at most.
pub const HISTORY_CAP: u32 = 100;

/// One version of a hit's URL in its history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionChange {
    /// `sha1:DIGEST`.
    pub digest: String,
    /// Its first capture (14 digits; empty without a possible date).
    pub first_date: String,
    /// How many captures it has.
    pub captures: usize,
    /// Bits its fingerprint differs from the version before; `None` for the first.
    pub distance: Option<u32>,
    /// What that distance means.
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

/// Collects, among the documents passing the date filter (a bit per DocId), scored by
/// text score × boost: the best `limit` overall when there is no per-site limit, else
/// the best `per_site` of each site (and the best `limit` of documents without a site).
/// Keeping each site's best is what makes one pass enough: the hits of a page under a
/// per-site limit are always among them. Counts every document passing the filter.
pub(crate) struct TopFiltered {
    pub limit: usize,
    pub per_site: usize,
    pub filter: Option<Arc<Vec<u64>>>,
    pub site_of: Arc<Vec<u32>>,
    /// Near-identical versions of a URL are one candidate (`near.rs`), unless `None`.
    pub near: Option<Arc<NearTable>>,
    /// The documents' dates: a group is shown as its newest version.
    pub dates: Arc<DateTable>,
    /// Counted for the facets and the timeline, when asked for.
    pub facets: Option<Arc<FacetSources>>,
    /// Each document's boost (`OpenSet::boost`).
    pub boost: Option<Arc<Vec<Score>>>,
    /// Whether only the best `limit` candidates are asked for, so that the others need
    /// not be kept (`capped_top.rs`): not when hits are folded together or sets merged.
    pub prune: bool,
}

/// What a set's search gives: documents matching, candidates best first, the sites
/// (ordinals) with more matches than `per_site`, and the facet counts.
pub(crate) type Fruit = (u64, Vec<(Score, DocId)>, Vec<u32>, SetTally);

pub(crate) struct TopFilteredSegment {
    filter: Option<Arc<Vec<u64>>>,
    site_of: Arc<Vec<u32>>,
    facets: Option<Arc<FacetSources>>,
    tally: SetTally,
    boost: Option<Arc<Vec<Score>>>,
    count: u64,
    top: CappedTop,
    near: Option<Arc<NearTable>>,
    dates: Arc<DateTable>,
    /// Groups of near-identical versions met and not yet complete.
    pending: Vec<PendingGroup>,
}

/// A group of near-identical versions while its members are collected: its best score,
/// and the version it is shown as (the newest: latest capture, then highest DocId).
struct PendingGroup {
    last: DocId,
    score: Score,
    shown: DocId,
    shown_date: u64,
}

impl Collector for TopFiltered {
    type Fruit = Fruit;
    type Child = TopFilteredSegment;

    fn for_segment(
        &self,
        _ord: SegmentOrdinal,
        _segment: &SegmentReader,
    ) -> tantivy::Result<TopFilteredSegment> {
        // Sets are single-segment (checked on open): the set's boosts are the segment's.
        let boost = self.boost.clone();
        Ok(TopFilteredSegment {
            filter: self.filter.clone(),
            site_of: self.site_of.clone(),
            facets: self.facets.clone(),
            tally: SetTally::default(),
            boost,
            count: 0,
            top: CappedTop::new(self.limit, self.per_site, self.prune),
            near: self.near.clone(),
            dates: self.dates.clone(),
            pending: Vec::new(),
        })
    }

    fn requires_scoring(&self) -> bool {
        true
    }

    fn merge_fruits(&self, fruits: Vec<Fruit>) -> tantivy::Result<Fruit> {
        // Sets are single-segment (checked on open), so DocIds need no segment number.
        let mut out: Fruit = (0, Vec::new(), Vec::new(), SetTally::default());
        for (c, v, h, t) in fruits {
            out.0 += c;
            out.1.extend(v);
            out.2.extend(h);
            out.3.absorb(t);
        }
        Ok(out)
    }
}

impl SegmentCollector for TopFilteredSegment {
    type Fruit = Fruit;

    fn collect(&mut self, doc: DocId, score: Score) {
        if let Some(bits) = &self.filter {
            if bits[doc as usize / 64] & (1 << (doc % 64)) == 0 {
                return;
            }
        }
        self.count += 1;
        if let Some(src) = &self.facets {
            self.tally.count(src, doc);
        }
        let boost =
            (self.boost.as_ref()).map_or(1.0, |b| b.get(doc as usize).copied().unwrap_or(1.0));
        let r = Ranked(score * boost, doc);
        if self.near.is_some() {
            self.collect_version(r);
        } else {
            self.offer(r);
        }
    }

    fn harvest(mut self) -> Fruit {
        self.flush_groups(DocId::MAX);
        self.harvest_offered()
    }
}

impl TopFilteredSegment {
    /// A matching version when near-identical versions are one candidate: alone, it is
    /// offered at once; in a group, it waits for the group's last member.
    fn collect_version(&mut self, r: Ranked) {
        let doc = r.1;
        self.flush_groups(doc);
        let Some(near) = &self.near else { return };
        let group = near.group_of(doc);
        let last = near.last_of(group);
        if group == doc && last == doc {
            self.offer(r);
            return;
        }
        let date = self.dates.of(doc).last().copied().unwrap_or(0);
        match self
            .pending
            .iter_mut()
            // Groups are disjoint, so a group's last member names it.
            .find(|p| p.last == last)
        {
            Some(p) => {
                p.score = p.score.max(r.0);
                if (date, doc) >= (p.shown_date, p.shown) {
                    p.shown = doc;
                    p.shown_date = date;
                }
            }
            None => self.pending.push(PendingGroup {
                last,
                score: r.0,
                shown: doc,
                shown_date: date,
            }),
        }
    }

    /// Offers the groups whose last member comes before `doc` (DocIds arrive in order).
    fn flush_groups(&mut self, doc: DocId) {
        let mut i = 0;
        while i < self.pending.len() {
            if self.pending[i].last < doc {
                let p = self.pending.swap_remove(i);
                self.offer(Ranked(p.score, p.shown));
            } else {
                i += 1;
            }
        }
    }

    /// Puts a candidate in the top list, under the per-site limit.
    fn offer(&mut self, r: Ranked) {
        let site = self.site_of.get(r.1 as usize).copied().unwrap_or(NO_SITE);
        self.top.offer(r, site);
    }

    fn harvest_offered(self) -> Fruit {
        let (v, hidden) = self.top.harvest();
        (self.count, v, hidden, self.tally)
    }
}

/// A candidate: set number, DocId, score.
pub(crate) type Candidate = (usize, DocId, Score);

/// What the per-site walk kept.
pub(crate) struct Selection {
    /// Candidates kept, best first.
    pub kept: Vec<Candidate>,
    /// Sites (by name) some of whose hits were left out.
    pub hidden_sites: HashSet<String>,
    /// What was folded into each kept candidate (same order as `kept`).
    pub folded: Vec<Folded>,
    /// How near-duplicates are shown.
    pub near: NearDisplay,
}

/// Candidates folded into a kept one (issue 20): versions of its URL from other sets,
/// and near-identical pages of other URLs (`collapse=near`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Folded {
    /// (set, DocId) of versions of the same URL.
    pub versions: Vec<(usize, DocId)>,
    /// (set, DocId) of pages of other URLs.
    pub mirrors: Vec<(usize, DocId)>,
}

/// The fingerprint and URL key of a candidate, when its set has fingerprints and it has
/// enough words to be judged.
fn near_key(sets: &[OpenSet], c: Candidate) -> Option<(u64, Vec<u8>)> {
    let s = &sets[c.0];
    let hash = s.near.as_ref()?.judged(c.1)?;
    Some((hash, s.order_urlkey(c.1)))
}

/// The kept candidate `c` folds into, if any: a version of the same URL in another set
/// (unless versions are shown), or with `collapse_urls` a page of another URL, whose
/// fingerprint is at most [`crate::near::DEFAULT_K`] bits from `c`'s.
fn fold_into(
    near: NearDisplay,
    keys: &[Option<(u64, Vec<u8>)>],
    kept: &[Candidate],
    c: Candidate,
    key: &Option<(u64, Vec<u8>)>,
) -> Option<(usize, bool)> {
    let (hash, urlkey) = key.as_ref()?;
    keys.iter().enumerate().find_map(|(j, k)| {
        let (h, u) = k.as_ref()?;
        if crate::near::simhash::distance(*h, *hash) > crate::near::DEFAULT_K {
            return None;
        }
        let same_url = u == urlkey;
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
fn site(sets: &[OpenSet], set: usize, doc: DocId) -> Option<&str> {
    let s = &sets[set];
    match s.site_of.get(doc as usize) {
        Some(&ord) if ord != u32::MAX => Some(s.site_names[ord as usize].as_str()),
        _ => None,
    }
}

/// Merges the sets' candidates by score and keeps at most `per_site` per site (0: no
/// limit; sites compared by name, as a site may be in several sets), stopping once
/// `need` are kept.
pub(crate) fn select(
    sets: &[OpenSet],
    per_set: &[Fruit],
    per_site: usize,
    need: usize,
    near: NearDisplay,
) -> Selection {
    let mut hidden_sites = HashSet::new();
    for (i, (_, _, hidden, _)) in per_set.iter().enumerate() {
        for &ord in hidden {
            hidden_sites.insert(sets[i].site_names[ord as usize].clone());
        }
    }
    let mut all: Vec<Candidate> = per_set
        .iter()
        .enumerate()
        .flat_map(|(i, (_, v, _, _))| v.iter().map(move |&(s, d)| (i, d, s)))
        .collect();
    all.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)).then(a.1.cmp(&b.1)));
    let mut kept = Vec::with_capacity(need.min(all.len()));
    let mut folded: Vec<Folded> = Vec::new();
    let mut keys: Vec<Option<(u64, Vec<u8>)>> = Vec::new();
    let folding = near.collapse_urls || (!near.show_versions && sets.len() > 1);
    let mut per: HashMap<&str, usize> = HashMap::new();
    let mut i = 0;
    while i < all.len() && kept.len() < need {
        // A run of equal scores from several sets is put in the order one index of the
        // collection would give it (within a set, DocIds already are in that order).
        let mut j = i + 1;
        while j < all.len() && all[j].2.total_cmp(&all[i].2).is_eq() {
            j += 1;
        }
        if all[j - 1].0 != all[i].0 {
            all[i..j].sort_by_cached_key(|c| sets[c.0].order_key(c.1));
        }
        for &c in &all[i..j] {
            if kept.len() >= need {
                break;
            }
            let key = if folding { near_key(sets, c) } else { None };
            if let Some((j, same_url)) = fold_into(near, &keys, &kept, c, &key) {
                let f = &mut folded[j];
                if same_url {
                    &mut f.versions
                } else {
                    &mut f.mirrors
                }
                .push((c.0, c.1));
                continue;
            }
            if per_site > 0 {
                if let Some(s) = site(sets, c.0, c.1) {
                    let n = per.entry(s).or_insert(0);
                    if *n >= per_site {
                        hidden_sites.insert(s.to_string());
                        continue;
                    }
                    *n += 1;
                }
            }
            kept.push(c);
            keys.push(key);
            folded.push(Folded::default());
        }
        i = j;
    }
    Selection {
        kept,
        hidden_sites,
        folded,
        near,
    }
}

/// Tokenizing a whole page to pick 200 characters costs more than the search itself
/// (it was 60 % of a loaded server's time). So the snippet is cut from a window: from a
/// little before the first place a query word appears (found by a byte search) to
/// `SNIPPET_WINDOW` bytes on; when no word is found that way, from the page's first
/// `SNIPPET_FALLBACK` bytes.
const SNIPPET_WINDOW: usize = 1 << 10;
const SNIPPET_FALLBACK: usize = 4 << 10;

/// Characters in a snippet.
const SNIPPET_CHARS: usize = 200;

fn cut(s: &str, max: usize) -> &str {
    &s[..cut_len(s.as_bytes(), max)]
}

/// The length of the longest start of UTF-8 `text` of at most `max` bytes that ends on a
/// character boundary (`str::is_char_boundary`, on bytes whose UTF-8 is not yet checked).
fn cut_len(text: &[u8], max: usize) -> usize {
    if text.len() <= max {
        return text.len();
    }
    let mut end = max;
    while !is_char_boundary(text, end) {
        end -= 1;
    }
    end
}

/// `str::is_char_boundary` for bytes (the same answer when they are UTF-8).
fn is_char_boundary(text: &[u8], i: usize) -> bool {
    // Not a continuation byte (0b10xx_xxxx).
    i == 0 || i >= text.len() || (text[i] as i8) >= -0x40
}

/// The part of `text` around the first occurrence of a query word (as indexed, lower
/// case, or with a capital, or all capitals), starting at a word boundary. Only the
/// bytes before the word that decide the start are checked as UTF-8 here.
fn window(text: &[u8], words: &QueryWords) -> tantivy::Result<Option<Range<usize>>> {
    let Some(p) = words.first_in(text) else {
        return Ok(None);
    };
    let mut start = p.saturating_sub(SNIPPET_CHARS / 2);
    while !is_char_boundary(text, start) {
        start -= 1;
    }
    if start > 0 {
        // Begin after a space, not inside a word.
        start = stored_str(&text[start..p])?
            .find(char::is_whitespace)
            .map_or(p, |i| start + i + 1);
    }
    let len = cut_len(&text[start..], SNIPPET_WINDOW + (p - start));
    Ok(Some(start..start + len))
}

/// Bytes of a text enough for [`lead`] to give what it gives for the whole text: its
/// first `SNIPPET_CHARS` bytes and the character after them.
const LEAD_BYTES: usize = SNIPPET_CHARS + 8;

/// [`lead`] of UTF-8 `text`, reading only its start.
fn lead_of(text: &[u8]) -> tantivy::Result<Snippet> {
    Ok(lead(stored_str(&text[..cut_len(text, LEAD_BYTES)])?))
}

/// The first words of a text, when no query word is in it (a title or date match).
fn lead(text: &str) -> Snippet {
    let mut end = 0;
    for (i, c) in text.char_indices() {
        if i >= SNIPPET_CHARS {
            break;
        }
        if c.is_whitespace() {
            end = i;
        }
        if i + c.len_utf8() == text.len() {
            end = text.len();
        }
    }
    if end == 0 {
        end = cut(text, SNIPPET_CHARS).len();
    }
    Snippet {
        text: text[..end].trim().to_string(),
        highlighted: Vec::new(),
    }
}

/// Snippet generators, made per set on first use for a query.
pub(crate) struct Snippets<'q> {
    query: Option<&'q dyn Query>,
    /// The collection's statistics of the query's terms, which weigh its words.
    stats: &'q TermStats,
    generators: Vec<Option<Highlighter>>,
    /// The query's words, as indexed (a superset of its words in the content field).
    words: QueryWords,
    /// Scratch for [`QueryWords::may_be_in`].
    lower: Vec<u8>,
}

impl<'q> Snippets<'q> {
    pub(crate) fn new(query: Option<&'q dyn Query>, stats: &'q TermStats, sets: usize) -> Self {
        let mut words = Vec::new();
        if let Some(q) = query {
            q.query_terms(&mut |term, _| {
                if let Some(w) = term.value().as_str() {
                    if !w.is_empty() && !words.iter().any(|x: &String| x == w) {
                        words.push(w.to_string());
                    }
                }
            });
        }
        Snippets {
            query,
            stats,
            words: QueryWords::new(words),
            lower: Vec::new(),
            generators: (0..sets).map(|_| None).collect(),
        }
    }

    /// The snippet of a document: from its main content (`main`, which may be empty)
    /// when the query's words are there, else from its whole text; with no word found
    /// in either, the start of the main content (or of the text).
    fn snippet_of<'t>(
        &mut self,
        sets: &[OpenSet],
        set: usize,
        main: &[u8],
        text: impl FnOnce() -> Cow<'t, [u8]>,
    ) -> tantivy::Result<Snippet> {
        if !main.is_empty() {
            if let Some(sn) = self.highlighted(sets, set, main)? {
                return Ok(sn);
            }
            if self.query.is_none() {
                // No word to mark in the text either (a search by filters only).
                return lead_of(main);
            }
        }
        // The whole text is read only now; its parts, as the main content's, are checked
        // as UTF-8 where they are read.
        let text = text();
        if !text.is_empty() {
            if let Some(sn) = self.highlighted(sets, set, &text)? {
                return Ok(sn);
            }
        }
        lead_of(if main.is_empty() { &text } else { main })
    }

    /// A snippet of `text` with at least one of the query's words marked, if it has one.
    fn highlighted(
        &mut self,
        sets: &[OpenSet],
        set: usize,
        text: &[u8],
    ) -> tantivy::Result<Option<Snippet>> {
        let Some(q) = self.query else {
            return Ok(None);
        };
        if self.generators[set].is_none() {
            let s = &sets[set];
            let stats = Statistics {
                stats: self.stats,
                searcher: &s.searcher,
            };
            let field = s.fields.content;
            let weights = snippet_weights(&stats, q, field)?;
            let tokenizer = s.searcher.index().tokenizer_for_field(field)?;
            let schema = s.searcher.schema();
            let h = Highlighter::new(weights, tokenizer, schema, field, SNIPPET_CHARS);
            self.generators[set] = Some(h);
        }
        let g = self.generators[set].as_ref().expect("just made");
        let head = cut_len(text, SNIPPET_FALLBACK);
        let win = window(text, &self.words)?;
        // The head is worth a second try (a word in mixed case, say "PostgreSQL") unless
        // the window already covered it.
        let covered = win.as_ref().is_some_and(|w| w.start == 0 && w.end >= head);
        let tries = win.into_iter().chain((!covered).then_some(0..head));
        for range in tries {
            let part = stored_str(&text[range])?;
            if !self.words.may_be_in(part, &mut self.lower) {
                continue;
            }
            if let Some((text, highlighted)) = g.fragment(part) {
                return Ok(Some(Snippet { text, highlighted }));
            }
        }
        Ok(None)
    }
}

/// Formats a stored date number back to its 14 digits.
pub(crate) fn date14(d: u64) -> String {
    format!("{d:014}")
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
/// decompressed for each (5 % of a loaded server's cycles, issue 22).
fn url_history(
    sets: &[OpenSet],
    c: Candidate,
    folded: Option<&Folded>,
    shown: &[(usize, DocId)],
    known: ((usize, DocId), &str),
) -> Vec<VersionChange> {
    let mut all: Vec<(usize, DocId)> = Vec::new();
    let starts = std::iter::once((c.0, c.1))
        .chain(folded.map_or(&[][..], |f| &f.versions[..]).iter().copied());
    for (s, d) in starts {
        if all.contains(&(s, d)) {
            continue;
        }
        all.extend(sets[s].url_run(d, HISTORY_CAP).map(|v| (s, v)));
    }
    if all.len() < 2 {
        return Vec::new();
    }
    let first = |(s, d): (usize, DocId)| sets[s].dates.of(d).first().copied().unwrap_or(u64::MAX);
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
    rows.truncate(HISTORY_CAP as usize);
    let mut out: Vec<VersionChange> = Vec::with_capacity(rows.len());
    let mut before: Option<Option<u64>> = None;
    for ((date, digest), (s, d)) in rows {
        let print = sets[s].near.as_ref().and_then(|n| n.judged(d));
        let (distance, change) = match before {
            None => (None, super::history::Change::First),
            Some(prev) => match (prev, print) {
                (Some(a), Some(b)) => {
                    let dist = crate::near::simhash::distance(a, b);
                    (
                        Some(dist),
                        super::history::Change::of(dist, crate::near::DEFAULT_K, true),
                    )
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
            captures: sets[s].dates.of(d).len(),
            distance,
            change,
            in_hit: shown.contains(&(s, d)),
        });
    }
    out
}

/// Builds the hit shown for a candidate.
pub(crate) fn build_hit(
    sets: &[OpenSet],
    c: Candidate,
    index: usize,
    snippets: &mut Snippets<'_>,
    replay_prefix: Option<&str>,
    selection: &Selection,
    with_history: bool,
) -> tantivy::Result<Hit> {
    let hidden_sites = &selection.hidden_sites;
    let (set, doc, score) = c;
    let folded = selection.folded.get(index);
    // A hit standing for versions from several sets shows the newest of them (latest
    // capture, then digest), as the collector picks within a set, so that a collection
    // kept in batches shows what one index of it would.
    let newness = |(vs, vd): (usize, DocId)| {
        let last = sets[vs].dates.of(vd).last().copied().unwrap_or(0);
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
    // The versions shown as this hit: its group of near-identical versions and those
    // folded in from other sets; every date of every one of them.
    let group = |set: usize, doc: DocId| -> Vec<DocId> {
        match (&sets[set].near, selection.near.show_versions) {
            (Some(near), false) => near.members(doc),
            _ => vec![doc],
        }
    };
    let mut versions: Vec<(usize, DocId)> = group(c.0, c.1).into_iter().map(|d| (c.0, d)).collect();
    for &(fs, fd) in folded.map_or(&[][..], |f| &f.versions[..]) {
        versions.extend(group(fs, fd).into_iter().map(|d| (fs, d)));
    }
    let mut all_dates: Vec<u64> = (versions.iter())
        .flat_map(|&(vs, vd)| sets[vs].dates.of(vd).iter().copied())
        .collect();
    all_dates.sort_unstable();
    all_dates.dedup();
    let dates: Vec<String> = all_dates.into_iter().map(date14).collect();
    let history = match with_history {
        true => url_history(sets, c, folded, &versions, ((set, doc), &stored.digest)),
        false => Vec::new(),
    };
    let mut also_at: Vec<String> = Vec::new();
    for &(ms, md) in folded.map_or(&[][..], |f| &f.mirrors[..]) {
        if let Some(name) = site(sets, ms, md) {
            if !also_at.iter().any(|a| a == name) {
                also_at.push(name.to_string());
            }
        }
    }
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
        length: stored.length,
        dates,
        replay,
        snippet: snippets.snippet_of(sets, set, main, || stored.text())?,
        more_from_site: hidden_sites.contains(&site_name),
        near_versions: versions.len(),
        history,
        also_at: also_at.into_iter().filter(|a| *a != site_name).collect(),
        site: site_name,
        url,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lead_of_a_texts_start_is_the_lead_of_the_text() {
        // Lengths around the bytes read, with characters of 1 to 4 bytes and spaces.
        let chars = ["a", " ", "é", "€", "𝄞", "\u{a0}"];
        for len in 0..260 {
            for (k, first) in chars.iter().enumerate() {
                let mut t = String::from(*first);
                let mut i = k;
                while t.len() < len {
                    i = (i * 7 + 3) % chars.len();
                    t.push_str(chars[i]);
                }
                assert_eq!(lead_of(t.as_bytes()).unwrap(), lead(&t), "{t:?}");
            }
        }
    }

    #[test]
    fn the_window_checks_the_bytes_it_reads() {
        let words = QueryWords::new(vec!["index".to_string()]);
        let text = format!("{} word index {}", "x ".repeat(100), "y".repeat(2000));
        let p = text.find("index").unwrap();
        let r = window(text.as_bytes(), &words).unwrap().unwrap();
        // From after a space at most 100 bytes before the word, to 1 KiB past it.
        assert!(r.start + 100 >= p && r.start < p && text[..r.start].ends_with(' '));
        assert_eq!(r.end, p + SNIPPET_WINDOW);
        let mut bad = text.clone().into_bytes();
        bad[p - 3] = 0xff;
        assert!(window(&bad, &words).is_err(), "not UTF-8 before the word");
        bad[p - 3] = b'r';
        bad[p + 1500] = 0xff;
        assert_eq!(
            window(&bad, &words).unwrap(),
            Some(r),
            "the bytes after are not read"
        );
        assert_eq!(window(b"no such word", &words).unwrap(), None);
    }
}
