#!/usr/bin/env bash
# Ranking evaluation (not a test; docs/ranking.md): one crawl of the bench
# (Debian docs of six sites, ../shared/bench/make_bench.py) indexed by `warcdex update`,
# then known-item queries of five kinds (title, distinctive words, the words of highest tf-idf,
# anchor text, URL words)
# made from it with a seed, and the judged ad hoc topics of fixtures/ranking/ (tune and
# check parts apart). Prints success@1, success@10, MRR@10 and nDCG@10 for warcdex's
# ranking, for the ranking before field weights (NutchWAX's: score × link boost) and for plain
# BM25 (tantivy over title + text, default settings), all in one run.
#
# With MULTISITE=1, the collection is ten documentation sites that link to each other
# (scripts/make_multisite_bench.py: Python, PostgreSQL, Django, Sphinx, Flask, Jinja,
# Werkzeug, Click, pytest, attrs; links between them rewritten to their archived URLs),
# and the known items gain the kind anchor-ext (anchors of links from another host).
#
# Usage: scripts/eval-ranking.sh [SEED...]     (default: seeds 1 and 2, then a random one)
# Env:   SCALE (1.0: the whole bench, ~11,800 pages), WORK (target/eval-ranking),
#        BENCH_GEN (../shared/bench/make_bench.py), WARCDEX_BIN (a binary to measure
#        instead of this checkout's release build), RANKINGS (extra NAME=WEIGHTS to try,
#        space-separated, as src/search/weights.rs's WARCDEX_RANK takes them).
# Needs the six Debian doc packages (installed here when run as root) and PyPI (a venv
# with warcio, tantivy and pyarrow is made under WORK).
set -euo pipefail
cd "$(dirname "$0")/.."
work=${WORK:-target/eval-ranking}
scale=${SCALE:-1.0}
gen=${BENCH_GEN:-../shared/bench/make_bench.py}
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(1 2 $((RANDOM % 10000 + 3)))
mkdir -p "$work"

packages=(python3.11-doc postgresql-doc-15 python-django-doc openjdk-17-doc rust-doc sphinx-doc)
kind=""
if [ "${MULTISITE:-0}" = 1 ]; then
    kind=multisite-
    packages=(python3.11-doc postgresql-doc-15 python-django-doc sphinx-doc python-flask-doc python-jinja2-doc
              python-werkzeug-doc python-click-doc python-pytest-doc python-attr-doc)
fi
missing=()
for p in "${packages[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    [ "$(id -u)" = 0 ] || { echo "eval-ranking: install ${missing[*]}" >&2; exit 2; }
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 ||
        { apt-get update -qq >&2 &&
          DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2; }
fi
venv=$work/venv
if ! "$venv/bin/python" -c 'import warcio, tantivy, pyarrow' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q warcio==1.8.1 tantivy==0.27.0 pyarrow >&2
fi
if [ -n "${WARCDEX_BIN:-}" ]; then
    bin=$(realpath "$WARCDEX_BIN")
else
    source scripts/built-bin.sh
    bin=$(realpath "$(built_bin release)")
fi

bench=$work/${kind}bench-$scale
if [ ! -s "$bench/STATS.json" ]; then
    [ -f "$gen" ] || { echo "eval-ranking: $gen is missing (set BENCH_GEN)" >&2; exit 2; }
    rm -rf "$bench"
    if [ -n "$kind" ]; then
        "$venv/bin/python" scripts/make_multisite_bench.py --gen "$gen" --scale "$scale" --crawls 1 \
            --variants full --out "$bench" >&2
    else
        "$venv/bin/python" "$gen" --scale "$scale" --crawls 1 --variants full --out "$bench" >&2
    fi
    rm -f "$bench/full-all.warc.gz"
fi
coll=$work/${kind}collection-$scale
rm -rf "$coll"
"$bin" update "$coll" "$bench"/full/*.warc.gz >&2

# strict: warcdex's ranking without the fallback of a search that finds nothing (issue 61).
rankings=(--ranking warcdex= --ranking strict=fallback=0 --ranking before=nutch)
for r in ${RANKINGS:-}; do rankings+=(--ranking "$r"); done
for seed in "${seeds[@]}"; do
    topics=()
    # The judged topics once, with the first seed.
    [ -z "$kind" ] && [ "$seed" = "${seeds[0]}" ] && topics=(--topics fixtures/ranking/topics.tsv --qrels fixtures/ranking/qrels.tsv)
    "$venv/bin/python" scripts/eval_ranking.py "$coll" --bin "$bin" --seed "$seed" "${rankings[@]}" "${topics[@]}" \
        --json "$work/${kind}figures-seed$seed.json"
    echo
done
echo "machine: $(nproc) cores, $(uname -r); warcdex $("$bin" --version 2>/dev/null || echo "$bin")"
