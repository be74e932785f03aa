//! Opening an index as a parallel index: one segment and no deleted documents, so that
//! DocId = position, the join key of parallel indexes. Indexes never change once
//! written, so searchers have no reload thread.

use std::path::Path;

use tantivy::{Index, ReloadPolicy, Searcher};

use super::directory::{open_read_only, open_released_read_only};
use super::{Error, Result};
use crate::path_error::ResultAtPath;

/// A searcher over `index` as it is now, with no reload thread (`dir` names it in
/// errors).
pub fn searcher_without_reload(index: &Index, dir: &Path) -> Result<Searcher> {
    let reader: tantivy::IndexReader = index
        .reader_builder()
        .reload_policy(ReloadPolicy::Manual)
        .try_into()
        .at(dir)?;
    Ok(reader.searcher())
}

/// The segments of `index` (each written in `seq` order) ordered by their first `seq`, the
/// order a merge must stack them in for DocId = `seq`: tantivy lists segments from a
/// HashMap (its src/indexer/segment_register.rs). `dir` names it in errors.
pub fn segments_in_seq_order(
    index: &Index,
    dir: &Path,
    seq_field: &str,
) -> Result<Vec<tantivy::index::SegmentId>> {
    let searcher = searcher_without_reload(index, dir)?;
    let mut firsts = Vec::new();
    for seg in searcher.segment_readers() {
        let seq = seg.fast_fields().u64(seq_field).at(dir)?;
        firsts.push((seq.first(0).unwrap_or(0), seg.segment_id()));
    }
    firsts.sort();
    Ok(firsts.into_iter().map(|(_, id)| id).collect())
}

/// Opens the index in `dir` for reading only (no lock file, no write:
/// [`super::directory::ReadOnly`]) and a searcher over it, refusing an index of more than one
/// segment or with deleted documents: its DocIds would not be positions.
pub fn open_parallel_index(dir: &Path) -> Result<(Index, Searcher)> {
    let index = open_read_only(dir)?;
    crate::schema::analysis::register(&index);
    check_parallel_index(dir, index)
}

/// [`open_parallel_index`] for a command that reads the index through once (add-dates,
/// dumpindex): the pages it reads do not stay resident ([`ReleasingDirectory`]).
pub fn open_parallel_index_released(dir: &Path) -> Result<(Index, Searcher)> {
    let index = open_released_read_only(dir)?;
    crate::schema::analysis::register(&index);
    check_parallel_index(dir, index)
}

/// [`open_parallel_index_released`] for `dumpindex`, which prints what it reads: every
/// segment file's checksum is checked first ([`check_checksums`]), so a damaged index is
/// refused, naming the file, before a row of it is printed (it printed the rows before
/// the damage, then failed; or, a damaged file it never reads whole, all of them).
pub fn open_verified_parallel_index_released(dir: &Path) -> Result<(Index, Searcher)> {
    let index = open_released_read_only(dir)?;
    crate::schema::analysis::register(&index);
    check_checksums(&index, dir)?;
    check_parallel_index(dir, index)
}

/// A searcher over `index` (in `dir`), refused unless it is a parallel index.
fn check_parallel_index(dir: &Path, index: Index) -> Result<(Index, Searcher)> {
    let searcher = searcher_without_reload(&index, dir)?;
    let segments = searcher.segment_readers().len();
    if segments > 1 {
        return Err(Error::NotOneSegment {
            dir: dir.to_path_buf(),
            segments,
        });
    }
    if let Some(s) = searcher.segment_readers().first() {
        if s.num_docs() != s.max_doc() {
            return Err(Error::DeletedDocuments(dir.to_path_buf()));
        }
    }
    Ok((index, searcher))
}

/// Checks the CRC-32 footer of every file of the index's segments, so that a damaged
/// file is refused when the set is opened instead of panicking inside tantivy when a
/// query reaches it. Lists every file from the segments in `meta.json` (not from
/// `.managed.json`, which a damaged index may not list them in). `search` checks a set
/// when it opens it, `dumpindex` before it prints a row.
pub fn check_checksums(index: &Index, dir: &Path) -> Result<()> {
    use tantivy::directory::Directory;
    let metas = index.load_metas().at(dir)?;
    let mut files: Vec<std::path::PathBuf> = metas.list_segment_files().into_iter().collect();
    files.sort();
    let mut damaged = Vec::new();
    for f in files {
        let d = index.directory();
        if !d.exists(&f).map_err(tantivy::TantivyError::from).at(dir)? {
            continue;
        }
        if !d
            .validate_checksum(&f)
            .map_err(tantivy::TantivyError::from)
            .at(dir)?
        {
            damaged.push(f.display().to_string());
        }
    }
    if damaged.is_empty() {
        return Ok(());
    }
    Err(Error::ChecksumMismatch {
        dir: dir.to_path_buf(),
        files: damaged,
    })
}

/// The document count of a one-segment searcher.
pub fn doc_count(s: &Searcher) -> u32 {
    s.segment_readers().first().map_or(0, |r| r.max_doc())
}
