#!/usr/bin/env python3
"""warcdex on WARC-zstd and WACZ against the originals and the peer tools.

    test_formats.py WARCDEX WORK_DIR

zstd: every WARC of fixtures/corpus/real that warcio can read is re-compressed by
scripts/make_zstd_warc.py twice, one frame per record: without a dictionary, and with
one (raw and zstd-compressed on alternate files). Checked for each copy:
- `warcdex records` lists the records FastWARC finds in it: type, target URI, date,
  record id and payload digest, in order (when FastWARC can read the copy);
- `warcdex cdx` equals `warcdex cdx` of the gzip version (the same records, one gzip
  member each) on every field but length, offset and file name;
- every CDX line's offset, opened with a seek and one frame decode (FastWARC's reader
  on the bytes from that offset to offset + length), is a record with the line's URI
  and date;
- `warcdex import` of the copies makes the same segment rows as of the gzip versions.

WACZ: the corpus's WARCs are packed by py-wacz (`wacz create`, one WACZ per corpus
folder, with a page list that titles every captured URL). Checked for each WACZ:
- `warcdex cdx` of the WACZ equals, byte for byte, `warcdex cdx` of its WARCs (taken out
  of the ZIP) one after the other;
- every line's offset, opened with a seek in the WACZ (the entry's data start plus the
  offset) and one gzip member decode (or, in a plain WARC, the bytes), is the record at
  that offset of the original file;
- the lines point at the same records (file, offset, length, date) as the WACZ's own
  index, written by py-wacz with cdxj-indexer (whose keys differ for POST requests:
  it appends `__wb_method=post&...`);
- `warcdex import` of the WACZ makes the rows of the import of its WARCs, but for the
  archive name and the titles of pages that have none, which come from pages.jsonl;
- `cdx --verify` passes the WACZ; `cdx --verify` and `import --verify` refuse it with a
  byte of a WARC changed.
Prints counts and exits 1 on the first difference.
"""

import gzip
import json
import os
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_zstd_warc  # noqa: E402

from fastwarc.warc import ArchiveIterator, WarcRecordType  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REAL = os.path.join(ROOT, "fixtures", "corpus", "real")


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def run(args, ok=(0, 1)):
    p = subprocess.run(args, capture_output=True)
    if p.returncode not in ok:
        fail(f"{' '.join(map(str, args))} exited {p.returncode}: {p.stderr.decode()[-2000:]}")
    return p.stdout.decode("utf-8", "surrogateescape")


def cdx_lines(warcdex, path):
    return [l for l in run([warcdex, "cdx", path]).splitlines() if not l.startswith(" CDX")]


def corpus_warcs():
    out = []
    for d, _, files in os.walk(REAL):
        for f in files:
            if f.endswith(".warc") or f.endswith(".warc.gz"):
                out.append(os.path.join(d, f))
    return sorted(out)


def fastwarc_records(path, dictionary_bytes=None):
    """(type, uri, date, id, payload digest) of each record FastWARC reads."""
    recs = []
    for r in ArchiveIterator(path, parse_http=False, record_types=WarcRecordType.any_type):
        h = r.headers
        uri = h.get("WARC-Target-URI")
        # WARC/1.1 drafts wrote the URI in angle brackets; warcio, pywb and warcdex strip
        # them, FastWARC gives the header as written.
        if uri and uri.startswith("<") and uri.endswith(">"):
            uri = uri[1:-1]
        recs.append((h.get("WARC-Type"), uri, h.get("WARC-Date"),
                     h.get("WARC-Record-ID"), h.get("WARC-Payload-Digest")))
    return recs


def warcdex_records(warcdex, path):
    recs = []
    for line in run([warcdex, "records", path]).splitlines():
        j = json.loads(line)
        if j.get("format") != "warc":
            continue
        recs.append((j.get("warc-type"), j.get("warc-target-uri"), j.get("warc-date"),
                     j.get("warc-record-id"), j.get("warc-payload-digest")))
    return recs


def dictionary_of(path):
    """The decompressed dictionary of a WARC-zstd file's dictionary frame, or None."""
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8 or int.from_bytes(head[:4], "little") != make_zstd_warc.DICTIONARY_MAGIC:
            return None
        user = f.read(int.from_bytes(head[4:], "little"))
    if user[:4] == b"\x28\xb5\x2f\xfd":
        import zstandard
        user = zstandard.ZstdDecompressor().decompress(user)
    return user


def one_gzip_member(data, offset, length):
    """The gzip member at offset, which must be exactly `length` bytes."""
    d = zlib.decompressobj(31)
    out = d.decompress(data[offset:offset + length])
    if not d.eof or d.unused_data:
        return None
    return out


def one_zstd_frame(data, offset, length, dictionary):
    """The zstd frame at offset, which must be exactly `length` bytes."""
    import zstandard
    d = (zstandard.ZstdDecompressor(dict_data=zstandard.ZstdCompressionDict(dictionary))
         if dictionary else zstandard.ZstdDecompressor())
    frame = data[offset:offset + length]
    # One frame decode: the reader stops at the frame's end (read_across_frames off).
    reader = d.stream_reader(frame, read_across_frames=False)
    out = reader.read()
    if reader.tell() == 0 and length:
        return None
    return out


def check_offsets(path, lines, gz_path, gz_lines):
    """Each line's offset and length, decoded alone (a seek and one frame decode), is a
    WARC record, and the same bytes as the gzip version's line's member."""
    dictionary = dictionary_of(path)
    with open(path, "rb") as f:
        data = f.read()
    with open(gz_path, "rb") as f:
        gz_data = f.read()
    for line, gz_line in zip(lines, gz_lines):
        fields, gz_fields = line.split(" "), gz_line.split(" ")
        length, offset = int(fields[8]), int(fields[9])
        record = one_zstd_frame(data, offset, length, dictionary)
        if record is None or record[:5].upper() != b"WARC/":
            fail(f"{path}: offset {offset} length {length}: no WARC record there")
        want = one_gzip_member(gz_data, int(gz_fields[9]), int(gz_fields[8]))
        if want is None:
            fail(f"{gz_path}: offset {gz_fields[9]} length {gz_fields[8]}: not one member")
        if record != want:
            fail(f"{path}: offset {offset}: the frame is not the record of {gz_path} "
                 f"offset {gz_fields[9]}")


def zstd_copies(work):
    """{gzip version: {"nodict": copy, "dict": copy}}: each corpus WARC cut at warcio's
    record starts and written as gzip members, as zstd frames without a dictionary, and
    as zstd frames with one."""
    originals = corpus_warcs()
    script = os.path.join(ROOT, "scripts", "make_zstd_warc.py")
    for kind, flags in (("gzip", ["--gzip"]), ("nodict", ["--dictionary", "none"]),
                        ("dict", ["--dictionary", "alternate"])):
        subprocess.run([sys.executable, script, os.path.join(work, kind), "--root", REAL,
                        *flags, *originals], check=True, stderr=subprocess.DEVNULL)
    copies = {}
    for orig in originals:
        rel = os.path.relpath(orig, REAL)
        name = rel[:-3] if rel.endswith(".gz") else rel
        if rel.endswith(".warc") and os.path.exists(os.path.join(REAL, rel + ".gz")):
            name = rel[:-5] + ".plain.warc"
        gz = os.path.join(work, "gzip", name + ".gz")
        if not os.path.exists(gz):
            continue
        copies[gz] = {kind: os.path.join(work, kind, name + ".zst")
                      for kind in ("nodict", "dict")}
    return originals, copies


def test_zstd(warcdex, work):
    originals, copies = zstd_copies(work)
    skipped = len(originals) - len(copies)
    n_files = n_lines = n_records = n_fastwarc = 0
    fastwarc_unread = set()
    fastwarc_differs = set()
    for orig, zs in sorted(copies.items()):
        want = cdx_lines(warcdex, orig)
        for kind, z in sorted(zs.items()):
            got = cdx_lines(warcdex, z)
            strip = lambda ls: [" ".join(l.split(" ")[:8]) for l in ls]  # noqa: E731
            if strip(got) != strip(want):
                fail(f"cdx of {z} differs from {orig} beyond length, offset and name:\n"
                     + "\n".join(sorted(set(strip(got)) ^ set(strip(want)))[:10]))
            if any(l.split(" ")[10] != os.path.basename(z) for l in got):
                fail(f"{z}: a CDX line does not name the .warc.zst")
            check_offsets(z, got, orig, want)
            ours = warcdex_records(warcdex, z)
            try:
                theirs = fastwarc_records(z)
            except Exception as e:  # noqa: BLE001
                try:
                    fastwarc_records(orig)
                except Exception:  # noqa: BLE001
                    # FastWARC stops on this file in gzip as well.
                    fastwarc_unread.add(f"{os.path.relpath(orig, os.path.join(work, 'gzip'))} "
                                        f"({e})")
                    theirs = None
                else:
                    fail(f"FastWARC reads {orig} but not its copy {z}: {e}")
            if theirs is not None:
                if ours == theirs:
                    n_fastwarc += 1
                elif (theirs == fastwarc_records(orig)
                      and ours == warcdex_records(warcdex, orig)):
                    # FastWARC reads the original the same other way: a difference of
                    # parsers on that file (listed below), not of reading zstd.
                    fastwarc_differs.add(os.path.relpath(orig, os.path.join(work, "gzip")))
                else:
                    diff = [f"  warcdex  {a}\n  fastwarc {b}" for a, b in zip(ours, theirs)
                            if a != b][:3]
                    fail(f"records of {z} differ from FastWARC's ({len(ours)} vs "
                         f"{len(theirs)}), unlike on {orig}:\n" + "\n".join(diff))
            n_files += 1
            n_lines += len(got)
            n_records += len(ours)
    print(f"zstd: {n_files} copies of {len(copies)} corpus WARCs ({skipped} not "
          f"re-compressible: damaged gzip or nothing warcio reads), {n_lines} CDX lines "
          f"equal the gzip versions' and each offset decodes to its record, {n_records} "
          f"records; FastWARC agrees on every record of {n_fastwarc} copies")
    print(f"zstd: FastWARC reads {len(fastwarc_differs)} originals differently from warcdex "
          "(and pywb) in gzip, and their zstd copies the same way: " + ", ".join(sorted(fastwarc_differs)))
    print(f"zstd: FastWARC stops with an error on {len(fastwarc_unread)} files, in gzip as "
          "in zstd: " + ", ".join(sorted(fastwarc_unread)))
    return copies


def segment_rows(warcdex, seg):
    rows = []
    for line in run([warcdex, "segment-info", "--rows", seg]).splitlines():
        j = json.loads(line)
        for k in ("filename", "archive", "offset", "length"):
            j.pop(k, None)
        rows.append(json.dumps(j, sort_keys=True))
    return sorted(rows)


def test_zstd_import(warcdex, work, copies):
    for kind in ("nodict", "dict"):
        pairs = [(o, zs[kind]) for o, zs in sorted(copies.items()) if kind in zs]
        segs = []
        for side, files in (("gzip", [o for o, _ in pairs]), (kind, [z for _, z in pairs])):
            manifest = os.path.join(work, f"manifest-{side}.txt")
            with open(manifest, "w") as m:
                m.writelines(f"{f} corpus\n" for f in files)
            seg = os.path.join(work, f"seg-{side}")
            run([warcdex, "import", manifest, seg])
            segs.append(segment_rows(warcdex, seg))
        if segs[0] != segs[1]:
            a, b = set(segs[0]), set(segs[1])
            fail(f"import of the {kind} copies differs from the gzip versions': "
                 f"{len(a - b)} rows only in the gzip versions', {len(b - a)} only in the copies'"
                 f"\n{sorted(a - b)[:2]}\n{sorted(b - a)[:2]}")
        print(f"zstd: import of {len(pairs)} {kind} copies: the same {len(segs[0])} "
              "segment rows as of the gzip versions")


def wacz_groups():
    """Corpus WARCs by folder, base names unique within a group (a WACZ's archive/ is
    flat)."""
    groups = {}
    for path in corpus_warcs():
        folder = os.path.relpath(os.path.dirname(path), REAL)
        names = groups.setdefault(folder, {})
        base = os.path.basename(path)
        # A second file of one name goes into a group of its own.
        while base in names:
            folder += "+"
            names = groups.setdefault(folder, {})
        names[base] = path
    return {k: sorted(v.values()) for k, v in sorted(groups.items())}


def write_pages(path, warcs, warcdex):
    """A pages.jsonl titling every URL the WARCs capture `WACZ page N`."""
    urls = []
    for w in warcs:
        for line in cdx_lines(warcdex, w):
            urls.append(line.split(" ")[2])
    with open(path, "w") as f:
        f.write(json.dumps({"format": "json-pages-1.0", "id": "pages",
                            "title": "All pages"}) + "\n")
        for i, u in enumerate(dict.fromkeys(urls)):
            f.write(json.dumps({"id": f"p{i}", "url": u, "ts": "2020-01-01T00:00:00Z",
                                "title": f"WACZ page {i}"}) + "\n")
    return {u: f"WACZ page {i}" for i, u in enumerate(dict.fromkeys(urls))}


def make_wacz(out, warcs, pages):
    wacz_bin = os.path.join(os.path.dirname(sys.executable), "wacz")
    p = subprocess.run([wacz_bin, "create", "-o", out, "-p", pages, "-c", *warcs],
                       capture_output=True)
    return p.returncode == 0 and os.path.exists(out)


def member_or_bytes(data, offset, length):
    """The record at offset: one gzip member decoded (as far as it goes: the corpus has
    clipped members, whose CDX line is kept), or a plain WARC's bytes."""
    if data[offset:offset + 2] == b"\x1f\x8b":
        d = zlib.decompressobj(31)
        try:
            return d.decompress(data[offset:offset + length])
        except zlib.error:
            return None
    return data[offset:offset + length]


def test_wacz(warcdex, work):
    import zipfile
    os.makedirs(work, exist_ok=True)
    n_wacz = n_lines = n_rows = n_titled = n_index = 0
    unpackable = []
    index_differs = []
    for gi, (folder, warcs) in enumerate(wacz_groups().items()):
        out = os.path.join(work, f"g{gi}.wacz")
        pages = write_pages(os.path.join(work, f"g{gi}.jsonl"), warcs, warcdex)
        if not make_wacz(out, warcs, os.path.join(work, f"g{gi}.jsonl")):
            # py-wacz indexes its input with cdxj-indexer, which gives up on some of
            # the corpus's damaged files: pack the others one by one.
            kept = []
            for w in warcs:
                one = os.path.join(work, "one.wacz")
                if make_wacz(one, [w], os.path.join(work, f"g{gi}.jsonl")):
                    kept.append(w)
                else:
                    unpackable.append(os.path.relpath(w, REAL))
            warcs = kept
            if not warcs or not make_wacz(out, warcs, os.path.join(work, f"g{gi}.jsonl")):
                continue
        n_wacz += 1
        z = zipfile.ZipFile(out)
        inner = [i for i in z.infolist() if i.filename.startswith("archive/")]
        by_base = {os.path.basename(w): w for w in warcs}
        # cdx of the WACZ == cdx of its WARCs one after the other.
        extracted = os.path.join(work, f"g{gi}")
        os.makedirs(extracted, exist_ok=True)
        want = []
        for info in inner:
            path = os.path.join(extracted, os.path.basename(info.filename))
            with open(path, "wb") as f:
                f.write(z.read(info))
            want += cdx_lines(warcdex, path)
        got = cdx_lines(warcdex, out)
        if got != want:
            fail(f"cdx of {out} ({folder}) differs from its WARCs':\n"
                 + "\n".join(sorted(set(got) ^ set(want))[:6]))
        # Each offset: a seek in the WACZ and one member decode.
        with open(out, "rb") as f:
            wacz_bytes = f.read()
        starts = {}
        for info in inner:
            # The local header: 30 bytes, the name and the extra field.
            h = wacz_bytes[info.header_offset:info.header_offset + 30]
            name_len, extra_len = int.from_bytes(h[26:28], "little"), int.from_bytes(h[28:30], "little")
            if info.compress_type != zipfile.ZIP_STORED:
                fail(f"{out}: {info.filename} is not stored")
            starts[os.path.basename(info.filename)] = info.header_offset + 30 + name_len + extra_len
        originals = {b: open(p, "rb").read() for b, p in by_base.items()}
        for line in got:
            fields = line.split(" ")
            length, offset, name = int(fields[8]), int(fields[9]), fields[10]
            record = member_or_bytes(wacz_bytes, starts[name] + offset, length)
            if record is None or (record[:5].upper() != b"WARC/" and fields[2] not in record[:400].decode("latin-1")):
                fail(f"{out}: {name} offset {offset} length {length}: no record there")
            if record != member_or_bytes(originals[name], offset, length):
                fail(f"{out}: {name} offset {offset}: not the record of {by_base[name]}")
        n_lines += len(got)
        # The WACZ's own index (cdxj-indexer's) names the same records.
        theirs = set()
        for info in z.infolist():
            if info.filename.startswith("indexes/index.cdx"):
                raw = z.read(info)
                if info.filename.endswith(".gz"):
                    raw = gzip.decompress(raw)
                for l in raw.decode("utf-8", "replace").splitlines():
                    key, ts, js = l.split(" ", 2)
                    j = json.loads(js)
                    theirs.add((j.get("filename"), j.get("offset"), j.get("length"), ts))
        ours = set()
        for l in run([warcdex, "cdx", "--format", "cdxj", out]).splitlines():
            key, ts, js = l.split(" ", 2)
            j = json.loads(js)
            ours.add((j.get("filename"), j.get("offset"), j.get("length"), ts))
        if ours != theirs:
            index_differs.append(f"{folder}: {len(ours - theirs)} lines only in warcdex's, "
                                 f"{len(theirs - ours)} only in the WACZ's")
        n_index += len(ours & theirs)
        # import of the WACZ == import of its WARCs, but for archive and page titles.
        segs = []
        for side, files in (("wacz", [out]), ("warcs", [os.path.join(extracted, os.path.basename(i.filename)) for i in inner])):
            manifest = os.path.join(work, f"g{gi}-{side}.txt")
            with open(manifest, "w") as m:
                m.writelines(f"{f} corpus\n" for f in files)
            seg = os.path.join(work, f"g{gi}-seg-{side}")
            run([warcdex, "import", manifest, seg])
            rows = {}
            for l in run([warcdex, "segment-info", "--rows", seg]).splitlines():
                j = json.loads(l)
                j.pop("archive", None)
                rows[j["key"]] = j
            segs.append(rows)
        wz, plain = segs
        if set(wz) != set(plain):
            fail(f"import of {out} has other versions than its WARCs'")
        for key, row in plain.items():
            w = dict(wz[key])
            if not (row.get("title") or "").strip() and row["url"] in pages:
                if w.get("title") != pages[row["url"]]:
                    fail(f"{out}: {row['url']} has no title and pages.jsonl's was not used: "
                         f"{w.get('title')!r}")
                n_titled += 1
                w["title"] = row.get("title")
            if w != row:
                fail(f"{out}: the row of {key} differs from its WARC's import:\n{w}\n{row}")
        n_rows += len(plain)
        # --verify: the WACZ passes; with one byte of a WARC changed it is refused.
        p = subprocess.run([warcdex, "cdx", "--verify", out], capture_output=True)
        if p.returncode != 0 or b"resources verified" not in p.stderr:
            fail(f"cdx --verify {out}: {p.stderr.decode()[-500:]}")
        if gi == 0:
            bad = bytearray(wacz_bytes)
            first = inner[0]
            bad[starts[os.path.basename(first.filename)] + first.file_size // 2] ^= 0x20
            tampered = os.path.join(work, "tampered.wacz")
            with open(tampered, "wb") as f:
                f.write(bad)
            p = subprocess.run([warcdex, "cdx", "--verify", tampered], capture_output=True)
            err = p.stderr.decode()
            if p.returncode == 0 or "verification failed" not in err or p.stdout.count(b"\n") > 1:
                fail(f"cdx --verify of a tampered WACZ: exit {p.returncode}: {err[-500:]}")
            manifest = os.path.join(work, "tampered.txt")
            with open(manifest, "w") as m:
                m.write(f"{tampered} corpus\n")
            p = subprocess.run([warcdex, "import", "--verify", manifest,
                                os.path.join(work, "tampered-seg")], capture_output=True)
            err = p.stderr.decode()
            if p.returncode == 0 or "not imported, verification failed" not in err:
                fail(f"import --verify of a tampered WACZ: exit {p.returncode}: {err[-500:]}")
    print(f"wacz: {n_wacz} WACZ files made by py-wacz from the corpus's WARCs "
          f"({len(unpackable)} WARCs py-wacz cannot pack: {', '.join(unpackable)}); "
          f"{n_lines} CDX lines equal the inner WARCs' and each offset is its record; "
          f"{n_index} CDXJ lines point at the records (file, offset, length, date) the "
          "WACZ's own index points at")
    for d in index_differs:
        print(f"wacz: index differs from py-wacz's (cdxj-indexer): {d}")
    print(f"wacz: import: {n_rows} rows equal the inner WARCs', {n_titled} pages titled "
          "from pages.jsonl; --verify passes every WACZ and refuses a tampered one")


def main():
    warcdex, work = sys.argv[1], sys.argv[2]
    copies = test_zstd(warcdex, os.path.join(work, "zstd"))
    test_zstd_import(warcdex, os.path.join(work, "zstd"), copies)
    test_wacz(warcdex, os.path.join(work, "wacz"))


if __name__ == "__main__":
    main()
