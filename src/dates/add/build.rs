//! Building a dates index: the tantivy writer in a temporary directory beside DEST, fed
//! by a join, then the segments merged in `seq` order and DocId = `seq` checked.

use std::io;
use std::path::Path;

use tantivy::{Index, IndexWriter, TantivyDocument};

use super::docs::{Dates, Keys};
use super::join::Joiner;
use super::AddDatesOptions;
use crate::dates::records::MalformedLine;
use crate::dates::{dates_schema, Error, Result, SEQ_FIELD};
use crate::path_error::ResultAtPath;
use crate::pindex::directory::ReleasingDirectory;
use crate::pindex::open::{searcher_without_reload, segments_in_seq_order};
use crate::pindex::DatesCounts;
use crate::progress::Progress;

/// Why a join stopped.
pub(super) enum JoinError {
    /// The list went backwards (only while joining a file as sorted).
    Unsorted,
    Failed(Error),
}

/// `?` on every error a join meets.
macro_rules! join_error_from {
    ($($t:ty),*) => {$(
        impl From<$t> for JoinError {
            fn from(e: $t) -> Self {
                JoinError::Failed(e.into())
            }
        }
    )*};
}
join_error_from!(
    Error,
    io::Error,
    crate::path_error::AtPath<io::Error>,
    crate::path_error::AtPath<tantivy::TantivyError>
);

impl JoinError {
    pub(super) fn into_error(self) -> Error {
        match self {
            JoinError::Failed(e) => e,
            JoinError::Unsorted => Error::DatesBackwards,
        }
    }
}

/// What one join produced besides the index.
pub(super) struct Joined {
    pub(super) counts: DatesCounts,
    pub(super) malformed: Vec<MalformedLine>,
    pub(super) unmatched: Vec<String>,
}

/// What every build shares.
pub(super) struct Ctx<'a> {
    pub(super) main_dir: &'a Path,
    pub(super) keys: &'a dyn Keys,
    pub(super) sources: &'a [&'a dyn Dates],
    pub(super) n: u32,
    pub(super) opts: &'a AddDatesOptions,
    pub(super) input_name: String,
}

impl Ctx<'_> {
    /// Builds a dates index in a temporary directory beside `dest`, `feed` pushing the
    /// list's records into the joiner. The index is not renamed here.
    pub(super) fn build(
        &self,
        dest: &Path,
        progress: &dyn Progress,
        feed: impl FnOnce(&mut Joiner<'_>) -> Result<(), JoinError>,
    ) -> Result<Built, JoinError> {
        let tmp = crate::output::temp_dir_beside(dest)?;
        let (schema, f) = dates_schema();
        // No index sort: one indexing thread keeps each segment in insertion order and
        // `finish` merges the segments in `seq` order (sorting costs memory at flush).
        let dir = ReleasingDirectory::open(tmp.path())?;
        let index =
            Index::create(dir.clone(), schema, tantivy::IndexSettings::default()).at(tmp.path())?;
        let writer = index
            .writer_with_num_threads::<TantivyDocument>(1, writer_budget(self.opts.memory))
            .at(tmp.path())?;
        writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
        let mut j = Joiner::new(self, writer, dir.clone(), f, progress)?;
        feed(&mut j)?;
        while j.next < self.n {
            j.emit()?;
        }
        let Joiner {
            mut writer,
            counts,
            malformed,
            unmatched,
            ..
        } = j;
        writer.commit().map_err(|e| failed(&dir, tmp.path(), e))?;
        Ok(Built {
            tmp,
            dir,
            index,
            writer,
            joined: Joined {
                counts,
                malformed,
                unmatched,
            },
        })
    }
}

/// The error to report when tantivy failed writing the dates index in `dir` (at
/// `path`): the first write that failed, naming its file (a full disk), where one did,
/// since tantivy then only says a writer thread was killed; else `e`.
fn failed(dir: &ReleasingDirectory, path: &Path, e: tantivy::TantivyError) -> Error {
    match dir.take_write_error() {
        Some(w) => Error::File(w),
        None => Error::Tantivy(crate::path_error::AtPath {
            path: path.to_path_buf(),
            source: e,
        }),
    }
}

/// [`failed`] for a document the writer refused (`Error::WritingDates` when no write failed).
pub(super) fn refused(dir: &ReleasingDirectory, e: tantivy::TantivyError) -> Error {
    dir.take_write_error()
        .map_or(Error::WritingDates(e), Error::File)
}

/// tantivy's indexing budget: an eighth of the memory (a segment flush briefly needs
/// about twice its budget), at least tantivy's minimum.
fn writer_budget(memory: usize) -> usize {
    (memory / 8).clamp(16 << 20, 256 << 20)
}

/// A dates index written and committed in a temporary directory, maybe in several
/// segments.
pub(super) struct Built {
    tmp: tempfile::TempDir,
    dir: ReleasingDirectory,
    index: Index,
    writer: IndexWriter,
    joined: Joined,
}

impl Built {
    /// Merges the segments into one, in `seq` order, and checks that DocId = `seq`
    /// everywhere: the one property a parallel index cannot do without.
    pub(super) fn finish(self) -> Result<(tempfile::TempDir, Joined)> {
        let Built {
            tmp,
            dir: written_to,
            index,
            mut writer,
            joined,
        } = self;
        let dir = tmp.path().to_path_buf();
        let ids = segments_in_seq_order(&index, &dir, SEQ_FIELD)?;
        if ids.len() > 1 {
            // The merge stacks segments in the order given.
            writer
                .merge(&ids)
                .wait()
                .map_err(|e| failed(&written_to, &dir, e))?;
        }
        writer
            .wait_merging_threads()
            .map_err(|e| failed(&written_to, &dir, e))?;
        let searcher = searcher_without_reload(&index, &dir)?;
        if let Some(seg) = searcher.segment_readers().first() {
            let seq = seg.fast_fields().u64(SEQ_FIELD).at(&dir)?;
            if searcher.segment_readers().len() != 1
                || (0..seg.max_doc()).any(|d| seq.first(d) != Some(u64::from(d)))
            {
                return Err(Error::MergedOutOfOrder(dir.clone()));
            }
        }
        Ok((tmp, joined))
    }
}
