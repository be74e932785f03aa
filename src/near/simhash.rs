//! The 64-bit SimHash of issue 20 (Charikar, STOC 2002), still stored in segments and
//! indexes (`simhash`, `simhash_words`) for the tables that export it; near-duplicates are
//! judged by the signatures of `minhash.rs` since issue 43 (docs/near-duplicates.md tells
//! why).
//!
//! Features are single words (`words.rs`), each occurrence counting, from the whole text
//! at a quarter of the weight of the main content (`html/main_content.rs`). Each word is
//! hashed to 64 bits with XXH64 (seed 0, the same on every machine and in the Spark
//! build, which runs this binary); every bit of the fingerprint is the sign of the
//! weighted sum, over the words, of +1 where the word's hash has that bit set and -1
//! where it has not. Integer weights keep the sums exact; a test pins one value.

use twox_hash::XxHash64;

use super::words::for_each_word;

/// The weight, in quarters, of the whole text's words against the main content's: a word
/// of the boilerplate (navigation, headers, footers) weighs a quarter of one of the main
/// content (which is in both).
const WHOLE_TEXT_QUARTERS: i32 = 1;

/// A text's fingerprint and how many words it was made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Fingerprint {
    /// The 64-bit SimHash; 0 for a text without words.
    pub hash: u64,
    /// The words counted (digits-only words left out), capped at `u32::MAX`.
    pub words: u32,
}

/// The fingerprint of a page's text and main content. `words` counts the whole text's;
/// the main content counts when it has words of its own and differs from the text.
pub fn fingerprint(text: &str, main_text: Option<&str>) -> Fingerprint {
    let main = main_text.filter(|m| m.chars().any(char::is_alphanumeric) && *m != text);
    let whole_weight = match main {
        Some(_) => WHOLE_TEXT_QUARTERS,
        None => 4,
    };
    let mut tally = BitTally::default();
    let mut count = 0usize;
    for_each_word(text, |w| {
        count += 1;
        tally.add(XxHash64::oneshot(0, w), whole_weight);
    });
    if let Some(main) = main {
        for_each_word(main, |w| {
            tally.add(XxHash64::oneshot(0, w), 4 - WHOLE_TEXT_QUARTERS)
        });
    }
    if count == 0 {
        return Fingerprint::default();
    }
    let mut sums = [0i32; 64];
    tally.add_into(&mut sums);
    let hash = sums
        .iter()
        .enumerate()
        .filter(|(_, s)| **s > 0)
        .fold(0u64, |acc, (bit, _)| acc | (1 << bit));
    Fingerprint {
        hash,
        words: u32::try_from(count).unwrap_or(u32::MAX),
    }
}

/// For each byte value, its eight bits spread one per byte (bit j to byte j), so that
/// adding spreads counts eight bits at once in one `u64`.
const SPREAD: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut j = 0;
        while j < 8 {
            t[b] |= (((b >> j) & 1) as u64) << (8 * j);
            j += 1;
        }
        b += 1;
    }
    t
};

/// Weighted per-bit counts of 64-bit hashes: the simhash sum of each bit is
/// +w where a hash has it and -w where not, that is 2 × (weight with the bit) − (all
/// weight). Counted eight bits per `u64` in byte lanes (`SPREAD`), emptied before a lane
/// could pass 255: a quarter of the instructions of a loop over the 64 bits, which the
/// baseline x86-64 target cannot vectorize (import spent 18 % of its time there, issue
/// 22's profile). Integer sums, so the result is exactly that loop's.
struct BitTally {
    lanes: [u64; 8],
    lane_weight: u32,
    with_bit: [i64; 64],
    total: i64,
}

impl Default for BitTally {
    fn default() -> Self {
        BitTally {
            lanes: [0; 8],
            lane_weight: 0,
            with_bit: [0; 64],
            total: 0,
        }
    }
}

impl BitTally {
    fn add(&mut self, h: u64, w: i32) {
        let Ok(mut w) = u32::try_from(w) else {
            // Weights are never negative (`add_features`); counted bit by bit anyway.
            for (bit, n) in self.with_bit.iter_mut().enumerate() {
                *n += ((h >> bit) & 1) as i64 * i64::from(w);
            }
            self.total += i64::from(w);
            return;
        };
        while w > 0 {
            let part = w.min(255);
            if self.lane_weight + part > 255 {
                self.flush();
            }
            for (k, lane) in self.lanes.iter_mut().enumerate() {
                *lane += SPREAD[((h >> (8 * k)) & 0xff) as usize] * u64::from(part);
            }
            self.lane_weight += part;
            self.total += i64::from(part);
            w -= part;
        }
    }

    fn flush(&mut self) {
        for (k, lane) in self.lanes.iter_mut().enumerate() {
            for j in 0..8 {
                self.with_bit[8 * k + j] += ((*lane >> (8 * j)) & 0xff) as i64;
            }
            *lane = 0;
        }
        self.lane_weight = 0;
    }

    /// Adds each bit's sum to `sums` (wrapping, as adding one hash at a time in `i32`
    /// would).
    fn add_into(mut self, sums: &mut [i32; 64]) {
        self.flush();
        for (sum, n) in sums.iter_mut().zip(self.with_bit) {
            *sum = sum.wrapping_add((2 * n - self.total) as i32);
        }
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn bit_tally_equals_the_loop_over_bits() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for weights in [&[1][..], &[4, 3, 1, 0], &[132, 255, 256, 1000, 7]] {
            let mut slow = [0i32; 64];
            let mut tally = BitTally::default();
            for i in 0..5000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let w = weights[i % weights.len()];
                for (bit, sum) in slow.iter_mut().enumerate() {
                    *sum += ((((x >> bit) & 1) as i32) * 2 - 1) * w;
                }
                tally.add(x, w);
            }
            let mut fast = [0i32; 64];
            tally.add_into(&mut fast);
            assert_eq!(fast, slow, "weights {weights:?}");
        }
    }

    use super::*;

    #[test]
    fn a_fingerprint_is_fixed_across_runs_and_machines() {
        // Pinned: the fingerprint is stored in segments and indexes, so a change of
        // tokenizer, hash or features must be a deliberate change of this value.
        let f = fingerprint("The quick brown fox jumps over the lazy dog", None);
        assert_eq!(f.words, 9);
        assert_eq!(f.hash, 0x593b03225397e4ae);
        assert_eq!(fingerprint("", None), Fingerprint::default());
        assert_eq!(fingerprint("2026 11 24", None).words, 0);
    }

    #[test]
    fn main_content_counts_only_with_words_of_its_own() {
        let text = "the quick brown fox jumps over the lazy dog";
        let alone = fingerprint(text, None);
        assert_eq!(fingerprint(text, Some(" · ")), alone);
        assert_eq!(fingerprint(text, Some(text)), alone);
        assert_eq!(fingerprint(text, Some("lazy dog")).words, 9);
    }
}
