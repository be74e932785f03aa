# Sourced by the browser tests (scripts/test-browser.sh, test-view.sh, test-pywb.sh):
# `need_chromium NAME` exits 0 (skipped) when WARCDEX_SKIP_BROWSER=1, and installs
# Debian's chromium when it is missing (as root; otherwise it exits 1 saying how).
need_chromium() {
    local name=$1
    if [ "${WARCDEX_SKIP_BROWSER:-}" = 1 ]; then
        echo "$name: skipped (WARCDEX_SKIP_BROWSER=1)" >&2
        exit 0
    fi
    command -v chromium >/dev/null 2>&1 && return 0
    if [ "$(id -u)" != 0 ]; then
        echo "$name: chromium is missing and this is not root; install it (apt-get install chromium) or set WARCDEX_SKIP_BROWSER=1" >&2
        exit 1
    fi
    echo "$name: installing chromium" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends chromium >&2
}
