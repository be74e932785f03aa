//! The two steps by which a batch and a compaction both build a set: its main index
//! from segments, under the run's sort budget, and the options its dates index is
//! added with.

use crate::progress::Unit;
use std::path::{Path, PathBuf};

use warcdex_cdx::sort::SortOptions;

use super::error::Result;
use super::{Stages, UpdateOptions};
use crate::dates::add::{add_dates, add_dates_of_segment, AddDatesOptions, DatesInput};
use crate::index::first_pass::LinksOfSegment;
use crate::index::{build_index_with, IndexOptions};
use crate::pindex::MainInfo;
use crate::segment::SegmentRow;

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
    let info = build_index_with(segments, main, &index_options(opts), None, &mut || {})?;
    bar.finish();
    Ok(info)
}

/// The stages "index" and "dates" of the set of one new segment: [`index_segments`]
/// (with `links`, its first pass made as the segment was written: [`with_first_pass`]),
/// and its dates index `dates`, main's dates and those of the list `new_dates`. Once
/// every document is handed to main's writer, the dates index is built from the
/// segment's rows on a thread of its own ([`add_dates_of_segment`]), beside the writer's
/// last commit and merge, which leave a core idle. Where that cannot stand (a list out
/// of order, or main holding another count of documents), or fails, the dates are added
/// from main once it is done, as before; an error is then that run's.
pub(super) fn index_and_dates(
    segment: &Path,
    main: &Path,
    dates: &Path,
    new_dates: &DatesInput,
    opts: &UpdateOptions,
    stages: &dyn Stages,
    links: Option<LinksOfSegment>,
) -> Result<MainInfo> {
    let dopts = dates_options(&opts.sort_options());
    let bar = stages.stage("index", 0, Unit::Bytes);
    let segments = [segment.to_path_buf()];
    let (info, early) = std::thread::scope(|scope| {
        let mut job = None;
        let info = build_index_with(&segments, main, &index_options(opts), links, &mut || {
            job =
                Some(scope.spawn(|| add_dates_of_segment(segment, main, dates, new_dates, &dopts)));
        });
        let early = job.map(|j| j.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        (info, early)
    });
    let info = info?;
    bar.finish();
    let bar = stages.stage("dates", 0, Unit::Bytes);
    let made = matches!(&early, Some(Ok(Some(r))) if r.info.documents == info.documents);
    if !made {
        super::files::remove_any(dates)?;
        add_dates(main, &[main.to_path_buf()], dates, new_dates, &dopts)?;
    }
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
/// pass's sort gets a sixteenth of the run's memory, on top of the import's, only while
/// the segment is written, where `update` peaks: on the bench (`--memory 256`) a quarter
/// took the peak past `--memory` + 256 MiB, an eighth to 472–506 MiB, a sixteenth
/// 447–458 MiB in the same time (the link lines spill in more runs; the run merge is
/// cheap beside making them).
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
    iopts.sort.memory = opts.memory / 16;
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

/// Rows on their way to the first pass's thread (without their text: some 10 KB each on
/// the bench, mostly outlinks). While the pass sorts a run of link lines it takes no row;
/// with 64 in flight the writer then stopped too: 1,024 made `update` of the bench
/// 0.96x the time (5 pairs), 4,096 no faster; but at 833,333 versions 1,024 took the
/// import's tail, where `update` peaks, from 476 to 518 MiB (past 512).
const ROWS_IN_FLIGHT: usize = 256;

/// `add-dates` within the same memory and temporary directory as the run's sorts.
pub(super) fn dates_options(sort: &SortOptions) -> AddDatesOptions {
    AddDatesOptions {
        memory: sort.memory,
        tmp_dir: sort.tmp_dir.clone(),
        ..AddDatesOptions::default()
    }
}
