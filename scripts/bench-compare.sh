#!/usr/bin/env bash
# bench-compare.sh — ccfilter side by side with jq, gojq and jaq, on corpora
# made of real claude-code streams.
#
# The goals below are the earlier issues' (16, 28, 29, 30). Issue 41's table,
# its goals and the baseline check are scripts/bench-table.sh (make bench);
# this script is the wider look: gojq, from a pipe, four corpora, 1 GiB.
#
# Usage:
#   scripts/bench-compare.sh [CORPUS...]      (default: real partial unanswered gen)
#
# Corpora, built in $WORK when missing (go run ./internal/gen):
#   real        the real captures (../shared/captures/*.jsonl but 19-big-tool-result)
#               concatenated round after round with their ids renamed, to 300 MB:
#               what a directory of runs looks like (60-long-session's shape)
#   partial     07-partial-messages repeated the same way, to 200 MB: dense tiny
#               lines (--include-partial-messages runs)
#   unanswered  1,000,000 tool calls that are never answered, ~170-230 B a line
#   gen         the generator's stream, 300 MB (-seed 1): 93% of its bytes in
#               lines over 64 KiB, the shape the earlier benchmark had alone
# and for the memory checks only (ccfilter alone):
#   real1g      the real corpus to 1 GiB: peak RSS within 20% of real's
#
# For each timed corpus and task: ccfilter reading the file, ccfilter reading a
# pipe (cat FILE | ccfilter ...), jq, gojq and jaq; the median of RUNS wall
# times; the ratios jq/ccfilter and jaq/ccfilter (how many times faster ccfilter
# is) from the file and from the pipe, against the targets of issue 16. Then
# what --redact costs on the real corpus (all --format ndjson and markdown,
# with and without; goal: at most 1.30x), the HTML report against the
# markdown report (goal: at most 1.50x, under 64 MiB), usage over every
# session against ccusage (goal: at least 2x; SPEND=0 skips it), then the
# memory sweep: every preset in every format, from the file and from a
# pipe, on every corpus, one run each: peak RSS (goal: under 64 MiB, and on
# real1g within 20% of real).
#
# Environment:
#   RUNS=3        timed runs per tool and task (the median is shown)
#   SWEEP=1       run the memory sweep (0: skip it)
#   WORK=/tmp/ccfilter-bench   corpora, binaries and results.tsv
#   CAPTURES=../shared/captures (relative to the repository)
#   JAQ=../shared/tools/jaq      (jaq 2.3.0; no package installs it here)
#   CCFILTER_BIN=PATH            this ccfilter instead of building ./cmd/ccfilter
#   TIMEOUT=180   seconds after which one run is killed and shown as n/a (gojq's usage
#                 on the unanswered calls, a reduce into an object of a million keys)
#
# What it installs when missing: jq and GNU time (apt-get), the gojq CLI
# (go install github.com/itchyny/gojq/cmd/gojq@v0.12.19).
#
# The tasks (FILE is the input; jq, gojq and jaq run the same program):
#   final   ccfilter final            jq -r 'select(.type=="result") | .result' | tail -1
#   text    ccfilter text             jq -r 'select(.type=="assistant" and .parent_tool_use_id==null) | .message.content[] | select(.type=="text") | .text'
#   tools   ccfilter tools -F csv     jq -r 'select(.type=="assistant") | .message.content[] | select(.type=="tool_use") | [.id,.name,(.input|tostring)] | @csv'
#   usage   ccfilter usage -F json    jq -n 'reduce (inputs | select(.type=="assistant") | ...) ...' (tokens by message id, by model)
#   errors  ccfilter errors -F ndjson jq -c 'select(retries, denials, failed tool results, failed results)'
#   types   ccfilter types            jq -r '[.type, .subtype // ""] | @tsv' | sort | uniq -c
#   expr    ccfilter 'select(.type=="user") | .message.content[0].tool_use_id'   (the same for jq;
#           it fails on the replayed prompts, whose content is a string: an
#           error on stderr and exit 5 are expected of every tool there)
# The jq programs print what ccfilter prints, not byte for byte (ccfilter's
# text and CSV are richer); they are the one-liners a user would write.
set -u
set -o pipefail
export LC_NUMERIC=C LC_ALL=C

case ${1:-} in -h | --help)
	sed -n '2,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
	exit 0
	;;
esac
CORPORA=("$@")
[ ${#CORPORA[@]} -gt 0 ] || CORPORA=(real partial unanswered gen)
RUNS=${RUNS:-3}
SWEEP=${SWEEP:-1}
TIMEOUT=${TIMEOUT:-180}
WORK=${WORK:-/tmp/ccfilter-bench}
REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)} # (set it to run a copy of this script)
CAPTURES=${CAPTURES:-$REPO/../shared/captures}
JAQ=${JAQ:-$REPO/../shared/tools/jaq}
case $RUNS in '' | *[!0-9]* | 0) echo "RUNS must be a positive integer" >&2; exit 2 ;; esac
mkdir -p "$WORK" || exit 1
. "$REPO/scripts/bench-lib.sh" || exit 1

RESULTS=$WORK/results.tsv
printf 'corpus\ttask\ttool\tmedian_s\tpeak_rss_kib\truns\teach_s\n' >"$RESULTS"
NOTES=()
declare -A SEC RSS

ratio() { # ratio NUM DEN
	if [ -n "${1:-}" ] && [ -n "${2:-}" ]; then awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; else echo n/a; fi
}
# target CORPUS TASK: "jq-ratio jaq-ratio" the issue asks for ("- -": none)
target() {
	case $1/$2 in
	real/final | real/types) echo "15 6" ;;
	real/text | real/tools | real/usage | real/errors) echo "8 3" ;;
	real/expr) echo "3 -" ;;
	partial/expr | unanswered/expr) echo "- -" ;;
	partial/* | unanswered/*) echo "8 -" ;;
	*) echo "- -" ;;
	esac
}
meets() { # meets RATIO TARGET
	[ "$2" = - ] && { echo ""; return; }
	[ "$1" = n/a ] && { echo " (n/a)"; return; }
	awk -v r="$1" -v t="$2" 'BEGIN { if (r >= t) print " ok"; else print " MISSED" }'
}

# ------------------------------------------------------------------ timings
for c in "${CORPORA[@]}"; do
	f=$(corpus "$c") || exit 1
	bytes=$(stat -c %s "$f")
	log "timing on $f ($bytes bytes), $RUNS run(s) each"
	t0=$EPOCHREALTIME; wc -l "$f" >/dev/null; t1=$EPOCHREALTIME
	SEC[$c/floor/wc]=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
	for task in "${TASKS[@]}"; do
		for tool in ccfilter pipe jq gojq jaq; do
			case $tool in ccfilter | pipe) bin=$CCFILTER ;; jq) bin=$JQ ;; gojq) bin=$GOJQ ;; jaq) bin=$JAQ ;; esac
			[ -n "$bin" ] || continue
			log "  $task: $tool"
			if measure "$RUNS" "$tool" "$bin" "$task" "$f"; then
				SEC[$c/$task/$tool]=$M_SEC
				RSS[$c/$task/$tool]=$M_RSS
				printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$c" "$task" "$tool" "$M_SEC" "$M_RSS" "$RUNS" "$M_ALL" >>"$RESULTS"
			else
				NOTES+=("$c/$task/$tool: n/a, $M_ERR")
			fi
		done
	done
	echo
	echo "corpus $c: $f ($(awk -v b="$bytes" 'BEGIN { printf "%.0f MB", b / 1e6 }'), $(wc -l <"$f") lines; wc -l ${SEC[$c/floor/wc]} s)  runs: $RUNS  cpus: $(nproc)"
	printf '%-7s %9s %9s %9s %9s %9s %8s  %-16s %-16s %-14s %-14s\n' task ccfilter pipe jq gojq jaq rss_MiB "jq/cc (file)" "jq/cc (pipe)" "jaq/cc (file)" "jaq/cc (pipe)"
	for task in "${TASKS[@]}"; do
		read -r tjq tjaq <<<"$(target "$c" "$task")"
		cc=${SEC[$c/$task/ccfilter]:-} cp=${SEC[$c/$task/pipe]:-}
		jqs=${SEC[$c/$task/jq]:-} jaqs=${SEC[$c/$task/jaq]:-}
		r1=$(ratio "$jqs" "$cc") r2=$(ratio "$jqs" "$cp") r3=$(ratio "$jaqs" "$cc") r4=$(ratio "$jaqs" "$cp")
		rss=$(awk -v a="${RSS[$c/$task/ccfilter]:-0}" -v b="${RSS[$c/$task/pipe]:-0}" 'BEGIN { m = a > b ? a : b; printf "%.1f", m / 1024 }')
		printf '%-7s %9s %9s %9s %9s %9s %8s  %-16s %-16s %-14s %-14s\n' "$task" "${cc:-n/a}" "${cp:-n/a}" "${jqs:-n/a}" \
			"${SEC[$c/$task/gojq]:-n/a}" "${jaqs:-n/a}" "$rss" \
			"${r1}x$(meets "$r1" "$tjq")" "${r2}x$(meets "$r2" "$tjq")" "${r3}x$(meets "$r3" "$tjaq")" "${r4}x$(meets "$r4" "$tjaq")"
	done
	goals=
	for task in "${TASKS[@]}"; do
		read -r a b <<<"$(target "$c" "$task")"
		[ "$a" = - ] && continue
		goals+="$task ${a}x jq"
		[ "$b" = - ] || goals+=", ${b}x jaq"
		goals+="; "
	done
	echo "(targets: ${goals:-none})"
done

# ------------------------------------------------------------------ redaction
# What --redact costs (issue 28: at most 30% on all --format ndjson of the
# real corpus), and the markdown report, redacted by default, against
# --no-redact: the medians of RUNS runs each, one after the other.
if [[ " ${CORPORA[*]} " == *" real "* ]]; then
	f=$(corpus real) || exit 1
	echo
	echo "redaction on $f (median of $RUNS paired runs; goal: --redact at most 1.30x):"
	printf '%-22s %10s %10s %8s\n' task plain redacted ratio
	for fm in ndjson markdown; do
		# Paired: one run of each in turn, so that a machine's drift
		# weighs on both alike; the medians.
		ps=() rs=()
		for ((i = 0; i < RUNS; i++)); do
			measure 1 ccfilter "$CCFILTER" run "$f" all --format "$fm" --no-redact && ps+=("$M_SEC")
			measure 1 ccfilter "$CCFILTER" run "$f" all --format "$fm" --redact && rs+=("$M_SEC")
		done
		plain=$( [ ${#ps[@]} -gt 0 ] && median "${ps[@]}")
		red=$( [ ${#rs[@]} -gt 0 ] && median "${rs[@]}")
		r=$( [ -n "$red" ] && [ -n "$plain" ] && awk -v a="$red" -v b="$plain" 'BEGIN { printf "%.2f", a / b }' || echo n/a)
		mark=$(awk -v r="$r" 'BEGIN { if (r == "n/a") print ""; else if (r <= 1.3) print " ok"; else print " MISSED" }')
		printf '%-22s %10s %10s %7sx%s\n' "all --format $fm" "${plain:-n/a}" "${red:-n/a}" "$r" "$mark"
		printf '%s\t%s\t%s\t%s\t\t%s\t\n' real "redact-$fm" plain "$plain" "$RUNS" >>"$RESULTS"
		printf '%s\t%s\t%s\t%s\t\t%s\t\n' real "redact-$fm" redacted "$red" "$RUNS" >>"$RESULTS"
	done
fi

# ------------------------------------------------------------------ html
# The HTML report against the markdown report of the same run (issue 29:
# at most 1.5 times its time, under 64 MiB), both redacted (their default).
if [[ " ${CORPORA[*]} " == *" real "* ]]; then
	f=$(corpus real) || exit 1
	echo
	echo "html report on $f (median of $RUNS; goal: at most 1.50x markdown's time, peak RSS under 64 MiB):"
	printf '%-22s %10s %10s\n' format seconds rss_MiB
	for fm in markdown html; do
		if measure "$RUNS" ccfilter "$CCFILTER" run "$f" all --format "$fm"; then
			SEC[real/report/$fm]=$M_SEC
			printf '%-22s %10s %10s\n' "all --format $fm" "$M_SEC" "$(awk -v k="$M_RSS" 'BEGIN { printf "%.1f", k / 1024 }')"
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' real "report-$fm" ccfilter "$M_SEC" "$M_RSS" "$RUNS" "$M_ALL" >>"$RESULTS"
		else
			NOTES+=("real/report/$fm: n/a, $M_ERR")
		fi
	done
	if [ -n "${SEC[real/report/html]:-}" ] && [ -n "${SEC[real/report/markdown]:-}" ]; then
		awk -v a="${SEC[real/report/html]}" -v b="${SEC[real/report/markdown]}" 'BEGIN { r = a / b; printf "html/markdown: %.2fx%s\n", r, (r <= 1.5 ? " ok" : " MISSED") }'
	fi
fi

if [[ " ${CORPORA[*]} " == *" real "* ]] && [ "${SPEND:-1}" = 1 ]; then
	if tree=$(spend_tree) && cu=$(ccusage_bin); then
		cat "$tree"/*/*.jsonl >/dev/null # warm
		echo
		echo "usage over every session: $tree ($(du -shL "$tree" | cut -f1), $(find -L "$tree" -name '*.jsonl' | wc -l) files; median of $RUNS; goal: ccusage/ccfilter at least 2.0x):"
		printf '%-34s %10s %10s %8s\n' task ccfilter ccusage ratio
		for task in day session; do
			spend_pair "$task" "$tree" "$cu"
			a=$SP_CC b=$SP_CU
			label="usage --by day / ccusage daily"
			[ $task = session ] && label="sessions / ccusage session"
			printf '%-34s %10s %10s %7sx%s\n' "$label" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", b / a }')" \
				"$(awk -v a="$a" -v b="$b" 'BEGIN { if (b / a >= 2) print " ok"; else print " MISSED" }')"
			printf '%s\t%s\t%s\t%s\t\t%s\t%s\n' spend "$task" ccfilter "$a" "$RUNS" "$SP_CC_ALL" >>"$RESULTS"
			printf '%s\t%s\t%s\t%s\t\t%s\t%s\n' spend "$task" ccusage "$b" "$RUNS" "$SP_CU_ALL" >>"$RESULTS"
		done
	else
		NOTES+=("spend: n/a (the tree or ccusage could not be made)")
	fi
fi

# ------------------------------------------------------------------ memory
if [ "$SWEEP" = 1 ]; then
	PRESETS=($("$CCFILTER" presets 2>/dev/null | grep -E '^[a-z]+$'))
	[ ${#PRESETS[@]} -gt 0 ] || PRESETS=(all text tools errors final types usage subagents init)
	FORMATS=(text markdown ndjson csv json html)
	declare -A PEAK
	over=0
	echo
	echo "Peak RSS (MiB) of every preset in every format, the larger of file and pipe;"
	echo "goal: under 64 MiB, and real1g within 20% of real (1 GiB vs 300 MB):"
	SWEEP_CORPORA=(real real1g partial unanswered gen)
	printf '%-22s' preset/format
	printf ' %10s' "${SWEEP_CORPORA[@]}"
	printf ' %12s\n' real1g/real
	for c in "${SWEEP_CORPORA[@]}"; do corpus "$c" >/dev/null || exit 1; done
	for p in "${PRESETS[@]}"; do
		for fm in "${FORMATS[@]}"; do
			printf '%-22s' "$p/$fm"
			for c in "${SWEEP_CORPORA[@]}"; do
				f=$WORK/$c.jsonl m=0
				for tool in ccfilter pipe; do
					if measure 1 "$tool" "$CCFILTER" run "$f" "$p" --format "$fm"; then
						[ "$M_RSS" -gt "$m" ] && m=$M_RSS
						printf '%s\t%s/%s\t%s\t%s\t%s\t1\t%s\n' "$c" "$p" "$fm" "$tool" "$M_SEC" "$M_RSS" "$M_SEC" >>"$RESULTS"
					else
						NOTES+=("sweep $c $p/$fm $tool: $M_ERR")
					fi
				done
				PEAK[$c]=$m
				mark=
				[ "$m" -lt $((64 * 1024)) ] || { mark='!'; over=$((over + 1)); }
				printf ' %9.1f%1s' "$(awk -v k="$m" 'BEGIN { print k / 1024 }')" "$mark"
			done
			r=$(awk -v a="${PEAK[real1g]}" -v b="${PEAK[real]}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }')
			flag=$(awk -v r="$r" 'BEGIN { if (r != "n/a" && (r > 1.2 || r < 0.8)) print " !"; }')
			printf ' %11sx%s\n' "$r" "$flag"
		done
	done
	echo "(! marks a peak of 64 MiB or more, or a ratio outside 0.8-1.2: $over over 64 MiB)"
fi

if [ ${#NOTES[@]} -gt 0 ]; then
	echo
	echo "notes:"
	printf '  %s\n' "${NOTES[@]}"
fi
echo
echo "jq: $($JQ --version 2>&1)  gojq: $(${GOJQ:-false} --version 2>&1 | head -1)  jaq: $(${JAQ:-false} --version 2>&1 | head -1)"
echo "raw results: $RESULTS"
