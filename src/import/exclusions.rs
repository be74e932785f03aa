//! The exclusion list of `import -e`: lines `URLKEY sha1:DIGEST DATE14 [FILE]` (the output
//! of `dedup-cdx` or `revisits`), held as the sorted XXH3-128 hashes of their `URLKEY
//! sha1:DIGEST DATE14 [FILE]` keys: 16 bytes an entry, a hundred million in 1.6 GB (up
//! to twice that while the list is read, as the vector grows). Two keys share a hash
//! once in 2^128: a list of 10^9 entries met by 10^12 captures (two lookups each) would
//! wrongly exclude one with odds of 6·10^-18. The hash is seeded afresh at each load, so
//! that no key can be made, from a crawled URL and payload, to collide with another.
//!
//! Not an `fst` set, as it was: every key ends in a digest, date and file of its own, so
//! the set shares little more than the URL keys' starts, and building it took 0.15 s for
//! the bench's 21,220 lines, on one core, while the import waited (a sort of hashes: a
//! few milliseconds).
//!
//! A line that names its archive (`dedup-cdx` writes the CDX's file name) excludes only
//! the capture in that archive: two archives holding the same capture (one WARC copied
//! twice, a WARC and the WACZ that packs it under another name, an ARC and its WARC
//! conversion) give `dedup-cdx` one line for the second copy, and matching it without the
//! file would exclude both copies and lose the version. A line of three fields (a
//! `revisits` list) excludes the capture in any archive.

use std::io::{self, BufRead};
use warcdex_cdx::message::echo;

use twox_hash::XxHash3_128;
use warcdex_cdx::KeyStyle;

/// A loaded exclusion list.
pub struct Exclusions {
    /// The hashes of the listed keys, sorted, each once.
    hashes: Vec<u128>,
    /// The hash's seed, this load's.
    seed: u64,
    /// Lines read.
    pub lines: u64,
    /// Malformed lines skipped (each reported through the callback).
    pub malformed: u64,
}

impl Exclusions {
    /// Loads a list. Lines with fewer than three fields, a date that is not 14 digits or
    /// a digest without `sha1:` are reported via `on_bad` (line number, message) and
    /// skipped. Keys that the canonicalizer `style` cannot have written (a SURT list
    /// used with `--key url`, or the reverse) make it an error.
    pub fn load(
        input: impl BufRead,
        style: KeyStyle,
        on_bad: &mut dyn FnMut(u64, &str),
    ) -> io::Result<Exclusions> {
        let seed = std::hash::BuildHasher::hash_one(&std::hash::RandomState::new(), 0u64);
        let mut hashes = Vec::new();
        let (mut lines, mut malformed) = (0u64, 0u64);
        let (mut surt_like, mut url_like) = (0u64, 0u64);
        let mut key = Vec::with_capacity(256);
        for line in input.split(b'\n') {
            let line = line?;
            lines += 1;
            let text = String::from_utf8_lossy(&line);
            let f: Vec<&str> = text.split_ascii_whitespace().collect();
            if f.is_empty() {
                continue;
            }
            let problem = if f.len() < 3 {
                Some(format!("malformed line, not enough fields ({})", f.len()))
            } else if !f[1].starts_with("sha1:") || f[1].len() <= 5 {
                Some(format!("digest {:?} does not start with sha1:", echo(f[1])))
            } else if f[2].len() != 14 || !f[2].bytes().all(|b| b.is_ascii_digit()) {
                Some(format!("date {:?} is not 14 digits", echo(f[2])))
            } else {
                None
            };
            if let Some(p) = problem {
                malformed += 1;
                on_bad(lines, &p);
                continue;
            }
            if looks_like_surt(f[0]) {
                surt_like += 1;
            } else {
                url_like += 1;
            }
            key.clear();
            key.extend_from_slice(f[0].as_bytes());
            key.push(b' ');
            key.extend_from_slice(f[1].as_bytes());
            key.push(b' ');
            key.extend_from_slice(f[2].as_bytes());
            if let Some(file) = f.get(3) {
                key.push(b' ');
                key.extend_from_slice(base_name(file).as_bytes());
            }
            hashes.push(XxHash3_128::oneshot_with_seed(seed, &key));
        }
        match style {
            KeyStyle::Surt if url_like > 0 && surt_like == 0 => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "the exclusion list has non-SURT keys (like example.org/path) but the import \
                     canonicalizes to SURT keys: nothing would match; use --key url or a SURT list",
                ))
            }
            KeyStyle::Url if surt_like > 0 && url_like == 0 => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "the exclusion list has SURT keys (like org,example)/path) but the import \
                     uses --key url: nothing would match; drop --key url",
                ))
            }
            _ => {}
        }
        hashes.sort_unstable();
        hashes.dedup();
        hashes.shrink_to_fit();
        Ok(Exclusions {
            hashes,
            seed,
            lines,
            malformed,
        })
    }

    /// True when the capture `urlkey sha1:DIGEST date14` in the archive whose CDX file
    /// name is `file` is listed: by a line naming that file (compared by base name, as
    /// the CDX writes it), or by a line naming no file.
    pub fn contains(&self, urlkey: &str, digest: &str, date14: &str, file: &str) -> bool {
        let file = base_name(file);
        let mut k = String::with_capacity(urlkey.len() + digest.len() + file.len() + 18);
        k.push_str(urlkey);
        k.push(' ');
        k.push_str(digest);
        k.push(' ');
        k.push_str(date14);
        if self.holds(k.as_bytes()) {
            return true;
        }
        k.push(' ');
        k.push_str(file);
        self.holds(k.as_bytes())
    }

    /// True when `key` is listed.
    fn holds(&self, key: &[u8]) -> bool {
        self.hashes
            .binary_search(&XxHash3_128::oneshot_with_seed(self.seed, key))
            .is_ok()
    }

    /// Entries in the set.
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    /// True when the set is empty.
    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }
}

/// The last part of a path: the CDX names an archive by its base name, a list made from
/// a CDX of full paths may not.
fn base_name(file: &str) -> &str {
    file.rsplit('/').next().unwrap_or(file)
}

/// A SURT key has its host reversed and closed by `)`: `org,example)/path`.
fn looks_like_surt(key: &str) -> bool {
    let host_end = key.find('/').unwrap_or(key.len());
    key[..host_end].ends_with(')') || key[..host_end].contains(')')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_and_matches() {
        let list = "org,example)/index.html sha1:AAA 20071002120000 crawl-2.arc.gz\n\
                    org,example)/index.html sha1:AAA 20071005120000 crawl-5.arc.gz\n\
                    onlytwo fields\n\n\
                    org,example)/a sha1:BBB 2007 x\n";
        let mut bad = Vec::new();
        let e = Exclusions::load(list.as_bytes(), KeyStyle::Surt, &mut |n, m| {
            bad.push((n, m.to_string()))
        })
        .unwrap();
        assert_eq!(e.len(), 2);
        let k = "org,example)/index.html";
        assert!(e.contains(k, "sha1:AAA", "20071005120000", "crawl-5.arc.gz"));
        assert!(e.contains(k, "sha1:AAA", "20071005120000", "/data/crawl-5.arc.gz"));
        assert!(!e.contains(k, "sha1:AAA", "20071001120000", "crawl-5.arc.gz"));
        assert_eq!(bad.iter().map(|b| b.0).collect::<Vec<_>>(), [3, 5]);
        assert!(bad[0].1.contains("not enough fields (2)"));
    }

    /// The second copy of a capture is listed with its archive; the
    /// first copy, the same URL, digest and date in another archive, is not excluded.
    #[test]
    fn a_line_with_a_file_excludes_only_that_archives_copy() {
        let list = "org,example)/ sha1:AAA 20071002120000 copy.warc.gz\n\
                    org,example)/ sha1:BBB 20071003120000\n";
        let e = Exclusions::load(list.as_bytes(), KeyStyle::Surt, &mut |_, _| {}).unwrap();
        let k = "org,example)/";
        assert!(e.contains(k, "sha1:AAA", "20071002120000", "copy.warc.gz"));
        assert!(!e.contains(k, "sha1:AAA", "20071002120000", "crawl.warc.gz"));
        // Three fields (a revisits list): every archive's capture.
        assert!(e.contains(k, "sha1:BBB", "20071003120000", "crawl.warc.gz"));
        assert!(e.contains(k, "sha1:BBB", "20071003120000", "copy.warc.gz"));
    }

    /// Many keys alike but for their last characters: each is found, no near miss is,
    /// and a line given twice is one entry.
    #[test]
    fn every_listed_key_is_found_and_no_other() {
        let mut list = String::new();
        for i in 0..20_000 {
            list.push_str(&format!(
                "org,example)/page{} sha1:D{i:05} 2024010100{:04} crawl-{}.warc.gz\n",
                i % 97,
                i % 10_000,
                i % 3
            ));
        }
        list.push_str("org,example)/page0 sha1:D00000 20240101000000 crawl-0.warc.gz\n");
        let e = Exclusions::load(list.as_bytes(), KeyStyle::Surt, &mut |_, _| {}).unwrap();
        assert_eq!((e.len(), e.lines), (20_000, 20_001));
        for i in 0..20_000 {
            let (key, digest) = (
                format!("org,example)/page{}", i % 97),
                format!("sha1:D{i:05}"),
            );
            let date = format!("2024010100{:04}", i % 10_000);
            let file = format!("crawl-{}.warc.gz", i % 3);
            assert!(e.contains(&key, &digest, &date, &file), "{i}");
            let other = format!("crawl-{}.warc.gz", (i + 1) % 3);
            assert!(!e.contains(&key, &digest, &date, &other), "{i}");
            let later = format!("2024010100{:04}", (i + 1) % 10_000);
            assert!(!e.contains(&key, &digest, &later, &file), "{i}");
        }
    }

    #[test]
    fn key_style_mismatch_is_an_error() {
        let list = "example.org/index.html sha1:AAA 20071002120000\n";
        let e = Exclusions::load(list.as_bytes(), KeyStyle::Surt, &mut |_, _| {});
        assert!(e.is_err());
        assert!(Exclusions::load(list.as_bytes(), KeyStyle::Url, &mut |_, _| {}).is_ok());
    }
}
