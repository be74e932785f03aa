//! The decompression lower bound for benchmarks: every gzip member decoded by the
//! reader's own member decoder (same inflate and CRC code), nothing parsed
//! (`warcdex inflate`).

use std::io::{self, BufRead, BufReader, Read};

use crate::reader::gzip_member::{InflateState, MemberDecoder};

/// Members and decompressed bytes of one pass.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InflateStats {
    /// gzip members decoded.
    pub members: u64,
    /// Decompressed bytes.
    pub bytes: u64,
}

/// Decodes every gzip member of `input` and discards the output.
pub fn inflate_all<R: Read>(input: R) -> io::Result<InflateStats> {
    let mut reader = BufReader::with_capacity(256 * 1024, input);
    let mut scratch = vec![0u8; 256 * 1024];
    let mut stats = InflateStats::default();
    let mut state = InflateState::default();
    while !reader.fill_buf()?.is_empty() {
        let mut dec = MemberDecoder::new(&mut reader, state);
        loop {
            let n = dec.read(&mut scratch)?;
            if n == 0 {
                break;
            }
            stats.bytes += n as u64;
        }
        state = dec.into_parts().1;
        stats.members += 1;
    }
    Ok(stats)
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_members_and_bytes() {
        use flate2::{write::GzEncoder, Compression};
        use std::io::Write;
        let mut all = Vec::new();
        for part in [&b"hello "[..], b"world"] {
            let mut e = GzEncoder::new(Vec::new(), Compression::default());
            e.write_all(part).unwrap();
            all.extend(e.finish().unwrap());
        }
        let s = super::inflate_all(&all[..]).unwrap();
        assert_eq!((s.members, s.bytes), (2, 11));
    }
}
