#!/usr/bin/env bash
# warcdex's access rules against pywb 2.10's AccessChecker: for each of 3 fresh
# seeds, scripts/access_parity.py makes a random `.aclj` of ~300 heavily overlapping rules
# (host, path, domain, cut and exact-URL prefixes, `*,`; allow, block, exclude,
# allow_ignore_embargo; per-user rules; before/after/newer/older dates) and ~3000 random
# captures (URL forms pywb canonicalizes, dates from 1996 to now), and asks both
# `warcdex access check` and pywb's checker for every capture, as the public, as a user the
# rules name and as one they do not, with embargoes (newer, before, older) and another
# default access. Any answer or URL key that differs fails, naming the seed, the captures
# and the rules involved (the first one shrunk to the fewest rules that show it).
#
#   scripts/test-access-pywb.sh [SEED...]     # the given seeds instead of 3 fresh ones
#
# pywb 2.10 comes from the peers' venv, target/formats-venv (scripts/formats-venv.sh installs
# it from PyPI when missing). WARCDEX_BIN names a warcdex binary to use instead of building
# the debug one (`cargo build --locked`).
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "test-access-pywb: $*" >&2; exit 1; }

python=$(scripts/formats-venv.sh) || die "cannot install the peers' venv"
"$python" -c 'import pywb, sys; sys.exit(not pywb.__version__.startswith("2.10."))' 2>/dev/null \
    || die "$python has no pywb 2.10"

if [ -n "${WARCDEX_BIN:-}" ]; then
    bin=$WARCDEX_BIN
    [ -x "$bin" ] || die "WARCDEX_BIN=$bin is not an executable"
else
    source scripts/built-bin.sh
    bin=$(built_bin dev) || die "cannot build warcdex"
fi

seeds=("$@")
if [ "${#seeds[@]}" -eq 0 ]; then
    # Three fresh seeds (access_parity.py picks and prints one when given none).
    seeds=("" "" "")
fi
for seed in "${seeds[@]}"; do
    # shellcheck disable=SC2086 # an empty seed is no argument
    "$python" scripts/access_parity.py --bin "$bin" $seed || die "pywb and warcdex differ (above)"
done
echo "test-access-pywb.sh: ok"
