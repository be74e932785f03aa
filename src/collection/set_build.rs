//! The two steps by which a batch and a compaction both build a set: its main index
//! from segments, under the run's sort budget, and the options its dates index is
//! added with.

use std::path::{Path, PathBuf};

use warcdex_cdx::sort::SortOptions;

use super::error::Result;
use super::Stages;
use crate::dates::add::AddDatesOptions;
use crate::index::{build_index, IndexOptions};
use crate::pindex::MainInfo;

/// The stage "index": the main index `main` of `segments`, sorted within `sort`'s
/// memory and temporary directory.
pub(super) fn index_segments(
    segments: &[PathBuf],
    main: &Path,
    sort: &SortOptions,
    stages: &dyn Stages,
) -> Result<MainInfo> {
    let bar = stages.stage("index", 0);
    let info = build_index(
        segments,
        main,
        &IndexOptions {
            sort: sort.clone(),
            // The run's whole `--memory` (its sorts have half each,
            // `UpdateOptions::sort_options`): the writer works after them.
            writer_memory: sort.memory.saturating_mul(2),
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
