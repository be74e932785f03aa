//! The archives of the collection being served, by name: the table that `/warcs/NAME`
//! (and a capture read by offset) looks a request's name up in, so that no part of a
//! request ever becomes a path.
//!
//! Read from `collection.json` in the served directory. `serve` stands below
//! `collection` (tests/layering.rs), so this module reads only the two fields it needs,
//! with the rule `collection::layout::Layout::archive_path` applies: a recorded path is
//! relative to the collection's directory when the archive lies inside it, absolute
//! otherwise. The collection grows under `warcdex update`, which replaces the file by a
//! rename, so the table is read again when the file's modification time, size or inode
//! changes. A directory without `collection.json` (an index built step by step) has no
//! archives.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use serde::Deserialize;

use crate::path_error::{AtPath, ResultAtPath};

/// The collection's manifest, in the directory served.
const MANIFEST_FILE: &str = "collection.json";

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

/// The part of `collection.json` read here.
#[derive(Deserialize)]
struct Manifest {
    archives: Vec<Recorded>,
}

/// One archive as `collection.json` records it (its other fields are not read).
#[derive(Deserialize)]
struct Recorded {
    name: String,
    path: String,
}

/// The archives of a collection: recorded name to the path of the file.
#[derive(Debug, Default)]
pub struct ArchiveTable {
    paths: HashMap<String, PathBuf>,
}

impl ArchiveTable {
    /// The file of the archive recorded as `name`, if one is.
    pub fn path(&self, name: &str) -> Option<&Path> {
        self.paths.get(name).map(PathBuf::as_path)
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

    /// The file of the archive recorded as `name`, if one is ([`Archives::table`]).
    pub fn path(&self, name: &str) -> Result<Option<PathBuf>, ArchivesError> {
        Ok(self.table()?.path(name).map(Path::to_path_buf))
    }
}

/// Reads `collection.json` at `path` into a table, paths resolved against `dir`.
fn read_table(dir: &Path, path: &Path) -> Result<ArchiveTable, ArchivesError> {
    let text = std::fs::read(path).at(path)?;
    let m: Manifest = serde_json::from_slice(&text).at(path)?;
    let mut paths = HashMap::with_capacity(m.archives.len());
    for a in m.archives {
        // Joining an absolute path keeps it: the rule of `Layout::archive_path`.
        let file = dir.join(&a.path);
        // `update` refuses a second archive of the same name, so the first is the one.
        paths.entry(a.name).or_insert(file);
    }
    Ok(ArchiveTable { paths })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, json: &str) {
        // Under another name and renamed, as `update` writes it.
        let tmp = dir.join("collection.json.tmp");
        std::fs::write(&tmp, json).unwrap();
        std::fs::rename(&tmp, dir.join(MANIFEST_FILE)).unwrap();
    }

    #[test]
    fn names_resolve_relative_and_absolute_paths_and_follow_changes() {
        let d = tempfile::tempdir().unwrap();
        let archives = Archives::new(d.path());
        assert!(archives.table().unwrap().is_empty(), "no collection.json");
        write(
            d.path(),
            r#"{"version": 1, "archives": [
                {"name": "a.warc.gz", "path": "warcs/a.warc.gz", "size": 1},
                {"name": "b.arc", "path": "/data/b.arc"}]}"#,
        );
        let t = archives.table().unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(
            t.path("a.warc.gz").unwrap(),
            d.path().join("warcs/a.warc.gz")
        );
        assert_eq!(t.path("b.arc").unwrap(), Path::new("/data/b.arc"));
        assert!(t.path("c.warc").is_none());
        assert!(t.path("../a.warc.gz").is_none());
        write(
            d.path(),
            r#"{"archives": [{"name": "c.warc", "path": "c.warc"}]}"#,
        );
        assert_eq!(
            archives.path("c.warc").unwrap().unwrap(),
            d.path().join("c.warc")
        );
        // A manifest that no longer parses: the table read before stays.
        write(d.path(), "{");
        assert!(archives.path("c.warc").unwrap().is_some());
        // Without one read before, the error names the file.
        let e = Archives::new(d.path()).table().unwrap_err();
        assert!(matches!(e, ArchivesError::Parse(_)), "{e:?}");
        assert!(e.to_string().ends_with("collection.json"), "{e}");
    }
}
