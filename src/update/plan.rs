//! Which of the archives given to `update` are new: each is named by its file name (the
//! CDX file-name column), and identified by size and SHA-1, so the same file given again
//! is skipped and another file under a recorded name is refused.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha1::{Digest, Sha1};

use super::error::{Error, Result};
use crate::collection::layout::{absolute, Layout};
use crate::collection::manifest::CollectionManifest;
use crate::path_error::{AtPath, ResultAtPath};
use crate::progress::Progress;

/// An archive given to `update`, identified.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GivenArchive {
    /// Its file name.
    pub name: String,
    /// Its absolute path (`layout::absolute`), what the run reads, so that a run
    /// resumed from another working directory finds the same archives.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// SHA-1 of the file, lowercase hex.
    pub sha1: String,
}

/// The archives of one run: those to add, and those already in the collection.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// New to the collection, in the order given.
    pub new: Vec<GivenArchive>,
    /// Already in the collection (same name, size and SHA-1), in the order given.
    pub skipped: Vec<GivenArchive>,
}

/// The file name an archive is known by.
pub fn archive_name(path: &Path) -> String {
    crate::reader::wacz::filename_column(path)
}

/// SHA-1 and size of a file, read in 1 MiB blocks; `progress` advances by the bytes.
pub fn sha1_of(path: &Path, progress: &dyn Progress) -> Result<(u64, String)> {
    let mut f = std::fs::File::open(path).at(path)?;
    let mut h = Sha1::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut size = 0u64;
    loop {
        let n = match f.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(source) => {
                return Err(AtPath {
                    path: path.to_path_buf(),
                    source,
                }
                .into())
            }
        };
        h.update(&buf[..n]);
        size += n as u64;
        progress.advance(n as u64);
    }
    Ok((size, data_encoding::HEXLOWER.encode(&h.finalize())))
}

/// Why `path` cannot be added, if it cannot: it is missing or a directory, or nothing of
/// it reads as an archive (no ARC, WARC or WACZ file, a WACZ that does not open, an
/// error before its first record, such as a zstd dictionary that does not load). The
/// message names the file and, where there is one, the offset. Only the first record of
/// each archive is read: damage after it is the batch's to report, not a refusal.
pub fn unreadable(path: &Path) -> Option<String> {
    if path.is_dir() {
        return Some(crate::path_error::directory_given(path));
    }
    let parts = match crate::reader::wacz::archive_parts(path) {
        Ok(p) => p,
        Err(e) => return Some(e.to_string()),
    };
    let mut first_problem = None;
    for part in &parts {
        let problem = match part.open(crate::reader::ReaderOptions::default()) {
            Err(e) => Some(e.to_string()),
            Ok(mut r) => match r.next_record() {
                Ok(_) => None,
                Err(e) if e.is_record_lost() => None,
                Err(e) => Some(e.to_string()),
            },
        };
        match problem {
            // One readable WARC makes a WACZ readable, as `cdx` indexes it.
            None => return None,
            Some(p) => {
                first_problem.get_or_insert(p);
            }
        }
    }
    first_problem
}

/// Identifies `paths` (hashing them in parallel) against the record of the collection
/// at `layout`. An archive whose name is recorded with another size or SHA-1, or two given archives
/// with one name, is an error that names both; a missing file is an error naming it.
pub fn plan(
    layout: &Layout,
    manifest: &CollectionManifest,
    paths: &[PathBuf],
    progress: &dyn Progress,
) -> Result<Plan> {
    use rayon::prelude::*;
    let given: Vec<GivenArchive> = paths
        .par_iter()
        .map(|p| {
            if p.is_dir() {
                return Err(Error::IsADirectory(p.clone()));
            }
            let (size, sha1) = sha1_of(p, progress)?;
            Ok(GivenArchive {
                name: archive_name(p),
                path: absolute(p)?.display().to_string(),
                size,
                sha1,
            })
        })
        .collect::<Result<_>>()?;
    let mut out = Plan::default();
    let mut seen: std::collections::HashMap<&str, &GivenArchive> = Default::default();
    for g in &given {
        if let Some(first) = seen.get(g.name.as_str()) {
            if first.sha1 == g.sha1 && first.size == g.size {
                continue; // the same file given twice: one archive
            }
            return Err(Error::SameName {
                name: g.name.clone(),
                first: first.path.clone(),
                second: g.path.clone(),
            });
        }
        seen.insert(&g.name, g);
        match manifest.archive(&g.name) {
            Some(a) if a.size == g.size && a.sha1 == g.sha1 => out.skipped.push(g.clone()),
            Some(a) => {
                return Err(Error::NameConflict {
                    name: g.name.clone(),
                    given: format!("{} ({} bytes, SHA-1 {})", g.path, g.size, g.sha1),
                    recorded: format!(
                        "{} ({} bytes, SHA-1 {})",
                        layout.archive_path(&a.path).display(),
                        a.size,
                        a.sha1
                    ),
                    batch: a.batch.clone(),
                })
            }
            None => out.new.push(g.clone()),
        }
    }
    Ok(out)
}
