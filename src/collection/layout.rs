//! Where things are in a collection directory (docs/guide.md, "On-disk layout"):
//!
//! ```text
//! collection.json                 every archive and batch (collection/manifest.rs)
//! cdx/<archive>.cdx               each archive's sorted CDX
//! all.cdx, all.dup, all.rev       the collection's sorted CDX and NutchWAX lists
//! segments/<batch>/               each batch's parsed versions
//! pindexes -> .generations/<n>    the parallel sets search reads: a symbolic link
//! .generations/<n>/<set>/{main,dates}
//! .staging/                       the batch or compaction under way (plan.json first,
//!                                 READY once everything is built)
//! ```
//!
//! `search` and `serve` see a batch all at once or not at all: everything they read is
//! under `pindexes`, which moves from one complete generation to the next in one rename.
//! A replay server reading the cluster through `zipnum` sees it the same way.

use std::path::{Path, PathBuf};

/// The paths of one collection.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The collection's directory.
    pub dir: PathBuf,
}

impl Layout {
    /// The layout of `dir`.
    pub fn new(dir: &Path) -> Layout {
        Layout {
            dir: dir.to_path_buf(),
        }
    }
    /// `collection.json`.
    pub fn manifest(&self) -> PathBuf {
        self.dir.join(super::manifest::MANIFEST_FILE)
    }
    /// `cdx/`.
    pub fn cdx_dir(&self) -> PathBuf {
        self.dir.join("cdx")
    }
    /// `all.cdx`, `all.dup` or `all.rev`.
    pub fn list(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
    /// `segments/<batch>`.
    pub fn segment(&self, batch: &str) -> PathBuf {
        self.dir.join("segments").join(batch)
    }
    /// `pindexes`, the link search follows.
    pub fn pindexes(&self) -> PathBuf {
        self.dir.join("pindexes")
    }
    /// `.generations/`.
    pub fn generations(&self) -> PathBuf {
        self.dir.join(".generations")
    }
    /// `.generations/<n>`, named with six digits so they sort.
    pub fn generation(&self, n: u64) -> PathBuf {
        self.generations().join(generation_name(n))
    }
    /// `zipnum`, the link to the current ZipNum cluster of `all.cdx`.
    pub fn zipnum(&self) -> PathBuf {
        self.dir.join("zipnum")
    }
    /// `.zipnum/`, where the clusters the link points at are.
    pub fn zipnum_clusters(&self) -> PathBuf {
        self.dir.join(".zipnum")
    }
    /// `.zipnum/<name>`: the cluster written with batch `<name>` (or rewritten after it).
    pub fn zipnum_cluster(&self, name: &str) -> PathBuf {
        self.zipnum_clusters().join(name)
    }
    /// `.staging/`.
    pub fn staging(&self) -> PathBuf {
        self.dir.join(".staging")
    }
    /// How an archive's path is recorded (`collection.json`, the segments' sources and
    /// rows): `archive` (an absolute path, as [`absolute`] gives) relative to the
    /// collection's directory when it lies inside it, so that the collection moves with
    /// the archives it holds; absolute otherwise, so that the collection can move without
    /// them. Never relative to the working directory `update` ran in.
    pub fn recorded_path(&self, archive: &Path) -> crate::path_error::Result<String> {
        let dir = absolute(&self.dir)?;
        let p = archive.strip_prefix(&dir).unwrap_or(archive);
        Ok(p.to_string_lossy().into_owned())
    }
    /// An archive's recorded path resolved on read: relative paths are the collection
    /// directory's (see [`Layout::recorded_path`]); absolute ones are kept.
    pub fn archive_path(&self, recorded: &str) -> PathBuf {
        self.dir.join(recorded)
    }
    /// `.staging/`, with the paths of what it holds.
    pub fn staging_area(&self) -> Staging {
        Staging {
            dir: self.staging(),
        }
    }
}

/// The absolute path of an existing file or directory, symbolic links resolved, so
/// that it means the same from any working directory; an error naming `path` when it
/// cannot be resolved (a missing file).
pub fn absolute(path: &Path) -> crate::path_error::Result<PathBuf> {
    use crate::path_error::ResultAtPath;
    Ok(std::fs::canonicalize(path).at(path)?)
}

/// `000042` for generation 42.
pub fn generation_name(n: u64) -> String {
    format!("{n:06}")
}

/// The staged work of one batch or compaction, under `.staging/`.
#[derive(Debug, Clone)]
pub struct Staging {
    /// `.staging/`.
    pub dir: PathBuf,
}

impl Staging {
    /// `plan.json`: what is being built (a resumed run goes on only if it matches).
    pub fn plan(&self) -> PathBuf {
        self.dir.join("plan.json")
    }
    /// `READY`: everything is built; from here on the run only publishes.
    pub fn ready(&self) -> PathBuf {
        self.dir.join("READY")
    }
    /// `cdx/<archive>.cdx`.
    pub fn cdx(&self, archive: &str) -> PathBuf {
        self.dir.join("cdx").join(format!("{archive}.cdx"))
    }
    /// A list or merged CDX: `all.cdx`, `all.dup`, `all.rev`, `batch.dup`, …
    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
    /// `zipnum/`: the ZipNum cluster of the staged `all.cdx`.
    pub fn zipnum(&self) -> PathBuf {
        self.dir.join("zipnum")
    }
    /// `segment/`.
    pub fn segment(&self) -> PathBuf {
        self.dir.join("segment")
    }
    /// `generation/`: the complete next generation of parallel sets.
    pub fn generation(&self) -> PathBuf {
        self.dir.join("generation")
    }
    /// `generation.tmp/`: the next generation while it is built.
    pub fn generation_tmp(&self) -> PathBuf {
        self.dir.join("generation.tmp")
    }
    /// `collection.json`: the manifest after this batch.
    pub fn manifest(&self) -> PathBuf {
        self.dir.join(super::manifest::MANIFEST_FILE)
    }
}
