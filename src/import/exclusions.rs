//! The exclusion list of `import -e`: lines `URLKEY sha1:DIGEST DATE14 [...]` (the output
//! of `dedup-cdx` or `revisits`), held as an `fst` set of `URLKEY sha1:DIGEST DATE14`
//! keys, so a hundred million entries take a few hundred MB at most.

use std::io::{self, BufRead};
use warcdex_cdx::message::echo;

use warcdex_cdx::sort::{ExternalSorter, SortOptions};
use warcdex_cdx::KeyStyle;

/// A loaded exclusion list.
pub struct Exclusions {
    set: fst::Set<Vec<u8>>,
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
        let mut sorter = ExternalSorter::new(SortOptions {
            memory: 64 << 20,
            tmp_dir: None,
            unique: true,
        });
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
            sorter.push(&key)?;
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
        let mut builder = fst::SetBuilder::memory();
        let mut err = None;
        sorter.finish_with(|k| {
            if let Err(e) = builder.insert(k) {
                err = Some(e);
            }
            Ok(())
        })?;
        if let Some(e) = err {
            return Err(io::Error::other(e));
        }
        let set = builder.into_set();
        Ok(Exclusions {
            set: fst::Set::new(set.into_fst().into_inner()).map_err(io::Error::other)?,
            lines,
            malformed,
        })
    }

    /// True when `urlkey sha1:DIGEST date14` is listed.
    pub fn contains(&self, urlkey: &str, digest: &str, date14: &str) -> bool {
        let mut k = String::with_capacity(urlkey.len() + digest.len() + 17);
        k.push_str(urlkey);
        k.push(' ');
        k.push_str(digest);
        k.push(' ');
        k.push_str(date14);
        self.set.contains(k.as_bytes())
    }

    /// Entries in the set.
    pub fn len(&self) -> usize {
        self.set.len()
    }

    /// True when the set is empty.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }
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
        assert!(e.contains("org,example)/index.html", "sha1:AAA", "20071005120000"));
        assert!(!e.contains("org,example)/index.html", "sha1:AAA", "20071001120000"));
        assert_eq!(bad.iter().map(|b| b.0).collect::<Vec<_>>(), [3, 5]);
        assert!(bad[0].1.contains("not enough fields (2)"));
    }

    #[test]
    fn key_style_mismatch_is_an_error() {
        let list = "example.org/index.html sha1:AAA 20071002120000\n";
        let e = Exclusions::load(list.as_bytes(), KeyStyle::Surt, &mut |_, _| {});
        assert!(e.is_err());
        assert!(Exclusions::load(list.as_bytes(), KeyStyle::Url, &mut |_, _| {}).is_ok());
    }
}
