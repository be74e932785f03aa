//! What the tools answer: structured results (their JSON Schemas are the tools'
//! `outputSchema`) and each one's short text rendering. Every capture named carries its
//! provenance, what a citation of archived evidence needs: the archived URL, the
//! capture's date, the archive file, the record's offset and length, the payload digest.

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::Serialize;

/// Where a capture's bytes are: enough to cite it and to read its record again.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Provenance {
    /// The URL as archived.
    pub url: String,
    /// The capture's date, 14 digits (UTC).
    pub timestamp: String,
    /// The archive file holding its record (as the collection names it; empty in the
    /// rare hit whose capture the CDX does not list, under access rules).
    pub archive: String,
    /// For a WARC inside a WACZ: the WACZ's file name and the WARC's path in it
    /// (`crawl.wacz#archive/data.warc.gz`); offsets are the WARC's own.
    pub container: Option<String>,
    /// The record's offset in that file (bytes).
    pub offset: u64,
    /// The record's stored length (bytes).
    pub length: u64,
    /// The payload digest, `sha1:BASE32`.
    pub digest: String,
}

/// One value of a facet.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FacetValue {
    /// The site, year, MIME type or language.
    pub value: String,
    /// Matching versions with it.
    pub count: u64,
}

/// Counts of all matching versions (not only this page's), most frequent first.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Facets {
    /// By site (host without `www.`), the first 10.
    pub site: Vec<FacetValue>,
    /// By year of capture, in order.
    pub year: Vec<FacetValue>,
    /// By MIME type, the first 10.
    #[serde(rename = "type")]
    pub mime: Vec<FacetValue>,
    /// By language (ISO 639-1), the first 10.
    pub lang: Vec<FacetValue>,
}

/// One hit of `search`: a version of a page (URL + payload digest).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SearchHit {
    /// Position in the whole result list, from 1.
    pub rank: usize,
    /// The URL as archived.
    pub url: String,
    /// The page's title (may be empty).
    pub title: String,
    /// A fragment of its text around the query's words, which are between « and ».
    pub snippet: String,
    /// Host without `www.`.
    pub site: String,
    /// MIME type.
    #[serde(rename = "type")]
    pub mime: String,
    /// Every capture date of this version (14 digits, ascending; the first 50).
    pub capture_dates: Vec<String>,
    /// How many captures this version has.
    pub captures: usize,
    /// The earliest capture's provenance.
    pub provenance: Provenance,
    /// The capture view of the earliest capture (absolute with a public address,
    /// else a path on the collection's `warcdex serve`).
    pub capture_view: String,
    /// How many versions the URL has in the collection (1: none other).
    pub versions: usize,
}

/// `search`'s answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SearchAnswer {
    /// The query run (with `site:`, `date:` and `as-of:` added from the arguments).
    pub query: String,
    /// Versions matching, before near-identical versions are folded into one hit and
    /// before the per-site limit.
    pub total: u64,
    /// This page, from 1.
    pub page: usize,
    /// Hits per page.
    pub page_size: usize,
    /// Whether a next page exists.
    pub has_more: bool,
    /// Set when no page held every word: what the hits hold instead.
    pub relaxed: Option<String>,
    /// Set when a word is in no page: the query whose hits these are.
    pub suggestion: Option<String>,
    /// Shard servers that did not answer (the results are then partial).
    pub unavailable: Vec<String>,
    /// This page's hits.
    pub hits: Vec<SearchHit>,
    /// Counts of all matching versions.
    pub facets: Facets,
}

/// `get_text`'s answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TextAnswer {
    /// The capture read (the nearest to the date asked for).
    pub provenance: Provenance,
    /// The page's title (may be empty).
    pub title: String,
    /// MIME type.
    #[serde(rename = "type")]
    pub mime: String,
    /// The indexed text from character `offset`, at most `max_chars` characters.
    pub text: String,
    /// The first character of `text` in the whole text.
    pub offset: u64,
    /// Characters of the whole text.
    pub total_chars: u64,
    /// Where the next part begins (give it as `offset`); absent at the end.
    pub next_offset: Option<u64>,
    /// The capture view (absolute with a public address, else a path on the
    /// collection's `warcdex serve`).
    pub capture_view: String,
}

/// One capture, as the CDX API lists it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CaptureRow {
    /// The capture's date, 14 digits.
    pub timestamp: String,
    /// The URL as archived.
    pub url: String,
    /// The HTTP status (`-` for none).
    pub status: String,
    /// MIME type (`warc/revisit` for a revisit record).
    pub mime: String,
    /// The payload digest, `sha1:BASE32`.
    pub digest: String,
    /// The archive file holding its record.
    pub archive: String,
    /// For a WARC inside a WACZ: `WACZ#PATH` (see [`Provenance::container`]).
    pub container: Option<String>,
    /// The record's offset in that file.
    pub offset: u64,
    /// The record's stored length.
    pub length: u64,
}

/// `list_captures`' answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CapturesAnswer {
    /// The URL asked for.
    pub url: String,
    /// How URLs were matched.
    pub match_type: String,
    /// The captures, oldest first (per URL key).
    pub captures: Vec<CaptureRow>,
    /// Whether more captures match than `limit` let through (narrow `from`/`to`).
    pub truncated: bool,
}

/// One version in `history`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct VersionRow {
    /// Its payload digest, `sha1:BASE32`.
    pub digest: String,
    /// Its first capture (14 digits).
    pub first_capture: String,
    /// Its last capture.
    pub last_capture: String,
    /// How many captures it has.
    pub captures: usize,
    /// The words of its indexed text.
    pub words: usize,
    /// The share of words changed from the version before (0 to 1); absent for the
    /// first.
    pub changed: Option<f64>,
    /// What kind of change: `first`, `same`, `minor`, `changed`, `rewritten` …
    pub change: String,
}

/// `history`'s answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HistoryAnswer {
    /// The URL.
    pub url: String,
    /// Versions in all.
    pub versions_total: usize,
    /// The versions in order of first capture (the latest 200 when there are more).
    pub versions: Vec<VersionRow>,
}

/// One side of a `diff`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DiffSide {
    /// The capture nearest the date asked for, whose version is compared.
    pub capture: String,
    /// That version's digest.
    pub digest: String,
    /// Its words.
    pub words: usize,
}

/// `diff`'s answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DiffAnswer {
    /// The URL.
    pub url: String,
    /// The older side.
    pub old: DiffSide,
    /// The newer side.
    pub new: DiffSide,
    /// The share of words changed (removed and added over the words of both).
    pub share_changed: f64,
    /// Words removed.
    pub words_removed: usize,
    /// Words added.
    pub words_added: usize,
    /// The runs of removed words, in text order.
    pub removed: Vec<String>,
    /// The runs of added words, in text order.
    pub added: Vec<String>,
    /// Whether `removed`/`added` were cut (at 20,000 characters each) or a text was
    /// longer than the diff compares.
    pub truncated: bool,
}

/// The `warcdex://collection` resource: what the collection holds, as the asker may see it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CollectionAnswer {
    /// Versions (URL + payload digest) the asker may see.
    pub versions: u64,
    /// Parallel sets searched (0 on a front server).
    pub sets: usize,
    /// The first year with a capture.
    pub first_year: Option<String>,
    /// The last year with a capture.
    pub last_year: Option<String>,
    /// Versions per year of capture, in order.
    pub years: Vec<FacetValue>,
    /// The sites with most versions, the first 25.
    pub sites: Vec<FacetValue>,
    /// MIME types, the first 10.
    pub types: Vec<FacetValue>,
    /// Languages, the first 10.
    pub languages: Vec<FacetValue>,
}

/// The short text an agent's chat shows for an answer.
pub trait Render {
    /// The rendering.
    fn render(&self) -> String;
}

/// ` (in WACZ#PATH)` for an archive inside a WACZ, else nothing.
fn inside(container: Option<&String>) -> String {
    container.map_or_else(String::new, |c| format!(" (in {c})"))
}

fn cite(p: &Provenance) -> String {
    let inside = inside(p.container.as_ref());
    format!(
        "{} @ {} — {}{inside} offset {} length {} {}",
        p.url, p.timestamp, p.archive, p.offset, p.length, p.digest
    )
}

impl Render for SearchAnswer {
    fn render(&self) -> String {
        let mut s = format!(
            "{} versions match {:?} (page {}).",
            self.total, self.query, self.page
        );
        if let Some(r) = &self.relaxed {
            let _ = write!(s, " Showing {r}.");
        }
        if let Some(q) = &self.suggestion {
            let _ = write!(s, " Showing results for {q:?}.");
        }
        for h in &self.hits {
            let title = if h.title.is_empty() { &h.url } else { &h.title };
            let _ = write!(
                s,
                "\n{}. {title}\n   {}\n   {}",
                h.rank,
                h.snippet,
                cite(&h.provenance)
            );
        }
        s
    }
}

impl Render for TextAnswer {
    fn render(&self) -> String {
        let mut s = format!(
            "{}\n{}\n\n{}",
            cite(&self.provenance),
            self.title,
            self.text
        );
        if let Some(n) = self.next_offset {
            let _ = write!(
                s,
                "\n\n[text continues: {} of {} characters shown; call again with offset {n}]",
                n, self.total_chars
            );
        }
        s
    }
}

impl Render for CapturesAnswer {
    fn render(&self) -> String {
        let mut s = format!("{} captures of {}", self.captures.len(), self.url);
        if self.truncated {
            s.push_str(" (more exist)");
        }
        for c in &self.captures {
            let inside = inside(c.container.as_ref());
            let _ = write!(
                s,
                "\n{} {} {} {} {} {}{inside} offset {} length {}",
                c.timestamp, c.status, c.mime, c.url, c.digest, c.archive, c.offset, c.length
            );
        }
        s
    }
}

impl Render for HistoryAnswer {
    fn render(&self) -> String {
        let mut s = format!("{} versions of {}", self.versions_total, self.url);
        for v in &self.versions {
            let changed = v
                .changed
                .map_or_else(|| "-".to_string(), |c| format!("{:.1}%", c * 100.0));
            let _ = write!(
                s,
                "\n{} … {} ({} captures) {} words, changed {changed} ({}) {}",
                v.first_capture, v.last_capture, v.captures, v.words, v.change, v.digest
            );
        }
        s
    }
}

impl Render for DiffAnswer {
    fn render(&self) -> String {
        let mut s = format!(
            "{}: {} ({}) → {} ({}): {:.1}% of words changed, {} removed, {} added",
            self.url,
            self.old.capture,
            self.old.digest,
            self.new.capture,
            self.new.digest,
            self.share_changed * 100.0,
            self.words_removed,
            self.words_added
        );
        for r in &self.removed {
            let _ = write!(s, "\n- {r}");
        }
        for a in &self.added {
            let _ = write!(s, "\n+ {a}");
        }
        s
    }
}
