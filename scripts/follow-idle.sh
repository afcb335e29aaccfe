#!/usr/bin/env bash
# What an idle `ccfilter --follow` costs: it follows a file nobody writes
# for SECONDS (default 20) and reports the CPU time it used (utime+stime
# from /proc, in clock ticks of 10 ms) and its wakeups. Quoted in
# docs/follow.md and the issue note. Linux only.
set -euo pipefail
SECONDS_IDLE=${1:-20}
BIN=${BIN:-bin/ccfilter}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
head -3 testdata/events/04-parallel-tools.jsonl > "$dir/run.jsonl"
"$BIN" -f "$dir/run.jsonl" > /dev/null 2>&1 &
pid=$!
sleep 1 # its start is not idle
ticks() { awk '{print $14+$15}' "/proc/$pid/stat"; }
switches() { awk '/^(voluntary|nonvoluntary)_ctxt_switches/ {s+=$2} END {print s}' /proc/$pid/status; }
t0=$(ticks); s0=$(switches)
sleep "$SECONDS_IDLE"
t1=$(ticks); s1=$(switches)
kill -INT $pid; wait $pid || true
echo "idle ${SECONDS_IDLE}s: $((t1 - t0)) clock ticks of CPU ($(( (t1 - t0) * 10 )) ms), $((s1 - s0)) context switches of the main thread"
