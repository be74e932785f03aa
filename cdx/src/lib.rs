//! CDX lines, SURT keys, sorted-CDX plumbing, dedup and revisits, lookups in a sorted CDX
//! file ([`lookup`]), the captures by file and offset ([`positions`]) and pywb's CDX server
//! API over one ([`query`]).
//!
//! This crate is usable on its own: it reads and writes text lines and has no
//! dependency on the ARC/WARC reader, tantivy, flate2 or HTML parsing.
//!
//! ```
//! use warcdex_cdx::{surt_key, url_key, KeyStyle};
//! assert_eq!(surt_key("http://www.example.org/index.html").unwrap(), "org,example)/index.html");
//! assert_eq!(surt_key("https://www2.example.org:443/a/b/?b=2&a=1&A=3").unwrap(), "org,example)/a/b?a=1&a=3&b=2");
//! assert_eq!(url_key("http://www.example.org/Index.html", KeyStyle::Url).unwrap(), "example.org/index.html");
//! ```
#![deny(missing_docs)]

pub mod date;
pub mod dedup;
mod idna2003;
pub mod line;
pub mod lookup;
pub mod message;
pub mod plumbing;
pub mod positions;
pub mod query;
pub mod rendered;
pub mod shard;
pub mod sort;
pub mod surt;

pub use line::{CdxFormat, CdxLine, LineError, LEGEND_CDX11, LEGEND_CDX9};
pub use lookup::{CdxLines, CdxLinesRev, SortedCdx};
pub use sort::{check_sorted, merge_sorted, ExternalSorter, OrderError, SortOptions};
pub use surt::{surt_key, url_key, CanonicalizeError, KeyStyle};
