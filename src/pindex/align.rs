//! The checks that parallel indexes belong together. A dates index stores main's
//! `key_checksum` in its `pindex.json` and the [`keyhash`] of main's key at every
//! position, so a dates index built for another main (or an older build of it) is an
//! error instead of wrong dates.

use std::path::Path;

use tantivy::{DocId, Searcher};

use super::info::{read_info, PindexInfo};
use super::keys::{MainKeys, KEYHASH_FIELD};
use super::open::doc_count;
use super::{Error, Result};
use crate::path_error::ResultAtPath;

/// How many positions of a large pair [`check_dates_alignment`] compares (evenly
/// spaced, plus the last); all of them when there are fewer.
const ALIGN_SAMPLE: u32 = 4096;

/// The error saying that `dates` is not the dates index of `main`, and why.
pub fn misaligned(main: &Path, dates: &Path, why: impl std::fmt::Display) -> Error {
    Error::Misaligned {
        main: main.to_path_buf(),
        dates: dates.to_path_buf(),
        why: why.to_string(),
    }
}

/// Checks that the dates index at `dates` was built for the main index at `main`: the
/// same document count, main's `key_checksum`, and the `keyhash` of main's key at every
/// position (`all`) or at a sample of them.
pub fn check_dates_alignment(
    main: &Path,
    main_s: &Searcher,
    dates: &Path,
    dates_s: &Searcher,
    all: bool,
) -> Result<()> {
    let (n_main, n_dates) = (doc_count(main_s), doc_count(dates_s));
    if n_main != n_dates {
        return Err(misaligned(
            main,
            dates,
            format!("{n_dates} documents against {n_main}"),
        ));
    }
    let info = read_info(dates).map_err(|e| Error::Unreadable {
        main: main.to_path_buf(),
        dates: dates.to_path_buf(),
        source: Box::new(e),
    })?;
    let PindexInfo::Dates(info) = info else {
        return Err(misaligned(
            main,
            dates,
            format!("its pindex.json kind is {:?}", info.kind()),
        ));
    };
    let main_info = read_info(main)?;
    if info.key_checksum != main_info.key_checksum() {
        return Err(misaligned(
            main,
            dates,
            format!(
                "built for key checksum {} but main's is {}",
                info.key_checksum,
                main_info.key_checksum()
            ),
        ));
    }
    if n_main == 0 {
        return Ok(());
    }
    let keys = MainKeys::open(main, main_s)?;
    let hashes = dates_s.segment_readers()[0]
        .fast_fields()
        .u64(KEYHASH_FIELD)
        .at(dates)?;
    let step = if all || n_main <= ALIGN_SAMPLE {
        1
    } else {
        n_main / ALIGN_SAMPLE
    };
    let mut positions: Vec<DocId> = (0..n_main).step_by(step as usize).collect();
    if positions.last() != Some(&(n_main - 1)) {
        positions.push(n_main - 1);
    }
    let want = keys.keyhashes(&positions)?;
    for (&doc, want) in positions.iter().zip(want) {
        if hashes.first(doc) != Some(want) {
            let mut key = String::new();
            keys.key(doc, &mut key)?;
            return Err(misaligned(
                main,
                dates,
                format!("document {doc} was built for another key than {key:?}"),
            ));
        }
    }
    Ok(())
}

/// Checks that indexes opened side by side (dumpindex, search) belong together: every
/// dates index against every main index among them, and mains against each other, by
/// their `pindex.json`. Directories without one (foreign indexes) are only counted.
pub fn check_parallel(dirs: &[(&Path, &Searcher)]) -> Result<()> {
    let infos: Vec<Option<PindexInfo>> = dirs.iter().map(|(d, _)| read_info(d).ok()).collect();
    for (i, (m, ms)) in dirs.iter().enumerate() {
        let Some(PindexInfo::Main(main)) = &infos[i] else {
            continue;
        };
        for (j, (o, os)) in dirs.iter().enumerate() {
            match &infos[j] {
                Some(PindexInfo::Dates(_)) => check_dates_alignment(m, ms, o, os, false)?,
                Some(PindexInfo::Main(other))
                    if j > i && other.key_checksum != main.key_checksum =>
                {
                    return Err(Error::NotParallel {
                        first: m.to_path_buf(),
                        second: o.to_path_buf(),
                    })
                }
                _ => {}
            }
        }
    }
    Ok(())
}
