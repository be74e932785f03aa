#!/usr/bin/env bash
# The share of snippets that start outside a page's main content:
# 200 two-word queries taken from random pages' main text, every snippet of their top 10
# hits, checked against the main text the current extraction finds.
# Usage: scripts/bench-snippets.sh MANIFEST [BINARY...]
#   MANIFEST: archives to import (one path per line); each BINARY (default: this
#   checkout's release-lto build) imports and indexes them and answers the queries.
set -euo pipefail
cd "$(dirname "$0")/.."
manifest=$(realpath "$1"); shift
source scripts/built-bin.sh
current=$(built_bin "${BENCH_PROFILE:-release-lto}")
[ $# -gt 0 ] || set -- "$current"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$current" import "$manifest" "$work/truth" >/dev/null 2>&1
"$current" segment-info --rows "$work/truth" > "$work/rows.jsonl"
for bin in "$@"; do
    d="$work/$(basename "$bin")-$RANDOM"
    "$bin" import "$manifest" "$d/seg" >/dev/null 2>&1
    "$bin" index "$d/seg" --out "$d/pindexes/a/main" >/dev/null 2>&1
    python3 - "$work/rows.jsonl" "$bin" "$d" <<'PY'
import json, random, re, subprocess, sys
rows_path, binary, index_dir = sys.argv[1:4]
rows, pages = {}, []
for line in open(rows_path):
    r = json.loads(line)
    rows[r['key']] = r
    m = r.get('main_text')
    if r['mime'] == 'text/html' and m and len(m.split()) >= 40:
        pages.append(r)
random.seed(19)
def norm(s): return ' '.join(re.findall(r'\w+', s.lower()))
outside = total = 0
for r in random.sample(pages, min(200, len(pages))):
    words = [w for w in r['main_text'].split() if re.fullmatch(r'[A-Za-z]{5,}', w)]
    if len(words) < 4:
        continue
    q = f'{words[len(words) // 2]} {words[len(words) // 2 + 1]}'
    out = subprocess.run([binary, 'search', '-d', index_dir, '--json', '-n', '10',
                          '--hits-per-site', '0', q], capture_output=True, text=True).stdout
    for h in json.loads(out)['hits']:
        row = rows.get(f"{h['url']} {h['digest']}")
        if not row or not row.get('main_text'):
            continue
        head = norm(h['snippet']['text']).split()[:5]
        if len(head) < 3:
            continue
        total += 1
        outside += ' '.join(head) not in norm(row['main_text'])
print(f"{binary}: {outside} of {total} snippets ({100 * outside / max(total, 1):.1f} %) start outside the main content")
PY
done
