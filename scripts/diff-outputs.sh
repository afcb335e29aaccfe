#!/usr/bin/env bash
# diff-outputs.sh OLD_BIN NEW_BIN: run every preset in every format on every
# capture and transcript in testdata with both binaries, and list the runs
# whose stdout, stderr or exit code differ ("DIFF preset format file"),
# then how many of how many. For a change that must keep the output
# byte-identical but where it says so: build the old binary from the base
# commit (git worktree add /tmp/base REV && go -C /tmp/base build -o
# /tmp/ccfilter-base ./cmd/ccfilter) and run this from the repository root.
set -u
old=$1 new=$2
cd "$(dirname "$0")/.."
n=0 d=0
for f in testdata/events/*.jsonl testdata/real/60-long-session.jsonl testdata/transcripts/*/home/.claude/projects/*/*.jsonl; do
	for p in all text tools errors final types usage subagents init; do
		for fm in text markdown ndjson csv json; do
			n=$((n + 1))
			a=$({ "$old" "$p" -F "$fm" "$f" 2>&1; echo "exit $?"; } | md5sum)
			b=$({ "$new" "$p" -F "$fm" "$f" 2>&1; echo "exit $?"; } | md5sum)
			if [ "$a" != "$b" ]; then
				d=$((d + 1))
				echo "DIFF $p $fm $f"
			fi
		done
	done
done
echo "$d of $n runs differ"
