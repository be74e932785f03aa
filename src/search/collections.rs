//! Each document's collections: a version belongs to every collection
//! it was captured in, not only to its first capture's. Main's `collection` holds the
//! first capture's; the dates index's `collection` (written by `update`, which names every
//! capture's collection in its dates lists) holds the others, and is rebuilt when a later
//! batch captures the version in another collection. `collection:` filters, the
//! collection facet and exports read this table.

use std::collections::HashMap;
use std::path::Path;

use tantivy::schema::Field;
use tantivy::{DocId, Searcher};

use crate::path_error::ResultAtPath;
use crate::pindex;

/// The collections of each document of a set, numbered by name.
#[derive(Debug, Default)]
pub(crate) struct CollectionTable {
    /// The collections' names; a document's numbers index it.
    pub names: Vec<String>,
    /// `ids[by_doc[d]..by_doc[d + 1]]`: document d's collections, ascending.
    by_doc: Vec<u32>,
    ids: Vec<u32>,
}

impl CollectionTable {
    /// Reads main's `collection` (one value a document) and, when the dates index has
    /// one, its `collection` column (any number).
    pub(crate) fn read(
        main: &Searcher,
        main_field: Field,
        dates: Option<(&Searcher, &Path)>,
        docs: u32,
        main_dir: &Path,
    ) -> pindex::Result<CollectionTable> {
        let mut names: Vec<String> = Vec::new();
        let mut number: HashMap<String, u32> = HashMap::new();
        let mut id_of = |name: &str, names: &mut Vec<String>| -> u32 {
            if let Some(&i) = number.get(name) {
                return i;
            }
            let i = names.len() as u32;
            names.push(name.to_string());
            number.insert(name.to_string(), i);
            i
        };
        let (first, first_names) = super::set::read_ordinals(main, main_field, docs, main_dir)?;
        let first_ids: Vec<u32> = first_names.iter().map(|n| id_of(n, &mut names)).collect();
        // The dates index's column, its ordinals numbered as main's names are.
        let mut column = None;
        if let Some((ds, dir)) = dates {
            let has = ds
                .schema()
                .get_field(crate::dates::COLLECTION_FIELD)
                .is_ok();
            if let (true, Some(seg)) = (has, ds.segment_readers().first()) {
                if let Some(col) = seg
                    .fast_fields()
                    .str(crate::dates::COLLECTION_FIELD)
                    .at(dir)?
                {
                    let mut ids_of_ord = Vec::new();
                    let mut stream = col.dictionary().stream().at(dir)?;
                    while stream.advance() {
                        let name = String::from_utf8_lossy(stream.key()).into_owned();
                        ids_of_ord.push(id_of(&name, &mut names));
                    }
                    column = Some((col, ids_of_ord));
                }
            }
        }
        let mut t = CollectionTable {
            names,
            by_doc: Vec::with_capacity(docs as usize + 1),
            ids: Vec::new(),
        };
        t.by_doc.push(0);
        let mut of = Vec::new();
        for d in 0..docs {
            of.clear();
            of.extend(
                first
                    .get(d as usize)
                    .and_then(|&o| first_ids.get(o as usize)),
            );
            if let Some((col, ids_of_ord)) = &column {
                of.extend(col.term_ords(d).filter_map(|o| ids_of_ord.get(o as usize)));
            }
            of.sort_unstable();
            of.dedup();
            t.ids.extend_from_slice(&of);
            t.by_doc.push(t.ids.len() as u32);
        }
        Ok(t)
    }

    /// Document `doc`'s collections (numbers into `names`).
    pub(crate) fn of(&self, doc: DocId) -> &[u32] {
        let d = doc as usize;
        match (self.by_doc.get(d), self.by_doc.get(d + 1)) {
            (Some(&a), Some(&b)) => &self.ids[a as usize..b as usize],
            _ => &[],
        }
    }

    /// The number of the collection `name`, if a document of the set has it.
    pub(crate) fn id(&self, name: &str) -> Option<u32> {
        self.names.iter().position(|n| n == name).map(|i| i as u32)
    }

    /// Document `doc`'s collections by name, in name order.
    pub(crate) fn names_of(&self, doc: DocId) -> Vec<&str> {
        let mut v: Vec<&str> = (self.of(doc).iter())
            .filter_map(|&i| self.names.get(i as usize).map(String::as_str))
            .collect();
        v.sort_unstable();
        v
    }
}
