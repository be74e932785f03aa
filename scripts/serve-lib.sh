# Shared by scripts/test-browser.sh, scripts/bench-serve.sh and scripts/hostile-serve.sh
# (sourced, not run): a
# work directory and a `warcdex serve` in the background, both removed on exit.
work=$(mktemp -d)
server=
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# start_server NAME TRIES BIN SERVE_ARGS...: starts BIN serve on a free loopback port
# (log in $work/serve.log), waits up to TRIES × 0.1 s for it to listen, sets $server
# and $port; exits naming NAME if it dies or does not start.
start_server() {
    local name=$1 tries=$2 bin=$3
    shift 3
    "$bin" serve --addr 127.0.0.1:0 "$@" 2> "$work/serve.log" &
    server=$!
    port=
    for _ in $(seq "$tries"); do
        port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$work/serve.log")
        [ -n "$port" ] && return 0
        kill -0 "$server" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
        sleep 0.1
    done
    echo "$name: the server did not start" >&2
    cat "$work/serve.log" >&2
    exit 1
}
