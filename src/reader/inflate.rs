//! The decompression lower bound for benchmarks: every gzip member decoded by the
//! reader's own decoders (libdeflate for a member that is whole in the buffer, the
//! streaming member decoder for the rest, as `reader/stream.rs` does), nothing parsed
//! (`warcdex inflate`).

use std::io::{self, BufRead, Read};

use crate::reader::counting::CountingReader;
use crate::reader::gzip_member::{InflateState, MemberDecoder};
use crate::reader::whole_member::{Whole, WholeMember};

/// Members and decompressed bytes of one pass.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InflateStats {
    /// gzip members decoded.
    pub members: u64,
    /// Decompressed bytes.
    pub bytes: u64,
}

const READ: usize = 256 * 1024;

/// Decodes every gzip member of `input` and discards the output.
pub fn inflate_all<R: Read>(input: R) -> io::Result<InflateStats> {
    let mut reader = CountingReader::with_window(input, READ, 4 * READ);
    let mut scratch = vec![0u8; 8 << 20];
    let mut stats = InflateStats::default();
    let mut state = InflateState::default();
    let mut whole = WholeMember::new();
    while !reader.fill_buf()?.is_empty() {
        stats.members += 1;
        if let Some(w) = whole.as_mut() {
            let input = reader.fill_at_least(READ)?;
            if let Whole::Decoded { used, written } = w.decode(input, &mut scratch) {
                reader.consume(used);
                stats.bytes += written as u64;
                continue;
            }
        }
        let mut dec = MemberDecoder::new(&mut reader, state);
        loop {
            let n = dec.read(&mut scratch[..READ])?;
            if n == 0 {
                break;
            }
            stats.bytes += n as u64;
        }
        state = dec.into_parts().1;
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
