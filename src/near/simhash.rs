//! Text fingerprints for near-duplicate versions (issue 20): a 64-bit SimHash (Charikar,
//! STOC 2002) over the words of a document's main content.
//!
//! The stored fingerprint ([`Features::default`]) takes single words, each occurrence
//! counting (a word's weight is its frequency), from the whole text at a quarter of the
//! weight of the main content (`html/main_content.rs`), so boilerplate counts less.
//! Measured on the labelled set (docs/near-duplicates.md): longer shingles or counting each
//! distinct feature once spread near variants wider (one changed word in 500 moved 2-word
//! shingles up to 9 bits, single words counted by frequency at most 3), and at the chosen
//! `k` this gave the best balance of precision and recall.
//!
//! Each feature (a shingle of consecutive words) is hashed to 64 bits with XXH64 (seed 0,
//! the same on every machine and in the Spark build, which runs this binary); every bit of
//! the fingerprint is the sign of the sum, over the features, of +1 where the feature's
//! hash has that bit set and -1 where it has not. Two texts that share most features get
//! fingerprints a few bits apart; the number of differing bits estimates the angle between
//! their feature vectors. Which features and weights, and the default distance, were chosen
//! on the labelled set of `scripts/near-dups-eval.py`: the measurements are in
//! `docs/near-duplicates.md`.
//!
//! Words are runs of letters and digits, lower-cased; a Han, Kana or Hangul character is a
//! word of its own (those scripts have no spaces). Words made of digits only are left out:
//! a visit counter, a date line or a price changes them from capture to capture while the
//! page stays the same (measured in `docs/near-duplicates.md`).

use twox_hash::XxHash64;

use super::words::for_each_word;

/// How a text is cut into features and how they are weighed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Features {
    /// Words per shingle (1 = single words).
    pub shingle: usize,
    /// How often a feature that occurs several times counts.
    pub weighting: Weighting,
    /// The weight, in quarters, of the whole text's features against the main content's:
    /// 0 takes the main content alone, 4 the whole text alone, 1 gives a shingle of the
    /// boilerplate (navigation, headers, footers) a quarter of the weight of one of the
    /// main content (which is in both). Integer weights keep the sums exact, so the
    /// fingerprint is the same on every machine.
    pub boilerplate_quarters: u8,
}

/// How a feature's occurrences count in the sums.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weighting {
    /// Once, however often it occurs (the text as a set of shingles).
    Set,
    /// Once per occurrence.
    Count,
    /// 1 + log2 of the occurrences (rounded down): a word repeated all over a page
    /// (`Disallow` in a robots.txt) weighs less than its count.
    LogCount,
}

impl Default for Features {
    /// The fingerprint warcdex stores: measured in `docs/near-duplicates.md`.
    fn default() -> Self {
        Features {
            shingle: 1,
            weighting: Weighting::Count,
            boilerplate_quarters: 1,
        }
    }
}

/// A text's fingerprint and how many words it was made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Fingerprint {
    /// The 64-bit SimHash; 0 for a text without words.
    pub hash: u64,
    /// The words counted (digits-only words left out), capped at `u32::MAX`.
    pub words: u32,
}

/// The number of bits in which two fingerprints differ (0 to 64).
pub fn distance(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
}

/// The text a version's words are counted in, and its main content when it has one with
/// words in it (the boilerplate, such as navigation, headers and footers, changes from
/// capture to capture and is shared by the pages of a site, so it is weighed less).
pub fn source_text<'a>(text: &'a str, main_text: Option<&'a str>) -> (&'a str, Option<&'a str>) {
    match main_text {
        Some(main) if main.chars().any(char::is_alphanumeric) && main != text => (text, Some(main)),
        _ => (text, None),
    }
}

/// The fingerprint of a page's text and main content with the stored features
/// ([`Features::default`]).
pub fn fingerprint(text: &str, main_text: Option<&str>) -> Fingerprint {
    fingerprint_with(text, main_text, Features::default())
}

/// The fingerprint of a page's text and main content with the given features. `words`
/// counts the whole text's.
pub fn fingerprint_with(text: &str, main_text: Option<&str>, features: Features) -> Fingerprint {
    let (text, main) = source_text(text, main_text);
    let mut sums = [0i32; 64];
    let whole_weight = i32::from(features.boilerplate_quarters.min(4));
    let (whole_weight, main_weight) = match main {
        Some(_) => (whole_weight, 4 - whole_weight),
        None => (4, 0),
    };
    let mut words = Vec::new();
    let count = add_features(text, features, whole_weight, &mut words, &mut sums);
    if let Some(main) = main {
        add_features(main, features, main_weight, &mut words, &mut sums);
    }
    if count == 0 {
        return Fingerprint::default();
    }
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

/// Adds `weight` times each feature of `text` to `sums` (+ where the feature's hash has
/// the bit, - where not); returns the number of words.
fn add_features(
    text: &str,
    features: Features,
    weight: i32,
    words: &mut Vec<u64>,
    sums: &mut [i32; 64],
) -> usize {
    let shingle = features.shingle.max(1);
    words.clear();
    for_each_word(text, |w| words.push(XxHash64::oneshot(0, w)));
    if words.is_empty() || weight == 0 {
        return words.len();
    }
    let mut hashes: Vec<u64> = if words.len() <= shingle {
        vec![shingle_hash(words)]
    } else {
        words.windows(shingle).map(shingle_hash).collect()
    };
    let mut weighted: Vec<(u64, i32)> = match features.weighting {
        Weighting::Count => hashes.into_iter().map(|h| (h, weight)).collect(),
        Weighting::Set | Weighting::LogCount => {
            hashes.sort_unstable();
            let mut out: Vec<(u64, i32)> = Vec::new();
            for h in hashes {
                match out.last_mut() {
                    Some((last, n)) if *last == h => *n += 1,
                    _ => out.push((h, 1)),
                }
            }
            out
        }
    };
    if features.weighting != Weighting::Count {
        for (_, n) in &mut weighted {
            let times = if features.weighting == Weighting::Set {
                1
            } else {
                1 + n.ilog2() as i32
            };
            *n = times * weight;
        }
    }
    let mut tally = BitTally::default();
    for (h, w) in weighted {
        tally.add(h, w);
    }
    tally.add_into(sums);
    words.len()
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

/// One shingle's hash: a single word's hash is its own; longer shingles hash their
/// words' hashes (little-endian bytes) again, so the order of the words counts.
fn shingle_hash(words: &[u64]) -> u64 {
    if let [one] = words {
        return *one;
    }
    let mut bytes = Vec::with_capacity(words.len() * 8);
    for w in words {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    XxHash64::oneshot(0, &bytes)
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
    fn distance_counts_differing_bits() {
        assert_eq!(distance(0, 0), 0);
        assert_eq!(distance(0b1011, 0b0001), 2);
        assert_eq!(distance(0, u64::MAX), 64);
    }

    #[test]
    fn main_content_counts_only_with_words_of_its_own() {
        assert_eq!(source_text("all", Some("main")), ("all", Some("main")));
        assert_eq!(source_text("all", Some(" · ")), ("all", None));
        assert_eq!(source_text("all", Some("all")), ("all", None));
        assert_eq!(source_text("all", None), ("all", None));
    }
}
