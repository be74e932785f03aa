//! One parallel set (`pindexes/<name>/{main,dates}`) opened for searching: the searcher
//! over main, kept for the life of the process, and two small in-memory tables read
//! once from the inverted indexes: every document's capture dates and its site.
//!
//! Both tables come from term dictionaries and posting lists, not stored documents, so
//! opening reads a few bytes per document instead of decompressing every page's text.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tantivy::columnar::StrColumn;
use tantivy::directory::OwnedBytes;
use tantivy::query::QueryParser;
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocAddress, DocId, DocSet, Index, Score, Searcher, TantivyDocument, TERMINATED};

use super::query::TEXT_FIELDS;
use super::stored::{HitStore, ShownFields};
use super::url_table::UrlTable;
use super::weights::RankWeights;
use crate::path_error::ResultAtPath;
use crate::pindex;
use crate::schema::Fields;

/// Whether `field` has any term in the set.
fn has_terms(searcher: &Searcher, field: Field) -> bool {
    searcher.segment_readers().iter().any(|s| {
        s.inverted_index(field)
            .is_ok_and(|i| i.terms().num_terms() > 0)
    })
}

/// Whether `field` is indexed in `index`'s schema (`main` is only stored from `pindex.json` version 2 on).
fn is_indexed(index: &tantivy::Index, field: Field) -> bool {
    index.schema().get_field_entry(field).is_indexed()
}

/// Capture dates of every document, both ways round: by date (to evaluate `date:`
/// ranges in time proportional to the matches) and by document (to show every date of
/// a hit).
#[derive(Debug, Default)]
pub(crate) struct DateTable {
    /// Distinct dates, ascending.
    distinct: Vec<u64>,
    /// `docs[by_date[i]..by_date[i + 1]]` hold the documents of `distinct[i]`.
    by_date: Vec<u32>,
    docs: Vec<u32>,
    /// `dates[by_doc[d]..by_doc[d + 1]]` are document d's dates, ascending.
    by_doc: Vec<u32>,
    dates: Vec<u64>,
}

impl DateTable {
    /// Reads the `date` terms of a one-segment index. Terms that are not 14 digits are
    /// skipped (and counted) rather than failing the whole set.
    fn read(
        searcher: &Searcher,
        field: Field,
        docs: u32,
        dir: &Path,
    ) -> pindex::Result<(Self, u64)> {
        let mut t = DateTable {
            by_date: vec![0],
            ..DateTable::default()
        };
        let mut skipped = 0;
        // Dates that are not possible capture dates (29991231235959, warcio's reading
        // of an ARC date that is not one) are left out of filters and replay links.
        let now = warcdex_cdx::date::now_micros();
        let Some(segment) = searcher.segment_readers().first() else {
            t.by_doc = vec![0; docs as usize + 1];
            return Ok((t, 0));
        };
        let inverted = segment.inverted_index(field).at(dir)?;
        let mut terms = inverted.terms().stream()?;
        let mut per_doc = vec![0u32; docs as usize + 1];
        while terms.advance() {
            let date = std::str::from_utf8(terms.key())
                .ok()
                .filter(|s| crate::reader::date::capture_micros(s, now).is_some())
                .and_then(|s| s.parse::<u64>().ok());
            let Some(date) = date else {
                skipped += 1;
                continue;
            };
            let mut postings =
                inverted.read_postings_from_terminfo(terms.value(), IndexRecordOption::Basic)?;
            let mut doc = postings.doc();
            while doc != TERMINATED {
                // A damaged posting list can name a document the index does not have.
                let slot = per_doc
                    .get_mut(doc as usize + 1)
                    .ok_or_else(|| beyond(dir, "date", doc, docs))?;
                *slot += 1;
                t.docs.push(doc);
                doc = postings.advance();
            }
            t.distinct.push(date);
            t.by_date.push(t.docs.len() as u32);
        }
        t.fill_by_doc(per_doc);
        Ok((t, skipped))
    }

    /// Fills the by-document side from the by-date side, `per_doc[d + 1]` holding
    /// document d's count of dates.
    fn fill_by_doc(&mut self, mut per_doc: Vec<u32>) {
        for i in 1..per_doc.len() {
            per_doc[i] += per_doc[i - 1];
        }
        // Filling in date order leaves each document's dates ascending.
        let mut fill = per_doc.clone();
        self.dates = vec![0; self.docs.len()];
        for (i, &date) in self.distinct.iter().enumerate() {
            for &doc in &self.docs[self.by_date[i] as usize..self.by_date[i + 1] as usize] {
                self.dates[fill[doc as usize] as usize] = date;
                fill[doc as usize] += 1;
            }
        }
        self.by_doc = per_doc;
    }

    /// The table of the (document, date) pairs `keep` keeps: what a collection that
    /// never held the others would hold (the access rules, `access_view.rs`).
    pub(crate) fn filtered(&self, mut keep: impl FnMut(u32, u64) -> bool) -> DateTable {
        let mut t = DateTable {
            by_date: vec![0],
            ..DateTable::default()
        };
        let mut per_doc = vec![0u32; self.by_doc.len().max(1)];
        for (i, &date) in self.distinct.iter().enumerate() {
            let before = t.docs.len();
            for &doc in &self.docs[self.by_date[i] as usize..self.by_date[i + 1] as usize] {
                if keep(doc, date) {
                    t.docs.push(doc);
                    per_doc[doc as usize + 1] += 1;
                }
            }
            if t.docs.len() > before {
                t.distinct.push(date);
                t.by_date.push(t.docs.len() as u32);
            }
        }
        t.fill_by_doc(per_doc);
        t
    }

    /// How many documents the table is of.
    pub(crate) fn docs(&self) -> u32 {
        self.by_doc.len().saturating_sub(1) as u32
    }

    /// The dates of document `doc`, ascending.
    pub(crate) fn of(&self, doc: u32) -> &[u64] {
        let d = doc as usize;
        match (self.by_doc.get(d), self.by_doc.get(d + 1)) {
            (Some(&a), Some(&b)) => &self.dates[a as usize..b as usize],
            _ => &[],
        }
    }

    /// Marks in `bits` every document with a date in `from..=to`.
    pub(crate) fn mark_range(&self, from: u64, to: u64, bits: &mut [u64]) {
        let a = self.distinct.partition_point(|&d| d < from);
        let b = self.distinct.partition_point(|&d| d <= to);
        if a >= b {
            return;
        }
        let (lo, hi) = (self.by_date[a] as usize, self.by_date[b] as usize);
        for &doc in &self.docs[lo..hi] {
            bits[doc as usize / 64] |= 1 << (doc % 64);
        }
    }
}

/// An opened, checked parallel set.
pub(crate) struct OpenSet {
    /// The set's directory name under `pindexes/`.
    pub name: String,
    /// Where main and the dates index are.
    pub main_dir: PathBuf,
    pub dates_dir: Option<PathBuf>,
    /// The main index (for its schema and tokenizers).
    pub index: Index,
    /// One searcher for the life of the process: the indexes never change under it.
    pub searcher: Searcher,
    pub fields: Fields,
    pub parser: QueryParser,
    /// The same parser without the anchor field: for documents whose anchors come from
    /// pages an asker may not see (`access_view.rs`).
    pub parser_without_anchors: QueryParser,
    /// The ranking's weights (`weights.rs`), for the clauses the query adds.
    pub weights: RankWeights,
    /// Each searched field's weight, as the parsers weigh it (`fields_bm25.rs` reads it).
    pub boosts: HashMap<Field, Score>,
    /// The fields also scored alone beside a word's combined score, with their weights.
    pub apart: HashMap<Field, Score>,
    /// The same for a one-word query: `apart` plus its every-word clauses, which for one
    /// word are the word's own score in each field (each clause's weight times the
    /// field's, as the parser weighs the clause).
    pub apart_one_word: HashMap<Field, Score>,
    /// Each field's length normalisation `b` where it may differ from BM25's 0.75: the
    /// text's (`content_b`); the other fields, stems included, keep 0.75.
    pub lengths: HashMap<Field, Score>,
    /// The fields of the every-word clauses (`rank.rs`, `all_in_field`): name, field and
    /// the clause's weight, those weighed and searched only.
    pub every_word: Vec<(&'static str, Field, Score)>,
    pub docs: u32,
    pub dates: Arc<DateTable>,
    /// Each document's site as an index into `site_names` (`u32::MAX`: none).
    pub site_of: Arc<Vec<u32>>,
    pub site_names: Vec<String>,
    /// Each document's MIME type as an index into `type_names`.
    pub type_of: Arc<Vec<u32>>,
    pub type_names: Vec<String>,
    /// Each document's language as an index into `lang_names` (`u32::MAX`: none).
    pub lang_of: Arc<Vec<u32>>,
    pub lang_names: Vec<String>,
    /// Each document's collections (`collections.rs`).
    pub collections: Arc<super::collections::CollectionTable>,
    /// Each document's factor, its text score multiplied by it (`weights.rs`: the
    /// link-analysis prior and the link-list demotion; `None`: every factor is 1). Read
    /// once here: the boost read through its column, with its optional-value index, was
    /// 17 % of the server's cycles on the 1,000,000-document scale collection.
    pub factor: Option<Arc<Vec<Score>>>,
    /// The `urlkey` and `digest` columns, which order documents of equal score.
    order: Option<(StrColumn, StrColumn)>,
    /// Each document's URL key rank among every set's, and each URL's documents
    /// (`url_table.rs`; empty until [`OpenSet::rank_urls`]).
    pub urls: UrlTable,
    /// Near-identical versions of each URL (`near.rs`); `None` for an index built
    /// before fingerprints were stored.
    pub near: Option<Arc<super::near::NearTable>>,
    /// The document store, read in place for hits (`None` for an empty index).
    store: Option<HitStore>,
}

impl OpenSet {
    /// Document `doc`'s stored bytes, for [`OpenSet::shown`] (none without a store).
    pub(crate) fn stored_bytes(&self, doc: DocId) -> tantivy::Result<Option<OwnedBytes>> {
        self.store.as_ref().map(|s| s.bytes(doc)).transpose()
    }

    /// The stored fields a hit of `doc` shows, from its bytes where they parse, else
    /// through `Searcher::doc` (`stored.rs`).
    pub(crate) fn shown<'a>(
        &self,
        doc: DocId,
        bytes: &'a Option<OwnedBytes>,
    ) -> tantivy::Result<ShownFields<'a>> {
        if let (Some(store), Some(b)) = (&self.store, bytes) {
            if let Some(shown) = store.parse(b) {
                return Ok(shown);
            }
        }
        let stored: TantivyDocument = self.searcher.doc(DocAddress::new(0, doc))?;
        Ok(ShownFields::of_document(&stored, &self.fields))
    }

    /// The versions of `doc`'s URL in this set: the run of DocIds with its URL key
    /// (the index is in URL key order), at most `cap` of them around `doc`.
    pub(crate) fn url_run(&self, doc: DocId, cap: u32) -> std::ops::Range<DocId> {
        let Some((urlkeys, _)) = &self.order else {
            return doc..doc + 1;
        };
        let ord = |d: DocId| urlkeys.term_ords(d).next();
        let own = ord(doc);
        let (mut from, mut to) = (doc, doc + 1);
        while from > 0 && doc - from < cap && ord(from - 1) == own {
            from -= 1;
        }
        while to < self.docs && to - from < 2 * cap && ord(to) == own {
            to += 1;
        }
        from..to
    }

    /// Orders two documents, of this set and of `other`, as they stand in one index of
    /// the whole collection: versions are written in (URL key, digest) order
    /// (src/index/versions.rs), the DocId order within a set, so this breaks ties in
    /// score across sets as one index would. URL keys are compared by their ranks
    /// (`url_table.rs`); digests are read only for versions of one URL.
    pub(crate) fn order_cmp(&self, doc: DocId, other: &OpenSet, odoc: DocId) -> std::cmp::Ordering {
        let by_url = self.urls.rank(doc).cmp(&other.urls.rank(odoc));
        if by_url.is_ne() || std::ptr::eq(self, other) {
            // Within a set, versions of a URL are in digest order already.
            return by_url.then(doc.cmp(&odoc));
        }
        self.order_digest(doc).cmp(&other.order_digest(odoc))
    }

    /// Gives every set its documents' URL key ranks among all the sets' keys.
    pub(crate) fn rank_urls(sets: &mut [OpenSet]) -> std::io::Result<()> {
        let columns: Vec<Option<&StrColumn>> = sets
            .iter()
            .map(|s| s.order.as_ref().map(|(u, _)| u))
            .collect();
        let ranks = super::url_table::rank_keys(&columns)?;
        for (s, rank_of_ord) in sets.iter_mut().zip(ranks) {
            if let Some((urlkeys, _)) = &s.order {
                s.urls = UrlTable::new(urlkeys, &rank_of_ord, s.docs);
            }
        }
        Ok(())
    }

    /// Each URL key of the set with its run of documents, in key order: the key column's
    /// dictionary read through once (a lookup per key decompressed a block each time:
    /// half the time of an access view over the bench collection).
    pub(crate) fn for_each_url(
        &self,
        mut f: impl FnMut(&[u8], std::ops::Range<DocId>),
    ) -> std::io::Result<()> {
        // A set of no documents (a batch that added only dates) has no key column.
        if self.docs == 0 {
            return Ok(());
        }
        let Some((urlkeys, _)) = &self.order else {
            return Err(std::io::Error::other(
                "an index without a urlkey column (rebuild it to apply access rules)",
            ));
        };
        let mut stream = urlkeys.dictionary().stream()?;
        let mut have = stream.advance();
        let mut doc = 0;
        while doc < self.docs {
            let Some(ord) = urlkeys.term_ords(doc).next() else {
                doc += 1;
                continue;
            };
            let mut end = doc + 1;
            while end < self.docs && urlkeys.term_ords(end).next() == Some(ord) {
                end += 1;
            }
            // Documents are in key order: the stream only moves forward.
            while have && stream.term_ord() < ord {
                have = stream.advance();
            }
            if have && stream.term_ord() == ord {
                f(stream.key(), doc..end);
            }
            doc = end;
        }
        Ok(())
    }

    /// The URL key of `doc` (one lookup in its column's dictionary).
    pub(crate) fn order_urlkey(&self, doc: DocId) -> Vec<u8> {
        (self.order.as_ref()).map_or_else(Vec::new, |(urlkeys, _)| first_term(urlkeys, doc))
    }

    /// The digest of `doc` (one lookup in its column's dictionary).
    /// The documents of one URL key: the index is in URL key order, so they are one run
    /// of DocIds, found by bisection over the key column's ordinals. Empty for an index
    /// without the column or a key it does not hold.
    pub(crate) fn docs_of_urlkey(&self, key: &[u8]) -> std::ops::Range<DocId> {
        let Some((urlkeys, _)) = &self.order else {
            return 0..0;
        };
        let Ok(Some(ord)) = urlkeys.dictionary().term_ord(key) else {
            return 0..0;
        };
        let ord_of = |d: DocId| urlkeys.term_ords(d).next().unwrap_or(u64::MAX);
        let first = bisect(self.docs, |d| ord_of(d) >= ord);
        let end = bisect(self.docs, |d| ord_of(d) > ord);
        first..end.max(first)
    }

    pub(crate) fn order_digest(&self, doc: DocId) -> Vec<u8> {
        (self.order.as_ref()).map_or_else(Vec::new, |(_, digests)| first_term(digests, doc))
    }
}

/// The first DocId below `n` for which `past` holds (`past` false, then true).
fn bisect(n: DocId, past: impl Fn(DocId) -> bool) -> DocId {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if past(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

/// The first value of `doc` in a string column, empty when it has none.
fn first_term(col: &StrColumn, doc: DocId) -> Vec<u8> {
    let mut out = Vec::new();
    if let Some(ord) = col.term_ords(doc).next() {
        // A read error leaves it empty: the order of a tie, no more.
        let _ = col.ord_to_bytes(ord, &mut out);
    }
    out
}

fn field(index: &Index, name: &str, dir: &Path) -> pindex::Result<Field> {
    schema_field(&index.schema(), name, dir)
}

fn schema_field(schema: &tantivy::schema::Schema, name: &str, dir: &Path) -> pindex::Result<Field> {
    schema.get_field(name).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: no field {name:?}: not a warcdex index", dir.display()),
        )
        .into()
    })
}

/// The main index's fields, looked up by name in the index's own schema (so an index
/// whose schema differs in a field we do not use still opens).
fn fields_of(index: &Index, dir: &Path) -> pindex::Result<Fields> {
    let f = |n| field(index, n, dir);
    // The fields queries and filters look terms up in must be indexed: a schema that says
    // otherwise (a damaged meta.json that still parses) is refused here, not met as a
    // query error on every search.
    let schema = index.schema();
    for name in TEXT_FIELDS
        .iter()
        .chain(&["site", "type", "collection", "date"])
    {
        let fld = f(name)?;
        if !schema.get_field_entry(fld).is_indexed() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{}: field {name:?} is not indexed: damaged, or not a warcdex index",
                    dir.display()
                ),
            )
            .into());
        }
    }
    let optional = |n: &str| index.schema().get_field(n).ok();
    Ok(Fields {
        key: f("key")?,
        url: f("url")?,
        urlkey: f("urlkey")?,
        digest: f("digest")?,
        date: f("date")?,
        site: f("site")?,
        host: f("host")?,
        collection: f("collection")?,
        mime: f("type")?,
        status: f("status")?,
        length: f("length")?,
        filename: f("filename")?,
        offset: f("offset")?,
        title: f("title")?,
        content: f("content")?,
        anchor: f("anchor")?,
        boost: f("boost")?,
        seq: f("seq")?,
        lang: optional("lang"),
        main: optional("main"),
        anchor_from: optional(crate::schema::ANCHOR_FROM_FIELD),
        text_source: optional(crate::schema::TEXT_SOURCE_FIELD),
        anchor_internal: optional(crate::schema::ANCHOR_INTERNAL_FIELD),
        stems: std::array::from_fn(|i| {
            optional(&crate::schema::analysis::stem_field_name(
                crate::schema::analysis::STEMMED_LANGUAGES[i].0,
            ))
        }),
    })
}

/// The error for a posting list that names a document beyond the index's last: the
/// index is damaged (found by `scripts/flip-indexes.sh`; it was an index out of bounds).
fn beyond(dir: &Path, field: &str, doc: u32, docs: u32) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!(
            "{}: damaged index: the {field:?} postings name document {doc} of {docs}",
            dir.display()
        ),
    )
}

/// Numbers the values of a one-value string field (`site`, `type`, `lang`) in term order
/// and reads each document's ordinal from the postings (`u32::MAX`: none).
pub(super) fn read_ordinals(
    searcher: &Searcher,
    field: Field,
    docs: u32,
    dir: &Path,
) -> pindex::Result<(Vec<u32>, Vec<String>)> {
    let mut site_of = vec![u32::MAX; docs as usize];
    let mut names = Vec::new();
    let Some(segment) = searcher.segment_readers().first() else {
        return Ok((site_of, names));
    };
    let inverted = segment.inverted_index(field).at(dir)?;
    let mut terms = inverted.terms().stream()?;
    while terms.advance() {
        let name = String::from_utf8_lossy(terms.key()).into_owned();
        if name.is_empty() {
            // No host (or type): each such document is its own "site", never folded
            // with others.
            continue;
        }
        let ord = names.len() as u32;
        let mut postings =
            inverted.read_postings_from_terminfo(terms.value(), IndexRecordOption::Basic)?;
        let mut doc = postings.doc();
        while doc != TERMINATED {
            *site_of
                .get_mut(doc as usize)
                .ok_or_else(|| beyond(dir, "site, type or lang", doc, docs))? = ord;
            doc = postings.advance();
        }
        names.push(name);
    }
    Ok((site_of, names))
}

/// Whether the files of `set` still pass their checksums: after a panic in a search, this
/// tells a damaged index (disable the set) from a query that trips tantivy (fail only that
/// query; fixtures/fuzz/http/ has one that fires a tantivy debug assertion).
pub(crate) fn still_intact(set: &OpenSet) -> bool {
    std::iter::once(&set.main_dir)
        .chain(&set.dates_dir)
        .all(|d| {
            pindex::directory::open_read_only(d)
                .is_ok_and(|i| pindex::open::check_checksums(&i, d).is_ok())
        })
}

/// Opens the set in `dir` (`main` and, when present, `dates`), checking alignment.
pub(crate) fn open(dir: &Path, released: bool) -> io::Result<OpenSet> {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let main_dir = dir.join("main");
    if !main_dir.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("{}: no main index in this parallel set", dir.display()),
        ));
    }
    let dates_dir = Some(dir.join("dates")).filter(|d| d.is_dir());
    // Checksums first: opening and the alignment check already read the files.
    for d in std::iter::once(&main_dir).chain(&dates_dir) {
        // For reading only: no lock file is created, so a collection on a read-only
        // mount or owned by another account opens.
        let index = if released {
            pindex::directory::open_released_read_only(d)?
        } else {
            pindex::directory::open_read_only(d)?
        };
        pindex::open::check_checksums(&index, d)?;
    }
    let set = crate::dates::open_set_with(&main_dir, dates_dir.as_deref(), released)?;
    let searcher = set.main_searcher().clone();
    let docs = set.documents();
    let fields = fields_of(&set.main, &main_dir)?;
    // Without a dates index, main's own `date` values (the captures its segments held)
    // are the dates.
    let (dates, skipped) = match (set.dates_searcher(), &dates_dir) {
        (Some(ds), Some(dd)) => {
            let f = schema_field(ds.schema(), crate::dates::DATE_FIELD, dd)?;
            DateTable::read(ds, f, docs, dd)?
        }
        _ => DateTable::read(&searcher, fields.date, docs, &main_dir)?,
    };
    if skipped > 0 {
        eprintln!(
            "warcdex: {}: {skipped} date values are not possible 14-digit capture dates; ignored",
            dir.display()
        );
    }
    let (site_of, site_names) = read_ordinals(&searcher, fields.site, docs, &main_dir)?;
    let (type_of, type_names) = read_ordinals(&searcher, fields.mime, docs, &main_dir)?;
    let (lang_of, lang_names) = match fields.lang {
        Some(f) => read_ordinals(&searcher, f, docs, &main_dir)?,
        None => (vec![u32::MAX; docs as usize], Vec::new()),
    };
    let collections = super::collections::CollectionTable::read(
        &searcher,
        fields.collection,
        set.dates_searcher().zip(dates_dir.as_deref()),
        docs,
        &main_dir,
    )?;
    let weights = RankWeights::from_env();
    let (order, near, factor) = match searcher.segment_readers().first() {
        Some(seg) => {
            let ff = seg.fast_fields();
            // As the collector read it per document before: absent values are 1.0. Read
            // only when the ranking weighs it (`weights.rs`: by default it does not).
            let boost = (ff.f64("boost").ok())
                .filter(|_| weights.prior != 0.0)
                .map(|c| {
                    let col = c.first_or_default_col(1.0);
                    (0..docs)
                        .map(|d| col.get_val(d) as Score)
                        .collect::<Vec<_>>()
                });
            let html: Vec<bool> = (type_names.iter())
                .map(|t| t == "text/html" || t == "application/xhtml+xml")
                .collect();
            let is_html = |d: DocId| {
                let t = type_of.get(d as usize).copied().unwrap_or(u32::MAX);
                html.get(t as usize).copied().unwrap_or(false)
            };
            let factor = (weights.factors(seg, &fields, boost.as_deref(), is_html, docs))
                .at(&main_dir)
                .map_err(pindex::Error::from)?
                .map(Arc::new);
            let col = |n| ff.str(n).at(&main_dir).map_err(pindex::Error::from);
            let order = col("urlkey")?.zip(col("digest")?);
            // An index without `near.sig` (of version 1, built before signatures were
            // stored) has no signatures: its versions are shown one by one.
            let sigs =
                crate::near::sig_file::SigFile::open(&main_dir).map_err(pindex::Error::from)?;
            let near = match (&order, sigs) {
                (Some((urlkeys, _)), Some(sigs)) => Some(
                    super::near::NearTable::read(urlkeys, sigs, docs)
                        .map_err(pindex::Error::from)?,
                ),
                _ => None,
            };
            (order, near, factor)
        }
        None => (None, None, None),
    };
    let mut defaults: Vec<Field> = TEXT_FIELDS
        .iter()
        .map(|n| field(&set.main, n, &main_dir))
        .collect::<pindex::Result<_>>()?;
    // A field of weight 0 is not searched at all: each costs a lookup per word.
    // `main` is searched only in the indexes of version 1 that indexed it.
    let main = (fields.main).filter(|&m| weights.main != 0.0 && is_indexed(&set.main, m));
    defaults.extend(main);
    // Anchors of links within a host: searched only when weighed (and indexed).
    let internal = (fields.anchor_internal)
        .filter(|&a| weights.anchor_internal != 0.0 && is_indexed(&set.main, a));
    defaults.extend(internal);
    // Only the stemmed fields of languages the set has.
    let stems: Vec<Field> = (fields.stems.iter().flatten().copied())
        .filter(|&f| weights.stem != 0.0 && has_terms(&searcher, f))
        .collect();
    defaults.extend(&stems);
    let mut boosts: HashMap<Field, Score> = HashMap::new();
    for n in TEXT_FIELDS {
        boosts.insert(field(&set.main, n, &main_dir)?, weights.field(n));
    }
    boosts.extend(main.map(|m| (m, weights.main)));
    boosts.extend(internal.map(|a| (a, weights.anchor_internal)));
    boosts.extend(stems.iter().map(|&f| (f, weights.stem)));
    let lengths = HashMap::from([(fields.content, weights.content_b)]);
    let apart: HashMap<Field, Score> = HashMap::from([
        (fields.title, weights.title_apart),
        (fields.url, weights.url_apart),
    ]);
    let every_word: Vec<(&'static str, Field, Score)> = [
        ("title", Some(fields.title), weights.title_all),
        ("url", Some(fields.url), weights.url_all),
        ("anchor", Some(fields.anchor), weights.anchor_all),
        ("anchor_internal", internal, weights.anchor_internal_all),
    ]
    .into_iter()
    .filter_map(|(name, f, w)| Some((name, f.filter(|f| w > 0.0 && boosts.contains_key(f))?, w)))
    .collect();
    let mut apart_one_word = apart.clone();
    for &(_, f, w) in &every_word {
        *apart_one_word.entry(f).or_insert(0.0) += w * boosts[&f];
    }
    let make_parser = |defaults: Vec<Field>| -> QueryParser {
        let mut parser = QueryParser::for_index(&set.main, defaults);
        // Every word must match (Nutch's default), each in any of the fields.
        parser.set_conjunction_by_default();
        for (&f, &w) in &boosts {
            parser.set_field_boost(f, w);
        }
        parser
    };
    let parser_without_anchors = make_parser(
        (defaults.iter().copied())
            .filter(|&f| f != fields.anchor && Some(f) != fields.anchor_internal)
            .collect(),
    );
    let parser = make_parser(defaults);
    let store = (HitStore::open(&searcher, &fields).at(&main_dir)).map_err(pindex::Error::from)?;
    Ok(OpenSet {
        name,
        main_dir,
        dates_dir,
        index: set.main,
        searcher,
        fields,
        parser,
        parser_without_anchors,
        weights,
        boosts,
        apart,
        apart_one_word,
        lengths,
        every_word,
        docs,
        dates: Arc::new(dates),
        site_of: Arc::new(site_of),
        site_names,
        type_of: Arc::new(type_of),
        type_names,
        lang_of: Arc::new(lang_of),
        lang_names,
        collections: Arc::new(collections),
        store,
        factor,
        order,
        // Filled by `rank_urls` once every set is open: ranks are over all of them.
        urls: UrlTable::default(),
        near,
    })
}

#[cfg(test)]
mod tests {
    /// Looked up by its rank, a URL's versions are its run of DocIds, as `url_run` finds
    /// it from one of them; ranks grow with the keys, and rank 0 (no key) has none.
    #[test]
    fn url_docs_are_the_run_of_the_url() {
        let dir = tempfile::tempdir().unwrap();
        crate::testing::build_fixture_index(dir.path(), "example", "example").unwrap();
        let mut sets = [super::open(&dir.path().join("pindexes/example"), false).unwrap()];
        super::OpenSet::rank_urls(&mut sets).unwrap();
        let set = &sets[0];
        let mut runs = 0;
        for doc in 0..set.docs {
            let rank = set.urls.rank(doc);
            assert_ne!(rank, 0, "document {doc} has a key");
            let run: Vec<tantivy::DocId> = set.urls.docs_of(rank).collect();
            assert_eq!(
                run,
                set.url_run(doc, 1000).collect::<Vec<_>>(),
                "document {doc}"
            );
            if doc > 0 {
                let (a, b) = (set.order_urlkey(doc - 1), set.order_urlkey(doc));
                assert_eq!(
                    set.urls.rank(doc - 1).cmp(&rank),
                    a.cmp(&b),
                    "document {doc}"
                );
            }
            let run = set.url_run(doc, 1000);
            runs += usize::from(run.start == doc && run.len() > 1);
        }
        assert!(runs > 0, "a URL of several versions");
        assert_eq!(set.urls.docs_of(0).count(), 0);
        assert_eq!(set.urls.docs_of(u32::MAX).count(), 0);
    }
}
