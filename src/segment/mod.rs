//! Segments: the parsed documents of an import, one row per URL + digest, stored as
//! Parquet (zstd) beside a `segment.json` manifest.
//!
//! - [`layout`]: the files of a segment directory and `segment.json`.
//! - [`rows`]: the Parquet rows file.
//! - [`Error`]: what went wrong, with the file's path.

pub mod error;
pub mod layout;
pub mod rows;

pub use error::{Error, Result};
// Defined by the HTML extraction, which makes the links; a segment row stores them.
pub use crate::html::Outlink;

use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// One document of a segment: a version (URL + payload digest) with every capture date
/// the import saw for it, and the metadata and parsed content of its earliest capture.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SegmentRow {
    /// `URL sha1:DIGEST`: the document key.
    pub key: String,
    /// The original URL (WARC-Target-URI or ARC URL).
    pub url: String,
    /// The canonical URL key (SURT unless the segment says otherwise).
    pub urlkey: String,
    /// `sha1:` + base32 SHA-1 of the payload as stored.
    pub digest: String,
    /// Every capture date (14 digits), sorted, unique, that this segment's import saw:
    /// not the dates later batches of a collection add to the version, which are in the
    /// dates index and the capture table (`captures/`) only.
    pub dates: Vec<String>,
    /// The earliest capture date.
    pub first_date: String,
    /// The collection name (manifest column or `--collection`).
    pub collection: String,
    /// The archive file of the earliest capture (base name).
    pub filename: String,
    /// That archive's path relative to the import manifest's folder (`update`: the
    /// collection's directory) when it lies inside it, absolute when it lies outside,
    /// so that two archives of one name in different folders can be told apart and the
    /// path does not depend on the working directory the import ran in.
    #[serde(default)]
    pub archive: String,
    /// Stored offset of that capture's record.
    pub offset: u64,
    /// Stored length of that capture's record.
    pub length: u64,
    /// MIME type (HTTP Content-Type without parameters, or the record's).
    pub mime: String,
    /// HTTP status code, when there is one.
    pub status: Option<u16>,
    /// The charset the text was decoded with (WHATWG name), for text types.
    pub charset: Option<String>,
    /// The language of the text (ISO 639-1 code, `en`), when it could be told.
    #[serde(default)]
    pub lang: Option<String>,
    /// The HTML title.
    pub title: Option<String>,
    /// Visible text, capped at the import's content limit.
    pub text: String,
    /// The main content: `text` without the page's boilerplate (navigation, headers,
    /// footers, link lists), for HTML pages (empty when all of it is boilerplate);
    /// `None` for documents without markup to tell them apart by, whose whole `text`
    /// is content (plain text, PDF).
    #[serde(default)]
    pub main_text: Option<String>,
    /// Where `text` came from when not from the document itself: the words a browser
    /// crawler recorded after the page's scripts ran, `final` (a `urn:textFinal:`
    /// record), `text` (a `urn:text:` record) or `pages` (the WACZ's `pages.jsonl`);
    /// `None`: the document's own text (src/import/rendered.rs).
    #[serde(default)]
    pub text_source: Option<String>,
    /// Links out of the page.
    pub outlinks: Vec<Outlink>,
}

impl SegmentRow {
    /// Folds another row of the same version into this one: dates unioned (sorted,
    /// unique), and the row whose first capture is earlier kept (a tie keeps `self`,
    /// the input named first).
    pub fn absorb(&mut self, other: SegmentRow) {
        let mut dates = std::mem::take(&mut self.dates);
        dates.extend(other.dates.iter().cloned());
        dates.sort();
        dates.dedup();
        if other.first_date < self.first_date {
            *self = other;
        }
        self.first_date = dates.first().cloned().unwrap_or_default();
        self.dates = dates;
    }
}

/// A key as it goes into a sort line or a key set: `\x00`, `\x01` and `\n` (which a URL
/// key should never hold, but a hostile archive could make) are percent-encoded so the
/// separators and line ends stay unambiguous.
pub fn sort_safe(key: &str) -> Cow<'_, str> {
    if key.bytes().any(|b| b <= 1 || b == b'\n') {
        Cow::Owned(
            key.replace('\x00', "%00")
                .replace('\x01', "%01")
                .replace('\n', "%0A"),
        )
    } else {
        Cow::Borrowed(key)
    }
}
