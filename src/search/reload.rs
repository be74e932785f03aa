//! Seeing a search directory change: the stamp of its sets' `pindex.json` files taken
//! when it is opened, compared by [`SearchIndex::changed`], and the one resolved path of
//! `DIR/pindexes` its sets are read through.

use std::path::{Path, PathBuf};

use super::SearchIndex;

/// What the sets of a search directory look like on disk: each set's `main` and
/// `dates` `pindex.json` (modification time, length, inode), by path. `add-dates`,
/// `index` and `merge` write a new `pindex.json` with every index they write, so a
/// changed stamp means a set must be reopened to be seen.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct Stamp(Vec<(PathBuf, Option<FileStamp>)>);

/// A file's modification time, length and inode.
type FileStamp = (Option<std::time::SystemTime>, u64, u64);

impl Stamp {
    pub(super) fn of(dir: &Path) -> Stamp {
        let mut out = Vec::new();
        if let Ok(entries) = std::fs::read_dir(resolved_pindexes(dir)) {
            for e in entries.flatten() {
                let set = e.path();
                if !set.is_dir() {
                    continue;
                }
                for part in ["main", "dates"] {
                    let p = set.join(part).join(crate::pindex::PINDEX_FILE);
                    let m = std::fs::metadata(&p).ok().map(|m| {
                        #[cfg(unix)]
                        let ino = std::os::unix::fs::MetadataExt::ino(&m);
                        #[cfg(not(unix))]
                        let ino = 0;
                        (m.modified().ok(), m.len(), ino)
                    });
                    out.push((p, m));
                }
            }
        }
        out.sort();
        Stamp(out)
    }
}

/// `DIR/pindexes` with its symbolic links resolved, once: in a collection made by
/// `update` it is a link that moves from one generation to the next
/// (src/collection/layout.rs), and reading every set through the one resolved path
/// keeps a search from mixing two generations when the link moves while it opens them.
pub(super) fn resolved_pindexes(dir: &Path) -> PathBuf {
    let p = dir.join("pindexes");
    std::fs::canonicalize(&p).unwrap_or(p)
}

impl SearchIndex {
    /// Whether a set was added, removed or rewritten (its `pindex.json` changed) since
    /// this index was opened: `serve` then reopens the directory.
    pub fn changed(&self) -> bool {
        Stamp::of(&self.dir) != self.stamp
    }
}
