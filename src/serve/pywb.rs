//! `warcdex pywb-config`: a pywb 2.10 `config.yaml` that replays a collection served by
//! `warcdex serve`, with one collection whose captures come from the server's CDX API
//! (`/cdx`) and whose records are read from its archives route (`/warcs/`, by offset and
//! length with an HTTP Range request; src/serve/warcs.rs).
//!
//! The keys are those pywb 2.10 reads (`pywb/warcserver/warcserver.py`, `load_coll`):
//! `collections: NAME: index_paths:` (a string), `archive_paths:`. An index path
//! `cdx+http://…` selects pywb's `RemoteIndexSource`, which asks
//! `…/cdx?url=…&closest=…&sort=closest&limit=100` and reads CDX lines back; with no
//! collection after a space, it also sets each line's fallback `load_url` to
//! `http://HOST/{timestamp}id_/{url}`, which pywb tries only when the record cannot be
//! read from `archive_paths` (warcdex serves no such route, so that is a not-found).

use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The server a config points at when none is given.
pub const DEFAULT_SERVER: &str = "http://127.0.0.1:8080";

/// What the config could not be written from.
#[derive(Debug, thiserror::Error)]
pub enum PywbConfigError {
    /// The directory is not a collection (`warcdex update` writes `collection.json`).
    #[error("{}: not a warcdex collection (no collection.json); give the directory `warcdex update` built", .0.display())]
    NotACollection(PathBuf),
    /// A collection name pywb could not route.
    #[error("collection name {0:?}: use letters, digits, '-', '_' and '.' (pywb routes /NAME/…)")]
    Name(String),
    /// A server address that is not an http(s) URL of a host.
    #[error("server {0:?}: give the URL of `warcdex serve`, http://HOST:PORT (a path prefix may follow)")]
    Server(String),
    /// The config could not be written.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// A pywb collection pointed at one `warcdex serve`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PywbConfig {
    /// The collection's name in pywb: replay URLs are `/NAME/DATE14/URL`.
    pub name: String,
    /// The base URL of `warcdex serve`, without a trailing slash.
    pub server: String,
}

impl PywbConfig {
    /// The config for collection `name` served at `server`, both checked: a name pywb
    /// routes as one path segment, an http(s) URL with a host and no query.
    pub fn new(name: &str, server: &str) -> Result<PywbConfig, PywbConfigError> {
        let name_ok = !name.is_empty()
            && name != "."
            && name != ".."
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
        if !name_ok {
            return Err(PywbConfigError::Name(name.into()));
        }
        let bad = || PywbConfigError::Server(server.into());
        let url = url::Url::parse(server.trim()).map_err(|_| bad())?;
        let fits = matches!(url.scheme(), "http" | "https")
            && url.host().is_some()
            && url.query().is_none()
            && url.fragment().is_none()
            && url.username().is_empty()
            && url.password().is_none();
        if !fits {
            return Err(bad());
        }
        Ok(PywbConfig {
            name: name.into(),
            server: url.as_str().trim_end_matches('/').into(),
        })
    }

    /// pywb's `index_paths`: the server's CDX API as a remote index.
    pub fn index_path(&self) -> String {
        format!("cdx+{}/cdx", self.server)
    }

    /// pywb's `archive_paths`: the prefix a CDX line's file name is appended to.
    pub fn archive_path(&self) -> String {
        format!("{}/warcs/", self.server)
    }
}

/// The pywb name of the collection in `dir`: the directory's own name, each character
/// pywb could not route replaced by `_`. An error when `dir` holds no `collection.json`.
pub fn collection_name(dir: &Path) -> Result<String, PywbConfigError> {
    if !dir
        .join(crate::collection::manifest::MANIFEST_FILE)
        .is_file()
    {
        return Err(PywbConfigError::NotACollection(dir.into()));
    }
    let full =
        std::fs::canonicalize(dir).map_err(|_| PywbConfigError::NotACollection(dir.into()))?;
    let base = full
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name: String = base
        .chars()
        .map(|c| match c.is_ascii_alphanumeric() || "-_.".contains(c) {
            true => c,
            false => '_',
        })
        .collect();
    Ok(match name.trim_matches('.') {
        "" => "collection".into(),
        _ => name,
    })
}

/// A YAML single-quoted scalar: no escapes but `''` for a quote, so any URL reads back
/// as written.
fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// Writes the `config.yaml` of `cfg`, commented.
pub fn write_config(out: &mut dyn Write, cfg: &PywbConfig) -> io::Result<()> {
    let name = &cfg.name;
    write!(
        out,
        "\
# pywb 2.10 config.yaml written by `warcdex pywb-config`: replay of the collection
# served by `warcdex serve` at {server}.
#
#   wayback -p 8090          (in this file's directory, or PYWB_CONFIG_FILE=this file)
#   http://localhost:8090/{name}/DATE14/URL
#
# pywb finds captures through the server's CDX API and reads each record from the
# server's archives route by its offset and length (HTTP Range): no archive needs to be
# on pywb's machine. The other settings are pywb's defaults.

collections:
  {name}:
    # `cdx+` selects pywb's remote CDX index (RemoteIndexSource): /cdx answers pywb's
    # CDX server API (url, closest, sort, limit, matchType).
    index_paths: {index}
    # A CDX line's file name is appended: /warcs/FILE, read with Range: bytes=OFFSET-END.
    archive_paths: {archive}
",
        server = cfg.server,
        index = quoted(&cfg.index_path()),
        archive = quoted(&cfg.archive_path()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_servers_are_checked() {
        let c = PywbConfig::new("my-coll_2.0", "http://example.org:8080/").unwrap();
        assert_eq!(c.server, "http://example.org:8080");
        assert_eq!(c.index_path(), "cdx+http://example.org:8080/cdx");
        assert_eq!(c.archive_path(), "http://example.org:8080/warcs/");
        let behind = PywbConfig::new("c", "https://example.org/warcdex/").unwrap();
        assert_eq!(behind.archive_path(), "https://example.org/warcdex/warcs/");
        for bad in ["", ".", "..", "a/b", "a b", "é", "a\nb"] {
            assert!(
                matches!(
                    PywbConfig::new(bad, DEFAULT_SERVER),
                    Err(PywbConfigError::Name(_))
                ),
                "{bad:?}"
            );
        }
        for bad in [
            "127.0.0.1:8080",
            "ftp://example.org",
            "http://",
            "http://h/?q=1",
            "http://h/#x",
            "http://u:p@h/",
            "file:///etc",
        ] {
            assert!(
                matches!(PywbConfig::new("c", bad), Err(PywbConfigError::Server(_))),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn the_config_is_the_two_paths() {
        let mut out = Vec::new();
        let cfg = PywbConfig::new("coll", "http://127.0.0.1:9/").unwrap();
        write_config(&mut out, &cfg).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty())
            .collect();
        assert_eq!(
            lines,
            [
                "collections:",
                "  coll:",
                "    index_paths: 'cdx+http://127.0.0.1:9/cdx'",
                "    archive_paths: 'http://127.0.0.1:9/warcs/'",
            ]
        );
        assert_eq!(quoted("it's"), "'it''s'");
    }

    #[test]
    fn a_collection_is_named_after_its_directory() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("web archive+2024");
        std::fs::create_dir(&dir).unwrap();
        assert!(matches!(
            collection_name(&dir),
            Err(PywbConfigError::NotACollection(_))
        ));
        std::fs::write(dir.join(crate::collection::manifest::MANIFEST_FILE), "{}").unwrap();
        assert_eq!(collection_name(&dir).unwrap(), "web_archive_2024");
    }
}
