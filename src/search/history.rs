//! `warcdex history URL`: every version of a URL, earliest first, with its dates and how
//! far its text is from the version before (issue 20), so a reader sees when the page
//! really changed rather than when its bytes did.

use serde::{Deserialize, Serialize};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocSet, Term, TERMINATED};
use warcdex_cdx::KeyStyle;

use super::near_dups::{split_key, NearError, PrintColumns};
use super::SearchIndex;

/// How a version's text differs from the version before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// The earliest version.
    First,
    /// The same fingerprint: the bytes changed (markup, a counter, a date), the words
    /// did not.
    Same,
    /// At most `k` bits apart: a near-duplicate (an ad, a date line, a few words).
    Minor,
    /// More than `k` bits apart: the text was rewritten.
    Major,
    /// One of the two has too few words to judge.
    Unknown,
}

impl Change {
    /// The label printed.
    pub fn label(self) -> &'static str {
        match self {
            Change::First => "first",
            Change::Same => "same text",
            Change::Minor => "minor change",
            Change::Major => "major change",
            Change::Unknown => "too short to tell",
        }
    }

    /// The change between two versions' signatures: the same text, a near-duplicate, or
    /// a rewrite.
    pub fn between(a: &crate::near::Signature, b: &crate::near::Signature) -> Change {
        if a.text == b.text {
            Change::Same
        } else if a.is_near(b, crate::near::DEFAULT_THRESHOLD) {
            Change::Minor
        } else {
            Change::Major
        }
    }

    /// The change from a version to the next: `distance` bits apart, near-duplicates up
    /// to `k`; `judged` is false when either has fewer words than the minimum.
    pub fn of(distance: u32, k: u32, judged: bool) -> Change {
        match (judged, distance) {
            (false, _) => Change::Unknown,
            (true, 0) => Change::Same,
            (true, d) if d <= k => Change::Minor,
            _ => Change::Major,
        }
    }
}

/// One version of a URL in its history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Version {
    /// The URL as captured.
    pub url: String,
    /// `sha1:DIGEST` of its payload.
    pub digest: String,
    /// Every capture date (14 digits), ascending.
    pub dates: Vec<String>,
    /// Its text fingerprint (hexadecimal in the output).
    #[serde(serialize_with = "hex64")]
    pub simhash: u64,
    /// The words the fingerprint was made from.
    pub words: u32,
    /// Bits that differ from the version before; `None` for the first.
    pub distance: Option<u32>,
    /// What that distance means.
    pub change: Change,
}

fn hex64<S: serde::Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{v:016x}"))
}

/// Every version of `url` in the search directory's sets, in order of first capture
/// (then digest), each compared with the one before: distances of at most `k` bits are
/// minor changes; versions with fewer than `min_words` words are not judged.
pub fn history(
    index: &SearchIndex,
    url: &str,
    k: u32,
    min_words: u32,
) -> Result<Vec<Version>, NearError> {
    let mut found: Vec<(Version, Vec<u64>)> = Vec::new();
    for set in index.live_sets() {
        let Some(cols) = PrintColumns::open(set)? else {
            continue;
        };
        let style = match crate::pindex::info::read_main_info(&set.main_dir) {
            Ok(info) if info.canonicalizer == "url" => KeyStyle::Url,
            _ => KeyStyle::Surt,
        };
        let Ok(urlkey) = warcdex_cdx::url_key(url, style) else {
            continue;
        };
        let at = |source| NearError::Index {
            dir: set.main_dir.clone(),
            source,
        };
        for seg in set.searcher.segment_readers() {
            let inverted = seg.inverted_index(set.fields.urlkey).map_err(at)?;
            let term = Term::from_field_text(set.fields.urlkey, &urlkey);
            let Some(mut postings) = inverted
                .read_postings(&term, IndexRecordOption::Basic)
                .map_err(|e| at(e.into()))?
            else {
                continue;
            };
            let mut doc = postings.doc();
            while doc != TERMINATED {
                let mut key = String::new();
                if let Some(ord) = cols.key.term_ords(doc).next() {
                    cols.key
                        .ord_to_str(ord, &mut key)
                        .map_err(|e| at(e.into()))?;
                }
                let (u, digest) = split_key(&key);
                let (simhash, words) = cols.print(doc);
                let dates = set.dates.of(doc).to_vec();
                found.push((
                    Version {
                        url: u.to_string(),
                        digest: digest.to_string(),
                        dates: dates.iter().map(|&d| super::date14(d)).collect(),
                        simhash,
                        words,
                        distance: None,
                        change: Change::First,
                    },
                    dates,
                ));
                doc = postings.advance();
            }
        }
    }
    // Versions without a possible capture date go last.
    found.sort_by(|(a, ad), (b, bd)| {
        let first = |d: &Vec<u64>| d.first().copied().unwrap_or(u64::MAX);
        (first(ad), &a.digest).cmp(&(first(bd), &b.digest))
    });
    let mut out: Vec<Version> = found.into_iter().map(|(v, _)| v).collect();
    for i in 1..out.len() {
        let (prev, cur) = (&out[i - 1], &out[i]);
        let d = crate::near::simhash::distance(prev.simhash, cur.simhash);
        let judged = prev.words >= min_words && cur.words >= min_words;
        out[i].distance = Some(d);
        out[i].change = Change::of(d, k, judged);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_labelled_by_distance() {
        assert_eq!(Change::of(0, 6, true), Change::Same);
        assert_eq!(Change::of(6, 6, true), Change::Minor);
        assert_eq!(Change::of(7, 6, true), Change::Major);
        assert_eq!(Change::of(0, 6, false), Change::Unknown);
    }
}
