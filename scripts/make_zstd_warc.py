#!/usr/bin/env python3
"""Re-compresses WARC files as WARC-zstd (the IIPC's "Zstandard Compression for WARC
Files 1.0"): one zstd frame per record, with content size and checksum, and optionally
a dictionary in a skippable frame (magic 0x184D2A5D) at the start, raw or itself
zstd-compressed. Used by scripts/test-formats.sh and to make fixtures/zstd/.

The record boundaries come from warcio (pywb's reader), not from warcdex, over the
decompressed file; the bytes before the first record and between records stay in the
frame before them, so that the frames decompress to the original file byte for byte.

    make_zstd_warc.py OUT_DIR FILE... [--root DIR] [--dictionary none|raw|compressed|alternate]
    make_zstd_warc.py OUT_DIR FILE... [--root DIR] --gzip

With --gzip it writes the same cuts as gzip members (`.warc.gz`): the gzip version a
zstd copy is compared with, record for record.

Each FILE is written to OUT_DIR under its path relative to --root (default: the
files' common directory), `.gz` replaced by `.zst` (`.warc` gets `.zst` appended;
`x.plain.warc.zst` when `x.warc.gz` is also given).
"""

import argparse
import gzip
import io
import os
import struct
import sys
import zlib

import zstandard
from warcio.archiveiterator import ArchiveIterator

DICTIONARY_MAGIC = 0x184D2A5D


def decompressed(path):
    """The file's bytes, gzip members decompressed (None when a member is damaged)."""
    with open(path, "rb") as f:
        if f.read(2) != b"\x1f\x8b":
            f.seek(0)
            return f.read()
    try:
        # GzipFile reads member after member in one pass (and skips NUL padding).
        with gzip.open(path, "rb") as g:
            return g.read()
    except (OSError, EOFError, zlib.error):
        return None


def record_starts(data):
    """Offsets of the records warcio finds in uncompressed WARC bytes."""
    starts = []
    it = ArchiveIterator(io.BytesIO(data), no_record_parse=True, check_digests=False)
    for record in it:
        starts.append(it.get_record_offset())
        record.raw_stream.read()
    return starts


def records_of(path):
    """The file's bytes cut at each record's start, or None when it cannot be read."""
    data = decompressed(path)
    if data is None:
        return None
    try:
        starts = record_starts(data)
    except Exception:  # noqa: BLE001 - warcio gives up on damaged files in many ways
        return None
    if not starts:
        return None
    cuts = [0] + starts[1:] + [len(data)]
    return [data[a:b] for a, b in zip(cuts, cuts[1:])]


def train(samples, size=16384):
    """A dictionary in zstd's format, trained on `samples`."""
    return zstandard.train_dictionary(size, samples)


def dictionary_frame(dictionary, compressed):
    user = dictionary.as_bytes()
    if compressed:
        user = zstandard.ZstdCompressor(level=19, write_checksum=True).compress(user)
    return struct.pack("<II", DICTIONARY_MAGIC, len(user)) + user


def write_zstd(records, out_path, dictionary=None, compressed_dictionary=False):
    """Writes one frame per record (a dictionary frame first when given)."""
    params = dict(level=3, write_checksum=True, write_content_size=True)
    if dictionary is not None:
        params["dict_data"] = dictionary
    cctx = zstandard.ZstdCompressor(**params)
    tmp = out_path + ".tmp"
    with open(tmp, "wb") as f:
        if dictionary is not None:
            f.write(dictionary_frame(dictionary, compressed_dictionary))
        for rec in records:
            f.write(cctx.compress(rec))
    os.replace(tmp, out_path)


def write_gzip(records, out_path):
    """Writes one gzip member per record: the gzip version with the zstd copy's cuts."""
    tmp = out_path + ".tmp"
    with open(tmp, "wb") as f:
        for rec in records:
            f.write(gzip.compress(rec, compresslevel=6, mtime=0))
    os.replace(tmp, out_path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--root", default=None)
    ap.add_argument("--gzip", action="store_true",
                    help="write .warc.gz with one member per record instead of zstd")
    ap.add_argument("--dictionary", default="none",
                    choices=["none", "raw", "compressed", "alternate"])
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    per_file = {}
    unreadable = []
    for path in args.files:
        recs = records_of(path)
        if recs is None:
            unreadable.append(path)
        else:
            per_file[path] = recs
    dictionary = None
    if args.dictionary != "none":
        # Up to 32 MiB of samples, taken evenly: the trainer's time grows with them.
        all_recs = [r for recs in per_file.values() for r in recs]
        step = max(1, sum(min(len(r), 16384) for r in all_recs) // (32 << 20))
        dictionary = train([r[:16384] for r in all_recs[::step]])
    root = args.root or os.path.commonpath([os.path.dirname(os.path.abspath(p))
                                            for p in args.files])
    for i, (path, recs) in enumerate(sorted(per_file.items())):
        name = os.path.relpath(os.path.abspath(path), root)
        if name.endswith(".gz"):
            name = name[:-3]
        elif path + ".gz" in per_file:
            # Both x.warc and x.warc.gz: the plain one is x.plain.warc.zst.
            name = name[:-5] + ".plain.warc" if name.endswith(".warc") else name + ".plain"
        out = os.path.join(args.out_dir, name + (".gz" if args.gzip else ".zst"))
        os.makedirs(os.path.dirname(out), exist_ok=True)
        if args.gzip:
            write_gzip(recs, out)
            continue
        compressed = args.dictionary == "compressed" or (
            args.dictionary == "alternate" and i % 2 == 1)
        write_zstd(recs, out, dictionary, compressed)
    for path in unreadable:
        print(f"make_zstd_warc.py: {path}: not re-compressed (damaged gzip or no record "
              "warcio can read)", file=sys.stderr)
    print(f"make_zstd_warc.py: {len(per_file)} written, {len(unreadable)} not readable",
          file=sys.stderr)


if __name__ == "__main__":
    main()
