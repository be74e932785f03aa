//! The segment an import writes: its name (the time of the import) and its
//! `segment.json` made from the import's options and reports. The files themselves are
//! [`crate::segment::layout`]'s.

use std::path::Path;

use super::{ImportOptions, ImportedVersions, SourceReport};
use crate::segment::layout::{ExclusionsInfo, SegmentManifest};
use crate::segment::{self, SegmentRow};

/// The current UTC time as 14 digits (the default segment name, as NutchWAX's).
pub fn timestamp14() -> String {
    warcdex_cdx::date::Date14::now().to_string()
}

/// Writes the segment of an import to `dest` (which must not exist yet).
pub fn write_segment(
    dest: &Path,
    rows: &[SegmentRow],
    sources: Vec<SourceReport>,
    opts: &ImportOptions,
    exclusions: Option<ExclusionsInfo>,
) -> segment::Result<SegmentManifest> {
    segment::layout::write_segment(dest, rows, manifest(sources, opts, exclusions))
}

/// [`write_segment`] with the rows read back from the import's sort as they are
/// written, so they are never all in memory.
pub fn write_imported(
    dest: &Path,
    versions: ImportedVersions,
    sources: Vec<SourceReport>,
    opts: &ImportOptions,
    exclusions: Option<ExclusionsInfo>,
) -> segment::Result<SegmentManifest> {
    write_imported_then(dest, versions, sources, opts, exclusions, |_| {})
}

/// [`write_imported`], handing each row to `then` once it is written, in order (`update`
/// makes the index's first pass of them there).
pub fn write_imported_then(
    dest: &Path,
    versions: ImportedVersions,
    sources: Vec<SourceReport>,
    opts: &ImportOptions,
    exclusions: Option<ExclusionsInfo>,
    mut then: impl FnMut(SegmentRow),
) -> segment::Result<SegmentManifest> {
    let manifest = manifest(sources, opts, exclusions);
    // A row group is held whole until it is encoded: an eighth of the import's budget
    // (at least 4 MiB, at most the default 64 MiB). A quarter took `update` of 833,333
    // versions to 518 MiB in this tail, where the index's first pass runs beside it.
    let row_group = (opts.memory / 8).clamp(4 << 20, segment::rows::DEFAULT_ROW_GROUP_BYTES);
    segment::layout::write_segment_within(dest, manifest, row_group, |w| {
        write_rows(versions, |r| {
            w.write(&r)?;
            then(r);
            Ok(())
        })
    })
}

/// [`write_imported`] split by URL key into `shards` segments, `dest/shard-<k>`
/// ([`segment::layout::write_sharded_segment_with`]): what a Spark import task writes,
/// so that each shard's index reads only its own versions (docs/cluster.md).
pub fn write_imported_sharded(
    dest: &Path,
    shards: u32,
    versions: ImportedVersions,
    sources: Vec<SourceReport>,
    opts: &ImportOptions,
    exclusions: Option<ExclusionsInfo>,
) -> segment::Result<Vec<SegmentManifest>> {
    let manifest = manifest(sources, opts, exclusions);
    segment::layout::write_sharded_segment_with(dest, shards, manifest, |write| {
        write_rows(versions, |r| write(&r))
    })
}

/// Rows on their way from the thread that reads them back from the import's sort to
/// the one that writes them: enough to keep both busy, few enough for no memory to
/// speak of.
const ROWS_IN_FLIGHT: usize = 64;

/// Calls `write` with each row of `versions`, in order, on this thread, while another
/// thread reads the rows back from the import's sort (merging its runs, unpacking each
/// row and assembling its version). Done one after the other, on one core, the two
/// halves took about the same time and were a fifth of an import's wall time on 2
/// cores (scripts/bench-import.sh, perf).
fn write_rows(
    versions: ImportedVersions,
    mut write: impl FnMut(SegmentRow) -> segment::Result<()>,
) -> segment::Result<()> {
    let (tx, rx) = std::sync::mpsc::sync_channel(ROWS_IN_FLIGHT);
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || {
            versions.rows(|row| {
                tx.send(row)
                    .map_err(|_| std::io::Error::other("the segment's writer stopped"))
            })
        });
        let mut written = Ok(());
        for row in rx.iter() {
            if let Err(e) = write(row) {
                written = Err(e);
                break;
            }
        }
        // The reader, blocked on a full channel, stops when the channel closes.
        drop(rx);
        let read = reader
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        // The writer's error first: the reader's is then only that the writer stopped.
        written?;
        read?;
        Ok(())
    })
}

/// The `segment.json` of an import (its `documents` are set by the writer).
fn manifest(
    sources: Vec<SourceReport>,
    opts: &ImportOptions,
    exclusions: Option<ExclusionsInfo>,
) -> SegmentManifest {
    SegmentManifest {
        // 3: the rows file's checksum; 2: signed integers, capture times, `archive`,
        // `lang`, `main_text` (src/segment/rows/schema.rs).
        version: crate::segment::layout::SEGMENT_VERSION,
        canonicalizer: match opts.key {
            warcdex_cdx::KeyStyle::Surt => "surt".into(),
            warcdex_cdx::KeyStyle::Url => "url".into(),
        },
        created: timestamp14(),
        exclusions,
        status_filter: opts.status.clone(),
        content_limit: opts.content_limit,
        captures: sources.iter().map(|s| s.imported).sum(),
        sources,
        // Set by the writer from the rows it wrote.
        documents: 0,
        shard: None,
        // Set by the writer from the file it wrote.
        rows_crc32: None,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn timestamp_has_14_digits() {
        let t = super::timestamp14();
        assert_eq!(t.len(), 14);
        assert!(t.starts_with("20"));
    }
}
