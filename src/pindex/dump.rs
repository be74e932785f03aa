//! `warcdex dumpindex`: NutchWAX DumpParallelIndex output over one or several parallel
//! indexes, main or dates alike: it stands on the rest of [`crate::pindex`] only. The indexes are
//! read side by side, document i of each
//! together; a field present in several is taken from the first index naming it. Indexes
//! that do not belong together (document counts, or a dates index built for another
//! main) are refused, and so is an index whose files fail their checksums, before
//! anything is printed.

use std::io::Write;
use std::path::Path;

use tantivy::schema::{Field, FieldType, Value};
use tantivy::{DocAddress, TantivyDocument};

use crate::path_error::ResultAtPath;
use crate::pindex::align::check_parallel;
use crate::pindex::open::{doc_count, open_verified_parallel_index_released};
use crate::pindex::{Error, Result};

/// One opened index: its fields and stored documents.
struct Opened {
    dir: std::path::PathBuf,
    searcher: tantivy::Searcher,
    fields: Vec<(String, Field, FieldType)>,
    docs: u32,
}

fn open(dir: &Path) -> Result<Opened> {
    // Checksums, then one segment, no deletions: the parallel-index rules, checked in
    // one place, before anything is printed.
    let (index, searcher) = open_verified_parallel_index_released(dir)?;
    let schema = index.schema();
    // `anchor_from` (hashes of the anchors' source URL keys, for access views) is stored
    // for merges, not for readers: the dump keeps NutchWAX's columns.
    let fields = schema
        .fields()
        .filter(|(_, e)| e.is_stored() && e.name() != crate::schema::ANCHOR_FROM_FIELD)
        .map(|(f, e)| (e.name().to_string(), f, e.field_type().clone()))
        .collect();
    let docs = doc_count(&searcher);
    Ok(Opened {
        dir: dir.to_path_buf(),
        searcher,
        fields,
        docs,
    })
}

/// What to print.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DumpMode {
    /// Every field of every document.
    All,
    /// One field's values per document.
    Field(String),
    /// The sorted field names.
    List,
    /// The document count.
    Count,
}

/// Dumps `dirs` (opened side by side) to `out`. A field asked for with `Field` that no
/// index has gives an error of kind `NotFound` (the CLI exits 2, as NutchWAX); an
/// error writing to `out` is the `Io` error the writer gave.
pub fn dump(dirs: &[&Path], mode: &DumpMode, out: &mut dyn Write) -> Result<()> {
    let opened: Vec<Opened> = dirs.iter().map(|d| open(d)).collect::<Result<_>>()?;
    let docs = opened.first().map_or(0, |o| o.docs);
    if let Some((i, o)) = opened.iter().enumerate().find(|(_, o)| o.docs != docs) {
        return Err(Error::DocumentCounts {
            index: dirs[i].to_path_buf(),
            docs: o.docs,
            first: dirs[0].to_path_buf(),
            first_docs: docs,
        });
    }
    // Same counts are not enough: a dates index built for another main must not be
    // shown beside it (its dates would belong to other documents).
    let pairs: Vec<(&Path, &tantivy::Searcher)> = opened
        .iter()
        .map(|o| (o.dir.as_path(), &o.searcher))
        .collect();
    check_parallel(&pairs)?;
    // Field name → (index, field), the first index naming a field wins; names sorted.
    let mut names: Vec<(String, usize, Field)> = Vec::new();
    for (i, o) in opened.iter().enumerate() {
        for (name, f, _) in &o.fields {
            if !names.iter().any(|(n, _, _)| n == name) {
                names.push((name.clone(), i, *f));
            }
        }
    }
    names.sort_by(|a, b| a.0.cmp(&b.0));
    match mode {
        DumpMode::Count => Ok(writeln!(out, "{docs}")?),
        DumpMode::List => {
            for (n, _, _) in &names {
                writeln!(out, "{n}")?;
            }
            Ok(())
        }
        DumpMode::Field(name) => {
            let Some((_, i, f)) = names.iter().find(|(n, _, _)| n == name) else {
                return Err(Error::NoSuchField(name.clone()));
            };
            for d in 0..docs {
                let o = &opened[*i];
                let doc: TantivyDocument = o.searcher.doc(DocAddress::new(0, d)).at(&o.dir)?;
                writeln!(out, "{}", values(&doc, *f))?;
            }
            Ok(())
        }
        DumpMode::All => {
            for (n, _, _) in &names {
                write!(out, "{n}\t")?;
            }
            writeln!(out)?;
            for d in 0..docs {
                let docs_d: Vec<TantivyDocument> = opened
                    .iter()
                    .map(|o| o.searcher.doc(DocAddress::new(0, d)).at(&o.dir))
                    .collect::<Result<_, _>>()?;
                for (_, i, f) in &names {
                    write!(out, "{}\t", values(&docs_d[*i], *f))?;
                }
                writeln!(out)?;
            }
            Ok(())
        }
    }
}

/// Java's `Arrays.toString`: `[a, b]`, `[]` when absent.
fn values(doc: &TantivyDocument, f: Field) -> String {
    let v: Vec<String> = doc
        .get_all(f)
        .map(|v| {
            if let Some(s) = v.as_str() {
                s.to_string()
            } else if let Some(n) = v.as_u64() {
                n.to_string()
            } else if let Some(x) = v.as_f64() {
                format!("{x}")
            } else if let Some(n) = v.as_i64() {
                n.to_string()
            } else {
                String::new()
            }
        })
        .collect();
    format!("[{}]", v.join(", "))
}
