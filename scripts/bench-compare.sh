#!/usr/bin/env bash
# bench-compare.sh — side-by-side benchmark of ccfilter against jq and gojq.
#
# Usage:
#   scripts/bench-compare.sh [-quick] [FILE]
#
#   FILE     stream-json file to filter. Default: /tmp/ccfilter-bench-$SIZE.jsonl,
#            generated with `go run ./internal/gen -size $SIZE -seed 1` if missing.
#   -quick   same as QUICK=1.
#
# Environment:
#   SIZE=1GiB    size of the generated default file (100MiB with QUICK=1)
#   SMALL_SIZE=100MiB  size of the second file of the RSS flatness check (20MiB
#                with QUICK=1): /tmp/ccfilter-bench-$SMALL_SIZE.jsonl, generated
#                the same way if missing; SMALL=PATH uses that file instead;
#                SMALL=none skips the check
#   RUNS=3       runs per tool and task; the median wall time is reported (1 with QUICK=1)
#   QUICK=1      SIZE=100MiB SMALL_SIZE=20MiB RUNS=1 unless set explicitly
#   TIMEOUT=900  seconds after which one run is killed and counted as failed (0: none)
#   WORK=/tmp/ccfilter-bench   where the ccfilter binary and the results go
#   CCFILTER_BIN=PATH  benchmark this ccfilter binary instead of building ./cmd/ccfilter
#   PAGECACHE=reload   how the input file is readied before each timed run:
#                reload: its pages are evicted from the page cache (GNU dd
#                  iflag=nocache count=0, posix_fadvise DONTNEED; no root needed)
#                  and it is read once with cat, untimed, so every run of every
#                  tool starts from the file as just read from disk;
#                warm: it is only read once with cat (what was evicted comes
#                  back; the page cache keeps whatever shape it had);
#                none: nothing (the file is read once at the start).
#                Why: on a VM the page cache is not steady. A file just read
#                sits in 2 MiB folios, which a mapping maps with one fault each;
#                within minutes some of it is evicted and the rest split into
#                4 KiB pages (with 22 GiB free, and with no run in between:
#                not by the runs; the VM's host, likely): mapping the 1 GiB file
#                took 650 faults, then 13,000 (ccfilter final: 6,000 in all,
#                then 12,000-19,000). jq and gojq read
#                the file with read(2), which copies either way. Seen on this
#                machine: ccfilter final 0.11 s on the file just read, 0.18 s
#                on the same file minutes later (docs/performance.md).
#
# What it installs when missing: jq (apt-get install -y jq), GNU time
# (apt-get install -y time, for /usr/bin/time), the gojq CLI
# (go install github.com/itchyny/gojq/cmd/gojq@v0.12.19 into $(go env GOPATH)/bin).
# It builds ccfilter with `go build -o $WORK/ccfilter ./cmd/ccfilter` (unless
# CCFILTER_BIN is set).
#
# Every command writes to /dev/null (the floors too). Each run is
# `/usr/bin/time -f '%e %M' bash -c 'set -o pipefail; ...'`, so a pipeline is
# timed as a whole and its peak RSS (%M) is that of its largest process; the
# wall time is taken with millisecond resolution from $EPOCHREALTIME around
# that command (%e has only 10 ms resolution). A tool that fails (non-zero exit, also anywhere in its pipeline)
# is shown as n/a for that task with a note; the script carries on.
#
# Tasks and the exact programs (FILE is the input):
#   floor cat     cat FILE > /dev/null
#   floor wc -l   wc -l FILE
#   (1) final     ccfilter final FILE
#                 jq -r 'select(.type=="result") | .result' FILE | tail -1      (same with gojq)
#                 (not output-equivalent: `tail -1` keeps only the last LINE of a
#                 multi-line result; the equivalent streaming jq is
#                 jq -rn 'reduce (inputs|select(.type=="result")|.result) as $r (null; $r)')
#   (1p) final    cat FILE | ccfilter final                                     (pipe input)
#   (2) text      ccfilter text FILE
#                 jq -r 'select(.type=="assistant" and .parent_tool_use_id==null) | .message.content[] | select(.type=="text") | .text' FILE
#   (3) tools     ccfilter tools --format csv FILE
#                 jq -r 'select(.type=="assistant") | .message.content[] | select(.type=="tool_use") | [.id,.name,(.input|tostring)] | @csv' FILE
#   (4) usage     ccfilter usage --format json FILE
#                 jq -n 'reduce (inputs | select(.type=="assistant") | {id:.message.id, model:.message.model, u:.message.usage}) as $m ({}; .[$m.id] = $m) | [.[]] | group_by(.model) | map({model:.[0].model, input:(map(.u.input_tokens)|add), output:(map(.u.output_tokens)|add)})' FILE
#   (5) expr      ccfilter 'select(.type=="user") | .message.content[0].tool_use_id' FILE
#                 jq 'select(.type=="user") | .message.content[0].tool_use_id' FILE
#   (6) errors    ccfilter errors --format ndjson FILE
#                 jq -c 'select((.type=="system" and (.subtype=="api_retry" or .subtype=="permission_denied")) or (.type=="user" and any(.message.content[]?; .is_error? == true)) or (.type=="result" and .is_error))' FILE
#   (7) types     ccfilter types FILE
#                 jq -r '[.type, .subtype // ""] | @tsv' FILE | sort | uniq -c
#
# Output: one table row per task and tool (median seconds, MB/s = file bytes
# / 1e6 / seconds, peak RSS MiB, and for jq/gojq how many times slower than
# ccfilter), then a summary with jq/ccfilter and gojq/ccfilter per task and
# ccfilter/wc-l for final, final-pipe and types. Then the RSS flatness check:
# every ccfilter task run again (RUNS times) on the SMALL_SIZE file, and per
# task the peak RSS on both files, their ratio (FILE/small: the goal is
# within 20%), the same ratio with FILE's RSS less the difference between
# the two files' largest lines (a task that holds its longest line grows
# by it, however long the file: "apart from the largest line"), and FILE's
# peak RSS minus its largest line (the goal is under 64 MiB); the largest
# line of each file is printed above. A task is flat when either ratio is. Raw timings of
# both files: $WORK/results.tsv (file_bytes tells them apart; each_s holds every
# run's seconds in order).
set -u
set -o pipefail
export LC_NUMERIC=C # $EPOCHREALTIME and awk with a dot as decimal separator

QUICK=${QUICK:-0}
ARGS=()
for a in "$@"; do
	case $a in
	-quick | --quick) QUICK=1 ;;
	-h | --help)
		sed -n '2,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
		exit 0
		;;
	*) ARGS+=("$a") ;;
	esac
done
if [ "$QUICK" = 1 ]; then
	SIZE=${SIZE:-100MiB}
	SMALL_SIZE=${SMALL_SIZE:-20MiB}
	RUNS=${RUNS:-1}
else
	SIZE=${SIZE:-1GiB}
	SMALL_SIZE=${SMALL_SIZE:-100MiB}
	RUNS=${RUNS:-3}
fi
TIMEOUT=${TIMEOUT:-900}
WORK=${WORK:-/tmp/ccfilter-bench}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FILE=${ARGS[0]:-/tmp/ccfilter-bench-$SIZE.jsonl}
SMALL=${SMALL:-/tmp/ccfilter-bench-$SMALL_SIZE.jsonl}

case $RUNS in '' | *[!0-9]* | 0) echo "RUNS must be a positive integer" >&2; exit 2 ;; esac
mkdir -p "$WORK" || exit 1

log() { printf '%s\n' "$*" >&2; }

SUDO=
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then SUDO=sudo; fi
APT_UPDATED=0
apt_install() { # apt_install PACKAGE
	log "installing $1 with apt-get"
	if ! DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y "$1" >"$WORK/apt-$1.log" 2>&1; then
		if [ $APT_UPDATED = 0 ]; then
			APT_UPDATED=1
			$SUDO apt-get update >"$WORK/apt-update.log" 2>&1
		fi
		DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y "$1" >"$WORK/apt-$1.log" 2>&1 ||
			log "apt-get install $1 failed, see $WORK/apt-$1.log"
	fi
}

# ------------------------------------------------------------------ tools
[ -x /usr/bin/time ] || apt_install time
if [ ! -x /usr/bin/time ]; then
	log "GNU time (/usr/bin/time) is required"
	exit 1
fi
command -v jq >/dev/null 2>&1 || apt_install jq
JQ=$(command -v jq 2>/dev/null || true)

GOBIN_DIR="$(go env GOPATH 2>/dev/null)/bin"
GOJQ=$(command -v gojq 2>/dev/null || true)
if [ -z "$GOJQ" ] && [ -x "$GOBIN_DIR/gojq" ]; then GOJQ=$GOBIN_DIR/gojq; fi
if [ -z "$GOJQ" ]; then
	log "installing gojq v0.12.19 with go install"
	if (cd /tmp && GOFLAGS= go install github.com/itchyny/gojq/cmd/gojq@v0.12.19) >"$WORK/gojq-install.log" 2>&1; then
		GOJQ=$GOBIN_DIR/gojq
	else
		log "go install gojq failed, see $WORK/gojq-install.log"
	fi
fi

CC_NOTE=
if [ -n "${CCFILTER_BIN:-}" ]; then
	CCFILTER=$(command -v "$CCFILTER_BIN" 2>/dev/null || true)
	[ -n "$CCFILTER" ] || CC_NOTE="CCFILTER_BIN=$CCFILTER_BIN is not executable"
else
	CCFILTER=$WORK/ccfilter
	rm -f "$CCFILTER"
	if ! (cd "$REPO" && go build -o "$CCFILTER" ./cmd/ccfilter) >"$WORK/ccfilter-build.log" 2>&1; then
		CC_NOTE="ccfilter build failed: $(grep -m1 . "$WORK/ccfilter-build.log") (log: $WORK/ccfilter-build.log)"
		CCFILTER=
	fi
fi
[ -z "$CC_NOTE" ] || log "$CC_NOTE"

# ------------------------------------------------------------------ input
GEN=
generate() { # generate FILE SIZE: go run ./internal/gen -size SIZE -seed 1 -o FILE
	log "generating $1 ($2, seed 1)"
	if [ -z "$GEN" ]; then
		(cd "$REPO" && go build -o "$WORK/gen" ./internal/gen) || return 1
		GEN=$WORK/gen
	fi
	"$GEN" -size "$2" -seed 1 -o "$1.tmp" && mv "$1.tmp" "$1"
}
if [ ! -s "$FILE" ]; then
	if [ -n "${ARGS[0]:-}" ]; then
		log "$FILE does not exist or is empty"
		exit 1
	fi
	generate "$FILE" "$SIZE" || exit 1
fi
BYTES=$(stat -c %s "$FILE")
PAGECACHE=${PAGECACHE:-reload}
case $PAGECACHE in reload | warm | none) ;; *) echo "PAGECACHE must be reload, warm or none" >&2; exit 2 ;; esac
if [ "$PAGECACHE" = reload ] && ! dd if="$FILE" iflag=nocache count=0 status=none 2>/dev/null; then
	log "dd cannot evict a file's pages here (GNU dd's iflag=nocache): PAGECACHE=warm"
	PAGECACHE=warm
fi
# prime FILE: readies FILE's page cache before a timed run (see PAGECACHE).
prime() {
	case $PAGECACHE in
	reload) dd if="$1" iflag=nocache count=0 status=none && cat "$1" >/dev/null ;;
	warm) cat "$1" >/dev/null ;;
	esac
}
cat "$FILE" >/dev/null # warm the page cache

# ------------------------------------------------------------------ programs
export q_final='select(.type=="result") | .result'
export q_text='select(.type=="assistant" and .parent_tool_use_id==null) | .message.content[] | select(.type=="text") | .text'
export q_tools='select(.type=="assistant") | .message.content[] | select(.type=="tool_use") | [.id,.name,(.input|tostring)] | @csv'
export q_usage='reduce (inputs | select(.type=="assistant") | {id:.message.id, model:.message.model, u:.message.usage}) as $m ({}; .[$m.id] = $m) | [.[]] | group_by(.model) | map({model:.[0].model, input:(map(.u.input_tokens)|add), output:(map(.u.output_tokens)|add)})'
export q_expr='select(.type=="user") | .message.content[0].tool_use_id'
export q_errors='select((.type=="system" and (.subtype=="api_retry" or .subtype=="permission_denied")) or (.type=="user" and any(.message.content[]?; .is_error? == true)) or (.type=="result" and .is_error))'
export q_types='[.type, .subtype // ""] | @tsv'

# prog TOOL BIN TASK FILE: runs one benchmark program (output to stdout).
prog() {
	local tool=$1 bin=$2 task=$3 f=$4
	case $tool in
	cat) cat "$f" ;;
	wc) wc -l "$f" ;;
	ccfilter)
		case $task in
		final) "$bin" final "$f" ;;
		final-pipe) cat "$f" | "$bin" final ;;
		text) "$bin" text "$f" ;;
		tools) "$bin" tools --format csv "$f" ;;
		usage) "$bin" usage --format json "$f" ;;
		expr) "$bin" "$q_expr" "$f" ;;
		errors) "$bin" errors --format ndjson "$f" ;;
		types) "$bin" types "$f" ;;
		esac
		;;
	jq | gojq)
		case $task in
		final) "$bin" -r "$q_final" "$f" | tail -1 ;;
		text) "$bin" -r "$q_text" "$f" ;;
		tools) "$bin" -r "$q_tools" "$f" ;;
		usage) "$bin" -n "$q_usage" "$f" ;;
		expr) "$bin" "$q_expr" "$f" ;;
		errors) "$bin" -c "$q_errors" "$f" ;;
		types) "$bin" -r "$q_types" "$f" | sort | uniq -c ;;
		esac
		;;
	esac
}
export -f prog

# measure TOOL BIN TASK FILE: runs RUNS times; sets M_SEC (the median), M_ALL
# (every run's seconds, in order, comma-separated), M_RSS (KiB) or M_ERR.
measure() {
	local tool=$1 bin=$2 task=$3 f=$4 i rc tf=$WORK/time.out ef=$WORK/stderr.out
	local times=() rss=0 t m t0 t1
	M_SEC= M_RSS= M_ERR= M_ALL=
	for ((i = 0; i < RUNS; i++)); do
		: >"$tf"
		prime "$f"
		t0=$EPOCHREALTIME
		if [ "$TIMEOUT" != 0 ]; then
			timeout -k 10 "$TIMEOUT" /usr/bin/time -f '%e %M' -o "$tf" \
				bash -c 'set -o pipefail; prog "$@" >/dev/null' _ "$tool" "$bin" "$task" "$f" 2>"$ef"
		else
			/usr/bin/time -f '%e %M' -o "$tf" \
				bash -c 'set -o pipefail; prog "$@" >/dev/null' _ "$tool" "$bin" "$task" "$f" 2>"$ef"
		fi
		rc=$?
		t1=$EPOCHREALTIME
		if [ $rc -ne 0 ]; then
			if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
				M_ERR="timed out after ${TIMEOUT}s"
			else
				M_ERR="exit $rc: $(grep -v '^Command exited with' "$ef" | grep -m1 . | cut -c1-100)"
			fi
			return 1
		fi
		# jq 1.6 exits 0 when only earlier inputs raised errors: for jq and
		# gojq any error message on stderr counts as a failure.
		if [ "$tool" = jq ] || [ "$tool" = gojq ]; then
			if grep -q . "$ef"; then
				M_ERR="error on stderr (exit $rc): $(grep -m1 . "$ef" | cut -c1-100)"
				return 1
			fi
		fi
		m=$(awk 'NF == 2 && $2 ~ /^[0-9]+$/ { v = $2 } END { print v + 0 }' "$tf")
		t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
		times+=("$t")
		[ "${m:-0}" -gt "$rss" ] && rss=$m
	done
	M_SEC=$(printf '%s\n' "${times[@]}" | sort -g | sed -n "$((RUNS / 2 + 1))p")
	M_ALL=$(IFS=,; echo "${times[*]}")
	M_RSS=$rss
	return 0
}

declare -A SEC RSS
NOTES=()
MISSING=()
RESULTS=$WORK/results.tsv
printf 'task\ttool\tmedian_s\tpeak_rss_kib\truns\tfile_bytes\teach_s\n' >"$RESULTS"
record() { # record TASK TOOL FILE_BYTES: a row of results.tsv from the last measure
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$M_SEC" "$M_RSS" "$RUNS" "$3" "$M_ALL" >>"$RESULTS"
}

run_one() { # run_one TASK TOOL BIN
	local task=$1 tool=$2 bin=$3
	if [ -z "$bin" ]; then
		case " ${MISSING[*]} " in *" $tool "*) ;; *) MISSING+=("$tool") ;; esac
		return
	fi
	log "  $task: $tool"
	if measure "$tool" "$bin" "$task" "$FILE"; then
		SEC[$task/$tool]=$M_SEC
		RSS[$task/$tool]=$M_RSS
		record "$task" "$tool" "$BYTES"
	else
		NOTES+=("$task/$tool: skipped, $M_ERR")
	fi
}

TASKS=(final final-pipe text tools usage expr errors types)
log "benchmarking $FILE ($BYTES bytes), $RUNS run(s) each"
run_one floor cat cat
run_one floor wc wc
for task in "${TASKS[@]}"; do
	run_one "$task" ccfilter "$CCFILTER"
	[ "$task" = final-pipe ] && continue
	run_one "$task" jq "$JQ"
	run_one "$task" gojq "$GOJQ"
done

# ------------------------------------------------------------------ RSS flatness
# Peak RSS must not grow with the input: every ccfilter task again on the
# small file.
declare -A SRSS
SMALL_BYTES=
if [ "$SMALL" = none ]; then
	:
elif [ -z "$CCFILTER" ]; then
	NOTES+=("RSS flatness: skipped, no ccfilter")
	SMALL=none
elif [ "$(readlink -f "$SMALL")" = "$(readlink -f "$FILE")" ]; then
	NOTES+=("RSS flatness: skipped, the small file is FILE itself ($SMALL); set SMALL_SIZE or SMALL")
	SMALL=none
elif [ ! -s "$SMALL" ] && ! generate "$SMALL" "$SMALL_SIZE"; then
	NOTES+=("RSS flatness: skipped, generating $SMALL failed")
	SMALL=none
fi
if [ "$SMALL" != none ]; then
	SMALL_BYTES=$(stat -c %s "$SMALL")
	cat "$SMALL" >/dev/null
	log "RSS flatness: ccfilter on $SMALL ($SMALL_BYTES bytes), $RUNS run(s) each"
	for task in "${TASKS[@]}"; do
		log "  $task: ccfilter"
		if measure ccfilter "$CCFILTER" "$task" "$SMALL"; then
			SRSS[$task]=$M_RSS
			record "$task" ccfilter "$SMALL_BYTES"
		else
			NOTES+=("RSS flatness $task/ccfilter on $SMALL: skipped, $M_ERR")
		fi
	done
fi
# maxline FILE: the length in bytes of FILE's longest line (without its '\n').
maxline() { LC_ALL=C awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$1"; }

# ------------------------------------------------------------------ report
fmt_rate() { awk -v b="$BYTES" -v s="$1" 'BEGIN { if (s > 0) printf "%.0f", b / 1e6 / s; else print "inf" }'; }
ratio() { # ratio NUM DEN -> NUM/DEN or n/a
	if [ -n "${1:-}" ] && [ -n "${2:-}" ]; then
		awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "inf" }'
	else
		echo n/a
	fi
}

echo
echo "file: $FILE ($(awk -v b="$BYTES" 'BEGIN { printf "%.1f MiB", b / 1048576 }'), $(wc -l <"$FILE") lines)  runs: $RUNS  cpus: $(nproc)"
version() { # version BIN ARGS...
	if [ -n "$1" ]; then echo "$("$@" 2>&1 | head -1 | cut -d' ' -f1-2) ($1)"; else echo missing; fi
}
echo "page cache before each run: $PAGECACHE"
echo "jq: $(version "$JQ" --version)  gojq: $(version "$GOJQ" --version)  ccfilter: ${CCFILTER:-n/a}"
echo
printf '%-11s %-9s %10s %9s %10s %14s\n' task tool median_s MB/s rss_MiB vs_ccfilter
printf '%-11s %-9s %10s %9s %10s %14s\n' ----------- --------- ---------- --------- ---------- --------------
row() { # row TASK TOOL
	local k=$1/$2 s r v=
	s=${SEC[$k]:-}
	if [ -z "$s" ]; then
		printf '%-11s %-9s %10s %9s %10s %14s\n' "$1" "$2" n/a n/a n/a ""
		return
	fi
	r=$(awk -v k="${RSS[$k]}" 'BEGIN { printf "%.1f", k / 1024 }')
	case $2 in jq | gojq) v=$(ratio "$s" "${SEC[$1/ccfilter]:-}") ;; esac
	printf '%-11s %-9s %10s %9s %10s %14s\n' "$1" "$2" "$s" "$(fmt_rate "$s")" "$r" "$v"
}
row floor cat
row floor wc
for task in "${TASKS[@]}"; do
	row "$task" ccfilter
	[ "$task" = final-pipe ] && continue
	row "$task" jq
	row "$task" gojq
done

echo
echo "Ratios of median times: jq/ccfilter and gojq/ccfilter are how many times faster"
echo "ccfilter is; ccfilter/wc-l how many times longer ccfilter takes than wc -l:"
printf '%-11s %12s %14s %16s\n' task jq/ccfilter gojq/ccfilter ccfilter/wc-l
for task in "${TASKS[@]}"; do
	w=
	case $task in final | final-pipe | types) w=$(ratio "${SEC[$task/ccfilter]:-}" "${SEC[floor/wc]:-}") ;; esac
	if [ "$task" = final-pipe ]; then
		printf '%-11s %12s %14s %16s\n' "$task" - - "$w"
	else
		printf '%-11s %12s %14s %16s\n' "$task" "$(ratio "${SEC[$task/jq]:-}" "${SEC[$task/ccfilter]:-}")" \
			"$(ratio "${SEC[$task/gojq]:-}" "${SEC[$task/ccfilter]:-}")" "$w"
	fi
done

if [ "$SMALL" != none ]; then
	mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
	size() { awk -v b="$1" 'BEGIN { m = b / 1048576; if (m >= 1024) printf "%.3gGiB", m / 1024; else printf "%.0fMiB", m }'; }
	LS=$(maxline "$SMALL") LB=$(maxline "$FILE")
	S=$(size "$SMALL_BYTES") B=$(size "$BYTES")
	echo
	echo "Peak RSS of ccfilter, $S file vs $B file (goal: the same within 20%, and under"
	echo "64 MiB apart from the largest line). Largest line: $(mib "$LS") MiB in the $S file,"
	echo "$(mib "$LB") MiB in the $B file."
	printf '%-11s %12s %12s %13s %13s %18s  %s\n' task "rss_$S" "rss_$B" "$B/$S" "less_line" "rss_$B-line" ""
	for task in "${TASKS[@]}"; do
		s=${SRSS[$task]:-} b=${RSS[$task/ccfilter]:-}
		if [ -z "$s" ] || [ -z "$b" ]; then
			printf '%-11s %12s %12s %13s %13s %18s\n' "$task" "${s:+$(mib $((s * 1024)))}" "${b:+$(mib $((b * 1024)))}" n/a n/a n/a
			continue
		fi
		awk -v t="$task" -v s="$s" -v b="$b" -v l="$LB" -v ls="$LS" 'BEGIN {
			r = b / s; d = b / 1024 - l / 1048576; v = ""
			rl = (b / 1024 - (l - ls) / 1048576) / (s / 1024)
			if ((r > 1.2 || r < 0.8) && (rl > 1.2 || rl < 0.8)) v = v " not-flat"
			if (d >= 64) v = v " over-64MiB"
			# (less_line is "-" for a task that does not hold its longest line)
			rls = rl > 0 ? sprintf("%.2fx", rl) : "-"
			printf "%-11s %12.1f %12.1f %12.2fx %13s %18.1f  %s\n", t, s / 1024, b / 1024, r, rls, d, (v == "" ? "ok" : substr(v, 2))
		}'
	done
fi
for tool in "${MISSING[@]}"; do
	if [ "$tool" = ccfilter ]; then
		NOTES+=("ccfilter: not run, shown as n/a: $CC_NOTE")
	else
		NOTES+=("$tool: not installed, shown as n/a")
	fi
done
if [ ${#NOTES[@]} -gt 0 ]; then
	echo
	echo "notes:"
	printf '  %s\n' "${NOTES[@]}"
fi
echo
echo "raw results: $RESULTS"
