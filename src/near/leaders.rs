//! Clusters of near-duplicate versions that no chain of small steps can join:
//! every member of a cluster is a near-duplicate ([`Signature::is_near`]) of the
//! cluster's first version, its leader.
//!
//! Versions are taken in a caller's order (the first capture, then digest and URL, so
//! the clusters are the same however the collection is cut into sets or shards). Each
//! version joins the cluster of the earliest leader before it that it is near; a version
//! near no leader leads a cluster of its own. A page rewritten by small steps thus
//! starts a new cluster when it has drifted past the threshold from where it began, and
//! two pages of one site stay apart even when a third is near both.
//!
//! Candidates come from banding the sketches (Broder's shingling with LSH): versions
//! agreeing on every bin of one band of [`BANDS`], with the same title, are compared;
//! versions with equal sketches are compared once, through the first of them. All of it
//! in external sorts bounded by the caller's memory, with the signatures in a temporary
//! file read by position; in memory, [`UnionFind`]'s 8 bytes a version and a bit per
//! version. In a band with more versions than [`WINDOW`] + [`HEADS`] (thousands of
//! near-identical captures of one page), each version is compared with the band's first
//! `HEADS` versions (where its leaders are) and the `WINDOW` before it.

use std::collections::VecDeque;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

use warcdex_cdx::{ExternalSorter, SortOptions};

use super::clusters::{ClusterCounts, UnionFind};
use super::minhash::{Signature, SIGNATURE_BYTES};

/// Versions before it in a band that a version is compared with, past [`HEADS`].
pub const WINDOW: usize = 2048;
/// The first versions of a band, compared with every later version of it.
pub const HEADS: usize = 64;

/// Gathers versions, then clusters them ([`LeaderClusters::cluster`]).
pub struct LeaderClusters {
    order: ExternalSorter,
    sigs: File,
    half: SortOptions,
    threshold: f64,
}

fn damaged() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, "damaged near-dups sort line")
}

fn hex_u32(b: &[u8]) -> io::Result<u32> {
    std::str::from_utf8(b)
        .ok()
        .and_then(|s| u32::from_str_radix(s, 16).ok())
        .ok_or_else(damaged)
}

fn hex_u64(b: &[u8]) -> io::Result<u64> {
    std::str::from_utf8(b)
        .ok()
        .and_then(|s| u64::from_str_radix(s, 16).ok())
        .ok_or_else(damaged)
}

/// Version `doc`'s signature from the temporary file.
fn read_sig(sigs: &File, doc: u32) -> io::Result<Signature> {
    let mut buf = [0u8; SIGNATURE_BYTES];
    sigs.read_exact_at(&mut buf, u64::from(doc) * SIGNATURE_BYTES as u64)?;
    Ok(Signature::from_bytes(&buf).expect("fixed size"))
}

/// A line at least `n` bytes long.
fn at_least(line: &[u8], n: usize) -> io::Result<&[u8]> {
    (line.len() >= n).then_some(line).ok_or_else(damaged)
}

impl LeaderClusters {
    /// An empty clustering: versions at least `threshold` alike are near-duplicates;
    /// `opts.memory` bounds the sorts (a half to each of two that overlap).
    pub fn new(opts: &SortOptions, threshold: f64) -> io::Result<Self> {
        let half = SortOptions {
            memory: (opts.memory / 2).max(1 << 20),
            unique: false,
            ..opts.clone()
        };
        let sigs = match &opts.tmp_dir {
            Some(d) => tempfile::tempfile_in(d)?,
            None => tempfile::tempfile()?,
        };
        Ok(LeaderClusters {
            order: ExternalSorter::new(half.clone()),
            sigs,
            half,
            threshold,
        })
    }

    /// Adds version `doc` (the number `UnionFind` knows it by) with its place in the
    /// order of versions (`order`, compared as bytes; a line end in it is replaced) and
    /// its signature.
    pub fn push(&mut self, doc: u32, order: &[u8], sig: &Signature) -> io::Result<()> {
        self.sigs
            .write_all_at(&sig.to_bytes(), u64::from(doc) * SIGNATURE_BYTES as u64)?;
        let mut line = Vec::with_capacity(order.len() + 26);
        line.extend(order.iter().map(|&b| if b == b'\n' { b' ' } else { b }));
        line.push(0);
        line.extend_from_slice(format!("{:016x}{doc:08x}", sig.sketch_key()).as_bytes());
        self.order.push(&line)
    }

    /// Joins, in `uf`, each version to its cluster's leader.
    pub fn cluster(self, uf: &mut UnionFind) -> io::Result<ClusterCounts> {
        let LeaderClusters {
            order,
            sigs,
            half,
            threshold,
        } = self;
        let mut counts = ClusterCounts::default();
        // 1. Ranks in the order of versions, and versions with equal sketches together.
        let mut exact = ExternalSorter::new(half.clone());
        let mut rank = 0u32;
        order.finish_with(|line| {
            let tail = line.len().checked_sub(24).ok_or_else(damaged)?;
            let (key, doc) = (&line[tail..tail + 16], &line[tail + 16..]);
            let mut out = Vec::with_capacity(40);
            out.extend_from_slice(key);
            out.extend_from_slice(format!("{rank:08x}").as_bytes());
            out.extend_from_slice(doc);
            rank += 1;
            exact.push(&out)
        })?;
        let versions = rank;
        // 2. The first of each equal sketch stands for the others; its bands are sorted.
        let mut pairs = ExternalSorter::new(SortOptions {
            unique: true,
            ..half.clone()
        });
        let mut bands = ExternalSorter::new(half);
        let mut first: Option<(u64, u32, u32)> = None;
        exact.finish_with(|line| {
            let line = at_least(line, 32)?;
            let (key, rank, doc) = (
                hex_u64(&line[..16])?,
                hex_u32(&line[16..24])?,
                hex_u32(&line[24..32])?,
            );
            match first {
                Some((k, r, d)) if k == key => {
                    pairs.push(format!("{rank:08x}{r:08x}E{doc:08x}{d:08x}").as_bytes())
                }
                _ => {
                    first = Some((key, rank, doc));
                    counts.distinct += 1;
                    for (b, band) in read_sig(&sigs, doc)?.band_keys().iter().enumerate() {
                        bands.push(format!("{b:02x}{band:016x}{rank:08x}{doc:08x}").as_bytes())?;
                    }
                    Ok(())
                }
            }
        })?;
        // 3. Within each band's group, in rank order: pairs near enough.
        let mut group_key: Vec<u8> = Vec::new();
        let mut heads: Vec<(u32, u32, Signature)> = Vec::new();
        let mut window: VecDeque<(u32, u32, Signature)> = VecDeque::new();
        bands.finish_with(|line| {
            let line = at_least(line, 34)?;
            let (key, rank, doc) = (
                &line[..18],
                hex_u32(&line[18..26])?,
                hex_u32(&line[26..34])?,
            );
            if key != group_key.as_slice() {
                group_key.clear();
                group_key.extend_from_slice(key);
                heads.clear();
                window.clear();
            }
            let sig = read_sig(&sigs, doc)?;
            for (r, d, s) in heads.iter().chain(window.iter()) {
                counts.compared += 1;
                if s.is_near(&sig, threshold) {
                    counts.near_pairs += 1;
                    pairs.push(format!("{rank:08x}{r:08x}N{doc:08x}{d:08x}").as_bytes())?;
                }
            }
            if heads.len() < HEADS {
                heads.push((rank, doc, sig));
            } else {
                if window.len() == WINDOW {
                    window.pop_front();
                }
                window.push_back((rank, doc, sig));
            }
            Ok(())
        })?;
        // 4. Each version, in rank order, joins the earliest leader it is near (or the
        // cluster of the equal sketch that stands for it).
        let mut member = vec![0u64; (versions as usize).div_ceil(64)];
        let is_member = |m: &[u64], r: u32| m[r as usize / 64] >> (r % 64) & 1 == 1;
        let mut decided: Option<u32> = None;
        pairs.finish_with(|line| {
            let line = at_least(line, 33)?;
            let (later, earlier) = (hex_u32(&line[..8])?, hex_u32(&line[8..16])?);
            let (doc, with) = (hex_u32(&line[17..25])?, hex_u32(&line[25..33])?);
            if decided == Some(later) {
                return Ok(());
            }
            let joins = line[16] == b'E' || !is_member(&member, earlier);
            if joins {
                uf.union(with, doc);
                member[later as usize / 64] |= 1 << (later % 64);
                decided = Some(later);
            }
            Ok(())
        })?;
        Ok(counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(seed: u64, n: usize) -> Vec<String> {
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                format!("w{}", x % 3000)
            })
            .collect()
    }

    fn clusters(texts: &[(String, &str)]) -> Vec<u32> {
        let mut c = LeaderClusters::new(&SortOptions::default(), 0.8).unwrap();
        for (i, (t, title)) in texts.iter().enumerate() {
            let order = format!("{i:04}");
            c.push(i as u32, order.as_bytes(), &Signature::of(t, Some(title)))
                .unwrap();
        }
        let mut uf = UnionFind::new(texts.len() as u32);
        c.cluster(&mut uf).unwrap();
        (0..texts.len() as u32).map(|d| uf.find(d)).collect()
    }

    #[test]
    fn a_chain_of_small_steps_does_not_join_its_ends() {
        // Each version rewrites another tenth of the first: every step is near the
        // one before, but the later ones are far from the first.
        let base = words(1, 1000);
        let mut texts = Vec::new();
        for step in 0..6 {
            let mut v = base.clone();
            for k in 0..step {
                v.splice(k * 100..k * 100 + 60, words(100 + k as u64, 60));
            }
            texts.push((v.join(" "), "Page"));
        }
        let c = clusters(&texts);
        assert_eq!(c[1], c[0], "one step is near");
        assert_ne!(c[5], c[0], "five steps are not: {c:?}");
        // Nothing is joined to a cluster whose first version it is far from.
        for (i, &root) in c.iter().enumerate() {
            let (a, b) = (
                Signature::of(&texts[root as usize].0, Some("Page")),
                Signature::of(&texts[i].0, Some("Page")),
            );
            assert!(a.is_near(&b, 0.8), "{i} in the cluster of {root}");
        }
    }

    #[test]
    fn equal_texts_and_near_variants_join_far_ones_and_other_titles_do_not() {
        let base = words(2, 800);
        let mut near = base.clone();
        near.splice(400..410, words(3, 10));
        let mut far = base.clone();
        far.splice(100..400, words(4, 300));
        let texts = vec![
            (base.join(" "), "A page"),
            (base.join(" "), "A page"),
            (near.join(" "), "A page"),
            (far.join(" "), "A page"),
            (base.join(" "), "Another page"),
            (words(5, 800).join(" "), "A page"),
        ];
        let c = clusters(&texts);
        assert_eq!(c, vec![0, 0, 0, 3, 4, 5]);
    }
}
