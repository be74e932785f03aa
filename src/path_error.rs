//! The one way the index, dates and segment layers name the file an error is about:
//! [`AtPath`] wraps the error of a lower library (tantivy, Parquet, serde, the system)
//! with the path, shows `path: error`, and keeps the error as its `source()`.
//!
//! Because an [`AtPath`] already shows its source in its own text, a printer of the
//! whole chain stops at it ([`shows_its_source`]); `warcdex`'s `main` does, so that the
//! messages read as they did when these errors were strings.

use std::path::{Path, PathBuf};

/// An error about the file or directory at `path`.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct AtPath<E: std::error::Error + 'static> {
    /// The file or directory.
    pub path: PathBuf,
    /// What went wrong there.
    #[source]
    pub source: E,
}

/// Names the path of a failed result: `.at(dir)?`.
pub trait ResultAtPath<T, E: std::error::Error + 'static> {
    /// The error, if any, wrapped in an [`AtPath`] naming `path`.
    fn at(self, path: &Path) -> Result<T, AtPath<E>>;
}

impl<T, E: std::error::Error + 'static> ResultAtPath<T, E> for Result<T, E> {
    fn at(self, path: &Path) -> Result<T, AtPath<E>> {
        self.map_err(|source| AtPath {
            path: path.to_path_buf(),
            source,
        })
    }
}

/// True when `e`'s own text already holds the text of its source (an [`AtPath`], or a
/// layer's error made of one), so that printing the rest of the chain would repeat it.
pub fn shows_its_source(e: &(dyn std::error::Error + 'static)) -> bool {
    if let Some(io) = e.downcast_ref::<std::io::Error>() {
        // `io::Error::new(kind, e)` shows `e` and hands on `e`'s source.
        return io.get_ref().is_some_and(|inner| shows_its_source(inner));
    }
    if let Some(e) = e.downcast_ref::<crate::segment::Error>() {
        return e.shows_its_source();
    }
    if let Some(e) = e.downcast_ref::<crate::pindex::Error>() {
        return e.shows_its_source();
    }
    if let Some(e) = e.downcast_ref::<crate::index::Error>() {
        return e.shows_its_source();
    }
    if let Some(e) = e.downcast_ref::<crate::dates::Error>() {
        return e.shows_its_source();
    }
    if let Some(e) = e.downcast_ref::<crate::collection::Error>() {
        return e.shows_its_source();
    }
    if let Some(e) = e.downcast_ref::<crate::cdx_writer::zipnum::Error>() {
        return e.shows_its_source();
    }
    e.is::<AtPath<tantivy::TantivyError>>()
        || e.is::<AtPath<std::io::Error>>()
        || e.is::<AtPath<serde_json::Error>>()
        || e.is::<AtPath<parquet::errors::ParquetError>>()
        || e.is::<AtPath<arrow_schema::ArrowError>>()
}

/// `impl From<Error> for io::Error` for a layer's `Error` (which has an `Io` variant and
/// `kind()`): the same text and kind, the source chain kept; an `Io` error is handed back
/// as it is.
macro_rules! into_io_error {
    ($t:ident) => {
        impl From<$t> for std::io::Error {
            fn from(e: $t) -> std::io::Error {
                match e {
                    $t::Io(e) => e,
                    e => std::io::Error::new(e.kind(), e),
                }
            }
        }
    };
}
pub(crate) use into_io_error;
