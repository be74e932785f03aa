//! warcdex: ARC and WARC files to CDX indexes and a de-duplicated full-text index.
//!
//! The principal types:
//! - [`reader::ArchiveReader`] reads ARC v1/v2 and WARC 0.17–1.1, plain, gzip or zstd, one
//!   [`reader::Record`] at a time, with the stored offset and length of each
//!   ([`reader::Span`]) and every recoverable oddity counted ([`error::Anomaly`]).
//! - [`records`] writes the per-record JSON index (`warcdex records`).
//! - [`wacz::archive_parts`] opens a WACZ's WARCs in place.
//! - [`zipnum::ZipNumWriter`] writes a sorted CDX as a ZipNum cluster, the block-gzipped
//!   form in which pywb and Wayback serve large indexes (`sort-cdx --zipnum`).
//!
//! CDX lines, SURT keys, dedup and revisits live in the `warcdex-cdx` crate.
#![deny(missing_docs)]

pub mod cdx_writer;
pub mod collection;
pub mod dates;
pub mod dumpindex;
pub mod error;
#[doc(hidden)]
pub mod fuzzing;
pub mod heap;
pub mod html;
pub mod import;
pub mod index;
pub mod inflate;
pub mod near;
pub mod output;
pub mod path_error;
pub mod pindex;
pub mod progress;
pub mod reader;
pub mod records;
pub mod render;
pub mod schema;
pub mod search;
pub mod segment;
pub mod serve;
#[cfg(test)]
mod test_rng;
pub mod wacz;
pub mod zipnum;

pub use error::{Anomaly, AnomalyCounts, AnomalyKind, Error, ErrorKind, Result};
