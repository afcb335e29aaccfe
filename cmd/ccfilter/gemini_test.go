package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccfilter/ccfilter/pkg/redact"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Gemini CLI 0.61.0 captures (../shared/agents/gemini, copied to
// testdata/agents/gemini: each stream's .jsonl and .rc; the chat files of
// 03, 08, 10 and 16 under NAME.chats/, from NAME.home/.gemini/tmp/project/chats).
const geminiData = "../../testdata/agents/gemini/"

// geminiInputs are the Gemini inputs the sweeps over every input read
// (the account's agreement, every preset in every format, how the bytes
// arrive): every stream and main chat file, or with -short a few that
// cover a failure, an interrupted run, a subagent and the chat files.
func geminiInputs(t *testing.T) []string {
	t.Helper()
	streams, err := filepath.Glob(geminiData + "*.jsonl")
	require.NoError(t, err)
	chats, err := filepath.Glob(geminiData + "*.chats/session-*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, streams)
	require.NotEmpty(t, chats)
	all := append(streams, chats...)
	if !testing.Short() {
		return all
	}
	var some []string
	for _, f := range all {
		for _, k := range []string{"05-auth-401.jsonl", "09-sigint-tool.jsonl", "14-stream-cut.jsonl", "16-subagent.jsonl", "16-subagent.chats/"} {
			if strings.HasSuffix(f, k) || strings.Contains(f, k) && strings.Contains(k, "/") {
				some = append(some, f)
			}
		}
	}
	return some
}

func geminiChat(t *testing.T, capture string) string {
	t.Helper()
	m, err := filepath.Glob(geminiData + capture + ".chats/session-*.jsonl")
	require.NoError(t, err)
	require.Len(t, m, 1)
	return m[0]
}

// TestGeminiFinalAnswerAndExitCode proves final on each Gemini stream: the
// answer is the text after the last tool result (14's retried pieces not
// doubled), and the exit code is docs/exit-codes.md's, from the result's
// status, whatever the CLI's own (.rc: 145 for 05, 53 for 11; 0 for 09,
// which has no result line: interrupted); a failure is said by its
// reasons.
func TestGeminiFinalAnswerAndExitCode(t *testing.T) {
	for _, tc := range []struct {
		capture, answer string
		rc, code        int
		stderr          string
	}{
		{"01-plain-text", "Hello! I am a scripted fake model. 2 + 2 = 4.\n", 0, 0, ""},
		{"03-shell-fail", "The directory `/nonexistent-dir-for-probe` does not exist (ls exited with status 2).\n", 0, 0, ""},
		// Said by its reasons, as Claude Code's 401 is (README), not
		// "error_during_execution": the HTTP status is the API's own.
		{"05-auth-401", "", 145, 1, "the run failed (api_error, authentication_failed, HTTP 401)\n  [API Error: {\"error\":{\"code\":401"},
		{"09-sigint-tool", "", 0, 4, "no result"},
		{"11-max-turns", "", 53, 1, "error_max_turns"},
		{"14-stream-cut", "Answer after one stream that was cut short.\n", 0, 0, ""},
		{"16-subagent", "The subagent counted 3 files.\n", 0, 0, ""},
	} {
		t.Run(tc.capture, func(t *testing.T) {
			rc, err := os.ReadFile(geminiData + tc.capture + ".rc")
			require.NoError(t, err)
			assert.Equal(t, tc.rc, atoiT(t, strings.TrimSpace(string(rc))), "the CLI's own exit code")
			got := runIn(t, []string{"final", geminiData + tc.capture + ".jsonl"}, "")
			assert.Equal(t, tc.answer, got.Stdout)
			assert.Equal(t, tc.code, got.Code)
			assert.Contains(t, got.Stderr, tc.stderr)
		})
	}
}

func atoiT(t *testing.T, s string) int {
	var n int
	require.NoError(t, json.Unmarshal([]byte(s), &n))
	return n
}

// TestGeminiStreamRetryTextNotDoubled proves capture 14's restart (the
// pieces "Answer a","fter one" sent again after the stream retry) is told:
// text prints what the user saw with the broken attempt marked abandoned,
// the answer once.
func TestGeminiStreamRetryTextNotDoubled(t *testing.T) {
	got := runIn(t, []string{"text", geminiData + "14-stream-cut.jsonl"}, "")
	assert.Equal(t, "Answer after one\n[the stream above broke off and was abandoned; the call is retried]\nAnswer after one stream that was cut short.\n", got.Stdout)
}

// TestGeminiTextEachTurnOnItsLine proves text prints each turn's answer on
// a line of its own, as it does for Claude Code's partial messages (capture
// 08: three turns of text before its tools, then the summary). Before, the
// reader sent a turn's pieces with no end, so the turns ran together.
func TestGeminiTextEachTurnOnItsLine(t *testing.T) {
	got := runIn(t, []string{"text", geminiData + "08-long-session.jsonl"}, "")
	require.Equal(t, 0, got.Code, got.Stderr)
	assert.True(t, strings.HasPrefix(got.Stdout, "Let me look around the project first.\n"+
		"The divide test fails because `divide` uses `//`. Fixing it.\n"+
		"That file doesn't exist; creating the directory.\n"+
		"Done. Summary:\n"), got.Stdout)
}

// TestGeminiUsageIsTheRunsTotals proves usage on a stream shows the
// result's stats as the run's totals by model (no per-call rows):
// capture 10's gemini-3.8-flash: input 23334 of which 11520 cached, so
// 11814 uncached; output 27 plus the 64 thought tokens only total_tokens
// holds (23425 - 23334 = 91); the run's total_tokens 24185 is the
// account's, and its cost is estimated at list prices.
func TestGeminiUsageIsTheRunsTotals(t *testing.T) {
	rows := geminiRows(t, "usage", geminiData+"10-thinking.jsonl")
	byKey := map[string]map[string]any{}
	for _, r := range rows {
		byKey[r["model"].(string)+"/"+r["side"].(string)] = r
	}
	flash := byKey["gemini-3.8-flash/main"]
	require.NotNil(t, flash, rows)
	assert.EqualValues(t, 11814, flash["input_tokens"])
	assert.EqualValues(t, 11520, flash["cache_read_input_tokens"])
	assert.EqualValues(t, 91, flash["output_tokens"])
	total := byKey["/total"]
	assert.EqualValues(t, 12553, total["input_tokens"])
	assert.EqualValues(t, 112, total["output_tokens"], "48 candidates + 64 thoughts")
	assert.Nil(t, byKey["gemini-3.8-flash/result"]["cost_usd"], "no cost in the stream: unknown, not $0")
	acct := runIn(t, []string{"account", "-F", "json", geminiData + "10-thinking.jsonl"}, "")
	var a []struct {
		CLI    struct{ Name string }
		Tokens struct {
			TotalTokens int64 `json:"total_tokens"`
		}
		Cost *struct {
			USD    float64
			Source string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(acct.Stdout), &a), acct.Stdout)
	require.Len(t, a, 1)
	assert.Equal(t, "Gemini CLI", a[0].CLI.Name)
	assert.EqualValues(t, 24185, a[0].Tokens.TotalTokens, "stats.total_tokens")
	// The stream gives no cost: the run is priced at the shipped list
	// prices (pkg/spend/prices.json), marked estimated: gemini-3.8-flash
	// $0.75/$3.75/$0.075 a million input/output/cached, 11814 + 91 +
	// 11520; gemini-3.5-flash-lite $0.30/$2.50, 739 + 21.
	require.NotNil(t, a[0].Cost)
	assert.Equal(t, "estimated", a[0].Cost.Source)
	assert.InDelta(t, (11814*0.75+91*3.75+11520*0.075+739*0.3+21*2.5)/1e6, a[0].Cost.USD, 1e-12)
}

func geminiRows(t *testing.T, args ...string) []map[string]any {
	t.Helper()
	got := runIn(t, append([]string{"-F", "json"}, args...), "")
	var rows []map[string]any
	require.NoError(t, json.Unmarshal([]byte(got.Stdout), &rows), got.Stdout+got.Stderr)
	return rows
}

// TestGeminiToolsFailedAndInterrupted proves tools on Gemini: 08's
// status "error" result failed with its error type; 09's open shell call
// listed as interrupted; 03's failing command, whose stream output holds
// no exit code, is failed from its chat file, whose output says
// "Exit Code: 2".
func TestGeminiToolsFailedAndInterrupted(t *testing.T) {
	got := runIn(t, []string{"errors", geminiData + "08-long-session.jsonl"}, "")
	assert.Contains(t, got.Stdout, "file_not_found: File not found: /home/user/project/missing-dir/config.yaml")
	got = runIn(t, []string{"tools", geminiData + "09-sigint-tool.jsonl"}, "")
	assert.Contains(t, got.Stdout, "run_shell_command")
	assert.Contains(t, got.Stdout, "(no result)", "the open call, as for Claude Code")
	rows := geminiRows(t, "tools", geminiChat(t, "03-shell-fail"))
	require.Len(t, rows, 1)
	assert.Equal(t, "run_shell_command", rows[0]["tool"])
	assert.Equal(t, true, rows[0]["is_error"], rows[0])
}

// TestGeminiSubagentFromTheChatFiles proves 16's invoke_agent is a
// subagent in both inputs, and that its chat file, read with no flag,
// joins the subagent's own file: its two calls (run_shell_command,
// complete_task) and its tokens as a row of their own.
func TestGeminiSubagentFromTheChatFiles(t *testing.T) {
	sub := geminiRows(t, "subagents", geminiData+"16-subagent.jsonl")
	require.Len(t, sub, 1)
	assert.Equal(t, "generalist", sub[0]["type"])
	chat := geminiChat(t, "16-subagent")
	tools := geminiRows(t, "tools", chat)
	var names []string
	for _, r := range tools {
		names = append(names, r["tool"].(string))
	}
	assert.ElementsMatch(t, []string{"invoke_agent", "run_shell_command", "complete_task"}, names)
	var subIn int64
	for _, r := range geminiRows(t, "usage", chat) {
		if r["side"] == "subagent" {
			subIn += int64(r["input_tokens"].(float64))
		}
	}
	// the subagent file's two calls: (11914-0) + (12039-11776) uncached
	assert.EqualValues(t, 11914+12039-11776, subIn)
}

// TestGeminiNDJSONPassesTheLinesThrough proves -F ndjson with no filter
// writes a Gemini stream's and chat file's own lines, byte for byte.
func TestGeminiNDJSONPassesTheLinesThrough(t *testing.T) {
	for _, f := range []string{geminiData + "14-stream-cut.jsonl", geminiData + "08-long-session.jsonl", geminiChat(t, "03-shell-fail")} {
		want, err := os.ReadFile(f)
		require.NoError(t, err)
		got := runIn(t, []string{"-F", "ndjson", f}, "")
		assert.Equal(t, string(want), got.Stdout, f)
	}
}

// TestGeminiUnknownTypePassedThrough proves an event type the reader has
// never seen (a fixture: capture 01 with one line added) is passed
// through and counted by types, never fatal, and the run reads as before.
func TestGeminiUnknownTypePassedThrough(t *testing.T) {
	b, err := os.ReadFile(geminiData + "01-plain-text.jsonl")
	require.NoError(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	odd := `{"type":"thought","timestamp":"2026-12-06T02:13:00.000Z","subject":"new in a later release"}` + "\n"
	f := filepath.Join(t.TempDir(), "g.jsonl")
	require.NoError(t, os.WriteFile(f, []byte(lines[0]+lines[1]+odd+strings.Join(lines[2:], "")), 0o644))
	got := runIn(t, []string{"types", f}, "")
	assert.Contains(t, got.Stdout, "thought")
	assert.Equal(t, 0, got.Code, got.Stderr)
	got = runIn(t, []string{"final", f}, "")
	assert.Equal(t, "Hello! I am a scripted fake model. 2 + 2 = 4.\n", got.Stdout)
}

// TestGeminiReportsNameTheCLI proves a wrong guess is impossible to
// miss: the account's first row and the markdown title name Gemini CLI,
// with no --input flag; and --input forces each kind.
func TestGeminiReportsNameTheCLI(t *testing.T) {
	got := runIn(t, []string{"account", geminiData + "02-write-read.jsonl"}, "")
	assert.Contains(t, got.Stdout, "Gemini CLI")
	got = runIn(t, []string{"-F", "markdown", "all", geminiData + "02-write-read.jsonl"}, "")
	assert.Contains(t, got.Stdout, "Gemini CLI run")
	got = runIn(t, []string{"--input", "gemini-session", "final", geminiChat(t, "10-thinking")}, "")
	assert.Equal(t, "There are 3 files here.\n", got.Stdout)
}

// TestGeminiChatTypesAreKnown proves types on a chat file marks none of
// the file's own lines unknown: its "$set" lines and a record written
// again are bookkeeping the reader knows (before, "no" for both).
func TestGeminiChatTypesAreKnown(t *testing.T) {
	got := runIn(t, []string{"types", "-F", "csv", geminiChat(t, "08-long-session")}, "")
	require.Equal(t, 0, got.Code, got.Stderr)
	assert.Contains(t, got.Stdout, ",53,true")
	assert.NotContains(t, got.Stdout, ",false")
}

// TestGeminiSessionsListsChatFolders proves sessions reads a folder of
// Gemini chat files given as PATH (16's chats/): its session id, prompt,
// tool calls (the subagent's two joined: 3) and tokens (the chat file's
// per-call totals: 11644+11772 main, 11936+12063 subagent = 47415) and
// its project.
func TestGeminiSessionsListsChatFolders(t *testing.T) {
	rows := geminiRows(t, "sessions", geminiData+"16-subagent.chats")
	require.Len(t, rows, 1, rows)
	assert.Equal(t, "73f8cf0f-df5b-4625-bbbc-bc47cbed7a04", rows[0]["session_id"])
	// The project: the first workspace directory of the session context
	// (the chat file says it nowhere else). Before, blank.
	assert.Equal(t, "/home/user/project", rows[0]["cwd"], rows[0])
	assert.EqualValues(t, 3, rows[0]["tool_calls"], rows[0])
	assert.EqualValues(t, 47415, rows[0]["total_tokens"], rows[0])
}

// TestGeminiFollowShowsEachEventAsWritten proves -f on a Gemini stream
// being written (captures 02 and 14 appended line by line, some lines in
// two pieces): the prompt shows before the rest is written, and the run
// ends on its own after the result line, printing what the whole file
// gives, with its exit code.
func TestGeminiFollowShowsEachEventAsWritten(t *testing.T) {
	for _, name := range []string{"02-write-read", "14-stream-cut", "11-max-turns"} {
		for _, args := range [][]string{{}, {"final"}} {
			t.Run(name+" "+strings.Join(args, " "), func(t *testing.T) {
				whole, err := os.ReadFile(geminiData + name + ".jsonl")
				require.NoError(t, err)
				want := runIn(t, append(append([]string{}, args...), geminiData+name+".jsonl"), "")
				path := filepath.Join(t.TempDir(), "run.jsonl")
				parts := writes(string(whole))
				appendFile(t, path, parts[0]+parts[1])
				run := startFollow(t, append(append([]string{"-f", "--follow-grace", "200ms"}, args...), path)...)
				if len(args) == 0 {
					run.stdout.waitUntil(t, run.code, "the prompt", func(s string) bool { return strings.Contains(s, "» ") })
				}
				for _, w := range parts[2:] {
					appendFile(t, path, w)
				}
				code := run.end(t)
				assert.Equal(t, want.Code, code)
				assert.Equal(t, want.Stdout, run.stdout.String())
			})
		}
	}
}

// TestGeminiUsageByReadsChatFolders proves usage --by reads a folder of
// Gemini chat files given as PATH: 16's four calls (two of the main
// agent, two of the subagent's own file), their tokens as the chat files
// give them (uncached input 24025, cache reads 23296, output 94: the
// stream's stats for gemini-3.8-flash, the model that answered).
func TestGeminiUsageByReadsChatFolders(t *testing.T) {
	rows := geminiRows(t, "usage", "--by", "day", geminiData+"16-subagent.chats")
	require.NotEmpty(t, rows)
	var day map[string]any
	for _, r := range rows {
		if r["day"] == "2026-12-06" || r["date"] == "2026-12-06" {
			day = r
		}
	}
	require.NotNil(t, day, rows)
	assert.EqualValues(t, 4, day["calls"], day)
	assert.EqualValues(t, 24025, day["input_tokens"], day)
	assert.EqualValues(t, 23296, day["cache_read_input_tokens"], day)
	assert.EqualValues(t, 94, day["output_tokens"], day)
}

// TestGeminiTraceNamesTheProvider proves the trace of a Gemini run (02)
// says whose models ran, per the GenAI conventions: gen_ai.provider.name
// "gcp.gemini" on every span that names one, the root's agent "gemini";
// a Claude Code run's stay "anthropic".
func TestGeminiTraceNamesTheProvider(t *testing.T) {
	for in, want := range map[string]string{geminiData + "02-write-read.jsonl": "gcp.gemini", "../../testdata/events/04-parallel-tools.jsonl": "anthropic"} {
		got := runIn(t, []string{"all", "-F", "otlp", in}, "")
		require.Equal(t, 0, got.Code, got.Stderr)
		assert.Contains(t, got.Stdout, `"gen_ai.provider.name","value":{"stringValue":"`+want+`"`, in)
		assert.Equal(t, strings.Count(got.Stdout, `"gen_ai.provider.name"`), strings.Count(got.Stdout, `"gen_ai.provider.name","value":{"stringValue":"`+want+`"`), in)
	}
}

// TestGeminiJSONOutputIsRefusedWithWhatToDo proves Gemini CLI's
// --output-format json (capture 15: one pretty-printed document, no
// stream) is refused with a line saying what it is and what leads
// somewhere, the stream-json output, exit 5, not read as a run: every
// preset and format sweep leaves it out for that reason. Before, it said
// to try jq -c . first, which gave "not a Claude Code event stream". A
// stream written pretty (capture 04's first two lines through jq .) keeps
// the jq advice, which reads it.
func TestGeminiJSONOutputIsRefusedWithWhatToDo(t *testing.T) {
	got := runIn(t, []string{"final", "../../../shared/agents/gemini/15-json-output.jsonl"}, "")
	assert.Equal(t, exitInput, got.Code)
	assert.Empty(t, got.Stdout)
	assert.Contains(t, got.Stderr, "15-json-output.jsonl: this is Gemini CLI's --output-format json (one document, no events): run gemini with --output-format stream-json\n")
	assert.NotContains(t, got.Stderr, "jq -c")

	// The same document made one line, as the jq advice makes it (it said
	// "no line has a known type"): from a file and from a pipe.
	doc, err := os.ReadFile("../../../shared/agents/gemini/15-json-output.jsonl")
	require.NoError(t, err)
	var line bytes.Buffer
	require.NoError(t, json.Compact(&line, doc))
	line.WriteByte('\n')
	compact := filepath.Join(t.TempDir(), "compact.jsonl")
	require.NoError(t, os.WriteFile(compact, line.Bytes(), 0o644))
	for _, r := range []runResult{runIn(t, []string{"final", compact}, ""), runWithStdin(t, nil, []string{"final"}, strings.NewReader(line.String()))} {
		assert.Equal(t, exitInput, r.Code)
		assert.Empty(t, r.Stdout)
		assert.Contains(t, r.Stderr, ": this is Gemini CLI's --output-format json (one document, no events): run gemini with --output-format stream-json\n")
	}
	other := runWithStdin(t, nil, []string{"final"}, strings.NewReader(`{"response":"a key of its own"}`+"\n"))
	assert.Contains(t, other.Stderr, "no line has a known type", "other JSON with a response key is no Gemini document")

	b, err := os.ReadFile("../../testdata/events/04-parallel-tools.jsonl")
	require.NoError(t, err)
	var pretty bytes.Buffer
	for _, l := range strings.SplitN(string(b), "\n", 3)[:2] {
		require.NoError(t, json.Indent(&pretty, []byte(l), "", "  "))
		pretty.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "pretty.json")
	require.NoError(t, os.WriteFile(path, pretty.Bytes(), 0o644))
	got = runIn(t, []string{"final", path}, "")
	assert.Equal(t, exitInput, got.Code)
	assert.Contains(t, got.Stderr, "this looks like pretty-printed JSON, not one event per line (try jq -c . first)")
	assert.NotContains(t, got.Stderr, "--output-format")
}

// TestRunCostIsTheAccountsEstimateInEveryView proves a run whose result
// reports no cost (Gemini CLI's 10-thinking) shows the account's
// estimate at list prices, marked "~", where a view gives the run's cost:
// the markdown glance and summary and the HTML facts (they said "$?"
// while the account said $0.0103 estimated), and that a reported cost
// (01-plain-text's $0.0219) is shown as it was.
func TestRunCostIsTheAccountsEstimateInEveryView(t *testing.T) {
	for run, want := range map[string]string{
		geminiData + "10-thinking.jsonl":            "~$0.0103",
		"../../testdata/events/01-plain-text.jsonl": "$0.0219",
	} {
		md := runIn(t, []string{"-F", "markdown", run}, "")
		require.Equal(t, exitOK, md.Code, md.Stderr)
		esc := strings.NewReplacer("~", `\~`, "$", `\$`).Replace(want)
		assert.Contains(t, md.Stdout, " · "+esc+" · ", "glance of %s", run)
		assert.Contains(t, md.Stdout, "| Cost | "+esc+" |", "summary of %s", run)
		page := runIn(t, []string{"-F", "html", run}, "")
		assert.Contains(t, page.Stdout, "<dt>Cost</dt><dd>"+want+"</dd><dt>Tokens</dt>", "html facts of %s", run)
	}
}

// assistantLines are the lines of a Gemini stream that carry the
// assistant's text: its "message" lines of role assistant, in order.
func assistantLines(t *testing.T, stream string) string {
	t.Helper()
	var out strings.Builder
	for _, l := range strings.SplitAfter(stream, "\n") {
		var m struct{ Type, Role string }
		if json.Unmarshal([]byte(l), &m) == nil && m.Type == "message" && m.Role == "assistant" {
			out.WriteString(l)
		}
	}
	return out.String()
}

// TestGeminiTextNDJSONPrintsTheLinesOfTheText proves text -F ndjson on
// every Gemini CLI stream (testdata/agents/gemini, copies of
// ../shared/agents/gemini) prints the lines that carry the text text
// shows, the assistant "message" pieces, each once, in order, byte for
// byte (14-stream-cut's retried pieces too, as text shows the abandoned
// attempt and the retry); before, nothing: the joined text event text
// picks echoed no line. A pass-through (-F ndjson) still prints every line
// once.
func TestGeminiTextNDJSONPrintsTheLinesOfTheText(t *testing.T) {
	streams, err := filepath.Glob(geminiData + "*.jsonl")
	require.NoError(t, err)
	printed := 0
	for _, f := range streams {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		got := runIn(t, []string{"text", "-F", "ndjson", f}, "")
		want := assistantLines(t, string(b))
		assert.Equal(t, want, got.Stdout, f)
		printed += strings.Count(want, "\n")
		all := runIn(t, []string{"-F", "ndjson", f}, "")
		assert.Equal(t, string(b), all.Stdout, f)
	}
	assert.Greater(t, printed, 30, "the captures' answers are many lines")
}

// TestGeminiTextNDJSONRedactsASecretCutAcrossPieces proves text -F ndjson
// --redact prints the pieces with a secret they cut in two taken out (the
// real 01-plain-text capture with a GitHub token planted across its two
// pieces, as TestRedactSecretSplitAcrossGeminiPieces does): the lines
// join into the redacted answer, and no half of the secret is printed.
func TestGeminiTextNDJSONRedactsASecretCutAcrossPieces(t *testing.T) {
	secret := redact.Rules[6].Example // a GitHub token
	require.Equal(t, "github-token", redact.Rules[6].ID)
	b, err := os.ReadFile(geminiData + "01-plain-text.jsonl")
	require.NoError(t, err)
	half := len(secret) / 2
	planted := strings.Replace(string(b), `"content":"Hello! I am a scripted fake model. 2 + 2"`, `"content":"Hello! token `+secret[:half]+`"`, 1)
	planted = strings.Replace(planted, `"content":" = 4."`, `"content":"`+secret[half:]+` <&> 4."`, 1)
	require.NotEqual(t, string(b), planted)
	path := filepath.Join(t.TempDir(), "gemini-split.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(planted), 0o644))

	got := runIn(t, []string{"text", "-F", "ndjson", "--redact", path}, "")
	require.Equal(t, 0, got.Code, got.Stderr)
	lines := strings.SplitAfter(strings.TrimSuffix(got.Stdout, "\n"), "\n")
	require.Len(t, lines, 2, got.Stdout)
	var joined string
	for _, l := range lines {
		var m struct{ Content string }
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		joined += m.Content
	}
	assert.Equal(t, "Hello! token [REDACTED:github-token#1] <&> 4.", joined)
	assert.Contains(t, got.Stdout, `<&>`, "the piece written as the line wrote it")
	for _, p := range []string{secret[:half], secret[half:]} {
		assert.NotContains(t, got.Stdout, p)
	}
}

// TestGeminiTextNDJSONFollowedIsTheFinishedFiles proves text -F ndjson -f
// on a Gemini stream being written (captures 08-long-session and
// 14-stream-cut appended line by line, some lines in two pieces) prints
// what the finished file gives, byte for byte: a turn's lines at its end,
// when the line after its pieces is written (docs/agents.md).
func TestGeminiTextNDJSONFollowedIsTheFinishedFiles(t *testing.T) {
	for _, name := range []string{"08-long-session", "14-stream-cut"} {
		t.Run(name, func(t *testing.T) {
			whole, err := os.ReadFile(geminiData + name + ".jsonl")
			require.NoError(t, err)
			want := runIn(t, []string{"text", "-F", "ndjson", geminiData + name + ".jsonl"}, "")
			require.NotEmpty(t, want.Stdout)
			path := filepath.Join(t.TempDir(), "run.jsonl")
			parts := writes(string(whole))
			appendFile(t, path, parts[0])
			run := startFollow(t, "-f", "--follow-grace", "200ms", "text", "-F", "ndjson", path)
			for _, w := range parts[1:] {
				appendFile(t, path, w)
			}
			code := run.end(t)
			assert.Equal(t, want.Code, code)
			assert.Equal(t, want.Stdout, run.stdout.String())
		})
	}
}
