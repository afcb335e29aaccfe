package main

// What a newcomer met (issue 26): each test is on a real capture or
// transcript, or one derived from a real capture where the one named in
// the report is held out, and fails on the code before its fix.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	gmtext "github.com/yuin/goldmark/text"
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

// TestIdentityIsAnExpression proves ".", jq's identity, is the expression
// wherever it is typed, also in a project folder (where "./" names the
// folder): each event as JSON, pretty without flags and one per line with
// -c, as jq prints them.
func TestIdentityIsAnExpression(t *testing.T) {
	abs, err := filepath.Abs("../../testdata/events/01-plain-text.jsonl")
	require.NoError(t, err)
	proj, _ := filepath.Glob("../../testdata/transcripts/02-write-read/home/.claude/projects/*")
	require.Len(t, proj, 1)
	t.Chdir(proj[0]) // a project folder: "." is not it

	r := runIn(t, []string{"-c", ".", abs}, "")
	require.Equal(t, 0, r.Code, r.Stderr)
	lines := strings.Split(strings.TrimSuffix(r.Stdout, "\n"), "\n")
	require.Len(t, lines, 3, "the capture's three events, one per line")
	for i, want := range []string{"system", "assistant", "result"} {
		var ev map[string]any
		require.NoError(t, json.Unmarshal([]byte(lines[i]), &ev))
		assert.Equal(t, want, ev["type"])
	}
	r = runIn(t, []string{".", abs}, "")
	require.Equal(t, 0, r.Code, r.Stderr)
	assert.True(t, strings.HasPrefix(r.Stdout, "{\n  \"type\": \"system\",\n"), "pretty JSON as jq prints it: %.80s", r.Stdout)
	r = runIn(t, []string{"tools", "./"}, "")
	assert.Equal(t, 0, r.Code, "./ is the project folder: %s", r.Stderr)
	assert.Contains(t, r.Stdout, "Write")
}

// TestNotAStreamIsSaidOnce proves a plain-text log or a binary file gives
// one diagnosis and exit 5, not a warning per line; a stray line or two
// before the events (stderr mixed in) is warned about and the run read;
// an empty input exits 4 for every preset.
func TestNotAStreamIsSaidOnce(t *testing.T) {
	dir := t.TempDir()
	var log strings.Builder
	for i := 1; i <= 5000; i++ {
		log.WriteString("2026-12-05 10:00:00 INFO log line " + strings.Repeat("x", i%40) + "\n")
	}
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
		return p
	}
	plain := write("app.log", log.String())
	bin := write("blob.bin", "\x7fELF\x02\x01\x01\x00\x00\x00\n\x00\x00\x03\x00>\x00\n"+strings.Repeat("\x00\x01\x02\xff\n", 50))
	for _, args := range [][]string{{plain}, {"final", plain}, {"tools", "-F", "csv", plain}, {"-c", ".", plain}, {bin}} {
		r := runIn(t, args, dir)
		assert.Equal(t, exitInput, r.Code, "%v", args)
		assert.Equal(t, 1, strings.Count(r.Stderr, "\n"), "%v: one line: %s", args, r.Stderr)
		assert.Regexp(t, `not a Claude Code event stream: none of its \d+ lines is JSON \(line 1: `, r.Stderr)
	}
	r0 := runIn(t, []string{plain}, dir)
	assert.Contains(t, r0.Stderr, "none of its 5000 lines is JSON", "the whole input read, counted")
	// A stream after many lines that are not JSON (a log merged into it):
	// nothing of it lost; the first ten said, the rest counted.
	var logged strings.Builder
	for i := 0; i < 15; i++ {
		logged.WriteString("log line\n")
	}
	merged := write("merged.jsonl", logged.String()+capture(t, "01-plain-text.jsonl"))
	rm := runIn(t, []string{"final", merged}, dir)
	assert.Equal(t, 0, rm.Code, rm.Stderr)
	assert.Equal(t, "Hello! I am a scripted fake model. 2 + 2 = 4.\n", rm.Stdout)
	assert.Equal(t, 11, strings.Count(rm.Stderr, "\n"), rm.Stderr)
	assert.Contains(t, rm.Stderr, "and 5 more lines before the first event that are not JSON")
	stray := write("stray.jsonl", "Warning: something on stderr\n"+capture(t, "01-plain-text.jsonl"))
	r := runIn(t, []string{"final", stray}, dir)
	assert.Equal(t, 0, r.Code, r.Stderr)
	assert.Equal(t, "Hello! I am a scripted fake model. 2 + 2 = 4.\n", r.Stdout)
	assert.Contains(t, r.Stderr, "DIR/stray.jsonl:1: invalid JSON")

	empty := write("empty.jsonl", "")
	for _, p := range []string{"all", "tools", "usage", "final"} {
		r := runIn(t, []string{p, empty}, dir)
		assert.Equal(t, exitNoResult, r.Code, p)
		assert.Equal(t, "ccfilter: DIR/empty.jsonl: "+"empty input: claude -p --output-format stream-json prints nothing without --verbose, or when it fails before it starts (see its stderr)\n", r.Stderr, p)
	}
}

// TestBareWordsGetSuggestionsOrASentence proves a first argument that is
// no preset gets the nearest preset, then command, then flag, and a bare
// word near nothing a sentence instead of jq's "function not defined";
// a short session prefix finds the session, an unknown one says where it
// was looked for.
func TestBareWordsGetSuggestionsOrASentence(t *testing.T) {
	home, err := filepath.Abs("../../testdata/transcripts/02-write-read/home")
	require.NoError(t, err)
	projects := filepath.Join(home, ".claude", "projects")
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"cost"}, exitCompile, `ccfilter: "cost" is not a preset, a file or a jq expression (did you mean usage?); presets: all, text,`},
		{[]string{"summary"}, exitCompile, `ccfilter: "summary" is not a preset, a file or a jq expression`},
		{[]string{"session"}, exitUsage, `ccfilter: unknown preset "session" (did you mean the command 'ccfilter sessions'?)`},
		{[]string{"sesions"}, exitUsage, `(did you mean the command 'ccfilter sessions'?)`},
		{[]string{"FINAL"}, exitUsage, `ccfilter: unknown preset "FINAL" (did you mean "final"?)`},
		{[]string{"abcd"}, exitCompile, `"abcd" is not a preset, a file, a session's id under ` + projects + ` or a jq expression`},
		{[]string{"final", "abcdef12"}, exitInput, "ccfilter: abcdef12: no such file, and no session under " + projects + " or the archive " + filepath.Join(home, ".local", "share", "ccfilter", "projects") + " has an id starting with it"},
		{[]string{"12345678-aaaa-bbbb-cccc-000000000000"}, exitInput, "no session under " + projects},
		{[]string{"final", "0db2"}, exitOK, ""},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var stdout, stderr strings.Builder
			o := &options{}
			code := runWith(o, c.args, strings.NewReader(""), &stdout, &stderr, []string{"HOME=" + home, "NO_COLOR=1"})
			assert.Equal(t, c.code, code, stderr.String())
			if c.msg == "" {
				assert.Empty(t, stderr.String())
				assert.Contains(t, stdout.String(), "probe", "the session 0db2… was read")
				return
			}
			assert.Contains(t, stderr.String(), c.msg)
			assert.NotContains(t, stderr.String(), "--format csv", "cost is not csv")
			assert.NotContains(t, stderr.String(), "--version", "session is not version")
		})
	}
}

// TestVersionFromBuildInfo proves a binary built without -ldflags (go
// install from a checkout) says the version Go stamped, not "dev".
func TestVersionFromBuildInfo(t *testing.T) {
	stamped := &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261204182919-e5dcfc25fcc2+dirty"}}
	assert.Equal(t, "v0.0.0-20261204182919-e5dcfc25fcc2+dirty", versionOf("dev", stamped, true))
	devel := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "e5dcfc25fcc2a1b2c3d4e5f60718293a4b5c6d7e"}, {Key: "vcs.modified", Value: "true"}}}
	assert.Equal(t, "dev-e5dcfc25fcc2-dirty", versionOf("dev", devel, true))
	assert.Equal(t, "v1.2.3", versionOf("v1.2.3", stamped, true), "-ldflags -X wins")
	assert.Equal(t, "dev", versionOf("dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true), "nothing stamped")
}

// TestUsagePlaceholdersAreMarked proves usage takes the total's output
// from the result where the events carry placeholders, and marks the
// per-call figures as such in every format: 08-thinking (no partial
// messages: 2 on the events, 118 in the result) and 17-sigint-streaming
// (partial messages on, the call interrupted before its final count: 1
// and 48); 07-partial-messages (every count final) is left unmarked.
func TestUsagePlaceholdersAreMarked(t *testing.T) {
	for _, c := range []struct {
		file            string
		events, total   int64
		why             string
		placeholderRows bool
	}{
		{"08-thinking.jsonl", 2, 118, "final count comes only with --include-partial-messages", true},
		{"17-sigint-streaming.jsonl", 1, 48, "partial messages were on, but these calls ended without their final count", true},
		{"07-partial-messages.jsonl", 81, 81, "", false},
	} {
		t.Run(c.file, func(t *testing.T) {
			path := "../../testdata/events/" + c.file
			var rows []struct {
				Side  string `json:"side"`
				Out   int64  `json:"output_tokens"`
				Exact bool   `json:"output_exact"`
			}
			r := runIn(t, []string{"usage", "-F", "json", path}, "")
			require.NoError(t, json.Unmarshal([]byte(r.Stdout), &rows))
			var events int64
			placeholders := 0
			for _, row := range rows {
				switch row.Side {
				case "main", "subagent":
					events += row.Out
					if !row.Exact {
						placeholders++
					}
				case "total":
					assert.Equal(t, c.total, row.Out)
					assert.True(t, row.Exact)
				}
			}
			assert.Equal(t, c.events, events)
			r = runIn(t, []string{"usage", "-F", "csv", path}, "")
			lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
			assert.True(t, strings.HasSuffix(lines[0], ",output_exact"))
			assert.True(t, strings.HasSuffix(lines[len(lines)-1], ",true"), "the total is exact: %s", lines[len(lines)-1])
			assert.Contains(t, lines[len(lines)-1], ","+strconv.FormatInt(c.total, 10)+",")
			for _, f := range []string{"text", "markdown"} {
				r = runIn(t, []string{"usage", "-F", f, path}, "")
				if !c.placeholderRows {
					assert.NotContains(t, r.Stdout, "placeholder", f)
					continue
				}
				assert.Positive(t, placeholders)
				assert.Regexp(t, `(?m)main .*\b`+strconv.FormatInt(c.events, 10)+`\*`, r.Stdout, f)
				assert.Contains(t, r.Stdout, c.why, f)
				assert.Contains(t, r.Stdout, "the total's output is the result's own (modelUsage: "+strconv.FormatInt(c.total, 10), f)
			}
		})
	}
}

// TestSeveralRunsSayWhichIsWhich proves each run of an output with several
// names itself: tools --where over a project folder of two sessions (25's
// failed calls, 15's denials) marks each session's rows in text and CSV,
// and a markdown report of three files titles each with its file.
func TestSeveralRunsSayWhichIsWhich(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "-home-user-project")
	require.NoError(t, os.MkdirAll(proj, 0o755))
	var ids []string
	for _, name := range []string{"25-tool-errors", "15-permission-denied"} {
		files, _ := filepath.Glob("../../testdata/transcripts/" + name + "/home/.claude/projects/*/*.jsonl")
		require.Len(t, files, 1)
		b, err := os.ReadFile(files[0])
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(proj, filepath.Base(files[0])), b, 0o644))
		ids = append(ids, strings.TrimSuffix(filepath.Base(files[0]), ".jsonl"))
	}
	r := runIn(t, []string{"tools", "--where", ".is_error", proj}, dir)
	require.Equal(t, 0, r.Code, r.Stderr)
	for _, id := range ids {
		assert.Contains(t, r.Stdout, "==> DIR/-home-user-project/"+id+".jsonl <==\n")
	}
	r = runIn(t, []string{"tools", "-F", "csv", "--where", ".is_error", proj}, dir)
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	assert.Equal(t, "source,"+strings.Join(render.CSVHeader, ","), lines[0])
	assert.Equal(t, 1, strings.Count(r.Stdout, "source,line,"), "one header for both sessions")
	for _, l := range lines[1:] {
		assert.Regexp(t, `^DIR/-home-user-project/(`+ids[0]+`|`+ids[1]+`)\.jsonl,`, l)
	}

	r = runIn(t, []string{"all", "-F", "markdown", "../../testdata/events/01-plain-text.jsonl", "../../testdata/events/03-bash-fail.jsonl", "../../testdata/events/12-max-turns.jsonl"}, "")
	var titles []string
	for _, l := range strings.Split(r.Stdout, "\n") {
		if strings.HasPrefix(l, "# ") {
			titles = append(titles, l)
		}
	}
	assert.Equal(t, []string{
		"# Claude Code run: ../../testdata/events/01-plain-text.jsonl",
		"# Claude Code run: ../../testdata/events/03-bash-fail.jsonl",
		"# Claude Code run: ../../testdata/events/12-max-turns.jsonl",
	}, titles)
	r = runIn(t, []string{"all", "-F", "markdown", "../../testdata/events/01-plain-text.jsonl"}, "")
	assert.True(t, strings.HasPrefix(r.Stdout, "# Claude Code run\n"), "one run: the title it always had")
}

// TestLongSessionReportOpensWithItsOutcome proves the markdown report of a
// long session (60: 246 calls, two failed) says at its top how it ended,
// what it cost, its tokens and its two failures, each linked to an anchor
// before the failed result in the report; from a pipe, which cannot be
// read twice, the report is as before (the summary at its end only).
func TestLongSessionReportOpensWithItsOutcome(t *testing.T) {
	path := "../../testdata/real/60-long-session.jsonl"
	r := runIn(t, []string{"all", "-F", "markdown", path}, "")
	require.Equal(t, 0, r.Code, r.Stderr)
	head := r.Stdout[:strings.Index(r.Stdout, "\n- **Model:**")]
	assert.Contains(t, head, "**At a glance:** ✓ ok (success) · ")
	assert.Contains(t, head, "\\$14.3279")
	assert.Contains(t, head, "246 tool calls · 2 failed tool calls")
	links := regexp.MustCompile(`\[line (\d+)\]\(#(l[0-9a-z]+-(\d+))\)`).FindAllStringSubmatch(head, -1)
	require.Len(t, links, 2, head)
	for _, l := range links {
		assert.Equal(t, l[1], l[3])
		assert.Equal(t, 1, strings.Count(r.Stdout, "\n<a id=\""+l[2]+"\"></a>\n\n> **Error:** "), "one anchor, before the failure it links to")
	}
	assert.Contains(t, head, ": Read /home/user/project/http/transport\\_go\\_helpers.go failed")
	assert.Contains(t, head, ": Edit /home/user/project/http/header.go failed")

	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var stdout, stderr strings.Builder
	code := runWith(&options{}, []string{"all", "-F", "markdown"}, strings.NewReader(string(b)), &stdout, &stderr, []string{"NO_COLOR=1"})
	require.Equal(t, 0, code, stderr.String())
	assert.NotContains(t, stdout.String(), "At a glance")
	assert.NotContains(t, stdout.String(), "<a id=")
	assert.Equal(t, strings.Count(r.Stdout, "\n"), strings.Count(stdout.String(), "\n")+7+2*2, "the same report but the glance (7 lines) and two anchors")
}

// TestStrayArrayLineLosesNothing proves a first line that is a JSON array,
// followed by a stream (03-bash-fail), is reported as a malformed line and
// every later line is read (it dropped them all: final exited 4), numbered
// as they are; an input that is one array is still read as one.
func TestStrayArrayLineLosesNothing(t *testing.T) {
	for _, first := range []string{"[]", `[{"type":"mystery"}]`, "[1, 2]"} {
		path := filepath.Join(t.TempDir(), "stray.jsonl")
		require.NoError(t, os.WriteFile(path, []byte(first+"\n"+capture(t, "03-bash-fail.jsonl")), 0o644))
		r := runIn(t, []string{"final", path}, "")
		assert.Equal(t, 0, r.Code, first)
		assert.NotEmpty(t, r.Stdout, first)
		assert.Contains(t, r.Stderr, "stray.jsonl:1: ", first)
		assert.Contains(t, r.Stderr, "a JSON array among the event lines", first)
		r = runIn(t, []string{"-c", `[line, .type]`, path}, "")
		assert.Contains(t, r.Stdout, "[2,\"system\"]\n", "the lines after it keep their numbers")
	}
	var arr []json.RawMessage
	for _, l := range strings.Split(strings.TrimSpace(capture(t, "03-bash-fail.jsonl")), "\n") {
		arr = append(arr, json.RawMessage(l))
	}
	b, err := json.Marshal(arr)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "array.json")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	r := runIn(t, []string{"final", path}, "")
	assert.Equal(t, 0, r.Code, r.Stderr)
	assert.Empty(t, r.Stderr, "one array is an input of its own")
}

// TestJSONListsAreNeverNull proves -F json writes [] for an empty list
// (issue 33 item 7): init on a stream without an init (01 without its
// first line), usage's by_model, model_costs and helper on a run with no
// model call (09c), types with nothing passing --where.
func TestJSONListsAreNeverNull(t *testing.T) {
	noInit := derived(t, "01-plain-text.jsonl", strings.SplitAfter(capture(t, "01-plain-text.jsonl"), "\n")[0], "")
	r := runIn(t, []string{"init", "-F", "json", noInit}, "")
	assert.Equal(t, "[]\n", r.Stdout)
	r = runIn(t, []string{"subagents", "-F", "json", "../../testdata/events/09c-auth-401-killed.jsonl"}, "")
	assert.Equal(t, "[]\n", r.Stdout)
	r = runIn(t, []string{"usage", "-F", "json", "-c", "../../testdata/events/09c-auth-401-killed.jsonl"}, "")
	assert.Equal(t, `[{"model":"","side":"total","calls":0,"input_tokens":0,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"cost_usd":null,"cost_source":null,"output_exact":true}]`+"\n", r.Stdout, "no model call: the total row alone")
}

// TestNoResultIsALineOfTrouble proves errors in text and markdown says a
// missing result as a line of trouble (09c), not as ccfilter's own record
// in a JSON block; ndjson still writes the record.
func TestNoResultIsALineOfTrouble(t *testing.T) {
	path := "../../testdata/events/09c-auth-401-killed.jsonl"
	r := runIn(t, []string{"errors", path}, "")
	assert.True(t, strings.HasSuffix(r.Stdout, "\n✗ no result: the stream ended without a result event (the run was killed or cut off)\n"), r.Stdout)
	assert.NotContains(t, r.Stdout, `"type"`)
	r = runIn(t, []string{"errors", "-F", "markdown", path}, "")
	assert.Contains(t, r.Stdout, "\n> **Error:** no result: the stream ended without a result event (the run was killed or cut off)\n\n## Summary\n")
	assert.NotContains(t, r.Stdout, "```json")
	r = runIn(t, []string{"errors", "-F", "ndjson", path}, "")
	assert.Contains(t, r.Stdout, `{"line":null,"timestamp":"","agent":"","subagent_type":"","kind":"no_result","subtype":"","tool":"","tool_use_id":"","status":null,"category":null,"attempt":null,"max_retries":null,"wait_ms":null,"message":"the stream ended without a result event (the run was killed or cut off)"}`)
}

// TestMarkdownHasNoScriptsOrScriptLinks proves final -F markdown escapes
// raw HTML as all and text do, and that a link to a script (javascript:,
// data:, an entity-written scheme) in the model's text is no link in any
// of the three: the output parsed as GitHub does (goldmark, GFM) has no
// raw HTML and no link but to http(s)/mailto or a relative path.
func TestMarkdownHasNoScriptsOrScriptLinks(t *testing.T) {
	hostile := `<script>alert(1)</script><!-- [a](javascript:alert(1)) [b](JavaScript:x) [c](javascript&#58;x) [d]( data:text/html,x) [ok](https://example.com/x) [f](\njavascript:alert(3))\n\n[ref]: javascript:alert(2)\n\n[g]:\n  javascript:alert(4)\n\n[e][ref] [h][g]`
	path := derived(t, "01-plain-text.jsonl",
		`"text":"Hello! I am a scripted fake model. 2 + 2 = 4."`, `"text":"`+strings.ReplaceAll(hostile, `"`, `\"`)+`"`,
		`"result":"Hello! I am a scripted fake model. 2 + 2 = 4."`, `"result":"`+strings.ReplaceAll(hostile, `"`, `\"`)+`"`)
	for _, args := range [][]string{{"final", "-F", "markdown"}, {"all", "-F", "markdown"}, {"text", "-F", "markdown"}} {
		r := runIn(t, append(args, path), "")
		require.Equal(t, 0, r.Code, r.Stderr)
		src := []byte(r.Stdout)
		doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(gmtext.NewReader(src))
		var links []string
		_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if !entering {
				return ast.WalkContinue, nil
			}
			switch n := n.(type) {
			case *ast.Link:
				links = append(links, string(n.Destination))
			case *ast.RawHTML:
				seg := n.Segments.At(0)
				t.Errorf("%v: raw HTML: %q", args, seg.Value(src))
			case *ast.HTMLBlock:
				if l := n.Lines(); l.Len() > 0 {
					seg := l.At(0)
					if first := string(seg.Value(src)); !strings.HasPrefix(first, "<details>") && !strings.HasPrefix(first, "</details>") {
						t.Errorf("%v: HTML block: %q", args, first)
					}
				}
			}
			return ast.WalkContinue, nil
		})
		assert.Equal(t, []string{"https://example.com/x"}, links, "%v: the one safe link is kept, no other", args)
		assert.Contains(t, r.Stdout, "javascript:alert(1)", "%v: the text is shown as written", args)
	}
}

// TestFinalMarkdownKeepsTheAnswer proves final -F markdown prints an
// answer with no raw HTML and no script link as written (its headings and
// lists are the document's: 60-long-session's report), only neutralising
// what is unsafe.
func TestFinalMarkdownKeepsTheAnswer(t *testing.T) {
	path := "../../testdata/real/60-long-session.jsonl"
	plain := runIn(t, []string{"final", path}, "")
	md := runIn(t, []string{"final", "-F", "markdown", path}, "")
	require.Equal(t, 0, md.Code, md.Stderr)
	assert.True(t, strings.HasPrefix(md.Stdout, "# net/http: how a request flows"), "%.80s", md.Stdout)
	assert.Equal(t, plain.Stdout, md.Stdout)
}

// TestGlanceLinksLandInTheReport proves every link of the glance has its
// anchor in the report, once: with --agent main, a subagent's failed call
// (05-subagents-async with its beta call failed) is not listed, since the
// report leaves its events out. (The fixture once added "is_error":true
// before the block's own "is_error":false, which the last-wins reading
// rightly took as a success, and a check of len(args) that never matched
// hid that nothing was listed: the block's own value is changed now, and
// the first case is told by its flags.)
func TestGlanceLinksLandInTheReport(t *testing.T) {
	path := derived(t, "05-subagents-async.jsonl", `"content":"beta-output\nLinux","is_error":false`, `"content":"beta-output\nLinux","is_error":true`)
	for _, args := range [][]string{{"all", "-F", "markdown", path}, {"all", "-F", "markdown", "--agent", "main", path}} {
		r := runIn(t, args, "")
		links := regexp.MustCompile(`\]\(#(l[0-9a-z]+-\d+)\)`).FindAllStringSubmatch(r.Stdout, -1)
		for _, l := range links {
			assert.Equal(t, 1, strings.Count(r.Stdout, `<a id="`+l[1]+`"></a>`), "%v: the anchor of %s", args, l[1])
		}
		if !slices.Contains(args, "--agent") {
			assert.Contains(t, r.Stdout, "(a912b2e4c07df6bb2): Bash", "the subagent's failure, listed")
		} else {
			assert.NotContains(t, r.Stdout, "(a912b2e4c07df6bb2): Bash", "--agent main: not the subagent's")
		}
	}
}
