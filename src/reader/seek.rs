//! Finding the next record header: lines at the cursor, what starts a WARC or ARC
//! record, and the garbage skipped before one.

use std::io::Read;

use super::arc::parse_arc_line;
use super::bytes::{decode, trim_end};
use super::Codec;
use super::{ArchiveReader, Format};
use crate::reader::error::{
    escaped_start, foreign_compression, AnomalyKind, Error, ErrorKind, Result, START_SHOWN,
};

impl<R: Read> ArchiveReader<R> {
    /// Length of the line at the cursor, reading more as needed. `Ok(None)` at the end
    /// of input; a line longer than `limit` gives `Err(len_so_far)` inside `Ok`.
    pub(super) fn peek_line(
        &mut self,
        limit: usize,
    ) -> Result<Option<std::result::Result<usize, usize>>> {
        let mut searched = 0;
        loop {
            let buf = self.s.buffer();
            if let Some(i) = memchr::memchr(b'\n', &buf[searched..]) {
                let len = searched + i + 1;
                return Ok(Some(if len > limit { Err(len) } else { Ok(len) }));
            }
            searched = buf.len();
            if searched > limit {
                return Ok(Some(Err(searched)));
            }
            if self.s.fill()? == 0 {
                if self.s.cut().is_some() {
                    // A line cut by damage is no line: the caller deals with the cut.
                    return Ok(None);
                }
                let n = self.s.buffer().len();
                return Ok(if n == 0 { None } else { Some(Ok(n)) });
            }
        }
    }

    pub(super) fn take_line(&mut self, limit: usize) -> Result<Option<(usize, bool)>> {
        match self.peek_line(limit)? {
            None => Ok(None),
            Some(Ok(len)) => {
                let complete = self.s.buffer()[len - 1] == b'\n';
                Ok(Some((len, complete)))
            }
            Some(Err(_)) => Err(Error::at(
                ErrorKind::HeaderTooLong { limit },
                self.stored_offset(self.s.position()),
            )),
        }
    }

    /// Is the line at the cursor the first line of a WARC or ARC record?
    pub(super) fn header_start(&self, line: &[u8]) -> Option<Format> {
        self.header_start_with(line, false)
    }

    /// `strict`: while skipping garbage, an ARC header line must end in a number.
    fn header_start_with(&self, line: &[u8], strict: bool) -> Option<Format> {
        if line.len() > 5 && line[..5].eq_ignore_ascii_case(b"WARC/") && line[5].is_ascii_digit() {
            return Some(Format::Warc);
        }
        if self.arc_version.is_none() && self.records > 0 {
            // A WARC file: do not take text lines for ARC headers while resynchronising.
            return None;
        }
        let version = self.arc_version.unwrap_or(Format::ArcV1);
        parse_arc_line(line, version, strict).map(|(f, _)| f)
    }

    /// Skips blank lines and anything that is not a record header. False at the end.
    pub(super) fn seek_header(&mut self) -> Result<bool> {
        let mut garbage: Option<(u64, u64, Vec<u8>)> = None; // (stored offset, bytes, sample)
        let limit = self.opts.max_header;
        let found = loop {
            let line = match self.peek_line(limit)? {
                None if self.s.cut().is_some() => {
                    // Damage before the first record: what follows is judged as after
                    // damage anywhere (garbage skipped to the next record).
                    self.start_checked = true;
                    self.lose_unseen_record();
                    continue;
                }
                None => break false,
                Some(l) => l,
            };
            if !self.start_checked {
                // The first line that is not blank: a record header, or no archive. A
                // text file read as one became an ARC record dated 2999.
                let first = match line {
                    Ok(len) => {
                        let l = &self.s.buffer()[..len];
                        if trim_end(l).is_empty() {
                            self.s.consume(len);
                            continue;
                        }
                        starts_archive(l)
                    }
                    Err(_) => false,
                };
                self.start_checked = true;
                if !first {
                    let at = self.s.position();
                    return Err(self.not_an_archive(at));
                }
                break true;
            }
            let len = match line {
                Ok(len) => {
                    let l = &self.s.buffer()[..len];
                    if trim_end(l).is_empty() {
                        self.s.consume(len);
                        continue;
                    }
                    if self.header_start_with(l, garbage.is_some()).is_some() {
                        break true;
                    }
                    len
                }
                Err(len) => len,
            };
            let at = self.s.position();
            let g = garbage.get_or_insert_with(|| (self.stored_offset(at), 0, Vec::new()));
            if g.2.len() < 60 {
                let take = (60 - g.2.len()).min(len);
                g.2.extend_from_slice(&self.s.buffer()[..take]);
            }
            g.1 += len as u64;
            self.s.consume(len);
        };
        if let Some((offset, bytes, sample)) = garbage {
            if self.records == 0 && !found {
                return Err(Error::at(self.no_archive_kind(&sample), offset));
            }
            let where_ = if found {
                "before the next record"
            } else {
                "at the end of the file"
            };
            self.anomaly(
                AnomalyKind::GarbageBetweenRecords,
                offset,
                format!(
                    "skipped {bytes} bytes {where_} (starting {:?})",
                    decode(&sample).trim_end()
                ),
            );
        }
        Ok(found)
    }

    /// The error for an input whose first line at decompressed position `at` is no
    /// record header: its first bytes, at the stored offset of that line.
    fn not_an_archive(&mut self, at: u64) -> Error {
        let b = self.s.buffer();
        let kind = self.no_archive_kind(&b[..b.len().min(START_SHOWN)]);
        let offset = self.stored_offset(at);
        let e = Error::at(kind, offset);
        self.fail(e)
    }

    /// Why an input whose first bytes are `sample` holds no record: compressed in a
    /// format the reader does not decode (said with the command to run), or no archive.
    fn no_archive_kind(&self, sample: &[u8]) -> ErrorKind {
        let foreign = match self.s.codec() {
            None => foreign_compression(sample),
            Some(_) => None,
        };
        foreign.unwrap_or_else(|| ErrorKind::NotAnArchive {
            what: self.what_was_read(),
            start: escaped_start(sample),
        })
    }

    /// What the bytes judged are: the file's own, or what its compression decoded to.
    fn what_was_read(&self) -> &'static str {
        match self.s.codec() {
            None => "the file",
            Some(Codec::Gzip) => "its gzip data",
            Some(Codec::Zstd) => "its zstd data",
        }
    }

    /// The offset in the stored file of decompressed position `d`: itself for plain
    /// files, its member's offset for gzip.
    fn stored_offset(&self, d: u64) -> u64 {
        if !self.s.is_compressed() {
            return d;
        }
        self.s.member_at(d).map_or(d, |(_, m)| m.cstart)
    }
}

/// Is `line`, the first line of an input that is not blank, the start of an archive?
/// A WARC record's `WARC/1.x` line, or an ARC record's header line: the `filedesc://`
/// version block that starts every ARC file, or (an ARC without it, a fragment) a line
/// that is one: `URL IP DATE MIME LENGTH` with a URL scheme, a date of at least 8 digits
/// and a number for the length. Any text of five words passes the ARC split itself
/// (warcio's rule), so it is not enough at the start.
pub(super) fn starts_archive(line: &[u8]) -> bool {
    if line.len() > 5 && line[..5].eq_ignore_ascii_case(b"WARC/") && line[5].is_ascii_digit() {
        return true;
    }
    let Some((_, parts)) = parse_arc_line(line, Format::ArcV1, false) else {
        return false;
    };
    let url = parts[0];
    if url.starts_with(b"filedesc:") {
        return true;
    }
    let scheme_end = url.iter().position(|&b| b == b':');
    let has_scheme = scheme_end.is_some_and(|i| {
        let scheme = &url[..i];
        !scheme.is_empty()
            && scheme[0].is_ascii_alphabetic()
            && scheme
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
            && (url[i + 1..].starts_with(b"//") || scheme.eq_ignore_ascii_case(b"dns"))
    });
    let date = super::bytes::trim(parts[2]);
    let length = super::bytes::trim(parts[4]);
    let length = length.strip_prefix(b"-").unwrap_or(length);
    has_scheme
        && date.len() >= 8
        && date.iter().all(u8::is_ascii_digit)
        && !length.is_empty()
        && length.iter().all(u8::is_ascii_digit)
}

#[cfg(test)]
mod tests {
    use super::starts_archive;

    #[test]
    fn what_starts_an_archive() {
        assert!(starts_archive(b"WARC/1.0\r\n"));
        assert!(starts_archive(
            b"filedesc://x.arc 0.0.0.0 20080430204825 text/plain 1300\n"
        ));
        assert!(starts_archive(b"filedesc:// - - - 76\r\n"));
        assert!(starts_archive(
            b"http://www.bt.dk/node/1/print 80.80.12.134 20101217223959 text/html 2248\n"
        ));
        assert!(starts_archive(
            b"dns:example.org 1.2.3.4 20101217223959 text/dns 56\n"
        ));
        assert!(!starts_archive(
            b"This is a plain text file, not an archive at all.\n"
        ));
        assert!(!starts_archive(b"Total: 1 2 3 4\n"));
        assert!(!starts_archive(b"see http://a.b/ 1 2 3\n"));
        assert!(!starts_archive(b"\x00\x01binary\n"));
    }
}
