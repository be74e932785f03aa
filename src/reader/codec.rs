//! The two per-record compressions a web archive uses, behind one interface for the
//! byte layer (`stream.rs`): gzip members (`gzip_member.rs`, WARC/1.1 Annex D) and zstd
//! frames (`zstd_frame.rs`, WARC-zstd). Both are read one unit at a time, so that each
//! record's compressed offset and length are known; a "member" in the byte layer is
//! either.

use std::io::{self, BufRead, Read};

use super::gzip_member::{InflateState, MemberDecoder};
use super::zstd_frame::{self, FrameDecoder, ZstdState};
use crate::reader::error::AnomalyKind;

/// How a compressed archive is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    /// gzip members (`.warc.gz`, `.arc.gz`).
    Gzip,
    /// zstd frames (`.warc.zst`).
    Zstd,
}

impl Codec {
    /// The compression of a file starting with `head`, if it is compressed. Two of the
    /// three first bytes of a gzip member are enough: a damaged first member must not
    /// turn the whole file into "no record found".
    pub fn sniff(head: &[u8]) -> Option<Codec> {
        let matching = [0x1f, 0x8b, 8]
            .iter()
            .zip(head.iter())
            .filter(|(a, b)| a == b)
            .count();
        if (head.len() >= 2 && head[0] == 0x1f && head[1] == 0x8b)
            || (head.len() >= 4 && matching >= 2 && head[3] & 0xe0 == 0)
        {
            return Some(Codec::Gzip);
        }
        if head.starts_with(&zstd_frame::FRAME_MAGIC) || zstd_frame::skippable_frame(head).is_some()
        {
            return Some(Codec::Zstd);
        }
        None
    }

    /// The compression's name.
    pub fn name(self) -> &'static str {
        match self {
            Codec::Gzip => "gzip",
            Codec::Zstd => "zstd",
        }
    }

    /// What one unit is called in messages.
    pub fn unit(self) -> &'static str {
        match self {
            Codec::Gzip => "gzip member",
            Codec::Zstd => "zstd frame",
        }
    }

    /// Bytes needed to judge whether a unit starts somewhere.
    pub(crate) fn header_len(self) -> usize {
        match self {
            Codec::Gzip => 4,
            Codec::Zstd => 5,
        }
    }

    /// The first byte of every unit (what a scan after damage looks for).
    pub(crate) fn first_byte(self) -> u8 {
        match self {
            Codec::Gzip => 0x1f,
            Codec::Zstd => zstd_frame::FRAME_MAGIC[0],
        }
    }

    /// True when `b` (at least [`Codec::header_len`] bytes) plausibly starts a unit.
    pub(crate) fn plausible(self, b: &[u8]) -> bool {
        match self {
            Codec::Gzip => super::counting::plausible_member(b),
            Codec::Zstd => zstd_frame::plausible_frame(b),
        }
    }

    /// True when `head` starts with the unit's magic, so a decoder should be started
    /// there (a damaged header is then the decoder's to report).
    pub(crate) fn starts_unit(self, head: &[u8]) -> bool {
        match self {
            Codec::Gzip => head[0] == 0x1f && (head.len() < 2 || head[1] == 0x8b),
            Codec::Zstd => head.starts_with(&zstd_frame::FRAME_MAGIC),
        }
    }

    /// The anomaly counted for a unit that did not decompress.
    pub(crate) fn damaged_kind(self) -> AnomalyKind {
        match self {
            Codec::Gzip => AnomalyKind::DamagedGzipMember,
            Codec::Zstd => AnomalyKind::DamagedZstdFrame,
        }
    }
}

/// A decoder's reusable state, handed from one unit to the next.
pub(crate) enum CodecState {
    /// The inflate state.
    Gzip(InflateState),
    /// The zstd context, with the file's dictionary loaded when it has one.
    Zstd(ZstdState),
}

/// The decoder of one unit.
pub(crate) enum UnitDecoder<R> {
    /// One gzip member.
    Gzip(MemberDecoder<R>),
    /// One zstd frame.
    Zstd(FrameDecoder<R>),
}

impl<R: BufRead> UnitDecoder<R> {
    /// Starts a unit at the current position of `inner`, reusing `state`, whose codec
    /// is the unit's (one stream has one codec).
    pub(crate) fn new(inner: R, state: CodecState) -> Self {
        match state {
            CodecState::Gzip(s) => UnitDecoder::Gzip(MemberDecoder::new(inner, s)),
            CodecState::Zstd(s) => UnitDecoder::Zstd(FrameDecoder::new(inner, s)),
        }
    }

    /// The underlying reader.
    pub(crate) fn get_ref(&self) -> &R {
        match self {
            UnitDecoder::Gzip(d) => d.get_ref(),
            UnitDecoder::Zstd(d) => d.get_ref(),
        }
    }

    /// True when `read` failed on a gzip trailer's CRC-32 or length: the reader is just
    /// past the trailer. zstd's checksum failure leaves no such certainty to use.
    pub(crate) fn trailer_mismatch(&self) -> bool {
        match self {
            UnitDecoder::Gzip(d) => d.trailer_mismatch(),
            UnitDecoder::Zstd(_) => false,
        }
    }

    /// The reader and the state for the next unit.
    pub(crate) fn into_parts(self) -> (R, CodecState) {
        match self {
            UnitDecoder::Gzip(d) => {
                let (r, s) = d.into_parts();
                (r, CodecState::Gzip(s))
            }
            UnitDecoder::Zstd(d) => {
                let (r, s) = d.into_parts();
                (r, CodecState::Zstd(s))
            }
        }
    }
}

impl<R: BufRead> Read for UnitDecoder<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        match self {
            UnitDecoder::Gzip(d) => d.read(out),
            UnitDecoder::Zstd(d) => d.read(out),
        }
    }
}
