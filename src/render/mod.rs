//! The presentation of search results: the plain text of `warcdex search` ([`text`]), the
//! JSON of `--json` and `/search.json` ([`json`]), the OpenSearch RSS of `/opensearch`
//! ([`opensearch`]) and the search page of `warcdex serve` ([`page`]), all escaped through
//! [`escape`]; and the layout of the server's smaller pages ([`layout`]). `crate::search`
//! returns the results as data; `warcdex search` and `warcdex serve` call these to write
//! them.

pub mod escape;
pub mod json;
pub mod layout;
pub mod opensearch;
pub mod page;
pub mod text;
