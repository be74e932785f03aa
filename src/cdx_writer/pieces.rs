//! One gzip WARC cut into pieces at record starts, so that several threads index a
//! single file (`cdx -j N`).
//!
//! A gzip member has no length field, so where a record starts is found by looking:
//! from each cut's target offset, the next gzip member header whose data begin with
//! `WARC/`. That guess is then proven by the reading itself (`run.rs`): a piece that
//! reads cleanly — every record whole, no anomaly, no error — ends exactly where the next
//! piece starts, at a member the whole-file reader would also start a record with. A
//! piece that does not is indexed again, with the rest of the file, by one reader from
//! its start, so the output is always the one-thread output.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

/// Pieces are at least this long by default. A piece costs a scan and one more reader
/// (about a millisecond); half a MiB is about 4 ms of indexing, so the cost is repaid,
/// and the last pieces are small, so the threads finish within a few milliseconds of
/// each other. Measured (the 218 MB bench file, `cdx -j 2`, 7 alternated runs,
/// medians): 0.9998 s with 4 MiB (the last piece, up to twice the minimum, ran alone
/// for tens of milliseconds), 0.9801 s with 512 KiB, 0.9770 s with 256 KiB; one thread
/// 1.886 s.
pub const MIN_PIECE: u64 = 512 << 10;

/// At most this many pieces per file: each one's output waits, in memory up to 4 MiB
/// and then in a temporary file, until the pieces before it are written.
const MAX_PIECES: u64 = 256;

/// How far past a cut's target offset a record's member is looked for.
const SCAN_LIMIT: u64 = 8 << 20;

/// The bytes read at a time while looking; a member header found in the last
/// `TAIL` bytes of a read is looked at again from the next read.
const SCAN_READ: usize = 256 << 10;
const TAIL: usize = 64 << 10;

/// One piece of a file: the stored bytes `start..end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Piece {
    /// Offset of the piece's first member.
    pub start: u64,
    /// Offset just past its last byte (the next piece's start, or the file's size).
    pub end: u64,
}

/// Cuts the gzip WARC at `path` (of `size` bytes), for `threads` threads, into pieces
/// of at least `min_piece` bytes that each start at a member holding a record's start.
/// The pieces shrink along the file (each about the rest over twice the threads), so
/// that the threads, taking them in order, finish within a small piece of each other
/// while large files still get few pieces. A file that is not a gzip WARC, or too small
/// to be cut, is one piece.
pub(crate) fn plan(path: &Path, size: u64, threads: u64, min_piece: u64) -> io::Result<Vec<Piece>> {
    let whole = vec![Piece {
        start: 0,
        end: size,
    }];
    let min_piece = min_piece.max(1);
    if threads < 2 || size < 2 * min_piece {
        return Ok(whole);
    }
    let mut f = File::open(path)?;
    let mut buf = vec![0u8; SCAN_READ];
    // Only gzip WARCs: an ARC's records depend on its first (version) record.
    if record_member_in(&mut f, 0, &mut buf, 1)? != Some(0) {
        return Ok(whole);
    }
    let mut starts = vec![0u64];
    let mut at = 0u64;
    while starts.len() < MAX_PIECES as usize {
        let rest = size - at;
        let len = (rest / (2 * threads)).max(min_piece);
        if rest < len + min_piece {
            break;
        }
        match record_member_in(&mut f, at + len, &mut buf, SCAN_LIMIT)? {
            Some(next) if next > at && next < size => {
                starts.push(next);
                at = next;
            }
            // No record start near: the rest is one piece.
            _ => break,
        }
    }
    let ends = starts.iter().skip(1).copied().chain([size]);
    Ok(starts
        .iter()
        .zip(ends)
        .map(|(&start, end)| Piece { start, end })
        .collect())
}

/// The offset of the first gzip member at or after `from` (within `limit` bytes) whose
/// data begin with `WARC/`.
fn record_member_in(
    f: &mut File,
    from: u64,
    buf: &mut [u8],
    limit: u64,
) -> io::Result<Option<u64>> {
    let mut at = from;
    while at < from + limit {
        f.seek(SeekFrom::Start(at))?;
        let n = read_full(f, buf)?;
        let data = &buf[..n];
        let last_read = n < buf.len();
        // Headers in the tail are looked at from the next read, where the member's
        // start has more bytes after it (unless this is the end of the file).
        let scan_end = if last_read { n } else { n - TAIL };
        let mut i = 0;
        while let Some(j) = memchr::memchr(0x1f, &data[i..scan_end]) {
            let c = i + j;
            if at + (c as u64) >= from + limit {
                return Ok(None);
            }
            if starts_record(&data[c..]) {
                return Ok(Some(at + c as u64));
            }
            i = c + 1;
        }
        if last_read {
            return Ok(None);
        }
        at += scan_end as u64;
    }
    Ok(None)
}

/// True when `b` starts with a gzip member whose first five bytes of data are `WARC/`.
fn starts_record(b: &[u8]) -> bool {
    if b.len() < 18 || b[1] != 0x8b || b[2] != 8 || b[3] & 0xe0 != 0 {
        return false;
    }
    let mut head = [0u8; 5];
    let mut d = flate2::bufread::GzDecoder::new(b);
    read_full(&mut d, &mut head).is_ok_and(|n| n == 5) && &head == b"WARC/"
}

fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::{write::GzEncoder, Compression};
    use std::io::Write;

    fn member(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn cuts_fall_on_members_that_start_a_record() {
        // Records of incompressible-ish bytes, each followed by a continuation member
        // (not a record start), so that a cut must skip those.
        let mut file = Vec::new();
        let mut record_starts = Vec::new();
        let mut x = 1u64;
        while (file.len() as u64) < 5 * MIN_PIECE {
            record_starts.push(file.len() as u64);
            let mut body = b"WARC/1.0\r\n".to_vec();
            for _ in 0..200_000 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                body.push((x >> 56) as u8);
            }
            file.extend(member(&body));
            file.extend(member(b"more of the same record, not a record start"));
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.warc.gz");
        std::fs::write(&path, &file).unwrap();
        let size = file.len() as u64;
        let pieces = plan(&path, size, 2, MIN_PIECE).unwrap();
        assert!(pieces.len() >= 3, "{pieces:?}");
        // Shrinking along the file, none under the minimum; the last one is the rest
        // (under twice the minimum).
        let last = pieces.last().unwrap();
        assert!(
            last.end - last.start < 2 * MIN_PIECE + (1 << 20),
            "{pieces:?}"
        );
        for w in pieces[..pieces.len() - 1].windows(2) {
            assert!(w[0].end - w[0].start >= MIN_PIECE, "{pieces:?}");
            assert!(
                w[0].end - w[0].start + (1 << 20) >= w[1].end - w[1].start,
                "{pieces:?}"
            );
        }
        assert_eq!(pieces[0].start, 0);
        assert_eq!(pieces.last().unwrap().end, size);
        for w in pieces.windows(2) {
            assert_eq!(w[0].end, w[1].start);
            assert!(record_starts.contains(&w[1].start), "{:?}", w[1]);
        }
        // Small files and files that are not gzip WARCs are one piece.
        assert_eq!(plan(&path, MIN_PIECE, 2, MIN_PIECE).unwrap().len(), 1);
        std::fs::write(&path, vec![b'x'; file.len()]).unwrap();
        assert_eq!(plan(&path, size, 2, MIN_PIECE).unwrap().len(), 1);
    }
}
