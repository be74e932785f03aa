//! Payload digests: the record's `WARC-Payload-Digest`, or base32 SHA-1 of the payload
//! as stored (pywb's convention), and `--verify`, which also tries the de-chunked form
//! (WARC 1.1 §5.9).

use std::io::Read;

use sha1::{Digest, Sha1};

use super::bytes::trim;
use super::chunked::Dechunker;
use super::{ArchiveReader, HttpState, RecordType};
use crate::reader::error::{AnomalyKind, Result};

/// A payload digest: where it came from and its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PayloadDigest {
    /// Taken from the record's `WARC-Payload-Digest: sha1:...` (value without the prefix).
    FromHeader(String),
    /// Computed here: base32 SHA-1 of the payload as stored.
    Computed(String),
}

impl PayloadDigest {
    /// The digest without its `sha1:` prefix.
    pub fn value(&self) -> &str {
        match self {
            PayloadDigest::FromHeader(v) | PayloadDigest::Computed(v) => v,
        }
    }
}

/// The result of `--verify` for one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DigestCheck {
    /// The record has no sha1 payload digest to check.
    NoDigest,
    /// It matches the payload as stored (pywb's and Heritrix's convention).
    MatchesStored,
    /// It matches the payload with HTTP chunked transfer coding removed (WARC 1.1's wording).
    MatchesDechunked,
    /// It matches neither; the stored-bytes digest is given.
    Mismatch {
        /// Digest of the payload as stored.
        computed: String,
    },
}

impl<R: Read> ArchiveReader<R> {
    /// [`super::Record::payload_digest`].
    pub(super) fn payload_digest(&mut self) -> Result<Option<PayloadDigest>> {
        if let Some(d) = self.header.payload_sha1() {
            return Ok(Some(PayloadDigest::FromHeader(d)));
        }
        if self.header.record_type == RecordType::Revisit || self.payload_touched {
            return Ok(None);
        }
        let (d, _) = self.hash_rest(false)?;
        Ok(Some(PayloadDigest::Computed(d)))
    }

    /// [`super::Record::compute_payload_digest`].
    pub(super) fn compute_payload_digest(&mut self) -> Result<Option<String>> {
        if self.payload_touched {
            return Ok(None);
        }
        let (d, _) = self.hash_rest(false)?;
        Ok(Some(d))
    }

    /// [`super::Record::verify_payload_digest`].
    pub(super) fn verify_payload_digest(&mut self) -> Result<DigestCheck> {
        let Some(expected) = self.header.payload_sha1() else {
            return Ok(DigestCheck::NoDigest);
        };
        if self.header.record_type == RecordType::Revisit || self.payload_touched {
            return Ok(DigestCheck::NoDigest);
        }
        let (stored, dechunked) = self.hash_rest(true)?;
        let expected = expected.to_ascii_uppercase();
        if stored == expected {
            return Ok(DigestCheck::MatchesStored);
        }
        if dechunked.as_deref() == Some(expected.as_str()) {
            return Ok(DigestCheck::MatchesDechunked);
        }
        // Some writers (iana.warc.gz) store the SHA-1 in hex.
        if expected.len() == 40 {
            if let Ok(raw) = data_encoding::HEXUPPER.decode(expected.as_bytes()) {
                if data_encoding::BASE32.encode(&raw) == stored {
                    return Ok(DigestCheck::MatchesStored);
                }
            }
        }
        self.anomaly(
            AnomalyKind::PayloadDigestMismatch,
            self.rec_offset,
            format!("WARC-Payload-Digest sha1:{expected} but the payload hashes to sha1:{stored}"),
        );
        Ok(DigestCheck::Mismatch { computed: stored })
    }

    /// Hashes the rest of the block with SHA-1 (stored bytes) and, when asked, the
    /// de-chunked form; returns base32 strings.
    fn hash_rest(&mut self, dechunk: bool) -> Result<(String, Option<String>)> {
        self.parse_http()?;
        let chunked = dechunk
            && self.http_state == HttpState::Parsed
            && self
                .http
                .get("Transfer-Encoding")
                .is_some_and(|v| trim(v).eq_ignore_ascii_case(b"chunked"));
        let mut stored = Sha1::new();
        let mut dc = chunked.then(|| (Dechunker::default(), Sha1::new()));
        loop {
            let chunk = self.block_chunk()?;
            if chunk.is_empty() {
                break;
            }
            stored.update(chunk);
            if let Some((d, sha)) = dc.as_mut() {
                d.feed(chunk, |data| sha.update(data));
            }
            let n = chunk.len();
            self.block_consume(n);
        }
        self.payload_touched = true;
        let b32 = |d: &[u8]| data_encoding::BASE32.encode(d);
        Ok((
            b32(&stored.finalize()),
            dc.map(|(_, sha)| b32(&sha.finalize())),
        ))
    }
}
