//! Reading the dates list: its lines joined as they come (a list sorted by (URL key,
//! digest)) or through the external sorter.

use std::io::{self, BufRead};
use std::path::Path;

use warcdex_cdx::sort::{ExternalSorter, SortOptions};

use super::build::JoinError;
use super::join::Joiner;
use super::DatesInput;
use crate::dates::records::{parse_line, DateRecord, MalformedLine};
use crate::dates::Error;
use crate::path_error::ResultAtPath;

/// Calls `f` with every line (end of line removed, as Java's `readLine`) and its number.
fn for_lines(
    input: &DatesInput,
    mut f: impl FnMut(&[u8], u64) -> Result<(), JoinError>,
) -> Result<(), JoinError> {
    let mut r = input.open()?;
    let mut buf = Vec::with_capacity(256);
    let mut n = 0u64;
    loop {
        buf.clear();
        if r.read_until(b'\n', &mut buf).at(Path::new(&input.name()))? == 0 {
            return Ok(());
        }
        n += 1;
        let mut line = buf.as_slice();
        if let Some(l) = line.strip_suffix(b"\n") {
            line = l;
        }
        if let Some(l) = line.strip_suffix(b"\r") {
            line = l;
        }
        f(line, n)?;
    }
}

fn malformed_line(
    input: &str,
    n: u64,
    line: &[u8],
    reason: crate::dates::records::Malformed,
) -> MalformedLine {
    MalformedLine {
        input: input.to_string(),
        line: n,
        text: String::from_utf8_lossy(line).into_owned(),
        reason,
    }
}

/// Joins a list read as sorted.
pub(super) fn stream(input: &DatesInput, j: &mut Joiner<'_>) -> Result<(), JoinError> {
    let name = j.ctx.input_name.clone();
    for_lines(input, |line, n| {
        j.counts.lines += 1;
        match parse_line(line) {
            Ok(r) => j.feed(r),
            Err(m) => Ok(j.malformed(malformed_line(&name, n, line, m))?),
        }
    })
}

/// Sorts the list by (URL key, digest, line number) and joins it. Fields are separated
/// by NUL in the sorter so that byte order of the lines is (URL key, digest) order; the
/// line number keeps the file order of one key's dates (`--compat` appends them so).
pub(super) fn external(input: &DatesInput, j: &mut Joiner<'_>) -> Result<(), JoinError> {
    let opts = j.ctx.opts;
    let mut sorter = ExternalSorter::new(SortOptions {
        memory: (opts.memory / 2).max(8 << 20),
        tmp_dir: opts.tmp_dir.clone(),
        unique: false,
    });
    let name = j.ctx.input_name.clone();
    let mut buf = Vec::with_capacity(256);
    for_lines(input, |line, n| {
        j.counts.lines += 1;
        match parse_line(line) {
            Ok(r) => {
                buf.clear();
                buf.extend_from_slice(r.urlkey);
                buf.push(0);
                buf.extend_from_slice(r.digest);
                buf.push(0);
                buf.extend_from_slice(format!("{n:020}").as_bytes());
                buf.push(0);
                buf.extend_from_slice(r.date.as_bytes());
                buf.push(0);
                buf.extend_from_slice(r.collection.unwrap_or("").as_bytes());
                Ok(sorter.push(&buf)?)
            }
            Err(m) => Ok(j.malformed(malformed_line(&name, n, line, m))?),
        }
    })?;
    sorter.finish_with(|line| {
        let mut parts = line.splitn(5, |b| *b == 0);
        let (Some(urlkey), Some(digest), Some(_), Some(date), Some(collection)) = (
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
        ) else {
            return Err(Error::BrokenSortLine.into());
        };
        let date = std::str::from_utf8(date).map_err(io::Error::other)?;
        let collection = std::str::from_utf8(collection).map_err(io::Error::other)?;
        j.feed(DateRecord {
            urlkey,
            digest,
            date,
            collection: (!collection.is_empty()).then_some(collection),
        })
        .map_err(|e| io::Error::from(e.into_error()))
    })?;
    Ok(())
}
