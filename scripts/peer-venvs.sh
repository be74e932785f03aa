#!/usr/bin/env bash
# The Python environments of the peer tests, each made from PyPI under target/NAME-venv
# when it is missing or lacks a module: the pins live here, in one place.
#
#   scripts/peer-venvs.sh NAME...    (formats duckdb graph mcp mcp1 spark, or all)
#
# scripts/test.sh makes them all in the background while cargo compiles (a fresh CI
# machine spent minutes in pip between the tests); each test script asks again for its
# own, which costs nothing once it is made.
set -euo pipefail
set -f # the requirements hold brackets and stars, which must reach pip as written
cd "$(dirname "$0")/.."

# spec NAME: "MODULES|REQUIREMENTS" of NAME's venv (modules as `import` takes them).
spec() {
    case $1 in
        formats) echo "fastwarc, wacz, pywb, zstandard|fastwarc==2.0.* wacz==0.6.* pywb==2.10.* zstandard==0.25.*" ;;
        duckdb) echo "duckdb|duckdb==2.*" ;;
        graph) echo "networkx, pyarrow, publicsuffixlist|networkx==3.* pyarrow>=14 publicsuffixlist>=1" ;;
        mcp) echo "mcp|mcp==2.3.0" ;;
        mcp1) echo "mcp|mcp==1.30.0" ;;
        spark) echo "pyspark, moto, boto3|pyspark==3.5.* moto[server]==5.* boto3" ;;
        *) return 1 ;;
    esac
}

# make NAME: target/NAME-venv with its requirements, unless it imports them already.
make_venv() {
    local s venv modules requirements
    s=$(spec "$1") || { echo "peer-venvs: no venv named $1" >&2; return 2; }
    venv=target/$1-venv
    modules=${s%%|*}
    read -ra requirements <<< "${s#*|}"
    "$venv/bin/python" -c "import $modules" 2> /dev/null && return 0
    echo "peer-venvs: installing ${requirements[*]} into $venv" >&2
    python3 -m venv "$venv" || { echo "peer-venvs: cannot make $venv" >&2; return 1; }
    "$venv/bin/pip" install --quiet --disable-pip-version-check "${requirements[@]}" >&2 \
        || { echo "peer-venvs: cannot install ${requirements[*]} into $venv" >&2; return 1; }
}

names=("$@")
[ "${names[*]}" != all ] || names=(formats duckdb graph mcp mcp1 spark)
[ ${#names[@]} -gt 0 ] || { echo "usage: scripts/peer-venvs.sh NAME... | all" >&2; exit 2; }
status=0
for name in "${names[@]}"; do
    make_venv "$name" || status=1
done
exit "$status"
