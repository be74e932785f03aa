#!/usr/bin/env bash
# The mutation run: N mutants (default 5000; bit flips, truncations, random
# insertions, duplicated, removed and overwritten ranges, seeded so a run repeats) of 20
# archives from fixtures/ (gzip WARC, plain WARC, ARC, ARC.gz; all in the repository, so
# ../shared is not needed), each run through `warcdex records --digest --verify`, `cdx`,
# `cdx -a -p --format cdxj` and `import` with a timeout per run. Exit 101 or death by a
# signal counts as a panic, the timeout as a hang; failing mutants and their stderr are
# kept in OUT (named in the output). Prints a table per command; exits 1 if anything
# panicked or hung.
#
# Usage: scripts/mutate-archives.sh [N] [ARCHIVE...]   (ARCHIVE... replaces the 20)
#   WARCDEX_BIN   the binary (default: the release build, built when missing)
#   MUTATE_SEED   seed (default warcdex-15); MUTATE_TIMEOUT seconds per run (default 20)
#   MUTATE_JOBS   mutants at once (default 2); MUTATE_OUT where failures go
#                 (default target/mutate-archives)
#   MUTATE_ONLY   comma-separated mutant numbers to rerun (from the failure list)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-5000}
shift || true
if [ -n "${WARCDEX_BIN:-}" ]; then
    bin=$(realpath "$WARCDEX_BIN")
else
    source scripts/built-bin.sh
    bin=$(built_bin)
fi
out=${MUTATE_OUT:-target/mutate-archives}
if [ $# -gt 0 ]; then
    archives=("$@")
else
    archives=(
        # gzip WARC (one member per record, FEXTRA, empty members, whole-file gzip, clipped)
        fixtures/warc/example.warc.gz
        fixtures/warc/wget-fextra.warc.gz
        fixtures/warc/empty-gzip-members.warc.gz
        fixtures/warc/lf-only-headers.warc.gz
        fixtures/warc/block-crossing.warc.gz
        fixtures/bad/whole-file-gzip.warc.gz
        fixtures/bad/clipped-gzip.warc.gz
        fixtures/bad/content-length-long.warc.gz
        fixtures/example/crawl4-20071004.warc.gz
        # plain WARC
        fixtures/warc/continuation-lines.warc
        fixtures/bad/content-length-short.warc
        fixtures/bad/nul-bytes-after-record.warc
        fixtures/bad/garbage-between-records.warc
        fixtures/bad/trunc-mid-body.warc
        fixtures/example/crawl5-20071005.warc
        # ARC
        fixtures/example/crawl1-20071001.arc
        fixtures/example/crawl2-20071002.arc
        # ARC.gz
        fixtures/arc/example.arc.gz
        fixtures/arc/spaces-in-url.arc.gz
        fixtures/readme-dedup/crawl-20071001.arc.gz
    )
fi
only=()
if [ -n "${MUTATE_ONLY:-}" ]; then
    for i in ${MUTATE_ONLY//,/ }; do only+=(--only "$i"); done
fi
echo "mutation run: $count mutants, binary $bin, failures kept in $out" >&2
exec python3 scripts/mutate_archives.py --bin "$bin" --count "$count" \
    --seed "${MUTATE_SEED:-warcdex-15}" --timeout "${MUTATE_TIMEOUT:-20}" \
    --jobs "${MUTATE_JOBS:-2}" --out "$out" "${only[@]}" "${archives[@]}"
