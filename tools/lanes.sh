#!/usr/bin/env bash
# The whole suite in two lanes at once (tools/test.sh runs this once everything is installed):
# - the real-time lane: the files marked `realtime` (firmware on MicroPython, hands and presence on
#   the machine's clock), in one process at normal priority: what they test is timing;
# - the rest, in worker processes (whole files each, the longest first: tests/conftest.py) under
#   SCHED_IDLE: they wait on events, not on time, and take only the CPU the real-time lane leaves.
# QUIN_WORKERS sets how many workers the rest has (default 3, measured best on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp -t quin-realtime.XXXXXX)
start=$(date +%s)
python3 -m pytest -q -m realtime -p no:cacheprovider >"$log" 2>&1 &
realtime=$!
trap 'kill "$realtime" 2>/dev/null' INT TERM  # interrupted: the real-time lane stops too
set +e
chrt --idle 0 python3 -m pytest -q -m "not realtime" -n "${QUIN_WORKERS:-3}" --dist loadfile
rest=$?
wait "$realtime"
timed=$?
set -e
echo
echo "--- the real-time lane (tests marked realtime, one process) ---"
cat "$log"
rm -f "$log"
echo "--- both lanes: $(( $(date +%s) - start )) s; rest exit $rest, real-time exit $timed ---"
[ "$rest" -eq 0 ] && [ "$timed" -eq 0 ]
