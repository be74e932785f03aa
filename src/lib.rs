//! warcdex: ARC and WARC files to CDX indexes and a de-duplicated full-text index.
//!
//! The pipeline, each stage standing on the ones before it:
//!
//! ```text
//! archives (ARC, WARC, WACZ)
//!     |
//!   reader ---> cdx_writer ---> CDX, ZipNum cluster
//!     |
//!   import (html, extract, near -> segment) ---> segments
//!     |
//!   index + dates (pindex, schema) ---> main and dates indexes
//!     |
//!   search ---> render / serve
//! ```
//!
//! [`import`] parses the archives' pages into segments, [`index`] builds a main index of
//! one document per version from them, [`dates`] joins every capture date to it
//! (`add-dates`), and [`search`] answers queries over the pair. [`collection`] runs the
//! whole chain as `update`, one batch at a time.
//!
//! The principal types:
//! - [`reader::ArchiveReader`] reads ARC v1/v2 and WARC 0.17–1.1, plain, gzip or zstd, one
//!   [`reader::Record`] at a time, with the stored offset and length of each
//!   ([`reader::Span`]) and every recoverable oddity counted ([`reader::error::Anomaly`]).
//! - [`reader::records`] writes the per-record JSON index (`warcdex records`).
//! - [`reader::wacz::archive_parts`] opens a WACZ's WARCs in place.
//! - [`cdx_writer::zipnum::ZipNumWriter`] writes a sorted CDX as a ZipNum cluster, the
//!   block-gzipped form in which pywb and Wayback serve large indexes (`sort-cdx --zipnum`).
//!
//! CDX lines, SURT keys, dedup and revisits live in the `warcdex-cdx` crate.
#![deny(missing_docs)]

// Foundation: outputs, progress, errors with their paths, test randomness.
pub mod access;
pub mod freshness;
pub mod output;
pub mod path_error;
pub mod progress;
#[cfg(test)]
mod test_rng;

// Reading archives: ARC, WARC, WACZ, the reader's errors, `records`.
pub mod reader;

// CDX from archives, and ZipNum clusters.
pub mod cdx_writer;

// A collection as its readers see it: layout, manifest, archives by CDX name.
pub mod collection;

// Content extraction that is not HTML (PDF, body decoding, language), and near-duplicate
// fingerprints and their clusters.
pub mod extract;
pub mod near;

// HTML extraction: title, text, links.
pub mod html;

// Segments: the parsed documents of an import on disk.
pub mod segment;

// Import: archives to segments.
pub mod import;

// The index's fields and analyzers, shared by index, pindex and search.
pub mod schema;

// Parallel indexes: main and the indexes joined to it, and `dumpindex`.
pub mod pindex;

// The main index and the dates index.
pub mod dates;
pub mod index;

// Search over main + dates; near-dups and history.
pub mod search;

// Search results as text, JSON, OpenSearch RSS and the web page; the link graph of the
// versions a query selects (`warcdex graph`: CSV, GEXF, GraphML).
pub mod export;
pub mod graph;
pub mod recrawl;
pub mod render;

// Replay of captures: archival URLs, rewriting, Memento.
pub mod replay;

// The HTTP server.
pub mod serve;

// `update`: the verb that grows a collection.
pub mod update;

// Entry points of the fuzz targets and their replay test, over the whole library.
#[cfg(any(test, feature = "testing"))]
#[doc(hidden)]
pub mod testing;

pub use reader::error::{Anomaly, AnomalyCounts, AnomalyKind, Error, ErrorKind, Result};
