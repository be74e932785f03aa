//! The union-find that holds clusters of versions, and what a clustering counted.

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

/// What clustering counted.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ClusterCounts {
    /// Distinct sketches among the versions clustered.
    pub distinct: u64,
    /// Comparisons of sketches that agreed on a band.
    pub compared: u64,
    /// Pairs found near (a pair that agrees on several bands, once per band).
    pub near_pairs: u64,
}
