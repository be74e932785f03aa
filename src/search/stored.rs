//! The stored fields a hit shows, read straight from the document store's bytes.
//!
//! Why not `Searcher::doc`: it copies every stored value of the document twice (into a
//! `String` each, through a `Take` reader, then into a `TantivyDocument`) and checks the
//! UTF-8 of all of them, the inverted anchor texts and the keys included, which a hit
//! never shows. Under `scripts/bench-serve.sh` that was 28 % of the server's cycles.
//! Here the block the store decompressed (and caches) is parsed in place:
//! the values a hit shows are borrowed from it, each checked once, and the others are
//! stepped over. A document this parser does not understand — a value type our schema
//! (`src/index/writer.rs`, `schema`) never writes, or bytes cut short — is read through
//! `Searcher::doc` instead, so the hit is the same either way (a test reads every
//! document of a fixture index both ways).

use std::borrow::Cow;

use tantivy::directory::OwnedBytes;
use tantivy::error::DataCorruption;
use tantivy::schema::{Field, Value};
use tantivy::store::StoreReader;
use tantivy::{DocId, Searcher, TantivyDocument};

use crate::schema::Fields;

/// Decompressed store blocks kept per set, as `Searcher::doc`'s own store reader keeps
/// (tantivy's `DOCSTORE_CACHE_CAPACITY`).
const CACHED_BLOCKS: usize = 100;

/// The value type codes of tantivy's binary document format
/// (`tantivy::schema::document::type_codes`, crate-private): the ones our schema writes.
const TEXT_CODE: u8 = 0;
const U64_CODE: u8 = 1;
const I64_CODE: u8 = 2;
const F64_CODE: u8 = 6;

/// The stored values a hit shows, borrowed from the store's block where they could be.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct ShownFields<'a> {
    /// First value of each: empty when the document has none.
    pub url: Cow<'a, str>,
    pub title: Cow<'a, str>,
    pub digest: Cow<'a, str>,
    pub mime: Cow<'a, str>,
    pub collection: Cow<'a, str>,
    pub site: Cow<'a, str>,
    /// The main content (empty in an index built before it existed), its UTF-8 not
    /// checked here: the snippet reads a few KiB of it and checks those
    /// ([`stored_str`]), where checking the whole of it was 6 % of a loaded server's
    /// cycles.
    pub main: Cow<'a, [u8]>,
    /// Every `content` value, in order, its UTF-8 not yet checked: most hits take
    /// their snippet from `main` and never read it (see [`ShownFields::text`]).
    pub content: Vec<Cow<'a, [u8]>>,
    /// The record's length, 0 when not stored.
    pub length: u64,
    /// The archive holding the record (empty when not stored).
    pub filename: Cow<'a, str>,
    /// The document's first stored capture date (14 digits): the date of that record,
    /// the version's earliest capture when its set was built.
    pub date: Cow<'a, str>,
    /// The record's offset in it.
    pub offset: u64,
    /// The HTTP status, 0 when not stored.
    pub status: u64,
    /// Where the text came from when not from the document (`final`, `text`, `pages`);
    /// empty for its own.
    pub text_source: Cow<'a, str>,
}

/// Which shown field a field id is; the single-valued ones first, as indexes of the
/// parser's "first value taken" flags.
#[derive(Clone, Copy)]
enum Slot {
    Url,
    Title,
    Digest,
    Mime,
    Collection,
    Site,
    Filename,
    Date,
    TextSource,
    Main,
    Content,
}

/// A set's document store, for reading hits.
pub(crate) struct HitStore {
    reader: StoreReader,
    /// `Slot` of each field id (`None`: not shown).
    slots: Vec<Option<Slot>>,
    length: u32,
    offset: u32,
    status: u32,
}

impl HitStore {
    /// The store of `searcher`'s one segment (`None` for an empty index).
    pub(crate) fn open(searcher: &Searcher, fields: &Fields) -> tantivy::Result<Option<Self>> {
        let Some(seg) = searcher.segment_readers().first() else {
            return Ok(None);
        };
        let reader = seg.get_store_reader(CACHED_BLOCKS)?;
        let mut slots = Vec::new();
        let mut put = |f: Field, s: Slot| {
            let id = f.field_id() as usize;
            if slots.len() <= id {
                slots.resize(id + 1, None);
            }
            slots[id] = Some(s);
        };
        put(fields.url, Slot::Url);
        put(fields.title, Slot::Title);
        put(fields.digest, Slot::Digest);
        put(fields.mime, Slot::Mime);
        put(fields.collection, Slot::Collection);
        put(fields.site, Slot::Site);
        put(fields.filename, Slot::Filename);
        put(fields.date, Slot::Date);
        put(fields.content, Slot::Content);
        if let Some(m) = fields.main {
            put(m, Slot::Main);
        }
        if let Some(t) = fields.text_source {
            put(t, Slot::TextSource);
        }
        Ok(Some(HitStore {
            reader,
            slots,
            length: fields.length.field_id(),
            offset: fields.offset.field_id(),
            status: fields.status.field_id(),
        }))
    }

    /// Document `doc`'s serialized bytes (a slice of the cached block).
    pub(crate) fn bytes(&self, doc: DocId) -> tantivy::Result<OwnedBytes> {
        self.reader.get_document_bytes(doc)
    }

    /// The shown fields of one document's serialized bytes: `None` when they are not
    /// what this parser reads (then `Searcher::doc` reads them).
    pub(crate) fn parse<'a>(&self, mut b: &'a [u8]) -> Option<ShownFields<'a>> {
        let mut shown = ShownFields::default();
        let mut seen = [false; Slot::Content as usize];
        let mut length_seen = false;
        let mut offset_seen = false;
        let mut status_seen = false;
        // Layout (tantivy 0.27 `schema/document/se.rs`): a VInt count of values, then
        // per value its field id (u32 LE), a type code and the value: text as a VInt
        // length and UTF-8 bytes, numbers as 8 bytes LE.
        let count = vint(&mut b)?;
        for _ in 0..count {
            let id = u32::from_le_bytes(take(&mut b, 4)?.try_into().ok()?);
            let code = *take(&mut b, 1)?.first()?;
            match code {
                TEXT_CODE => {
                    let len = usize::try_from(vint(&mut b)?).ok()?;
                    let raw = take(&mut b, len)?;
                    let Some(slot) = self.slots.get(id as usize).copied().flatten() else {
                        continue;
                    };
                    match slot {
                        Slot::Content => {
                            shown.content.push(Cow::Borrowed(raw));
                            continue;
                        }
                        Slot::Main => {
                            if !std::mem::replace(&mut seen[slot as usize], true) {
                                shown.main = Cow::Borrowed(raw);
                            }
                            continue;
                        }
                        _ => {}
                    }
                    let text = Cow::Borrowed(std::str::from_utf8(raw).ok()?);
                    // Only a field's first value is shown (`get_first`).
                    if !std::mem::replace(&mut seen[slot as usize], true) {
                        *shown.first_value(slot) = text;
                    }
                }
                U64_CODE | I64_CODE | F64_CODE => {
                    let v = u64::from_le_bytes(take(&mut b, 8)?.try_into().ok()?);
                    if id == self.length && !length_seen {
                        length_seen = true;
                        // `get_first(length).as_u64()`: only a u64 value counts.
                        if code == U64_CODE {
                            shown.length = v;
                        }
                    }
                    if id == self.offset && !offset_seen {
                        offset_seen = true;
                        if code == U64_CODE {
                            shown.offset = v;
                        }
                    }
                    if id == self.status && !status_seen {
                        status_seen = true;
                        if code == U64_CODE {
                            shown.status = v;
                        }
                    }
                }
                _ => return None,
            }
        }
        Some(shown)
    }
}

impl<'a> ShownFields<'a> {
    /// The single-valued field `slot` stands for.
    fn first_value(&mut self, slot: Slot) -> &mut Cow<'a, str> {
        match slot {
            Slot::Url => &mut self.url,
            Slot::Title => &mut self.title,
            Slot::Digest => &mut self.digest,
            Slot::Mime => &mut self.mime,
            Slot::Collection => &mut self.collection,
            Slot::Site => &mut self.site,
            Slot::Filename => &mut self.filename,
            Slot::Date => &mut self.date,
            Slot::TextSource => &mut self.text_source,
            Slot::Main | Slot::Content => unreachable!("kept as bytes, not checked here"),
        }
    }

    /// The page's whole text: its `content` values joined by spaces (a page has one),
    /// its UTF-8 not checked here, as the main content's is not: the snippet checks the
    /// parts it reads ([`stored_str`]). Checking all of it was 2.8 % of a loaded
    /// server's cycles.
    pub(crate) fn text(&self) -> Cow<'_, [u8]> {
        match self.content.as_slice() {
            [one] => Cow::Borrowed(one.as_ref()),
            values => Cow::Owned(values.join(&b' ')),
        }
    }
}

/// Stored page text (or a part of it) as a `str`; an error when it is not UTF-8 (a
/// damaged store), as `Searcher::doc` would give.
pub(crate) fn stored_str(b: &[u8]) -> tantivy::Result<&str> {
    std::str::from_utf8(b).map_err(not_utf8)
}

fn not_utf8(e: std::str::Utf8Error) -> tantivy::TantivyError {
    tantivy::TantivyError::DataCorruption(DataCorruption::comment_only(format!(
        "a stored page text is not UTF-8: {e}"
    )))
}

impl ShownFields<'static> {
    /// The shown fields of a document read by `Searcher::doc`.
    pub(crate) fn of_document(doc: &TantivyDocument, fields: &Fields) -> Self {
        let first = |f: Field| -> Cow<'static, str> {
            Cow::Owned(
                doc.get_first(f)
                    .and_then(|v| v.as_str())
                    .unwrap_or_default()
                    .to_string(),
            )
        };
        ShownFields {
            url: first(fields.url),
            title: first(fields.title),
            digest: first(fields.digest),
            mime: first(fields.mime),
            collection: first(fields.collection),
            site: first(fields.site),
            main: (fields.main.map(first))
                .map(|m| Cow::Owned(m.into_owned().into_bytes()))
                .unwrap_or_default(),
            content: (doc.get_all(fields.content))
                .filter_map(|v| v.as_str())
                .map(|s| Cow::Owned(s.as_bytes().to_vec()))
                .collect(),
            length: (doc.get_first(fields.length))
                .and_then(|v| v.as_u64())
                .unwrap_or(0),
            filename: first(fields.filename),
            date: first(fields.date),
            offset: (doc.get_first(fields.offset))
                .and_then(|v| v.as_u64())
                .unwrap_or(0),
            status: (doc.get_first(fields.status))
                .and_then(|v| v.as_u64())
                .unwrap_or(0),
            text_source: fields.text_source.map(first).unwrap_or_default(),
        }
    }
}

/// The first `n` bytes of `b`, which moves past them.
fn take<'a>(b: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    if b.len() < n {
        return None;
    }
    let (head, rest) = b.split_at(n);
    *b = rest;
    Some(head)
}

/// tantivy's VInt (`tantivy-common` `vint.rs`): 7 bits a byte, least significant first,
/// the high bit set on the last byte.
fn vint(b: &mut &[u8]) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *take(b, 1)?.first()?;
        v |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 != 0 {
            return Some(v);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::DocAddress;

    /// Every document of the example collection's index, as a hit shows it: parsed in
    /// place, it is what `Searcher::doc` gives, and no document needs the fallback.
    #[test]
    fn every_document_reads_as_searcher_doc_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        crate::testing::build_fixture_index(dir.path(), "example", "example").unwrap();
        let set = super::super::set::open(&dir.path().join("pindexes/example"), false).unwrap();
        let store = HitStore::open(&set.searcher, &set.fields).unwrap().unwrap();
        let mut with_main = 0;
        for doc in 0..set.docs {
            let bytes = store.bytes(doc).unwrap();
            let parsed = store.parse(&bytes).expect("parses in place");
            let stored: TantivyDocument = set.searcher.doc(DocAddress::new(0, doc)).unwrap();
            let read = ShownFields::of_document(&stored, &set.fields);
            assert_eq!(parsed, read, "document {doc}");
            let content: Vec<&str> = (stored.get_all(set.fields.content))
                .filter_map(|v| v.as_str())
                .collect();
            assert_eq!(
                *parsed.text(),
                *content.join(" ").as_bytes(),
                "document {doc}"
            );
            assert!(
                !parsed.url.is_empty() && parsed.length > 0,
                "document {doc}"
            );
            with_main += usize::from(!parsed.main.is_empty());
        }
        assert!(
            set.docs >= 5 && with_main > 0,
            "{} documents, {with_main} with main",
            set.docs
        );
        // A value type our schema never writes is left to `Searcher::doc`.
        let mut odd = vec![0x81];
        odd.extend(0u32.to_le_bytes());
        odd.push(9); // bool
        odd.push(1);
        assert_eq!(store.parse(&odd), None);
        assert_eq!(store.parse(&[0x82, 0, 0]), None, "cut short");
    }

    #[test]
    fn vints_as_tantivy_writes_them() {
        let mut b: &[u8] = &[0x85, 0x01, 0x81, 0xff];
        assert_eq!(vint(&mut b), Some(5));
        assert_eq!(vint(&mut b), Some(1 | (1 << 7)));
        assert_eq!(vint(&mut b), Some(0x7f));
        assert_eq!(vint(&mut b), None, "nothing left");
        let mut cut: &[u8] = &[0x01];
        assert_eq!(vint(&mut cut), None, "no last byte");
    }
}
