//! The record's block: its bytes up to the Content-Length (or, without one in a gzip
//! file, the end of the member), truncation, and the HTTP head at its start.

use std::io::Read;

use super::{ArchiveReader, HttpState, RecordType};
use crate::reader::error::{AnomalyKind, Result};

impl<R: Read> ArchiveReader<R> {
    /// End of the block as far as it is known now (decompressed offset).
    pub(super) fn block_end(&self) -> u64 {
        match self.content_end {
            Some(e) => e,
            None => self
                .s
                .member_at(self.content_start)
                .and_then(|(_, m)| m.dend)
                .unwrap_or(u64::MAX),
        }
    }

    /// The next bytes of the block, reading more as needed; empty at the block's end.
    pub(super) fn block_chunk(&mut self) -> Result<&[u8]> {
        loop {
            let pos = self.s.position();
            let end = self.block_end();
            if pos >= end {
                return Ok(&[]);
            }
            if !self.s.buffer().is_empty() {
                // For blocks delimited by the member end, stop at member boundaries.
                let mut avail = self.s.buffer().len() as u64;
                if self.content_end.is_none() {
                    if let Some((_, m)) = self.s.member_at(pos) {
                        if let Some(d) = m.dend {
                            avail = avail.min(d - pos);
                        }
                    }
                }
                let n = avail.min(end - pos) as usize;
                return Ok(&self.s.buffer()[..n]);
            }
            let got = self.s.fill().map_err(|e| self.err(e))?;
            if got == 0 && self.s.buffer().is_empty() && self.s.cut().is_some() {
                // Damage: if the block runs into it (and did not just end at its member's
                // end), it ends here and the record is lost.
                if self.block_end() > pos {
                    self.damaged = true;
                    self.content_end = Some(pos);
                }
                continue;
            }
            if got == 0 && self.s.buffer().is_empty() {
                // End of input, or of a member when the block runs to the member end.
                let at_member_end = self.content_end.is_none();
                if !at_member_end || self.s.member_at(pos).is_none_or(|(_, m)| m.dend.is_none()) {
                    if self.content_end.is_some() && !self.truncated {
                        self.truncated = true;
                        let missing = end - pos;
                        self.anomaly(
                            AnomalyKind::TruncatedRecord,
                            self.rec_offset,
                            format!(
                                "file ends {missing} bytes before the end of the record's block"
                            ),
                        );
                    }
                    self.content_end = Some(pos);
                }
                if self.s.buffer().is_empty() && self.content_end.is_none() {
                    self.content_end = Some(pos);
                }
            }
        }
    }

    pub(super) fn block_consume(&mut self, n: usize) {
        self.s.consume(n);
    }

    /// Reads block bytes into `out`.
    pub(super) fn read_block(&mut self, out: &mut [u8]) -> Result<usize> {
        let chunk = self.block_chunk()?;
        let n = chunk.len().min(out.len());
        out[..n].copy_from_slice(&chunk[..n]);
        self.block_consume(n);
        Ok(n)
    }

    fn http_applies(&self) -> bool {
        let t = self.header.record_type;
        if !matches!(
            t,
            RecordType::Response | RecordType::Request | RecordType::Revisit
        ) {
            return false;
        }
        if self.header.content_length == Some(0) {
            return false;
        }
        match self.header.target_uri() {
            Some(u) => u.starts_with(b"http:") || u.starts_with(b"https:"),
            None => false,
        }
    }

    pub(super) fn parse_http(&mut self) -> Result<()> {
        if self.http_state != HttpState::NotParsed {
            return Ok(());
        }
        if !self.http_applies() || self.payload_touched {
            self.http_state = HttpState::None;
            return Ok(());
        }
        let limit = self.opts.max_header;
        let mut ended = false;
        let mut overflow = false;
        loop {
            // One line of the block: up to LF or the block end.
            let mut line_done = false;
            let mut line_len = 0usize;
            let mut blank = true;
            while !line_done {
                let chunk = self.block_chunk()?;
                if chunk.is_empty() {
                    break;
                }
                let (n, done) = match memchr::memchr(b'\n', chunk) {
                    Some(i) => (i + 1, true),
                    None => (chunk.len(), false),
                };
                if chunk[..n]
                    .iter()
                    .any(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c))
                {
                    blank = false;
                }
                if self.http.raw.len() + n <= limit {
                    // block_chunk() returned the front of the buffer.
                    self.http.raw.extend_from_slice(&self.s.buffer()[..n]);
                } else {
                    overflow = true;
                }
                line_len += n;
                self.block_consume(n);
                line_done = done;
            }
            if line_len == 0 {
                break; // end of block
            }
            if blank {
                // warcio: an empty first line ends an (empty) head too.
                ended = true;
                break;
            }
            if !line_done {
                break;
            }
        }
        // A head that simply reaches the end of the block after a whole line (request
        // records often end that way) is not an anomaly; one cut mid-line is.
        let cut = !ended && !self.http.raw.ends_with(b"\n");
        if cut || overflow {
            self.http.unterminated = true;
            self.anomaly(
                AnomalyKind::MalformedHttpHeaders,
                self.rec_offset,
                if overflow {
                    format!("HTTP header block longer than {limit} bytes")
                } else {
                    "HTTP header block has no terminating blank line".into()
                },
            );
        }
        self.http.parse_raw();
        self.http_state = if self.http.protocol().is_empty() && self.http.fields.is_empty() {
            HttpState::None
        } else {
            HttpState::Parsed
        };
        Ok(())
    }
}
