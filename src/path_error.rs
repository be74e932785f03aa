//! The storage layers' one error: [`Error`], what went wrong in a segment, an index
//! (main, dates, parallel), a collection or a ZipNum cluster, and [`AtPath`], the one way
//! they name the file an error is about.
//!
//! [`AtPath`] wraps the error of a lower library (tantivy, Parquet, serde, the system)
//! with the path; it shows only the path, and keeps the error as its `source()`, as
//! ripgrep's `ignore::Error::WithPath` names its path; [`DoingAt`] also says what was
//! being done there. [`Chain`] shows an error with its sources, `a: b: c`;
//! `warcdex`'s `main` prints errors with it.
//!
//! This module is the lowest floor of the storage layers: it uses nothing of the crate.
//! `crate::segment::Error`, `crate::pindex::Error`, `crate::index::Error`,
//! `crate::dates::Error`, `crate::update::Error` and `crate::cdx_writer::zipnum::Error` all
//! name [`Error`].

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// An error about the file or directory at `path`: shows the path, and hands on the
/// error as its source.
#[derive(Debug, thiserror::Error)]
#[error("{}", path.display())]
pub struct AtPath<E: std::error::Error + 'static> {
    /// The file or directory.
    pub path: PathBuf,
    /// What went wrong there.
    #[source]
    pub source: E,
}

/// An [`AtPath`] that also says what was being done there: shows `WHAT PATH` ("cannot
/// create /data/out"), and hands on the error as its source, so that a system error
/// reads `cannot create /data/out: Permission denied` through [`Chain`].
#[derive(Debug, thiserror::Error)]
#[error("{what} {}", path.display())]
pub struct DoingAt<E: std::error::Error + 'static> {
    /// What was being done ("cannot create", "cannot sync").
    pub what: &'static str,
    /// The file or directory.
    pub path: PathBuf,
    /// What went wrong there.
    #[source]
    pub source: E,
}

/// Names the path of a failed result: `.at(dir)?`, or `.doing("cannot create", dir)?`.
pub trait ResultAtPath<T, E: std::error::Error + 'static> {
    /// The error, if any, wrapped in an [`AtPath`] naming `path`.
    fn at(self, path: &Path) -> Result<T, AtPath<E>>;
    /// The error, if any, wrapped in a [`DoingAt`] saying `what` failed at `path`.
    fn doing(self, what: &'static str, path: &Path) -> Result<T, DoingAt<E>>;
}

impl<T, E: std::error::Error + 'static> ResultAtPath<T, E> for Result<T, E> {
    fn at(self, path: &Path) -> Result<T, AtPath<E>> {
        self.map_err(|source| AtPath {
            path: path.to_path_buf(),
            source,
        })
    }

    fn doing(self, what: &'static str, path: &Path) -> Result<T, DoingAt<E>> {
        self.map_err(|source| DoingAt {
            what,
            path: path.to_path_buf(),
            source,
        })
    }
}

/// A system error with its path as a system error again, of the same kind, for the
/// functions that return [`io::Result`]: its text is the path's, its source the error.
impl From<AtPath<io::Error>> for io::Error {
    fn from(e: AtPath<io::Error>) -> io::Error {
        io::Error::new(e.source.kind(), e)
    }
}

/// As for [`AtPath`]: the same kind, the text `WHAT PATH`, the error its source.
impl From<DoingAt<io::Error>> for io::Error {
    fn from(e: DoingAt<io::Error>) -> io::Error {
        io::Error::new(e.source.kind(), e)
    }
}

/// An error reading or writing a segment, a main, dates or parallel index, a collection
/// or a ZipNum cluster: a lower library's error with the path it is about, or one of
/// ours.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A system error that needs no path (the temporary files and sorts), or one that
    /// already names its file.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The system refused to read or write a file.
    #[error(transparent)]
    File(#[from] AtPath<io::Error>),
    /// A JSON file (`segment.json`, `pindex.json`, `collection.json`, a staged plan)
    /// does not parse, or could not be written.
    #[error(transparent)]
    Json(#[from] AtPath<serde_json::Error>),
    /// tantivy could not open, read or write an index.
    #[error(transparent)]
    Tantivy(#[from] AtPath<tantivy::TantivyError>),
    /// Parquet could not read or write a segment's rows file.
    #[error(transparent)]
    Parquet(#[from] AtPath<parquet::errors::ParquetError>),
    /// Arrow could not build or decode a batch of a segment's rows.
    #[error(transparent)]
    Arrow(#[from] AtPath<arrow_schema::ArrowError>),

    // Segments.
    /// A segment is never overwritten.
    #[error("{} already exists; choose another segment name", .0.display())]
    SegmentExists(PathBuf),
    /// A row writer option is 0 (the parquet crate would panic).
    #[error("{}: row writer options must be at least 1: {options}", path.display())]
    RowOptions {
        /// The rows file.
        path: PathBuf,
        /// The options, as `{:?}` shows them.
        options: String,
    },
    /// A row's strings are too long for a batch (Arrow's offsets are 32-bit).
    #[error("{}: row {key:?} holds {bytes} bytes of strings, more than {max}", path.display())]
    RowTooLarge {
        /// The rows file.
        path: PathBuf,
        /// The row's key.
        key: String,
        /// Bytes of its strings.
        bytes: usize,
        /// The most a row may hold.
        max: usize,
    },
    /// A rows file's footer counts fewer than no rows.
    #[error("{}: negative row count in the footer", .0.display())]
    NegativeRowCount(PathBuf),
    /// A Parquet file without the columns of a segment's rows.
    #[error("{}: not a segment rows file: {problems}", path.display())]
    NotARowsFile {
        /// The file.
        path: PathBuf,
        /// The columns missing or of another type, `; `-separated.
        problems: String,
    },
    /// A rows file whose bytes are not those its `segment.json` records a checksum of.
    #[error(
        "{}: damaged segment: checksum mismatch (segment.json records CRC-32 {expected:08x}, \
         the file has {found:08x}); import it again",
        path.display()
    )]
    RowsChecksum {
        /// The rows file.
        path: PathBuf,
        /// The CRC-32 `segment.json` records.
        expected: u32,
        /// The file's.
        found: u32,
    },
    /// The Parquet reader failed on a rows file in a way it does not report as an error
    /// (it panicked): the file is damaged.
    #[error("{}: damaged segment: the rows file cannot be decoded ({why})", path.display())]
    DamagedRows {
        /// The rows file.
        path: PathBuf,
        /// What the reader said.
        why: String,
    },
    /// A batch read back does not have the rows schema.
    #[error("{}: a decoded batch does not have the segment rows schema", .0.display())]
    BatchSchema(PathBuf),

    // Parallel indexes.
    /// `dates` was not built for `main`.
    #[error("{} is not a dates index of {}: {why}", dates.display(), main.display())]
    Misaligned {
        /// The main index.
        main: PathBuf,
        /// The index that does not belong to it.
        dates: PathBuf,
        /// How they differ.
        why: String,
    },
    /// `dates` is not a dates index of `main`: its `pindex.json` could not be read.
    #[error("{} is not a dates index of {}", dates.display(), main.display())]
    Unreadable {
        /// The main index.
        main: PathBuf,
        /// The index whose `pindex.json` could not be read.
        dates: PathBuf,
        /// Why.
        #[source]
        source: Box<Error>,
    },
    /// Two main indexes opened side by side hold different documents.
    #[error(
        "{} and {} hold different documents (key checksums differ): not parallel indexes",
        first.display(),
        second.display()
    )]
    NotParallel {
        /// The index named first.
        first: PathBuf,
        /// The other.
        second: PathBuf,
    },
    /// A `pindex.json` of another kind where a main index was asked for.
    #[error("{}: a {kind} index, not a main index", path.display())]
    NotAMainIndex {
        /// The `pindex.json`.
        path: PathBuf,
        /// Its kind (`dates`).
        kind: &'static str,
    },
    /// A file of a format version this warcdex does not read (made by a newer one).
    #[error(
        "{}: format version {version}; this warcdex reads versions up to {read} (it was \
         made by a newer warcdex)",
        path.display()
    )]
    NewerFormat {
        /// The file that names its version.
        path: PathBuf,
        /// Its version.
        version: u32,
        /// The latest version read.
        read: u32,
    },
    /// A main index without one of its key columns.
    #[error(
        "{}: no fast field {field:?}: not a main index, or one built by an older warcdex \
         (rebuild it with `warcdex index`)",
        dir.display()
    )]
    NoFastField {
        /// The index.
        dir: PathBuf,
        /// The column.
        field: String,
    },
    /// A document without a value in a key column.
    #[error("{}: document {doc} has no {column}", dir.display())]
    NoKey {
        /// The index.
        dir: PathBuf,
        /// The document.
        doc: u32,
        /// The column.
        column: String,
    },
    /// A key column whose values do not resolve.
    #[error("{}: damaged {column} column", dir.display())]
    DamagedColumn {
        /// The index.
        dir: PathBuf,
        /// The column.
        column: String,
    },
    /// An index of several segments, which a parallel index is not.
    #[error("{}: {segments} segments; a parallel index has one", dir.display())]
    NotOneSegment {
        /// The index.
        dir: PathBuf,
        /// Its segments.
        segments: usize,
    },
    /// An index with deleted documents, which a parallel index is not.
    #[error("{}: has deleted documents; a parallel index has none", .0.display())]
    DeletedDocuments(PathBuf),
    /// Index files that fail their checksums.
    #[error("{}: damaged index: checksum mismatch in {}", dir.display(), files.join(", "))]
    ChecksumMismatch {
        /// The index.
        dir: PathBuf,
        /// The files that fail.
        files: Vec<String>,
    },
    /// Indexes dumped side by side whose document counts differ.
    #[error(
        "{} has {docs} documents but {} has {first_docs}: not parallel indexes",
        index.display(),
        first.display()
    )]
    DocumentCounts {
        /// The index that differs.
        index: PathBuf,
        /// Its documents.
        docs: u32,
        /// The index named first.
        first: PathBuf,
        /// Its documents.
        first_docs: u32,
    },
    /// `dumpindex -f` of a field no index has.
    #[error("Field not in index: {0}")]
    NoSuchField(String),

    // Main indexes and link graphs.
    /// The output is there already.
    #[error("{} already exists", .0.display())]
    Exists(PathBuf),
    /// Inputs made with different URL keys.
    #[error(
        "{} uses {got} keys but an earlier input uses {earlier}: they cannot be combined",
        input.display()
    )]
    MixedKeys {
        /// The input that differs.
        input: PathBuf,
        /// Its keys.
        got: String,
        /// The earlier inputs' keys.
        earlier: String,
    },
    /// A URL key the second pass of `index` meets that the first did not.
    #[error("{0}: a URL key pass 1 did not see (a segment changed during the build?)")]
    UnseenKey(String),
    /// A line of a temporary file of ours does not parse (`corrupt spool line`).
    #[error("corrupt {0}")]
    Corrupt(&'static str),
    /// `graph.json` does not parse.
    #[error("{}: not a link graph", path.display())]
    NotALinkGraph {
        /// The file.
        path: PathBuf,
        /// What serde said.
        #[source]
        source: serde_json::Error,
    },
    /// A line of a link graph's shard file does not parse.
    #[error("{}: line {line}", path.display())]
    GraphLine {
        /// The shard file.
        path: PathBuf,
        /// The line (from 1).
        line: u64,
        /// What serde said.
        #[source]
        source: serde_json::Error,
    },
    /// A link graph without an entry for a URL key of the segments.
    #[error(
        "{}: no entry for the URL key {key:?}: the graph was made from other segments",
        path.display()
    )]
    GraphNoEntry {
        /// The shard file.
        path: PathBuf,
        /// The URL key.
        key: String,
    },
    /// A link graph's shard file that ends before a URL key of the segments.
    #[error(
        "{}: ends before the URL key {key:?}: the graph was made from other segments",
        path.display()
    )]
    GraphEnds {
        /// The shard file.
        path: PathBuf,
        /// The URL key.
        key: String,
    },
    /// An index from a link graph without `--shard`.
    #[error("an index from a link graph is one shard's: give --shard K/N")]
    GraphNeedsShard,
    /// A link graph of other shards or other URL keys.
    #[error(
        "{} is a graph of {shards} shards of {keys} keys; this index is shard {shard} of \
         {these_keys} keys",
        graph.display()
    )]
    GraphMismatch {
        /// The graph.
        graph: PathBuf,
        /// Its shards.
        shards: u32,
        /// Its URL keys.
        keys: String,
        /// This index's shard (`K/N`).
        shard: String,
        /// This index's URL keys.
        these_keys: String,
    },

    // Dates indexes.
    /// tantivy refused a document of the dates index being written.
    #[error("writing the dates index")]
    WritingDates(#[source] tantivy::TantivyError),
    /// `add-dates` was given main's directory as DEST.
    #[error(
        "{}: DEST is the key index; a dates index goes in its own directory",
        .0.display()
    )]
    DestIsKeyIndex(PathBuf),
    /// `add-dates --in-place` with a DEST that is no source.
    #[error("--in-place: DEST {} is not one of the sources", .0.display())]
    InPlaceNotSource(PathBuf),
    /// `add-dates` without `--in-place` to a DEST that exists.
    #[error(
        "{} already exists{}",
        dest.display(),
        if *is_source { " (it is a source: use --in-place to replace it)" } else { "" }
    )]
    DestExists {
        /// The destination.
        dest: PathBuf,
        /// Whether it is one of the sources.
        is_source: bool,
    },
    /// The sorted dates list went backwards.
    #[error("the sorted dates list went backwards")]
    DatesBackwards,
    /// The external sort handed back a line it was not given.
    #[error("external sort returned a broken line")]
    BrokenSortLine,
    /// A dates index whose documents are not in main's order after merging.
    #[error("{}: the merged dates index is not in document order", .0.display())]
    MergedOutOfOrder(PathBuf),
    /// A main index whose documents are not in (URL key, digest) order.
    #[error(
        "{}: document {doc} ({urlkey} {digest}) is not after the one before it in (URL key, \
         digest) order",
        dir.display()
    )]
    MainOutOfOrder {
        /// The main index.
        dir: PathBuf,
        /// The document.
        doc: u32,
        /// Its URL key.
        urlkey: String,
        /// Its digest.
        digest: String,
    },
    /// A line of a dates list that could not be used, with `--strict`.
    #[error("{0}")]
    MalformedLine(String),
    /// A document number past the end of an index.
    #[error(
        "{}: no document {doc}{}",
        dir.display(),
        docs.map(|n| format!(" ({n} documents)")).unwrap_or_default()
    )]
    NoDocument {
        /// The index.
        dir: PathBuf,
        /// The document asked for.
        doc: u32,
        /// The index's documents, where the message gives them.
        docs: Option<u32>,
    },
    /// An index without the dates field.
    #[error("{}: no {field:?} field: not a main or dates index", dir.display())]
    NotMainOrDates {
        /// The index.
        dir: PathBuf,
        /// The field.
        field: &'static str,
    },

    // Collections.
    /// The directory exists, holds files, and is not a collection made by `update`.
    #[error("{}: not a warcdex collection (no collection.json) and not empty; give a new or empty directory", .0.display())]
    NotACollection(PathBuf),
    /// An archive's name is recorded for another file (a different size or SHA-1).
    #[error("{given}: its name {name:?} is already in the collection for another file ({recorded}, added in {batch}): the same name must not stand for two archives, because CDX lines and replay find archives by name")]
    NameConflict {
        /// The archive's file name.
        name: String,
        /// The path given now.
        given: String,
        /// The path recorded, with its size and SHA-1.
        recorded: String,
        /// The batch that added the recorded file.
        batch: String,
    },
    /// Two archives given in one run have the same file name.
    #[error("{first} and {second} have the same file name {name:?}; CDX lines and replay find archives by name, so rename one")]
    SameName {
        /// The file name.
        name: String,
        /// The first path.
        first: String,
        /// The second path.
        second: String,
    },
    /// `--strict` refused the batch: an archive is damaged or has anomalies.
    #[error("--strict: {0}; nothing was added")]
    Strict(String),
    /// A directory given as an archive.
    #[error("{}", directory_given(.0))]
    IsADirectory(PathBuf),
    /// An archive no record of which could be read.
    #[error("{0}: cannot be read as an archive")]
    NotAnArchive(String),
    /// A file or directory could not be renamed into place.
    #[error("{}: cannot rename to {}", from.display(), to.display())]
    Rename {
        /// What was renamed.
        from: PathBuf,
        /// Where to.
        to: PathBuf,
        /// What the system said.
        #[source]
        source: io::Error,
    },

    // ZipNum clusters.
    /// A line sorts before the line above it.
    #[error(
        "{}line {line} sorts before the line above it; a ZipNum cluster is searched by \
         binary search and needs CDX in C byte order (sort-cdx sorts it)",
        input.as_ref().map(|p| format!("{}: ", p.display())).unwrap_or_default()
    )]
    Unsorted {
        /// The input, when the writer was given its name.
        input: Option<PathBuf>,
        /// The line (from 1, legend and empty lines counted).
        line: u64,
    },
    /// The destination holds something other than a cluster, which replacing it would
    /// delete.
    #[error(
        "{}: not a ZipNum cluster (it holds {entry:?}); give a new or empty directory, or \
         one holding only a cluster to replace",
        dir.display()
    )]
    NotACluster {
        /// The destination.
        dir: PathBuf,
        /// The first entry that is not a cluster file.
        entry: String,
    },
    /// `lines_per_block` is 0.
    #[error("lines per block must be at least 1")]
    NoLinesPerBlock,
}

/// A result with the storage layers' [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The error's kind as a system error would have it: the system error's own kind;
    /// `InvalidData` for a JSON file that does not parse and for an index, segment or
    /// list that is not what it should be; `InvalidInput` for a request that cannot be
    /// met; `AlreadyExists` for an output that would overwrite something; `Other` for
    /// Parquet, Arrow and tantivy, except that a tantivy error about a file or directory
    /// that does not exist is `NotFound`: that is what a reader sees when `add-dates
    /// --in-place` swaps the dates directory between reading `meta.json` and opening the
    /// segment files, and `search` retries the open on it.
    pub fn kind(&self) -> io::ErrorKind {
        use io::ErrorKind as K;
        use tantivy::directory::error::{OpenDirectoryError, OpenReadError};
        use tantivy::TantivyError as T;
        match self {
            Error::Io(e) => e.kind(),
            Error::File(e) => e.source.kind(),
            Error::Rename { source, .. } => source.kind(),
            Error::Tantivy(e) => match &e.source {
                T::OpenReadError(OpenReadError::FileDoesNotExist(_))
                | T::OpenDirectoryError(OpenDirectoryError::DoesNotExist(_)) => K::NotFound,
                T::OpenReadError(OpenReadError::IoError { io_error, .. })
                    if io_error.kind() == K::NotFound =>
                {
                    K::NotFound
                }
                T::IoError(io_error) if io_error.kind() == K::NotFound => K::NotFound,
                _ => K::Other,
            },
            Error::Parquet(_)
            | Error::Arrow(_)
            | Error::WritingDates(_)
            | Error::NegativeRowCount(_)
            | Error::BatchSchema(_)
            | Error::DatesBackwards
            | Error::BrokenSortLine
            | Error::MergedOutOfOrder(_)
            | Error::NotAnArchive(_) => K::Other,
            Error::Json(_)
            | Error::NotARowsFile { .. }
            | Error::RowsChecksum { .. }
            | Error::DamagedRows { .. }
            | Error::Misaligned { .. }
            | Error::Unreadable { .. }
            | Error::NotParallel { .. }
            | Error::NotAMainIndex { .. }
            | Error::NewerFormat { .. }
            | Error::NoFastField { .. }
            | Error::NoKey { .. }
            | Error::DamagedColumn { .. }
            | Error::NotOneSegment { .. }
            | Error::DeletedDocuments(_)
            | Error::ChecksumMismatch { .. }
            | Error::DocumentCounts { .. }
            | Error::MixedKeys { .. }
            | Error::UnseenKey(_)
            | Error::Corrupt(_)
            | Error::NotALinkGraph { .. }
            | Error::GraphLine { .. }
            | Error::GraphNoEntry { .. }
            | Error::GraphEnds { .. }
            | Error::MainOutOfOrder { .. }
            | Error::MalformedLine(_)
            | Error::NotMainOrDates { .. }
            | Error::Strict(_)
            | Error::Unsorted { .. } => K::InvalidData,
            Error::RowOptions { .. }
            | Error::RowTooLarge { .. }
            | Error::GraphNeedsShard
            | Error::GraphMismatch { .. }
            | Error::DestIsKeyIndex(_)
            | Error::InPlaceNotSource(_)
            | Error::NoDocument { .. }
            | Error::IsADirectory(_)
            | Error::NoLinesPerBlock => K::InvalidInput,
            Error::SegmentExists(_)
            | Error::Exists(_)
            | Error::DestExists { .. }
            | Error::NotACollection(_)
            | Error::NameConflict { .. }
            | Error::SameName { .. }
            | Error::NotACluster { .. } => K::AlreadyExists,
            Error::NoSuchField(_) => K::NotFound,
        }
    }
}

/// The same text and kind, the source chain kept; an `Io` error is handed back as it is.
impl From<Error> for io::Error {
    fn from(e: Error) -> io::Error {
        match e {
            Error::Io(e) => e,
            e => io::Error::new(e.kind(), e),
        }
    }
}

/// An error and its sources on one line, `a: b: c` as anyhow's `{:#}` shows them.
///
/// warcdex's errors show only their own text and hand their cause on as `source()`
/// (or show it and do not hand it on, as `#[error(transparent)]` and the reader's
/// located errors do), so joining them shows each text once. Lower libraries' errors do
/// not all follow that rule: Parquet's `External: {source}` and serde_json's I/O errors
/// show their source and hand it on, tantivy's `Failed to open the directory:
/// '{source:?}'` shows its `Debug`. For them only, a cause whose text already holds the
/// rest of the line, or its source's `Debug`, ends the line.
pub struct Chain<'a>(pub &'a (dyn std::error::Error + 'static));

impl fmt::Display for Chain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let causes: Vec<&(dyn std::error::Error + 'static)> =
            std::iter::successors(Some(self.0), |e| e.source()).collect();
        // From the last cause up: each cause's text, then the rest unless it shows it.
        let mut line = String::new();
        for (i, cause) in causes.iter().enumerate().rev() {
            let text = cause.to_string();
            let shows_the_rest = match causes.get(i + 1) {
                None => true,
                Some(source) => {
                    text.contains(line.as_str()) || text.contains(&format!("{source:?}"))
                }
            };
            line = if shows_the_rest {
                text
            } else {
                format!("{text}: {line}")
            };
        }
        f.write_str(&line)
    }
}

/// What a directory given where an archive is expected says: that it is one, and how to
/// give the archives in it (every command that reads archives says it alike).
pub fn directory_given(dir: &Path) -> String {
    format!("{}: {}", dir.display(), directory_hint(dir))
}

/// [`directory_given`] without the leading path, for errors that name their path.
pub fn directory_hint(dir: &Path) -> String {
    format!(
        "is a directory; give the archive files in it (e.g. {}/*.warc.gz)",
        dir.display()
    )
}
