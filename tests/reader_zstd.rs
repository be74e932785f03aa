//! WARC-zstd: `fixtures/zstd/` holds two pywb archives re-compressed
//! by `scripts/make_zstd_warc.py` (one frame per record, without a dictionary, with a raw
//! one and with a compressed one) beside their gzip versions with the same cuts. The
//! records read from each copy are the gzip version's but for offset and length, and
//! every offset, opened with a seek and one frame decode, is the record the gzip
//! version's member holds. Damage is built here with the zstd crate, so each test shows
//! the bytes it damages.

use std::io::{Read, Write};

use warcdex::reader::zstd_frame::{file_dictionary, FrameDecoder};
use warcdex::reader::{ArchiveReader, Codec};

use crate::util::{fixtures, records_at_every_read_size, warc_record};

const VARIANTS: [&str; 3] = ["", "-dict", "-zdict"];

/// Every record of `path`: its bytes as stored (offset, length) and its JSON line
/// without offset and length.
fn records(path: &std::path::Path) -> Vec<(u64, u64, String)> {
    let (out, report) = crate::util::records_of(path, 256 * 1024, Default::default());
    assert!(
        report.error.is_none(),
        "{}: {:?}",
        path.display(),
        report.error
    );
    assert_eq!(
        report.counts.total(),
        0,
        "{}: {}",
        path.display(),
        report.counts
    );
    out.lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            let o = v.as_object_mut().unwrap();
            let n = |x: serde_json::Value| x.as_str().unwrap().parse::<u64>().unwrap();
            let offset = n(o.remove("offset").unwrap());
            let length = n(o.remove("length").unwrap());
            (offset, length, v.to_string())
        })
        .collect()
}

fn gzip_member(bytes: &[u8], offset: u64, length: u64) -> Vec<u8> {
    let member = &bytes[offset as usize..(offset + length) as usize];
    let mut d = flate2::read::GzDecoder::new(member);
    let mut out = Vec::new();
    d.read_to_end(&mut out).unwrap();
    out
}

#[test]
fn zstd_copies_read_as_their_gzip_versions_and_every_offset_is_its_record() {
    for name in ["example", "dupes"] {
        let gz_path = fixtures().join(format!("zstd/{name}.warc.gz"));
        let gz_bytes = std::fs::read(&gz_path).unwrap();
        let want = records(&gz_path);
        assert!(want.len() >= 6, "{name}: {} records", want.len());
        for variant in VARIANTS {
            let path = fixtures().join(format!("zstd/{name}{variant}.warc.zst"));
            let reader = ArchiveReader::open(&path).unwrap();
            assert_eq!(reader.codec(), Some(Codec::Zstd));
            let got = records(&path);
            let lines =
                |r: &[(u64, u64, String)]| r.iter().map(|x| x.2.clone()).collect::<Vec<_>>();
            assert_eq!(lines(&got), lines(&want), "{}", path.display());
            // Each record's offset and length: a seek and one frame decode (with the
            // file's dictionary), which must use exactly `length` bytes.
            let mut file = std::fs::File::open(&path).unwrap();
            let state = file_dictionary(&mut file, 0).unwrap();
            let bytes = std::fs::read(&path).unwrap();
            let mut state = Some(state);
            for ((offset, length, _), (gz_offset, gz_length, _)) in got.iter().zip(&want) {
                let frame = &bytes[*offset as usize..(*offset + *length) as usize];
                let mut dec = FrameDecoder::new(frame, state.take().unwrap());
                let mut record = Vec::new();
                dec.read_to_end(&mut record).unwrap();
                let (rest, s) = dec.into_parts();
                state = Some(s);
                assert!(
                    rest.is_empty(),
                    "{}: offset {offset}: the frame is shorter than {length}",
                    path.display()
                );
                assert_eq!(
                    record,
                    gzip_member(&gz_bytes, *gz_offset, *gz_length),
                    "{}: offset {offset}",
                    path.display()
                );
            }
        }
    }
}

/// One WARC response record for `uri`.
fn record(uri: &str, body: &str) -> Vec<u8> {
    warc_record(uri, body, "")
}

/// One zstd frame of `data`, with content size and checksum as WARC-zstd asks.
fn frame(data: &[u8]) -> Vec<u8> {
    let mut e = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
    e.include_checksum(true).unwrap();
    e.set_pledged_src_size(Some(data.len() as u64)).unwrap();
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn skippable(magic: u32, data: &[u8]) -> Vec<u8> {
    let mut out = magic.to_le_bytes().to_vec();
    out.extend((data.len() as u32).to_le_bytes());
    out.extend_from_slice(data);
    out
}

fn body(i: usize) -> String {
    format!(
        "<html><title>page {i}</title>{}</html>",
        "text ".repeat(20 + i)
    )
}

/// `n` one-record frames; returns the file and each frame's start offset.
fn frames(n: usize) -> (Vec<u8>, Vec<usize>) {
    let mut file = Vec::new();
    let mut starts = Vec::new();
    for i in 0..n {
        starts.push(file.len());
        file.extend(frame(&record(&format!("http://example.org/{i}"), &body(i))));
    }
    (file, starts)
}

/// Reads `bytes` at every read size (all must agree): the URIs, offsets and lengths read,
/// the anomaly counts as text and the error, if any.
fn read_all_sizes(bytes: &[u8]) -> (Vec<(String, u64, u64)>, String, Option<String>) {
    let (want, report) = records_at_every_read_size(bytes);
    let rows = want
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let n = |k: &str| v[k].as_str().unwrap().parse::<u64>().unwrap();
            let uri = v["warc-target-uri"].as_str().unwrap_or("").to_string();
            (uri, n("offset"), n("length"))
        })
        .collect();
    (
        rows,
        report.counts.to_string(),
        report.error.map(|e| e.to_string()),
    )
}

fn uris(rows: &[(String, u64, u64)]) -> Vec<&str> {
    rows.iter().map(|r| r.0.as_str()).collect()
}

#[test]
fn frames_give_offsets_and_lengths_at_every_read_size() {
    let (file, starts) = frames(4);
    let (rows, counts, error) = read_all_sizes(&file);
    assert_eq!(error, None);
    assert_eq!(counts, "none");
    for (i, (uri, offset, length)) in rows.iter().enumerate() {
        assert_eq!(uri, &format!("http://example.org/{i}"));
        assert_eq!(*offset, starts[i] as u64);
        let end = starts.get(i + 1).copied().unwrap_or(file.len());
        assert_eq!(*length, (end - starts[i]) as u64);
    }
}

#[test]
fn a_corrupt_frame_is_reported_at_its_offset_and_reading_resumes_at_the_next() {
    let (mut file, starts) = frames(3);
    // A byte in the middle of frame 1's compressed blocks.
    let mid = (starts[1] + starts[2]) / 2;
    file[mid] ^= 0x55;
    let (rows, counts, error) = read_all_sizes(&file);
    assert_eq!(error, None);
    assert_eq!(
        uris(&rows),
        ["http://example.org/0", "http://example.org/2"],
        "{counts}"
    );
    assert_eq!(
        rows[1].1, starts[2] as u64,
        "the next frame keeps its offset"
    );
    assert!(counts.contains("damaged-zstd-frame 1"), "{counts}");
    assert!(counts.contains("lost-record 1"), "{counts}");
    let mut reader = ArchiveReader::new(&file[..]).unwrap();
    while let Some(r) = reader.next_record().ok().flatten() {
        let _ = r.finish();
    }
    let anomalies = reader.take_anomalies();
    let damaged = anomalies
        .iter()
        .find(|a| a.kind.name() == "damaged-zstd-frame")
        .expect("the damage is reported");
    assert_eq!(damaged.offset, starts[1] as u64, "{damaged}");
    assert!(
        damaged
            .message
            .contains(&format!("reading resumes at offset {}", starts[2])),
        "{damaged}"
    );
}

#[test]
fn a_checksum_mismatch_and_garbage_between_frames_are_damage() {
    // The last byte of frame 0 is its content checksum's.
    let (mut file, starts) = frames(3);
    file[starts[1] - 1] ^= 1;
    let (rows, counts, _) = read_all_sizes(&file);
    assert_eq!(
        uris(&rows),
        ["http://example.org/1", "http://example.org/2"],
        "{counts}"
    );
    assert!(counts.contains("damaged-zstd-frame 1"), "{counts}");

    let (file, starts) = frames(3);
    let mut junk = file[..starts[1]].to_vec();
    junk.extend_from_slice(b"this is no zstd frame at all");
    junk.extend_from_slice(&file[starts[1]..]);
    let (rows, counts, _) = read_all_sizes(&junk);
    assert_eq!(rows.len(), 3, "{counts}");
    assert!(counts.contains("damaged-zstd-frame 1"), "{counts}");
}

#[test]
fn a_file_cut_inside_a_frame_ends_with_an_error_naming_the_frame() {
    let (file, starts) = frames(3);
    let cut = &file[..starts[2] + 20];
    let (rows, _, error) = read_all_sizes(cut);
    assert_eq!(
        uris(&rows)[..2],
        ["http://example.org/0", "http://example.org/1"]
    );
    let error = error.expect("the truncation is an error");
    assert!(
        error.contains(&format!("zstd frame starting at offset {}", starts[2])),
        "{error}"
    );
}

#[test]
fn skippable_frames_are_ignored_and_a_record_may_span_frames() {
    let r0 = record("http://example.org/0", &body(0));
    let r1 = record("http://example.org/1", &body(1));
    let mut file = frame(&r0);
    let ext = file.len();
    file.extend(skippable(0x184d_2a50, b"an extension frame"));
    let start1 = file.len();
    // Record 1 in two frames, cut inside its block.
    file.extend(frame(&r1[..100]));
    file.extend(frame(&r1[100..]));
    let end1 = file.len();
    file.extend(skippable(0x184d_2a5f, b"another"));
    let (rows, counts, error) = read_all_sizes(&file);
    assert_eq!(error, None);
    assert_eq!(
        counts, "none",
        "extension frames and split records are no anomaly"
    );
    assert_eq!(rows[0], ("http://example.org/0".into(), 0, ext as u64));
    assert_eq!(
        rows[1],
        (
            "http://example.org/1".into(),
            start1 as u64,
            (end1 - start1) as u64
        )
    );
}

#[test]
fn a_dictionary_frame_is_used_and_a_broken_one_is_an_error() {
    // A dictionary trained on pages like the records, raw and compressed.
    let samples: Vec<Vec<u8>> = (0..200)
        .map(|i| record(&format!("http://example.org/{i}"), &body(i % 40)))
        .collect();
    let dict = zstd::dict::from_samples(&samples, 4096).unwrap();
    for user_data in [dict.clone(), frame(&dict)] {
        let mut file = skippable(0x184d_2a5d, &user_data);
        let first = file.len();
        let mut enc = zstd::bulk::Compressor::with_dictionary(3, &dict).unwrap();
        enc.include_checksum(true).unwrap();
        for s in &samples[..5] {
            file.extend(enc.compress(s).unwrap());
        }
        let (rows, counts, error) = read_all_sizes(&file);
        assert_eq!(error, None);
        assert_eq!(counts, "none");
        assert_eq!(rows.len(), 5);
        assert_eq!(
            rows[0].1, first as u64,
            "the dictionary frame is no record's"
        );
    }
    let mut broken = skippable(0x184d_2a5d, b"not a dictionary");
    broken.extend(frame(&samples[0]));
    let (rows, _, error) = read_all_sizes(&broken);
    assert!(rows.is_empty());
    let error = error.expect("a broken dictionary is an error");
    assert!(
        error.contains("the zstd dictionary in the frame at offset 0 is damaged"),
        "{error}"
    );
    assert!(error.contains("holds no zstd dictionary"), "{error}");
}

/// A dictionary whose magic is right but whose tables are damaged was
/// reported as libzstd's "Allocation error : not enough memory"; it is a damaged
/// dictionary, named with its file and offset.
#[test]
fn a_damaged_dictionary_is_named_as_such_with_file_and_offset() {
    let src = std::fs::read(fixtures().join("zstd/example-dict.warc.zst")).unwrap();
    assert_eq!(
        src[..4],
        0x184d_2a5d_u32.to_le_bytes(),
        "a dictionary frame first"
    );
    let mut bytes = src.clone();
    // After the frame head (8), the dictionary's magic (4) and id (4): its tables.
    for b in &mut bytes[16..80] {
        *b = 0xff;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("damaged-dict.warc.zst");
    std::fs::write(&path, &bytes).unwrap();
    let mut r = ArchiveReader::open(&path).unwrap();
    let error = match r.next_record() {
        Err(e) => e,
        Ok(_) => panic!("a damaged dictionary reads no record"),
    };
    let text = error.to_string();
    assert!(text.contains(&path.display().to_string()), "{text}");
    assert!(
        text.contains("offset 0: the zstd dictionary in the frame at offset 0 is damaged"),
        "{text}"
    );
    assert!(
        !text.contains("memory") && !text.contains("Allocation"),
        "{text}"
    );
    assert_eq!(error.offset(), Some(0));
}
