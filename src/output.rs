//! Outputs are built under a temporary name beside their destination, then renamed into
//! place, so a crash never leaves half an index or segment behind.

use std::io;
use std::path::{Path, PathBuf};

/// A new temporary directory (named `PREFIX…`) in the directory that holds `dest`,
/// created if missing, so a rename to `dest` stays on one file system.
pub(crate) fn temp_dir_beside(dest: &Path, prefix: &str) -> io::Result<tempfile::TempDir> {
    let parent = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent)?;
    tempfile::Builder::new().prefix(prefix).tempdir_in(&parent)
}
