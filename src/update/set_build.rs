//! The two steps by which a batch and a compaction both build a set: its main index
//! from segments, under the run's sort budget, and the options its dates index is
//! added with.

use crate::progress::Unit;
use std::path::{Path, PathBuf};

use warcdex_cdx::sort::SortOptions;

use super::error::Result;
use super::{Stages, UpdateOptions};
use crate::dates::add::AddDatesOptions;
use crate::index::first_pass::LinksOfSegment;
use crate::index::{build_index_with, IndexOptions};
use crate::pindex::MainInfo;
use crate::segment::SegmentRow;

/// The stage "index": the main index `main` of `segments`, sorted within the run's sort
/// budget and temporary directory ([`UpdateOptions::sort_options`]), its writer given the
/// run's whole memory (it works after the sorts). `links`: its first pass, made as the
/// one segment was written ([`with_first_pass`]).
pub(super) fn index_segments(
    segments: &[PathBuf],
    main: &Path,
    opts: &UpdateOptions,
    stages: &dyn Stages,
    links: Option<LinksOfSegment>,
) -> Result<MainInfo> {
    let bar = stages.stage("index", 0, Unit::Bytes);
    let info = build_index_with(segments, main, &index_options(opts), links)?;
    bar.finish();
    Ok(info)
}

fn index_options(opts: &UpdateOptions) -> IndexOptions {
    IndexOptions {
        sort: opts.sort_options(),
        writer_memory: opts.memory,
        ..IndexOptions::default()
    }
}

/// Runs `write`, which writes the segment `segment` and hands each row to the function
/// it is given once the row is written, while another thread makes the index's first
/// pass of those rows (URL keys and outlinks to the link sort): the import's writer
/// leaves a core mostly idle, and `index` then need not read the segment for it. The
/// pass's sort gets an eighth of the run's memory, on top of the import's, only while the
/// segment is written (a quarter of its sort budget in `index`: the bench's 1.07 million
/// outlinks spill in three runs instead of two; a quarter of the memory took the
/// update's peak past `--memory` + 256 MiB).
///
/// The pass is only an earlier start: when it fails (its error is that of a temporary
/// file, which `index` reading the segment would meet again and report) or cannot stand
/// for the segment, `index` makes it from the segment as before.
pub(super) fn with_first_pass<T>(
    segment: &Path,
    style: warcdex_cdx::KeyStyle,
    opts: &UpdateOptions,
    write: impl FnOnce(&mut dyn FnMut(SegmentRow)) -> Result<T>,
) -> Result<(T, Option<LinksOfSegment>)> {
    let mut iopts = index_options(opts);
    iopts.sort.memory = opts.memory / 8;
    let Ok(mut links) = LinksOfSegment::new(segment, &iopts, style) else {
        return Ok((write(&mut |_| {})?, None));
    };
    let (tx, rx) = std::sync::mpsc::sync_channel::<SegmentRow>(ROWS_IN_FLIGHT);
    std::thread::scope(|scope| {
        let pass = scope.spawn(move || -> std::io::Result<LinksOfSegment> {
            for row in rx {
                links.push(row)?;
            }
            Ok(links)
        });
        // A pass that stopped drops its receiver; the rows are then only written.
        // Only what the pass reads crosses over: the text is freed here, at once.
        let written = write(&mut |row| {
            let _ = tx.send(LinksOfSegment::what_is_read(row));
        });
        drop(tx);
        let pass = pass
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        Ok((written?, pass.ok()))
    })
}

/// Rows on their way to the first pass's thread.
const ROWS_IN_FLIGHT: usize = 64;

/// `add-dates` within the same memory and temporary directory as the run's sorts.
pub(super) fn dates_options(sort: &SortOptions) -> AddDatesOptions {
    AddDatesOptions {
        memory: sort.memory,
        tmp_dir: sort.tmp_dir.clone(),
        ..AddDatesOptions::default()
    }
}
