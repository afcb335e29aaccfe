#!/usr/bin/env bash
# bench-table.sh — issue 41's table: every task timed against wc -l, jq, jaq
# and ccusage in the same run, each figure beside the issue's goal and
# compared with the committed baseline (bench/baseline.tsv). `make bench`
# runs it after the Go benchmarks; see docs/performance.md.
#
# Usage:
#   scripts/bench-table.sh            the table; exit 1 if a figure is more than
#                                     10% worse than the baseline (REGRESSION)
#   BASELINE_UPDATE=1 scripts/bench-table.sh
#                                     the same run, written as the new baseline
#                                     (commit it with a message that says why);
#                                     a figure this run did not measure (TIMED=0,
#                                     SPEND=0, SWEEP=0) keeps its old value
#
# The rows (the corpora are built in $WORK when missing):
#   final, types, text, tools -F csv, usage -F json on `real` (the real captures
#     but 19-big-tool-result, concatenated with ids renamed to 300 MB): ccfilter's
#     median over wc -l's (lower is better), jq's and jaq's over ccfilter's
#     (× faster; higher is better), the four run in turn, round after round;
#     jq and jaq run the programs of bench-compare.sh --help
#   all -F ndjson --redact over --no-redact, all -F markdown (redacted by
#     default) over --no-redact: paired runs, one of each in turn
#   all -F otlp --no-redact over all -F ndjson; all -F html over all -F markdown
#   usage --by day and sessions against ccusage daily and session on a tree of
#     SPEND_COPIES copies of ../shared/transcripts with every id renamed
#     (53: about 0.8 GB)
#   final, text, tools, usage, types on `codex` and `gemini` (each CLI's
#     streams in ../shared/agents concatenated with ids renamed, 300 MB), per
#     byte over the same on `real` (goal at most 1.5×, issue 43)
#   peak RSS of every preset in every format on `real19` (the same with
#     19-big-tool-result, 3 MB lines), largest shown, goal under 48 MiB
#   peak RSS of every preset in every format on `line` (02-write-read with its
#     Write call's content made LINE_SIZE bytes, default 100 MB), shown as
#     (peak − 32 MiB) / the line's size, goal at most 3
#
# The page cache is set the same way before every timed series: sync, drop
# the clean caches (echo 1 > /proc/sys/vm/drop_caches, root only), then one
# read of the input (cat FILE > /dev/null). So every series reads a file that
# came back from disk once (large folios), never one just written (small
# pages), which moved jq-relative figures by 1.5× between runs (issue 41).
# Without the right to drop the caches the series read a warm cache as it
# is, and the table says so.
#
# Environment:
#   RUNS=5         timed runs per series (the median is used)
#   TIMED=1        the timed rows on real, from final to html (0: skip)
#   SPEND=1        time usage --by day and sessions against ccusage (0: skip)
#   AGENTS_ROWS=1  time the five presets on corpora of Codex CLI's and Gemini
#                  CLI's streams (AGENTS=../shared/agents), per byte against
#                  real (issue 43; 0: skip)
#   SPEND_COPIES=53
#   SWEEP=1        the two peak RSS sweeps (0: skip)
#   LINE_SIZE=100000000
#   CORPUS_SIZE=300MB  the size of real and real19 (with WORK elsewhere: a
#                  quick check of the harness, RUNS=1 CORPUS_SIZE=10MB
#                  SPEND_COPIES=2 LINE_SIZE=10000000 WORK=/tmp/bench-small)
#   WORK=/tmp/ccfilter-bench   corpora, binaries, table.tsv (the measurements)
#   BASELINE=bench/baseline.tsv (relative to the repository)
#   CCFILTER_BIN=PATH          this ccfilter instead of building ./cmd/ccfilter
#   CAPTURES, TRANSCRIPTS, JAQ, TIMEOUT: as in bench-compare.sh
set -u
set -o pipefail
export LC_NUMERIC=C LC_ALL=C

case ${1:-} in -h | --help)
	sed -n '2,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
	exit 0
	;;
esac
RUNS=${RUNS:-5}
SWEEP=${SWEEP:-1}
TIMED=${TIMED:-1}
AGENTS_ROWS=${AGENTS_ROWS:-1}
TIMEOUT=${TIMEOUT:-180}
WORK=${WORK:-/tmp/ccfilter-bench}
REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
AGENTS=${AGENTS:-$REPO/../shared/agents}
CAPTURES=${CAPTURES:-$REPO/../shared/captures}
JAQ=${JAQ:-$REPO/../shared/tools/jaq}
BASELINE=${BASELINE:-$REPO/bench/baseline.tsv}
case $RUNS in '' | *[!0-9]* | 0) echo "RUNS must be a positive integer" >&2; exit 2 ;; esac
mkdir -p "$WORK" || exit 1
. "$REPO/scripts/bench-lib.sh" || exit 1
(cd "$REPO" && go build -o "$WORK/benchtable" ./internal/benchtable) || exit 1

OUT=$WORK/table.tsv
: >"$OUT"
fact() { printf '@%s\t%s\n' "$1" "$2" >>"$OUT"; }
put() { printf '%s\t%s\t%s\n' "$1" "$2" "${3:-}" >>"$OUT"; }

# settle FILE...: the page cache state every series starts from.
CACHE="dropped (sync; echo 1 > /proc/sys/vm/drop_caches), then the input read once"
settle() {
	sync
	if ! { echo 1 >/proc/sys/vm/drop_caches; } 2>/dev/null; then
		CACHE="warm as found (drop_caches not allowed here), then the input read once"
	fi
	cat "$@" >/dev/null
}

fact date "$(date -u '+%Y-%m-%d %H:%M UTC')"
fact commit "$(cd "$REPO" && git describe --always --dirty 2>/dev/null || echo unknown)"
fact machine "$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cpus, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), linux $(uname -r)"
fact load "$(cut -d' ' -f1-3 /proc/loadavg) at the start (1, 5, 15 min)"
fact command "RUNS=$RUNS TIMED=$TIMED AGENTS_ROWS=$AGENTS_ROWS SPEND=${SPEND:-1} SWEEP=$SWEEP SPEND_COPIES=$SPEND_COPIES scripts/bench-table.sh"
fact runs "medians of $RUNS"

# ------------------------------------------------------------------ tasks
series() { # series KEY TOOL BIN TASK FILE [ARGS...]: settles, measures, records
	local key=$1
	shift
	settle "$4"
	log "  $key"
	if measure "$RUNS" "$1" "$2" "$3" "$4" "${@:5}"; then
		put "$key" "$M_SEC" "$M_ALL"
	else
		log "  $key: n/a, $M_ERR"
		fact "n/a $key" "$M_ERR"
	fi
}
if [ "$TIMED" = 1 ]; then
	f=$(corpus real) || exit 1
	fact corpus "$(basename "$f"): $(awk -v b="$(stat -c %s "$f")" 'BEGIN { printf "%.0f MB", b / 1e6 }'), $(wc -l <"$f") lines"
	log "timing on $f, $RUNS run(s) each"
	series wc wc "" wc "$f"
	# Each task in rounds: wc -l, ccfilter, jq, jaq, one run of each in turn,
	# so that a drift of the machine (a virtual machine's neighbours moved
	# the medians of one series by up to 1.5x within minutes) weighs on a
	# ratio's two sides alike; wc -l's own series for the task is "wc@TASK".
	for task in final types text tools usage; do
		settle "$f"
		log "  $task (with wc -l, jq, jaq in turn)"
		declare -A got=()
		for ((i = 0; i < RUNS; i++)); do
			measure 1 wc "" wc "$f" && got[wc]+="$M_SEC "
			measure 1 ccfilter "$CCFILTER" "$task" "$f" && got[cc]+="$M_SEC " || fact "n/a $task" "$M_ERR"
			[ -n "$JQ" ] && { measure 1 jq "$JQ" "$task" "$f" && got[jq]+="$M_SEC " || fact "n/a $task/jq" "$M_ERR"; }
			[ -n "$JAQ" ] && { measure 1 jaq "$JAQ" "$task" "$f" && got[jaq]+="$M_SEC " || fact "n/a $task/jaq" "$M_ERR"; }
		done
		# shellcheck disable=SC2086 # the runs are separate words
		{
			[ -n "${got[wc]:-}" ] && put "wc@$task" "$(median ${got[wc]})" "$(echo ${got[wc]} | tr ' ' ,)"
			[ -n "${got[cc]:-}" ] && put "$task" "$(median ${got[cc]})" "$(echo ${got[cc]} | tr ' ' ,)"
			[ -n "${got[jq]:-}" ] && put "$task/jq" "$(median ${got[jq]})" "$(echo ${got[jq]} | tr ' ' ,)"
			[ -n "${got[jaq]:-}" ] && put "$task/jaq" "$(median ${got[jaq]})" "$(echo ${got[jaq]} | tr ' ' ,)"
		}
		unset got
	done

	# Paired: one run of each in turn, so that a drift of the machine weighs on
	# both alike.
	for fm in ndjson markdown; do
		settle "$f"
		log "  redact-$fm"
		ps=() rs=()
		for ((i = 0; i < RUNS; i++)); do
			measure 1 ccfilter "$CCFILTER" run "$f" all --format "$fm" --no-redact && ps+=("$M_SEC")
			measure 1 ccfilter "$CCFILTER" run "$f" all --format "$fm" --redact && rs+=("$M_SEC")
		done
		[ ${#ps[@]} -gt 0 ] && put "redact-$fm/plain" "$(median "${ps[@]}")"
		[ ${#rs[@]} -gt 0 ] && put "redact-$fm/redacted" "$(median "${rs[@]}")"
	done
	series ndjson ccfilter "$CCFILTER" run "$f" all --format ndjson
	series otlp ccfilter "$CCFILTER" run "$f" all --format otlp --no-redact
	series markdown ccfilter "$CCFILTER" run "$f" all --format markdown
	series html ccfilter "$CCFILTER" run "$f" all --format html
fi

# ------------------------------------------------------------------ agents
# Issue 43: each preset on a corpus of Codex CLI's and of Gemini CLI's
# streams, against the same preset on real, per byte (internal/benchtable
# divides by the *_bytes series).
if [ "$AGENTS_ROWS" = 1 ]; then
	f=$(corpus real) || exit 1
	put real_bytes "$(stat -c %s "$f")"
	for cli in codex gemini; do
		if fa=$(corpus "$cli"); then
			put "${cli}_bytes" "$(stat -c %s "$fa")"
			fact "corpus-$cli" "$(basename "$fa"): $(awk -v b="$(stat -c %s "$fa")" 'BEGIN { printf "%.0f MB", b / 1e6 }'), $(wc -l <"$fa") lines"
			for task in final text tools usage types; do
				if [ "$TIMED" != 1 ]; then series "$task" ccfilter "$CCFILTER" "$task" "$f"; fi
				series "$cli/$task" ccfilter "$CCFILTER" "$task" "$fa"
			done
		else
			fact "n/a $cli" "its corpus could not be made"
		fi
	done
fi

# ------------------------------------------------------------------ spend
if [ "${SPEND:-1}" = 1 ]; then
	if tree=$(spend_tree) && cu=$(ccusage_bin); then
		fact transcripts "$tree: $SPEND_COPIES copies, $(find -L "$tree" -name '*.jsonl' -printf '%s\n' | awk '{ s += $1; n++ } END { printf "%.2f GB in %d .jsonl files", s / 1e9, n }'); ccusage $CCUSAGE_VERSION"
		mapfile -t files < <(find -L "$tree" -type f -name '*.jsonl')
		for task in day session; do
			settle "${files[@]}"
			log "  spend-$task"
			spend_pair "$task" "$tree" "$cu"
			put "spend-$task" "$SP_CC" "$SP_CC_ALL"
			put "spend-$task/ccusage" "$SP_CU" "$SP_CU_ALL"
			put "spend-$task/floor" "$SP_FL" "$SP_FL_ALL"
		done
	else
		fact "n/a spend" "the transcript tree or ccusage could not be made"
	fi
fi

# ------------------------------------------------------------------ memory
# One run each: a peak RSS does not move with the machine's load. A preset
# that refuses a format (exit 2) is left out.
if [ "$SWEEP" = 1 ]; then
	PRESETS=($("$CCFILTER" presets 2>/dev/null | grep -E '^[a-z]+$'))
	FORMATS=(text markdown ndjson csv json html otlp)
	line=$(corpus line) || exit 1
	put line_bytes "$(awk 'length($0) > m { m = length($0) } END { print m }' "$line")"
	r19=$(corpus real19) || exit 1
	fact corpus-rss "$(basename "$r19"): $(awk -v b="$(stat -c %s "$r19")" 'BEGIN { printf "%.0f MB", b / 1e6 }'); $(basename "$line"): a line of $(awk 'length($0) > m { m = length($0) } END { print m }' "$line") bytes"
	for c in rss:$r19 rssline:$line; do
		settle "${c#*:}"
		log "  ${c%%:*}: every preset in every format"
		for p in "${PRESETS[@]}"; do
			for fm in "${FORMATS[@]}"; do
				"$CCFILTER" "$p" --format "$fm" </dev/null >/dev/null 2>&1
				[ $? = 2 ] && continue
				if measure 1 ccfilter "$CCFILTER" run "${c#*:}" "$p" --format "$fm"; then
					put "${c%%:*}/$p/$fm" "$M_RSS"
				else
					fact "n/a ${c%%:*}/$p/$fm" "$M_ERR"
				fi
			done
		done
	done
fi

fact cache "$CACHE"
fact load-end "$(cut -d' ' -f1-3 /proc/loadavg) at the end"
fact versions "jq $($JQ --version 2>&1), jaq $(${JAQ:-false} --version 2>&1 | head -1)"
echo
if [ "${BASELINE_UPDATE:-0}" = 1 ]; then
	"$WORK/benchtable" -baseline "$BASELINE" -update "$OUT"
else
	"$WORK/benchtable" -baseline "$BASELINE" "$OUT"
fi
rc=$?
echo "measurements: $OUT"
exit $rc
