//! Finding the next record header: lines at the cursor, what starts a WARC or ARC
//! record, and the garbage skipped before one.

use std::io::Read;

use super::arc::parse_arc_line;
use super::bytes::{decode, trim_end};
use super::{ArchiveReader, Format};
use crate::error::{AnomalyKind, Error, ErrorKind, Result};

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
                    self.lose_unseen_record();
                    continue;
                }
                None => break false,
                Some(l) => l,
            };
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
                return Err(Error::at(
                    ErrorKind::UnknownFormat {
                        first_line: decode(&sample).trim_end().to_string(),
                    },
                    offset,
                ));
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

    /// The offset in the stored file of decompressed position `d`: itself for plain
    /// files, its member's offset for gzip.
    fn stored_offset(&self, d: u64) -> u64 {
        if !self.s.is_compressed() {
            return d;
        }
        self.s.member_at(d).map_or(d, |(_, m)| m.cstart)
    }
}
