//! The import manifest: one archive per line, `PATH [COLLECTION]`; blank lines and `#`
//! comments are ignored (NutchWAX's format, docs/formats.md §4.6).

use std::io::{self, BufRead};
use std::path::{Path, PathBuf};

/// One archive to import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestEntry {
    /// The archive (relative paths are resolved against the manifest's folder when they
    /// do not exist as given).
    pub path: PathBuf,
    /// Its collection, if the line names one.
    pub collection: Option<String>,
    /// Line number in the manifest.
    pub line: u64,
}

/// Reads a manifest. `base` is the manifest's folder (`None` for stdin).
pub fn read_manifest(input: impl BufRead, base: Option<&Path>) -> io::Result<Vec<ManifestEntry>> {
    let mut out = Vec::new();
    for (i, line) in input.lines().enumerate() {
        let line = line?;
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let mut parts = t.split_whitespace();
        let path = parts.next().unwrap_or_default();
        let collection = parts.next().map(str::to_string);
        if parts.next().is_some() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "line {}: expected `PATH [COLLECTION]`, got {:?}",
                    i + 1,
                    warcdex_cdx::message::echo(t)
                ),
            ));
        }
        let mut p = PathBuf::from(path);
        if p.is_relative() && !p.exists() {
            if let Some(b) = base {
                p = b.join(p);
            }
        }
        out.push(ManifestEntry {
            path: p,
            collection,
            line: i as u64 + 1,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lines() {
        let m = "# crawl 1\n\na.warc.gz col1\n  /abs/b.arc.gz  \n";
        let e = read_manifest(m.as_bytes(), Some(Path::new("/data"))).unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].path, PathBuf::from("/data/a.warc.gz"));
        assert_eq!(e[0].collection.as_deref(), Some("col1"));
        assert_eq!(e[1].path, PathBuf::from("/abs/b.arc.gz"));
        assert_eq!(e[1].line, 4);
        assert!(read_manifest("a b c\n".as_bytes(), None).is_err());
    }
}
