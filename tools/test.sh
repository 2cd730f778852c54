#!/usr/bin/env bash
# Install everything the test suite needs (Chromium included), then run the whole suite.
# Usage: bash tools/test.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

if ! command -v chromium >/dev/null 2>&1; then
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
python3 -m pip install -q --disable-pip-version-check -e '.[test]'
exec python3 -m pytest -q "$@"
