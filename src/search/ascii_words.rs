//! The runs of ASCII letters and digits of a text, found eight bytes at a time.
//!
//! Why: the snippet's fragment scan (`src/search/snippet.rs`) cut its tokens a byte at a
//! time, a load, a table look-up and a branch per byte, and that loop was 7 % of a loaded
//! server's cycles under `scripts/bench-serve.sh`. Here each 64 bytes become
//! one bit mask of "letter or digit" with word arithmetic (no branch per byte), and a
//! token's ends are the mask's next set and next clear bits.

use std::ops::Range;

/// Eight copies of a byte (also `src/render/escape.rs`'s word test).
pub(crate) const ONES: u64 = 0x0101_0101_0101_0101;
/// The high bit of every byte.
pub(crate) const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `x` set when that byte is an ASCII letter or digit.
fn alnum_high_bits(x: u64) -> u64 {
    // Per byte v < 0x80: v + (0x80 - lo) has its high bit set exactly when v >= lo, and
    // never carries into the next byte (at most 0x7f + 0x80).
    let low7 = x & !HIGH;
    let at_least = |v: u64, lo: u8| v + (0x80 - u64::from(lo)) * ONES;
    let digit = at_least(low7, b'0') & !at_least(low7, b'9' + 1);
    // `| 0x20` maps upper-case letters onto lower-case ones and keeps v < 0x80.
    let folded = low7 | (0x20 * ONES);
    let letter = at_least(folded, b'a') & !at_least(folded, b'z' + 1);
    // A byte with its high bit set is not ASCII.
    (digit | letter) & !x & HIGH
}

/// Bit `k` set when byte `k` of `x` (little-endian) has its high bit set: the high bits
/// of `x` gathered into one byte.
fn gather_high_bits(x: u64) -> u64 {
    // Byte k's bit (bit 8k after the shift) times 2^(7(8 - k)) lands on bit 56 + k;
    // the other partial products are all on distinct bits, so nothing carries, and none
    // of them falls in the top byte.
    ((x & HIGH) >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// The high bit of each byte of `x` set when that byte starts a character outside ASCII
/// (`0b11xx_xxxx`: bit 6 shifted onto bit 7 of the same byte).
fn lead_high_bits(x: u64) -> u64 {
    x & (x << 1) & HIGH
}

/// Bit `k` set when `high_bits` marks `bytes[k]`, for the first 64 bytes (a shorter slice
/// counts as padded with spaces, which neither rule marks).
fn chunk_mask(bytes: &[u8], high_bits: fn(u64) -> u64) -> u64 {
    let mut padded = [b' '; 64];
    let chunk: &[u8] = if bytes.len() >= 64 {
        &bytes[..64]
    } else {
        padded[..bytes.len()].copy_from_slice(bytes);
        &padded
    };
    let mut mask = 0;
    for (k, eight) in chunk.chunks_exact(8).enumerate() {
        let x = u64::from_le_bytes(eight.try_into().expect("eight bytes"));
        mask |= gather_high_bits(high_bits(x)) << (8 * k);
    }
    mask
}

/// The maximal runs of ASCII letters and digits of a text, as byte ranges, in order.
/// Every other byte (ASCII or not) separates them.
pub(crate) struct AsciiWords<'a> {
    bytes: &'a [u8],
    /// The first byte of the 64 whose mask is `mask`.
    base: usize,
    mask: u64,
    /// Where the next run is looked for (`base <= pos < base + 64`, or the end).
    pos: usize,
}

impl<'a> AsciiWords<'a> {
    /// The runs of `bytes`.
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        AsciiWords {
            bytes,
            base: 0,
            mask: chunk_mask(bytes, alnum_high_bits),
            pos: 0,
        }
    }

    /// Moves to the next 64 bytes; `false` at the end of the text.
    fn next_chunk(&mut self) -> bool {
        self.base += 64;
        self.pos = self.base;
        if self.base >= self.bytes.len() {
            return false;
        }
        self.mask = chunk_mask(&self.bytes[self.base..], alnum_high_bits);
        true
    }

    /// The bits of `m` at `pos` and after, within the current 64 bytes.
    fn at_or_after_pos(&self, m: u64) -> u64 {
        m & (!0u64 << (self.pos - self.base))
    }
}

impl Iterator for AsciiWords<'_> {
    type Item = Range<usize>;

    fn next(&mut self) -> Option<Range<usize>> {
        if self.pos >= self.bytes.len() {
            return None;
        }
        let start = loop {
            let set = self.at_or_after_pos(self.mask);
            if set != 0 {
                break self.base + set.trailing_zeros() as usize;
            }
            if !self.next_chunk() {
                return None;
            }
        };
        self.pos = start;
        let end = loop {
            // Bytes past the end are padding, never letters: a run stops there at most.
            let clear = self.at_or_after_pos(!self.mask);
            if clear != 0 {
                break (self.base + clear.trailing_zeros() as usize).min(self.bytes.len());
            }
            if !self.next_chunk() {
                break self.bytes.len();
            }
        };
        self.pos = end;
        Some(start..end)
    }
}

/// Whether `text` holds a character outside ASCII that the analyzer puts in a token
/// (`schema::analysis::in_a_token`: a letter, digit or CJK character). Without one, the
/// analyzers cut `text` into the runs [`AsciiWords`] gives, lower-cased.
pub(crate) fn token_char_outside_ascii(text: &str) -> bool {
    let at = |i: usize| text[i..].chars().next().expect("a character starts at i");
    !text.is_ascii()
        && non_ascii_starts(text.as_bytes()).any(|i| crate::schema::analysis::in_a_token(at(i)))
}

/// The first bytes of the characters of `bytes` that are not ASCII (lead bytes,
/// `0b11xx_xxxx`), in order.
fn non_ascii_starts(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    bytes.chunks(64).enumerate().flat_map(|(c, chunk)| {
        let mut mask = chunk_mask(chunk, lead_high_bits);
        std::iter::from_fn(move || {
            (mask != 0).then(|| {
                let k = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                c * 64 + k
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The runs, a byte at a time.
    fn runs(bytes: &[u8]) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i].is_ascii_alphanumeric() {
                let from = i;
                while i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
                    i += 1;
                }
                out.push(from..i);
            } else {
                i += 1;
            }
        }
        out
    }

    #[test]
    fn every_byte_value_is_classed_as_is_ascii_alphanumeric() {
        for b in 0..=255u8 {
            for k in 0..8 {
                // The byte alone and among others of every kind.
                for fill in [0u8, b' ', b'a', 0xff] {
                    let mut eight = [fill; 8];
                    eight[k] = b;
                    let m = gather_high_bits(alnum_high_bits(u64::from_le_bytes(eight)));
                    assert_eq!(
                        m >> k & 1 == 1,
                        b.is_ascii_alphanumeric(),
                        "byte {b:#x} at {k} among {fill:#x}"
                    );
                    let l = gather_high_bits(lead_high_bits(u64::from_le_bytes(eight)));
                    assert_eq!(l >> k & 1 == 1, b >= 0xc0, "lead byte {b:#x} at {k}");
                }
            }
        }
    }

    #[test]
    fn runs_as_a_byte_at_a_time_finds_them() {
        let mut rng = crate::test_rng::XorShift::new(0x9e37_79b9_7f4a_7c15u64);
        let mut next = |n: usize| rng.below(n);
        let pieces: [&[u8]; 9] = [
            b"a",
            b"Z9",
            b"word",
            b" ",
            b", ",
            "é".as_bytes(),
            "—".as_bytes(),
            b"abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij",
            b"\x7f\x00[`{@/:",
        ];
        for _ in 0..5000 {
            let mut t = Vec::new();
            for _ in 0..next(60) {
                t.extend_from_slice(pieces[next(pieces.len())]);
            }
            assert_eq!(AsciiWords::new(&t).collect::<Vec<_>>(), runs(&t), "{t:?}");
            let starts: Vec<usize> = (0..t.len()).filter(|&i| t[i] >= 0xc0).collect();
            assert_eq!(non_ascii_starts(&t).collect::<Vec<_>>(), starts, "{t:?}");
        }
        // Lengths around the 64-byte steps, a run to the very end.
        for n in [0, 1, 63, 64, 65, 127, 128, 129] {
            let t = vec![b'x'; n];
            assert_eq!(
                AsciiWords::new(&t).collect::<Vec<_>>(),
                runs(&t),
                "{n} letters"
            );
            let mut s = vec![b' '; n];
            s.push(b'y');
            assert_eq!(
                AsciiWords::new(&s).collect::<Vec<_>>(),
                runs(&s),
                "{n} spaces"
            );
        }
    }
}
