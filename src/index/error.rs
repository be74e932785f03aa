//! The main index layer's error: what went wrong building, merging or reading a main
//! index, with the directory and tantivy's or the lower layers' error as the source.

use std::io;

use crate::path_error::AtPath;

/// An error building or merging main indexes.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A message of our own (it names its index), or a system error of the temporary
    /// files and sorts, which need no path.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// A file of the index layer's own (a link graph) could not be read or written.
    #[error(transparent)]
    File(#[from] AtPath<io::Error>),
    /// tantivy could not read or write an index.
    #[error(transparent)]
    Tantivy(#[from] AtPath<tantivy::TantivyError>),
    /// A segment could not be read.
    #[error(transparent)]
    Segment(#[from] crate::segment::Error),
    /// Opening a parallel index, reading or writing its `pindex.json`, or checking that
    /// indexes belong together failed.
    #[error(transparent)]
    Pindex(#[from] crate::pindex::Error),
}

/// A result with the main index layer's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The error's kind as a system error would have it (a lower layer's own kind, see
    /// [`crate::pindex::Error::kind`]).
    pub fn kind(&self) -> io::ErrorKind {
        match self {
            Error::Io(e) => e.kind(),
            Error::File(e) => e.source.kind(),
            Error::Tantivy(_) => io::ErrorKind::Other,
            Error::Segment(e) => e.kind(),
            Error::Pindex(e) => e.kind(),
        }
    }

    /// True when the text already shows the source (see [`crate::path_error`]).
    pub fn shows_its_source(&self) -> bool {
        match self {
            Error::Io(e) => crate::path_error::shows_its_source(e),
            Error::Segment(e) => e.shows_its_source(),
            Error::Pindex(e) => e.shows_its_source(),
            Error::Tantivy(_) | Error::File(_) => true,
        }
    }
}

crate::path_error::into_io_error!(Error);
