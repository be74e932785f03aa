//! The two steps by which a batch and a compaction both build a set: its main index
//! from segments, under the run's sort budget, and the options its dates index is
//! added with.

use crate::progress::Unit;
use std::path::{Path, PathBuf};

use warcdex_cdx::sort::SortOptions;

use super::error::Result;
use super::{Stages, UpdateOptions};
use crate::dates::add::AddDatesOptions;
use crate::index::{build_index, IndexOptions};
use crate::pindex::MainInfo;

/// The stage "index": the main index `main` of `segments`, sorted within the run's sort
/// budget and temporary directory ([`UpdateOptions::sort_options`]), its writer given the
/// run's whole memory (it works after the sorts).
pub(super) fn index_segments(
    segments: &[PathBuf],
    main: &Path,
    opts: &UpdateOptions,
    stages: &dyn Stages,
) -> Result<MainInfo> {
    let bar = stages.stage("index", 0, Unit::Bytes);
    let info = build_index(
        segments,
        main,
        &IndexOptions {
            sort: opts.sort_options(),
            writer_memory: opts.memory,
            ..IndexOptions::default()
        },
    )?;
    bar.finish();
    Ok(info)
}

/// `add-dates` within the same memory and temporary directory as the run's sorts.
pub(super) fn dates_options(sort: &SortOptions) -> AddDatesOptions {
    AddDatesOptions {
        memory: sort.memory,
        tmp_dir: sort.tmp_dir.clone(),
        ..AddDatesOptions::default()
    }
}
