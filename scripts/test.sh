#!/usr/bin/env bash
# Runs warcdex's tests on a fresh machine: installs what the tests need that the
# machine lacks, then runs the whole workspace's tests.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo >/dev/null 2>&1; then
    echo "scripts/test.sh: cargo is required (https://rustup.rs)" >&2
    exit 1
fi
for tool in rustfmt clippy-driver; do
    if ! command -v "$tool" >/dev/null 2>&1 && command -v rustup >/dev/null 2>&1; then
        rustup component add rustfmt clippy >/dev/null 2>&1 || true
    fi
done

# The peer tests' Python environments are made from PyPI while cargo compiles (one core's
# worth of pip beside the build); a venv that failed here is tried again by its test.
mkdir -p target
scripts/peer-venvs.sh all > target/peer-venvs.log 2>&1 &
venvs=$!
trap 'kill "$venvs" 2> /dev/null || true' EXIT

cargo test --workspace --locked "$@"

wait "$venvs" || echo "scripts/test.sh: a peer venv failed (target/peer-venvs.log); its test tries again" >&2
trap - EXIT

# Near-duplicate clusters scored over every pair of two labelled sets made with a fresh
# seed: precision and recall at least 0.95.
scripts/test-near-dups.sh

# zstd WARC and WACZ input against FastWARC, py-wacz and the gzip versions (installs
# FastWARC, py-wacz, pywb and zstandard from PyPI into target/formats-venv when missing).
scripts/test-formats.sh

# warcdex's ZipNum clusters read by pywb 2.10 (installs pywb into target/formats-venv
# when missing): every URL key of the corpus, exact and prefix.
scripts/test-zipnum.sh

# The search page in headless Chromium (installs Debian's chromium when missing).
scripts/test-browser.sh

# The capture view of a Python docs page in headless Chromium: its stylesheets and images
# from the collection, no request anywhere else (a screenshot in target/view.png).
scripts/test-view.sh

# The replay that runs pages' scripts (wabac.js 2.27.3 and ReplayWeb.page 2.5.3 from npm,
# pinned by checksum) in headless Chromium: a page built by its own scripts through the
# capture view and the replay origin, the escape page sending nothing out of loopback, and
# ReplayWeb.page opening the collection from /warcs/index.cdxj.
scripts/test-replay.sh

# pywb 2.10 replaying a search hit with only `serve`'s /cdx and /warcs/ as its index and
# archives (pywb from target/formats-venv), the title found in Chromium's replay frame.
scripts/test-pywb.sh

# Access rules against pywb 2.10's AccessChecker (pywb from target/formats-venv): random
# overlapping .aclj rules, users, dates and embargoes, every answer the same.
scripts/test-access-pywb.sh

# The WARC and WACZ exports read by warcio check, py-wacz validate and pywb (its CDX of
# the export, its replay of every capture).
scripts/test-export-peers.sh

# A Browsertrix-style WACZ through pywb 2.10: pywb by `pywb-config` replays every
# capture it holds as /web id_ does; a WARC export of a page with a stylesheet and an
# image replays in headless Chromium styled (its requisites exported with it); warcio
# check and wacz validate accept its WARC and WACZ exports.
scripts/test-browsertrix.sh

# The capture table read by DuckDB (from PyPI into target/duckdb-venv): captures per year
# equal all.cdx's over three batches with revisits; typed columns, no casts.
scripts/test-captures-duckdb.sh

# `warcdex graph` read by networkx (installs networkx, pyarrow and publicsuffixlist into
# target/graph-venv when missing): GEXF and GraphML at every level equal the graph of the
# segments' Parquet outlinks.
scripts/test-graph-networkx.sh

# The MCP server (`warcdex mcp` over stdio and `serve`'s /mcp) driven by the official
# Python MCP client (`mcp` 2.3.0 and 1.30.0 from PyPI into target/mcp-venv, mcp1-venv): tools, provenance, tool errors
# for bad arguments, and an excluded host's pages never found.
scripts/test-mcp.sh

# The Spark build against the single-machine build (installs PySpark into
# target/spark-venv when missing; Debian's OpenJDK 17 when java is missing).
scripts/test-spark.sh
