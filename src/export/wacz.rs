//! The WACZ export: the WARC export packed with its index and page list as WACZ 1.1.1
//! lays them out (and py-wacz writes them): `archive/data.warc.gz` stored (a replayer
//! reads its records by range), `indexes/index.cdx` (CDXJ, sorted), `pages/pages.jsonl`,
//! `datapackage.json` with every file's size and SHA-256, and `datapackage-digest.json`.
//!
//! The parts are written to a scratch folder first (the index is made by reading the
//! finished WARC, as any indexer would, and sorted in bounded memory), then zipped, then
//! copied to the output: memory stays bounded whatever the export's size.
//!
//! The scratch folder is named as every temporary of ours (`.warcdex-tmp.PID.wacz-…`,
//! `output.rs`), so that the folder of a run that was killed is removed by the next run
//! that packs there; every byte written into it is counted against [`WaczScratch::limit`]
//! and checked against [`WaczScratch::cancelled`], so a server stops packing when its
//! client goes away and never fills its disk for one request.

use std::cell::Cell;
use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use sha2::{Digest, Sha256};
use warcdex_cdx::sort::{ExternalSorter, SortOptions};
use warcdex_cdx::CdxFormat;
use zip::write::SimpleFileOptions;
use zip::CompressionMethod;

use super::warc::{name_uuid, write_warc, CaptureSource, WarcReport, WarcSink};
use super::ExportError;
use crate::cdx_writer::{index_archive, CdxOptions};
use crate::progress::Progress;
use crate::reader::ArchiveReader;
use crate::search::{MatchedVersion, SearchIndex, Selection};

/// The WARC's name in the package.
const WARC_NAME: &str = "data.warc.gz";

/// Where a WACZ is packed, and when packing stops.
pub struct WaczScratch<'a> {
    /// The folder the parts are written in (inside a folder of their own, about twice
    /// the export's size).
    pub dir: &'a Path,
    /// The most bytes the parts may take; past it the export fails with
    /// [`ExportError::ScratchFull`]. `None`: no limit.
    pub limit: Option<u64>,
    /// Whether the export is no longer wanted (its client went away), asked at every
    /// write: when it says so, the export fails with [`ExportError::Cancelled`].
    pub cancelled: &'a dyn Fn() -> bool,
}

impl WaczScratch<'_> {
    /// `dir`, without limit or cancellation (the command line's export).
    pub fn unlimited(dir: &Path) -> WaczScratch<'_> {
        WaczScratch {
            dir,
            limit: None,
            cancelled: &|| false,
        }
    }
}

/// Why a write into the scratch folder was refused.
#[derive(Debug, Clone, Copy)]
enum Stop {
    Full(u64),
    Cancelled,
}

/// The bytes written into the scratch folder, and why writing stopped.
struct Budget<'a> {
    scratch: &'a WaczScratch<'a>,
    used: Cell<u64>,
    stopped: Cell<Option<Stop>>,
}

impl Budget<'_> {
    /// Counts `n` more bytes, or refuses them.
    fn take(&self, n: usize) -> io::Result<()> {
        let stop = if (self.scratch.cancelled)() {
            Some(Stop::Cancelled)
        } else {
            let used = self.used.get() + n as u64;
            self.used.set(used);
            self.scratch.limit.filter(|&l| used > l).map(Stop::Full)
        };
        match stop {
            None => Ok(()),
            Some(s) => {
                self.stopped.set(Some(s));
                Err(io::Error::other(match s {
                    Stop::Full(_) => "the export's temporary space is full",
                    Stop::Cancelled => "the export was cancelled",
                }))
            }
        }
    }

    /// The typed error for `e` when writing stopped on a limit or a cancellation.
    fn error(&self, e: ExportError) -> ExportError {
        match self.stopped.get() {
            Some(Stop::Full(limit)) => ExportError::ScratchFull { limit },
            Some(Stop::Cancelled) => ExportError::Cancelled,
            None => e,
        }
    }
}

/// A file of the scratch folder, its writes counted by a [`Budget`].
struct Counted<'a, W> {
    inner: W,
    budget: &'a Budget<'a>,
}

impl<W: Write> Write for Counted<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.budget.take(buf.len())?;
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Seek> Seek for Counted<'_, W> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

/// A new file of the scratch folder.
fn create<'a>(path: &Path, budget: &'a Budget<'a>) -> io::Result<Counted<'a, File>> {
    Ok(Counted {
        inner: File::create(path)?,
        budget,
    })
}

/// Writes the WACZ export of every version `selection` matches that its viewer may
/// see, packed in `scratch` (see [`WaczScratch`]).
pub fn export_wacz(
    index: &SearchIndex,
    selection: &Selection,
    source: &CaptureSource<'_>,
    scratch: &WaczScratch<'_>,
    out: &mut dyn Write,
    progress: &dyn Progress,
) -> Result<WarcReport, ExportError> {
    // The folders of killed runs first: nothing else would ever remove them.
    crate::output::remove_stale(scratch.dir);
    let dir = tempfile::Builder::new()
        .prefix(&format!("{}wacz-", crate::output::own_prefix()))
        .tempdir_in(scratch.dir)?;
    let budget = Budget {
        scratch,
        used: Cell::new(0),
        stopped: Cell::new(None),
    };
    let packing = Packing {
        dir: dir.path(),
        budget: &budget,
    };
    pack(index, selection, source, &packing, out, progress).map_err(|e| budget.error(e))
}

/// Where [`export_wacz`] packs: its folder and the budget of its writes.
struct Packing<'a> {
    dir: &'a Path,
    budget: &'a Budget<'a>,
}

/// [`export_wacz`] in the folder of `packing`.
fn pack(
    index: &SearchIndex,
    selection: &Selection,
    source: &CaptureSource<'_>,
    packing: &Packing<'_>,
    out: &mut dyn Write,
    progress: &dyn Progress,
) -> Result<WarcReport, ExportError> {
    let Packing { dir, budget } = *packing;
    let warc_path = dir.join(WARC_NAME);
    let pages_path = dir.join("pages.jsonl");
    let report = {
        let mut warc = BufWriter::new(create(&warc_path, budget)?);
        let mut pages = BufWriter::new(create(&pages_path, budget)?);
        pages.write_all(
            b"{\"format\":\"json-pages-1.0\",\"id\":\"pages\",\"title\":\"All Pages\",\"hasText\":true}\n",
        )?;
        let sink = WarcSink {
            filename: WARC_NAME,
            out: &mut warc,
            with_text: true,
            on_version: &mut |v| write_page(v, &mut pages),
        };
        let report = write_warc(index, selection, source, sink, progress)?;
        warc.into_inner()
            .map_err(|e| e.into_error())?
            .inner
            .sync_all()?;
        pages.flush()?;
        report
    };
    let index_path = dir.join("index.cdx");
    write_index(&warc_path, &index_path, dir, budget)?;
    let zip_path = dir.join("export.wacz");
    write_package(
        &zip_path,
        &[
            (
                "archive/data.warc.gz",
                &warc_path,
                CompressionMethod::Stored,
            ),
            (
                "indexes/index.cdx",
                &index_path,
                CompressionMethod::Deflated,
            ),
            (
                "pages/pages.jsonl",
                &pages_path,
                CompressionMethod::Deflated,
            ),
        ],
        &selection.text,
        budget,
    )?;
    io::copy(&mut File::open(&zip_path)?, out)?;
    Ok(report)
}

/// A version of an HTML page as an entry of `pages.jsonl` (its first date shown), with
/// its indexed text (for a page built by script, the words the crawler recorded after
/// it ran), which ReplayWeb.page searches, as py-wacz `--text` and Browsertrix Crawler
/// `--text to-pages` write it.
fn write_page(v: &MatchedVersion, pages: &mut dyn Write) -> io::Result<()> {
    let html = matches!(v.mime.as_str(), "text/html" | "application/xhtml+xml");
    let Some(first) = v.dates.first().filter(|_| html) else {
        return Ok(());
    };
    let mut page = serde_json::Map::new();
    page.insert(
        "id".into(),
        name_uuid(&format!("{} {}", v.url, v.digest)).into(),
    );
    page.insert("url".into(), v.url.clone().into());
    page.insert(
        "ts".into(),
        crate::reader::date::arc_date_to_iso(first).into(),
    );
    if !v.title.is_empty() {
        page.insert("title".into(), v.title.clone().into());
    }
    if !v.text.is_empty() {
        page.insert("text".into(), v.text.clone().into());
    }
    serde_json::to_writer(&mut *pages, &page)?;
    pages.write_all(b"\n")
}

/// Indexes the exported WARC as CDXJ (the lines `warcdex cdx -j` writes), sorted.
fn write_index(warc: &Path, to: &Path, tmp: &Path, budget: &Budget<'_>) -> Result<(), ExportError> {
    let mut sorter = ExternalSorter::new(SortOptions {
        memory: 32 << 20,
        tmp_dir: Some(tmp.to_path_buf()),
        unique: false,
    });
    let mut reader = ArchiveReader::open(warc).map_err(io::Error::other)?;
    let opts = CdxOptions {
        format: CdxFormat::Cdxj,
        ..CdxOptions::default()
    };
    let mut line = Vec::new();
    let report = index_archive(
        &mut reader,
        WARC_NAME,
        &opts,
        &mut |l, _| {
            line.clear();
            l.write(CdxFormat::Cdxj, &mut line);
            while line.last() == Some(&b'\n') {
                line.pop();
            }
            // The sorter's runs go to the scratch folder too: counted by the line.
            budget.take(line.len() + 1)?;
            sorter.push(&line)
        },
        &mut |_| {},
        &mut |_| {},
    )?;
    if let Some(e) = report.error {
        return Err(io::Error::other(format!("indexing the exported WARC: {e}")).into());
    }
    let mut out = BufWriter::new(create(to, budget)?);
    sorter.finish_with(|l| {
        out.write_all(l)?;
        out.write_all(b"\n")
    })?;
    out.into_inner()
        .map_err(|e| e.into_error())?
        .inner
        .sync_all()?;
    Ok(())
}

/// The SHA-256 (`sha256:` + hex) and size of a file.
fn sha256_of(path: &Path) -> io::Result<(String, u64)> {
    let mut f = File::open(path)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut n = 0u64;
    loop {
        let got = f.read(&mut buf)?;
        if got == 0 {
            break;
        }
        h.update(&buf[..got]);
        n += got as u64;
    }
    Ok((
        format!("sha256:{}", data_encoding::HEXLOWER.encode(&h.finalize())),
        n,
    ))
}

/// Zips `parts` (name in the package, file, compression) with `datapackage.json` and
/// `datapackage-digest.json` into `to`.
fn write_package(
    to: &Path,
    parts: &[(&str, &Path, CompressionMethod)],
    query: &str,
    budget: &Budget<'_>,
) -> Result<(), ExportError> {
    let zip_err = |e: zip::result::ZipError| io::Error::other(e.to_string());
    let mut zip = zip::ZipWriter::new(BufWriter::new(create(to, budget)?));
    let mut resources = Vec::new();
    for (name, path, method) in parts {
        let (hash, bytes) = sha256_of(path)?;
        let options = SimpleFileOptions::default()
            .compression_method(*method)
            .large_file(bytes >= u32::MAX as u64 / 2);
        zip.start_file(*name, options).map_err(zip_err)?;
        io::copy(&mut File::open(path)?, &mut zip)?;
        let base = name.rsplit('/').next().unwrap_or(name);
        resources.push(serde_json::json!({
            "name": base.to_ascii_lowercase(),
            "path": name,
            "hash": hash,
            "bytes": bytes,
        }));
    }
    let created = warcdex_cdx::date::Date14::now().iso();
    let package = serde_json::json!({
        "profile": "data-package",
        "resources": resources,
        "title": format!("warcdex export: {query}"),
        "created": created,
        "wacz_version": "1.1.1",
        "software": format!("warcdex {}", env!("CARGO_PKG_VERSION")),
    });
    let package = serde_json::to_vec_pretty(&package).map_err(io::Error::other)?;
    let deflated = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    zip.start_file("datapackage.json", deflated)
        .map_err(zip_err)?;
    zip.write_all(&package)?;
    let digest = serde_json::json!({
        "path": "datapackage.json",
        "hash": format!("sha256:{}", data_encoding::HEXLOWER.encode(&Sha256::digest(&package))),
    });
    zip.start_file("datapackage-digest.json", deflated)
        .map_err(zip_err)?;
    zip.write_all(&serde_json::to_vec_pretty(&digest).map_err(io::Error::other)?)?;
    let inner = zip.finish().map_err(zip_err)?;
    inner
        .into_inner()
        .map_err(|e| e.into_error())?
        .inner
        .sync_all()?;
    Ok(())
}
