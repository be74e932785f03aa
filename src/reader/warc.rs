//! The WARC record header (WARC 1.1 §4): the version line, named fields with their
//! continuation lines, and the mandatory fields and Content-Length checked.

use std::io::Read;

use super::bytes::{decode, trim, trim_end};
use super::{ArchiveReader, Format, RecordType};
use crate::reader::error::{AnomalyKind, Error, ErrorKind, Result};

impl<R: Read> ArchiveReader<R> {
    pub(super) fn read_warc_header(&mut self) -> Result<()> {
        let limit = self.opts.max_header;
        self.header.format = Format::Warc;
        let mut lf = false;
        let mut first = true;
        let mut terminated = false;
        while let Some((len, complete)) = self.take_line(limit)? {
            let line = &self.s.buffer()[..len];
            if self.header.raw.len() + len > limit {
                return Err(Error::at(
                    ErrorKind::HeaderTooLong { limit },
                    self.rec_offset,
                ));
            }
            self.header.raw.extend_from_slice(line);
            if complete && (len < 2 || line[len - 2] != b'\r') {
                lf = true;
            }
            self.s.consume(len);
            let start = self.header.raw.len() - len;
            let line_range = start..self.header.raw.len();
            if first {
                first = false;
                let l = trim_end(&self.header.raw[line_range]);
                self.header.version = l[5..].to_vec();
                if !complete {
                    break;
                }
                continue;
            }
            let raw = std::mem::take(&mut self.header.raw);
            let line = &raw[line_range];
            let stripped = trim_end(line);
            if stripped.is_empty() {
                self.header.raw = raw;
                terminated = true;
                break;
            }
            self.header_line(stripped);
            self.header.raw = raw;
            if !complete {
                break;
            }
        }
        if lf {
            self.anomaly(
                AnomalyKind::LfLineEndings,
                self.rec_offset,
                "WARC header lines end with LF, not CRLF".into(),
            );
        }
        if !terminated && self.s.cut().is_some() {
            // The header was cut by a damaged gzip member: the record is lost.
            self.damaged = true;
            self.truncated = true;
        } else if !terminated {
            self.truncated = true;
            self.anomaly(
                AnomalyKind::TruncatedRecord,
                self.rec_offset,
                "file ends inside the WARC header".into(),
            );
        }
        self.header.record_type = self
            .header
            .get("WARC-Type")
            .map_or(RecordType::Unknown, RecordType::from_warc_type);
        for f in ["WARC-Type", "WARC-Date", "WARC-Record-ID"] {
            if self.header.get(f).is_none() {
                self.anomaly(
                    AnomalyKind::MissingMandatoryField,
                    self.rec_offset,
                    format!("no {f} field"),
                );
            }
        }
        let cl = self
            .header
            .get("Content-Length")
            .map(|v| parse_u64(trim(v)));
        self.header.content_length = match cl {
            Some(Some(n)) => Some(n),
            Some(None) => {
                let v = decode(self.header.get("Content-Length").unwrap_or_default()).into_owned();
                self.bad_length(format!("Content-Length {v:?} is not a number"))
            }
            None => self.bad_length("no Content-Length".into()),
        };
        if self.truncated {
            self.header.content_length = Some(0);
        }
        Ok(())
    }

    fn bad_length(&mut self, msg: String) -> Option<u64> {
        let gz = self.s.is_compressed();
        self.anomaly(
            AnomalyKind::BadContentLength,
            self.rec_offset,
            if gz {
                format!(
                    "{msg}; the block is taken to the end of the {}",
                    self.unit()
                )
            } else {
                format!("{msg}; the block is taken as empty")
            },
        );
        if gz {
            None
        } else {
            Some(0)
        }
    }

    /// One WARC named field (already right-stripped), or a continuation line.
    fn header_line(&mut self, line: &[u8]) {
        if line[0] == b' ' || line[0] == b'\t' {
            let more = trim(line);
            if self.header.fields.continue_last(b" ", more) {
                self.anomaly(
                    AnomalyKind::HeaderContinuation,
                    self.rec_offset,
                    "header value continued on the next line".into(),
                );
            } else {
                self.anomaly(
                    AnomalyKind::MalformedHeaderLine,
                    self.rec_offset,
                    format!(
                        "continuation line with nothing to continue: {:?}",
                        decode(line)
                    ),
                );
            }
            return;
        }
        match memchr::memchr(b':', line) {
            Some(c) => {
                let name = trim(&line[..c]);
                let value_raw = &line[c + 1..];
                let value = trim(value_raw);
                let lead = value_raw.len() - value_raw.trim_ascii_start().len();
                if lead > 1 || (lead == 1 && value_raw[0] != b' ') {
                    self.anomaly(
                        AnomalyKind::LeadingWhitespace,
                        self.rec_offset,
                        format!("white space before the value of {}", decode(name)),
                    );
                }
                self.header.fields.push(name, value);
            }
            None => self.anomaly(
                AnomalyKind::MalformedHeaderLine,
                self.rec_offset,
                format!("header line without a colon: {:?}", decode(line)),
            ),
        }
    }
}

fn parse_u64(v: &[u8]) -> Option<u64> {
    if v.is_empty() || v.len() > 19 || !v.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(v).ok()?.parse().ok()
}
