package main

// What a newcomer met (issue 26): each test is on a real capture or
// transcript, or one derived from a real capture where the one named in
// the report is held out, and fails on the code before its fix.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// subagentDenial is a permission_denied the beta subagent of
// 05-subagents-async got for its Bash call, inserted right after that call
// (the shape of held-out 39: the event names the subagent by agent_id and
// carries no parent_tool_use_id).
const subagentDenial = `{"type":"system","subtype":"permission_denied","tool_name":"Bash","tool_use_id":"toolu_01bNfZSLxpudcoyvCeMWe8qT","agent_id":"a912b2e4c07df6bb2","message":"uname needs approval","uuid":"d0000000-0000-0000-0000-000000000001","session_id":"x"}`

// TestSubagentDenialIsTheSubagents proves a subagent's permission denial
// is shown and filtered as that subagent's: by agent_id, and failing
// that by the agent that made the denied call (tool_use_id).
func TestSubagentDenialIsTheSubagents(t *testing.T) {
	call := `"id":"toolu_01bNfZSLxpudcoyvCeMWe8qT"`
	lines := strings.SplitAfter(capture(t, "05-subagents-async.jsonl"), "\n")
	at := -1
	for i, l := range lines {
		if strings.Contains(l, call) && at < 0 {
			at = i
		}
	}
	require.GreaterOrEqual(t, at, 0)
	for name, denial := range map[string]string{
		"by agent_id":    subagentDenial,
		"by tool_use_id": strings.Replace(subagentDenial, `"agent_id":"a912b2e4c07df6bb2",`, "", 1),
	} {
		t.Run(name, func(t *testing.T) {
			s := strings.Join(lines[:at+1], "") + denial + "\n" + strings.Join(lines[at+1:], "")
			path := filepath.Join(t.TempDir(), "39-like.jsonl")
			require.NoError(t, os.WriteFile(path, []byte(s), 0o644))

			r := runIn(t, []string{`select(.subtype == "permission_denied") | agent`, path}, "")
			assert.Equal(t, "\"a912b2e4c07df6bb2\"\n", r.Stdout)
			r = runIn(t, []string{"errors", "--agent", "a912b2e4c07df6bb2", path}, "")
			assert.Contains(t, r.Stdout, "permission denied: Bash")
			r = runIn(t, []string{"errors", "--agent", "main", path}, "")
			assert.NotContains(t, r.Stdout, "permission denied")
			r = runIn(t, []string{"all", "-F", "markdown", path}, "")
			sec := r.Stdout[:strings.Index(r.Stdout, "**Permission denied:**")]
			last := sec[strings.LastIndex(sec, "\n### "):]
			assert.True(t, strings.HasPrefix(last, "\n### Subagent"), "the denial sits under the subagent's heading, not %q", strings.SplitN(last, "\n", 3)[1])
			r = runIn(t, []string{"all", path}, "")
			for _, l := range strings.Split(r.Stdout, "\n") {
				if strings.Contains(l, "permission denied") {
					assert.True(t, strings.HasPrefix(l, "  "), "indented as the subagent's: %q", l)
				}
			}
		})
	}
}

// TestFailedRunHeadingSaysFailed proves the markdown heading of a failed
// run says that it failed and why, where the subtype says "success": the
// auth failure (09) and a rate-limited run (held-out 42b's shape, derived
// from 42).
func TestFailedRunHeadingSaysFailed(t *testing.T) {
	r := runIn(t, []string{"all", "-F", "markdown", "../../testdata/events/09-auth-401.jsonl"}, "")
	assert.Contains(t, r.Stdout, "\n### Result: failed (api\\_error, authentication\\_failed, HTTP 401)\n")
	assert.NotContains(t, r.Stdout, "Result: success")

	limited := derived(t, "42-rate-limit-headers.jsonl",
		`"model":"claude-opus-5-5","id":"msg_011tvz3xqJ6w8zUvFQ56aa2w"`, `"model":"<synthetic>","id":"msg_011tvz3xqJ6w8zUvFQ56aa2w"`,
		`"text":"Answer with rate-limit headers attached."`, `"text":"API Error: Rate limit reached"`,
		`"request_id":"req_011Chrm3ZnLy24rpMpVZa3nd"`, `"request_id":"req_011Chrm3ZnLy24rpMpVZa3nd","error":"rate_limit","is_api_error_message":true,"api_error_status":429`,
		`"terminal_reason":"completed"`, `"terminal_reason":"api_error"`,
		`"is_error":false,"num_turns":1,"subtype":"success","api_error_status":null,"result":"Answer with rate-limit headers attached."`,
		`"is_error":true,"num_turns":1,"subtype":"success","api_error_status":429,"result":"API Error: Rate limit reached"`)
	r = runIn(t, []string{"all", "-F", "markdown", limited}, "")
	assert.Contains(t, r.Stdout, "\n### Result: failed (api\\_error, rate\\_limit, HTTP 429)\n")
	assert.NotContains(t, r.Stdout, "Result: success")

	r = runIn(t, []string{"all", "-F", "markdown", "../../testdata/events/12-max-turns.jsonl"}, "")
	assert.Contains(t, r.Stdout, "\n### Result: failed (error\\_max\\_turns)\n")
	r = runIn(t, []string{"all", "-F", "markdown", "../../testdata/events/01-plain-text.jsonl"}, "")
	assert.Contains(t, r.Stdout, "\n### Result: success\n", "a run that succeeded says so")
}

// TestEmptyListsAreEmptyArrays proves -F json prints [] where nothing is
// listed, as the README says, not null.
func TestEmptyListsAreEmptyArrays(t *testing.T) {
	r := runIn(t, []string{"types", "-F", "json", "--where", "false", "../../testdata/events/01-plain-text.jsonl"}, "")
	assert.Equal(t, "[]\n", r.Stdout)
}

// TestTranscriptInitSaysToolsAreNotRecorded proves init on a transcript
// (which records no tool list) does not claim the run had 0 tools.
func TestTranscriptInitSaysToolsAreNotRecorded(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/transcripts/02-write-read/home/.claude/projects/*/*.jsonl")
	require.NotEmpty(t, files)
	r := runIn(t, []string{"init", files[0]}, "")
	assert.NotContains(t, r.Stdout, "0 tools")
	assert.Contains(t, r.Stdout, "tools not recorded")
	r = runIn(t, []string{"init", "../../testdata/events/02-write-read.jsonl"}, "")
	assert.Contains(t, r.Stdout, "22 tools: ", "a stream's init still lists its tools")
}

// TestSessionsListsOnlyTranscripts proves sessions passes over what is no
// session in a project folder (a stream capture, an empty file, a FIFO:
// each named on stderr), and counts a session's tool calls with its
// subagents' (60-long-session: 200 in the main file, 246 in all, as its
// report says).
func TestSessionsListsOnlyTranscripts(t *testing.T) {
	src, _ := filepath.Glob("../../testdata/transcripts/60-long-session/home/.claude/projects/*")
	require.Len(t, src, 1)
	r := runIn(t, []string{"sessions", "-F", "json", filepath.Dir(src[0])}, "")
	require.Equal(t, 0, r.Code, r.Stderr)
	var list []map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &list))
	require.Len(t, list, 1)
	assert.EqualValues(t, 246, list[0]["tool_calls"])

	dir := t.TempDir()
	proj := filepath.Join(dir, "-home-user-project")
	require.NoError(t, os.MkdirAll(proj, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(proj, "stream.jsonl"), []byte(capture(t, "01-plain-text.jsonl")), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(proj, "empty.jsonl"), nil, 0o644))
	tr, _ := filepath.Glob("../../testdata/transcripts/02-write-read/home/.claude/projects/*/*.jsonl")
	require.NotEmpty(t, tr)
	b, err := os.ReadFile(tr[0])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(proj, filepath.Base(tr[0])), b, 0o644))
	mkfifo(t, filepath.Join(proj, "fifo.jsonl"))
	r = runIn(t, []string{"sessions", "-F", "csv", dir}, dir)
	require.Equal(t, 0, r.Code, r.Stderr)
	assert.Equal(t, 2, strings.Count(r.Stdout, "\n"), "a header and the one transcript:\n%s", r.Stdout)
	assert.Contains(t, r.Stdout, strings.TrimSuffix(filepath.Base(tr[0]), ".jsonl"))
	assert.Contains(t, r.Stderr, "stream.jsonl: not a session transcript")
	assert.Contains(t, r.Stderr, "empty.jsonl: not a session transcript (empty)")
	assert.Contains(t, r.Stderr, "fifo.jsonl: not a regular file")
}

// mkfifo makes a FIFO at path (syscall.Mkfifo: no mkfifo program needed).
func mkfifo(t *testing.T, path string) {
	t.Helper()
	require.NoError(t, syscall.Mkfifo(path, 0o644))
}
