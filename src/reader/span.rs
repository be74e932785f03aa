//! Where a record is stored ([`Span`], CDX `V` and `S`), with warcio's rules: in plain
//! files from its header to the end of its block; in gzip files its member, empty
//! members before it included, or for a whole-file gzip the member holding it, whose
//! end a second pass finds.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use super::codec::{Codec, CodecState, UnitDecoder};
use super::counting::CountingReader;
use super::stream::Member;
use super::zstd_frame;
use super::ArchiveReader;
use crate::reader::error::{AnomalyKind, Error, ErrorKind, Result};

/// Where a record is stored: the offset of its first byte (for gzip, of its member)
/// and its length in the file as stored (for gzip, the compressed member length).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// Offset in the stored file (CDX `V`).
    pub offset: u64,
    /// Length in the stored file (CDX `S`).
    pub length: u64,
}

/// Finds where the member (gzip member or zstd frame) starting at `offset` ends; the
/// reader opened on a file probes that file (see [`member_probe`]), one on standard
/// input cannot.
pub(super) type MemberProbe = Box<dyn FnMut(u64) -> io::Result<u64> + Send>;

/// The probe of the archive stored in the file at `path` from offset `base` (0, or a
/// WARC's data start in a WACZ), compressed with `codec`.
pub(super) fn member_probe(path: PathBuf, base: u64, codec: Option<Codec>) -> MemberProbe {
    Box::new(move |offset| member_end(&path, base, offset, codec.unwrap_or(Codec::Gzip)))
}

/// Finds where the member starting at archive offset `offset` ends, by decompressing it.
fn member_end(path: &Path, base: u64, offset: u64, codec: Codec) -> io::Result<u64> {
    use std::io::{Seek, SeekFrom};
    let mut f = File::open(path)?;
    let state = match codec {
        Codec::Gzip => CodecState::Gzip(Default::default()),
        // A frame of a file with a dictionary decodes only with it.
        Codec::Zstd => CodecState::Zstd(zstd_frame::file_dictionary(&mut f, base)?),
    };
    f.seek(SeekFrom::Start(base + offset))?;
    let mut dec = UnitDecoder::new(CountingReader::new(f, 8192), state);
    // A damaged member ends, as far as anyone can tell, where its decoder failed (the
    // reader reports the damage itself when it gets there).
    let _ = io::copy(&mut dec, &mut io::sink());
    Ok(offset + dec.get_ref().pos())
}

impl<R: Read> ArchiveReader<R> {
    /// The stored offset of the record starting at the cursor.
    pub(super) fn record_offset(&mut self) -> u64 {
        if !self.s.is_compressed() {
            return self.rec_start;
        }
        let Some((i, m)) = self.s.member_at(self.rec_start) else {
            return self.rec_start;
        };
        if self.records > 0 && self.prev_content_end > m.dstart {
            let offset = m.cstart;
            self.multi_flagged = true;
            self.anomaly(
                AnomalyKind::MultiRecordGzipMember,
                offset,
                format!(
                    "record starts inside the {unit} of the previous record (whole-file \
                     {name}?); offset and length are the {unit}'s",
                    unit = self.unit(),
                    name = self.codec_name()
                ),
            );
            return offset;
        }
        // Quirk (warcio): empty members before a record are counted in its span.
        let mut offset = m.cstart;
        for j in (0..i).rev() {
            let p = self.s.members[j];
            if p.dend == Some(p.dstart) && p.cend == Some(offset) && !p.damaged {
                offset = p.cstart;
            } else {
                break;
            }
        }
        offset
    }

    pub(super) fn gzip_span(&mut self, content_end: u64) -> Result<Span> {
        let pos = self.s.position();
        // The first member boundary at or after the content end, and not past the
        // next record; a non-empty member's end is preferred over an empty one's.
        let ends_here = |m: &&Member| m.dend.is_some_and(|d| d >= content_end && d <= pos);
        let members = &self.s.members;
        let boundary = members
            .iter()
            .filter(ends_here)
            .find(|m| m.dend != Some(m.dstart))
            .or_else(|| members.iter().find(ends_here))
            .map(|m| m.cend.expect("ended member has an end"));
        if let Some(cend) = boundary {
            return Ok(Span {
                offset: self.rec_offset,
                length: cend - self.rec_offset,
            });
        }
        // The record ends inside its member: report the whole member.
        let Some((_, m)) = self
            .s
            .member_at(content_end.saturating_sub(1).max(self.rec_start))
        else {
            return Ok(Span {
                offset: self.rec_offset,
                length: 0,
            });
        };
        if !self.multi_flagged {
            self.anomaly(
                AnomalyKind::MultiRecordGzipMember,
                m.cstart,
                format!(
                    "{unit} holds more than one record (whole-file {name}?); offset and \
                     length are the {unit}'s",
                    unit = self.unit(),
                    name = self.codec_name()
                ),
            );
        }
        let cend = match m.cend {
            Some(c) => c,
            // The input ended inside the member (a truncated file): it ends where the file does.
            None if self.s.is_eof() => self.s.compressed_position(),
            None => self.probe_member_end(m.cstart)?,
        };
        Ok(Span {
            offset: m.cstart,
            length: cend - m.cstart,
        })
    }

    fn probe_member_end(&mut self, cstart: u64) -> Result<u64> {
        if let Some((s, e)) = self.probe_cache {
            if s == cstart {
                return Ok(e);
            }
        }
        let Some(probe) = self.probe.as_mut() else {
            // Not seekable: the member's end is unknown until it is read.
            return Ok(cstart);
        };
        let end = probe(cstart).map_err(|e| Error::at(ErrorKind::Io(e), cstart))?;
        self.probe_cache = Some((cstart, end));
        Ok(end)
    }
}
