//! Which shard a URL key belongs to when a collection is split by URL key
//! (`spark/warcdex_spark.py`, `warcdex index --shard`): FNV-1a (64-bit) of the key's
//! bytes, modulo the number of shards. Every capture, version and link target of one URL
//! key falls in one shard, so dedup, dates and revisits stay shard-local.
//!
//! FNV-1a because the Spark driver computes the same function in Python, and every
//! executor must agree with it and with warcdex (Python's `hash` is salted per process).

use std::fmt;
use std::str::FromStr;

/// FNV-1a's 64-bit offset basis.
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
/// FNV-1a's 64-bit prime.
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// One shard of a collection split in `count`: shard `index` (0-based) of `count`.
///
/// ```
/// use warcdex_cdx::shard::Shard;
/// let s: Shard = "1/3".parse().unwrap();
/// assert_eq!((s.index, s.count), (1, 3));
/// assert_eq!(warcdex_cdx::shard::shard_of("org,example)/", 3), 0);
/// assert!("3/3".parse::<Shard>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard, `0..count`.
    pub index: u32,
    /// How many shards the collection is split in (at least 1).
    pub count: u32,
}

impl Shard {
    /// Whether the version or capture of `urlkey` belongs to this shard.
    pub fn holds(&self, urlkey: &str) -> bool {
        shard_of(urlkey, self.count) == self.index
    }
}

/// The shard of `urlkey` when the collection is split in `count` (at least 1).
pub fn shard_of(urlkey: &str, count: u32) -> u32 {
    let mut h = FNV_OFFSET;
    for &b in urlkey.as_bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(FNV_PRIME);
    }
    (h % u64::from(count.max(1))) as u32
}

impl FromStr for Shard {
    type Err = String;

    /// `K/N`: shard K (0-based) of N.
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("{s:?}: a shard is K/N, with 0 <= K < N");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u32 = k.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The published FNV-1a test vectors, so that the Python driver's function (the
    /// same vectors in spark/test_warcdex_spark.py) is the same function.
    #[test]
    fn fnv1a_vectors_and_spread() {
        let fnv = |s: &str| shard_of(s, u32::MAX) as u64;
        // FNV-1a 64 of "" and "a", reduced mod 2^32 - 1.
        assert_eq!(fnv(""), 0xcbf2_9ce4_8422_2325 % u64::from(u32::MAX));
        assert_eq!(fnv("a"), 0xaf63_dc4c_8601_ec8c % u64::from(u32::MAX));
        assert_eq!(fnv("foobar"), 0x8594_4171_f739_67e8 % u64::from(u32::MAX));
        let mut counts = [0u32; 3];
        for i in 0..3000 {
            counts[shard_of(&format!("org,example)/page{i}"), 3) as usize] += 1;
        }
        assert!(
            counts.iter().all(|&c| (900..1100).contains(&c)),
            "{counts:?}"
        );
        assert!("0/0".parse::<Shard>().is_err());
        assert!("a/2".parse::<Shard>().is_err());
        assert_eq!("0/1".parse::<Shard>().unwrap().to_string(), "0/1");
    }
}
