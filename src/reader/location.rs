//! Where an archive's bytes are: a whole file, or a WARC inside a WACZ. A CDX line names
//! the archive (the WARC's own name, for one inside a WACZ) and gives offsets in the
//! archive's own bytes; a location turns those into reads of the file that holds them.
//! A WARC stored in its WACZ (as WACZ writers store them) is read in place, at the
//! entry's first byte plus the offset; a deflated one is inflated from its start.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::span::member_probe;
use super::stream::Stream;
use super::wacz::WaczEntry;
use super::{ArchiveReader, Error, Input, ReaderOptions, Result};

/// The file that holds an archive, and where in it the archive is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchiveLocation {
    file: PathBuf,
    part: Option<WaczEntry>,
}

impl ArchiveLocation {
    /// An archive that is the whole of `file`.
    pub fn file(file: &Path) -> ArchiveLocation {
        ArchiveLocation {
            file: file.to_path_buf(),
            part: None,
        }
    }

    /// The WARC `entry` of the WACZ `wacz`.
    pub fn in_wacz(wacz: &Path, entry: WaczEntry) -> ArchiveLocation {
        ArchiveLocation {
            file: wacz.to_path_buf(),
            part: Some(entry),
        }
    }

    /// The file that holds the archive (the WACZ, for a WARC inside one).
    pub fn path(&self) -> &Path {
        &self.file
    }

    /// The WARC's path in its WACZ (`archive/data.warc.gz`); `None` for a whole file.
    pub fn entry_name(&self) -> Option<&str> {
        self.part.as_ref().map(|e| e.name.as_str())
    }

    /// How messages name the archive: the file, or `WACZ#archive/NAME`.
    pub fn display(&self) -> PathBuf {
        match &self.part {
            Some(e) => PathBuf::from(format!("{}#{}", self.file.display(), e.name)),
            None => self.file.clone(),
        }
    }

    /// Where the archive's bytes lie in [`ArchiveLocation::path`] when they can be read
    /// there as they are: `(first byte, length)` for a WARC stored in a WACZ, `(0, None)`
    /// for a whole file (its length is the file's); `None` for a deflated entry.
    pub fn in_place(&self) -> Option<(u64, Option<u64>)> {
        match &self.part {
            None => Some((0, None)),
            Some(e) if e.stored => Some((e.data_start, Some(e.size))),
            Some(_) => None,
        }
    }

    /// The `len` bytes of the archive from its offset `offset`.
    pub fn read_range(&self, offset: u64, len: u64) -> io::Result<Input> {
        let in_place = |base: u64, len: u64| -> io::Result<Input> {
            let mut f = File::open(&self.file)?;
            f.seek(SeekFrom::Start(base + offset))?;
            Ok(Box::new(f.take(len)))
        };
        match &self.part {
            None => in_place(0, len),
            Some(e) if e.stored => in_place(e.data_start, len.min(e.size.saturating_sub(offset))),
            Some(e) => {
                let wacz = super::wacz::Wacz::open(&self.file).map_err(io::Error::other)?;
                let mut r = wacz.open_entry(e)?;
                let skipped = io::copy(&mut (&mut r).take(offset), &mut io::sink())?;
                if skipped < offset {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        format!("{} ends before offset {offset}", self.display().display()),
                    ));
                }
                Ok(Box::new(r.take(len)))
            }
        }
    }

    /// A reader of the `len` bytes from the archive's offset `start` (a record's
    /// member), offsets and lengths the archive's own, as if read from its start.
    pub fn open_range(
        &self,
        start: u64,
        len: u64,
        opts: ReaderOptions,
    ) -> Result<ArchiveReader<Input>> {
        let name = self.display();
        let input = self
            .read_range(start, len)
            .map_err(|e| Error::from(e).with_path(&name))?;
        let s = Stream::new_at(input, opts.buffer_size, start).map_err(|e| e.with_path(&name))?;
        let mut r = ArchiveReader::with_stream(s, opts);
        // The piece starts at a record found by reading the archive from its start.
        r.start_checked = true;
        r.path = Some(name);
        r.probe = self
            .in_place()
            .map(|(base, _)| member_probe(self.file.clone(), base, r.s.codec()));
        Ok(r)
    }
}
