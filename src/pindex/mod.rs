//! Parallel indexes: a main index and the indexes joined to it by position (a dates
//! index), each a one-segment tantivy index with a `pindex.json` beside its files.
//! `index`, `dates`, `search` and `dumpindex` ([`dump`]) all stand on this module:
//!
//! - [`info`]: `pindex.json`, typed once for both kinds ([`PindexInfo`]), and its one
//!   reader and writer.
//! - [`directory`]: the tantivy directory of commands that read an index through once,
//!   whose mapped pages do not stay resident, and the read-only wrapper every reader
//!   opens an index through (no lock file, no write).
//! - [`open`]: opening an index as a parallel index (one segment, no deletions).
//! - [`keys`]: main's key columns and the `keyhash` a dates index stores per document.
//! - [`align`]: the checks that a dates index belongs to its main index, and that
//!   indexes opened side by side hold the same documents.
//! - [`Error`]: what went wrong, with the directory and tantivy's or serde's error.

pub mod align;
pub mod directory;
pub mod dump;
pub mod error;
pub mod info;
pub mod keys;
pub mod open;

pub use error::{Error, Result};
pub use info::{
    DatesCounts, DatesInfo, LinkOptions, MainInfo, PindexInfo, PINDEX_FILE, PINDEX_VERSION,
};
