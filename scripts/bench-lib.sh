# Shared by the scripts/bench-*.sh drivers (sourced, not run).
# measure CMD...: median wall seconds and peak RSS (KiB) of CMD over $runs runs, stdout
# discarded; $before, when set, is run before each run and not timed (to remove an output
# a step will not overwrite). Needs GNU time.
command -v /usr/bin/time >/dev/null || { echo "benchmarks need GNU time (apt-get install time)" >&2; exit 1; }
bench_tmp=$(mktemp)
trap 'rm -f "$bench_tmp"' EXIT

measure() {
    local times=() rss=0
    for _ in $(seq "$runs"); do
        [ -z "${before:-}" ] || eval "$before"
        # Wall time from the clock in nanoseconds: GNU time's %e has 10 ms steps, which
        # decided a target within 1 % (cdx -j2 on one file) either way.
        local t0 t1
        t0=$(date +%s%N)
        /usr/bin/time -o "$bench_tmp" -f "%M" "$@" > /dev/null 2>/dev/null
        t1=$(date +%s%N)
        times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')")
        local r
        r=$(tail -1 "$bench_tmp")
        (( r > rss )) && rss=$r
    done
    echo "$(median "${times[@]}") $rss"
}
# median X...: the middle value (the lower of the two middle ones for an even count).
median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }

# header / row NAME SECONDS RSS_KIB: one table line with MB/s of $size compressed bytes and
# ratios against $zs (zcat seconds) and $is (inflate-alone seconds).
header() { printf '%-36s %8s %9s %9s %9s %9s\n' tool seconds "MB/s gz" "x zcat" "x inflate" "RSS MiB"; }
row() { awk -v n="$1" -v s="$2" -v r="$3" -v size="$size" -v z="$zs" -v i="$is" \
    'BEGIN { printf "%-36s %8.2f %9.1f %9.2f %9.2f %9.1f\n", n, s, size/1e6/s, z/s, s/i, r/1024 }'; }
