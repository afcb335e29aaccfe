package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// transcriptRuns are the real runs whose session folder the CLI left with
// the stream of the same run beside it (testdata/transcripts, and the big
// one in ../shared when it is there).
func transcriptRuns(t *testing.T) map[string]string {
	t.Helper()
	dirs, err := filepath.Glob("../../testdata/transcripts/*/stream.jsonl")
	require.NoError(t, err)
	if extra, _ := filepath.Glob("../../../shared/transcripts/19-*/stream.jsonl"); len(extra) > 0 {
		dirs = append(dirs, extra...)
	}
	require.GreaterOrEqual(t, len(dirs), 17)
	runs := map[string]string{}
	for _, s := range dirs {
		dir := filepath.Dir(s)
		files, err := filepath.Glob(filepath.Join(dir, "home/.claude/projects/*/*.jsonl"))
		require.NoError(t, err)
		require.NotEmpty(t, files, dir)
		sort.Strings(files)
		runs[dir] = files[0]
	}
	return runs
}

// ndjsonSet runs a preset with --format ndjson and returns the set of the
// given fields of each record.
func jsonLines(t *testing.T, args []string, fields ...string) []string {
	t.Helper()
	got := runIn(t, args, "")
	var out []string
	sc := bufio.NewScanner(strings.NewReader(got.Stdout))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), sc.Text())
		var parts []string
		for _, f := range fields {
			b, _ := json.Marshal(m[f])
			parts = append(parts, string(b))
		}
		out = append(out, strings.Join(parts, " "))
	}
	sort.Strings(out)
	return out
}

// TestTranscriptMatchesItsStream proves a session transcript, recognised
// with no flag and read with its subagents' files, gives what the stream
// of the same run gives: the final answer and the exit code, the tool
// calls (id, tool, is_error), the subagents. Where the two differ by
// nature the test says so: 09's failure is told in other words (the
// stream's result has a subtype and an HTTP status, the transcript an API
// error record); 50's transcript holds three runs (a resume and a continue
// appended to the same file), its stream the first only.
func TestTranscriptMatchesItsStream(t *testing.T) {
	for dir, transcript := range transcriptRuns(t) {
		name := filepath.Base(dir)
		stream := filepath.Join(dir, "stream.jsonl")
		tf := runIn(t, []string{"final", transcript}, "")
		sf := runIn(t, []string{"final", stream}, "")
		assert.Equal(t, sf.Code, tf.Code, "%s: final's exit code: %s", name, tf.Stderr)
		if !strings.HasPrefix(name, "50-") {
			if sf.Code == 0 {
				assert.Equal(t, sf.Stdout, tf.Stdout, "%s: the final answer", name)
			}
			assert.Equal(t, jsonLines(t, []string{"tools", "--format", "ndjson", stream}, "tool_use_id", "tool", "is_error"),
				jsonLines(t, []string{"tools", "--format", "ndjson", transcript}, "tool_use_id", "tool", "is_error"), "%s: the tool calls", name)
		}
		var ss, ts []map[string]any
		require.NoError(t, json.Unmarshal([]byte(runIn(t, []string{"subagents", "--format", "json", stream}, "").Stdout), &ss))
		require.NoError(t, json.Unmarshal([]byte(runIn(t, []string{"subagents", "--format", "json", transcript}, "").Stdout), &ts))
		ids := func(rows []map[string]any) []string {
			var out []string
			for _, r := range rows {
				out = append(out, r["agent_id"].(string)+" "+r["status"].(string))
			}
			sort.Strings(out)
			return out
		}
		assert.Equal(t, ids(ss), ids(ts), "%s: the subagents and how they ended", name)
		// The views show no bookkeeping record as an unknown event.
		all := runIn(t, []string{"all", transcript}, "")
		assert.NotRegexp(t, `(?m)^\s*\? `, all.Stdout, name)
		assert.Empty(t, all.Stderr, name)
	}
}

// TestTranscriptPassesRecordsThrough proves --format ndjson writes every
// record of a transcript byte for byte, in order (the subagents' records
// inserted after the call that started them, and the two synthetic events
// marked as such), and that --input stream reads a transcript as lines
// of unknown events, with no synthetic result.
func TestTranscriptPassesRecordsThrough(t *testing.T) {
	transcript := transcriptRuns(t)["../../testdata/transcripts/05-subagents-async"]
	data, err := os.ReadFile(transcript)
	require.NoError(t, err)
	want := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	got := runIn(t, []string{"all", "--format", "ndjson", transcript}, "")
	lines := strings.Split(strings.TrimSuffix(got.Stdout, "\n"), "\n")
	i, synthetic := 0, 0
	for _, l := range lines {
		if i < len(want) && l == want[i] {
			i++
		}
		if strings.Contains(l, `"ccfilter":"synthetic"`) {
			synthetic++
		}
	}
	assert.Equal(t, len(want), i, "every record of the main file, in order")
	assert.Equal(t, 4, synthetic, "an init, two task notifications, a result")
	assert.Greater(t, len(lines), len(want)+synthetic, "the subagents' records are in")
	got = runIn(t, []string{"final", "--input", "stream", transcript}, "")
	assert.Equal(t, exitNoResult, got.Code)
	got = runIn(t, []string{"final", "--input", "nope", transcript}, "")
	assert.Equal(t, exitUsage, got.Code)
}

// TestTranscriptHostile proves a damaged session folder gets a warning and
// the rest of the session, never a panic: a subagent's file missing, a
// .meta.json that is not JSON (its file is then joined by the agent id
// its call's result names, as one with no .meta.json is), the last line
// cut.
func TestTranscriptHostile(t *testing.T) {
	src := "../../testdata/transcripts/05-subagents-async/home/.claude/projects/-home-user-project"
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS(src)))
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.Len(t, files, 1)
	main := files[0]
	metas, _ := filepath.Glob(filepath.Join(dir, "*/subagents/*.meta.json"))
	require.Len(t, metas, 2)
	require.NoError(t, os.Remove(strings.TrimSuffix(metas[0], ".meta.json")+".jsonl"))
	require.NoError(t, os.WriteFile(metas[1], []byte("{not json"), 0o644))
	data, err := os.ReadFile(main)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(main, data[:len(data)-40], 0o644))

	got := runIn(t, []string{"tools", main}, dir)
	assert.Equal(t, 0, got.Code)
	assert.Contains(t, got.Stdout, "aaf4be6061cae469c  Write", "the subagent of the .meta.json that is not JSON, joined by its agent id")
	assert.Contains(t, got.Stderr, "are missing")
	assert.Contains(t, got.Stderr, "truncated JSON")
	assert.Contains(t, got.Stdout, "Agent", "the rest of the session")
	got = runIn(t, []string{"final", main}, dir)
	assert.Equal(t, "Both subagents reported: alpha.txt was created, and the command printed beta-output and Linux.\n", got.Stdout)
}

// TestSessionFolders proves a directory argument is read as Claude Code
// lays sessions out: a project folder is every session in it, each its
// own run, oldest first; a session's folder is its transcript; a
// .meta.json whose call the session never reaches is reported.
func TestSessionFolders(t *testing.T) {
	// The sessions of a folder in the order of the times inside them, as
	// sessions lists them: the parent (started first, resumed and
	// continued) before its fork, whatever the files' modification times
	// say (a copy or a checkout changes them; issue 27 item 6).
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS("../../testdata/transcripts/50-multi-turn/home/.claude/projects/-home-user-project")))
	fork := filepath.Join(dir, "68992e40-6f27-496d-8514-27ef389eef23.jsonl")
	parent := filepath.Join(dir, "50505050-aaaa-4bbb-8ccc-000000000050.jsonl")
	for _, older := range []string{fork, parent} {
		old := time.Now().Add(-time.Hour)
		require.NoError(t, os.Chtimes(older, old, old))
		got := runIn(t, []string{"final", dir}, dir)
		assert.Equal(t, "Continuing the same conversation: nothing else to do.\nIn the forked session I changed Bob to Alice.\n", got.Stdout, got.Stderr)
		require.NoError(t, os.Chtimes(older, time.Now(), time.Now()))
	}
	got := runIn(t, []string{"sessions", "-F", "csv", filepath.Dir(dir)}, dir)
	assert.Less(t, strings.Index(got.Stdout, "50505050-"), strings.Index(got.Stdout, "68992e40-"), "sessions lists them in the same order")

	src := "../../testdata/transcripts/05-subagents-async/home/.claude/projects/-home-user-project"
	session := filepath.Join(src, "cb10905b-9d5a-4d11-a6f3-8e2e6e2068cd")
	got = runIn(t, []string{"final", session + "/"}, "")
	assert.Equal(t, "Both subagents reported: alpha.txt was created, and the command printed beta-output and Linux.\n", got.Stdout)

	dir = t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS(src)))
	metas, _ := filepath.Glob(filepath.Join(dir, "*/subagents/*.meta.json"))
	require.NotEmpty(t, metas)
	require.NoError(t, os.WriteFile(metas[0], []byte(`{"toolUseId":"toolu_nowhere"}`), 0o644))
	got = runIn(t, []string{"tools", dir}, dir)
	assert.Contains(t, got.Stderr, "no call toolu_nowhere in the session started this subagent: its records are not joined")
}

// runHome runs ccfilter with HOME set to home.
func runHome(home string, args ...string) runResult {
	var stdout, stderr strings.Builder
	code := run(args, strings.NewReader(""), &stdout, &stderr, []string{"NO_COLOR=1", "HOME=" + home})
	return runResult{stdout.String(), stderr.String(), code}
}

// TestSessionsListing proves `ccfilter sessions` lists the sessions under
// ~/.claude/projects with what each holds, shows a resumed session as one
// (three runs in one file) and a fork with the session it came from, in
// every format; and that a session is found by (the start of) its id.
func TestSessionsListing(t *testing.T) {
	home, err := filepath.Abs("../../testdata/transcripts/50-multi-turn/home")
	require.NoError(t, err)
	got := runHome(home, "sessions", "--format", "json")
	require.Equal(t, 0, got.Code, got.Stderr)
	var list []struct {
		ID         string   `json:"session_id"`
		Runs       int      `json:"runs"`
		Turns      int      `json:"turns"`
		ToolCalls  int      `json:"tool_calls"`
		ForkedFrom string   `json:"forked_from"`
		Title      string   `json:"title"`
		Cost       *float64 `json:"cost_usd"`
	}
	require.NoError(t, json.Unmarshal([]byte(got.Stdout), &list))
	require.Len(t, list, 2)
	byID := map[string]int{}
	for i, s := range list {
		byID[s.ID] = i
		assert.Equal(t, "Create notes.txt with a short to-do list.", s.Title, "the first line of the first prompt")
		assert.NotNil(t, s.Cost)
	}
	main, fork := list[byID["50505050-aaaa-4bbb-8ccc-000000000050"]], list[byID["68992e40-6f27-496d-8514-27ef389eef23"]]
	assert.Equal(t, 3, main.Runs, "the first run, --resume and --continue wrote to one file")
	assert.Equal(t, 6, main.Turns)
	assert.Empty(t, main.ForkedFrom)
	assert.Equal(t, "50505050-aaaa-4bbb-8ccc-000000000050", fork.ForkedFrom)
	assert.Equal(t, 7, fork.Turns, "the fork's copy and its own turn")
	for _, f := range []string{"text", "markdown", "csv", "ndjson"} {
		got := runHome(home, "sessions", "--format", f)
		assert.Equal(t, 0, got.Code, f)
		assert.Contains(t, got.Stdout, "68992e40-6f27-496d-8514-27ef389eef23", f)
	}
	got = runHome(home, "final", "68992e40")
	assert.Equal(t, "In the forked session I changed Bob to Alice.\n", got.Stdout, got.Stderr)
	got = runHome(t.TempDir(), "sessions")
	assert.Equal(t, exitInput, got.Code)
	assert.Contains(t, got.Stderr, "no session transcript under")
}

// TestPersistedOutputFullSize proves a tool result the transcript keeps as
// a preview (<persisted-output>) counts the size of the output saved in
// the session's tool-results/ folder, which the stream cannot know.
func TestPersistedOutputFullSize(t *testing.T) {
	runs := transcriptRuns(t)
	dir := "../../testdata/transcripts/60-long-session"
	sizes := func(path string) map[string]float64 {
		out := map[string]float64{}
		for _, l := range strings.Split(strings.TrimSpace(runIn(t, []string{"tools", "--format", "ndjson", path}, "").Stdout), "\n") {
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(l), &m))
			if b, ok := m["result_bytes"].(float64); ok {
				out[m["tool_use_id"].(string)] = b
			}
		}
		return out
	}
	tr, st := sizes(runs[dir]), sizes(filepath.Join(dir, "stream.jsonl"))
	files, _ := filepath.Glob(filepath.Join(dir, "home/.claude/projects/*/*/tool-results/*.txt"))
	require.Len(t, files, 2)
	fi, err := os.Stat(filepath.Join(filepath.Dir(files[0]), "toolu_01Bkubf2VYjQfY1jziRqCAcF.txt"))
	require.NoError(t, err)
	assert.Equal(t, float64(fi.Size()), tr["toolu_01Bkubf2VYjQfY1jziRqCAcF"], "the saved output's size")
	assert.Less(t, st["toolu_01Bkubf2VYjQfY1jziRqCAcF"], float64(fi.Size()), "the stream has the preview only")
}

// TestTranscriptReportGoldens keeps the markdown report and the text view
// of every real session in testdata/golden/transcripts (go test
// ./cmd/ccfilter -update rewrites them; review the diff): the prompts, the
// assistant's text with its markdown, tool calls with their results,
// subagents where they were started, the totals.
func TestTranscriptReportGoldens(t *testing.T) {
	dir := "../../testdata/golden/transcripts"
	if *update {
		require.NoError(t, os.MkdirAll(dir, 0o755))
	}
	for run, transcript := range transcriptRuns(t) {
		name := filepath.Base(run)
		if !strings.HasPrefix(run, "../../testdata/") {
			continue // not in the repository
		}
		for _, f := range []struct{ format, ext string }{{"markdown", ".md"}, {"text", ".txt"}} {
			got := runIn(t, []string{"all", "--format", f.format, transcript}, "")
			require.Equal(t, 0, got.Code, "%s: %s", name, got.Stderr)
			golden := filepath.Join(dir, name+f.ext)
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(got.Stdout), 0o644))
				continue
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "go test ./cmd/ccfilter -update")
			assert.Equal(t, string(want), got.Stdout, "%s --format %s (go test ./cmd/ccfilter -update, then review the diff)", name, f.format)
		}
	}
}

// TestTranscriptNestedSubagent proves a subagent started by a subagent
// (its .meta.json names a call in its parent's file; Claude Code stores
// it flat beside its parent) is joined inside its parent's records, right
// after that call, and that a sidechain whose records carry another
// sessionId is read all the same.
func TestTranscriptNestedSubagent(t *testing.T) {
	src := "../../testdata/transcripts/05-subagents-async/home/.claude/projects/-home-user-project"
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS(src)))
	sub := filepath.Join(dir, "cb10905b-9d5a-4d11-a6f3-8e2e6e2068cd", "subagents")
	// agent-aaf4… (alpha) calls Write toolu_…; make agent-a2ef… (beta) its child.
	alpha, err := os.ReadFile(filepath.Join(sub, "agent-aaf4be6061cae469c.jsonl"))
	require.NoError(t, err)
	var writeID string
	for _, l := range strings.Split(string(alpha), "\n") {
		var m struct {
			Message struct {
				Content []struct{ Type, ID, Name string } `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal([]byte(l), &m) == nil {
			for _, b := range m.Message.Content {
				if b.Type == "tool_use" && b.Name == "Write" {
					writeID = b.ID
				}
			}
		}
	}
	require.NotEmpty(t, writeID)
	require.NoError(t, os.WriteFile(filepath.Join(sub, "agent-a2efea0094b20e458.meta.json"), []byte(`{"toolUseId":"`+writeID+`","spawnDepth":2,"parentAgentId":"aaf4be6061cae469c"}`), 0o644))
	beta := filepath.Join(sub, "agent-a2efea0094b20e458.jsonl")
	data, err := os.ReadFile(beta)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(beta, []byte(strings.ReplaceAll(string(data), "cb10905b-9d5a-4d11-a6f3-8e2e6e2068cd", "00000000-0000-0000-0000-000000000000")), 0o644))

	got := runIn(t, []string{"-r", `select(kind == "tool_use") | .message.content[0].name + " " + agent`, dir}, dir)
	require.Equal(t, 0, got.Code, got.Stderr)
	assert.Equal(t, "Agent main\nWrite aaf4be6061cae469c\nBash a2efea0094b20e458\nAgent main\n", got.Stdout,
		"beta's Bash comes right after alpha's Write, before the second Agent call")
}

// TestFullOutput proves --full-output shows, in the markdown report and
// the text view, the output a session saved in tool-results/ rather than
// the <persisted-output> preview, and that without it the preview is
// shown.
func TestFullOutput(t *testing.T) {
	transcript := transcriptRuns(t)["../../testdata/transcripts/60-long-session"]
	files, _ := filepath.Glob("../../testdata/transcripts/60-long-session/home/.claude/projects/*/*/tool-results/toolu_01Bkubf2VYjQfY1jziRqCAcF.txt")
	require.Len(t, files, 1)
	saved, err := os.ReadFile(files[0])
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(saved)), "\n")
	beyond := lines[60] // past the 2 KB preview
	for _, f := range []string{"markdown", "text"} {
		full := runIn(t, []string{"all", "--format", f, "--full-output", "--agent", "main", transcript}, "")
		preview := runIn(t, []string{"all", "--format", f, "--agent", "main", transcript}, "")
		assert.NotContains(t, full.Stdout, "<persisted-output>", f)
		assert.Contains(t, preview.Stdout, "<persisted-output>", f)
		if f == "markdown" {
			assert.Contains(t, full.Stdout, beyond, "a line of the saved output beyond its preview")
			assert.NotContains(t, preview.Stdout, beyond)
		}
	}
}

// TestBackgroundSubagentReportFromTranscript proves a background
// subagent's report, read from a transcript, is its words (the <result>
// of its task notification), as the stream of the same run says, not the
// notification's "Agent … finished" (issue 33 item 2, 05-subagents-async).
func TestBackgroundSubagentReportFromTranscript(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/transcripts/05-subagents-async/home/.claude/projects/*/*.jsonl")
	require.Len(t, files, 1)
	reports := func(path string) []string {
		r := runIn(t, []string{"subagents", "-F", "json", path}, "")
		require.Equal(t, 0, r.Code, r.Stderr)
		var subs []struct {
			Report string `json:"report"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.Stdout), &subs))
		var out []string
		for _, s := range subs {
			out = append(out, s.Report)
		}
		return out
	}
	got := reports(files[0])
	assert.Equal(t, []string{"Created alpha.txt containing the single line `alpha`.", "The command printed `beta-output` and `Linux`."}, got)
	assert.Equal(t, reports("../../testdata/events/05-subagents-async.jsonl"), got, "the stream of the same run says the same")
}

// copySession copies the session folder of a transcript under
// testdata/transcripts/NAME into a project folder of the test's own and
// returns the transcript's path there.
func copySession(t *testing.T, name string) string {
	t.Helper()
	files, _ := filepath.Glob("../../testdata/transcripts/" + name + "/home/.claude/projects/*/*.jsonl")
	require.Len(t, files, 1)
	src := filepath.Dir(files[0])
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	require.NoError(t, os.CopyFS(dst, os.DirFS(src)))
	return filepath.Join(dst, filepath.Base(files[0]))
}

// TestTranscriptFactsDoNotDependOnItsPackaging proves a transcript gives
// the same facts (tool calls, subagents, usage), its subagents joined,
// read from the file, a .jsonl.gz or a .jsonl.zst beside its session
// folder; and from stdin, where the folder cannot be found, says so once
// (issue 33 item 4, 05-subagents-async: 4 calls, 2 of them a subagent's).
func TestTranscriptFactsDoNotDependOnItsPackaging(t *testing.T) {
	path := copySession(t, "05-subagents-async")
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var gz, zs bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write(raw)
	require.NoError(t, gw.Close())
	zw, err := zstd.NewWriter(&zs)
	require.NoError(t, err)
	zw.Write(raw)
	require.NoError(t, zw.Close())
	require.NoError(t, os.WriteFile(path+".gz", gz.Bytes(), 0o644))
	require.NoError(t, os.WriteFile(path+".zst", zs.Bytes(), 0o644))
	require.NoError(t, os.Remove(path)) // only the compressed copies are left beside the folder
	want := map[string]runResult{}
	for _, args := range [][]string{{"tools", "-F", "csv"}, {"subagents", "-F", "json"}, {"usage", "-F", "json"}} {
		for _, f := range []string{path + ".gz", path + ".zst"} {
			r := runIn(t, append(args, f), "")
			require.Equal(t, 0, r.Code, r.Stderr)
			assert.Empty(t, r.Stderr)
			r.Stdout = strings.ReplaceAll(r.Stdout, filepath.Base(f), "FILE")
			if w, ok := want[args[0]]; ok {
				assert.Equal(t, w.Stdout, r.Stdout, "%v: .gz and .zst agree", args)
			}
			want[args[0]] = r
		}
	}
	assert.Equal(t, 5, strings.Count(want["tools"].Stdout, "\n"), "a header and 4 calls, 2 of them the subagents':\n%s", want["tools"].Stdout)

	var stdout, stderr bytes.Buffer
	code := runWith(&options{}, []string{"tools"}, bytes.NewReader(raw), &stdout, &stderr, []string{"NO_COLOR=1"})
	assert.Equal(t, 0, code)
	assert.Equal(t, 2, strings.Count(stdout.String(), "\n"), "from stdin, the main agent's two calls")
	assert.Equal(t, "ccfilter: warning: <stdin>: a transcript read from stdin: its subagents' records, in the session's folder beside the file, cannot be joined (give the file's path to join them)\n", stderr.String())
}

// TestSubagentFilesThatCannotBeJoinedAreNamed proves a subagent file with
// no .meta.json, whose agent id no Agent call's result names either (05's
// alpha agent's file renamed: its real name is joined by its result's
// agentId, TestSubagentFileWithoutMetaIsJoinedByItsAgentID), is named in
// a warning (issue 33 item 5; its records are then read as an agent of
// its own: TestSubagentFileNoCallNamesIsOneFigureInEveryView); and that a FIFO in place of a subagent's file, its .meta.json,
// or a session in a project folder is passed over with a note instead of
// hanging the run (item 6), for every preset that reads subagents.
func TestSubagentFilesThatCannotBeJoinedAreNamed(t *testing.T) {
	path := copySession(t, "05-subagents-async")
	subs := filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents")
	require.NoError(t, os.Remove(filepath.Join(subs, "agent-aaf4be6061cae469c.meta.json")))
	require.NoError(t, os.Rename(filepath.Join(subs, "agent-aaf4be6061cae469c.jsonl"), filepath.Join(subs, "agent-a0000000000000000.jsonl")))
	r := runIn(t, []string{"tools", path}, "")
	assert.Equal(t, 0, r.Code)
	assert.Contains(t, r.Stderr, "agent-a0000000000000000.jsonl: no .meta.json beside it says which Agent call started this subagent, nor does any call's result name agent a0000000000000000: its records are read at the end, as an agent of its own")

	fifoSub := filepath.Join(subs, "agent-a2efea0094b20e458.jsonl")
	require.NoError(t, os.Remove(fifoSub))
	mkfifo(t, fifoSub)
	proj := filepath.Dir(path)
	mkfifo(t, filepath.Join(proj, "fifo-session.jsonl"))
	for _, args := range [][]string{{"all", path}, {"subagents", path}, {"usage", proj}, {"final", proj}, {"sessions", filepath.Dir(proj)}} {
		done := make(chan runResult, 1)
		go func() { done <- runIn(t, args, "") }()
		select {
		case r := <-done:
			assert.Contains(t, r.Stderr, "not a regular file (a FIFO): skipped", "%v", args)
		case <-time.After(liveTimeout):
			t.Fatalf("%v hangs on a FIFO", args)
		}
	}
}

// subagentRows runs subagents -F json on path.
func subagentRows(t *testing.T, path string) []map[string]any {
	t.Helper()
	r := runIn(t, []string{"subagents", "-F", "json", path}, "")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Empty(t, r.Stderr)
	var rows []map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &rows))
	return rows
}

// TestTranscriptNestedSubagentFinished proves a finished subagent started
// by a subagent (43-nested-subagent: 05's alpha calls Agent in the
// foreground; its child's file is stored flat beside it, .meta.json
// spawnDepth 2) is completed, with the usage of its hand-back, though the
// tool result in its parent's file carries no toolUseResult (no tool
// result in a subagent's file does).
func TestTranscriptNestedSubagentFinished(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/transcripts/43-nested-subagent/home/.claude/projects/*/*.jsonl")
	require.Len(t, files, 1)
	rows := subagentRows(t, files[0])
	require.Len(t, rows, 3)
	var nested map[string]any
	for _, r := range rows {
		if r["depth"] == float64(2) {
			nested = r
		}
		assert.Equal(t, "completed", r["status"], r["agent_id"])
	}
	require.NotNil(t, nested)
	assert.Equal(t, "a7c3e5f9b1d2e4068", nested["agent_id"])
	assert.Equal(t, "toolu_01GeueNaf35yNYc6unpBkPZK", nested["parent_tool_use_id"], "alpha's Agent call")
	assert.Equal(t, []any{float64(7621), float64(1), float64(1370)}, []any{nested["task_reported_tokens"], nested["tool_uses"], nested["duration_ms"]}, "the CLI's task figures")
	assert.Equal(t, float64(6+45+1928+12772), nested["total_tokens"], "total_tokens: the sum over its own two calls, in its sidechain file")
	assert.Equal(t, "The command printed `alpha`.", nested["report"])
}

// TestTranscriptWorkflowAgents proves a Workflow's agents
// (subagents/workflows/<runId>/, .meta.json naming no call) are joined
// after the Workflow's result, which names the run (37-workflow, made of
// the 37 stream capture): no warning on any preset, their tokens counted
// (the session's add up to the cost-state's modelUsage), and the workflow
// shown as the stream of the same run shows it.
func TestTranscriptWorkflowAgents(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/transcripts/37-workflow/home/.claude/projects/*/*.jsonl")
	require.Len(t, files, 1)
	for _, p := range []string{"final", "all", "usage", "tools", "errors"} {
		r := runIn(t, []string{p, files[0]}, "")
		assert.Empty(t, r.Stderr, p)
	}
	r := runIn(t, []string{"usage", "-F", "json", files[0]}, "")
	require.Equal(t, 0, r.Code, r.Stderr)
	var rows []map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &rows))
	bySide := map[string]map[string]any{}
	for _, row := range rows {
		bySide[row["side"].(string)] = row
	}
	require.Contains(t, bySide, "subagent")
	require.Contains(t, bySide, "result")
	assert.Equal(t, float64(5), bySide["total"]["calls"], "3 of the main agent, 1 of each workflow agent")
	sub := bySide["subagent"]
	assert.Equal(t, []any{float64(6), float64(2), float64(2736), float64(10964)},
		[]any{sub["input_tokens"], sub["output_tokens"], sub["cache_creation_input_tokens"], sub["cache_read_input_tokens"]})
	for _, k := range []string{"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"} {
		assert.Equal(t, bySide["result"][k], bySide["total"][k], k)
	}
	got := subagentRows(t, files[0])
	require.Len(t, got, 1)
	assert.Equal(t, float64(13708), got[0]["cache_read_input_tokens"].(float64)+2736+6+2)
	want := subagentRows(t, "../../testdata/events/37-workflow.jsonl")
	for _, k := range []string{"tool_use_id", "agent_id", "type", "description", "status", "task_reported_tokens", "tool_uses", "duration_ms"} {
		assert.Equal(t, want[0][k], got[0][k], k)
	}
	// The stream does not forward a workflow agent's calls: its sum is
	// not in that input (null), the transcript's files carry them.
	assert.Nil(t, want[0]["total_tokens"], "the stream's")
	assert.Equal(t, float64(13708), got[0]["total_tokens"], "the transcript's")
}
