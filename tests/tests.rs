//! warcdex's integration tests: one binary, one module per area.

mod util;

mod access;
mod analysis;
mod archives_http;
mod as_of;
mod capture_view;
mod cdx_api;
mod cdx_corpus;
mod cdx_fixtures;
mod cdx_pieces;
mod containers;
mod dates;
mod example_script;
mod export_records;
mod facets;
mod front;
mod fuzz_replay;
mod html_pages;
mod import;
mod index;
mod layering;
mod lists_cli;
mod near_dups;
mod paging;
mod ranking;
mod reader_corpus;
mod reader_damage;
mod reader_fixtures;
mod reader_zstd;
mod search;
mod segment_rows;
mod shards;
mod update;
mod versions_pages;
mod zipnum;
