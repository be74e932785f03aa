//! Resynchronisation after a Content-Length that ran into the next record: cut back
//! to the `WARC/` line after a blank line (plain files) or to the gzip member boundary
//! whose member starts a record.

use std::io::Read;

use super::bytes::skip_blank_lines;
use super::{ArchiveReader, Codec, Format};
use crate::reader::error::{AnomalyKind, Result};

impl<R: Read> ArchiveReader<R> {
    /// Plain files: a record whose Content-Length ran past the next record's header.
    /// Looks back (within what the buffer still holds) for `WARC/` after a blank line.
    pub(super) fn resync_backwards(&mut self, content_end: u64) -> Option<u64> {
        if self.header.format != Format::Warc {
            return None;
        }
        let (start, held) = self.s.behind(self.content_start);
        let found = find_warc_line_back(held)?;
        let q = start + found as u64;
        if q <= self.content_start {
            return None;
        }
        let real_end = q - trailing_newlines(&held[..found]) as u64;
        self.s.rewind_to(q);
        self.anomaly(
            AnomalyKind::ContentLengthMismatch,
            self.rec_offset,
            format!(
                "Content-Length is {} bytes too long; the next record starts at offset {q}",
                content_end - real_end
            ),
        );
        Some(real_end)
    }

    /// Gzip files: a Content-Length that ran into the next member, whose data starts
    /// a record. Cuts the record at that member boundary.
    pub(super) fn resync_gzip_overrun(&mut self, content_end: u64) -> Result<u64> {
        let cs = self.content_start;
        let boundary = self
            .s
            .members
            .iter()
            .filter_map(|m| m.dend)
            .find(|&d| d > cs && d < content_end);
        let Some(b) = boundary else {
            return Ok(content_end);
        };
        let (start, held) = self.s.behind(b);
        if start != b {
            return Ok(content_end);
        }
        let rest = skip_blank_lines(held);
        let skip = held.len() - rest.len();
        if self.header_start_bytes(rest) {
            let q = b + skip as u64;
            self.s.rewind_to(q);
            self.anomaly(
                AnomalyKind::ContentLengthMismatch,
                self.rec_offset,
                format!(
                    "Content-Length runs {} bytes into the next {}, which starts a record",
                    content_end - b,
                    self.unit()
                ),
            );
            return Ok(b);
        }
        // WARC-zstd allows a record in several frames; WARC/1.1 Annex D wants one
        // record per gzip member.
        if self.s.codec() != Some(Codec::Zstd) {
            self.anomaly(
                AnomalyKind::RecordSpansGzipMembers,
                self.rec_offset,
                "the record's block continues across a gzip member boundary".into(),
            );
        }
        Ok(content_end)
    }

    fn header_start_bytes(&self, bytes: &[u8]) -> bool {
        let line_end = memchr::memchr(b'\n', bytes).map_or(bytes.len(), |i| i + 1);
        self.header_start(&bytes[..line_end]).is_some()
    }
}

/// How many CR/LF bytes end `v` (at most four: the record terminator).
fn trailing_newlines(v: &[u8]) -> usize {
    v.iter()
        .rev()
        .take(4)
        .take_while(|b| matches!(b, b'\r' | b'\n'))
        .count()
}

/// The last `WARC/` at the start of a line that follows a blank line.
fn find_warc_line_back(held: &[u8]) -> Option<usize> {
    let finder = memchr::memmem::FinderRev::new(b"\nWARC/");
    let mut hay = held;
    while let Some(i) = finder.rfind(hay) {
        let before = &held[..i + 1];
        if before.ends_with(b"\n\r\n") || before.ends_with(b"\n\n") {
            return Some(i + 1);
        }
        hay = &held[..i];
    }
    None
}
