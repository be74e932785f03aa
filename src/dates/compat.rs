//! NutchWAX DateAdder's date order (`--compat`): the iteration order of a
//! `java.util.HashSet<String>` (Java 8–17 `HashMap`), so that `--compat` output is
//! byte-identical to what DateAdder wrote (docs/formats.md §4.8, §5.4).
//!
//! The model: `String.hashCode` over UTF-16 units, spread as `h ^ (h >>> 16)`, a table
//! of 16 buckets doubled when the size passes 0.75 of it (a split keeps each bucket's
//! order), new entries appended to their bucket, iteration bucket by bucket. A bucket
//! reaching 9 entries in a table under 64 buckets doubles it, as `treeifyBin` does.
//! Not modelled: the order inside a bucket that Java turns into a tree (9 or more
//! colliding dates in a table of 64 or more buckets); such a bucket keeps insertion order.

/// Java's `String.hashCode`.
pub fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// `HashMap.hash`: the high half folded into the low half.
fn spread(h: i32) -> u32 {
    let h = h as u32;
    h ^ (h >> 16)
}

/// An insertion-ordered model of `java.util.HashSet<String>`.
#[derive(Debug, Default, Clone)]
pub struct JavaHashSet {
    table: Vec<Vec<(u32, String)>>,
    size: usize,
}

impl JavaHashSet {
    /// An empty set (Java: `new HashSet<String>()`, table allocated on first insert).
    pub fn new() -> Self {
        Self::default()
    }

    /// Java `add`: false when the value was already there.
    pub fn insert(&mut self, s: &str) -> bool {
        if self.table.is_empty() {
            self.resize();
        }
        let h = spread(java_string_hash(s));
        let i = (h as usize) & (self.table.len() - 1);
        let bucket = &mut self.table[i];
        if bucket.iter().any(|(bh, v)| *bh == h && v == s) {
            return false;
        }
        let before = bucket.len();
        bucket.push((h, s.to_string()));
        // putVal: a new node appended after walking `binCount + 1` nodes calls
        // treeifyBin when binCount >= TREEIFY_THRESHOLD - 1, which only resizes while
        // the table is smaller than MIN_TREEIFY_CAPACITY.
        if before >= 8 && self.table.len() < 64 {
            self.resize();
        }
        self.size += 1;
        if self.size > self.table.len() * 3 / 4 {
            self.resize();
        }
        true
    }

    fn resize(&mut self) {
        let cap = if self.table.is_empty() {
            16
        } else {
            self.table.len() * 2
        };
        let mut table: Vec<Vec<(u32, String)>> = vec![Vec::new(); cap];
        for bucket in std::mem::take(&mut self.table) {
            for (h, v) in bucket {
                table[(h as usize) & (cap - 1)].push((h, v));
            }
        }
        self.table = table;
    }

    /// The values in Java's iteration order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.table.iter().flatten().map(|(_, v)| v.as_str())
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.size
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.size == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_hash_matches_java() {
        // "abc".hashCode() == 96354, "".hashCode() == 0 (Java).
        assert_eq!(java_string_hash("abc"), 96354);
        assert_eq!(java_string_hash(""), 0);
    }

    #[test]
    fn formats_5_4_incremental_order() {
        let mut s = JavaHashSet::new();
        for d in [
            "20071001120000",
            "20071002120000",
            "20071004120000",
            "20071005120000",
        ] {
            s.insert(d);
        }
        let got: Vec<&str> = s.iter().collect();
        assert_eq!(
            got,
            [
                "20071004120000",
                "20071001120000",
                "20071005120000",
                "20071002120000"
            ]
        );
    }
    /// 40 dates (the table grows 16 → 32 → 64): the order printed by Java 17's
    /// `HashSet<String>` (jshell, `java.util.Random(7)` dates) for these insertions.
    #[test]
    fn forty_dates_like_java_17() {
        let inserted = "20070513109485 20070513206254 20070522158850 20070701053712 20070112214495 20071122090738 20070428017842 20070908217051 20070325025239 20070501169811 20070414018679 20070416176492 20071103185646 20070326208880 20071020019333 20070825038289 20070513135012 20071003030170 20070505149208 20071011137157 20071122229896 20070201049305 20070914124529 20071215200652 20071013215114 20070105134221 20070803224176 20070720010786 20070217135208 20071022073598 20071115189787 20071019191381 20070104090745 20070821136566 20070405175795 20070804030330 20071128037792 20070614140754 20070318113207 20071108102405";
        let java = "20071115189787 20070614140754 20070908217051 20071128037792 20070825038289 20071013215114 20071122090738 20070513135012 20071011137157 20070104090745 20070201049305 20070416176492 20070513206254 20071020019333 20070821136566 20070522158850 20070501169811 20070701053712 20070326208880 20071022073598 20070414018679 20071003030170 20070112214495 20070428017842 20071019191381 20070505149208 20070318113207 20070405175795 20071103185646 20070804030330 20070914124529 20070325025239 20070105134221 20070720010786 20070217135208 20071108102405 20071122229896 20071215200652 20070513109485 20070803224176";
        let mut s = JavaHashSet::new();
        for d in inserted.split(' ') {
            assert!(s.insert(d));
        }
        assert!(!s.insert("20070513109485"));
        assert_eq!(s.len(), 40);
        assert_eq!(s.iter().collect::<Vec<_>>().join(" "), java);
    }
}
