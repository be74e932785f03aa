//! The record state machine: find a header, read it, hand out the record, and on the
//! next call finish it (drain the block, consume the blank lines that end it, cut it
//! back where its length overran, work out its span). Damage met on the way loses
//! the record it cut.

use std::io::Read;

use super::bytes::{decode, trim_end};
use super::{ArchiveReader, HttpState, Record, Span};
use crate::reader::error::{AnomalyKind, Error, ErrorKind, Result};

impl<R: Read> ArchiveReader<R> {
    /// [`ArchiveReader::next_record`]: finishes the record handed out, then finds, reads
    /// and hands out the next one that is not lost to damage.
    pub(super) fn advance(&mut self) -> Result<Option<Record<'_, R>>> {
        if self.in_record {
            match self.finish_current() {
                // Counted already; the caller did not ask for this record's span.
                Err(e) if e.is_record_lost() => {}
                other => {
                    other?;
                }
            }
        }
        loop {
            if let Some(e) = self.s.take_error() {
                return Err(self.fail(e));
            }
            if self.failed {
                return Ok(None);
            }
            let found = self.seek_header().map_err(|e| self.fail(e))?;
            if !found {
                // The input ended in an error no record was read into (a WARC-zstd
                // dictionary that does not load, a truncated member holding no header).
                if let Some(e) = self.s.take_error() {
                    return Err(self.fail(e));
                }
                self.collect_stream_anomalies();
                return Ok(None);
            }
            self.read_header().map_err(|e| self.fail(e))?;
            // The block runs into damage already met: the record is lost.
            let cut_in_block = self.s.cut().is_some_and(|c| self.block_end() > c.dpos);
            if self.damaged || cut_in_block {
                self.lose_record();
                continue;
            }
            self.records += 1;
            self.in_record = true;
            self.collect_stream_anomalies();
            return Ok(Some(Record { rd: self }));
        }
    }

    /// The record being read met damage: counts it as lost, passes the damage and
    /// returns the error [`Record::finish`] gives for it.
    fn lose_record(&mut self) -> Error {
        let member = self.s.cut().map_or(self.rec_offset, |c| c.member_cstart);
        let mut what = String::new();
        for f in ["WARC-Target-URI", "WARC-Record-ID"] {
            if let Some(v) = self.header.get(f) {
                what.push_str(&format!(" {f}: {}", decode(v)));
            }
        }
        self.collect_stream_anomalies();
        self.anomaly(
            AnomalyKind::LostRecord,
            self.rec_offset,
            format!(
                "record lost in the damaged {} at offset {member};{what}",
                self.unit()
            ),
        );
        self.pass_cut();
        self.damaged = false;
        self.in_record = false;
        self.err(Error::at(
            ErrorKind::RecordLost {
                member_offset: member,
            },
            self.rec_offset,
        ))
    }

    /// Damage met between records: the damaged member held at least one record.
    pub(super) fn lose_unseen_record(&mut self) {
        let Some(c) = self.s.cut() else {
            return;
        };
        // The damage first, then what it cost.
        self.collect_stream_anomalies();
        self.anomaly(
            AnomalyKind::LostRecord,
            c.member_cstart,
            format!(
                "the damaged {} at offset {} held a record (at least one), lost",
                self.unit(),
                c.member_cstart
            ),
        );
        self.pass_cut();
    }

    pub(super) fn pass_cut(&mut self) {
        self.s.pass_cut();
        // What follows belongs to the next member; nothing before it is a record's.
        self.prev_content_end = self.prev_content_end.min(self.s.position());
        self.collect_stream_anomalies();
    }

    pub(super) fn read_header(&mut self) -> Result<()> {
        self.header.clear();
        self.http.clear();
        self.http_state = HttpState::NotParsed;
        self.payload_touched = false;
        self.truncated = false;
        self.damaged = false;
        self.multi_flagged = false;
        self.rec_start = self.s.position();
        self.s
            .prune_members(self.rec_start.min(self.prev_content_end));
        self.rec_offset = self.record_offset();
        // "WARC/", not just "W": an ARC URL may start with "w" (whois://). A damaged
        // "WARC/" line that passed as an ARC line is still best read as a WARC header.
        let b = self.s.buffer();
        if b.len() >= 5 && b[..5].eq_ignore_ascii_case(b"WARC/") {
            self.read_warc_header()?;
        } else {
            self.read_arc_header()?;
        }
        self.content_start = self.s.position();
        // Saturating: a hostile Content-Length (up to 19 digits) must not overflow; the
        // end of the input comes first anyway.
        self.content_end = self
            .header
            .content_length
            .map(|n| self.content_start.saturating_add(n));
        if self.content_end.is_none() && !self.s.is_compressed() {
            // Without a length a plain record cannot be delimited; take an empty block
            // and let resynchronisation skip to the next record (counted there).
            self.content_end = Some(self.content_start);
        }
        Ok(())
    }

    pub(super) fn finish_current(&mut self) -> Result<Span> {
        self.in_record = false;
        let r = self.finish_inner();
        self.collect_stream_anomalies();
        match r {
            Err(e) if e.is_record_lost() => Err(e),
            other => other.map_err(|e| self.fail(e)),
        }
    }

    fn finish_inner(&mut self) -> Result<Span> {
        // Drain the block.
        loop {
            let n = self.block_chunk()?.len();
            if n == 0 {
                break;
            }
            self.block_consume(n);
        }
        let mut content_end = self.content_end.unwrap_or(self.s.position());
        if self.s.is_compressed() && !self.damaged {
            content_end = self.resync_gzip_overrun(content_end)?;
        }
        self.prev_content_end = content_end;
        // The blank lines that end the record; then look at what follows.
        let mut saw_newline = false;
        let mut in_member_junk = false;
        let next = loop {
            if !self.s.ensure()? {
                break None;
            }
            if self.s.is_compressed() {
                // In gzip files a record owns the rest of its member.
                if let Some((_, m)) = self.s.member_at(self.s.position()) {
                    if m.dstart == self.s.position() && m.dstart >= content_end {
                        break None;
                    }
                }
            }
            let line = match self.peek_line(self.opts.max_header)? {
                Some(Ok(n)) => n,
                Some(Err(n)) => n,
                None => break None,
            };
            let l = &self.s.buffer()[..line];
            if trim_end(l).is_empty() {
                saw_newline = true;
                self.s.consume(line);
                continue;
            }
            let is_header = self.header_start(l).is_some();
            if self.s.is_compressed() && !is_header {
                // Data after the block inside the record's own member: part of the record.
                let at = self.rec_offset;
                if !in_member_junk {
                    in_member_junk = true;
                    self.anomaly(
                        AnomalyKind::ContentLengthMismatch,
                        at,
                        format!("bytes after the record's block inside its {} (Content-Length too short?)", self.unit()),
                    );
                }
                self.s.consume(line);
                continue;
            }
            break Some(is_header);
        };
        // Damage met in the block, or in what follows it inside the record's own member
        // (the damaged member gave bytes this record read; a member that failed before
        // giving any is the next record's, and `seek_header` counts it).
        let pos = self.s.position();
        let cut_in_record = next.is_none()
            && self
                .s
                .cut()
                .is_some_and(|c| c.member_dstart < c.dpos && c.member_dstart <= pos);
        if self.damaged || cut_in_record {
            return Err(self.lose_record());
        }
        if next == Some(false) && !self.s.is_compressed() {
            if let Some(end) = self.resync_backwards(content_end) {
                content_end = end;
                self.prev_content_end = end;
            }
        } else if next == Some(true) && !saw_newline && !self.truncated {
            self.anomaly(
                AnomalyKind::MissingTrailingNewline,
                self.rec_offset,
                "record is not followed by a blank line".into(),
            );
        }
        let span = if self.s.is_compressed() {
            self.gzip_span(content_end)?
        } else {
            Span {
                offset: self.rec_offset,
                length: content_end - self.rec_start,
            }
        };
        Ok(span)
    }
}
