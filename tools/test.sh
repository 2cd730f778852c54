#!/usr/bin/env bash
# Install everything the test suite needs (Chromium included; MicroPython comes with the [test] extra),
# then run the whole suite.
# Usage: bash tools/test.sh            the whole suite, in two lanes (below)
#        bash tools/test.sh [args]     pytest with those arguments, in one process
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# chromium: the browser tests; systemd: `systemd-analyze verify` checks the unit `quin setup` writes
# (and `systemctl --root` enables it), usermod/gpasswd (passwd) add and remove the board's groups;
# iproute2: the mDNS test runs in a network namespace of its own; postgresql: the hub's tests.
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v systemd-analyze >/dev/null 2>&1 || need+=(systemd)
command -v usermod >/dev/null 2>&1 || need+=(passwd)
command -v ip >/dev/null 2>&1 || need+=(iproute2)
# postgresql: the hub's tests run a throwaway cluster (initdb, pg_ctl) as an unprivileged user
command -v pg_ctl >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || need+=(postgresql)
# util-linux: runuser (PostgreSQL as an unprivileged user) and chrt (the lanes below)
command -v runuser >/dev/null 2>&1 && command -v chrt >/dev/null 2>&1 || need+=(util-linux)
if [ ${#need[@]} -gt 0 ]; then
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
python3 -m pip install -q --disable-pip-version-check -e '.[test]'
if [ $# -gt 0 ]; then
    exec python3 -m pytest -q "$@"
fi

exec bash tools/lanes.sh
