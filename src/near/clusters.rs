//! Clusters of fingerprints at most `k` bits apart, without comparing all pairs: the
//! permuted-table method of Manku, Jain and Das Sarma ("Detecting near-duplicates for web
//! crawling", WWW 2007), done with external sorts.
//!
//! Two 64-bit fingerprints that differ in at most `k` bits agree exactly on at least one
//! of `k + 1` disjoint blocks of their bits (pigeonhole). So every distinct fingerprint is
//! written once per block as a sort line keyed by (block number, the block's bits); lines
//! that sort together share a block, and only those pairs are compared. Identical
//! fingerprints are joined first, by a sort of their own, so a page served under a
//! thousand hosts is one line per block, not a thousand. The groups found are joined by
//! a union-find over the documents ([`UnionFind`]: 8 bytes a document).

use std::io;

use warcdex_cdx::{ExternalSorter, SortOptions};

/// A disjoint-set forest over document numbers, with the size of every set.
#[derive(Debug)]
pub struct UnionFind {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl UnionFind {
    /// `n` documents, each alone.
    pub fn new(n: u32) -> Self {
        UnionFind {
            parent: (0..n).collect(),
            size: vec![1; n as usize],
        }
    }

    /// The representative of `x`'s set: its smallest document (path halving).
    pub fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let grand = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grand;
            x = grand;
        }
        x
    }

    /// Joins the sets of `a` and `b`; whether they were apart.
    pub fn union(&mut self, a: u32, b: u32) -> bool {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return false;
        }
        // The smaller document is the root, so a set's representative is its first
        // document whatever the order of the unions (the index stores it as the cluster
        // id, src/index/writer.rs); path halving keeps the trees shallow.
        if b < a {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b as usize] = a;
        self.size[a as usize] += self.size[b as usize];
        true
    }

    /// The number of documents.
    pub fn len(&self) -> u32 {
        self.parent.len() as u32
    }

    /// Whether there are no documents.
    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    /// The size of the set whose representative is `root`.
    pub fn size_of_root(&self, root: u32) -> u32 {
        self.size[root as usize]
    }
}

/// The bit ranges of the `k + 1` blocks, as even as 64 bits allow.
pub fn blocks(k: u32) -> Vec<(u32, u32)> {
    let n = k + 1;
    (0..n).map(|i| (i * 64 / n, (i + 1) * 64 / n)).collect()
}

/// The bits `from..to` of `h`, shifted down.
fn block_bits(h: u64, (from, to): (u32, u32)) -> u64 {
    let width = to - from;
    let mask = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    (h >> from) & mask
}

/// What clustering counted.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ClusterCounts {
    /// Distinct fingerprints among the documents clustered.
    pub distinct: u64,
    /// Pairs of distinct fingerprints compared (they shared a block).
    pub compared: u64,
    /// Pairs found at most `k` bits apart.
    pub near_pairs: u64,
}

/// Joins, in `uf`, every two documents of `prints` (fingerprint, document) whose
/// fingerprints differ in at most `k` bits. Memory: the sorts' budget (`opts.memory`,
/// half to each of the two sorts, which overlap while the first is read back) and one
/// block's group of distinct fingerprints at a time.
pub fn cluster(
    prints: impl IntoIterator<Item = (u64, u32)>,
    k: u32,
    opts: &SortOptions,
    uf: &mut UnionFind,
) -> io::Result<ClusterCounts> {
    let mut exact = PrintSorter::new(opts);
    for (h, doc) in prints {
        exact.push(h, doc)?;
    }
    exact.cluster(k, uf)
}

/// The fingerprints to cluster, gathered in an external sort (the first of
/// [`cluster`]'s), for a caller that meets them one at a time (`index`).
pub struct PrintSorter {
    exact: ExternalSorter,
    half: SortOptions,
}

impl PrintSorter {
    /// An empty sorter; `opts.memory` bounds it and the sort after it.
    pub fn new(opts: &SortOptions) -> Self {
        // The second sort fills while the first is read back: half the budget each.
        let half = SortOptions {
            memory: (opts.memory / 2).max(1 << 20),
            ..opts.clone()
        };
        PrintSorter {
            exact: ExternalSorter::new(half.clone()),
            half,
        }
    }

    /// Adds document `doc`'s fingerprint.
    pub fn push(&mut self, hash: u64, doc: u32) -> io::Result<()> {
        self.exact.push(format!("{hash:016x}{doc:08x}").as_bytes())
    }

    /// Joins, in `uf`, the documents whose fingerprints are at most `k` bits apart.
    pub fn cluster(self, k: u32, uf: &mut UnionFind) -> io::Result<ClusterCounts> {
        cluster_sorted(self.exact, self.half, k, uf)
    }
}

fn cluster_sorted(
    exact: ExternalSorter,
    half: SortOptions,
    k: u32,
    uf: &mut UnionFind,
) -> io::Result<ClusterCounts> {
    let mut counts = ClusterCounts::default();
    let table = blocks(k);
    let mut banded = ExternalSorter::new(half);
    let mut last: Option<(u64, u32)> = None;
    let mut failed: Option<io::Error> = None;
    exact.finish_with(|line| {
        let (h, doc) = parse_print(line)?;
        match last {
            Some((lh, ldoc)) if lh == h => {
                uf.union(ldoc, doc);
            }
            _ => {
                counts.distinct += 1;
                last = Some((h, doc));
                for (b, range) in table.iter().enumerate() {
                    let line = format!("{b:02x}{:016x}{h:016x}{doc:08x}", block_bits(h, *range));
                    if let Err(e) = banded.push(line.as_bytes()) {
                        failed.get_or_insert(e);
                    }
                }
            }
        }
        Ok(())
    })?;
    if let Some(e) = failed {
        return Err(e);
    }
    // 2. Distinct fingerprints sharing a block: compared pairwise within the group.
    let mut group: Vec<(u64, u32)> = Vec::new();
    let mut group_key: Vec<u8> = Vec::new();
    let flush = |group: &mut Vec<(u64, u32)>, uf: &mut UnionFind, counts: &mut ClusterCounts| {
        for i in 0..group.len() {
            for j in i + 1..group.len() {
                counts.compared += 1;
                if crate::near::simhash::distance(group[i].0, group[j].0) <= k {
                    counts.near_pairs += 1;
                    uf.union(group[i].1, group[j].1);
                }
            }
        }
        group.clear();
    };
    banded.finish_with(|line| {
        if line.len() != 2 + 16 + 16 + 8 {
            return Err(bad_line(line));
        }
        let (key, rest) = line.split_at(18);
        if key != group_key.as_slice() {
            flush(&mut group, uf, &mut counts);
            group_key.clear();
            group_key.extend_from_slice(key);
        }
        group.push(parse_print(rest)?);
        Ok(())
    })?;
    flush(&mut group, uf, &mut counts);
    Ok(counts)
}

/// `HASH(16 hex) DOC(8 hex)`.
fn parse_print(line: &[u8]) -> io::Result<(u64, u32)> {
    let hex = |b: &[u8]| {
        std::str::from_utf8(b)
            .ok()
            .and_then(|s| u64::from_str_radix(s, 16).ok())
    };
    match (
        line.len(),
        hex(line.get(..16).unwrap_or(&[])),
        hex(line.get(16..).unwrap_or(&[])),
    ) {
        (24, Some(h), Some(d)) => Ok((h, d as u32)),
        _ => Err(bad_line(line)),
    }
}

fn bad_line(line: &[u8]) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!(
            "near-dups: a temporary sort line came back damaged: {:?}",
            String::from_utf8_lossy(line)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clusters(prints: &[u64], k: u32, memory: usize) -> Vec<u32> {
        let mut uf = UnionFind::new(prints.len() as u32);
        let opts = SortOptions {
            memory,
            ..SortOptions::default()
        };
        let it = prints.iter().enumerate().map(|(i, h)| (*h, i as u32));
        cluster(it, k, &opts, &mut uf).unwrap();
        (0..prints.len() as u32).map(|i| uf.find(i)).collect()
    }

    #[test]
    fn blocks_cover_all_bits_once() {
        for k in 0..=12 {
            let b = blocks(k);
            assert_eq!(b.len() as u32, k + 1);
            assert_eq!(b[0].0, 0);
            assert_eq!(b.last().unwrap().1, 64);
            assert!(b.windows(2).all(|w| w[0].1 == w[1].0));
        }
    }

    /// The band method finds exactly the pairs a comparison of every pair finds, joined
    /// transitively: checked against the quadratic answer on random fingerprints placed
    /// near each other, with sorts small enough to spill.
    #[test]
    fn same_clusters_as_comparing_every_pair() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for k in [0, 1, 3, 6] {
            let mut prints = Vec::new();
            for _ in 0..60 {
                let base = next();
                prints.push(base);
                for _ in 0..4 {
                    let mut h = base;
                    for _ in 0..(next() % 9) {
                        h ^= 1 << (next() % 64);
                    }
                    prints.push(h);
                }
            }
            let got = clusters(&prints, k, 4096);
            let mut uf = UnionFind::new(prints.len() as u32);
            for i in 0..prints.len() {
                for j in i + 1..prints.len() {
                    if crate::near::simhash::distance(prints[i], prints[j]) <= k {
                        uf.union(i as u32, j as u32);
                    }
                }
            }
            for i in 0..prints.len() {
                for j in 0..prints.len() {
                    let same = got[i] == got[j];
                    let want = uf.find(i as u32) == uf.find(j as u32);
                    assert_eq!(same, want, "k={k} {i} {j}");
                }
            }
        }
    }

    #[test]
    fn identical_fingerprints_are_one_cluster() {
        let got = clusters(&[5, 5, 5, 1 << 40], 0, 1 << 20);
        assert_eq!(got[0], got[1]);
        assert_eq!(got[1], got[2]);
        assert_ne!(got[0], got[3]);
    }
}
