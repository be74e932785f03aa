//! `collection.json`: every archive added to a collection (its name, its path from the
//! collection's directory, size, SHA-1, batch and counts) and every batch, written under a temporary
//! name and renamed, so a reader sees the previous state or the next, never half of one.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::path_error::Result;
use crate::path_error::{AtPath, ResultAtPath};

/// The file name of the manifest in a collection's directory.
pub const MANIFEST_FILE: &str = "collection.json";

/// The format version of `collection.json` (every one has its `version`): 1, the only
/// one so far, holds the archives, batches and compactions below. Version 1 is read; a
/// later one is refused, as made by a newer warcdex.
pub const COLLECTION_VERSION: u32 = 1;

/// A collection's record of itself.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CollectionManifest {
    /// Format version ([`COLLECTION_VERSION`]).
    pub version: u32,
    /// The URL canonicalizer of every CDX key and segment (`surt`).
    pub canonicalizer: String,
    /// The generation under `.generations/` that `pindexes` points at (0: none yet).
    pub generation: u64,
    /// The parallel sets the current generation holds, in name order.
    pub pindexes: Vec<String>,
    /// Every archive added, in the order added.
    pub archives: Vec<ArchiveEntry>,
    /// Every batch, in the order run.
    pub batches: Vec<BatchEntry>,
    /// Compactions, in the order run.
    #[serde(default)]
    pub compactions: Vec<CompactionEntry>,
    /// The ZipNum cluster of `all.cdx` that every batch writes again (`update --zipnum`),
    /// if the collection keeps one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zipnum: Option<ZipNumSettings>,
}

/// How the collection's ZipNum cluster is cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZipNumSettings {
    /// CDX lines per gzip block.
    pub lines_per_block: usize,
}

impl ZipNumSettings {
    /// The writer's options.
    pub fn options(self) -> crate::cdx_writer::zipnum::ZipNumOptions {
        crate::cdx_writer::zipnum::ZipNumOptions {
            lines_per_block: self.lines_per_block,
        }
    }
}

/// One archive of the collection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchiveEntry {
    /// Its file name: the CDX file-name column, and the name replay finds it by.
    pub name: String,
    /// Its path: relative to the collection's directory when it lies inside it,
    /// absolute otherwise (`Layout::recorded_path`; read with `Layout::archive_path`).
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// SHA-1 of the whole file, lowercase hex.
    pub sha1: String,
    /// The `collection:` of its documents.
    pub collection: String,
    /// The batch that added it.
    pub batch: String,
    /// Records read.
    pub records: u64,
    /// CDX lines written (captures, revisits included).
    pub captures: u64,
    /// Captures imported as new versions or as dates of versions of this batch.
    pub imported: u64,
    /// Captures already a version (of this collection or earlier in the file): their
    /// dates were added to it.
    pub excluded: u64,
    /// Reader anomalies by kind (a damaged archive is added with what could be read).
    pub anomalies: BTreeMap<String, u64>,
    /// The error that stopped reading it early, if one did.
    pub error: Option<String>,
}

/// One run of `update` that added archives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchEntry {
    /// Its name: `segments/<name>` and `pindexes/<name>` (until a compaction).
    pub name: String,
    /// Archives it added.
    pub archives: u64,
    /// CDX lines of those archives.
    pub captures: u64,
    /// Versions (URL key + digest) new to the collection, imported and indexed.
    pub new_versions: u64,
    /// Dates added to versions of earlier batches (captures and revisits).
    pub dates_added_to_earlier: u64,
    /// Revisit records among its captures.
    pub revisits: u64,
    /// Reader anomalies over its archives.
    pub anomalies: u64,
}

/// One compaction: every segment indexed again into one set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompactionEntry {
    /// The set it wrote.
    pub pindex: String,
    /// The batches it covers (every batch before it).
    pub batches: u64,
    /// Its documents.
    pub documents: u64,
}

impl CollectionManifest {
    /// An empty collection's manifest.
    pub fn new() -> CollectionManifest {
        CollectionManifest {
            version: COLLECTION_VERSION,
            canonicalizer: "surt".into(),
            ..CollectionManifest::default()
        }
    }

    /// The archive recorded under `name`, if any.
    pub fn archive(&self, name: &str) -> Option<&ArchiveEntry> {
        self.archives.iter().find(|a| a.name == name)
    }

    /// The name the next batch gets: `batch-0001`, `batch-0002`, …
    pub fn next_batch_name(&self) -> String {
        format!("batch-{:04}", self.batches.len() + 1)
    }
}

/// Reads `collection.json` from `dir`; `None` when there is none.
pub fn read_manifest(dir: &Path) -> Result<Option<CollectionManifest>> {
    let p = dir.join(MANIFEST_FILE);
    match std::fs::read_to_string(&p) {
        Ok(text) => {
            let m: CollectionManifest = serde_json::from_str(&text).at(&p)?;
            if m.version > COLLECTION_VERSION {
                return Err(crate::path_error::Error::NewerFormat {
                    path: p,
                    version: m.version,
                    read: COLLECTION_VERSION,
                });
            }
            Ok(Some(m))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(AtPath { path: p, source }.into()),
    }
}

/// Writes `m` as `path` (pretty JSON), synced, under a temporary name renamed into place.
pub fn write_manifest(path: &Path, m: &CollectionManifest) -> Result<()> {
    use std::io::Write;
    let json = serde_json::to_string_pretty(m).at(path)?;
    let mut tmp = crate::output::temp_file_beside(path)?;
    tmp.write_all((json + "\n").as_bytes()).at(path)?;
    crate::output::persist_file(tmp, path)?;
    Ok(())
}
