//! The schema of a main index (`pindexes/<name>/main`): its fields ([`Fields`], [`schema`])
//! and how their text is cut into words ([`analysis`]). `index` writes it, `pindex` opens
//! it and `search` reads it.

pub mod analysis;
pub mod stem_cache;

use tantivy::schema::{
    Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, FAST, INDEXED, STORED, STRING,
};

/// The main index's fields (docs/design.md §4).
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    /// `URL sha1:DIGEST` (exact).
    pub key: Field,
    /// The original URL (tokenized and stored).
    pub url: Field,
    /// Canonical URL key (exact; a fast column, so add-dates reads keys without
    /// loading stored documents).
    pub urlkey: Field,
    /// `sha1:DIGEST` (exact).
    pub digest: Field,
    /// Capture dates held by the segments, earliest first (exact, 14 digits).
    pub date: Field,
    /// Host without a leading `www.` (exact; the `site:` filter).
    pub site: Field,
    /// Host as in the URL (exact).
    pub host: Field,
    /// Collection (exact).
    pub collection: Field,
    /// MIME type (exact; the `type:` filter).
    pub mime: Field,
    /// HTTP status.
    pub status: Field,
    /// Stored record length of the earliest capture.
    pub length: Field,
    /// Archive file of the earliest capture.
    pub filename: Field,
    /// Stored offset of the earliest capture.
    pub offset: Field,
    /// Title (tokenized, stored).
    pub title: Field,
    /// Visible text (tokenized, stored).
    pub content: Field,
    /// Anchor text of inbound links (tokenized, stored; one value per link).
    pub anchor: Field,
    /// Link-analysis boost, applied at query time.
    pub boost: Field,
    /// Position in the index: the join key of parallel indexes.
    pub seq: Field,
    /// Language (ISO 639-1; exact, fast; the `lang:` filter and facet). This field and
    /// the ones after it are `None` in indexes built before they existed, which still
    /// open.
    pub lang: Option<Field>,
    /// The main content: the text without boilerplate, where it differs from the whole
    /// text (stored; snippets come from it). Some indexes of `pindex.json` version 1
    /// ([`crate::pindex::PINDEX_VERSION`]) also indexed it, and held it for every
    /// document.
    pub main: Option<Field>,
    /// For each anchor, a hash of the URL key of the page it comes from
    /// ([`anchor_source`]; stored, indexed): so that the anchors of pages an asker may
    /// not see are not searched for them. `None` in indexes of version 1 built before
    /// it existed.
    pub anchor_from: Option<Field>,
    /// Where `content` came from when not from the document itself: `final`, `text` or
    /// `pages`, rendered text a browser crawler recorded
    /// ([`crate::segment::SegmentRow::text_source`]; stored). `None` in indexes built
    /// before it existed.
    pub text_source: Option<Field>,
    /// Anchor text of inbound links from pages of the same host (tokenized, stored; one
    /// value per link), weighed apart from `anchor`. `None` in indexes built before it
    /// existed, whose anchors are all external.
    pub anchor_internal: Option<Field>,
    /// The stemmed text, one field per language of [`analysis::STEMMED_LANGUAGES`] (in
    /// its order), of some indexes of version 1 (`None` from version 2 on: the ranking
    /// gave them weight 0, and analysing each text a second time made `index` slower,
    /// docs/performance.md).
    pub stems: [Option<Field>; STEMS],
}

/// The field of [`Fields::text_source`].
pub const TEXT_SOURCE_FIELD: &str = "text_source";

/// The field of [`Fields::anchor_internal`].
pub const ANCHOR_INTERNAL_FIELD: &str = "anchor_internal";

/// The field of [`Fields::anchor_from`].
pub const ANCHOR_FROM_FIELD: &str = "anchor_from";

/// The value `anchor_from` holds for an anchor from the page of URL key `urlkey`: XXH64
/// (seed 0) of the key's bytes, a fixed hash an access view computes again from a key.
pub fn anchor_source(urlkey: &[u8]) -> u64 {
    twox_hash::XxHash64::oneshot(0, urlkey)
}

/// The number of stemmed fields.
pub const STEMS: usize = analysis::STEMMED_LANGUAGES.len();

/// A tokenized, stored text field analyzed by [`analysis::TEXT_ANALYZER`] (positions
/// kept, for phrases and CJK words).
fn analyzed_text() -> TextOptions {
    TextOptions::default().set_stored().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(analysis::TEXT_ANALYZER)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    )
}

/// The schema of `pindexes/<name>/main`.
pub fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let f = Fields {
        key: b.add_text_field("key", STRING | STORED | FAST),
        url: b.add_text_field("url", analyzed_text()),
        urlkey: b.add_text_field("urlkey", STRING | STORED | FAST),
        digest: b.add_text_field("digest", STRING | STORED | FAST),
        date: b.add_text_field("date", STRING | STORED),
        site: b.add_text_field("site", STRING | STORED),
        host: b.add_text_field("host", STRING | STORED),
        collection: b.add_text_field("collection", STRING | STORED),
        mime: b.add_text_field("type", STRING | STORED),
        status: b.add_u64_field("status", INDEXED | STORED),
        length: b.add_u64_field("length", STORED),
        filename: b.add_text_field("filename", STORED),
        offset: b.add_u64_field("offset", STORED),
        title: b.add_text_field("title", analyzed_text()),
        content: b.add_text_field("content", analyzed_text()),
        anchor: b.add_text_field("anchor", analyzed_text()),
        boost: b.add_f64_field("boost", FAST | STORED),
        seq: b.add_u64_field("seq", FAST | INDEXED | STORED),
        lang: Some(b.add_text_field("lang", STRING | STORED | FAST)),
        // Stored, not indexed: no ranking measured gained from searching it (docs/ranking.md).
        main: Some(b.add_text_field("main", STORED)),
        stems: [None; STEMS],
        anchor_from: Some(b.add_u64_field(ANCHOR_FROM_FIELD, INDEXED | STORED)),
        text_source: Some(b.add_text_field(TEXT_SOURCE_FIELD, STORED)),
        anchor_internal: Some(b.add_text_field(ANCHOR_INTERNAL_FIELD, analyzed_text())),
    };
    (b.build(), f)
}
