#!/usr/bin/env bash
# Hostile clients against `warcdex serve` (not a test): the server runs
# under `ulimit -n 256` over the bundled example's index; a Python client opens 1,000
# connections (half idle, half sending a request head that never ends), times a normal
# query while they are open and once they are closed, then opens 100 idle connections and
# checks that the server closes them after its header timeout. Prints the figures; exits
# 1 if the server died, a normal query failed or took 1 s or more once they were closed,
# or an idle connection was not closed.
#
# Usage: scripts/hostile-serve.sh
# Env:   WARCDEX_BIN (default: cargo build --release), CONNECTIONS (1000), NOFILE (256),
#        HEADER_TIMEOUT (seconds, 10: the server's default).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${WARCDEX_BIN:-}" ]; then
    bin=$(realpath "$WARCDEX_BIN")
else
    source scripts/built-bin.sh
    bin=$(built_bin)
fi
source scripts/serve-lib.sh
nofile=${NOFILE:-256}
header_timeout=${HEADER_TIMEOUT:-10}
WARCDEX_BIN=$bin scripts/example.sh "$work/example" >/dev/null 2>&1
# The server under a low descriptor limit (start_server runs "$wrapper serve ARGS").
cat > "$work/limited" <<SH
#!/bin/sh
ulimit -n $nofile && exec "$bin" "\$@"
SH
chmod +x "$work/limited"
start_server hostile-serve 300 "$work/limited" -d "$work/example" --header-timeout "$header_timeout"
echo "hostile-serve: warcdex serve on port $port, ulimit -n $nofile, header timeout ${header_timeout}s"

status=0
python3 - "$port" "${CONNECTIONS:-1000}" "$header_timeout" "$server" <<'PY' || status=$?
import os, socket, sys, time, urllib.request

port, n, header_timeout, pid = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
ok = True

def alive():
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False

def query(label):
    global ok
    t0 = time.monotonic()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/search.json?query=organisation", timeout=30) as r:
            body = r.read()
            status = r.status
    except Exception as e:
        print(f"  {label}: FAILED: {e}")
        ok = False
        return None
    dt = time.monotonic() - t0
    good = status == 200 and b"Example" in body
    print(f"  {label}: HTTP {status} in {dt * 1000:.0f} ms{'' if good else ' (unexpected body)'}")
    ok = ok and good
    return dt

def open_conns(count, half):
    socks, failed = [], 0
    for i in range(count):
        s = socket.socket()
        s.settimeout(5)
        try:
            s.connect(("127.0.0.1", port))
            if half and i % 2 == 1:
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Never-Ending: ")
            socks.append(s)
        except OSError:
            failed += 1
            s.close()
    return socks, failed

query("before")
t0 = time.monotonic()
socks, failed = open_conns(n, True)
print(f"  opened {len(socks)} connections ({len(socks) // 2} idle, {len(socks) - len(socks) // 2} half-sent), "
      f"{failed} failed to connect, in {time.monotonic() - t0:.1f} s")
query("while they are open")
for s in socks:
    s.close()
time.sleep(0.2)
dt = query("after they are closed")
if dt is None or dt >= 1.0:
    ok = False
if not alive():
    print("  the server died")
    ok = False

# Idle connections are closed by the server after the header timeout.
socks, failed = open_conns(100, False)
time.sleep(header_timeout + 2)
closed = 0
for s in socks:
    s.settimeout(0.5)
    try:
        closed += s.recv(1) == b""
    except ConnectionResetError:
        closed += 1
    except socket.timeout:
        pass
    s.close()
print(f"  idle connections closed by the server {header_timeout + 2:.0f} s later: {closed} of {len(socks)}")
ok = ok and closed == len(socks) and alive()
query("at the end")
print("hostile-serve: " + ("PASS" if ok and alive() else "FAIL"))
sys.exit(0 if ok else 1)
PY
echo "server log (accept failures are reported at most once a second):"
grep -c "accept failed" "$work/serve.log" | sed 's/^/  accept-failure lines: /' || true
exit $status
