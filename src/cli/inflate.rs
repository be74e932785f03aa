//! `warcdex inflate` (hidden): decompresses every gzip member of a file and discards the
//! output, the lower bound the benchmarks measure the reader against.

use std::path::Path;

use warcdex::path_error::ResultAtPath;

/// Runs `warcdex inflate FILE`: the members and bytes on stderr, 0.
pub fn run(file: &Path) -> anyhow::Result<i32> {
    let f = std::fs::File::open(file).at(file)?;
    let s = warcdex::reader::inflate::inflate_all(f)?;
    eprintln!("{} members, {} bytes", s.members, s.bytes);
    Ok(0)
}
