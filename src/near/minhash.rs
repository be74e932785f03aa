//! The near-duplicate signature of a version: a MinHash sketch of the set of
//! its text's word 3-shingles, with a hash of its title and of its text.
//!
//! Two versions are near-duplicates when their titles have the same words (digits
//! aside) and the sketches estimate a resemblance (Jaccard similarity of the shingle
//! sets, Broder 1997) of at least the threshold ([`DEFAULT_THRESHOLD`]). Sets of
//! shingles, not weighted words: a word common on every page of a language or a site
//! counts once in a few shingles, so pages of one site do not start out close, and a
//! rewritten third of a page leaves a third of its shingles new. Measured on the
//! labelled sets of `scripts/near-dups-eval.py` (docs/near-duplicates.md): near variants
//! (a date line, a counter, an ad block, markup) resemble their page at 0.86 or more,
//! far variants (20–45 % of the words rewritten) at 0.73 or less; pages of one template
//! (Rust's iterator pages) reach 0.86 with each other, which only their titles tell apart.
//!
//! The sketch is one-permutation hashing (Li, Owen and Zhang, NIPS 2012) with optimal
//! densification (Shrivastava, ICML 2017): each shingle is hashed once with XXH64 (seed
//! 0), its top bits choose one of [`BINS`] bins and each bin keeps its smallest hash; an
//! empty bin (a short text) takes the value of a bin chosen by a fixed sequence, the
//! same for every text. Each bin is kept as 8 bits of a hash of its minimum (b-bit
//! MinHash, Li and König 2010): two bins of unrelated texts agree by chance once in 256,
//! which the estimate takes out. Integer hashing only, so the signature is the same on
//! every machine and in the Spark build (which runs this binary); a test pins one.

use std::hash::Hasher;

use twox_hash::XxHash64;

use super::words::for_each_word;

/// Bins of the sketch.
pub const BINS: usize = 128;

/// Words per shingle.
pub const SHINGLE: usize = 3;

/// The default least estimated resemblance of two near-duplicates: chosen on the
/// labelled sets (docs/near-duplicates.md), between the near variants' lowest (0.86)
/// and the far variants' highest (0.73), a little nearer the far ones as the estimate's
/// spread (±0.035 at 0.8) lowers the near pairs' as much as it raises the far ones'.
pub const DEFAULT_THRESHOLD: f64 = 0.8;

/// Bytes of a signature in the index's `near.sig` ([`Signature::to_bytes`]).
pub const SIGNATURE_BYTES: usize = 8 + 8 + 4 + BINS;

/// The bands of the candidate search ([`Signature::band_keys`]): `BANDS` groups of
/// `ROWS` bins. Two versions whose sketches agree on every bin of one band are
/// compared: at a resemblance of 0.8 they are found with probability 1 − (1 − 0.8⁵)²⁰
/// = 0.9996, at 0.86 with 0.999997, at 0.3 with 0.05.
pub const BANDS: usize = 20;
/// Bins per band.
pub const ROWS: usize = 5;

/// A version's near-duplicate signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    /// XXH64 of the title's words (0 without a title or words in it).
    pub title: u64,
    /// XXH64 of the whole text as indexed: equal hashes, the same text.
    pub text: u64,
    /// The words of the text (digits-only words left out), capped at `u32::MAX`.
    pub words: u32,
    /// The sketch: 8 bits of each bin's minimum.
    pub bins: [u8; BINS],
}

impl Default for Signature {
    fn default() -> Self {
        Signature {
            title: 0,
            text: 0,
            words: 0,
            bins: [0; BINS],
        }
    }
}

/// The splitmix64 finaliser: spreads a value's bits (the densification's sequence and
/// the 8 bits kept of a minimum).
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// XXH64 of the words of `text`, each followed by a space.
fn words_hash(text: &str) -> u64 {
    let mut h = XxHash64::with_seed(0);
    let mut any = false;
    for_each_word(text, |w| {
        any = true;
        h.write(w);
        h.write(b" ");
    });
    if any {
        h.finish()
    } else {
        0
    }
}

impl Signature {
    /// The signature of a version's text and title.
    pub fn of(text: &str, title: Option<&str>) -> Signature {
        let mut words: Vec<u64> = Vec::new();
        for_each_word(text, |w| words.push(XxHash64::oneshot(0, w)));
        let mut mins = [u64::MAX; BINS];
        let mut add = |shingle: &[u64]| {
            let mut bytes = [0u8; 8 * SHINGLE];
            for (i, w) in shingle.iter().enumerate() {
                bytes[8 * i..8 * i + 8].copy_from_slice(&w.to_le_bytes());
            }
            let h = XxHash64::oneshot(0, &bytes[..8 * shingle.len()]);
            // The top 7 bits choose the bin (BINS = 128), the rest is compared.
            let (bin, rest) = ((h >> 57) as usize, h & ((1 << 57) - 1));
            if rest < mins[bin] {
                mins[bin] = rest;
            }
        };
        if words.is_empty() {
            return Signature {
                text: XxHash64::oneshot(0, text.as_bytes()),
                title: title.map_or(0, words_hash),
                ..Signature::default()
            };
        }
        if words.len() < SHINGLE {
            add(&words);
        } else {
            words.windows(SHINGLE).for_each(&mut add);
        }
        let mut bins = [0u8; BINS];
        for (i, b) in bins.iter_mut().enumerate() {
            let mut from = i;
            let mut attempt = 0u64;
            while mins[from] == u64::MAX {
                attempt += 1;
                from = (mix(((i as u64) << 32) | attempt) % BINS as u64) as usize;
            }
            *b = mix(mins[from] ^ ((from as u64) << 57)) as u8;
        }
        Signature {
            title: title.map_or(0, words_hash),
            text: XxHash64::oneshot(0, text.as_bytes()),
            words: u32::try_from(words.len()).unwrap_or(u32::MAX),
            bins,
        }
    }

    /// The estimated resemblance of two signatures' shingle sets, 0 to 1: the share of
    /// bins that agree, less the agreements of chance (1 in 256).
    pub fn resemblance(&self, other: &Signature) -> f64 {
        let same = self
            .bins
            .iter()
            .zip(&other.bins)
            .filter(|(a, b)| a == b)
            .count();
        resemblance_of(same)
    }

    /// Whether two signatures are near-duplicates at `threshold`: the same title words
    /// and an estimated resemblance of at least `threshold`.
    pub fn is_near(&self, other: &Signature, threshold: f64) -> bool {
        self.title == other.title && self.resemblance(other) >= threshold
    }

    /// The candidate keys: one per band, a hash of the title and the band's bins, so
    /// two versions with one key in common have the same title and agree on a band.
    pub fn band_keys(&self) -> [u64; BANDS] {
        let mut keys = [0u64; BANDS];
        for (b, key) in keys.iter_mut().enumerate() {
            let mut bytes = [0u8; 8 + 1 + ROWS];
            bytes[..8].copy_from_slice(&self.title.to_le_bytes());
            bytes[8] = b as u8;
            bytes[9..].copy_from_slice(&self.bins[b * ROWS..(b + 1) * ROWS]);
            *key = XxHash64::oneshot(0, &bytes);
        }
        keys
    }

    /// A hash of the title and the whole sketch: versions with equal keys have equal
    /// sketches (short of a 64-bit collision), so one of them stands for the others.
    pub fn sketch_key(&self) -> u64 {
        let mut h = XxHash64::with_seed(0);
        h.write(&self.title.to_le_bytes());
        h.write(&self.bins);
        h.finish()
    }

    /// The signature as stored: title, text (little-endian 64 bits), words (32 bits),
    /// the bins.
    pub fn to_bytes(&self) -> [u8; SIGNATURE_BYTES] {
        let mut out = [0u8; SIGNATURE_BYTES];
        out[..8].copy_from_slice(&self.title.to_le_bytes());
        out[8..16].copy_from_slice(&self.text.to_le_bytes());
        out[16..20].copy_from_slice(&self.words.to_le_bytes());
        out[20..].copy_from_slice(&self.bins);
        out
    }

    /// A signature from its stored bytes; `None` for a slice of another length.
    pub fn from_bytes(bytes: &[u8]) -> Option<Signature> {
        if bytes.len() != SIGNATURE_BYTES {
            return None;
        }
        let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8"));
        let mut bins = [0u8; BINS];
        bins.copy_from_slice(&bytes[20..]);
        Some(Signature {
            title: u64_at(0),
            text: u64_at(8),
            words: u32::from_le_bytes(bytes[16..20].try_into().expect("4")),
            bins,
        })
    }
}

/// The resemblance estimated from `same` agreeing bins of [`BINS`].
pub fn resemblance_of(same: usize) -> f64 {
    let chance = 1.0 / 256.0;
    let share = same as f64 / BINS as f64;
    ((share - chance) / (1.0 - chance)).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` pseudo-words from a generator seeded with `seed`.
    fn text(seed: u64, n: usize) -> Vec<String> {
        (0..n as u64)
            .map(|i| format!("w{:x}", mix(seed * 1_000_003 + i) % 5000))
            .collect()
    }

    #[test]
    fn a_signature_is_fixed_across_runs_and_machines() {
        // Pinned: signatures are stored in segments and indexes, so a change of
        // tokenizer, hash or sketch must be a deliberate change of these values.
        let s = Signature::of("The quick brown fox jumps over the lazy dog", Some("Fox"));
        assert_eq!(s.words, 9);
        assert_eq!(s.title, XxHash64::oneshot(0, b"fox "));
        assert_eq!(XxHash64::oneshot(0, &s.to_bytes()), 5305143826312440617);
    }

    #[test]
    fn resemblance_follows_the_shared_shingles() {
        let a = text(1, 2000);
        // A tenth of the words replaced by a run of other words: about 0.8 of the
        // shingles shared.
        let mut b = a.clone();
        b.splice(900..1100, text(2, 200));
        let (sa, sb) = (
            Signature::of(&a.join(" "), None),
            Signature::of(&b.join(" "), None),
        );
        let r = sa.resemblance(&sb);
        let exact = 1797.0 / 2202.0;
        assert!((r - exact).abs() < 0.1, "{r} against {exact}");
        assert_eq!(sa.resemblance(&sa), 1.0);
        let other = Signature::of(&text(3, 2000).join(" "), None);
        assert!(sa.resemblance(&other) < 0.1);
    }

    #[test]
    fn near_needs_the_same_title_words() {
        let t = text(4, 500).join(" ");
        let a = Signature::of(&t, Some("Iter in std::slice"));
        let b = Signature::of(&t, Some("iter in STD slice 2"));
        let c = Signature::of(&t, Some("Bytes in std::str"));
        assert!(a.is_near(&b, DEFAULT_THRESHOLD));
        assert!(!a.is_near(&c, DEFAULT_THRESHOLD));
        assert_eq!(a.text, c.text);
    }

    #[test]
    fn short_and_empty_texts_have_signatures() {
        let short = Signature::of("two words", None);
        assert_eq!(short.words, 2);
        assert_eq!(short.resemblance(&Signature::of("two words", None)), 1.0);
        assert_eq!(Signature::of("", None).words, 0);
        assert_eq!(Signature::of("2026 11", None).words, 0);
    }

    #[test]
    fn bytes_round_trip() {
        let s = Signature::of(&text(5, 300).join(" "), Some("A title"));
        assert_eq!(Signature::from_bytes(&s.to_bytes()), Some(s));
        assert_eq!(Signature::from_bytes(&[0; 3]), None);
    }
}
