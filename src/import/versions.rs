//! The versions an import has seen, in memory that does not grow with them: every
//! capture's date and every parsed row go to one external sort (`--memory`), and the
//! versions are assembled from it, in (URL key, digest) order, while the segment is
//! written. Only a small cache of recently seen versions stays in memory.
//!
//! The sort holds three kinds of line, keyed by the version and the capture's order
//! (date, archive, offset), so that a version's lines come back together, earliest
//! capture first:
//! - `D`: a capture of the version was admitted (its date counts);
//! - `R`: the parsed row of a capture that was the version's earliest when it was read;
//! - `W`: an admitted capture was withdrawn (its record turned out to be lost);
//! - `T`: a rendered text joined to one of the version's captures (src/import/rendered.rs),
//!   its source's number and the text, keyed by the text record's order.
//!
//! A row travels packed: the thread that parsed it encodes it (postcard, then zstd level
//! 1, then base64, since a sort line cannot hold a newline) outside every lock, so the
//! sort holds about a fifth of the bytes that the row's JSON took. Rows were nine tenths
//! of the sort: at 1,000,000 versions, 8.6 GB of JSON went through runs on disk under
//! the sort's lock, and decoding the JSON was a sixth of writing the segment
//! (scripts/bench-scale.sh, measured with perf).
//!
//! The version's row is the `R` of its earliest capture. A capture is parsed when it is
//! earlier than every capture of its version the cache remembers, so the earliest one is
//! always parsed; a version that fell out of the cache may have a later capture parsed
//! again, which costs time, never a wrong row.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::Mutex;

use data_encoding::{BASE64, HEXLOWER};
use warcdex_cdx::rendered::TextSource;
use warcdex_cdx::sort::{ExternalSorter, SortOptions};

use crate::segment::SegmentRow;

/// Where a capture sits in the import: (date, archive index, part, offset); the part
/// is the WARC's place in a WACZ (0 for a file of its own). The earliest capture of a
/// version gives the version its metadata and content.
pub(super) type Order = (String, usize, usize, u64);

/// A version: (URL key, digest).
pub(super) type VersionKey = (String, String);

/// Bytes a remembered version costs the cache, counted roughly (keys, order, map slot).
const CACHE_ENTRY_BYTES: usize = 256;

/// The earliest capture seen of recently seen versions, in two generations: when the
/// current one is full it becomes the previous one, and the previous one is dropped.
struct Recent {
    current: HashMap<VersionKey, Order>,
    previous: HashMap<VersionKey, Order>,
    capacity: usize,
}

impl Recent {
    fn best(&self, key: &VersionKey) -> Option<&Order> {
        self.current.get(key).or_else(|| self.previous.get(key))
    }

    fn remember(&mut self, key: &VersionKey, order: &Order) {
        if self.current.len() >= self.capacity && !self.current.contains_key(key) {
            self.previous = std::mem::take(&mut self.current);
        }
        self.current.insert(key.clone(), order.clone());
    }
}

/// zstd level of a row in the sort: level 1 packs a row about four times at some
/// 450 MB/s a core; higher levels cost more time than the bytes they save.
const ROW_LEVEL: i32 = 1;

thread_local! {
    /// Each parsing thread's compressor (a zstd context is costly to make).
    static COMPRESSOR: RefCell<Option<zstd::bulk::Compressor<'static>>> =
        const { RefCell::new(None) };
}

/// A row as its `R` line holds it: `LENGTH:BASE64(ZSTD(POSTCARD))`, where `LENGTH` is
/// the postcard encoding's, and postcard encodes the row without its main text and then
/// the main text as a [`PackedMain`].
fn pack_row(mut row: SegmentRow) -> io::Result<Vec<u8>> {
    let main = PackedMain::of(&row.text, row.main_text.take());
    let encoded = postcard::to_stdvec(&(&row, &main)).map_err(io::Error::other)?;
    let packed = COMPRESSOR.with(|c| -> io::Result<Vec<u8>> {
        let mut c = c.borrow_mut();
        if c.is_none() {
            *c = Some(zstd::bulk::Compressor::new(ROW_LEVEL)?);
        }
        c.as_mut().expect("made above").compress(&encoded)
    })?;
    let mut out = format!("{}:", encoded.len()).into_bytes();
    let start = out.len();
    out.resize(start + BASE64.encode_len(packed.len()), 0);
    BASE64.encode_mut(&packed, &mut out[start..]);
    Ok(out)
}

/// Reads back a row written by [`pack_row`].
fn unpack_row(
    packed: &[u8],
    decompressor: &mut zstd::bulk::Decompressor<'static>,
) -> io::Result<SegmentRow> {
    let colon = memchr::memchr(b':', packed).ok_or_else(corrupt)?;
    let encoded_len: usize = std::str::from_utf8(&packed[..colon])
        .ok()
        .and_then(|n| n.parse().ok())
        .ok_or_else(corrupt)?;
    let zst = BASE64.decode(&packed[colon + 1..]).map_err(|_| corrupt())?;
    let encoded = decompressor.decompress(&zst, encoded_len)?;
    if encoded.len() != encoded_len {
        return Err(corrupt());
    }
    let (mut row, main): (SegmentRow, PackedMain) =
        postcard::from_bytes(&encoded).map_err(io::Error::other)?;
    row.main_text = main.unpack(&row.text)?;
    Ok(row)
}

/// Bytes a piece of the main text is looked for by in the text: its start, up to its
/// first space.
const PROBE_BYTES: usize = 16;

/// A row's main text in the sort: mostly pieces of the row's text, since a page's main
/// content is its text without the blocks of chrome. Kept as the pieces' places in the
/// text, a row is some third smaller, which is that much less for zstd to pack (a
/// tenth of an import's time, scripts/bench-import.sh with perf) and for the sort to
/// hold.
#[derive(serde::Serialize, serde::Deserialize)]
enum PackedMain {
    /// The row has no main text (not markup).
    None,
    /// Pieces of the text, `(start, length)` in bytes, to be joined.
    Pieces(Vec<(u32, u32)>),
    /// The main text itself, when it is not made of a few pieces of the text.
    Text(String),
}

impl PackedMain {
    fn of(text: &str, main: Option<String>) -> PackedMain {
        match main {
            None => PackedMain::None,
            Some(main) => match pieces_of(text.as_bytes(), main.as_bytes()) {
                Some(pieces) => PackedMain::Pieces(pieces),
                None => PackedMain::Text(main),
            },
        }
    }

    fn unpack(self, text: &str) -> io::Result<Option<String>> {
        Ok(match self {
            PackedMain::None => None,
            PackedMain::Text(main) => Some(main),
            PackedMain::Pieces(pieces) => {
                let mut main = Vec::with_capacity(pieces.iter().map(|p| p.1 as usize).sum());
                for (start, len) in pieces {
                    let (start, len) = (start as usize, len as usize);
                    let piece = text
                        .as_bytes()
                        .get(start..start + len)
                        .ok_or_else(corrupt)?;
                    main.extend_from_slice(piece);
                }
                // Pieces may end inside a character; together they are the text that
                // was packed, which was UTF-8.
                Some(String::from_utf8(main).map_err(|_| corrupt())?)
            }
        })
    }
}

/// `main` as pieces of `text`, in order: each piece is found by its start and taken as
/// far as it matches. `None` when a piece is not found, or when the pieces would take
/// more room than `main` itself.
fn pieces_of(text: &[u8], main: &[u8]) -> Option<Vec<(u32, u32)>> {
    if text.len() > u32::MAX as usize {
        return None;
    }
    let mut pieces = Vec::new();
    let (mut at_text, mut at_main) = (0, 0);
    while at_main < main.len() {
        let rest = &main[at_main..];
        let probe_len = memchr::memchr(b' ', &rest[1.min(rest.len())..])
            .map_or(rest.len(), |space| space + 1)
            .min(PROBE_BYTES);
        let found = at_text + memchr::memmem::find(&text[at_text..], &rest[..probe_len])?;
        let same = text[found..]
            .iter()
            .zip(rest)
            .take_while(|(a, b)| a == b)
            .count();
        pieces.push((found as u32, same as u32));
        // Two varints of up to five bytes each.
        if pieces.len() * 10 > main.len() {
            return None;
        }
        at_main += same;
        at_text = found + same;
    }
    Some(pieces)
}

/// The sort, and the first error writing to it.
struct Spill {
    sorter: ExternalSorter,
    line: Vec<u8>,
    error: Option<io::Error>,
}

/// See the module documentation.
pub(super) struct Versions {
    recent: Mutex<Recent>,
    spill: Mutex<Spill>,
}

impl Versions {
    /// No version yet. `sort` bounds the external sort; a quarter of its memory goes to
    /// the cache of recent versions instead.
    pub(super) fn new(sort: SortOptions) -> Self {
        let cache = sort.memory / 4;
        Versions {
            recent: Mutex::new(Recent {
                current: HashMap::new(),
                previous: HashMap::new(),
                // Two generations share the cache's bytes.
                capacity: (cache / CACHE_ENTRY_BYTES / 2).max(1),
            }),
            spill: Mutex::new(Spill {
                sorter: ExternalSorter::new(SortOptions {
                    memory: (sort.memory - cache).max(1),
                    unique: false,
                    ..sort
                }),
                line: Vec::new(),
                error: None,
            }),
        }
    }

    /// Records a capture's date; true when it is earlier than every capture of its
    /// version remembered (so it must be parsed and offered).
    pub(super) fn claim(&self, key: &VersionKey, order: &Order) -> bool {
        self.push(key, order, Kind::Date, None);
        let mut recent = self.recent.lock().expect("versions lock");
        if recent.best(key).is_some_and(|best| best <= order) {
            return false;
        }
        recent.remember(key, order);
        true
    }

    /// Takes back a claimed capture whose record turned out to be lost (a damaged gzip
    /// member found after its header): its date goes, and so does a version that has
    /// no other capture.
    /// A rendered text of one of the version's captures: the version's text when its
    /// source is the richest the version has (the earliest of equals).
    pub(super) fn offer_text(
        &self,
        key: &VersionKey,
        order: &Order,
        source: TextSource,
        text: &str,
    ) {
        let mut packed = vec![b'0' + source as u8];
        let start = packed.len();
        packed.resize(start + BASE64.encode_len(text.len()), 0);
        BASE64.encode_mut(text.as_bytes(), &mut packed[start..]);
        self.push(key, order, Kind::Text, Some(&packed));
    }

    pub(super) fn withdraw(&self, key: &VersionKey, order: &Order) {
        self.push(key, order, Kind::Withdrawn, None);
    }

    /// Sends a parsed row to the sort unless an earlier capture of the version is
    /// already known (a row that is not the earliest is dropped when read back).
    pub(super) fn offer(&self, key: &VersionKey, order: &Order, row: SegmentRow) {
        let superseded = self
            .recent
            .lock()
            .expect("versions lock")
            .best(key)
            .is_some_and(|best| best < order);
        if superseded {
            return;
        }
        // Packed here, in the parsing thread, outside the sort's lock.
        match pack_row(row) {
            Ok(packed) => self.push(key, order, Kind::Row, Some(&packed)),
            Err(e) => {
                let mut spill = self.spill.lock().expect("spill lock");
                spill.error.get_or_insert(e);
            }
        }
    }

    fn push(&self, key: &VersionKey, order: &Order, kind: Kind, row: Option<&[u8]>) {
        let mut spill = self.spill.lock().expect("spill lock");
        let Spill {
            sorter,
            line,
            error,
        } = &mut *spill;
        if error.is_some() {
            return;
        }
        line.clear();
        push_key(line, key, order);
        line.push(kind as u8);
        if let Some(row) = row {
            line.extend_from_slice(row);
        }
        if let Err(e) = sorter.push(line) {
            *error = Some(e);
        }
    }

    /// Calls `f` with each version's row in (URL key, digest) order, with every date of
    /// the version, sorted and unique; a version whose earliest capture has no row (its
    /// record ended early) is left out. Returns the number of rows.
    pub(super) fn into_rows(
        self,
        mut f: impl FnMut(SegmentRow) -> io::Result<()>,
    ) -> io::Result<u64> {
        let spill = self.spill.into_inner().expect("spill lock");
        if let Some(e) = spill.error {
            return Err(e);
        }
        let mut assembly = Assembly::default();
        let mut decompressor = zstd::bulk::Decompressor::new()?;
        let mut rows = 0u64;
        spill.sorter.finish_with(|line| {
            let (version, capture, kind, packed) = split_line(line)?;
            if version != assembly.version.as_slice() {
                if let Some(row) = assembly.finish_version(&mut decompressor)? {
                    rows += 1;
                    f(row)?;
                }
                assembly.version.extend_from_slice(version);
            }
            if capture != assembly.capture.as_slice() {
                assembly.finish_capture()?;
                assembly.capture.extend_from_slice(capture);
            }
            match kind {
                b'D' => assembly.admitted = true,
                b'R' => assembly.row = Some(packed.to_vec()),
                b'W' => assembly.withdrawn = true,
                b'T' => assembly.offer_text(packed)?,
                _ => return Err(corrupt()),
            }
            Ok(())
        })?;
        if let Some(row) = assembly.finish_version(&mut decompressor)? {
            rows += 1;
            f(row)?;
        }
        Ok(rows)
    }
}

#[derive(Clone, Copy)]
#[repr(u8)]
enum Kind {
    Date = b'D',
    Row = b'R',
    Withdrawn = b'W',
    Text = b'T',
}

/// One version being put together from its sorted lines: its dates so far, the row of
/// its earliest capture, and the capture being read.
#[derive(Default)]
struct Assembly {
    version: Vec<u8>,
    dates: Vec<String>,
    /// The earliest capture's row (packed), once that capture is known.
    earliest: Option<Option<Vec<u8>>>,
    capture: Vec<u8>,
    admitted: bool,
    withdrawn: bool,
    row: Option<Vec<u8>>,
    /// The richest rendered text of the version so far, still packed.
    text: Option<(TextSource, Vec<u8>)>,
}

impl Assembly {
    fn offer_text(&mut self, packed: &[u8]) -> io::Result<()> {
        let (&first, rest) = packed.split_first().ok_or_else(corrupt)?;
        let source = TextSource::from_byte(first.wrapping_sub(b'0')).ok_or_else(corrupt)?;
        if self.text.as_ref().is_none_or(|(best, _)| source > *best) {
            self.text = Some((source, rest.to_vec()));
        }
        Ok(())
    }

    /// Ends the capture being read: its date counts unless it was withdrawn, and the
    /// first capture that counts is the version's earliest.
    fn finish_capture(&mut self) -> io::Result<()> {
        if self.admitted && !self.withdrawn {
            let date_hex = self.capture.split(|&b| b == 2).next().unwrap_or(&[]);
            let date = HEXLOWER.decode(date_hex).map_err(|_| corrupt())?;
            self.dates
                .push(String::from_utf8(date).map_err(|_| corrupt())?);
            if self.earliest.is_none() {
                self.earliest = Some(self.row.take());
            }
        }
        self.capture.clear();
        self.admitted = false;
        self.withdrawn = false;
        self.row = None;
        Ok(())
    }

    /// Ends the version being read: its row, with every date, unless it has none.
    fn finish_version(
        &mut self,
        decompressor: &mut zstd::bulk::Decompressor<'static>,
    ) -> io::Result<Option<SegmentRow>> {
        self.finish_capture()?;
        let earliest = self.earliest.take().flatten();
        let mut dates = std::mem::take(&mut self.dates);
        let text = self.text.take();
        self.version.clear();
        let Some(packed) = earliest else {
            return Ok(None);
        };
        let mut row = unpack_row(&packed, decompressor)?;
        dates.sort();
        dates.dedup();
        row.dates = dates;
        if let Some((source, text)) = text {
            let text = BASE64.decode(&text).map_err(|_| corrupt())?;
            let text = String::from_utf8(text).map_err(|_| corrupt())?;
            rendered_into(&mut row, source, text);
        }
        Ok(Some(row))
    }
}

/// `HEX(URLKEY) \x01 HEX(DIGEST) \x01 HEX(DATE) \x02 ARCHIVE \x02 PART \x02 OFFSET \x01`, then the
/// kind and, for a row, the row packed by [`pack_row`]. Hex keeps the byte order of the values (so versions
/// come back in the order of their raw keys, as a sort of the keys themselves would give)
/// and cannot hold a separator.
/// A version's rendered text becomes its text and main text (the page's words, which
/// its HTML shell did not hold), and its language is told from it.
fn rendered_into(row: &mut SegmentRow, source: TextSource, text: String) {
    row.lang = crate::extract::language::detect(&text).map(str::to_string);
    row.main_text = Some(text.clone());
    row.text = text;
    row.text_source = Some(source.name().to_string());
}

fn push_key(line: &mut Vec<u8>, key: &VersionKey, order: &Order) {
    // Written in place: this runs for every capture of the import.
    push_hex(line, key.0.as_bytes());
    line.push(1);
    push_hex(line, key.1.as_bytes());
    line.push(1);
    push_hex(line, order.0.as_bytes());
    write!(
        line,
        "\x02{:020}\x02{:020}\x02{:020}",
        order.1, order.2, order.3
    )
    .expect("writing to a Vec");
    line.push(1);
}

/// Appends `bytes` in lowercase hex.
fn push_hex(line: &mut Vec<u8>, bytes: &[u8]) {
    let start = line.len();
    line.resize(start + HEXLOWER.encode_len(bytes.len()), 0);
    HEXLOWER.encode_mut(bytes, &mut line[start..]);
}

/// A sort line's parts: the version (both keys), the capture (its order), the kind and,
/// for a row, the packed row.
type LineParts<'a> = (&'a [u8], &'a [u8], u8, &'a [u8]);

/// Splits a sort line into its [`LineParts`].
fn split_line(line: &[u8]) -> io::Result<LineParts<'_>> {
    let mut seps = memchr::memchr_iter(1, line);
    let (Some(_), Some(version_end), Some(capture_end)) = (seps.next(), seps.next(), seps.next())
    else {
        return Err(corrupt());
    };
    let kind = *line.get(capture_end + 1).ok_or_else(corrupt)?;
    Ok((
        &line[..version_end],
        &line[version_end + 1..capture_end],
        kind,
        &line[capture_end + 2..],
    ))
}

fn corrupt() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, "corrupt version sort line")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(date: &str, offset: u64) -> Order {
        (date.into(), 0, 0, offset)
    }

    fn row(date: &str, title: &str) -> SegmentRow {
        SegmentRow {
            urlkey: "org,example)/".into(),
            digest: "sha1:A".into(),
            first_date: date.into(),
            title: Some(title.into()),
            ..SegmentRow::default()
        }
    }

    fn rows_of(v: Versions) -> Vec<SegmentRow> {
        let mut out = Vec::new();
        v.into_rows(|r| {
            out.push(r);
            Ok(())
        })
        .unwrap();
        out
    }

    /// An earlier capture read after a later one replaces its row; a withdrawn capture's
    /// date goes; a cache of one version (so every other version is forgotten) changes
    /// nothing but the parsing.
    #[test]
    fn earliest_capture_wins_withdrawn_dates_go_and_a_tiny_cache_is_still_right() {
        for memory in [1 << 20, 1] {
            let v = Versions::new(SortOptions {
                memory,
                tmp_dir: None,
                unique: false,
            });
            let key: VersionKey = ("org,example)/".into(), "sha1:A".into());
            let other: VersionKey = ("org,other)/".into(), "sha1:B".into());
            assert!(v.claim(&key, &order("20200102000000", 1)));
            v.offer(
                &key,
                &order("20200102000000", 1),
                row("20200102000000", "late"),
            );
            assert!(v.claim(&other, &order("20200101000000", 9)));
            assert!(v.claim(&key, &order("20200101000000", 2)));
            v.offer(
                &key,
                &order("20200101000000", 2),
                row("20200101000000", "early"),
            );
            v.claim(&key, &order("20200103000000", 3));
            v.claim(&key, &order("20200104000000", 4));
            v.withdraw(&key, &order("20200104000000", 4));
            let rows = rows_of(v);
            assert_eq!(rows.len(), 1, "the other version has no row");
            assert_eq!(rows[0].title.as_deref(), Some("early"));
            assert_eq!(
                rows[0].dates,
                ["20200101000000", "20200102000000", "20200103000000"]
            );
        }
    }

    /// A row's main text comes back from the sort exactly as it went in, whether it
    /// travels as pieces of the text (chrome cut out, a piece ending inside a
    /// character) or as itself (not found in the text, or too many small pieces).
    #[test]
    fn main_text_travels_as_pieces_of_the_text_and_comes_back_whole() {
        let text = "Home | About Name ANALYZE — collect statistics é Next Prev Footer text è";
        let cases = [
            (Some("Name ANALYZE — collect statistics é"), true),
            (
                Some("Home Name ANALYZE — collect statistics é Footer text"),
                true,
            ),
            (Some("collect statistics è"), true),
            (Some(text), true),
            (Some("words that the text does not have at all"), false),
            (Some("a b"), false),
            (Some(""), true),
            (None, false),
        ];
        let mut decompressor = zstd::bulk::Decompressor::new().unwrap();
        for (main, as_pieces) in cases {
            let packed = PackedMain::of(text, main.map(str::to_string));
            assert_eq!(
                matches!(packed, PackedMain::Pieces(_)),
                as_pieces,
                "{main:?}"
            );
            let row = SegmentRow {
                text: text.into(),
                main_text: main.map(str::to_string),
                ..row("20200101000000", "t")
            };
            let back = unpack_row(&pack_row(row.clone()).unwrap(), &mut decompressor).unwrap();
            assert_eq!(back, row);
        }
        // Pieces that point outside the text are refused, not read.
        let bad = PackedMain::Pieces(vec![(60, 40)]);
        assert_eq!(
            bad.unpack(text).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
    }
}
