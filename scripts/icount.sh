#!/usr/bin/env bash
# icount.sh BIN [FILE]: the instructions (cachegrind's "I refs") each task of
# issue 41's table costs ccfilter BIN on FILE (default /tmp/real30.jsonl: a
# 30 MB piece of the real corpus, `go run ./internal/gen -real -size 30MB`),
# with `wc -l` first for scale. Deterministic to about 1-2% (the garbage
# collector's timing), so a change can be weighed on a busy machine, where
# wall times move by 1.5x. Needs valgrind.
set -u
BIN=$1
F=${2:-/tmp/real30.jsonl}
ic() { GOMAXPROCS=1 valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 >/dev/null | awk '/I *refs/ {gsub(",", "", $NF); print $NF}'; }
printf "wc-l\t%s\n" "$(ic wc -l "$F")"
for t in "final" "types" "text" "tools -F csv" "usage -F json" "-F ndjson --no-redact" "-F ndjson --redact" "-F markdown" "-F markdown --no-redact" "-F html" "-F otlp --no-redact"; do
	# shellcheck disable=SC2086 # the task's words are separate arguments
	printf "%s\t%s\n" "$t" "$(ic "$BIN" $t "$F")"
done
