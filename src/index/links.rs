//! Link inversion and link analysis over the collection's URL graph
//! (docs/nutch-scoring.md §1–2).
//!
//! - **Anchors**: every outlink whose target (canonicalized) is a URL of the collection
//!   gives its anchor text to every document of that URL. Links between pages of the
//!   same host give theirs apart, marked internal (the `anchor_internal` field, weighed on
//!   its own: Nutch ignores them, `db.ignore.internal.links`), unless `internal_links`,
//!   which counts them as external ones (NutchWAX's option); one anchor per (source URL,
//!   anchor text), at most `max_anchors` of each kind per target.
//! - **Score**: OPIC's cash distribution run to a fixed point, i.e. PageRank with the
//!   score-splitting rule: every URL starts at 1.0, and each iteration gives a URL
//!   `(1 - damping) + damping * sum(score(u) / outdegree(u))` over the URLs `u` that
//!   link to it. Only links between URLs of the collection count (links leaving the
//!   collection are dropped, self-links ignored, duplicate links counted once); the cash
//!   of a URL without outlinks is not passed on (classic PageRank without teleporting
//!   dangling mass, so sinks do not accumulate). 50 iterations by default: the error
//!   shrinks by the damping factor each time (0.85^50 < 0.0003). The boost is
//!   `score ^ score_power` (Nutch `indexer.score.power`, 0.5).

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Seek, SeekFrom, Write};

use fst::Streamer;
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use warcdex_cdx::sort::{ExternalSorter, SortOptions};
use warcdex_cdx::{url_key, KeyStyle};

use super::versions::sort_safe;
use super::Error;
use crate::segment::{Outlink, SegmentRow};

/// Link analysis settings (kept in main's `pindex.json`).
pub use crate::pindex::LinkOptions;

/// Collects the outlinks of the collection's versions, in (URL key, digest) order, as
/// sort lines `TARGET_KEY \x01 SEQ \x01 SOURCE_ID \x01 SOURCE_HASH \x01 INTERNAL \x01
/// ANCHOR`: sorted, the links to one URL come together, in source order.
/// `SOURCE_HASH` is [`crate::schema::anchor_source`] of the source's URL key.
#[derive(Debug)]
pub struct LinkCollector {
    sorter: ExternalSorter,
    style: KeyStyle,
    /// Pages added so far: the next page's number, the high half of its links' `SEQ`.
    pages: u64,
}

impl LinkCollector {
    /// An empty collector; target URLs are canonicalized with `style`.
    pub fn new(sort: SortOptions, style: KeyStyle) -> Self {
        LinkCollector {
            sorter: ExternalSorter::new(SortOptions {
                unique: false,
                ..sort
            }),
            style,
            pages: 0,
        }
    }

    /// Adds the outlinks of a page of URL key `urlkey`, node id `src`.
    pub fn add(
        &mut self,
        src: u32,
        urlkey: &str,
        page_url: &str,
        outlinks: &[Outlink],
    ) -> io::Result<()> {
        self.add_batch(&[(src, urlkey, page_url, outlinks)])
    }

    /// Adds the outlinks of several pages: the lines (their canonical keys are most of
    /// the cost) are made on all cores, and pushed in page order.
    pub fn add_batch(&mut self, pages: &[(u32, &str, &str, &[Outlink])]) -> io::Result<()> {
        let style = self.style;
        let first = self.pages;
        let lines: Vec<Vec<u8>> = pages
            .par_iter()
            .enumerate()
            .map(|(i, &(src, urlkey, page_url, outlinks))| {
                let from = crate::schema::anchor_source(urlkey.as_bytes());
                link_lines(first + i as u64, (src, from), page_url, outlinks, style)
            })
            .collect();
        self.pages += pages.len() as u64;
        for page in lines {
            for line in page.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                self.sorter.push(line)?;
            }
        }
        Ok(())
    }

    /// The sort of the collected lines, as [`LinkCollector::resolve`] reads it.
    #[cfg(test)]
    pub(crate) fn into_sorter(self) -> ExternalSorter {
        self.sorter
    }

    /// Resolves the links against the collection's URL keys (`keys` maps each sort-safe
    /// URL key to its node id): links leaving the collection and self-links are dropped,
    /// duplicate links count once. Returns the link graph on disk and the anchors kept.
    pub fn resolve(
        self,
        keys: &fst::Map<Vec<u8>>,
        opts: &LinkOptions,
        sort: &SortOptions,
    ) -> io::Result<ResolvedLinks> {
        let mut edges = ExternalSorter::new(SortOptions {
            unique: true,
            ..sort.clone()
        });
        let mut anchors = BufWriter::new(tempfile_in(sort)?);
        let mut current: Vec<u8> = Vec::new();
        // Anchors kept for the current target: external, internal.
        let mut kept = [0usize; 2];
        let mut seen: HashSet<(u32, String)> = HashSet::new();
        // Links arrive in target order and the keys are sorted: a cursor over the keys
        // finds each target without a lookup from the root of the map.
        let mut key_stream = keys.stream();
        let mut next_key = || key_stream.next().map(|(k, id)| (k.to_vec(), id));
        let mut cursor = next_key();
        let mut edge: Vec<u8> = Vec::with_capacity(16);
        self.sorter.finish_with(|line| {
            let mut parts = line.splitn(6, |&b| b == 1);
            let bad = || io::Error::from(Error::Corrupt("link sort line"));
            let target = parts.next().ok_or_else(bad)?;
            let _seq = parts.next().ok_or_else(bad)?;
            let src: u32 = std::str::from_utf8(parts.next().ok_or_else(bad)?)
                .ok()
                .and_then(|s| s.parse().ok())
                .ok_or_else(bad)?;
            let from = parts.next().ok_or_else(bad)?;
            let internal = parts.next().ok_or_else(bad)? == b"1";
            let anchor = parts.next().ok_or_else(bad)?;
            while cursor.as_ref().is_some_and(|(k, _)| k.as_slice() < target) {
                cursor = next_key();
            }
            let dst = match &cursor {
                Some((k, id)) if k.as_slice() == target => *id as u32,
                _ => return Ok(()),
            };
            if dst != src {
                edge.clear();
                push_hex(&mut edge, u64::from(src), 8);
                push_hex(&mut edge, u64::from(dst), 8);
                edges.push(&edge)?;
            }
            if target != current.as_slice() {
                current.clear();
                current.extend_from_slice(target);
                kept = [0; 2];
                seen.clear();
            }
            let internal = internal && !opts.internal_links;
            if anchor.is_empty() || kept[internal as usize] >= opts.max_anchors {
                return Ok(());
            }
            let anchor = String::from_utf8_lossy(anchor).into_owned();
            if !seen.insert((src, anchor.clone())) {
                return Ok(());
            }
            kept[internal as usize] += 1;
            anchors.write_all(target)?;
            anchors.write_all(b"\x01")?;
            anchors.write_all(from)?;
            anchors.write_all(if internal { b"\x011\x01" } else { b"\x010\x01" })?;
            anchors.write_all(anchor.as_bytes())?;
            anchors.write_all(b"\n")
        })?;
        let mut graph = BufWriter::new(tempfile_in(sort)?);
        let mut outdegree = vec![0u32; keys.len()];
        edges.finish_with(|line| {
            let bad = || io::Error::from(Error::Corrupt("edge sort line"));
            let hex = std::str::from_utf8(line).map_err(|_| bad())?;
            let src = u32::from_str_radix(&hex[..8], 16).map_err(|_| bad())?;
            let dst = u32::from_str_radix(&hex[8..], 16).map_err(|_| bad())?;
            outdegree[src as usize] += 1;
            graph.write_all(&src.to_le_bytes())?;
            graph.write_all(&dst.to_le_bytes())
        })?;
        let mut graph = graph.into_inner().map_err(|e| e.into_error())?;
        graph.seek(SeekFrom::Start(0))?;
        let mut anchors = anchors.into_inner().map_err(|e| e.into_error())?;
        anchors.seek(SeekFrom::Start(0))?;
        Ok(ResolvedLinks {
            graph,
            outdegree,
            anchors,
        })
    }
}

/// Appends the `width` low hex digits of `v`, lower case and zero-padded, as
/// `{v:0width$x}` writes them for a `v` that fits (without the formatter: it was a tenth
/// of the link passes).
fn push_hex(out: &mut Vec<u8>, v: u64, width: usize) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    out.extend(
        (0..width)
            .rev()
            .map(|i| DIGITS[((v >> (4 * i)) & 0xf) as usize]),
    );
}

/// `TARGET_KEY \x01 SEQ \x01 SOURCE_ID \x01 SOURCE_HASH \x01 INTERNAL \x01 ANCHOR` for each outlink
/// with a canonical key, one per line. `SEQ` is the page's number (`page`, in the order
/// pages are added) and the link's place on the page, as 16 hex digits: it grows in the
/// order the links are added, so the links to one target sort in that order. Made
/// whole here, on the batch's threads, the line is pushed as it is (it was put
/// together again on one thread, with the formatter: a tenth of pass 1).
fn link_lines(
    page: u64,
    (src, from): (u32, u64),
    page_url: &str,
    outlinks: &[Outlink],
    style: KeyStyle,
) -> Vec<u8> {
    let mut out = Vec::new();
    let src_host = host_str(page_url);
    // A page's second link to a target with the same anchor text changes nothing: the
    // edge is kept once and `resolve` keeps an anchor once per source. Pages repeat their
    // navigation (top and bottom): dropped here, the lines never reach the sort. On the
    // bench 44 % of the links repeat an earlier one's URL and anchor on the same page,
    // passed over before their key is made, and 66 % its URL, whose key is made once.
    let mut seen: FxHashSet<(String, bool, String)> = FxHashSet::default();
    let mut seen_links: FxHashSet<(&str, &str)> = FxHashSet::default();
    let mut targets: FxHashMap<&str, Option<(String, bool)>> = FxHashMap::default();
    for (i, link) in outlinks.iter().enumerate() {
        let trimmed = link.anchor.trim();
        if !seen_links.insert((&link.url, trimmed)) {
            continue;
        }
        let made = targets.entry(&link.url).or_insert_with(|| {
            let target = url_key(&link.url, style).ok()?;
            let internal = src_host.is_some() && src_host == host_str(&link.url);
            Some((sort_safe(&target).into_owned(), internal))
        });
        let Some((target, internal)) = made.clone() else {
            continue;
        };
        let anchor = trimmed.replace(['\n', '\r'], " ");
        let start = out.len();
        out.extend_from_slice(target.as_bytes());
        out.push(1);
        // u32 page numbers (node ids are u32) and link places: no overlap.
        push_hex(&mut out, (page << 32) | (i as u64 & 0xffff_ffff), 16);
        let _ = write!(out, "\x01{src}\x01");
        push_hex(&mut out, from, 16);
        let _ = writeln!(out, "\x01{}\x01{anchor}", internal as u8);
        if !seen.insert((target, internal, anchor)) {
            out.truncate(start);
        }
    }
    out
}

/// The host of an absolute URL as the `url` crate serializes it (import resolves every
/// outlink with it): between `://` (and any user info) and the next `/`, `?`, `#` or
/// `:`, lower-cased. Cheaper than a parse, which would cost as much as the key.
fn host_str(url: &str) -> Option<std::borrow::Cow<'_, str>> {
    let rest = &url[url.find("://")? + 3..];
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if host.starts_with('[') {
        &host[..host.find(']').map_or(host.len(), |i| i + 1)]
    } else {
        host.split(':').next().unwrap_or(host)
    };
    if host.is_empty() {
        return None;
    }
    Some(if host.bytes().any(|b| b.is_ascii_uppercase()) {
        std::borrow::Cow::Owned(host.to_ascii_lowercase())
    } else {
        std::borrow::Cow::Borrowed(host)
    })
}

/// An unnamed temporary file in the sort's temporary directory.
pub(crate) fn tempfile_in(sort: &SortOptions) -> io::Result<File> {
    warcdex_cdx::sort::temp_file(sort.tmp_dir.as_deref())
}

/// The link graph of a collection, on disk, and the anchors kept.
#[derive(Debug)]
pub struct ResolvedLinks {
    /// Edges as little-endian `(u32 source, u32 target)` pairs, sorted, unique.
    graph: File,
    /// Outlinks per node.
    outdegree: Vec<u32>,
    /// `TARGET_KEY \x01 SOURCE_HASH \x01 ANCHOR` lines in target order (sort-safe keys),
    /// source order within a target.
    anchors: File,
}

impl ResolvedLinks {
    /// Runs the score distribution (see the module comment) and returns the score of
    /// every node id. Each iteration streams the edge file, so memory is two scores
    /// and one degree per URL, whatever the number of links.
    pub fn scores(&mut self, opts: &LinkOptions) -> io::Result<Vec<f64>> {
        let n = self.outdegree.len();
        let mut score = vec![1.0f64; n];
        for _ in 0..opts.iterations {
            let mut next = vec![1.0 - opts.damping; n];
            self.graph.seek(SeekFrom::Start(0))?;
            let mut r = BufReader::with_capacity(1 << 20, &self.graph);
            let mut pair = [0u8; 8];
            loop {
                match r.read_exact(&mut pair) {
                    Ok(()) => {}
                    Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => break,
                    Err(e) => return Err(e),
                }
                let u = u32::from_le_bytes(pair[..4].try_into().unwrap()) as usize;
                let v = u32::from_le_bytes(pair[4..].try_into().unwrap()) as usize;
                next[v] += opts.damping * (score[u] / f64::from(self.outdegree[u]));
            }
            score = next;
        }
        Ok(score)
    }

    /// The anchors in target order, for a merge-join with the documents.
    pub fn anchors(self) -> AnchorReader {
        AnchorReader {
            lines: BufReader::with_capacity(1 << 16, self.anchors).split(b'\n'),
            pending: None,
        }
    }
}

/// Reads the anchors of each URL key in turn; keys must be asked in increasing order.
#[derive(Debug)]
pub struct AnchorReader {
    lines: io::Split<BufReader<File>>,
    pending: Option<(Vec<u8>, String, u64, bool)>,
}

/// The anchors of one URL: each text with the hash of its source's URL key
/// ([`crate::schema::anchor_source`]) and whether it comes from the same host, in the
/// same order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Anchors {
    /// The anchor texts.
    pub texts: Vec<String>,
    /// Where each comes from.
    pub sources: Vec<u64>,
    /// Whether each is from a page of the same host; empty (all external) in what was
    /// written before internal anchors were kept.
    #[serde(default)]
    pub internal: Vec<bool>,
}

impl Anchors {
    /// The three lists, borrowed.
    pub fn as_list(&self) -> AnchorList<'_> {
        AnchorList {
            texts: &self.texts,
            sources: &self.sources,
            internal: &self.internal,
        }
    }
}

/// The anchors of one URL, borrowed (see [`Anchors`]): what a document is written with.
#[derive(Debug, Clone, Copy, Default)]
pub struct AnchorList<'a> {
    /// The anchor texts.
    pub texts: &'a [String],
    /// The hash of each one's source URL key; may be shorter (unknown sources).
    pub sources: &'a [u64],
    /// Whether each is internal; may be shorter (the rest external).
    pub internal: &'a [bool],
}

impl AnchorList<'_> {
    /// Whether anchor `i` comes from the same host.
    pub fn is_internal(&self, i: usize) -> bool {
        self.internal.get(i).copied().unwrap_or(false)
    }
}

impl AnchorReader {
    /// The anchors of `key` (sort-safe), skipping those of smaller keys.
    pub fn anchors_of(&mut self, key: &str) -> io::Result<Anchors> {
        let mut out = Anchors::default();
        loop {
            if self.pending.is_none() {
                let Some(line) = self.lines.next().transpose()? else {
                    return Ok(out);
                };
                let corrupt = || io::Error::from(Error::Corrupt("anchor line"));
                let at = memchr::memchr(1, &line).ok_or_else(corrupt)?;
                let rest = &line[at + 1..];
                let at2 = memchr::memchr(1, rest).ok_or_else(corrupt)?;
                let from = std::str::from_utf8(&rest[..at2])
                    .ok()
                    .and_then(|h| u64::from_str_radix(h, 16).ok())
                    .ok_or_else(corrupt)?;
                let rest = &rest[at2 + 1..];
                if rest.len() < 2 || rest[1] != 1 {
                    return Err(corrupt());
                }
                let internal = rest[0] == b'1';
                let anchor = String::from_utf8_lossy(&rest[2..]).into_owned();
                self.pending = Some((line[..at].to_vec(), anchor, from, internal));
            }
            let (k, _, _, _) = self.pending.as_ref().unwrap();
            match k.as_slice().cmp(key.as_bytes()) {
                std::cmp::Ordering::Less => self.pending = None,
                std::cmp::Ordering::Equal => {
                    let (_, text, from, internal) = self.pending.take().unwrap();
                    out.texts.push(text);
                    out.sources.push(from);
                    out.internal.push(internal);
                }
                std::cmp::Ordering::Greater => return Ok(out),
            }
        }
    }
}

/// Anchors and scores by URL key, computed in memory for a small set of rows (tests
/// and tools; `index` runs the same collector and graph streaming).
#[derive(Debug, Clone, Default)]
pub struct LinkAnalysis {
    anchors: HashMap<String, Anchors>,
    scores: HashMap<String, f64>,
    power: f64,
}

impl LinkAnalysis {
    /// Anchor texts of links to `urlkey`, in source order.
    pub fn anchors_of(&self, urlkey: &str) -> &[String] {
        self.anchors.get(urlkey).map_or(&[], |a| a.texts.as_slice())
    }

    /// The sources of [`LinkAnalysis::anchors_of`], in the same order.
    pub fn anchor_sources_of(&self, urlkey: &str) -> &[u64] {
        self.anchors
            .get(urlkey)
            .map_or(&[], |a| a.sources.as_slice())
    }

    /// Every anchor of links to `urlkey`, with its source and kind.
    pub fn anchor_list_of(&self, urlkey: &str) -> AnchorList<'_> {
        self.anchors
            .get(urlkey)
            .map(Anchors::as_list)
            .unwrap_or_default()
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

/// The lower-case host of a URL, if it has one.
pub fn host_of(url: &str) -> Option<String> {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(|h| h.to_ascii_lowercase()))
}

/// Node ids of URL keys, given in byte order: their rank, collected into an `fst` map
/// of sort-safe keys (see [`LinkCollector::resolve`]).
pub struct KeyIds {
    builder: fst::MapBuilder<Vec<u8>>,
    last: Option<String>,
    next: u32,
}

impl Default for KeyIds {
    fn default() -> Self {
        KeyIds {
            builder: fst::MapBuilder::memory(),
            last: None,
            next: 0,
        }
    }
}

impl KeyIds {
    /// The node id of `urlkey`: the previous key's id again, or the next one. Keys must
    /// come in increasing order (repeats allowed).
    pub fn id_of(&mut self, urlkey: &str) -> io::Result<u32> {
        let key = sort_safe(urlkey);
        if self.last.as_deref() == Some(&*key) {
            return Ok(self.next - 1);
        }
        self.builder
            .insert(key.as_bytes(), u64::from(self.next))
            .map_err(io::Error::other)?;
        self.last = Some(key.into_owned());
        self.next += 1;
        Ok(self.next - 1)
    }

    /// The map of every key given to its id.
    pub fn finish(self) -> io::Result<fst::Map<Vec<u8>>> {
        fst::Map::new(self.builder.into_inner().map_err(io::Error::other)?)
            .map_err(io::Error::other)
    }
}

/// Builds anchors and scores for rows in (URL key, digest) order (URL keys made with
/// `style`), through the same collector and graph as `index`.
pub fn analyse(
    rows: &[SegmentRow],
    opts: &LinkOptions,
    style: KeyStyle,
) -> io::Result<LinkAnalysis> {
    let sort = SortOptions::default();
    let mut ids = KeyIds::default();
    let mut links = LinkCollector::new(sort.clone(), style);
    for row in rows {
        links.add(
            ids.id_of(&row.urlkey)?,
            &row.urlkey,
            &row.url,
            &row.outlinks,
        )?;
    }
    let keys = ids.finish()?;
    let mut resolved = links.resolve(&keys, opts, &sort)?;
    let score = resolved.scores(opts)?;
    let mut reader = resolved.anchors();
    let mut anchors = HashMap::new();
    let mut scores = HashMap::new();
    let mut stream = keys.stream();
    while let Some((k, id)) = stream.next() {
        let k = String::from_utf8_lossy(k).into_owned();
        let a = reader.anchors_of(&k)?;
        if !a.texts.is_empty() {
            anchors.insert(k.clone(), a);
        }
        scores.insert(k, score[id as usize]);
    }
    Ok(LinkAnalysis {
        anchors,
        scores,
        power: opts.score_power,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(url: &str, links: &[(&str, &str)]) -> SegmentRow {
        SegmentRow {
            url: url.into(),
            urlkey: url_key(url, KeyStyle::Surt).unwrap(),
            outlinks: Outlink::list(links),
            ..SegmentRow::default()
        }
    }

    /// A page's link lines: the first link of each (target, same host, anchor) once, with
    /// its place on the page; a repeat (its anchor padded, or its line end a space) and a
    /// link whose URL has no key give none; the anchor's line ends made spaces.
    #[test]
    fn a_pages_repeated_links_are_one_line_each() {
        let links = [
            ("http://a.example/x", "next"),
            ("http://a.example/x", " next\n"),
            ("mailto:someone@example.org", "mail"),
            ("mailto:someone@example.org", "mail"),
            ("http://example.com:65536/", "no key"),
            ("http://example.com:65536/", "no key"),
            ("http://b.example/", "a\nb"),
            ("http://b.example/", "a b"),
            ("HTTP://B.EXAMPLE:80/", "a b"),
            ("http://a.example/x", "other"),
        ];
        let outlinks = Outlink::list(&links);
        let out = link_lines(7, (3, 0xab), "http://a.example/", &outlinks, KeyStyle::Surt);
        let lines: Vec<Vec<&[u8]>> = (out.split(|&b| b == b'\n'))
            .filter(|l| !l.is_empty())
            .map(|l| l.split(|&b| b == 1).collect())
            .collect();
        let got: Vec<(String, String, String, String)> = (lines.iter())
            .map(|f| {
                let text = |i: usize| String::from_utf8_lossy(f[i]).into_owned();
                (text(0), text(1), text(4), text(5))
            })
            .collect();
        assert!(url_key("http://example.com:65536/", KeyStyle::Surt).is_err());
        let place = |i: u64| format!("{:016x}", (7u64 << 32) | i);
        let a = sort_safe(&url_key("http://a.example/x", KeyStyle::Surt).unwrap()).into_owned();
        let b = sort_safe(&url_key("http://b.example/", KeyStyle::Surt).unwrap()).into_owned();
        let mail = "mailto:someone@example.org";
        let mail = sort_safe(&url_key(mail, KeyStyle::Surt).unwrap()).into_owned();
        let want = [
            (a.clone(), place(0), "1".into(), "next".into()),
            (mail, place(2), "0".into(), "mail".into()),
            (b, place(6), "0".into(), "a b".into()),
            (a, place(9), "1".into(), "other".into()),
        ];
        assert_eq!(got, want);
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
        )
        .unwrap();
        let s = |k: &str| one.score_of(&url_key(k, KeyStyle::Surt).unwrap());
        assert!((s("http://a.example/") - 1.0).abs() < 1e-12);
        assert!((s("http://b.example/") - 0.575).abs() < 1e-12);
        assert!((s("http://c.example/") - 1.425).abs() < 1e-12);
        let full = analyse(&rows, &LinkOptions::default(), KeyStyle::Surt).unwrap();
        let f = |k: &str| full.score_of(&url_key(k, KeyStyle::Surt).unwrap());
        assert!(f("http://c.example/") > f("http://a.example/"));
        assert!(f("http://a.example/") > f("http://b.example/"));
        let c = url_key("http://c.example/", KeyStyle::Surt).unwrap();
        assert_eq!(full.anchors_of(&c), ["sea", "sea two"]);
    }

    #[test]
    fn hex_as_the_formatter_writes_it() {
        for v in [0u64, 1, 0xabc, u64::from(u32::MAX), 0x0123_4567_89ab_cdef] {
            let mut out = Vec::new();
            push_hex(&mut out, v, 16);
            assert_eq!(out, format!("{v:016x}").into_bytes());
            if v <= u64::from(u32::MAX) {
                out.clear();
                push_hex(&mut out, v, 8);
                assert_eq!(out, format!("{v:08x}").into_bytes());
            }
        }
    }

    #[test]
    fn a_page_links_a_target_once_per_anchor_text() {
        let links = Outlink::list(&[
            ("http://b.example/", "next"),
            ("http://b.example/", " next\n"),
            ("http://b.example/", "B"),
            ("http://www.b.example/", "next"),
            ("http://c.example/", ""),
            ("http://c.example/", ""),
        ]);
        let out = link_lines(7, (3, 9), "http://a.example/", &links, KeyStyle::Surt);
        let lines: Vec<Vec<&[u8]>> = out
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| l.split(|&b| b == 1).collect())
            .collect();
        // target, place on the page, anchor: the repeats are gone, the first kept.
        let kept: Vec<(String, String, String)> = lines
            .iter()
            .map(|f| {
                let s = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap();
                (s(f[0]), s(&f[1][8..]), s(f[5]))
            })
            .collect();
        let t = |u: &str| url_key(u, KeyStyle::Surt).unwrap();
        assert_eq!(
            kept,
            [
                (t("http://b.example/"), "00000000".into(), "next".into()),
                (t("http://b.example/"), "00000002".into(), "B".into()),
                (t("http://c.example/"), "00000004".into(), String::new()),
            ]
        );
        // `www.b.example` has `b.example`'s key, and is as external: a repeat too.
        assert_eq!(t("http://www.b.example/"), t("http://b.example/"));
    }

    #[test]
    fn host_str_agrees_with_a_parse() {
        for u in [
            "http://a.example/x",
            "https://user:pw@B.Example:8080/p?q#f",
            "http://[::1]:80/",
            "http://a.example?q",
            "http://a.example#f",
            "http://xn--bcher-kva.example/",
        ] {
            assert_eq!(host_str(u).as_deref(), host_of(u).as_deref(), "{u}");
        }
    }

    #[test]
    fn internal_links_give_internal_anchors_unless_counted_as_external() {
        let rows = vec![
            page(
                "http://a.example/",
                &[
                    ("http://a.example/x", "inside"),
                    ("http://b.example/x", "out"),
                ],
            ),
            page("http://a.example/x", &[]),
            page("http://b.example/x", &[("http://a.example/x", "across")]),
        ];
        let x = url_key("http://a.example/x", KeyStyle::Surt).unwrap();
        let y = url_key("http://b.example/x", KeyStyle::Surt).unwrap();
        let kinds = |a: &LinkAnalysis, k: &str| {
            let l = a.anchor_list_of(k);
            (l.texts.iter())
                .enumerate()
                .map(|(i, t)| (t.clone(), l.is_internal(i)))
                .collect::<Vec<_>>()
        };
        let apart = analyse(&rows, &LinkOptions::default(), KeyStyle::Surt).unwrap();
        assert_eq!(
            kinds(&apart, &x),
            [("inside".to_string(), true), ("across".to_string(), false)]
        );
        assert_eq!(kinds(&apart, &y), [("out".to_string(), false)]);
        // NutchWAX's option: links within a host count as any other.
        let with = LinkOptions {
            internal_links: true,
            ..LinkOptions::default()
        };
        let together = analyse(&rows, &with, KeyStyle::Surt).unwrap();
        assert_eq!(
            kinds(&together, &x),
            [("inside".to_string(), false), ("across".to_string(), false)]
        );
    }
}
