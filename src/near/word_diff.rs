//! What changed between two versions' texts, word by word: the runs of words
//! kept, removed and added, and the share of words changed.
//!
//! Words are runs of non-whitespace, as a reader sees them (punctuation stays on its
//! word). The diff is Myers' algorithm from the `similar` crate over word slices, with a
//! deadline: two long texts with nothing in common cannot take more than
//! [`DEADLINE`] (past it `similar` gives a coarser diff, still correct). Each text is cut
//! at [`MAX_WORDS`] words, and the result says so.

use std::time::{Duration, Instant};

use similar::{capture_diff_slices_deadline, Algorithm, DiffTag};

/// Words of each text compared, at most.
pub const MAX_WORDS: usize = 200_000;

/// Time a diff may take before it settles for a coarser one.
pub const DEADLINE: Duration = Duration::from_millis(500);

/// A run of words, kept, removed or added.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "op", content = "text", rename_all = "lowercase")]
pub enum WordRun {
    /// In both versions.
    Same(String),
    /// In the older version only.
    Removed(String),
    /// In the newer version only.
    Added(String),
}

/// The word-level difference of two texts.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct WordDiff {
    /// The runs, in the order of the texts (a removal before the addition that replaces it).
    pub runs: Vec<WordRun>,
    /// Words of the older text compared.
    pub old_words: usize,
    /// Words of the newer text compared.
    pub new_words: usize,
    /// Words removed.
    pub removed: usize,
    /// Words added.
    pub added: usize,
    /// Whether either text was cut at [`MAX_WORDS`].
    pub cut: bool,
}

impl WordDiff {
    /// The share of words changed, 0 to 1: removed and added words over the words of
    /// both texts (0 for two texts without words).
    pub fn share_changed(&self) -> f64 {
        let all = self.old_words + self.new_words;
        if all == 0 {
            0.0
        } else {
            (self.removed + self.added) as f64 / all as f64
        }
    }
}

/// The share as a reader reads it: `0 %` only for no change, `< 0.1 %` for a word in
/// many thousands, else one decimal under 10 % and none above.
pub fn percent(share: f64) -> String {
    let p = share * 100.0;
    if share <= 0.0 {
        "0 %".to_string()
    } else if p < 0.1 {
        "< 0.1 %".to_string()
    } else if p < 10.0 {
        format!("{p:.1} %")
    } else {
        format!("{p:.0} %")
    }
}

/// The word-level difference from `old` to `new`.
pub fn diff_words(old: &str, new: &str) -> WordDiff {
    let a: Vec<&str> = old.split_whitespace().take(MAX_WORDS + 1).collect();
    let b: Vec<&str> = new.split_whitespace().take(MAX_WORDS + 1).collect();
    let cut = a.len() > MAX_WORDS || b.len() > MAX_WORDS;
    let (a, b) = (&a[..a.len().min(MAX_WORDS)], &b[..b.len().min(MAX_WORDS)]);
    let ops = capture_diff_slices_deadline(Algorithm::Myers, a, b, Some(Instant::now() + DEADLINE));
    let mut diff = WordDiff {
        runs: Vec::new(),
        old_words: a.len(),
        new_words: b.len(),
        removed: 0,
        added: 0,
        cut,
    };
    for op in ops {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        let removed = || a[old_range.clone()].join(" ");
        let added = || b[new_range.clone()].join(" ");
        match tag {
            DiffTag::Equal => diff.runs.push(WordRun::Same(removed())),
            DiffTag::Delete => {
                diff.removed += old_range.len();
                diff.runs.push(WordRun::Removed(removed()));
            }
            DiffTag::Insert => {
                diff.added += new_range.len();
                diff.runs.push(WordRun::Added(added()));
            }
            DiffTag::Replace => {
                diff.removed += old_range.len();
                diff.added += new_range.len();
                diff.runs.push(WordRun::Removed(removed()));
                diff.runs.push(WordRun::Added(added()));
            }
        }
    }
    diff
}

/// The diff as text, as `git diff --word-diff` shows it: removed words in `[-…-]`,
/// added ones in `{+…+}`, the rest as it is, on one line.
pub fn word_diff_text(diff: &WordDiff) -> String {
    let mut out = String::new();
    for run in &diff.runs {
        if !out.is_empty() {
            out.push(' ');
        }
        match run {
            WordRun::Same(t) => out.push_str(t),
            WordRun::Removed(t) => {
                out.push_str("[-");
                out.push_str(t);
                out.push_str("-]");
            }
            WordRun::Added(t) => {
                out.push_str("{+");
                out.push_str(t);
                out.push_str("+}");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_sentence_is_removed_then_added() {
        let old = "The museum opens at nine. Tickets cost five euros. Closed on Mondays.";
        let new = "The museum opens at ten. Tickets cost five euros.\n  Closed on Mondays.";
        let d = diff_words(old, new);
        assert_eq!(
            d.runs,
            vec![
                WordRun::Same("The museum opens at".into()),
                WordRun::Removed("nine.".into()),
                WordRun::Added("ten.".into()),
                WordRun::Same("Tickets cost five euros. Closed on Mondays.".into()),
            ]
        );
        assert_eq!(
            (d.old_words, d.new_words, d.removed, d.added),
            (12, 12, 1, 1)
        );
        assert_eq!(d.share_changed(), 2.0 / 24.0);
        assert_eq!(percent(d.share_changed()), "8.3 %");
        assert_eq!(
            word_diff_text(&d),
            "The museum opens at [-nine.-] {+ten.+} Tickets cost five euros. Closed on Mondays."
        );
        assert!(!d.cut);
    }

    #[test]
    fn same_words_are_no_change_and_empty_texts_are_handled() {
        let d = diff_words("one  two\nthree", "one two three");
        assert_eq!(d.share_changed(), 0.0);
        assert_eq!(d.runs, vec![WordRun::Same("one two three".into())]);
        let e = diff_words("", "");
        assert_eq!((e.share_changed(), e.runs.len()), (0.0, 0));
        let all = diff_words("", "new words");
        assert_eq!(all.share_changed(), 1.0);
        assert_eq!(percent(0.0004), "< 0.1 %");
        assert_eq!(percent(0.25), "25 %");
    }
}
