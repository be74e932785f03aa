#!/usr/bin/env bash
# Near-duplicates over all pairs: the two invented labelled sets of
# scripts/near-dups-eval.py (one vocabulary, long pages with their own titles and short
# pages under one title) with fresh seeds, each put in a collection by `update` and
# clustered by `near-dups` with its defaults; fails when precision or recall falls below
# 0.95 on either. Only Python's standard library and the binary are needed; the sets of
# real pages need Debian's documentation packages and are run by hand
# (docs/near-duplicates.md).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/built-bin.sh
bin=$(built_bin dev)
work=$(mktemp -d "${TMPDIR:-/tmp}/warcdex-near-XXXX")
trap 'rm -rf "$work"' EXIT
seed=${SEED:-$(( $(date +%s) % 100000 ))}
python3 scripts/near-dups-eval.py --out "$work" --seed "$seed" --bin "$bin" \
    --sets synthetic,synthetic-short \
    || { echo "test-near-dups.sh: below 0.95 with seed $seed" >&2; exit 1; }
echo "test-near-dups.sh: ok (seed $seed)"
