//! `warcdex history URL`: every version of a URL, earliest first, with its dates and how
//! much of its text changed from the version before: the share of
//! words, from a word-level diff of the two indexed texts (`crate::near::word_diff`), so
//! a reader sees when the page really changed rather than when its bytes did. "Same
//! text" only where the two texts are equal.

use serde::{Deserialize, Serialize};
use warcdex_cdx::KeyStyle;

use super::near_dups::NearError;
use super::SearchIndex;
use crate::access::Viewer;
use crate::near::word_diff::{diff_words, percent};
use crate::near::Signature;

/// How a version's text differs from the version before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// The earliest version.
    First,
    /// The same text: the bytes changed (markup, scripts), the words did not.
    Same,
    /// A near-duplicate (same title, texts alike at the near-dups threshold): an ad, a
    /// date line, a few words.
    Minor,
    /// Not a near-duplicate: the text was rewritten (or the title changed).
    Major,
    /// One of the two has no signature (an index built before they were stored).
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
            Change::Unknown => "changed",
        }
    }

    /// The change between two versions' signatures: the same text, a near-duplicate, or
    /// a rewrite.
    pub fn between(a: &Signature, b: &Signature) -> Change {
        if a.text == b.text {
            Change::Same
        } else if a.is_near(b, crate::near::DEFAULT_THRESHOLD) {
            Change::Minor
        } else {
            Change::Major
        }
    }
}

/// One version of a URL in its history.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Version {
    /// The URL as captured.
    pub url: String,
    /// `sha1:DIGEST` of its payload.
    pub digest: String,
    /// Every capture date (14 digits), ascending.
    pub dates: Vec<String>,
    /// The words of its indexed text.
    pub words: usize,
    /// The share of words changed from the version before (0 to 1; `None` for the
    /// first): removed and added words over the words of both.
    pub changed: Option<f64>,
    /// What kind of change that is.
    pub change: Change,
}

impl Version {
    /// The share changed as printed (`-` for the first version).
    pub fn changed_label(&self) -> String {
        self.changed.map_or_else(|| "-".to_string(), percent)
    }
}

/// Every version of `url` in the search directory's sets, in order of first capture
/// (then digest), each compared with the one before. The texts are read one at a time,
/// in that order, and not kept: memory holds two texts whatever the versions.
pub fn history(index: &SearchIndex, url: &str) -> Result<Vec<Version>, NearError> {
    history_for(index, url, None)
}

/// [`history`] as `viewer` may see it under the access rules: the versions with a
/// capture shown to them, with the dates of those captures only.
pub fn history_for(
    index: &SearchIndex,
    url: &str,
    viewer: Option<&Viewer>,
) -> Result<Vec<Version>, NearError> {
    let views = index.views.views(&index.sets, viewer);
    let sets: Vec<&super::set::OpenSet> = index.sets.iter().collect();
    // (first date, digest, set, DocId): sorted, the order of the history.
    let mut found: Vec<(u64, Vec<u8>, usize, tantivy::DocId)> = Vec::new();
    for (i, set) in sets.iter().enumerate() {
        if !index.live(i) {
            continue;
        }
        let Some(urlkey) = urlkey_in(set, url) else {
            continue;
        };
        for doc in set.docs_of_urlkey(urlkey.as_bytes()) {
            if !views[i].shows(doc) {
                continue;
            }
            let first = views[i].dates.of(doc).first().copied().unwrap_or(u64::MAX);
            found.push((first, set.order_digest(doc), i, doc));
        }
    }
    // Versions without a possible capture date go last.
    found.sort();
    let mut out: Vec<Version> = Vec::with_capacity(found.len());
    let mut before: Option<(String, Option<Signature>)> = None;
    for (_, _, i, doc) in found {
        let set = sets[i];
        let t = super::indexed_text::read(set, doc).map_err(|e| NearError::Text {
            dir: set.main_dir.clone(),
            source: Box::new(e),
        })?;
        let sig = match &set.near {
            Some(n) => n.judged_any(doc)?,
            None => None,
        };
        let (changed, change) = match &before {
            None => (None, Change::First),
            Some((prev, prev_sig)) => {
                let share = diff_words(prev, &t.text).share_changed();
                let change = match (prev_sig, &sig) {
                    _ if *prev == t.text => Change::Same,
                    (Some(a), Some(b)) => Change::between(a, b),
                    _ => Change::Unknown,
                };
                (Some(share), change)
            }
        };
        out.push(Version {
            url: t.url,
            digest: t.digest,
            dates: views[i]
                .dates
                .of(doc)
                .iter()
                .map(|&d| super::date14(d))
                .collect(),
            words: t.text.split_whitespace().count(),
            changed,
            change,
        });
        before = Some((t.text, sig));
    }
    Ok(out)
}

/// `url`'s key in `set` (its canonicalizer's), `None` for a URL that has none.
fn urlkey_in(set: &super::set::OpenSet, url: &str) -> Option<String> {
    let style = match crate::pindex::info::read_main_info(&set.main_dir) {
        Ok(info) if info.canonicalizer == "url" => KeyStyle::Url,
        _ => KeyStyle::Surt,
    };
    warcdex_cdx::url_key(url, style).ok()
}

/// The indexed text of `url`'s version with `digest`; `None` when no set holds it.
pub fn version_text(
    index: &SearchIndex,
    url: &str,
    digest: &str,
) -> Result<Option<String>, NearError> {
    for set in index.live_sets() {
        let Some(doc) = urlkey_in(set, url)
            .and_then(|key| super::indexed_text::doc_of_version(set, &key, digest))
        else {
            continue;
        };
        let t = super::indexed_text::read(set, doc).map_err(|e| NearError::Text {
            dir: set.main_dir.clone(),
            source: Box::new(e),
        })?;
        return Ok(Some(t.text));
    }
    Ok(None)
}

/// Two versions of a URL, each with the capture date that chose it, and what changed
/// from the first to the second.
#[derive(Debug, Clone)]
pub struct VersionDiff {
    /// The version holding the capture nearest the first date, and that capture's date.
    pub old: (Version, String),
    /// The same for the second date.
    pub new: (Version, String),
    /// The word-level difference of their indexed texts.
    pub diff: crate::near::word_diff::WordDiff,
}

/// What changed on `url` between the versions holding the captures nearest `date1` and
/// `date2` (4 to 14 digits); `None` when the URL has no version (or a date is not one).
pub fn diff_versions(
    index: &SearchIndex,
    url: &str,
    date1: &str,
    date2: &str,
    viewer: Option<&Viewer>,
) -> Result<Option<VersionDiff>, NearError> {
    let versions = history_for(index, url, viewer)?;
    let (Some((old, at1)), Some((new, at2))) = (
        nearest_version(&versions, date1),
        nearest_version(&versions, date2),
    ) else {
        return Ok(None);
    };
    let (Some(a), Some(b)) = (
        version_text(index, &old.url, &old.digest)?,
        version_text(index, &new.url, &new.digest)?,
    ) else {
        return Ok(None);
    };
    Ok(Some(VersionDiff {
        diff: diff_words(&a, &b),
        old: (old.clone(), at1),
        new: (new.clone(), at2),
    }))
}

/// A date as 14 digits from a prefix of one (`2025`, `202503`, `20250301`…), the parts not
/// given at their start (January, the 1st, midnight); `None` without a 4-digit year.
pub fn pad_date(prefix: &str) -> Option<String> {
    let digits: String = prefix.chars().take(14).collect();
    if digits.len() < 4 || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let start = "00000101000000";
    Some(format!("{digits}{}", &start[digits.len()..]))
}

/// The version holding the capture nearest `date` (a prefix of 14 digits), with that
/// capture's date; `None` for an empty history or a date that is not one.
pub fn nearest_version<'a>(versions: &'a [Version], date: &str) -> Option<(&'a Version, String)> {
    let want = crate::reader::date::capture_micros(&pad_date(date)?, i64::MAX)?;
    versions
        .iter()
        .flat_map(|v| v.dates.iter().map(move |d| (v, d)))
        .filter_map(|(v, d)| {
            let at = crate::reader::date::capture_micros(d, i64::MAX)?;
            Some(((at - want).abs(), v, d))
        })
        .min_by_key(|(gap, _, d)| (*gap, (*d).clone()))
        .map(|(_, v, d)| (v, d.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_labelled_by_signature() {
        let words: Vec<String> = (0..300).map(|i| format!("w{i}")).collect();
        let text = words.join(" ");
        let a = Signature::of(&text, Some("T"));
        let mut other = text.clone();
        other.push_str(" one more");
        let b = Signature::of(&other, Some("T"));
        let c = Signature::of(&words[..100].join(" "), Some("T"));
        assert_eq!(Change::between(&a, &a), Change::Same);
        assert_eq!(Change::between(&a, &b), Change::Minor);
        assert_eq!(Change::between(&a, &c), Change::Major);
    }

    #[test]
    fn dates_are_padded_and_the_nearest_capture_found() {
        assert_eq!(pad_date("2025").as_deref(), Some("20250101000000"));
        assert_eq!(pad_date("20250307").as_deref(), Some("20250307000000"));
        assert_eq!(pad_date("202"), None);
        assert_eq!(pad_date("2025x"), None);
        let v = |digest: &str, dates: &[&str]| Version {
            url: "http://a/".into(),
            digest: digest.into(),
            dates: dates.iter().map(|d| d.to_string()).collect(),
            words: 0,
            changed: None,
            change: Change::First,
        };
        let versions = [
            v("A", &["20250301060000", "20250302060000"]),
            v("B", &["20250310060000"]),
        ];
        let (got, at) = nearest_version(&versions, "20250303").unwrap();
        assert_eq!((got.digest.as_str(), at.as_str()), ("A", "20250302060000"));
        let (got, at) = nearest_version(&versions, "2026").unwrap();
        assert_eq!((got.digest.as_str(), at.as_str()), ("B", "20250310060000"));
    }
}
