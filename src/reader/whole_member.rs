//! A whole gzip member decoded in one call by libdeflate, when the member is entirely
//! in the input buffer and its data fits the output space: most web-archive records.
//!
//! Why: inflate is most of `cdx`'s time (profiled: zlib-rs's
//! `inflate_fast_help` alone was 64 %), and libdeflate, which decodes a whole buffer
//! instead of a stream, inflated the bench's members 1.5× faster than zlib-rs
//! (docs/performance.md, "Reading and decompression"). Anything else — a member
//! longer than the buffer, one that does not decode, a CRC-32 or length mismatch, header
//! bits libdeflate refuses — is left to the streaming decoder (`gzip_member.rs`), which
//! decodes it from the same start and reports damage exactly as before. So libdeflate
//! only ever gives the bytes, and the member end, that the streaming decoder would give.

use std::ptr::NonNull;

use libdeflate_sys::{
    libdeflate_alloc_decompressor, libdeflate_decompressor, libdeflate_free_decompressor,
    libdeflate_gzip_decompress_ex, libdeflate_result_LIBDEFLATE_INSUFFICIENT_SPACE,
    libdeflate_result_LIBDEFLATE_SUCCESS,
};

/// A libdeflate decompressor (about 10 KiB of tables), reused from member to member.
pub(crate) struct WholeMember {
    raw: NonNull<libdeflate_decompressor>,
}

// SAFETY: a libdeflate decompressor holds no thread-local or shared state; it is used
// through `&mut self` only, so by one thread at a time.
unsafe impl Send for WholeMember {}

impl WholeMember {
    /// A decompressor, or `None` when libdeflate cannot allocate one (the streaming
    /// decoder then does all the work).
    pub(crate) fn new() -> Option<Self> {
        // SAFETY: no arguments; a null return is handled.
        NonNull::new(unsafe { libdeflate_alloc_decompressor() }).map(|raw| WholeMember { raw })
    }

    /// Decodes the gzip member at the start of `input` into `out`: the member's
    /// compressed length and the bytes written when the whole member is in `input`, it
    /// decodes, and its CRC-32 and length match.
    pub(crate) fn decode(&mut self, input: &[u8], out: &mut [u8]) -> Whole {
        let (mut used, mut written) = (0usize, 0usize);
        // SAFETY: the pointers and lengths come from live slices; libdeflate reads at most
        // `input.len()` bytes and writes at most `out.len()` bytes, and the decompressor is
        // valid until `drop`.
        let result = unsafe {
            libdeflate_gzip_decompress_ex(
                self.raw.as_ptr(),
                input.as_ptr().cast(),
                input.len(),
                out.as_mut_ptr().cast(),
                out.len(),
                &mut used,
                &mut written,
            )
        };
        if result == libdeflate_result_LIBDEFLATE_SUCCESS && used <= input.len() {
            Whole::Decoded { used, written }
        } else if result == libdeflate_result_LIBDEFLATE_INSUFFICIENT_SPACE {
            Whole::OutOfSpace
        } else {
            Whole::Not
        }
    }
}

/// What [`WholeMember::decode`] made of a member.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Whole {
    /// Decoded: `used` compressed bytes, `written` bytes of data.
    Decoded {
        /// The member's compressed length.
        used: usize,
        /// Its data's length.
        written: usize,
    },
    /// Its data are longer than the output space (or a member cut short by the end of
    /// the input decoded into more than that).
    OutOfSpace,
    /// Not whole in the input, damaged, or refused: for the streaming decoder.
    Not,
}

impl Drop for WholeMember {
    fn drop(&mut self) {
        // SAFETY: allocated by `libdeflate_alloc_decompressor` and freed once.
        unsafe { libdeflate_free_decompressor(self.raw.as_ptr()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::{write::GzEncoder, Compression};
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn one_member_of_several_with_its_compressed_length() {
        let first: Vec<u8> = (0..50_000u32)
            .flat_map(|i| (i % 97).to_le_bytes())
            .collect();
        let a = gz(&first);
        let mut both = a.clone();
        both.extend(gz(b"next record"));
        let mut d = WholeMember::new().unwrap();
        let mut out = vec![0u8; 300_000];
        let Whole::Decoded { used, written } = d.decode(&both, &mut out) else {
            panic!("first member")
        };
        assert_eq!((used, &out[..written]), (a.len(), &first[..]));
        let Whole::Decoded {
            used: used2,
            written: n2,
        } = d.decode(&both[used..], &mut out)
        else {
            panic!("second member")
        };
        assert_eq!(
            (used2, &out[..n2]),
            (both.len() - a.len(), &b"next record"[..])
        );
    }

    #[test]
    fn a_cut_member_a_short_output_or_a_bad_crc_is_left_to_the_stream() {
        let data: Vec<u8> = (0..20_000u32)
            .flat_map(|i| (i % 13).to_le_bytes())
            .collect();
        let a = gz(&data);
        let mut d = WholeMember::new().unwrap();
        let mut out = vec![0u8; data.len()];
        for cut in [1, 10, a.len() / 2, a.len() - 1] {
            // A cut stream may also run out of output space on the zeros libdeflate
            // reads past the end; either way it is not decoded.
            let got = d.decode(&a[..cut], &mut out);
            assert!(
                matches!(got, Whole::Not | Whole::OutOfSpace),
                "cut at {cut}"
            );
        }
        assert_eq!(d.decode(&a, &mut out[..data.len() - 1]), Whole::OutOfSpace);
        let mut bad = a.clone();
        let n = bad.len();
        bad[n - 8] ^= 1;
        assert_eq!(d.decode(&bad, &mut out), Whole::Not);
        let whole = Whole::Decoded {
            used: a.len(),
            written: data.len(),
        };
        assert_eq!(d.decode(&a, &mut out), whole);
    }
}
