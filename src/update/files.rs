//! File moves of a collection: every write is a temporary name renamed into place, and
//! every publishing step can run twice (a resumed `update` repeats the step it was killed
//! in), so each one checks whether it already happened.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::error::{Error, Result};
use crate::output;
use crate::path_error::{AtPath, ResultAtPath};

/// Writes `bytes` to `path` through a synced temporary file renamed into place.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut tmp = output::temp_file_beside(path)?;
    tmp.write_all(bytes).at(path)?;
    output::persist_file(tmp, path)?;
    Ok(())
}

/// Renames `from` to `to` unless that already happened (`from` gone and `to` present).
/// Syncs `to`'s folder so that the rename survives a crash.
pub fn move_into_place(from: &Path, to: &Path) -> Result<()> {
    if !from.exists() && (to.exists() || to.is_symlink()) {
        return Ok(());
    }
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).at(parent)?;
    }
    std::fs::rename(from, to).map_err(|source| Error::Rename {
        from: from.to_path_buf(),
        to: to.to_path_buf(),
        source,
    })?;
    output::sync_dir(&output::parent_of(to))?;
    Ok(())
}

/// Removes a file or a tree if it is there.
pub fn remove_any(path: &Path) -> Result<()> {
    let r = match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => Err(e),
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
    };
    r.at(path)?;
    Ok(())
}

/// Makes `to` a copy of the tree `from` whose files are hard links: the files of a
/// published index are never written again (every change writes a new index), so a
/// generation shares them with the one before at no cost in space. Falls back to a copy
/// where the file system refuses links.
pub fn link_tree(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).at(to)?;
    for e in std::fs::read_dir(from).at(from)? {
        let e = e.at(from)?;
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if e.file_type().at(&src)?.is_dir() {
            link_tree(&src, &dst)?;
        } else if std::fs::hard_link(&src, &dst).is_err() {
            std::fs::copy(&src, &dst).at(&dst)?;
        }
    }
    Ok(())
}

/// Points the symbolic link `link` at `target` in one step (a new link under a
/// temporary name renamed over the old one), so a reader resolves the old target or the
/// new one, never neither.
#[cfg(unix)]
pub fn swap_symlink(link: &Path, target: &Path) -> Result<()> {
    if std::fs::read_link(link).ok().as_deref() == Some(target) {
        return Ok(());
    }
    let tmp = tmp_name(link);
    remove_any(&tmp)?;
    std::os::unix::fs::symlink(target, &tmp).at(&tmp)?;
    std::fs::rename(&tmp, link).at(link)?;
    output::sync_dir(&output::parent_of(link))?;
    Ok(())
}

/// Without symbolic links, the directory is replaced by two renames (a reader may find
/// it missing for that moment).
#[cfg(not(unix))]
pub fn swap_symlink(link: &Path, target: &Path) -> Result<()> {
    let old = tmp_name(link);
    remove_any(&old)?;
    if link.exists() {
        std::fs::rename(link, &old).at(link)?;
    }
    link_tree(target, link)?;
    remove_any(&old)
}

/// `dir/.name.tmp` for `dir/name`.
fn tmp_name(p: &Path) -> PathBuf {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    output::parent_of(p).join(format!(".{name}.tmp"))
}

/// A system error about `path`, as the collection layer's error.
pub fn at(e: io::Error, path: &Path) -> super::Error {
    AtPath {
        path: path.to_path_buf(),
        source: e,
    }
    .into()
}

/// Writes through `f` to a synced temporary file beside `path`, renamed to `path` when
/// `f` succeeds.
pub fn write_with<T>(path: &Path, f: impl FnOnce(&mut dyn Write) -> Result<T>) -> Result<T> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).at(parent)?;
    }
    let tmp = output::temp_file_beside(path)?;
    let mut w = io::BufWriter::with_capacity(1 << 16, tmp);
    let r = f(&mut w)?;
    let tmp = w.into_inner().map_err(|e| at(e.into_error(), path))?;
    output::persist_file(tmp, path)?;
    Ok(r)
}

/// The total size of the files that exist among `paths`.
pub fn total_size(paths: &[PathBuf]) -> u64 {
    paths
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum()
}
