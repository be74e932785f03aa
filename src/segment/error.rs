//! The segment layer's error: what went wrong reading or writing a segment's files,
//! with the file's path and the Parquet, Arrow, serde or system error as its source.

use std::io;

use crate::path_error::AtPath;

/// An error reading or writing a segment.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A message of our own (it names its file), or a system error that needs no path.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The system refused to read or write a file.
    #[error(transparent)]
    File(#[from] AtPath<io::Error>),
    /// Parquet could not read or write the rows file.
    #[error(transparent)]
    Parquet(#[from] AtPath<parquet::errors::ParquetError>),
    /// Arrow could not build or decode a batch of rows.
    #[error(transparent)]
    Arrow(#[from] AtPath<arrow_schema::ArrowError>),
    /// `segment.json` could not be read or written.
    #[error(transparent)]
    Json(#[from] AtPath<serde_json::Error>),
}

/// A result with the segment layer's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The error's kind as a system error would have it: the system error's own kind,
    /// `InvalidData` for a manifest that does not parse, `Other` for Parquet and Arrow.
    pub fn kind(&self) -> io::ErrorKind {
        match self {
            Error::Io(e) => e.kind(),
            Error::File(e) => e.source.kind(),
            Error::Json(_) => io::ErrorKind::InvalidData,
            Error::Parquet(_) | Error::Arrow(_) => io::ErrorKind::Other,
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
