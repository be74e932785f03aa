//! Reading the stored dates of source indexes, one document at a time in DocId order,
//! without loading whole documents into memory.

use std::path::{Path, PathBuf};

use tantivy::columnar::{Column, StrColumn};
use tantivy::schema::{Field, Value};
use tantivy::store::StoreReader;
use tantivy::{DocId, Searcher, TantivyDocument};

use super::{Error, Result, COLLECTION_FIELD, DATE_FIELD};
use crate::path_error::ResultAtPath;
use crate::pindex::keys::KEYHASH_FIELD;

/// One source index: its stored `date` values, read in DocId order. The doc store keeps
/// a few decompressed blocks, so a sequential walk decompresses each block once and the
/// memory used is a few blocks whatever the index size.
pub(crate) struct Source {
    pub(crate) dir: PathBuf,
    /// `None` for an empty index (no segment).
    store: Option<StoreReader>,
    date: Field,
    /// `keyhash` of a dates index (checked against main's key at every position).
    keyhash: Option<Column<u64>>,
    /// `collection` of a dates index that has it.
    collection: Option<StrColumn>,
}

impl Source {
    /// Opens the only segment of a source index.
    pub(crate) fn open(dir: &Path, s: &Searcher) -> Result<Source> {
        let date = s
            .schema()
            .get_field(DATE_FIELD)
            .map_err(|_| Error::NotMainOrDates {
                dir: dir.to_path_buf(),
                field: DATE_FIELD,
            })?;
        let Some(seg) = s.segment_readers().first() else {
            return Ok(Source {
                dir: dir.to_path_buf(),
                store: None,
                date,
                keyhash: None,
                collection: None,
            });
        };
        let store = Some(seg.get_store_reader(4).at(dir)?);
        let keyhash = if s.schema().get_field(KEYHASH_FIELD).is_ok() {
            Some(seg.fast_fields().u64(KEYHASH_FIELD).at(dir)?)
        } else {
            None
        };
        let collection = match s.schema().get_field(COLLECTION_FIELD) {
            Ok(_) if keyhash.is_some() => seg.fast_fields().str(COLLECTION_FIELD).at(dir)?,
            _ => None,
        };
        Ok(Source {
            dir: dir.to_path_buf(),
            store,
            date,
            keyhash,
            collection,
        })
    }

    /// Appends the stored dates of `doc`, in stored order, to `out`.
    pub(crate) fn dates(&self, doc: DocId, out: &mut Vec<String>) -> Result<()> {
        let Some(store) = &self.store else {
            return Err(Error::NoDocument {
                dir: self.dir.clone(),
                doc,
                docs: None,
            });
        };
        let d: TantivyDocument = store.get(doc).at(&self.dir)?;
        out.extend(
            d.get_all(self.date)
                .filter_map(|v| v.as_str().map(str::to_string)),
        );
        Ok(())
    }

    /// Appends the collections a dates index holds for `doc` to `out` (none for a main
    /// index, whose one collection is searched from main itself).
    pub(crate) fn collections(&self, doc: DocId, out: &mut Vec<String>) -> Result<()> {
        let Some(c) = &self.collection else {
            return Ok(());
        };
        for ord in c.term_ords(doc) {
            let mut name = String::new();
            c.ord_to_str(ord, &mut name).at(&self.dir)?;
            out.push(name);
        }
        Ok(())
    }

    /// The `keyhash` of `doc` when the source is a dates index.
    pub(crate) fn keyhash(&self, doc: DocId) -> Option<Option<u64>> {
        self.keyhash.as_ref().map(|c| c.first(doc))
    }
}
