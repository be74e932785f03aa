//! The dates layer's error: what went wrong building or reading a dates index, with the
//! directory (or dates list) and tantivy's or the system's error as the source.

use std::io;

use crate::path_error::AtPath;

/// An error building or reading a dates index.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A message of our own (it names its index or list), or a system error that needs
    /// no path.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The system refused to read or write a file.
    #[error(transparent)]
    File(#[from] AtPath<io::Error>),
    /// tantivy could not read or write an index.
    #[error(transparent)]
    Tantivy(#[from] AtPath<tantivy::TantivyError>),
    /// tantivy refused a document of the dates index being written.
    #[error("writing the dates index: {0}")]
    Writing(#[source] tantivy::TantivyError),
    /// Opening a parallel index, reading its `pindex.json` or checking alignment failed.
    #[error(transparent)]
    Pindex(#[from] crate::pindex::Error),
}

/// A result with the dates layer's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The error's kind as a system error would have it (see
    /// [`crate::pindex::Error::kind`]).
    pub fn kind(&self) -> io::ErrorKind {
        match self {
            Error::Io(e) => e.kind(),
            Error::File(e) => e.source.kind(),
            Error::Tantivy(_) | Error::Writing(_) => io::ErrorKind::Other,
            Error::Pindex(e) => e.kind(),
        }
    }

    /// True when the text already shows the source (see [`crate::path_error`]).
    pub fn shows_its_source(&self) -> bool {
        match self {
            Error::Io(e) => crate::path_error::shows_its_source(e),
            Error::Pindex(e) => e.shows_its_source(),
            _ => true,
        }
    }
}

crate::path_error::into_io_error!(Error);
