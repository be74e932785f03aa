//! The ARC header line (ARC file format 1.0 and IA's v2): split from the right, read as
//! a WARC dialect (the filedesc record is `warcinfo`, every other record a `response`).

use std::io::Read;

use super::bytes::{decode, trim};
use super::header::{ARC_V1_FIELDS, ARC_V2_FIELDS};
use super::{ArchiveReader, Format, RecordType};
use crate::reader::error::{AnomalyKind, Result};

impl<R: Read> ArchiveReader<R> {
    pub(super) fn read_arc_header(&mut self) -> Result<()> {
        let limit = self.opts.max_header;
        let (len, _) = self.take_line(limit)?.expect("seek_header saw a line");
        let version = self.arc_version.unwrap_or(Format::ArcV1);
        let line = self.s.buffer()[..len].to_vec();
        self.s.consume(len);
        self.header.raw.extend_from_slice(&line);
        let (format, parts) =
            parse_arc_line(&line, version, false).expect("seek_header checked the line");
        self.header.format = format;
        let names: &[&str] = if format == Format::ArcV2 {
            &ARC_V2_FIELDS
        } else {
            &ARC_V1_FIELDS
        };
        for (name, value) in names.iter().zip(parts.iter()) {
            self.header.fields.push(name.as_bytes(), value);
        }
        let url = parts[0];
        if memchr::memchr(b' ', url).is_some() {
            self.anomaly(
                AnomalyKind::ArcUrlWithSpaces,
                self.rec_offset,
                "ARC URL contains spaces; the header line was split from the right".into(),
            );
        }
        let is_filedesc = url.starts_with(b"filedesc:");
        self.header.record_type = if is_filedesc {
            RecordType::Warcinfo
        } else {
            RecordType::Response
        };
        let length = parts[parts.len() - 1];
        self.header.content_length = match std::str::from_utf8(trim(length))
            .ok()
            .and_then(|s| s.parse::<i64>().ok())
        {
            Some(n) if n >= 0 => Some(n as u64),
            _ => {
                // warcio takes a negative or broken ARC length as 0.
                self.anomaly(
                    AnomalyKind::BadContentLength,
                    self.rec_offset,
                    format!(
                        "ARC length {:?} is not usable; the block is taken as empty",
                        decode(length)
                    ),
                );
                Some(0)
            }
        };
        if is_filedesc {
            // The version block's first line says "1 ..." (v1) or "2 ..." (v2).
            if let Some(Ok(n)) = self.peek_line(limit)? {
                let v = self.s.buffer()[..n].trim_ascii_start();
                self.arc_version = Some(if v.starts_with(b"2") {
                    Format::ArcV2
                } else {
                    Format::ArcV1
                });
                // Quirk (warcio, and IA's own writer): the version line and the field
                // line always belong to the filedesc record, even when its length is
                // shorter than they are.
                let two = loop {
                    if let Some(i) = memchr::memchr(b'\n', &self.s.buffer()[n..]) {
                        break Some(n + i + 1);
                    }
                    if self.s.buffer().len() > limit || self.s.fill()? == 0 {
                        break None;
                    }
                };
                if let Some(two) = two {
                    let cl = self.header.content_length.unwrap_or(0);
                    if (two as u64) > cl {
                        self.header.content_length = Some(two as u64);
                    }
                }
            }
        } else if self.arc_version.is_none() {
            self.arc_version = Some(format);
        }
        Ok(())
    }
}

/// Splits an ARC header line from the right (warcio's rule; copes with spaces in URLs).
/// Returns the format and the fields, URL first.
pub(crate) fn parse_arc_line(
    line: &[u8],
    version: Format,
    strict: bool,
) -> Option<(Format, Vec<&[u8]>)> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.is_empty() || line[0] == b' ' {
        return None;
    }
    let try_split = |n: usize| -> Option<Vec<&[u8]>> {
        let mut parts: Vec<&[u8]> = line.rsplitn(n, |&b| b == b' ').collect();
        if parts.len() != n {
            return None;
        }
        parts.reverse();
        let len = trim(parts[n - 1]);
        let num = len.strip_prefix(b"-").unwrap_or(len);
        // Quirk (warcio): any five fields make an ARC header line; a broken length
        // becomes 0. While resynchronising, require a number to avoid taking text for one.
        if strict && (num.is_empty() || !num.iter().all(u8::is_ascii_digit)) {
            return None;
        }
        if parts[0].is_empty() {
            return None;
        }
        Some(parts)
    };
    if line.starts_with(b"filedesc:") {
        return try_split(5).map(|p| (Format::ArcV1, p));
    }

    if version == Format::ArcV2 {
        if let Some(p) = try_split(10) {
            return Some((Format::ArcV2, p));
        }
    }
    try_split(5).map(|p| (Format::ArcV1, p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arc_lines_split_from_the_right() {
        let (f, p) = parse_arc_line(
            b"http://a.b/x y z 1.2.3.4 20000101000000 text/html 12\n",
            Format::ArcV1,
            true,
        )
        .unwrap();
        assert_eq!(f, Format::ArcV1);
        assert_eq!(p[0], b"http://a.b/x y z");
        assert_eq!(p[4], b"12");
        let (_, p) = parse_arc_line(
            b"http://a/ 1.2.3.4 20110804181142  39\n",
            Format::ArcV1,
            true,
        )
        .unwrap();
        assert_eq!(p[3], b"");
        assert!(parse_arc_line(b"WARC/1.0\r\n", Format::ArcV1, false).is_none());
        assert!(parse_arc_line(b"hello world\n", Format::ArcV1, false).is_none());
        assert!(parse_arc_line(b"a b c d e\n", Format::ArcV1, true).is_none());
        assert!(parse_arc_line(b"a b c d e\n", Format::ArcV1, false).is_some());
    }
}
