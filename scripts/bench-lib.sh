# bench-lib.sh — what scripts/bench-compare.sh and scripts/bench-table.sh
# share, sourced by both after they set RUNS, TIMEOUT, WORK, REPO, CAPTURES
# and JAQ: the tools (installed when missing), the corpora (built when
# missing), the jq programs, and measure (the median of N timed runs).
log() { printf '%s\n' "$*" >&2; }
# median NUMBER...: the middle one (of an even count, the upper middle).
median() { printf '%s\n' "$@" | sort -g | sed -n "$(($# / 2 + 1))p"; }
# secs T0 T1: the seconds from one $EPOCHREALTIME to another, to the ms.
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

# ------------------------------------------------------------------ tools
apt_install() {
	log "installing $1 with apt-get"
	DEBIAN_FRONTEND=noninteractive apt-get install -y "$1" >"$WORK/apt-$1.log" 2>&1 ||
		{ apt-get update >/dev/null 2>&1; DEBIAN_FRONTEND=noninteractive apt-get install -y "$1" >"$WORK/apt-$1.log" 2>&1; } ||
		log "apt-get install $1 failed, see $WORK/apt-$1.log"
}
[ -x /usr/bin/time ] || apt_install time
[ -x /usr/bin/time ] || { log "GNU time (/usr/bin/time) is required"; exit 1; }
command -v jq >/dev/null 2>&1 || apt_install jq
JQ=$(command -v jq 2>/dev/null || true)
GOJQ=$(command -v gojq 2>/dev/null || true)
[ -n "$GOJQ" ] || [ ! -x "$(go env GOPATH)/bin/gojq" ] || GOJQ=$(go env GOPATH)/bin/gojq
if [ -z "$GOJQ" ]; then
	log "installing gojq v0.12.19 with go install"
	(cd /tmp && GOFLAGS= go install github.com/itchyny/gojq/cmd/gojq@v0.12.19) >"$WORK/gojq-install.log" 2>&1 &&
		GOJQ=$(go env GOPATH)/bin/gojq
fi
[ -x "$JAQ" ] || JAQ=
if [ -n "${CCFILTER_BIN:-}" ]; then
	CCFILTER=$CCFILTER_BIN
else
	CCFILTER=$WORK/ccfilter
	(cd "$REPO" && go build -o "$CCFILTER" ./cmd/ccfilter) || exit 1
fi
(cd "$REPO" && go build -o "$WORK/gen" ./internal/gen) || exit 1
FLOOR=$WORK/floor
(cd "$REPO" && go build -o "$FLOOR" ./bench/floor) || exit 1

# ------------------------------------------------------------------ corpora
corpus() { # corpus NAME: prints the file, building it when missing
	local f=$WORK/$1.jsonl
	if [ ! -s "$f" ]; then
		log "building $f"
		case $1 in
		real) "$WORK/gen" -real -size "${CORPUS_SIZE:-300MB}" -o "$f.tmp" $(ls "$CAPTURES"/*.jsonl | grep -v 19-big-tool-result) ;;
		real19) "$WORK/gen" -real -size "${CORPUS_SIZE:-300MB}" -o "$f.tmp" "$CAPTURES"/*.jsonl ;; # with 19-big-tool-result's 3 MB lines
		line) long_line "$f.tmp" ;;
		real1g) "$WORK/gen" -real -size 1GiB -o "$f.tmp" $(ls "$CAPTURES"/*.jsonl | grep -v 19-big-tool-result) ;;
		partial) "$WORK/gen" -real -size 200MB -o "$f.tmp" "$CAPTURES/07-partial-messages.jsonl" ;;
		unanswered) "$WORK/gen" -unanswered 1000000 -o "$f.tmp" ;;
		gen) "$WORK/gen" -size 300MB -seed 1 -o "$f.tmp" ;;
		# Issue 43: the other CLIs' streams (their json-output document left out)
		codex) "$WORK/gen" -real -codex -size "${CORPUS_SIZE:-300MB}" -o "$f.tmp" $(ls "$AGENTS"/codex/*.jsonl) ;;
		gemini) "$WORK/gen" -real -gemini -size "${CORPUS_SIZE:-300MB}" -o "$f.tmp" $(ls "$AGENTS"/gemini/*.jsonl | grep -v json-output) ;;
		*) log "unknown corpus $1"; return 1 ;;
		esac && mv "$f.tmp" "$f" || return 1
	fi
	echo "$f"
}

# long_line OUT: 02-write-read with its Write call's content repeated to
# LINE_SIZE bytes (default 100 MB): a real run whose one line is that long.
long_line() {
	LINE_SIZE=${LINE_SIZE:-100000000} perl -ne '
		if (/"name":"Write"/ && /"content":"((?:[^"\\]|\\.)*)"/) {
			my ($c, $n) = ($1, $ENV{LINE_SIZE});
			my $big = $c x int($n / length($c) + 1);
			$big = substr($big, 0, $n);
			$big =~ s/\\[^\\]*$//; # no escape cut in half
			s/"content":"(?:[^"\\]|\\.)*"/"content":"$big"/;
		}
		print' "$CAPTURES/02-write-read.jsonl" >"$1"
}

# ------------------------------------------------------------------ programs
export q_final='select(.type=="result") | .result'
export q_text='select(.type=="assistant" and .parent_tool_use_id==null) | .message.content[] | select(.type=="text") | .text'
export q_tools='select(.type=="assistant") | .message.content[] | select(.type=="tool_use") | [.id,.name,(.input|tostring)] | @csv'
export q_usage='reduce (inputs | select(.type=="assistant") | {id:.message.id, model:.message.model, u:.message.usage}) as $m ({}; .[$m.id] = $m) | [.[]] | group_by(.model) | map({model:.[0].model, input:(map(.u.input_tokens)|add), output:(map(.u.output_tokens)|add)})'
export q_expr='select(.type=="user") | .message.content[0].tool_use_id'
export q_errors='select((.type=="system" and (.subtype=="api_retry" or .subtype=="permission_denied")) or (.type=="user" and any(.message.content[]?; .is_error? == true)) or (.type=="result" and .is_error))'
export q_types='[.type, .subtype // ""] | @tsv'
TASKS=(final text tools usage errors types expr)

# prog TOOL BIN TASK FILE [ARGS...]: one benchmark program, output to stdout.
# Tool "pipe" is ccfilter reading the file from a pipe; "run" is ccfilter
# with the given arguments (the memory sweep).
prog() {
	local tool=$1 bin=$2 task=$3 f=$4
	shift 4
	case $tool in
	ccfilter | pipe)
		local args
		case $task in
		final | text | types) args=("$task") ;;
		tools) args=(tools --format csv) ;;
		usage) args=(usage --format json) ;;
		errors) args=(errors --format ndjson) ;;
		expr) args=("$q_expr") ;;
		run) args=("$@") ;;
		esac
		if [ "$tool" = pipe ]; then cat "$f" | "$bin" "${args[@]}"; else "$bin" "${args[@]}" "$f"; fi
		;;
	wc) wc -l "$f" ;; # the floor: reading every byte, finding every line
	jq | gojq | jaq)
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

# measure N TOOL BIN TASK FILE [ARGS...]: runs N times; sets M_SEC (median
# wall seconds), M_ALL (each run's), M_RSS (largest peak RSS, KiB) or M_ERR.
measure() {
	local n=$1 tool=$2 bin=$3 task=$4 f=$5 i rc t0 t1 tf=$WORK/time.out ef=$WORK/stderr.out
	shift 5
	local times=() rss=0 m
	M_SEC= M_RSS= M_ERR= M_ALL=
	for ((i = 0; i < n; i++)); do
		: >"$tf"
		t0=$EPOCHREALTIME
		timeout -k 10 "$TIMEOUT" /usr/bin/time -f '%e %M' -o "$tf" \
			bash -c 'set -o pipefail; prog "$@" >/dev/null' _ "$tool" "$bin" "$task" "$f" "$@" 2>"$ef"
		rc=$?
		t1=$EPOCHREALTIME
		if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
			M_ERR="timed out after ${TIMEOUT}s"
			return 1
		fi
		# The expression fails on the user events whose content is a string
		# (replayed prompts): every tool reports it and goes on (jq: exit 5).
		if [ $rc -ne 0 ] && ! { [ "$task" = run ] && [ $rc -le 4 ]; } && ! { [ "$task" = expr ] && [ $rc = 5 ]; }; then
			M_ERR="exit $rc: $(grep -v '^Command exited with' "$ef" | grep -m1 . | cut -c1-100)"
			return 1
		fi
		# jq 1.6 exits 0 when only earlier inputs raised errors.
		if [ "$tool" != ccfilter ] && [ "$tool" != pipe ] && [ "$task" != expr ] && grep -q . "$ef"; then
			M_ERR="error on stderr: $(grep -m1 . "$ef" | cut -c1-100)"
			return 1
		fi
		m=$(awk 'NF == 2 && $2 ~ /^[0-9]+$/ { v = $2 } END { print v + 0 }' "$tf")
		times+=("$(secs "$t0" "$t1")")
		[ "$m" -gt "$rss" ] && rss=$m
	done
	M_SEC=$(median "${times[@]}")
	M_ALL=$(IFS=,; echo "${times[*]}")
	M_RSS=$rss
}


# ------------------------------------------------------------------ spend
# Usage over every session (issue 30: at least 2x ccusage, wall, warm
# cache, paired runs): ccfilter usage --by day against ccusage claude
# daily, and ccfilter sessions against ccusage claude session, on a tree
# made of the real transcripts ($TRANSCRIPTS), copied SPEND_COPIES times
# with every uuid and message id renamed per copy (so that no tool takes a
# copy for a duplicate): 53 copies are about 0.8 GB of .jsonl with the 18
# sessions there on 2026-12-06 (100 gave 1.5 GB). A tree is kept per count
# of copies, so a change of SPEND_COPIES builds a new one. ccusage is installed here
# with npm (its native core for this platform), not by make test.
TRANSCRIPTS=${TRANSCRIPTS:-$REPO/../shared/transcripts}
SPEND_COPIES=${SPEND_COPIES:-53}
CCUSAGE_VERSION=${CCUSAGE_VERSION:-20.0.24}
spend_tree() { # prints the tree's projects folder, building it when missing
	local tree=$WORK/spend-tree-$SPEND_COPIES/projects i d n f nf
	if [ ! -d "$tree" ]; then
		log "building $tree ($SPEND_COPIES copies of $TRANSCRIPTS)"
		mkdir -p "$tree.tmp"
		for ((i = 1; i <= SPEND_COPIES; i++)); do
			for d in "$TRANSCRIPTS"/*/home/.claude/projects/*; do
				n=$(basename "$(dirname "$(dirname "$(dirname "$(dirname "$d")")")")")-$(basename "$d")-c$i
				(cd "$d" && find . -type f) | while read -r f; do
					nf=$(printf '%s' "$f" | perl -pe "s/\b[0-9a-f]{8}(-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/sprintf('%08x',$i).\$1/ge")
					mkdir -p "$(dirname "$tree.tmp/$n/$nf")"
					perl -pe "s/\b[0-9a-f]{8}(-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/sprintf('%08x',$i).\$1/ge; s/\"msg_0/\"msg_$i/g; s/\"req_0/\"req_$i/g" "$d/$f" >"$tree.tmp/$n/$nf"
				done
			done
		done
		mv "$tree.tmp" "$tree" || return 1
	fi
	echo "$tree"
}
ccusage_bin() { # prints ccusage, installing it when missing
	local dir=$WORK/ccusage
	if [ ! -x "$dir/node_modules/.bin/ccusage" ]; then
		log "installing ccusage $CCUSAGE_VERSION (npm)"
		command -v npm >/dev/null || { log "no npm"; return 1; }
		mkdir -p "$dir" && (cd "$dir" && npm install --silent "ccusage@$CCUSAGE_VERSION" \
			"@ccusage/ccusage-$(uname -s | tr A-Z a-z)-$(uname -m | sed 's/x86_64/x64/;s/aarch64/arm64/')@$CCUSAGE_VERSION" >&2) || return 1
	fi
	echo "$dir/node_modules/.bin/ccusage"
}

# spend_pair TASK TREE CCUSAGE: RUNS rounds, one run of each in turn (so a
# drift of the machine weighs on all alike), of ccfilter (TASK day: usage
# --by day; session: sessions), ccusage (daily; session) and the floor
# (bench/floor -level 2: reading the tree, picking and checking the lines
# an account reads, no figure) on TREE. Sets SP_CC, SP_CU and SP_FL (the
# medians) and SP_CC_ALL, SP_CU_ALL, SP_FL_ALL (each run's).
spend_pair() {
	local task=$1 tree=$2 cu=$3 i t0 t1 t2 t3 cf=() cus=() fl=()
	for ((i = 0; i < RUNS; i++)); do
		t0=$EPOCHREALTIME
		if [ "$task" = day ]; then "$CCFILTER" usage --by day --tz UTC -F json "$tree" >/dev/null 2>&1; else HOME=/nonexistent "$CCFILTER" sessions -F json "$tree" >/dev/null 2>&1; fi
		t1=$EPOCHREALTIME
		CLAUDE_CONFIG_DIR=$(dirname "$tree") "$cu" claude "$([ "$task" = day ] && echo daily || echo session)" --json --offline >/dev/null 2>&1
		t2=$EPOCHREALTIME
		"$FLOOR" -level 2 "$tree" >/dev/null 2>&1
		t3=$EPOCHREALTIME
		cf+=("$(secs "$t0" "$t1")")
		cus+=("$(secs "$t1" "$t2")")
		fl+=("$(secs "$t2" "$t3")")
	done
	SP_CC=$(median "${cf[@]}")
	SP_CU=$(median "${cus[@]}")
	SP_FL=$(median "${fl[@]}")
	SP_CC_ALL=$(IFS=,; echo "${cf[*]}")
	SP_CU_ALL=$(IFS=,; echo "${cus[*]}")
	SP_FL_ALL=$(IFS=,; echo "${fl[*]}")
}
