//! The archives of a collection by the names its CDX gives them: the table that
//! `/warcs/NAME`, a capture read by offset and a record export look a name up in, so
//! that no part of a request ever becomes a path.
//!
//! Read from `collection.json` ([`super::manifest`]), each recorded path resolved by
//! [`Layout::archive_path`]. A WACZ is there under its own name, and each WARC inside it
//! under the WARC's name (the CDX `filename` of its captures), located by the ZIP's
//! central directory. The collection grows under `warcdex update`, which replaces the
//! file by a rename, so the table is read again when the file's modification time, size
//! or inode changes. A directory without `collection.json` (an index built step by step)
//! has no archives.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use super::layout::Layout;
use super::manifest::MANIFEST_FILE;
use crate::path_error::{AtPath, ResultAtPath};
use crate::reader::location::ArchiveLocation;
use crate::reader::wacz::{is_wacz, Wacz};

/// Why the table could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ArchivesError {
    /// `collection.json` is there but could not be read.
    #[error(transparent)]
    Read(#[from] AtPath<io::Error>),
    /// `collection.json` does not parse as a collection's manifest.
    #[error(transparent)]
    Parse(#[from] AtPath<serde_json::Error>),
}

/// The archives of a collection: each name a CDX may give to where its bytes are.
#[derive(Debug, Default)]
pub struct ArchiveTable {
    paths: HashMap<String, ArchiveLocation>,
}

impl ArchiveTable {
    /// Where the archive named `name` is, if the collection holds one of that name.
    pub fn location(&self, name: &str) -> Option<&ArchiveLocation> {
        self.paths.get(name)
    }

    /// How many archives the collection records.
    pub fn len(&self) -> usize {
        self.paths.len()
    }

    /// Whether the collection records no archive.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }
}

/// What tells one version of `collection.json` from the next: a rename gives a new
/// inode even when the time and size happen to be equal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    modified: Option<SystemTime>,
    len: u64,
    inode: u64,
}

impl Stamp {
    fn of(m: &std::fs::Metadata) -> Stamp {
        Stamp {
            modified: m.modified().ok(),
            len: m.len(),
            inode: std::os::unix::fs::MetadataExt::ino(m),
        }
    }
}

/// The table as last read, and the version of the file it was read from (`None`: there
/// was no file).
struct Current {
    stamp: Option<Stamp>,
    table: Arc<ArchiveTable>,
}

/// The archives of the collection in `dir`, read again when `collection.json` changes.
/// Its methods touch the file system: call them off the async workers.
pub struct Archives {
    dir: PathBuf,
    current: Mutex<Option<Current>>,
}

impl Archives {
    /// The archives of the collection in `dir` (read at the first lookup).
    pub fn new(dir: &Path) -> Archives {
        Archives {
            dir: dir.to_path_buf(),
            current: Mutex::new(None),
        }
    }

    /// The table as `collection.json` is now: read again if the file changed since the
    /// last call. A file that changed but cannot be read or parsed leaves the table read
    /// before in use (the error is logged, and tried again when the file changes next);
    /// without a table read before, it is the error.
    pub fn table(&self) -> Result<Arc<ArchiveTable>, ArchivesError> {
        let path = self.dir.join(MANIFEST_FILE);
        let stamp = match std::fs::metadata(&path) {
            Ok(m) => Some(Stamp::of(&m)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(AtPath { path, source: e }.into()),
        };
        let mut current = self.current.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = current.as_ref().filter(|c| c.stamp == stamp) {
            return Ok(c.table.clone());
        }
        let table = match stamp {
            None => Ok(Arc::default()),
            Some(_) => read_table(&self.dir, &path).map(Arc::new),
        };
        let table = match (table, current.take()) {
            (Ok(t), _) => t,
            (Err(e), Some(old)) => {
                eprintln!(
                    "warcdex serve: {}; still serving the archives read before",
                    crate::path_error::Chain(&e)
                );
                old.table
            }
            (Err(e), None) => return Err(e),
        };
        *current = Some(Current {
            stamp,
            table: table.clone(),
        });
        Ok(table)
    }

    /// Where the archive named `name` is, if the collection holds one
    /// ([`Archives::table`]).
    pub fn location(&self, name: &str) -> Result<Option<ArchiveLocation>, ArchivesError> {
        Ok(self.table()?.location(name).cloned())
    }
}

/// Reads `collection.json` at `path` into a table, paths resolved against `dir`.
fn read_table(dir: &Path, path: &Path) -> Result<ArchiveTable, ArchivesError> {
    let text = std::fs::read(path).at(path)?;
    let m: super::manifest::CollectionManifest = serde_json::from_slice(&text).at(path)?;
    Ok(table_of(&Layout::new(dir), &m))
}

/// The table of the archives `m` records. `update` refuses a second archive of the same
/// name, so the first of a name is the one; a WARC inside a WACZ is found under its own
/// name unless an archive recorded before has that name. A WACZ whose directory cannot be
/// read now is there under its own name only (its captures answer that their archive is
/// not in the collection, and the server's log says why).
pub fn table_of(layout: &Layout, m: &super::manifest::CollectionManifest) -> ArchiveTable {
    let mut paths = HashMap::with_capacity(m.archives.len());
    let mut parts = Vec::new();
    for a in &m.archives {
        let file = layout.archive_path(&a.path);
        if is_wacz(&file) {
            match Wacz::open(&file) {
                Ok(w) => parts.extend(w.archives().map(|e| {
                    (
                        e.base_name().to_string(),
                        ArchiveLocation::in_wacz(&file, e.clone()),
                    )
                })),
                Err(e) => eprintln!("warcdex: {}", crate::path_error::Chain(&e)),
            }
        }
        paths
            .entry(a.name.clone())
            .or_insert_with(|| ArchiveLocation::file(&file));
    }
    for (name, at) in parts {
        paths.entry(name).or_insert(at);
    }
    ArchiveTable { paths }
}

#[cfg(test)]
mod tests {
    use super::super::manifest::{ArchiveEntry, CollectionManifest};
    use super::*;

    fn write(dir: &Path, archives: &[(&str, &str)]) {
        let mut m = CollectionManifest::new();
        m.archives = (archives.iter())
            .map(|(name, path)| ArchiveEntry {
                name: name.to_string(),
                path: path.to_string(),
                size: 1,
                sha1: String::new(),
                collection: String::new(),
                batch: "batch-0001".into(),
                records: 0,
                captures: 0,
                imported: 0,
                excluded: 0,
                anomalies: Default::default(),
                error: None,
            })
            .collect();
        write_text(dir, &serde_json::to_string(&m).unwrap());
    }

    fn write_text(dir: &Path, json: &str) {
        // Under another name and renamed, as `update` writes it.
        let tmp = dir.join("collection.json.tmp");
        std::fs::write(&tmp, json).unwrap();
        std::fs::rename(&tmp, dir.join(MANIFEST_FILE)).unwrap();
    }

    fn file_of(archives: &Archives, name: &str) -> Option<PathBuf> {
        let at = archives.location(name).unwrap()?;
        Some(at.path().to_path_buf())
    }

    #[test]
    fn names_resolve_relative_and_absolute_paths_and_follow_changes() {
        let d = tempfile::tempdir().unwrap();
        let archives = Archives::new(d.path());
        assert!(archives.table().unwrap().is_empty(), "no collection.json");
        write(
            d.path(),
            &[("a.warc.gz", "warcs/a.warc.gz"), ("b.arc", "/data/b.arc")],
        );
        assert_eq!(archives.table().unwrap().len(), 2);
        assert_eq!(
            file_of(&archives, "a.warc.gz").unwrap(),
            d.path().join("warcs/a.warc.gz")
        );
        assert_eq!(
            file_of(&archives, "b.arc").unwrap(),
            Path::new("/data/b.arc")
        );
        assert!(file_of(&archives, "c.warc").is_none());
        assert!(file_of(&archives, "../a.warc.gz").is_none());
        write(d.path(), &[("c.warc", "c.warc")]);
        assert_eq!(
            file_of(&archives, "c.warc").unwrap(),
            d.path().join("c.warc")
        );
        // A manifest that no longer parses: the table read before stays.
        write_text(d.path(), "{");
        assert!(file_of(&archives, "c.warc").is_some());
        // Without one read before, the error names the file.
        let e = Archives::new(d.path()).table().unwrap_err();
        assert!(matches!(e, ArchivesError::Parse(_)), "{e:?}");
        assert!(e.to_string().ends_with("collection.json"), "{e}");
    }

    /// Each WARC of a WACZ is found under the name its CDX lines give it, and its bytes
    /// are read in place: the record at a CDX offset is the record of the WARC alone.
    #[test]
    fn a_warc_inside_a_wacz_is_found_by_its_cdx_name_and_read_in_place() {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/wacz/crawl.wacz");
        let d = tempfile::tempdir().unwrap();
        std::fs::copy(&fixture, d.path().join("crawl.wacz")).unwrap();
        write(d.path(), &[("crawl.wacz", "crawl.wacz")]);
        let archives = Archives::new(d.path());
        let wacz = Wacz::open(&d.path().join("crawl.wacz")).unwrap();
        let inner: Vec<_> = wacz.archives().cloned().collect();
        assert!(!inner.is_empty());
        assert!(
            archives.location("crawl.wacz").unwrap().is_some(),
            "the WACZ itself"
        );
        for e in inner {
            let at = archives
                .location(e.base_name())
                .unwrap()
                .expect("the inner WARC");
            assert_eq!(at.path(), d.path().join("crawl.wacz"));
            // The WARC's own bytes, by the WACZ reader, against the location's.
            let mut whole = Vec::new();
            std::io::Read::read_to_end(&mut wacz.open_entry(&e).unwrap(), &mut whole).unwrap();
            let mut cut = Vec::new();
            std::io::Read::read_to_end(&mut at.read_range(10, 100).unwrap(), &mut cut).unwrap();
            assert_eq!(cut, whole[10..110]);
            let mut tail = Vec::new();
            let end = whole.len() as u64;
            std::io::Read::read_to_end(&mut at.read_range(end - 5, 100).unwrap(), &mut tail)
                .unwrap();
            assert_eq!(tail, whole[whole.len() - 5..], "never past the entry's end");
            let mut r = at
                .open_range(0, end, crate::reader::ReaderOptions::default())
                .unwrap();
            assert!(r.next_record().unwrap().is_some(), "a record at offset 0");
        }
    }
}
