//! The collection layer's error: what stopped an `update` or a compaction, with the file
//! or archive it is about and the lower layer's error as its source.

use std::io;
use std::path::PathBuf;

use crate::path_error::AtPath;

/// An error updating or compacting a collection.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A message of our own (it names its file), or a system error that needs no path.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The system refused to read or write a file of the collection.
    #[error(transparent)]
    File(#[from] AtPath<io::Error>),
    /// `collection.json` or the staged plan could not be read or written.
    #[error(transparent)]
    Json(#[from] AtPath<serde_json::Error>),
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
    /// Writing the segment failed.
    #[error(transparent)]
    Segment(#[from] crate::segment::Error),
    /// Building a main index failed.
    #[error(transparent)]
    Index(#[from] crate::index::Error),
    /// Building a dates index failed.
    #[error(transparent)]
    Dates(#[from] crate::dates::Error),
    /// Reading a parallel index's `pindex.json` failed.
    #[error(transparent)]
    Pindex(#[from] crate::pindex::Error),
    /// Writing the ZipNum cluster failed.
    #[error(transparent)]
    ZipNum(#[from] crate::cdx_writer::zipnum::Error),
}

/// A result with the collection layer's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The error's kind as a system error would have it.
    pub fn kind(&self) -> io::ErrorKind {
        match self {
            Error::Io(e) => e.kind(),
            Error::File(e) => e.source.kind(),
            Error::Json(_) => io::ErrorKind::InvalidData,
            Error::NotACollection(_) | Error::NameConflict { .. } | Error::SameName { .. } => {
                io::ErrorKind::AlreadyExists
            }
            Error::Strict(_) => io::ErrorKind::InvalidData,
            Error::Segment(e) => e.kind(),
            Error::Index(e) => e.kind(),
            Error::Dates(e) => e.kind(),
            Error::Pindex(e) => e.kind(),
            Error::ZipNum(e) => e.kind(),
        }
    }

    /// True when the text already shows the source (see [`crate::path_error`]).
    pub fn shows_its_source(&self) -> bool {
        match self {
            Error::Io(e) => crate::path_error::shows_its_source(e),
            Error::Segment(e) => e.shows_its_source(),
            Error::Index(e) => e.shows_its_source(),
            Error::Dates(e) => e.shows_its_source(),
            Error::Pindex(e) => e.shows_its_source(),
            Error::ZipNum(e) => e.shows_its_source(),
            _ => true,
        }
    }
}

crate::path_error::into_io_error!(Error);
