//! Replay of captures from the collection's archives, the library half of `serve`'s
//! access point: archival URLs (`/web/DATE[MOD_]/URL`), the captures of a URL read from
//! the sorted CDX (nearest a date, what a revisit stands for), a record read by offset,
//! its payload replayed as stored or rewritten to point back into the collection (HTML
//! streaming through lol_html, CSS), the capture view's banner page, and Memento
//! (RFC 7089) headers and TimeMaps. No HTTP here: `serve` answers with these.

pub mod archival_url;
pub mod body;
pub mod capture;
pub mod frame;
pub mod memento;
pub mod record;
pub mod rewrite;
pub mod text_page;
pub mod versions_page;
