//! Named header fields, one type for both the WARC record header (WARC 1.1 §4) and the
//! HTTP head inside the block (RFC 9112 §5): a list of (name, value) pairs in order,
//! duplicates kept, as jwarc's `MessageHeaders` serves both.

use std::borrow::Cow;
use std::ops::Range;

use super::bytes::decode;

/// Header fields in the order they were written, duplicates included. Names and values
/// are stored one after another in one buffer that is reused from record to record, so
/// reading allocates only when a header is larger than any before it.
#[derive(Debug, Clone, Default)]
pub struct Fields {
    text: Vec<u8>,
    /// (name, value) ranges in `text`.
    spans: Vec<(Range<usize>, Range<usize>)>,
}

impl Fields {
    pub(crate) fn clear(&mut self) {
        self.text.clear();
        self.spans.clear();
    }

    pub(crate) fn push(&mut self, name: &[u8], value: &[u8]) {
        let n0 = self.text.len();
        self.text.extend_from_slice(name);
        let n1 = self.text.len();
        self.text.extend_from_slice(value);
        self.spans.push((n0..n1, n1..self.text.len()));
    }

    /// Appends a continuation line to the last value, after `joiner` when that value is
    /// not empty; false when there is no field to continue.
    pub(crate) fn continue_last(&mut self, joiner: &[u8], more: &[u8]) -> bool {
        let Some(last) = self.spans.last_mut() else {
            return false;
        };
        // The last value is always at the end of `text`, so it can grow in place.
        if !last.1.is_empty() {
            self.text.extend_from_slice(joiner);
        }
        self.text.extend_from_slice(more);
        last.1.end = self.text.len();
        true
    }

    /// How many fields there are.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// True when there are no fields.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// All fields in order, duplicates included, as (name, value).
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &[u8])> {
        self.spans
            .iter()
            .map(|(n, v)| (&self.text[n.clone()], &self.text[v.clone()]))
    }

    /// The first value of field `name` (ASCII case-insensitive).
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        let name = name.as_bytes();
        // Lookups were 1.7 % of `cdx`'s time: names of one length mostly share
        // their start (`WARC-`), so a byte loop from the front went far before a
        // mismatch. Length first, then the last eight bytes folded as one word, then
        // the exact comparison.
        let tail = folded_tail(name);
        self.spans
            .iter()
            .find(|(n, _)| {
                n.len() == name.len() && {
                    let candidate = &self.text[n.clone()];
                    folded_tail(candidate) == tail && candidate.eq_ignore_ascii_case(name)
                }
            })
            .map(|(_, v)| &self.text[v.clone()])
    }

    /// The first value of `name`, decoded as UTF-8 (Latin-1 when it is not UTF-8).
    pub fn get_str(&self, name: &str) -> Option<Cow<'_, str>> {
        self.get(name).map(decode)
    }
}

/// The last eight bytes of `s` (fewer, zero-padded, when shorter) as one word with bit
/// 0x20 set in every byte: ASCII letters that differ only in case give the same word, so
/// two names equal but for case have equal words (unequal words: unequal names).
fn folded_tail(s: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    let k = s.len().min(8);
    w[..k].copy_from_slice(&s[s.len() - k..]);
    u64::from_le_bytes(w) | 0x2020_2020_2020_2020
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_order_with_duplicates_and_continuations() {
        let mut f = Fields::default();
        assert!(!f.continue_last(b" ", b"x"), "nothing to continue");
        f.push(b"A", b"1");
        f.push(b"b", b"");
        assert!(f.continue_last(b" ", b"two"));
        f.push(b"a", b"3");
        assert!(f.continue_last(b" ", b"more"));
        assert_eq!(f.get("a"), Some(&b"1"[..]));
        assert_eq!(
            f.get("B"),
            Some(&b"two"[..]),
            "no joiner after an empty value"
        );
        let all: Vec<_> = f.iter().collect();
        assert_eq!(all[2], (&b"a"[..], &b"3 more"[..]));
        assert_eq!(f.len(), 3);
        f.push(b"WARC-Date", b"d");
        f.push(b"warc-type", b"t");
        f.push(b"X", b"x");
        assert_eq!(f.get("WARC-TYPE"), Some(&b"t"[..]));
        assert_eq!(f.get("wArC-dAtE"), Some(&b"d"[..]));
        assert_eq!(f.get("x"), Some(&b"x"[..]));
        assert_eq!(
            f.get("WARC-Dat@"),
            None,
            "bit 0x20 alone does not make a match"
        );
        f.clear();
        assert!(f.is_empty() && f.get("a").is_none());
    }
}
