//! The parallel-index layer's error: the directory, and tantivy's, serde's or the
//! system's error as the source.

use std::io;
use std::path::PathBuf;

use crate::path_error::AtPath;

/// An error opening, reading or checking a parallel index.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A message of our own (it names its index), or a system error that needs no path.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The system refused to read or write a file.
    #[error(transparent)]
    File(#[from] AtPath<io::Error>),
    /// tantivy could not open or read an index.
    #[error(transparent)]
    Tantivy(#[from] AtPath<tantivy::TantivyError>),
    /// `pindex.json` does not parse (or could not be written).
    #[error(transparent)]
    Json(#[from] AtPath<serde_json::Error>),
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
    #[error("{} is not a dates index of {}: {source}", dates.display(), main.display())]
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
}

/// A result with the parallel-index layer's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The error's kind as a system error would have it. A tantivy error about a file or
    /// directory that does not exist is `NotFound`: that is what a reader sees when
    /// `add-dates --in-place` swaps the dates directory between reading `meta.json` and
    /// opening the segment files, and `search` retries the open on it.
    pub fn kind(&self) -> io::ErrorKind {
        use tantivy::directory::error::{OpenDirectoryError, OpenReadError};
        use tantivy::TantivyError as T;
        match self {
            Error::Io(e) => e.kind(),
            Error::File(e) => e.source.kind(),
            Error::Tantivy(e) => match &e.source {
                T::OpenReadError(OpenReadError::FileDoesNotExist(_))
                | T::OpenDirectoryError(OpenDirectoryError::DoesNotExist(_)) => {
                    io::ErrorKind::NotFound
                }
                T::OpenReadError(OpenReadError::IoError { io_error, .. })
                    if io_error.kind() == io::ErrorKind::NotFound =>
                {
                    io::ErrorKind::NotFound
                }
                T::IoError(io_error) if io_error.kind() == io::ErrorKind::NotFound => {
                    io::ErrorKind::NotFound
                }
                _ => io::ErrorKind::Other,
            },
            Error::Json(_)
            | Error::Misaligned { .. }
            | Error::Unreadable { .. }
            | Error::NotParallel { .. } => io::ErrorKind::InvalidData,
        }
    }

    /// True when the text already shows the source (see [`crate::path_error`]).
    pub fn shows_its_source(&self) -> bool {
        match self {
            Error::Io(e) => crate::path_error::shows_its_source(e),
            _ => true,
        }
    }
}

crate::path_error::into_io_error!(Error);
