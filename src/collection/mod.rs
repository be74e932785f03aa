//! A collection, as everything that reads one sees it: its directory's [`layout`], its
//! [`manifest`] (`collection.json`), its archives by the names the CDX gives them
//! ([`archives`], each WARC inside a WACZ included), its CDX, segments and parallel
//! sets, and its access configuration. `serve`, `export`, `graph`, the capture view and
//! the command line take a [`Collection`]; `update` (a floor above) is the verb that
//! changes one.

pub mod archives;
pub mod layout;
pub mod manifest;

use std::path::{Path, PathBuf};

use warcdex_cdx::lookup::SortedCdx;

pub use archives::{ArchiveTable, Archives, ArchivesError};
use layout::Layout;
use manifest::CollectionManifest;

/// The name of the collection's sorted CDX of every capture.
pub const ALL_CDX: &str = "all.cdx";
/// The name of its NutchWAX exclusion list (`dedup-cdx`: captures of versions held).
pub const ALL_DUP: &str = "all.dup";
/// The name of its revisit list (`revisits`).
pub const ALL_REV: &str = "all.rev";

/// A collection directory opened for reading. Nothing is read until asked for, and
/// what changes under `update` (the manifest, the archives) is read again when the
/// file changes, so one `Collection` serves a growing collection.
pub struct Collection {
    layout: Layout,
    archives: Archives,
}

impl std::fmt::Debug for Collection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Collection")
            .field("dir", &self.layout.dir)
            .finish()
    }
}

impl Collection {
    /// The collection in `dir`: a directory `update` made, or one of parallel sets built
    /// step by step (which has no manifest and no archives).
    pub fn open(dir: &Path) -> Collection {
        Collection {
            layout: Layout::new(dir),
            archives: Archives::new(dir),
        }
    }

    /// Its directory.
    pub fn dir(&self) -> &Path {
        &self.layout.dir
    }

    /// Its directory's own name, links and `.` resolved (as given when that fails); `None`
    /// for a directory without one (`/`). What a collection is called when nothing names it.
    pub fn dir_name(&self) -> Option<String> {
        let dir = &self.layout.dir;
        let full = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone());
        full.file_name().map(|n| n.to_string_lossy().into_owned())
    }

    /// Where things are in it.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// `collection.json` as it is now; `None` for a directory without one.
    pub fn manifest(&self) -> crate::path_error::Result<Option<CollectionManifest>> {
        manifest::read_manifest(&self.layout.dir)
    }

    /// Its archives by name, read again when `collection.json` changes.
    pub fn archives(&self) -> &Archives {
        &self.archives
    }

    /// The path of its sorted CDX of every capture.
    pub fn cdx_path(&self) -> PathBuf {
        self.layout.list(ALL_CDX)
    }

    /// Its sorted CDX of every capture, opened for lookups (an error names the file).
    pub fn cdx(&self) -> std::io::Result<SortedCdx> {
        SortedCdx::open(&self.cdx_path())
    }

    /// The directory of every batch's segment, in the order the batches ran (none for a
    /// directory without a manifest).
    pub fn segments(&self) -> crate::path_error::Result<Vec<PathBuf>> {
        Ok((self.manifest()?.into_iter())
            .flat_map(|m| m.batches.into_iter())
            .map(|b| self.layout.segment(&b.name))
            .collect())
    }

    /// `pindexes`: the directory of the parallel sets that search reads.
    pub fn pindexes(&self) -> PathBuf {
        self.layout.pindexes()
    }

    /// Its access configuration (`access.json`); `None` when it has none.
    pub fn access_config(
        &self,
    ) -> Result<Option<crate::access::RulesConfig>, crate::access::AccessError> {
        crate::access::RulesConfig::of_collection(&self.layout.dir)
    }
}
