//! The text a version was indexed with, looked up by its URL key and digest: what the
//! capture view's banner links to, so a reader sees what search matched (a page's text
//! as extracted, which a script-built page may show differently when replayed).

use tantivy::DocId;

use super::stored::stored_str;
use super::{SearchError, SearchIndex};

/// One version's indexed text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedText {
    /// The parallel set holding it.
    pub set: String,
    /// The original URL.
    pub url: String,
    /// The title (may be empty).
    pub title: String,
    /// `sha1:DIGEST`.
    pub digest: String,
    /// MIME type.
    pub mime: String,
    /// The text, as indexed.
    pub text: String,
}

impl SearchIndex {
    /// The indexed text of the version of `urlkey` with `digest` (with or without
    /// `sha1:`); `None` when no set holds it.
    pub fn indexed_text(
        &self,
        urlkey: &str,
        digest: &str,
    ) -> Result<Option<IndexedText>, SearchError> {
        for s in self.live_sets() {
            if let Some(doc) = doc_of_version(s, urlkey, digest) {
                return Ok(Some(read(s, doc)?));
            }
        }
        Ok(None)
    }
}

/// The document of set `s` that is the version of `urlkey` with `digest` (with or
/// without `sha1:`).
pub(crate) fn doc_of_version(s: &super::set::OpenSet, urlkey: &str, digest: &str) -> Option<DocId> {
    let want = digest.strip_prefix("sha1:").unwrap_or(digest).as_bytes();
    s.docs_of_urlkey(urlkey.as_bytes()).find(|&doc| {
        let d = s.order_digest(doc);
        d.strip_prefix(b"sha1:").unwrap_or(&d) == want
    })
}

/// Document `doc` of set `s`'s indexed text.
pub(crate) fn read(s: &super::set::OpenSet, doc: DocId) -> Result<IndexedText, SearchError> {
    let raw = s.stored_bytes(doc)?;
    let f = s.shown(doc, &raw)?;
    let text = stored_str(&f.text())?.to_string();
    Ok(IndexedText {
        set: s.name.clone(),
        url: f.url.to_string(),
        title: f.title.to_string(),
        digest: f.digest.to_string(),
        mime: f.mime.to_string(),
        text,
    })
}
