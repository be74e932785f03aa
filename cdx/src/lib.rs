//! CDX lines, SURT keys, sorted-CDX plumbing, dedup and revisits.
//!
//! This crate is usable on its own: it reads and writes text lines and has no
//! dependency on the ARC/WARC reader, tantivy, flate2 or HTML parsing.
#![deny(missing_docs)]

pub mod surt;

pub use surt::{surt_key, url_key, CanonicalizeError, KeyStyle};
