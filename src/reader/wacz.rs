//! WACZ input (Webrecorder's Web Archive Collection Zipped 1.1): a ZIP holding
//! `archive/*.warc(.gz|.zst)`, `indexes/`, `pages/pages.jsonl` and `datapackage.json`.
//!
//! A WACZ's WARCs are read in place, never unpacked: the ZIP's central directory (read by
//! the `zip` crate) gives each entry's data offset, and WACZ writers store the WARCs
//! uncompressed (py-wacz, Browsertrix), so the entry's bytes are the WARC file's bytes and
//! an offset in the WARC is the entry's offset plus the data start. CDX lines name the
//! inner WARC by its base name, as the WACZ's own `indexes/index.cdx.gz` does and as
//! pywb and ReplayWeb.page resolve it against the WACZ's `archive/` folder
//! (docs/containers.md). A deflated WARC entry is read through inflate; its offsets are still
//! those of the WARC.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use warcdex_cdx::message::{echo, MESSAGES_PER_FILE};

use crate::reader::error::{Error, Result};
use crate::reader::{ArchiveReader, Input, ReaderOptions};

/// The folder of a WACZ that holds its WARCs.
const ARCHIVE_FOLDER: &str = "archive/";

/// The page lists of a WACZ (`pages.jsonl`, and `extraPages.jsonl` for pages found but
/// not seeded).
const PAGES_FOLDER: &str = "pages/";

/// Page titles kept from one WACZ's page lists at most: a title is a fallback, and
/// memory must not follow a hostile page list.
pub const MAX_PAGE_TITLES: usize = 1_000_000;

/// Bytes of URLs and titles kept from one WACZ's page lists at most (each title counted
/// with [`TITLE_OVERHEAD`]): with [`MAX_PAGE_TITLES`] alone, a million titles of a few MB
/// each would still be kept.
pub const MAX_PAGE_TITLE_BYTES: usize = 64 << 20;

/// What one kept title costs besides its URL's and its own bytes (two `String`s and the
/// hash table's slot), so that a million empty-ish titles count too.
const TITLE_OVERHEAD: usize = 64;

/// Bytes of one line of a page list read at most; a longer line is skipped and counted.
/// A line is one page: its URL, title and timestamp, and with Browsertrix's `--text` the
/// page's text, which import cuts at its 1 MiB content limit anyway. A line of 600 MB was
/// read whole before (1.86 GB peak).
pub const MAX_PAGE_LINE_BYTES: usize = 4 << 20;

/// Bytes of `datapackage.json` verified at most; a larger one is refused. It lists one
/// resource (about 200 bytes) per file of the WACZ, so 8 MiB is some 40,000 files, and
/// its parsed resources stay well within a command's memory (a 300 MB package took
/// 1.24 GB before).
pub const MAX_DATAPACKAGE_BYTES: u64 = 8 << 20;

/// What went wrong with a WACZ, with its path.
#[derive(Debug, thiserror::Error)]
pub enum WaczError {
    /// The file could not be read. The system's error is part of the text, as the
    /// reader's errors show their cause (every reader error is printed as it is, by
    /// `records`, `cdx` and the server alike), so it is not handed on as a source too.
    #[error("{path}: {error}")]
    Io {
        /// The WACZ.
        path: PathBuf,
        /// The cause.
        error: io::Error,
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
    /// Two entries share bytes (or one runs into the central directory). No WACZ writer
    /// makes this; it is how a ZIP bomb makes each entry inflate the same data again.
    #[error("{path}: entries {first} and {second} overlap: not read")]
    Overlap {
        /// The WACZ.
        path: PathBuf,
        /// The entry that starts first (escaped as `{:?}` would, if it needs to be).
        first: String,
        /// The entry (or "the central directory") whose bytes it runs into.
        second: String,
    },
    /// An entry's name could escape a folder or mislead whoever reads it (a CDX
    /// `filename`, a terminal): no WACZ writer makes one.
    #[error("{path}: entry {name:?}: unsafe name ({reason}): not read")]
    UnsafeName {
        /// The WACZ.
        path: PathBuf,
        /// The name, cut to [`warcdex_cdx::message::ECHO_BYTES`].
        name: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// An entry could not be read.
    /// The cause is part of the text, as for [`WaczError::Io`].
    #[error("{path}#{entry}: {error}")]
    Entry {
        /// The WACZ.
        path: PathBuf,
        /// The entry.
        entry: String,
        /// The cause.
        error: io::Error,
    },
}

/// Why `name` is no name a WACZ entry may have, if it is not: a backslash (a folder
/// separator on Windows, so `archive/..\..\evil.warc` walks up there and reached the CDX
/// `filename` as `..\..\evil.warc`), a `..` component, an absolute path or drive
/// letter, or a control character (NUL ends the name in C; escapes rewrite a terminal).
pub fn unsafe_name(name: &str) -> Option<&'static str> {
    if name.contains('\\') {
        return Some("a backslash");
    }
    if name.chars().any(char::is_control) {
        return Some("a control character");
    }
    if name.starts_with('/') {
        return Some("an absolute path");
    }
    let b = name.as_bytes();
    if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
        return Some("a drive letter");
    }
    if name.split('/').any(|c| c == "..") {
        return Some("a `..` component");
    }
    None
}

/// Refuses entries whose extents (`(header start, data end, name)`) overlap each other
/// or the central directory at `dir_start`: each entry is then read (inflated) once, so
/// the work is bounded by the file's size (deflate's ratio, about 1000:1, at most),
/// where shared bytes were inflated once per entry (10 GiB from 263 KB).
fn check_overlap(
    path: &Path,
    mut extents: Vec<(u64, u64, String)>,
    dir_start: u64,
) -> std::result::Result<(), WaczError> {
    // Stable: of entries at one offset, the first in the ZIP is named first.
    extents.sort_by_key(|e| (e.0, e.1));
    let overlap = |first: &str, second: &str| WaczError::Overlap {
        path: path.to_path_buf(),
        first: echo(first).into_owned(),
        second: echo(second).into_owned(),
    };
    for w in extents.windows(2) {
        if w[0].1 > w[1].0 {
            return Err(overlap(&w[0].2, &w[1].2));
        }
    }
    match extents.iter().find(|e| e.1 > dir_start) {
        Some(e) => Err(overlap(&e.2, "the central directory")),
        None => Ok(()),
    }
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
        let io_err = |error| WaczError::Io {
            path: path.to_path_buf(),
            error,
        };
        let zip_err = |e: zip::result::ZipError| WaczError::Zip {
            path: path.to_path_buf(),
            message: e.to_string(),
        };
        let file = File::open(path).map_err(io_err)?;
        let mut zip = zip::ZipArchive::new(BufReader::new(file)).map_err(zip_err)?;
        let mut entries = Vec::with_capacity(zip.len());
        // Every entry's bytes, directories included: (first byte, end, name).
        let mut extents = Vec::with_capacity(zip.len());
        let dir_start = zip.central_directory_start();
        for i in 0..zip.len() {
            let f = zip.by_index_raw(i).map_err(zip_err)?;
            let name = f.name().map_err(zip_err)?.into_owned();
            if let Some(reason) = unsafe_name(&name) {
                return Err(WaczError::UnsafeName {
                    path: path.to_path_buf(),
                    name: echo(&name).into_owned(),
                    reason,
                });
            }
            let data_start = f.data_start().ok_or_else(|| WaczError::Zip {
                path: path.to_path_buf(),
                message: format!("{}: no data offset", echo(&name)),
            })?;
            // A stored entry is read for its `size` bytes (`open_slice`), so those are
            // its extent even when its compressed size says less.
            let stored_len = match f.compression() {
                zip::CompressionMethod::Stored => f.compressed_size().max(f.size()),
                _ => f.compressed_size(),
            };
            extents.push((
                f.header_start(),
                data_start.saturating_add(stored_len),
                name.clone(),
            ));
            if f.is_dir() {
                continue;
            }
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
            entries.push(WaczEntry {
                name,
                data_start,
                compressed_size: f.compressed_size(),
                size: f.size(),
                stored,
            });
        }
        check_overlap(path, extents, dir_start)?;
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

    /// `WaczError::Entry` for an error reading `entry`.
    fn entry_err(&self, entry: &str) -> impl FnOnce(io::Error) -> WaczError + '_ {
        let entry = entry.to_string();
        move |error| WaczError::Entry {
            path: self.path.clone(),
            entry,
            error,
        }
    }

    /// Calls `f` with each line of `pages/*.jsonl` that parses as a page; a line longer
    /// than [`MAX_PAGE_LINE_BYTES`] is skipped and counted in `lists`, so memory does not
    /// follow a hostile page list.
    fn for_each_page(
        &self,
        lists: &mut PageLists,
        mut f: impl FnMut(PageLine),
    ) -> std::result::Result<(), WaczError> {
        let pages = self
            .entries
            .iter()
            .filter(|e| e.name.starts_with(PAGES_FOLDER) && e.name.ends_with(".jsonl"));
        let mut line = Vec::new();
        for entry in pages {
            let err = |e| self.entry_err(&entry.name)(e);
            let mut reader = BufReader::new(self.open_entry(entry).map_err(err)?);
            let mut number = 0u64;
            loop {
                number += 1;
                let bytes = match read_line_bounded(&mut reader, &mut line, MAX_PAGE_LINE_BYTES)
                    .map_err(err)?
                {
                    Line::End => break,
                    Line::Read => &line[..],
                    Line::TooLong(len) => {
                        lists.long_lines += 1;
                        if lists.messages.len() < MESSAGES_PER_FILE as usize {
                            lists.messages.push(format!(
                                "{}: line {number}: {len} bytes, longer than the {} MiB a \
                                 page line may take: skipped",
                                self.part_name(entry).display(),
                                MAX_PAGE_LINE_BYTES >> 20
                            ));
                        }
                        continue;
                    }
                };
                if let Ok(page) = serde_json::from_slice::<PageLine>(bytes) {
                    f(page);
                }
            }
        }
        Ok(())
    }

    /// Page titles by URL from `pages/*.jsonl` (titles that are empty or the URL itself
    /// are left out), at most [`MAX_PAGE_TITLES`] and [`MAX_PAGE_TITLE_BYTES`]; lines
    /// longer than [`MAX_PAGE_LINE_BYTES`] are skipped and counted.
    pub fn page_titles(&self) -> std::result::Result<PageTitles, WaczError> {
        let mut pt = PageTitles::default();
        let mut kept_bytes = 0usize;
        let mut lists = PageLists::default();
        self.for_each_page(&mut lists, |page| {
            let (Some(url), Some(title)) = (page.url, page.title) else {
                return;
            };
            let title = title.trim();
            if title.is_empty() || title == url || pt.titles.contains_key(&url) {
                return;
            }
            let cost = url.len() + title.len() + TITLE_OVERHEAD;
            if pt.titles.len() >= MAX_PAGE_TITLES || kept_bytes + cost > MAX_PAGE_TITLE_BYTES {
                pt.over += 1;
                return;
            }
            kept_bytes += cost;
            pt.titles.insert(url, title.to_string());
        })?;
        pt.long_lines = lists.long_lines;
        pt.messages = lists.messages;
        Ok(pt)
    }

    /// Calls `f(url, ts, text)` for each page of `pages/*.jsonl` that has a `text` (the
    /// words Browsertrix Crawler's `--text to-pages` records after the page's scripts
    /// ran), one line at a time; lines longer than [`MAX_PAGE_LINE_BYTES`] are skipped and
    /// counted in the answer.
    pub fn page_texts(
        &self,
        mut f: impl FnMut(&str, Option<&str>, &str),
    ) -> std::result::Result<PageLists, WaczError> {
        let mut lists = PageLists::default();
        self.for_each_page(&mut lists, |page| {
            if let (Some(url), Some(text)) = (&page.url, &page.text) {
                if !text.trim().is_empty() {
                    f(url, page.ts.as_deref(), text);
                }
            }
        })?;
        Ok(lists)
    }

    /// Checks every resource `datapackage.json` lists: present, of its `bytes`, and of
    /// its `hash` (`sha256:HEX`; `md5:` is not checked and says so). Keeps the first
    /// `max_messages` problems and unchecked resources and counts them all; each entry is
    /// hashed once however often it is listed. A package larger than
    /// [`MAX_DATAPACKAGE_BYTES`] is a problem: it is not verified.
    pub fn verify(&self, max_messages: usize) -> std::result::Result<Verification, WaczError> {
        let mut v = Verification {
            max_messages,
            ..Verification::default()
        };
        const PACKAGE: &str = "datapackage.json";
        let Some(entry) = self.entry(PACKAGE) else {
            v.problem(format!("no {PACKAGE}"));
            return Ok(v);
        };
        let err = |e| self.entry_err(PACKAGE)(e);
        let too_large = |bytes: u64| {
            format!(
                "{PACKAGE}: {bytes} bytes, more than the {MAX_DATAPACKAGE_BYTES} bytes \
                 verified at most: not verified"
            )
        };
        if entry.size > MAX_DATAPACKAGE_BYTES {
            v.problem(too_large(entry.size));
            return Ok(v);
        }
        // The size in the directory may lie about a deflated entry: the read is bounded too.
        let mut json = Vec::new();
        self.open_entry(entry)
            .map_err(err)?
            .take(MAX_DATAPACKAGE_BYTES + 1)
            .read_to_end(&mut json)
            .map_err(err)?;
        if json.len() as u64 > MAX_DATAPACKAGE_BYTES {
            v.problem(too_large(json.len() as u64));
            return Ok(v);
        }
        let package: Package = match serde_json::from_slice(&json) {
            Ok(p) => p,
            Err(e) => {
                // serde_json quotes the values it did not expect, which may be huge.
                v.problem(format!("{PACKAGE}: {}", echo(&e.to_string())));
                return Ok(v);
            }
        };
        drop(json);
        let by_name: HashMap<&str, &WaczEntry> =
            self.entries.iter().map(|e| (e.name.as_str(), e)).collect();
        // Bytes and SHA-256 of each entry hashed so far.
        let mut hashed: HashMap<&str, (u64, String)> = HashMap::new();
        for res in package.resources {
            let shown = echo(&res.path);
            let Some(entry) = by_name.get(res.path.as_str()).copied() else {
                v.problem(format!("{shown}: listed but not in the WACZ"));
                continue;
            };
            let (bytes, hex) = match hashed.get(entry.name.as_str()) {
                Some(h) => h.clone(),
                None => {
                    let h = self.hash(entry)?;
                    hashed.insert(&entry.name, h.clone());
                    h
                }
            };
            if let Some(want) = res.bytes {
                if want != bytes {
                    v.problem(format!("{shown}: {bytes} bytes, {PACKAGE} says {want}"));
                    continue;
                }
            }
            match res.hash.as_deref().and_then(|h| h.split_once(':')) {
                Some(("sha256", want)) if want.eq_ignore_ascii_case(&hex) => v.checked += 1,
                Some(("sha256", want)) => v.problem(format!(
                    "{shown}: sha256:{hex}, {PACKAGE} says sha256:{}",
                    echo(want)
                )),
                Some((algo, _)) => v.not_checked(format!("{shown}: {} hash", echo(algo))),
                None => v.not_checked(format!("{shown}: no hash")),
            }
        }
        Ok(v)
    }

    /// The size and SHA-256 (lowercase hex) of `entry`'s bytes.
    fn hash(&self, entry: &WaczEntry) -> std::result::Result<(u64, String), WaczError> {
        let err = |e| self.entry_err(&entry.name)(e);
        let mut hasher = Sha256::new();
        let mut input = self.open_entry(entry).map_err(err)?;
        let mut buf = vec![0u8; 256 * 1024];
        let mut bytes = 0u64;
        loop {
            let n = input.read(&mut buf).map_err(err)?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
            bytes += n as u64;
        }
        Ok((bytes, data_encoding::HEXLOWER.encode(&hasher.finalize())))
    }
}

/// What [`read_line_bounded`] read.
enum Line {
    /// A line (without its `\n`) is in the buffer.
    Read,
    /// A line of this many bytes (its `\n` left out) was longer than the limit: it was
    /// read through, not kept.
    TooLong(u64),
    /// The input has ended.
    End,
}

/// Reads the next `\n`-ended line of `r` into `line`, unless it is longer than `max`
/// bytes: then it is read through and only measured, so no line costs more than `max`.
fn read_line_bounded(r: &mut impl BufRead, line: &mut Vec<u8>, max: usize) -> io::Result<Line> {
    line.clear();
    let mut len = 0u64;
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Ok(match len {
                0 => Line::End,
                _ if len > max as u64 => Line::TooLong(len),
                _ => Line::Read,
            });
        }
        let (take, ended) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i, true),
            None => (buf.len(), false),
        };
        if len + take as u64 <= max as u64 {
            line.extend_from_slice(&buf[..take]);
        } else {
            line.clear();
        }
        len += take as u64;
        r.consume(take + usize::from(ended));
        if ended {
            return Ok(if len > max as u64 {
                Line::TooLong(len)
            } else {
                Line::Read
            });
        }
    }
}

/// What reading a WACZ's page lists skipped: lines longer than
/// [`MAX_PAGE_LINE_BYTES`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageLists {
    /// Lines longer than [`MAX_PAGE_LINE_BYTES`], skipped.
    pub long_lines: u64,
    /// The first [`MESSAGES_PER_FILE`] of those, each naming the WACZ's entry and line.
    pub messages: Vec<String>,
}

/// The outcome of [`Wacz::page_titles`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageTitles {
    /// Title by URL.
    pub titles: HashMap<String, String>,
    /// Titles left out past [`MAX_PAGE_TITLES`] or [`MAX_PAGE_TITLE_BYTES`].
    pub over: u64,
    /// Lines longer than [`MAX_PAGE_LINE_BYTES`], skipped.
    pub long_lines: u64,
    /// The first [`MESSAGES_PER_FILE`] of those, each naming the WACZ's entry and line.
    pub messages: Vec<String>,
}

/// The outcome of [`Wacz::verify`]: counts, and the first messages of each kind (a
/// package may list millions of resources, and every message stream is capped).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verification {
    /// Resources whose size and SHA-256 match.
    pub checked: u64,
    /// The first resources whose hash is not SHA-256 (or missing): not checked.
    pub unchecked: Vec<String>,
    /// How many resources were not checked.
    pub unchecked_count: u64,
    /// The first mismatches and missing resources (the package's own problems too).
    pub problems: Vec<String>,
    /// How many problems there were.
    pub problem_count: u64,
    /// Messages kept of each kind.
    max_messages: usize,
}

impl Verification {
    fn problem(&mut self, message: String) {
        self.problem_count += 1;
        if self.problems.len() < self.max_messages {
            self.problems.push(message);
        }
    }

    fn not_checked(&mut self, message: String) {
        self.unchecked_count += 1;
        if self.unchecked.len() < self.max_messages {
            self.unchecked.push(message);
        }
    }

    /// True when every resource listed is there, of its size and hash (or unchecked).
    pub fn is_whole(&self) -> bool {
        self.problem_count == 0
    }

    /// The problems kept, joined with `; `, and how many more there were.
    pub fn problems_line(&self) -> String {
        joined(&self.problems, self.problem_count, "; ", "problems")
    }

    /// The unchecked resources kept, joined with `, `, and how many more there were.
    pub fn unchecked_line(&self) -> String {
        joined(&self.unchecked, self.unchecked_count, ", ", "not checked")
    }
}

/// `kept` joined with `sep`, then `… and N more WHAT` for the rest of `count`.
fn joined(kept: &[String], count: u64, sep: &str, what: &str) -> String {
    let mut s = kept.join(sep);
    let more = count - kept.len() as u64;
    if more > 0 {
        if !s.is_empty() {
            s.push_str(sep);
        }
        s.push_str(&format!("… and {more} more {what}"));
    }
    s
}

/// One line of a page list, as far as it is read.
#[derive(serde::Deserialize)]
struct PageLine {
    url: Option<String>,
    title: Option<String>,
    /// The page's capture time (ISO 8601, `2024-01-02T03:04:05Z`).
    ts: Option<String>,
    /// The page's rendered text (Browsertrix Crawler's `--text to-pages`).
    text: Option<String>,
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

/// The file-name column: the base name, as pywb writes it when run in the file's folder.
pub fn filename_column(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.to_string_lossy().into_owned())
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
            None => filename_column(&self.file),
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
        let pt = wacz.page_titles().unwrap();
        assert_eq!((pt.over, pt.long_lines), (0, 0));
        // A title that is only the URL is no title.
        assert_eq!(pt.titles.len(), 1);
        assert_eq!(pt.titles["http://example.org/untitled"], "From pages");
        let v = wacz.verify(5).unwrap();
        assert_eq!((v.checked, v.problem_count), (2, 0), "{v:?}");

        // One byte of the stored WARC changed: its hash no longer matches.
        let mut bytes = std::fs::read(&path).unwrap();
        let e = wacz.entry("archive/a.warc").unwrap().data_start as usize;
        bytes[e + 20] ^= 0x20;
        std::fs::write(&path, &bytes).unwrap();
        let v = Wacz::open(&path).unwrap().verify(5).unwrap();
        assert_eq!(v.problem_count, 1, "{v:?}");
        assert!(
            v.problems[0].starts_with("archive/a.warc: sha256:"),
            "{v:?}"
        );
    }

    #[test]
    fn unsafe_names_are_named_and_safe_ones_pass() {
        for (name, reason) in [
            (r"archive/..\..\evil.warc.gz", "a backslash"),
            ("archive/../../evil.warc.gz", "a `..` component"),
            ("..", "a `..` component"),
            ("/etc/evil.warc", "an absolute path"),
            ("C:/evil.warc", "a drive letter"),
            ("archive/evil\0.warc", "a control character"),
            ("archive/evil\n.warc", "a control character"),
            ("archive/evil\u{9b}.warc", "a control character"),
        ] {
            assert_eq!(unsafe_name(name), Some(reason), "{name:?}");
        }
        for name in [
            "archive/data.warc.gz",
            "archive/a..b.warc",
            "pages/pages.jsonl",
            "x/",
        ] {
            assert_eq!(unsafe_name(name), None, "{name:?}");
        }
    }

    #[test]
    fn a_line_is_read_whole_or_measured_and_skipped() {
        let input = b"short\nthis one is too long\n\nlast";
        let mut r = io::BufReader::with_capacity(4, &input[..]);
        let mut line = Vec::new();
        let mut got = Vec::new();
        loop {
            match read_line_bounded(&mut r, &mut line, 8).unwrap() {
                Line::End => break,
                Line::Read => got.push(String::from_utf8(line.clone()).unwrap()),
                Line::TooLong(n) => got.push(format!("<{n}>")),
            }
        }
        assert_eq!(got, ["short", "<20>", "", "last"]);
    }

    /// A page list line over [`MAX_PAGE_LINE_BYTES`] is skipped with a message naming
    /// the entry and the line; the lines after it still give titles.
    #[test]
    fn a_long_page_line_is_skipped_and_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("long.wacz");
        let pages = format!(
            "{{\"url\": \"http://example.org/a\", \"title\": \"{}\"}}\n\
             {{\"url\": \"http://example.org/b\", \"title\": \"B\"}}\n",
            "t".repeat(MAX_PAGE_LINE_BYTES)
        );
        let mut z = zip::ZipWriter::new(File::create(&path).unwrap());
        let deflated =
            SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        z.start_file("pages/pages.jsonl", deflated).unwrap();
        z.write_all(pages.as_bytes()).unwrap();
        z.finish().unwrap();
        let pt = Wacz::open(&path).unwrap().page_titles().unwrap();
        assert_eq!(pt.long_lines, 1);
        assert_eq!(pt.titles.len(), 1);
        assert_eq!(pt.titles["http://example.org/b"], "B");
        let want = format!(
            "{}#pages/pages.jsonl: line 1: {} bytes, longer than the 4 MiB",
            path.display(),
            pages.find('\n').unwrap()
        );
        assert!(pt.messages[0].starts_with(&want), "{:?}", pt.messages);
    }

    /// Verification keeps `max_messages` problems and counts the rest, hashes an entry
    /// listed many times once, and refuses a package over [`MAX_DATAPACKAGE_BYTES`].
    #[test]
    fn verification_is_capped_and_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.wacz");
        let data = b"0123456789";
        let good = format!(
            "{{\"path\": \"archive/a.warc\", \"hash\": \"sha256:{}\", \"bytes\": 10}}",
            sha256(data)
        );
        let mut resources = vec![good; 3];
        resources.extend(std::iter::repeat_n(r#"{"path": "gone"}"#.to_string(), 7));
        resources.push(r#"{"path": "archive/a.warc", "hash": "md5:x"}"#.to_string());
        let package = format!("{{\"resources\": [{}]}}", resources.join(","));
        let write = |package: &[u8]| {
            let mut z = zip::ZipWriter::new(File::create(&path).unwrap());
            let deflated =
                SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
            z.start_file("archive/a.warc", deflated).unwrap();
            z.write_all(data).unwrap();
            z.start_file("datapackage.json", deflated).unwrap();
            z.write_all(package).unwrap();
            z.finish().unwrap();
        };
        write(package.as_bytes());
        let v = Wacz::open(&path).unwrap().verify(2).unwrap();
        assert_eq!((v.checked, v.problem_count, v.unchecked_count), (3, 7, 1));
        assert_eq!(
            v.problems_line(),
            "gone: listed but not in the WACZ; gone: listed but not in the WACZ; \
             … and 5 more problems"
        );
        assert_eq!(v.unchecked_line(), "archive/a.warc: md5 hash");

        let mut big = vec![b' '; MAX_DATAPACKAGE_BYTES as usize + 1];
        big[..2].copy_from_slice(b"{}");
        write(&big);
        let v = Wacz::open(&path).unwrap().verify(5).unwrap();
        assert_eq!(
            v.problems,
            [format!(
                "datapackage.json: {} bytes, more than the {MAX_DATAPACKAGE_BYTES} bytes \
                 verified at most: not verified",
                MAX_DATAPACKAGE_BYTES + 1
            )]
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
