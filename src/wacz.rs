//! WACZ input (Webrecorder's Web Archive Collection Zipped 1.1): a ZIP holding
//! `archive/*.warc(.gz|.zst)`, `indexes/`, `pages/pages.jsonl` and `datapackage.json`.
//!
//! A WACZ's WARCs are read in place, never unpacked: the ZIP's central directory (read by
//! the `zip` crate) gives each entry's data offset, and WACZ writers store the WARCs
//! uncompressed (py-wacz, Browsertrix), so the entry's bytes are the WARC file's bytes and
//! an offset in the WARC is the entry's offset plus the data start. CDX lines name the
//! inner WARC by its base name, as the WACZ's own `indexes/index.cdx.gz` does and as
//! pywb and ReplayWeb.page resolve it against the WACZ's `archive/` folder
//! (docs/wacz.md). A deflated WARC entry is read through inflate; its offsets are still
//! those of the WARC.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::reader::{ArchiveReader, Input, ReaderOptions};

/// The folder of a WACZ that holds its WARCs.
const ARCHIVE_FOLDER: &str = "archive/";

/// The page lists of a WACZ (`pages.jsonl`, and `extraPages.jsonl` for pages found but
/// not seeded).
const PAGES_FOLDER: &str = "pages/";

/// Page titles kept from one WACZ's page lists at most: a title is a fallback, and
/// memory must not follow a hostile page list.
pub const MAX_PAGE_TITLES: usize = 1_000_000;

/// What went wrong with a WACZ, with its path.
#[derive(Debug, thiserror::Error)]
pub enum WaczError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The WACZ.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// The file is not a ZIP archive warcdex can read.
    #[error("{path}: not a readable ZIP archive: {message}")]
    Zip {
        /// The WACZ.
        path: PathBuf,
        /// What the ZIP reader said.
        message: String,
    },
    /// An entry is compressed with a method other than stored or deflate.
    #[error("{path}: {entry}: compression method {method} is not stored or deflate")]
    Method {
        /// The WACZ.
        path: PathBuf,
        /// The entry.
        entry: String,
        /// The method, as the ZIP reader names it.
        method: String,
    },
}

/// One file inside a WACZ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaczEntry {
    /// Its path in the ZIP (`archive/data.warc.gz`).
    pub name: String,
    /// The offset of its first data byte in the WACZ.
    pub data_start: u64,
    /// Its bytes as stored in the WACZ.
    pub compressed_size: u64,
    /// Its bytes.
    pub size: u64,
    /// Stored (not deflated): its bytes are the file's bytes.
    pub stored: bool,
}

impl WaczEntry {
    /// The name after its folder (`data.warc.gz`): the CDX `filename`.
    pub fn base_name(&self) -> &str {
        self.name.rsplit('/').next().unwrap_or(&self.name)
    }
}

/// An opened WACZ: its entries, read from the ZIP's central directory.
#[derive(Debug, Clone)]
pub struct Wacz {
    path: PathBuf,
    entries: Vec<WaczEntry>,
}

/// True when `path` names a WACZ (by its `.wacz` extension, in any case).
pub fn is_wacz(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("wacz"))
}

impl Wacz {
    /// Reads the entry list of the WACZ at `path`.
    pub fn open(path: &Path) -> std::result::Result<Wacz, WaczError> {
        let io_err = |source| WaczError::Io {
            path: path.to_path_buf(),
            source,
        };
        let zip_err = |e: zip::result::ZipError| WaczError::Zip {
            path: path.to_path_buf(),
            message: e.to_string(),
        };
        let file = File::open(path).map_err(io_err)?;
        let mut zip = zip::ZipArchive::new(BufReader::new(file)).map_err(zip_err)?;
        let mut entries = Vec::with_capacity(zip.len());
        for i in 0..zip.len() {
            let f = zip.by_index_raw(i).map_err(zip_err)?;
            if f.is_dir() {
                continue;
            }
            let name = f.name().map_err(zip_err)?.into_owned();
            let stored = match f.compression() {
                zip::CompressionMethod::Stored => true,
                zip::CompressionMethod::Deflated => false,
                other => {
                    return Err(WaczError::Method {
                        path: path.to_path_buf(),
                        entry: name,
                        method: format!("{other:?}"),
                    })
                }
            };
            let data_start = f.data_start().ok_or_else(|| WaczError::Zip {
                path: path.to_path_buf(),
                message: format!("{name}: no data offset"),
            })?;
            entries.push(WaczEntry {
                name,
                data_start,
                compressed_size: f.compressed_size(),
                size: f.size(),
                stored,
            });
        }
        Ok(Wacz {
            path: path.to_path_buf(),
            entries,
        })
    }

    /// The WACZ's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every file entry, in the ZIP's order.
    pub fn entries(&self) -> &[WaczEntry] {
        &self.entries
    }

    /// The WARCs (and ARCs) of `archive/`, in the ZIP's order.
    pub fn archives(&self) -> impl Iterator<Item = &WaczEntry> {
        self.entries
            .iter()
            .filter(|e| e.name.starts_with(ARCHIVE_FOLDER) && e.name.len() > ARCHIVE_FOLDER.len())
    }

    /// The entry named `name`, if there is one.
    pub fn entry(&self, name: &str) -> Option<&WaczEntry> {
        self.entries.iter().find(|e| e.name == name)
    }

    /// The bytes of `entry` (inflated when it is deflated).
    pub fn open_entry(&self, entry: &WaczEntry) -> io::Result<Box<dyn Read + Send>> {
        let mut file = File::open(&self.path)?;
        file.seek(SeekFrom::Start(entry.data_start))?;
        let raw = file.take(entry.compressed_size);
        Ok(if entry.stored {
            Box::new(raw)
        } else {
            Box::new(flate2::read::DeflateDecoder::new(BufReader::new(raw)))
        })
    }

    /// The reader of the WARC `entry`. Offsets are the WARC's own; a stored entry's
    /// whole-file gzip members are measured by seeking in the WACZ, as in a file.
    pub fn open_archive(
        &self,
        entry: &WaczEntry,
        opts: ReaderOptions,
    ) -> Result<ArchiveReader<Input>> {
        let name = self.part_name(entry);
        if entry.stored {
            return ArchiveReader::open_slice(
                &self.path,
                entry.data_start,
                entry.size,
                &name,
                opts,
            );
        }
        let input = self
            .open_entry(entry)
            .map_err(|e| Error::from(e).with_path(&name))?;
        let mut r = ArchiveReader::with_options(input, opts).map_err(|e| e.with_path(&name))?;
        r.set_path(name);
        Ok(r)
    }

    /// How messages name the WARC `entry`: `WACZ#archive/NAME`.
    pub fn part_name(&self, entry: &WaczEntry) -> PathBuf {
        PathBuf::from(format!("{}#{}", self.path.display(), entry.name))
    }

    /// Page titles by URL from `pages/*.jsonl` (titles that are empty or the URL itself
    /// are left out), at most [`MAX_PAGE_TITLES`]; with the count of titles left out
    /// over that limit.
    pub fn page_titles(&self) -> io::Result<(HashMap<String, String>, u64)> {
        let mut titles = HashMap::new();
        let mut over = 0u64;
        let lists = self
            .entries
            .iter()
            .filter(|e| e.name.starts_with(PAGES_FOLDER) && e.name.ends_with(".jsonl"));
        for entry in lists {
            let reader = BufReader::new(self.open_entry(entry)?);
            for line in reader.split(b'\n') {
                let line = line?;
                let Ok(page) = serde_json::from_slice::<PageLine>(&line) else {
                    continue;
                };
                let (Some(url), Some(title)) = (page.url, page.title) else {
                    continue;
                };
                let title = title.trim();
                if title.is_empty() || title == url {
                    continue;
                }
                if titles.len() >= MAX_PAGE_TITLES && !titles.contains_key(&url) {
                    over += 1;
                    continue;
                }
                titles.entry(url).or_insert_with(|| title.to_string());
            }
        }
        Ok((titles, over))
    }

    /// Checks every resource `datapackage.json` lists: present, of its `bytes`, and of
    /// its `hash` (`sha256:HEX`; `md5:` is not checked and says so). Returns one line
    /// per resource checked, and the problems found (none when the package is whole).
    pub fn verify(&self) -> io::Result<Verification> {
        let mut v = Verification::default();
        let Some(entry) = self.entry("datapackage.json") else {
            v.problems.push("no datapackage.json".into());
            return Ok(v);
        };
        let mut json = Vec::new();
        self.open_entry(entry)?.read_to_end(&mut json)?;
        let package: Package = match serde_json::from_slice(&json) {
            Ok(p) => p,
            Err(e) => {
                v.problems.push(format!("datapackage.json: {e}"));
                return Ok(v);
            }
        };
        for res in package.resources {
            let Some(entry) = self.entry(&res.path) else {
                v.problems
                    .push(format!("{}: listed but not in the WACZ", res.path));
                continue;
            };
            let mut hasher = Sha256::new();
            let mut input = self.open_entry(entry)?;
            let mut buf = vec![0u8; 256 * 1024];
            let mut bytes = 0u64;
            loop {
                let n = input.read(&mut buf)?;
                if n == 0 {
                    break;
                }
                hasher.update(&buf[..n]);
                bytes += n as u64;
            }
            let hex = data_encoding::HEXLOWER.encode(&hasher.finalize());
            if let Some(want) = res.bytes {
                if want != bytes {
                    v.problems.push(format!(
                        "{}: {bytes} bytes, datapackage.json says {want}",
                        res.path
                    ));
                    continue;
                }
            }
            match res.hash.as_deref().and_then(|h| h.split_once(':')) {
                Some(("sha256", want)) if want.eq_ignore_ascii_case(&hex) => v.checked += 1,
                Some(("sha256", want)) => v.problems.push(format!(
                    "{}: sha256:{hex}, datapackage.json says sha256:{want}",
                    res.path
                )),
                Some((algo, _)) => v.unchecked.push(format!("{}: {algo} hash", res.path)),
                None => v.unchecked.push(format!("{}: no hash", res.path)),
            }
        }
        Ok(v)
    }
}

/// The outcome of [`Wacz::verify`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verification {
    /// Resources whose size and SHA-256 match.
    pub checked: u64,
    /// Resources whose hash is not SHA-256 (or missing): not checked.
    pub unchecked: Vec<String>,
    /// Mismatches and missing resources.
    pub problems: Vec<String>,
}

#[derive(serde::Deserialize)]
struct PageLine {
    url: Option<String>,
    title: Option<String>,
}

#[derive(serde::Deserialize)]
struct Package {
    #[serde(default)]
    resources: Vec<Resource>,
}

#[derive(serde::Deserialize)]
struct Resource {
    path: String,
    hash: Option<String>,
    bytes: Option<u64>,
}

/// One archive to read: an ARC/WARC file, or a WARC inside a WACZ.
#[derive(Debug, Clone)]
pub struct ArchivePart {
    /// The file given (the WACZ, for a part of one).
    pub file: PathBuf,
    /// The WACZ and the WARC in it, for a part of a WACZ.
    pub in_wacz: Option<(std::sync::Arc<Wacz>, WaczEntry)>,
}

impl ArchivePart {
    /// How messages name the part: the file, or `WACZ#archive/NAME`.
    pub fn display_path(&self) -> PathBuf {
        match &self.in_wacz {
            Some((w, e)) => w.part_name(e),
            None => self.file.clone(),
        }
    }

    /// The CDX `filename`: the file's base name, or the WARC's in a WACZ.
    pub fn filename(&self) -> String {
        match &self.in_wacz {
            Some((_, e)) => e.base_name().to_string(),
            None => crate::cdx_writer::run::filename_column(&self.file),
        }
    }

    /// The bytes this part takes in the file given (for progress).
    pub fn stored_len(&self) -> u64 {
        match &self.in_wacz {
            Some((_, e)) => e.compressed_size,
            None => std::fs::metadata(&self.file).map_or(0, |m| m.len()),
        }
    }

    /// Opens the part (`-` is standard input).
    pub fn open(&self, opts: ReaderOptions) -> Result<ArchiveReader<Input>> {
        match &self.in_wacz {
            Some((w, e)) => w.open_archive(e, opts),
            None => ArchiveReader::open_input(&self.file, opts),
        }
    }
}

/// The archives in `path`: itself, or each WARC of a WACZ (`archive/*`, in the ZIP's
/// order). A WACZ that cannot be read, or holds no WARC, is an error naming it.
pub fn archive_parts(path: &Path) -> Result<Vec<ArchivePart>> {
    if !is_wacz(path) {
        return Ok(vec![ArchivePart {
            file: path.to_path_buf(),
            in_wacz: None,
        }]);
    }
    let wacz = std::sync::Arc::new(Wacz::open(path).map_err(Error::wacz)?);
    let parts: Vec<ArchivePart> = wacz
        .archives()
        .map(|e| ArchivePart {
            file: path.to_path_buf(),
            in_wacz: Some((wacz.clone(), e.clone())),
        })
        .collect();
    if parts.is_empty() {
        return Err(Error::wacz(WaczError::Zip {
            path: path.to_path_buf(),
            message: "no WARC under archive/".into(),
        }));
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use zip::write::SimpleFileOptions;

    fn record(uri: &str, body: &str) -> Vec<u8> {
        let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n{body}");
        let mut r = format!(
            "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\n\
             WARC-Date: 2020-01-01T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:1>\r\n\
             Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
            http.len()
        )
        .into_bytes();
        r.extend_from_slice(http.as_bytes());
        r.extend_from_slice(b"\r\n\r\n");
        r
    }

    fn sha256(b: &[u8]) -> String {
        data_encoding::HEXLOWER.encode(&Sha256::digest(b))
    }

    /// A WACZ with two stored WARCs, a deflated page list and a data package.
    fn wacz(dir: &Path) -> (PathBuf, Vec<u8>) {
        let warc = [
            record("http://example.org/", "<title>Own title</title>"),
            record("http://example.org/untitled", "no title here"),
        ]
        .concat();
        let warc2 = record("http://example.org/two", "two");
        let pages = "{\"format\": \"json-pages-1.0\", \"id\": \"pages\"}\n\
                     {\"url\": \"http://example.org/untitled\", \"title\": \"From pages\"}\n\
                     {\"url\": \"http://example.org/two\", \"title\": \"http://example.org/two\"}\n";
        let package = format!(
            "{{\"resources\": [{{\"path\": \"archive/a.warc\", \"hash\": \"sha256:{}\", \"bytes\": {}}},\
             {{\"path\": \"pages/pages.jsonl\", \"hash\": \"sha256:{}\"}}]}}",
            sha256(&warc),
            warc.len(),
            sha256(pages.as_bytes())
        );
        let path = dir.join("t.wacz");
        let mut z = zip::ZipWriter::new(File::create(&path).unwrap());
        let stored =
            SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
        let deflated =
            SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        for (name, data, opts) in [
            ("archive/a.warc", &warc[..], stored),
            ("archive/b.warc", &warc2[..], stored),
            ("pages/pages.jsonl", pages.as_bytes(), deflated),
            ("datapackage.json", package.as_bytes(), deflated),
        ] {
            z.start_file(name, opts).unwrap();
            z.write_all(data).unwrap();
        }
        z.finish().unwrap();
        (path, warc)
    }

    #[test]
    fn parts_titles_and_verification() {
        let dir = tempfile::tempdir().unwrap();
        let (path, warc) = wacz(dir.path());
        let parts = archive_parts(&path).unwrap();
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].filename(), "a.warc");
        assert!(parts[1].display_path().ends_with("t.wacz#archive/b.warc"));
        let mut r = parts[0].open(ReaderOptions::default()).unwrap();
        let mut spans = Vec::new();
        while let Some(rec) = r.next_record().unwrap() {
            spans.push(rec.finish().unwrap());
        }
        // Offsets are the WARC's own, not the ZIP's.
        let first_len = record("http://example.org/", "<title>Own title</title>").len();
        assert_eq!(spans[0].offset, 0);
        assert_eq!(spans[1].offset, first_len as u64);
        assert!(spans[1].offset + spans[1].length <= warc.len() as u64);
        let (wacz, _) = parts[0].in_wacz.clone().unwrap();
        let (titles, over) = wacz.page_titles().unwrap();
        assert_eq!(over, 0);
        // A title that is only the URL is no title.
        assert_eq!(titles.len(), 1);
        assert_eq!(titles["http://example.org/untitled"], "From pages");
        let v = wacz.verify().unwrap();
        assert_eq!((v.checked, v.problems.len()), (2, 0), "{v:?}");

        // One byte of the stored WARC changed: its hash no longer matches.
        let mut bytes = std::fs::read(&path).unwrap();
        let e = wacz.entry("archive/a.warc").unwrap().data_start as usize;
        bytes[e + 20] ^= 0x20;
        std::fs::write(&path, &bytes).unwrap();
        let v = Wacz::open(&path).unwrap().verify().unwrap();
        assert_eq!(v.problems.len(), 1, "{v:?}");
        assert!(
            v.problems[0].starts_with("archive/a.warc: sha256:"),
            "{v:?}"
        );
    }

    #[test]
    fn a_file_that_is_no_zip_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("not.wacz");
        std::fs::write(&path, b"WARC/1.0\r\n").unwrap();
        let e = archive_parts(&path).unwrap_err().to_string();
        assert!(e.contains("not.wacz: not a readable ZIP archive"), "{e}");
    }
}
