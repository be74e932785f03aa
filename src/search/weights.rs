//! How a document's score is made: the weight of a word in each field, and the
//! per-document factor that the text score is multiplied by — the link-analysis prior and
//! the demotion of pages that are mostly link lists.
//!
//! The values were chosen on `scripts/eval-ranking.sh` (known-item and judged queries
//! against plain BM25; docs/ranking.md). `WARCDEX_RANK` overrides them for that script
//! only (`title=2,prior=0.1`), so that weights can be tried without a rebuild; nothing
//! else reads it.

use tantivy::{DocId, Score, SegmentReader};

use crate::schema::Fields;

/// The ranking's weights.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RankWeights {
    /// Weight of a word in the title.
    pub title: Score,
    /// In the anchor text of inbound links from other hosts.
    pub anchor: Score,
    /// In the anchor text of inbound links from the same host (0: not searched, as
    /// Nutch ignores them).
    pub anchor_internal: Score,
    /// In the URL.
    pub url: Score,
    /// In the visible text.
    pub content: Score,
    /// In the main content, on top of `content`.
    pub main: Score,
    /// A match of the word's stem.
    pub stem: Score,
    /// Exponent of the link-analysis boost in the factor (1: NutchWAX's score × boost).
    pub prior: Score,
    /// The boost is capped here before the exponent, so that no page's links lift it
    /// more than `cap ^ prior` times.
    pub prior_cap: Score,
    /// Exponent of the main content's share of the text: a page whose words are mostly
    /// in link lists and navigation (an index, a table of contents) has a small share.
    pub listness: Score,
    /// Weight of the query's words found together, in order, in the title (a phrase
    /// query on `title` added to the words'); 0: none.
    pub title_phrase: Score,
    /// Factor of a document that is not an HTML page (a PDF, a plain-text source of a
    /// page, an image): 1 ranks every type alike.
    pub not_html: Score,
    /// A query of at least this many words matches a document that has all but
    /// `may_miss` of them (0: every word is required, as in Nutch).
    pub relax_from: Score,
    /// How many of the words of such a query a document may lack.
    pub may_miss: Score,
    /// In a relaxed query, a document with every word scores `1 + all_words` times its
    /// score (Lucene's old coordination factor, in one step).
    pub all_words: Score,
    /// A word found in several fields scores its best field's score plus `tie` times
    /// the others' (1: their sum).
    pub tie: Score,
    /// A search that finds nothing is asked again with fewer words required (1), or not
    /// (0: an empty answer, as before issue 61).
    pub fallback: Score,
    /// BM25's saturation `k1` of a word scored over all its fields at once (BM25F,
    /// `fields_bm25.rs`: each field's occurrences weighed by the field's weight and
    /// saturated together); 0: each field scored alone and the scores summed.
    pub fields_k1: Score,
    /// With `fields_k1`, the length normalisation `b` of the text (`content`) field (the
    /// other fields keep tantivy's 0.75): 1 weighs a word's occurrences against the page's
    /// whole length, which finds a page by its rarest words a little more often and costs
    /// the judged topics more (docs/ranking.md); kept at 0.75.
    pub content_b: Score,
    /// With `fields_k1`, the title's own BM25 of a word added to its combined score,
    /// times this (0: none).
    pub title_apart: Score,
    /// The same for the URL.
    pub url_apart: Score,
    /// Weight of the query's words all found in the title, in any order; 0: none.
    pub title_all: Score,
    /// The same in the URL.
    pub url_all: Score,
    /// The same in the anchor text of links from other hosts.
    pub anchor_all: Score,
    /// The same in the anchor text of links within a host.
    pub anchor_internal_all: Score,
}

/// What ranking used before field weights were tuned: Nutch's field weights, score × boost.
pub(crate) const NUTCH_WEIGHTS: RankWeights = RankWeights {
    title: 1.5,
    anchor: 2.0,
    anchor_internal: 0.0,
    url: 1.0,
    content: 1.0,
    main: 1.0,
    stem: 0.5,
    prior: 1.0,
    prior_cap: Score::INFINITY,
    listness: 0.0,
    title_phrase: 0.0,
    not_html: 1.0,
    relax_from: 0.0,
    may_miss: 0.0,
    all_words: 0.0,
    tie: 1.0,
    fallback: 0.0,
    fields_k1: 0.0,
    content_b: 0.75,
    title_apart: 0.0,
    url_apart: 0.0,
    title_all: 0.0,
    url_all: 0.0,
    anchor_all: 0.0,
    anchor_internal_all: 0.0,
};

/// The weights ranking uses, chosen on the evaluation (docs/ranking.md has each one's
/// figure). A word is scored over all its fields at once (BM25F, issue 61): the title
/// counts as six occurrences of it, the URL four, the anchor text of links from other
/// hosts twelve, that of links within a host 0.3, the text one; a title (URL, anchor text)
/// holding every word of the query adds its own score a quarter over, and its words in the
/// reader's order more. The main-content field, the stems and the link-analysis prior
/// earned nothing on it and are off; pages that are not HTML (the plain-text sources of
/// pages, mostly) rank below the page.
pub(crate) const DEFAULT_WEIGHTS: RankWeights = RankWeights {
    title: 6.0,
    anchor: 12.0,
    anchor_internal: 0.3,
    url: 4.0,
    content: 1.0,
    main: 0.0,
    stem: 0.0,
    prior: 0.0,
    prior_cap: Score::INFINITY,
    listness: 0.0,
    title_phrase: 2.0,
    not_html: 0.7,
    relax_from: 3.0,
    may_miss: 1.0,
    all_words: 1.0,
    tie: 1.0,
    fallback: 1.0,
    fields_k1: 1.2,
    content_b: 0.75,
    title_apart: 0.0,
    url_apart: 0.0,
    title_all: 0.25,
    url_all: 0.25,
    anchor_all: 0.25,
    anchor_internal_all: 0.25,
};

impl RankWeights {
    /// The default weights with `WARCDEX_RANK`'s `name=value` pairs applied in order
    /// (`nutch` stands for every weight of [`NUTCH_WEIGHTS`]); a pair that does not parse
    /// is reported and ignored.
    pub(crate) fn from_env() -> RankWeights {
        let mut w = DEFAULT_WEIGHTS;
        if let Ok(spec) = std::env::var("WARCDEX_RANK") {
            for pair in spec.split(',').filter(|p| !p.trim().is_empty()) {
                if let Err(e) = w.set(pair) {
                    eprintln!("warcdex: WARCDEX_RANK: {e}");
                }
            }
        }
        w
    }

    fn set(&mut self, pair: &str) -> Result<(), String> {
        if pair.trim() == "nutch" {
            *self = NUTCH_WEIGHTS;
            return Ok(());
        }
        let (name, value) = pair
            .split_once('=')
            .ok_or(format!("{pair:?}: not NAME=VALUE"))?;
        let v: Score = value
            .trim()
            .parse()
            .map_err(|_| format!("{pair:?}: not a number"))?;
        let slot = match name.trim() {
            "title" => &mut self.title,
            "anchor" => &mut self.anchor,
            "anchor_internal" => &mut self.anchor_internal,
            "url" => &mut self.url,
            "content" => &mut self.content,
            "main" => &mut self.main,
            "stem" => &mut self.stem,
            "prior" => &mut self.prior,
            "prior_cap" => &mut self.prior_cap,
            "listness" => &mut self.listness,
            "title_phrase" => &mut self.title_phrase,
            "not_html" => &mut self.not_html,
            "relax_from" => &mut self.relax_from,
            "may_miss" => &mut self.may_miss,
            "all_words" => &mut self.all_words,
            "tie" => &mut self.tie,
            "fallback" => &mut self.fallback,
            "fields_k1" => &mut self.fields_k1,
            "content_b" => &mut self.content_b,
            "title_apart" => &mut self.title_apart,
            "url_apart" => &mut self.url_apart,
            "title_all" => &mut self.title_all,
            "url_all" => &mut self.url_all,
            "anchor_all" => &mut self.anchor_all,
            "anchor_internal_all" => &mut self.anchor_internal_all,
            other => return Err(format!("{other:?}: no such weight")),
        };
        *slot = v;
        Ok(())
    }

    /// The weight of a word in the query field `name` (`title`, `content`, `anchor`, `url`).
    pub(crate) fn field(&self, name: &str) -> Score {
        match name {
            "title" => self.title,
            "anchor" => self.anchor,
            "url" => self.url,
            _ => self.content,
        }
    }

    /// How many of `n` required words a document must have: all, or all but
    /// `may_miss` from `relax_from` words on (at least one).
    pub(crate) fn required_of(&self, n: usize) -> usize {
        if self.relax_from < 1.0 || (n as Score) < self.relax_from {
            return n;
        }
        n.saturating_sub(self.may_miss.max(0.0) as usize).max(1)
    }

    /// Each document's factor: `min(boost, cap) ^ prior × share ^ listness`, where
    /// `boost` is the link-analysis boost (`None`: an index without the column, 1) and
    /// `share` the main content's words over the text's (1 without a main field).
    /// `None` when every factor would be 1.
    pub(crate) fn factors(
        &self,
        seg: &SegmentReader,
        fields: &Fields,
        boost: Option<&[Score]>,
        is_html: impl Fn(DocId) -> bool,
        docs: u32,
    ) -> tantivy::Result<Option<Vec<Score>>> {
        let boosted = boost.is_some() && self.prior != 0.0;
        let typed = self.not_html != 1.0;
        let shares = match fields.main {
            Some(main) if self.listness != 0.0 => Some((
                seg.get_fieldnorms_reader(fields.content)?,
                seg.get_fieldnorms_reader(main)?,
            )),
            _ => None,
        };
        if !boosted && shares.is_none() && !typed {
            return Ok(None);
        }
        let factor = |d: DocId| -> Score {
            let mut f = 1.0;
            if let (true, Some(b)) = (boosted, boost) {
                let b = b.get(d as usize).copied().unwrap_or(1.0);
                f *= b.min(self.prior_cap).powf(self.prior);
            }
            if let Some((content, main)) = &shares {
                let (c, m) = (content.fieldnorm(d), main.fieldnorm(d));
                // A document without text has nothing to demote.
                let share = if c == 0 {
                    1.0
                } else {
                    (m as Score / c as Score).min(1.0)
                };
                // A floor, so that a page of nothing but links still ranks by its text.
                f *= share.max(0.05).powf(self.listness);
            }
            if typed && !is_html(d) {
                f *= self.not_html;
            }
            f
        };
        Ok(Some((0..docs).map(factor).collect()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_override_named_weights_and_bad_ones_are_refused() {
        let mut w = DEFAULT_WEIGHTS;
        w.set("title=3").unwrap();
        w.set(" prior = 0.25").unwrap();
        assert_eq!((w.title, w.prior), (3.0, 0.25));
        assert!(w.set("nosuch=1").is_err());
        assert!(w.set("title").is_err());
        assert!(w.set("title=x").is_err());
        assert_eq!(w.field("anchor"), w.anchor);
        assert_eq!(w.field("content"), w.content);
        w.set("nutch").unwrap();
        assert_eq!(w, NUTCH_WEIGHTS);
    }
}
