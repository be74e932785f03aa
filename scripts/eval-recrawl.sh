#!/usr/bin/env bash
# The re-crawl plan evaluation (issue 60; not a test): builds the release binary, then
# scripts/eval-recrawl.py simulates a year of crawls per seed, builds each collection with
# `warcdex update`, and scores `warcdex recrawl-plan` (its own schedule and Nutch's
# adaptive one) against a uniform plan and the optimum by importance-weighted freshness
# under the true change rates. Exit status 1 when an acceptance test fails.
#
# Usage: scripts/eval-recrawl.sh [--seeds 1,2,3] [--urls 2000] [--markdown] [--keep] ...
#        (every option is eval-recrawl.py's; see its --help)
# Env:   WARCDEX_BIN (a binary to measure instead of building this checkout's release one)
# Time:  about 2.5 minutes per seed of 2,000 URLs on 2 cores (most of it `warcdex update`).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${WARCDEX_BIN:-}" ]; then
    bin=$WARCDEX_BIN
else
    . scripts/built-bin.sh
    bin=$(built_bin)
fi
exec python3 scripts/eval-recrawl.py --bin "$bin" "$@"
