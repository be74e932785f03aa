//! Ranking: the query parsed for each set with its filters as constant-score clauses,
//! the term statistics summed over the live sets, and each live set searched with the
//! collector (`collect.rs`), its candidates merged across sets (`select.rs`).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use tantivy::query::{
    AllQuery, BooleanQuery, BoostQuery, ConstScoreQuery, DisjunctionMaxQuery, Occur, PhraseQuery,
    Query, TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::Term;

use super::access_view::SetView;
use super::collect::{Fruit, TopFiltered};
use super::every_word::EveryWordQuery;
use super::facets::{FacetSources, Tally};
use super::fields_bm25::{by_combined_fields, FieldsTermQuery};
use super::near::NearDisplay;
use super::query::{self, ParsedQuery, QueryError};
use super::select::{select, HitSelection, Short};
use super::set::OpenSet;
use super::stats::{Statistics, TermStats};
use super::weights::RankWeights;
use super::{HitOrder, SearchError, SearchIndex};
use tantivy::Score;

impl SearchIndex {
    /// The query parsed for every set: its words alone (none without words), and the
    /// whole query with the filters. With `views`, a set's documents whose anchors come
    /// from pages hidden from the asker are matched and scored without their anchors.
    #[allow(clippy::type_complexity)]
    pub(super) fn queries(
        &self,
        parsed: &ParsedQuery,
        views: Option<&[SetView]>,
    ) -> Result<(Vec<Option<Box<dyn Query>>>, Vec<Box<dyn Query>>), SearchError> {
        let mut text_queries = Vec::with_capacity(self.sets.len());
        let mut queries = Vec::with_capacity(self.sets.len());
        for (i, s) in self.sets.iter().enumerate() {
            let (text, full) = set_query(s, &s.parser, parsed, true)?;
            let hidden = views.and_then(|v| v.get(i)?.anchors_hidden.clone());
            let full = match hidden {
                None => full,
                Some(bits) => {
                    let (_, without) = set_query(s, &s.parser_without_anchors, parsed, false)?;
                    let docs = || Box::new(super::doc_bits::DocBitsQuery::new(bits.clone()));
                    Box::new(BooleanQuery::new(vec![
                        (
                            Occur::Should,
                            Box::new(BooleanQuery::new(vec![
                                (Occur::Must, full),
                                (Occur::MustNot, docs() as Box<dyn Query>),
                            ])) as Box<dyn Query>,
                        ),
                        (
                            Occur::Should,
                            Box::new(BooleanQuery::new(vec![
                                (Occur::Must, without),
                                (
                                    Occur::Must,
                                    Box::new(ConstScoreQuery::new(docs(), 0.0)) as Box<dyn Query>,
                                ),
                            ])),
                        ),
                    ]))
                }
            };
            queries.push(full);
            text_queries.push(text);
        }
        Ok((text_queries, queries))
    }

    /// Each set's documents the query may find (`None`: all): those shown to the asker
    /// (`views`), in the query's `date:` ranges, live at its `as-of:`.
    pub(super) fn filters(&self, parsed: &ParsedQuery, views: &[SetView]) -> Vec<DocFilter> {
        let as_of = (parsed.as_of)
            .map(|at| super::as_of::live_versions(&self.sets, views, |i| self.live(i), at));
        (self.sets.iter().zip(views.iter()).enumerate())
            .map(|(i, (s, v))| {
                let found = date_filter(s, v, parsed);
                let found = match collection_filter(s, parsed) {
                    None => found,
                    Some(c) => Some(Arc::new(both(found.as_deref(), &c))),
                };
                match &as_of {
                    None => found,
                    Some(live) => Some(Arc::new(both(found.as_deref(), &live[i]))),
                }
            })
            .collect()
    }

    /// The statistics of the queries' terms summed over the live sets, as `views` show
    /// them: a hidden version counts in no number (a count of a word only hidden pages
    /// hold would tell it is there).
    pub(super) fn live_stats(
        &self,
        queries: &[Box<dyn Query>],
        views: &[SetView],
    ) -> Result<TermStats, SearchError> {
        let mut stats = TermStats::default();
        for (i, s) in self.sets.iter().enumerate() {
            if !self.live(i) {
                continue;
            }
            let view = &views[i];
            catch_unwind(AssertUnwindSafe(|| match view.visible {
                None => stats.add_set(&s.searcher, &*queries[i]),
                Some(_) => stats.add_set_shown(&s.searcher, &*queries[i], &|d| view.shows(d)),
            }))
            .map_err(|p| self.after_panic(i, "reading term statistics", &*p))??;
        }
        Ok(stats)
    }

    /// Ranks the documents matching `query` in every live set, scored with `given`
    /// statistics or else with those of the sets searched here, and keeps the best
    /// `need` under the per-site limit.
    ///
    /// Each set keeps its best `need` candidates (at most `per_site` of a site) at
    /// first. When hits are folded together that may be too few (`select.rs`, `select`):
    /// then the sets are searched again keeping twice as many (of each site, when a
    /// site's were too few), until the walk is exact. The first search is enough unless
    /// two candidates of one set fold into one hit (two groups of a URL near one version
    /// in another set), or mirrors fold (`collapse=near`).
    pub(super) fn rank(
        &self,
        query: &str,
        hits_per_site: usize,
        need: usize,
        given: Option<&TermStats>,
        shape: Shape,
    ) -> Result<Ranking, SearchError> {
        let Shape {
            near,
            order,
            views,
            min_words,
        } = shape;
        let mut parsed = query::parse(query)?;
        parsed.min_words = min_words;
        let views = super::access_view::as_of(views, parsed.as_of);
        let per_site = if parsed.has_site_filter() {
            0
        } else {
            hits_per_site
        };
        let (text_queries, queries) = self.queries(&parsed, Some(&views))?;
        let stats = match given {
            Some(s) => s.clone(),
            // One set scores with its own statistics, which is what `Statistics` falls
            // back to for what the sums do not name: summing them first only looked
            // every term up twice (2 % of a loaded server's cycles).
            None if self.live_count() == 1 && views.iter().all(|v| v.visible.is_none()) => {
                TermStats::default()
            }
            None => self.live_stats(&queries, &views)?,
        };
        let orders = match order {
            HitOrder::Relevance => vec![None; self.sets.len()],
            o => super::as_of::date_orders(&self.sets, &views, |i| self.live(i), o, parsed.as_of),
        };
        let date_filters = self.filters(&parsed, &views);
        let mut keep = Keep {
            limit: need,
            // A limit of `need` or more per site can never leave a hit out.
            per_site: if per_site >= need { 0 } else { per_site },
        };
        loop {
            let (total, per_set) = self.collect(
                &queries,
                &stats,
                (&date_filters, &views, &orders),
                keep,
                per_site,
                near,
            )?;
            let selection = select(&self.sets, &per_set, per_site, need, near);
            match selection.short {
                Some(Short::Site) if keep.per_site > 0 => keep.per_site *= 2,
                Some(_) => keep.limit = keep.limit.saturating_mul(2),
                None => {
                    let mut tally = Tally::default();
                    for (i, fruit) in per_set.iter().enumerate() {
                        tally.add_set(&self.sets[i], &fruit.tally);
                    }
                    return Ok(Ranking {
                        per_site,
                        total,
                        tally,
                        selection,
                        text_queries,
                        queries,
                        date_filters,
                        stats,
                        views,
                    });
                }
            }
            if keep.per_site >= keep.limit {
                keep.per_site = 0;
            }
        }
    }

    /// Searches every live set with the collector keeping `keep`: the documents matching
    /// and each set's fruit (empty for a set not searched).
    fn collect(
        &self,
        queries: &[Box<dyn Query>],
        stats: &TermStats,
        (date_filters, views, orders): (&[DocFilter], &[SetView], &[DocScores]),
        keep: Keep,
        per_site: usize,
        near: NearDisplay,
    ) -> Result<(u64, Vec<Fruit>), SearchError> {
        let mut total = 0;
        let mut per_set = Vec::with_capacity(self.sets.len());
        for (i, s) in self.sets.iter().enumerate() {
            if !self.live(i) {
                per_set.push(Fruit::default());
                continue;
            }
            let collector = TopFiltered {
                limit: keep.limit,
                per_site: keep.per_site,
                report_over: per_site,
                filter: date_filters[i].clone(),
                site_of: s.site_of.clone(),
                near: (!near.show_versions).then(|| s.near.clone()).flatten(),
                dates: s.dates.clone(),
                factor: s.factor.clone(),
                order: orders[i].clone(),
                // One set, hits not folded: `select` takes the best `need` and no more.
                prune: self.sets.len() == 1 && !near.collapse_urls,
                facets: Some(Arc::new(FacetSources {
                    site_of: s.site_of.clone(),
                    type_of: s.type_of.clone(),
                    lang_of: s.lang_of.clone(),
                    collections: s.collections.clone(),
                    dates: views[i].dates.clone(),
                })),
            };
            let statistics = Statistics {
                stats,
                searcher: &s.searcher,
            };
            let fruit = catch_unwind(AssertUnwindSafe(|| {
                s.searcher
                    .search_with_statistics_provider(&*queries[i], &collector, &statistics)
            }))
            .map_err(|p| self.after_panic(i, "a search", &*p))??;
            total += fruit.count;
            per_set.push(fruit);
        }
        Ok((total, per_set))
    }
}

/// A set's documents a query may find, a bit per DocId (`None`: all of them).
type DocFilter = Option<Arc<Vec<u64>>>;

/// A set's documents' scores in an order by date (`None`: ranked by relevance).
type DocScores = Option<Arc<Vec<Score>>>;

/// What a search shows besides its query: near-duplicates, the order, and each set as
/// the asker may see it.
pub(super) struct Shape {
    pub(super) near: NearDisplay,
    pub(super) order: HitOrder,
    pub(super) views: Arc<Vec<SetView>>,
    /// The words a document must hold, when a search that found nothing is relaxed.
    pub(super) min_words: Option<usize>,
}

/// How many candidates each set's collector keeps.
#[derive(Debug, Clone, Copy)]
struct Keep {
    /// The best this many.
    limit: usize,
    /// Each site's best this many (0: no site kept apart).
    per_site: usize,
}

/// A search ranked over the live sets, before its hits are read.
pub(super) struct Ranking {
    /// The per-site limit applied (0 with `site:`).
    pub(super) per_site: usize,
    /// Documents matching.
    pub(super) total: u64,
    /// Their facet and timeline counts.
    pub(super) tally: Tally,
    pub(super) selection: HitSelection,
    /// Each set's parse of the query's words.
    pub(super) text_queries: Vec<Option<Box<dyn Query>>>,
    /// Each set's whole query, filters included.
    pub(super) queries: Vec<Box<dyn Query>>,
    /// Each set's documents in the query's date ranges (`None`: no `date:`).
    pub(super) date_filters: Vec<Option<Arc<Vec<u64>>>>,
    /// The statistics the documents were scored with.
    pub(super) stats: TermStats,
    /// Each set as the asker may see it (the access rules).
    pub(super) views: Arc<Vec<SetView>>,
}

/// Whether `q` is one field's match of a word: a term or phrase, weighted or not.
fn field_leaf(q: &dyn Query) -> bool {
    let q = match q.downcast_ref::<BoostQuery>() {
        Some(_) => return true,
        None => q,
    };
    q.downcast_ref::<TermQuery>().is_some() || q.downcast_ref::<PhraseQuery>().is_some()
}

/// A word's match in several fields scored as its best field plus `tie` times the others
/// (a disjunction-max), instead of their sum: a word in the title, the URL and the text
/// of one page counted three times over. The parser makes each word a disjunction of its
/// fields' terms; `tie` 1 leaves it as it is.
fn by_best_field(q: Box<dyn Query>, tie: f32) -> Box<dyn Query> {
    if tie >= 1.0 {
        return q;
    }
    let Some(b) = q.downcast_ref::<BooleanQuery>() else {
        return q;
    };
    let clauses = b.clauses();
    let word = clauses.len() > 1
        && clauses
            .iter()
            .all(|(o, c)| *o == Occur::Should && field_leaf(&**c));
    if word {
        let fields = clauses.iter().map(|(_, c)| c.box_clone()).collect();
        return Box::new(DisjunctionMaxQuery::with_tie_breaker(fields, tie));
    }
    let words = clauses
        .iter()
        .map(|(o, c)| (*o, by_best_field(c.box_clone(), tie)))
        .collect();
    Box::new(BooleanQuery::with_minimum_required_clauses(
        words,
        b.get_minimum_number_should_match(),
    ))
}

/// The parsed words with all but [`RankWeights::required_of`] of them required: a long
/// query (`how to vacuum a table`) matches a page that lacks a word or two of it, which
/// a reader's own words often do. Only a query of words (each clause required or
/// excluded) is relaxed; each word a page has still adds to its score, so pages with
/// every word rank first among equals.
///
/// `min_words`, when a search that found nothing is asked again, is how many words a page
/// must hold instead (fewer than the weights say; two-word queries too).
fn relaxed(q: Box<dyn Query>, weights: &RankWeights, min_words: Option<usize>) -> Box<dyn Query> {
    let Some(b) = q.downcast_ref::<BooleanQuery>() else {
        return q;
    };
    let clauses = b.clauses();
    let required = clauses.iter().filter(|(o, _)| *o == Occur::Must).count();
    let need = match min_words {
        Some(k) => k.clamp(1, required.max(1)),
        None => weights.required_of(required),
    };
    if need == required || clauses.iter().any(|(o, _)| *o == Occur::Should) {
        return q;
    }
    let relaxed = clauses
        .iter()
        .map(|(o, c)| match o {
            Occur::Must => (Occur::Should, c.box_clone()),
            o => (*o, c.box_clone()),
        })
        .collect();
    let relaxed = Box::new(BooleanQuery::with_minimum_required_clauses(relaxed, need));
    if weights.all_words <= 0.0 {
        return relaxed;
    }
    // The words all required, scored again: a page with every word adds its score once
    // more (times `all_words`), so it ranks above pages that lack one.
    let all = Box::new(BoostQuery::new(q, weights.all_words));
    Box::new(BooleanQuery::new(vec![
        (Occur::Must, relaxed),
        (Occur::Should, all),
    ]))
}

/// The query's words as a phrase on the title, weighted `weight`, when the query is
/// words and phrases (no exclusion, field or operator) of at least two words: the page
/// whose title holds the words in the reader's order is most often the one named. The
/// phrase is made of the letters and digits alone, so no character of the query is read
/// as the parser's syntax (`java.util.List` is the phrase `java util list`).
fn title_phrase(text: &str, weight: f32) -> Option<String> {
    if weight <= 0.0 {
        return None;
    }
    let words = plain_words(text, 2)?;
    Some(format!("title:\"{}\"^{weight}", words.join(" ")))
}

/// The query's words each required in `field`, in any order (`title:a title:b`, the
/// parser requiring every word), for a query of words: a title (a URL, an anchor text)
/// that holds every word the reader gave names the page, even where a word the reader left
/// out breaks the phrase. With words scored over all their fields at once
/// (`fields_bm25.rs`) a match in a short field weighs less than in a sum of fields; this
/// gives it back for the query that names a title, without taking it from the query of a
/// page's words (four words a text repeats are seldom all in its title).
fn all_in_field(text: &str, field: &str, weight: f32) -> Option<String> {
    if weight <= 0.0 {
        return None;
    }
    let words = plain_words(text, 1)?;
    Some(
        words
            .iter()
            .map(|w| format!("{field}:{w}"))
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// The letters-and-digits words of a query of words (no exclusion, field or operator) of
/// at least `least` words; `None` otherwise.
fn plain_words(text: &str, least: usize) -> Option<Vec<&str>> {
    let syntax = |t: &str| {
        t.starts_with(['-', '+'])
            || (!t.starts_with('"') && t.contains(':'))
            || matches!(t, "AND" | "OR" | "NOT" | "IN")
    };
    if text.split_whitespace().any(syntax) {
        return None;
    }
    let words: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    (words.len() >= least).then_some(words)
}

/// The tantivy query for a set: the words (or every document) with the filters as
/// constant-score (score 0) clauses, so filters never change the ranking.
fn full_query(s: &OpenSet, p: &ParsedQuery, text: Option<Box<dyn Query>>) -> Box<dyn Query> {
    let main: Box<dyn Query> = text.unwrap_or_else(|| Box::new(AllQuery));
    if p.filters.is_empty() && p.excluded.is_empty() {
        return main;
    }
    let schema = s.index.schema();
    let term = |f: query::FilterField, v: &str| -> Box<dyn Query> {
        match schema.get_field(f.field_name()) {
            Ok(field) => Box::new(TermQuery::new(
                Term::from_field_text(field, v),
                IndexRecordOption::Basic,
            )),
            // `lang:` on an index built before languages were: no document has one.
            Err(_) => Box::new(tantivy::query::EmptyQuery),
        }
    };
    // `type:image` (no `/`) is every type of the set under `image/`, as well as the type
    // `image` itself: the indexed value is the whole MIME type, so a term query on
    // `image` silently matched nothing. The set's types are few (one term each).
    let values = |f: query::FilterField, v: &str| -> Vec<String> {
        let mut all = vec![v.to_string()];
        if f == query::FilterField::Type && !v.contains('/') {
            let under = format!("{v}/");
            all.extend(
                s.type_names
                    .iter()
                    .filter(|t| t.starts_with(&under))
                    .cloned(),
            );
        }
        all
    };
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, main)];
    // `collection:` is a filter of DocIds (`collection_filter`): a version belongs to
    // every collection it was captured in, which main's one value does not tell.
    for f in [
        query::FilterField::Site,
        query::FilterField::Type,
        query::FilterField::Lang,
    ] {
        let alternatives: Vec<(Occur, Box<dyn Query>)> = p
            .filters
            .iter()
            .filter(|(g, _)| *g == f)
            .flat_map(|(_, v)| values(f, v))
            .map(|v| (Occur::Should, term(f, &v)))
            .collect();
        if !alternatives.is_empty() {
            clauses.push((
                Occur::Must,
                Box::new(ConstScoreQuery::new(
                    Box::new(BooleanQuery::new(alternatives)),
                    0.0,
                )),
            ));
        }
    }
    for (f, v) in p
        .excluded
        .iter()
        .filter(|(f, _)| *f != query::FilterField::Collection)
    {
        for v in values(*f, v) {
            clauses.push((Occur::MustNot, term(*f, &v)));
        }
    }
    Box::new(BooleanQuery::new(clauses))
}

/// One set's query parsed by `parser`: its words alone (none without words) and the
/// whole query with the filters.
#[allow(clippy::type_complexity)]
fn set_query(
    s: &OpenSet,
    parser: &tantivy::query::QueryParser,
    parsed: &ParsedQuery,
    anchors: bool,
) -> Result<(Option<Box<dyn Query>>, Box<dyn Query>), SearchError> {
    let one_word = plain_words(&parsed.text, 1).is_some_and(|w| w.len() == 1);
    let text = match parsed.text.is_empty() {
        true => None,
        false => {
            let words = by_best_field(
                parser.parse_query(&parsed.text).map_err(|e| {
                    QueryError(format!("cannot read the query {:?}: {e}", parsed.text))
                })?,
                s.weights.tie,
            );
            let words = match s.weights.fields_k1 > 0.0 {
                true => {
                    let apart = match one_word {
                        true => &s.apart_one_word,
                        false => &s.apart,
                    };
                    by_combined_fields(words, &s.boosts, apart, &s.lengths, s.weights.fields_k1)
                }
                false => words,
            };
            Some(relaxed(words, &s.weights, parsed.min_words))
        }
    };
    // A one-word query's every-word clauses are the word's own score in each field:
    // folded into its one scorer above (five scorers were 8 % of a plain search on the 1M
    // collection).
    let folded =
        one_word && (text.as_ref()).is_some_and(|t| t.downcast_ref::<FieldsTermQuery>().is_some());
    let scored = text.as_ref().map(|t| {
        let mut title: Vec<Box<dyn Query>> = Vec::new();
        let phrase = title_phrase(&parsed.text, s.weights.title_phrase);
        title.extend(phrase.and_then(|p| parser.parse_query(&p).ok()));
        let is_anchor = |f: Field| f == s.fields.anchor || Some(f) == s.fields.anchor_internal;
        let every: Vec<(&str, Field, Score)> = (s.every_word.iter().copied())
            .filter(|(_, f, _)| !folded && (anchors || !is_anchor(*f)))
            .collect();
        // Every word required, each one term over its fields: the every-word bonuses are
        // scored in the same pass (`every_word.rs`).
        // Only for a query of plain words, as the separate clauses were (`all_in_field`):
        // `+a +b` and `a AND b` have none.
        let one = (plain_words(&parsed.text, 2).is_some())
            .then(|| every_word_in_one_pass(&**t, &every, s))
            .flatten();
        // With the bonuses in that pass, no separate every-word clause is added below.
        let every = if one.is_some() { Vec::new() } else { every };
        let t: &dyn Query = one.as_deref().unwrap_or(&**t);
        for (field, _, weight) in every {
            let all = all_in_field(&parsed.text, field, weight);
            title.extend(
                all.and_then(|a| parser.parse_query(&a).ok())
                    .map(|a| Box::new(BoostQuery::new(a, weight)) as Box<dyn Query>),
            );
        }
        match title.is_empty() {
            true => t.box_clone(),
            false => {
                let mut clauses = vec![(Occur::Must, t.box_clone())];
                clauses.extend(title.into_iter().map(|q| (Occur::Should, q)));
                Box::new(BooleanQuery::new(clauses)) as Box<dyn Query>
            }
        }
    });
    let full = full_query(s, parsed, scored);
    Ok((text, full))
}

/// `text` as one conjunction scoring the every-word bonuses of `every` (name, field,
/// weight) as it goes, when it is every word required and each word one term over its
/// fields (a query of plain words not relaxed); `None` otherwise.
fn every_word_in_one_pass(
    text: &dyn Query,
    every: &[(&str, Field, Score)],
    s: &OpenSet,
) -> Option<Box<dyn Query>> {
    if every.is_empty() {
        return None;
    }
    let b = text.downcast_ref::<BooleanQuery>()?;
    if b.clauses().len() < 2 {
        return None;
    }
    let words = (b.clauses().iter())
        .map(|(o, q)| match o {
            Occur::Must => q.downcast_ref::<FieldsTermQuery>(),
            _ => None,
        })
        .collect::<Option<Vec<&FieldsTermQuery>>>()?;
    // As the separate clause weighs it: the clause's weight times the field's boost.
    let fields: Vec<(Field, Score)> = (every.iter())
        .map(|&(_, f, w)| (f, w * s.boosts.get(&f).copied().unwrap_or(0.0)))
        .collect();
    Some(Box::new(EveryWordQuery::new(&words, &fields)))
}

/// The documents of a set in the query's `collection:` values (any of them) and in none
/// of its `-collection:` values, a bit per DocId; `None` without either.
fn collection_filter(s: &OpenSet, p: &ParsedQuery) -> Option<Vec<u64>> {
    let is_collection =
        |(f, _): &&(query::FilterField, String)| *f == query::FilterField::Collection;
    let wanted: Vec<Option<u32>> = (p.filters.iter().filter(is_collection))
        .map(|(_, v)| s.collections.id(v))
        .collect();
    let unwanted: Vec<u32> = (p.excluded.iter().filter(is_collection))
        .filter_map(|(_, v)| s.collections.id(v))
        .collect();
    if wanted.is_empty() && unwanted.is_empty() {
        return None;
    }
    let mut bits = vec![0u64; (s.docs as usize).div_ceil(64)];
    for d in 0..s.docs {
        let of = s.collections.of(d);
        let keep = (wanted.is_empty() || wanted.iter().flatten().any(|w| of.contains(w)))
            && !unwanted.iter().any(|u| of.contains(u));
        if keep {
            bits[d as usize / 64] |= 1 << (d % 64);
        }
    }
    Some(bits)
}

/// The documents in both `a` (`None`: all) and `b`.
fn both(a: Option<&Vec<u64>>, b: &[u64]) -> Vec<u64> {
    match a {
        None => b.to_vec(),
        Some(a) => a.iter().zip(b).map(|(x, y)| x & y).collect(),
    }
}

/// The documents of a set the query may find, a bit per DocId: those with a capture
/// shown to the asker and, with `date:`, a capture date in one of its ranges; `None`
/// when every document may be found.
fn date_filter(s: &OpenSet, view: &SetView, p: &ParsedQuery) -> Option<Arc<Vec<u64>>> {
    if p.dates.is_empty() {
        return view.visible.clone();
    }
    let mut bits = vec![0u64; (s.docs as usize).div_ceil(64)];
    for r in &p.dates {
        view.dates.mark_range(r.from, r.to, &mut bits);
    }
    // The view's dates are the shown captures' only, so a document marked is visible.
    Some(Arc::new(bits))
}

#[cfg(test)]
mod tests {
    use super::{all_in_field, title_phrase};

    /// Every word of a query of words, one word too, required in the field; nothing for
    /// a query with syntax or a weight of 0.
    #[test]
    fn every_word_in_a_field_is_each_word_on_the_field() {
        assert_eq!(
            all_in_field("java.util \"array list\"", "title", 0.25).as_deref(),
            Some("title:java title:util title:array title:list")
        );
        assert_eq!(
            all_in_field("OutputStream", "url", 0.25).as_deref(),
            Some("url:OutputStream")
        );
        for none in ["a -b", "title:a b", "a OR b", "+a b", "..."] {
            assert_eq!(all_in_field(none, "title", 0.25), None, "{none}");
        }
        assert_eq!(all_in_field("a b", "title", 0.0), None);
    }

    #[test]
    fn the_title_phrase_is_the_words_of_a_query_of_words() {
        assert_eq!(
            title_phrase("java.util \"array list\"", 2.0).as_deref(),
            Some("title:\"java util array list\"^2")
        );
        assert_eq!(
            title_phrase("\"os.path.join()\"", 2.0).as_deref(),
            Some("title:\"os path join\"^2")
        );
        assert_eq!(
            title_phrase("\"http://a.org/x\" y", 1.0).as_deref(),
            Some("title:\"http a org x y\"^1")
        );
        for none in ["vacuum", "a -b", "title:a b", "a OR b", "+a b"] {
            assert_eq!(title_phrase(none, 2.0), None, "{none}");
        }
        assert_eq!(title_phrase("a b", 0.0), None);
    }
}
