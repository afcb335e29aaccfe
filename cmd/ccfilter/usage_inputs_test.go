package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/filter"
	"github.com/ccfilter/ccfilter/pkg/preset"
	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/spend"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// multiTurn is the real project folder of 50-multi-turn: a session
// resumed and continued (50505050…, 10 calls, $0.0940894) and its
// --fork-session (68992e40…, 3 calls of its own, $0.1252596 recorded).
const multiTurn = "../../testdata/transcripts/50-multi-turn/home/.claude/projects/-home-user-project"

const (
	parentID = "50505050-aaaa-4bbb-8ccc-000000000050"
	forkID   = "68992e40-6f27-496d-8514-27ef389eef23"
)

// runWithStdin runs ccfilter with stdin and the environment given.
func runWithStdin(t *testing.T, o *options, args []string, stdin io.Reader, env ...string) runResult {
	t.Helper()
	if o == nil {
		o = &options{presets: preset.Builtin()}
	}
	var stdout, stderr bytes.Buffer
	code := runWith(o, args, stdin, &stdout, &stderr, append([]string{"NO_COLOR=1"}, env...))
	return runResult{stdout.String(), stderr.String(), code}
}

// configDir is a CLAUDE_CONFIG_DIR whose projects tree holds a copy of
// 50-multi-turn's project folder, with each of its transcripts passed
// through edit (nil: as they are).
func configDir(t *testing.T, edit func(name string, b []byte) []byte) string {
	t.Helper()
	dir := t.TempDir()
	project := filepath.Join(dir, "projects", "-home-user-project")
	require.NoError(t, os.CopyFS(project, os.DirFS(multiTurn)))
	if edit != nil {
		files, _ := filepath.Glob(filepath.Join(project, "*.jsonl"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(f, edit(filepath.Base(f), b), 0o644))
		}
	}
	return dir
}

func jsonRows(t *testing.T, res runResult) []map[string]any {
	t.Helper()
	require.Equal(t, 0, res.Code, res.Stderr)
	var rows []map[string]any
	require.NoError(t, json.Unmarshal([]byte(res.Stdout), &rows), res.Stdout)
	return rows
}

// TestUsageByWithNoPathReadsTheTreeUnlessStdinHasData proves, on a
// CLAUDE_CONFIG_DIR holding 50-multi-turn, that `usage --by` with no PATH
// reads the projects tree when stdin is a terminal or empty (/dev/null, as
// under cron and CI), and that stdin with data in it (a pipe, a file) gets
// one line saying what --by groups and what to give it; and that a stream
// capture (testdata/events/04-parallel-tools.jsonl) is said to be no
// transcript, not priced at $0.0000*.
func TestUsageByWithNoPathReadsTheTreeUnlessStdinHasData(t *testing.T) {
	dir := configDir(t, nil)
	devNull, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer devNull.Close()
	args := []string{"usage", "--by", "session", "-F", "json", "--tz", "UTC"}
	for _, tc := range []struct {
		name     string
		terminal bool
		stdin    io.Reader
	}{
		{"a terminal", true, strings.NewReader("")},
		{"/dev/null", false, devNull},
		{"an empty pipe", false, strings.NewReader("")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &options{presets: preset.Builtin(), terminalIn: func() bool { return tc.terminal }}
			rows := jsonRows(t, runWithStdin(t, o, args, tc.stdin, "CLAUDE_CONFIG_DIR="+dir, "HOME=/nonexistent"))
			require.Len(t, rows, 2)
			assert.Equal(t, parentID, rows[0]["session_id"])
			assert.Equal(t, 10.0, rows[0]["calls"])
			assert.Equal(t, forkID, rows[1]["session_id"])
			assert.Equal(t, 3.0, rows[1]["calls"])
		})
	}

	piped := runWithStdin(t, nil, args, strings.NewReader(`{"type":"system","subtype":"init"}`+"\n"), "CLAUDE_CONFIG_DIR="+dir)
	assert.Equal(t, exitInput, piped.Code)
	assert.Empty(t, piped.Stdout)
	assert.Equal(t, 1, strings.Count(piped.Stderr, "\n"), piped.Stderr)
	assert.Contains(t, piped.Stderr, "--by groups session transcripts")
	assert.Contains(t, piped.Stderr, filepath.Join(dir, "projects"), "says what it would read with none")
	assert.NotContains(t, piped.Stderr, "stat -")

	capture := runWithStdin(t, nil, []string{"usage", "--by", "day", "../../testdata/events/04-parallel-tools.jsonl"}, strings.NewReader(""))
	assert.Equal(t, exitInput, capture.Code)
	assert.Contains(t, capture.Stderr, "04-parallel-tools.jsonl: not a session transcript")
	assert.NotContains(t, capture.Stdout, "$0.0000")
}

// compress writes b to path, gzip or zstd by its ending.
func compress(t *testing.T, path string, b []byte) {
	t.Helper()
	var out bytes.Buffer
	var w io.WriteCloser
	if strings.HasSuffix(path, ".gz") {
		w = gzip.NewWriter(&out)
	} else {
		zw, err := zstd.NewWriter(&out)
		require.NoError(t, err)
		w = zw
	}
	_, err := w.Write(b)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, out.Bytes(), 0o644))
}

// TestUsageByAndSessionsReadCompressedSessionsAndIds proves `usage --by`
// and `sessions` read what every preset reads: 50-multi-turn's session
// compressed and renamed (x.jsonl.gz, x.jsonl.zst) counts its 10 calls
// and $0.0940894 under the id its records name, as plain `usage` reads
// the same file, and a session named by the start of its id is found.
func TestUsageByAndSessionsReadCompressedSessionsAndIds(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(multiTurn, parentID+".jsonl"))
	require.NoError(t, err)
	dir := t.TempDir()
	for _, ext := range []string{".gz", ".zst"} {
		t.Run(ext, func(t *testing.T) {
			path := filepath.Join(dir, ext[1:], "x.jsonl"+ext)
			compress(t, path, b)
			plain := jsonRows(t, runWithStdin(t, nil, []string{"usage", "-F", "json", path}, strings.NewReader("")))
			var total map[string]any
			for _, r := range plain {
				if r["side"] == "total" {
					total = r
				}
			}
			require.NotNil(t, total)
			rows := jsonRows(t, runWithStdin(t, nil, []string{"usage", "--by", "session", "-F", "json", path}, strings.NewReader("")))
			require.Len(t, rows, 1)
			assert.Equal(t, parentID, rows[0]["session_id"], "the session's id, not its file's name")
			assert.Equal(t, 10.0, rows[0]["calls"])
			assert.Equal(t, total["calls"], rows[0]["calls"], "as plain usage counts them")
			assert.InDelta(t, 0.0940894, rows[0]["cost_usd"], 1e-9)
			list := jsonRows(t, runWithStdin(t, nil, []string{"sessions", "-F", "json", path}, strings.NewReader("")))
			require.Len(t, list, 1)
			assert.Equal(t, parentID, list[0]["session_id"])
			assert.Equal(t, rows[0]["total_tokens"], list[0]["total_tokens"])
		})
	}

	home, err := filepath.Abs("../../testdata/transcripts/50-multi-turn/home")
	require.NoError(t, err)
	byID := jsonRows(t, runWithStdin(t, nil, []string{"usage", "--by", "session", "-F", "json", "6899"}, strings.NewReader(""), "HOME="+home))
	require.Len(t, byID, 1, "a session named by the start of its id")
	assert.Equal(t, forkID, byID[0]["session_id"])
	assert.Equal(t, 3.0, byID[0]["calls"])
	listed := jsonRows(t, runWithStdin(t, nil, []string{"sessions", "-F", "json", "6899"}, strings.NewReader(""), "HOME="+home))
	require.Len(t, listed, 1)
	assert.Equal(t, forkID, listed[0]["session_id"])
}

// respace writes a JSON line as Python's json.dumps does by default (a
// user's script re-serializing a transcript): ", " and ": " between
// items, outside strings.
func respace(line []byte) []byte {
	var out []byte
	in := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		out = append(out, c)
		switch {
		case in && c == '\\':
			i++
			out = append(out, line[i])
		case c == '"':
			in = !in
		case !in && (c == ',' || c == ':'):
			out = append(out, ' ')
		}
	}
	return out
}

// eachLine applies f to every line of a transcript.
func eachLine(b []byte, f func(n int, line []byte) []byte) []byte {
	lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	var out [][]byte
	for i, l := range lines {
		out = append(out, f(i+1, l))
	}
	return append(bytes.Join(out, []byte("\n")), '\n')
}

// TestRespacedTranscriptCountsEveryCallAndABrokenOneIsSaid proves, on
// 50-multi-turn's two sessions re-serialized with spaces (as json.dumps
// writes them), that usage --by and sessions count the same calls,
// tokens and cost as on the files as the CLI wrote them (the byte test
// that picks lines chose the slow path; it did not decide the records
// were absent); and that an assistant line cut short (line 28 of the
// parent, its third call), spaced or not, is warned about with its line
// number, not folded silently into hidden tokens.
func TestRespacedTranscriptCountsEveryCallAndABrokenOneIsSaid(t *testing.T) {
	args := []string{"usage", "--by", "session", "-F", "json", "--tz", "UTC"}
	want := jsonRows(t, runWithStdin(t, nil, append(args, multiTurn), strings.NewReader("")))
	wantList := jsonRows(t, runWithStdin(t, nil, []string{"sessions", "-F", "json", multiTurn}, strings.NewReader("")))
	dir := configDir(t, func(_ string, b []byte) []byte {
		return eachLine(b, func(_ int, l []byte) []byte { return respace(l) })
	})
	project := filepath.Join(dir, "projects", "-home-user-project")
	got := jsonRows(t, runWithStdin(t, nil, append(args, project), strings.NewReader("")))
	assert.Equal(t, want, got)
	list := jsonRows(t, runWithStdin(t, nil, []string{"sessions", "-F", "json", project}, strings.NewReader("")))
	require.Len(t, list, len(wantList))
	for i := range list {
		for _, k := range []string{"session_id", "total_tokens", "cost_usd", "runs", "turns", "forked_from"} {
			assert.Equal(t, wantList[i][k], list[i][k], "%s %s", wantList[i]["session_id"], k)
		}
	}

	for _, tc := range []struct {
		name string
		edit func(l []byte) []byte
	}{
		{"as written", func(l []byte) []byte { return l }},
		{"respaced", respace},
	} {
		t.Run("cut "+tc.name, func(t *testing.T) {
			dir := configDir(t, func(name string, b []byte) []byte {
				return eachLine(b, func(n int, l []byte) []byte {
					l = tc.edit(l)
					if n == 28 && name == parentID+".jsonl" {
						require.Contains(t, string(l), "assistant")
						return l[:len(l)/2]
					}
					return l
				})
			})
			project := filepath.Join(dir, "projects", "-home-user-project")
			for _, cmd := range [][]string{append(args, project), {"sessions", "-F", "json", project}} {
				res := runWithStdin(t, nil, cmd, strings.NewReader(""))
				assert.Equal(t, 0, res.Code, res.Stderr)
				assert.Regexp(t, regexp.MustCompile(`warning: .*`+parentID+`\.jsonl:28: `), res.Stderr, cmd[0])
			}
			// What the cut call held is not folded into hidden (compaction
			// and helper calls, which the uncut session has none of): it is
			// said apart, as tokens lines that could not be read may hold.
			rows := jsonRows(t, runWithStdin(t, nil, append(args, project), strings.NewReader("")))
			for i, r := range rows {
				assert.Equal(t, want[i]["hidden_tokens"], r["hidden_tokens"], "%s: hidden as in the uncut session", r["session_id"])
				assert.Equal(t, want[i]["total_tokens"], r["total_tokens"], "%s: the session's total, as it recorded it", r["session_id"])
				if r["session_id"] == parentID {
					assert.Equal(t, float64(12424), r["unread_tokens"], "the cut call's tokens, said apart")
				} else {
					assert.Equal(t, float64(0), r["unread_tokens"])
				}
			}
			text := runWithStdin(t, nil, []string{"usage", "--by", "session", "--tz", "UTC", project}, strings.NewReader(""))
			assert.Contains(t, text.Stdout, "12424 tokens the sessions recorded are not in a call read here: lines that could not be read (warned above) may hold them.")
		})
	}
}

// TestForkWithoutRequestSessionIdCountsOnce proves, on 50-multi-turn
// with requestSessionId taken out of the fork's records (a fork whose
// copies do not name their origin), that each call counts once over the
// sessions read, in the session that started first: the parent keeps
// its 10 calls and $0.0940894, the fork its own 3 and $0.0311702, 13
// calls, 166,473 tokens and $0.1252596 in all (not 23 calls, 293,444
// tokens and $0.2194), in usage --by and in sessions, which names the
// parent the fork came from.
func TestForkWithoutRequestSessionIdCountsOnce(t *testing.T) {
	strip := regexp.MustCompile(`,"requestSessionId":"[^"]*"`)
	dir := configDir(t, func(name string, b []byte) []byte {
		if name != forkID+".jsonl" {
			return b
		}
		require.True(t, strip.Match(b))
		return strip.ReplaceAll(b, nil)
	})
	project := filepath.Join(dir, "projects", "-home-user-project")
	rows := jsonRows(t, runWithStdin(t, nil, []string{"usage", "--by", "session", "-F", "json", "--tz", "UTC", project}, strings.NewReader("")))
	require.Len(t, rows, 2)
	calls, tokens, cost := 0.0, 0.0, 0.0
	for _, r := range rows {
		calls += r["calls"].(float64)
		tokens += r["total_tokens"].(float64)
		cost += r["cost_usd"].(float64)
	}
	assert.Equal(t, 13.0, calls)
	assert.Equal(t, 166473.0, tokens)
	assert.InDelta(t, 0.1252596, cost, 1e-9)
	assert.Equal(t, parentID, rows[0]["session_id"])
	assert.Equal(t, 10.0, rows[0]["calls"])
	assert.InDelta(t, 0.0940894, rows[0]["cost_usd"], 1e-9)
	assert.Equal(t, forkID, rows[1]["session_id"])
	assert.Equal(t, 3.0, rows[1]["calls"])
	assert.InDelta(t, 0.1252596-0.0940894, rows[1]["cost_usd"], 1e-9)

	list := jsonRows(t, runWithStdin(t, nil, []string{"sessions", "-F", "json", project}, strings.NewReader("")))
	require.Len(t, list, 2)
	for i, r := range rows {
		assert.Equal(t, r["session_id"], list[i]["session_id"])
		assert.Equal(t, r["total_tokens"], list[i]["total_tokens"])
		assert.Equal(t, r["cost_usd"], list[i]["cost_usd"])
	}
	assert.Equal(t, parentID, list[1]["forked_from"])

	// A copy of the parent's file under another name, read with it:
	// its calls and runs are the parent's, counted once.
	b, err := os.ReadFile(filepath.Join(multiTurn, parentID+".jsonl"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(project, "copy.jsonl"), b, 0o644))
	again := jsonRows(t, runWithStdin(t, nil, []string{"usage", "--by", "session", "-F", "json", "--tz", "UTC", project}, strings.NewReader("")))
	assert.Equal(t, rows, again, "a copied session counts once")
}

// TestWhereKeepsUsageAndInitRows proves --where applies to usage and init
// as to the other row sets: it keeps the rows it is true for, each seen
// as its JSON row, in every format (on testdata/events/04-parallel-tools.jsonl,
// and usage --by on 50-multi-turn's project folder, whose total is then
// the kept rows').
func TestWhereKeepsUsageAndInitRows(t *testing.T) {
	capture := "../../testdata/events/04-parallel-tools.jsonl"
	for _, tc := range []struct {
		args []string
		rows int
		key  string
		want any
	}{
		{[]string{"usage", "--where", `.side == "total"`, capture}, 1, "calls", 2.0},
		{[]string{"usage", "--where", `.side == "main"`, capture}, 1, "model", "claude-opus-5-5"},
		{[]string{"usage", "--where", `.side == "nobody"`, capture}, 0, "", nil},
		{[]string{"init", "--where", `.cwd == "/home/user/project"`, capture}, 1, "permission_mode", "acceptEdits"},
		{[]string{"init", "--where", `.tools | index("Bash") == null`, capture}, 0, "", nil},
		{[]string{"usage", "--by", "session", "--where", `.calls < 5`, multiTurn}, 1, "session_id", forkID},
	} {
		t.Run(strings.Join(tc.args[:3], " "), func(t *testing.T) {
			rows := jsonRows(t, runWithStdin(t, nil, append([]string{"-F", "json"}, tc.args...), strings.NewReader("")))
			require.Len(t, rows, tc.rows)
			if tc.rows > 0 {
				assert.Equal(t, tc.want, rows[0][tc.key])
			}
		})
	}
	text := runWithStdin(t, nil, []string{"usage", "--where", `.side == "main"`, capture}, strings.NewReader(""))
	require.Equal(t, 0, text.Code, text.Stderr)
	assert.Contains(t, text.Stdout, "claude-opus-5-5  main")
	assert.NotRegexp(t, `(?m)^total`, text.Stdout, "the table shows the rows kept")
	by := runWithStdin(t, nil, []string{"usage", "--by", "session", "--where", `.calls < 5`, multiTurn}, strings.NewReader(""))
	require.Equal(t, 0, by.Code, by.Stderr)
	assert.Regexp(t, `total +3 `, by.Stdout, "the total of the rows kept")
}

// TestGroupingIsDeclaredByThePreset proves the command knows no preset by
// name for grouping: a preset added through the registry that declares a
// grouping of its own (its flag, --per, and its report of the calls of
// 50-multi-turn's sessions, each once) runs with the flag it declares,
// which another preset refuses, naming the preset it belongs to.
func TestGroupingIsDeclaredByThePreset(t *testing.T) {
	reg := preset.Builtin()
	require.NoError(t, reg.Add(preset.Preset{
		Name: "calls", Summary: "model calls of every session", Example: "ccfilter calls --per session DIR",
		Start: func(c *preset.Config, tr *stream.Tracker) (preset.Run, error) {
			return preset.StartReport(c, tr, preset.Reporter{Report: func(*stream.Tracker) (*render.Report, error) { return &render.Report{Title: "none"}, nil }})
		},
		Grouping: &preset.Grouping{Key: "per", Flags: []preset.Flag{{Name: "per", Usage: "what to count per"}},
			Start: func(v map[string]string, _ *filter.Expr, _ bool) (*preset.GroupRun, error) {
				n := 0
				return &preset.GroupRun{
					Add: func(c spend.Call) {
						if !c.Hidden {
							n++
						}
					},
					Report: func() (*render.Report, error) {
						set := render.NewRowSet("per", "calls")
						set.Add(v["per"], n)
						return &render.Report{Title: "calls", Rows: set}, nil
					},
				}, nil
			}},
	}))
	run := func(args ...string) runResult {
		return runWithStdin(t, &options{presets: reg}, args, strings.NewReader(""))
	}
	rows := jsonRows(t, run("calls", "--per", "session", "-F", "json", multiTurn))
	assert.Equal(t, []map[string]any{{"per": "session", "calls": 13.0}}, rows)
	usage := jsonRows(t, run("usage", "--by", "model", "-F", "json", multiTurn))
	assert.Equal(t, 13.0, usage[0]["calls"], "usage declares its own")
	for _, args := range [][]string{{"tools", "--per", "x", multiTurn}, {"usage", "--per", "x", multiTurn}} {
		res := run(args...)
		assert.Equal(t, exitUsage, res.Code, args)
		assert.Contains(t, res.Stderr, "ccfilter calls --per", args)
	}
	res := run("calls", "--by", "day", multiTurn)
	assert.Equal(t, exitUsage, res.Code)
	assert.Contains(t, res.Stderr, "ccfilter usage --by")
}

// TestEveryCommandFindsSessionsUnderClaudeConfigDir proves the projects
// tree is found one way, as Claude Code finds it ($CLAUDE_CONFIG_DIR, else
// ~/.claude), by usage --by, sessions and a session named by its id: on
// 183e2ab sessions and the id looked under $HOME only, while usage --by
// looked under $CLAUDE_CONFIG_DIR (50-multi-turn's project folder).
func TestEveryCommandFindsSessionsUnderClaudeConfigDir(t *testing.T) {
	dir := configDir(t, nil)
	env := []string{"CLAUDE_CONFIG_DIR=" + dir, "HOME=/nonexistent"}
	for _, args := range [][]string{
		{"usage", "--by", "session", "-F", "json"},
		{"sessions", "-F", "json"},
	} {
		rows := jsonRows(t, runWithStdin(t, nil, args, strings.NewReader(""), env...))
		assert.Len(t, rows, 2, "%v: the two sessions of 50-multi-turn", args)
	}
	r := runWithStdin(t, nil, []string{"final", "6899"}, strings.NewReader(""), env...)
	assert.Equal(t, exitOK, r.Code, r.Stderr)
	assert.NotEmpty(t, r.Stdout, "the session found by the start of its id")
}
