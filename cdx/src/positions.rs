//! A collection's captures by where they lie: `all.pos`, beside `all.cdx`, one line per
//! capture naming its archive file, offset and length, and what access rules judge it by
//! (URL key and date), sorted by file and offset. `all.cdx` is sorted by URL key, so the
//! question "which capture holds byte B of file F?" (a byte range asked of a served
//! archive) would read it all; here it is one binary search ([`SortedCdx`], bounded
//! memory whatever the collection's size).
//!
//! A line is `FILE OFFSET LENGTH URLKEY DATE`, the offset zero-padded to 20 digits so that
//! byte order is numeric order. The legend ` CDX g V S N b all.cdx=LEN` records the length
//! of the `all.cdx` the list was made from: a collection's `all.cdx` only grows, so a
//! list whose length differs was made from another one and must not be trusted
//! ([`Positions::source_len`]).

use std::io::{self, BufRead, Write};
use std::path::Path;

use crate::line::CdxLine;
use crate::lookup::{CdxLines, SortedCdx};
use crate::sort::{ExternalSorter, SortOptions};

/// The list's file name, beside `all.cdx`.
pub const POSITIONS_FILE: &str = "all.pos";

/// What the legend starts with; the source's length follows.
const LEGEND: &str = " CDX g V S N b all.cdx=";

/// Digits of a padded offset (`u64::MAX` has 20).
const OFFSET_DIGITS: usize = 20;

/// One capture's place in its archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    /// Where its record starts in the file (CDX `V`).
    pub offset: u64,
    /// The record's stored length (CDX `S`).
    pub length: u64,
    /// Its URL key (CDX `N`).
    pub urlkey: String,
    /// Its 14-digit date as the CDX writes it (CDX `b`).
    pub date: String,
}

impl Span {
    /// The offset just past the record (saturating).
    pub fn end(&self) -> u64 {
        self.offset.saturating_add(self.length)
    }
}

/// Writes the positions of the captures of the CDX `cdx` (any layout this crate reads;
/// lines without a file, offset or length are left out, as are lines that do not
/// parse) to `out`, sorted by the external sorter under `opts`; `source_len` is the
/// length of the CDX file, for the legend. Returns the lines written.
pub fn write_positions<R: BufRead, W: Write>(
    cdx: R,
    source_len: u64,
    mut out: W,
    opts: SortOptions,
) -> io::Result<u64> {
    let mut sorter = ExternalSorter::new(SortOptions {
        unique: true,
        ..opts
    });
    let mut line = Vec::new();
    for l in cdx.split(b'\n') {
        let l = l?;
        let Ok(text) = std::str::from_utf8(&l) else {
            continue;
        };
        let Ok((_, c)) = CdxLine::parse(text) else {
            continue;
        };
        let (Some(file), Some(offset), Some(length)) = (&c.filename, &c.offset, &c.length) else {
            continue;
        };
        let (Ok(offset), Ok(length)) = (offset.parse::<u64>(), length.parse::<u64>()) else {
            continue;
        };
        line.clear();
        write!(
            line,
            "{file} {offset:0w$} {length} {} {}",
            c.urlkey,
            c.timestamp,
            w = OFFSET_DIGITS
        )?;
        sorter.push(&line)?;
    }
    writeln!(out, "{LEGEND}{source_len}")?;
    let n = sorter.finish_into(&mut out)?;
    out.flush()?;
    Ok(n)
}

/// An `all.pos` opened for lookups.
#[derive(Debug, Clone)]
pub struct Positions {
    sorted: SortedCdx,
    source_len: Option<u64>,
}

impl Positions {
    /// Opens the list at `path`.
    pub fn open(path: &Path) -> io::Result<Positions> {
        let sorted = SortedCdx::open(path)?;
        // The legend is the first line; a few dozen bytes.
        let mut head = [0u8; 64];
        let n = read_head(path, &mut head)?;
        let first = head[..n].split(|&b| b == b'\n').next().unwrap_or_default();
        let source_len = std::str::from_utf8(first)
            .ok()
            .and_then(|l| l.strip_prefix(LEGEND))
            .and_then(|n| n.trim().parse().ok());
        Ok(Positions { sorted, source_len })
    }

    /// The length of the `all.cdx` the list was made from, as its legend says (`None`:
    /// no legend, not a list to trust).
    pub fn source_len(&self) -> Option<u64> {
        self.source_len
    }

    /// The captures of `file` that may hold bytes of `start..end`, in offset order: those
    /// starting at the last offset at or before `start`, then each starting before
    /// `end`. (Records of an archive do not overlap, so no earlier one reaches `start`.)
    pub fn spans(&self, file: &str, start: u64, end: u64) -> io::Result<Spans> {
        let prefix = format!("{file} ");
        let at = |offset: u64| format!("{prefix}{offset:0w$}", w = OFFSET_DIGITS);
        // The last line before `start + 1` is the last record starting at or before it.
        let before = self
            .sorted
            .lines_before(at(start.saturating_add(1)).as_bytes())?
            .next()
            .transpose()?;
        let from = before
            .as_deref()
            .and_then(|l| parse(l, prefix.as_bytes()))
            .map_or(start, |s| s.offset);
        Ok(Spans {
            lines: self.sorted.lines_from(at(from).as_bytes())?,
            prefix,
            end,
            path: self.sorted.path().display().to_string(),
        })
    }
}

fn read_head(path: &Path, buf: &mut [u8]) -> io::Result<usize> {
    use std::io::Read;
    let mut f = std::fs::File::open(path)?;
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// A line of `all.pos` for the file whose lines start with `prefix` (`FILE `).
fn parse(line: &[u8], prefix: &[u8]) -> Option<Span> {
    let rest = std::str::from_utf8(line.strip_prefix(prefix)?).ok()?;
    let mut f = rest.split(' ');
    let offset = f.next()?.parse().ok()?;
    let length = f.next()?.parse().ok()?;
    let urlkey = f.next()?.to_string();
    let date = f.next()?.to_string();
    Some(Span {
        offset,
        length,
        urlkey,
        date,
    })
}

/// The captures [`Positions::spans`] finds, read as they are asked for.
#[derive(Debug)]
pub struct Spans {
    lines: CdxLines,
    prefix: String,
    end: u64,
    /// The list's path, for errors.
    path: String,
}

impl Iterator for Spans {
    type Item = io::Result<Span>;

    fn next(&mut self) -> Option<io::Result<Span>> {
        let line = match self.lines.next()? {
            Ok(l) => l,
            Err(e) => return Some(Err(e)),
        };
        if !line.starts_with(self.prefix.as_bytes()) {
            return None;
        }
        match parse(&line, self.prefix.as_bytes()) {
            Some(s) if s.offset < self.end => Some(Ok(s)),
            Some(_) => None,
            None => Some(Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{}: not a line of positions: {:?}",
                    self.path,
                    String::from_utf8_lossy(&line)
                ),
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CDX: &str = " CDX N b a m s k r M S V g
com,example)/ 20200101000000 http://example.com/ text/html 200 AAA - - 100 0 a.warc
com,example)/ 20200101000000 http://example.com/ text/html 200 AAA - - 50 1000 b.warc
com,example)/x 20200102000000 http://example.com/x text/html 200 BBB - - 900 100 a.warc
org,example)/ 20200103000000 http://example.org/ text/html 200 CCC - - 10 5 a.warc.gz
org,example)/ 20200103000000 http://example.org/ text/html 200 CCC - - - - a.warc
";

    fn list() -> (tempfile::TempDir, Positions) {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join(POSITIONS_FILE);
        let mut out = Vec::new();
        let n = write_positions(CDX.as_bytes(), 1234, &mut out, SortOptions::default()).unwrap();
        assert_eq!(n, 4);
        std::fs::write(&path, &out).unwrap();
        let p = Positions::open(&path).unwrap();
        (d, p)
    }

    fn offsets(p: &Positions, file: &str, start: u64, end: u64) -> Vec<u64> {
        (p.spans(file, start, end).unwrap())
            .map(|s| s.unwrap().offset)
            .collect()
    }

    #[test]
    fn spans_from_the_record_holding_the_start() {
        let (_d, p) = list();
        assert_eq!(p.source_len(), Some(1234));
        assert_eq!(offsets(&p, "a.warc", 0, 1), vec![0]);
        assert_eq!(offsets(&p, "a.warc", 0, 101), vec![0, 100]);
        assert_eq!(offsets(&p, "a.warc", 99, 100), vec![0]);
        assert_eq!(offsets(&p, "a.warc", 100, 5000), vec![100]);
        assert_eq!(offsets(&p, "a.warc", 5000, 6000), vec![100]);
        // Files whose names extend another's are apart.
        assert_eq!(offsets(&p, "a.warc.gz", 0, 5), Vec::<u64>::new());
        assert_eq!(offsets(&p, "a.warc.gz", 0, 6), vec![5]);
        assert_eq!(offsets(&p, "b.warc", 0, 999), Vec::<u64>::new());
        assert_eq!(offsets(&p, "c.warc", 0, 999), Vec::<u64>::new());
        let s = p
            .spans("a.warc", 150, 151)
            .unwrap()
            .next()
            .unwrap()
            .unwrap();
        assert_eq!(
            s,
            Span {
                offset: 100,
                length: 900,
                urlkey: "com,example)/x".into(),
                date: "20200102000000".into()
            }
        );
        assert_eq!(s.end(), 1000);
    }
}
