package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// The Codex CLI 0.171.0 captures (`codex exec --json`, copied from
// ../shared/agents/codex into testdata/agents/codex with their .rc).
const codexDir = "../../testdata/agents/codex/"

// codexFacts are a Codex capture's own numbers, read from its lines with
// encoding/json (not through ccfilter): the turn.completed usage, the
// last agent_message, the failed command executions' exit codes, the
// terminal line.
type codexFacts struct {
	usage         map[string]int64
	last          string
	failedCodes   []int64
	commands      int
	terminal      string // "turn.completed", "turn.failed" or "" (none)
	failedMessage string
}

func readCodexFacts(t *testing.T, path string) codexFacts {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var c codexFacts
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev struct {
			Type  string           `json:"type"`
			Usage map[string]int64 `json:"usage"`
			Error struct{ Message string }
			Item  struct {
				Type     string `json:"type"`
				Text     string `json:"text"`
				ExitCode *int64 `json:"exit_code"`
				Status   string `json:"status"`
			} `json:"item"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev))
		switch ev.Type {
		case "turn.completed":
			c.usage, c.terminal = ev.Usage, ev.Type
		case "turn.failed":
			c.terminal, c.failedMessage = ev.Type, ev.Error.Message
		case "item.completed":
			switch ev.Item.Type {
			case "agent_message":
				c.last = ev.Item.Text
			case "command_execution":
				c.commands++
				if ev.Item.Status == "failed" {
					c.failedCodes = append(c.failedCodes, *ev.Item.ExitCode)
				}
			}
		}
	}
	require.NoError(t, sc.Err())
	return c
}

func codexCaptures(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(codexDir + "*.jsonl")
	require.NoError(t, err)
	require.Len(t, files, 18)
	return files
}

// TestCodexFinalIsTheLastAgentMessageAndExitCodeFollowsTheOutcome: on
// every Codex capture, final prints the last agent_message and exits 0
// after turn.completed, 1 after turn.failed (the Codex CLI's own rc is 1
// there too), 4 when the stream just stops (09-sigint-tool: the CLI
// exited 1 after SIGINT, but there is no terminal line: no result).
func TestCodexFinalIsTheLastAgentMessageAndExitCodeFollowsTheOutcome(t *testing.T) {
	for _, path := range codexCaptures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want := readCodexFacts(t, path)
			got := runIn(t, []string{"final", path}, "")
			switch want.terminal {
			case "turn.completed":
				assert.Equal(t, exitOK, got.Code, got.Stderr)
				assert.Equal(t, want.last+"\n", got.Stdout)
			case "turn.failed":
				assert.Equal(t, exitFailed, got.Code, got.Stderr)
				assert.Contains(t, got.Stderr, want.failedMessage)
			default:
				assert.Equal(t, exitNoResult, got.Code, got.Stderr)
				assert.Contains(t, got.Stderr, "no result")
			}
			if rc, err := os.ReadFile(strings.TrimSuffix(path, ".jsonl") + ".rc"); err == nil && want.terminal != "" {
				// Where the run ended with a terminal line, the CLI's own
				// exit code agrees with ours.
				n, _ := strconv.Atoi(strings.TrimSpace(string(rc)))
				assert.Equal(t, n, got.Code)
			}
		})
	}
}

// TestCodexUsageIsTheTurnCompletedUsageInTheStreamsColumns: the usage
// preset shows turn.completed's usage as the run's totals (no per-call
// rows: the stream has none) in Claude Code's meanings: input_tokens
// uncached (Codex's input_tokens minus cached_input_tokens),
// cache_read_input_tokens the cached ones, output_tokens Codex's (which
// include reasoning). The cost is said to be unknown, not $0: the
// stream names no model.
func TestCodexUsageIsTheTurnCompletedUsageInTheStreamsColumns(t *testing.T) {
	for _, path := range codexCaptures(t) {
		want := readCodexFacts(t, path)
		if want.usage == nil {
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			got := runIn(t, []string{"account", "-F", "json", path}, "")
			require.Equal(t, exitOK, got.Code, got.Stderr)
			var accs []stream.Account
			require.NoError(t, json.Unmarshal([]byte(got.Stdout), &accs))
			require.Len(t, accs, 1)
			a := accs[0]
			assert.Equal(t, "codex", a.CLI.ID)
			assert.Equal(t, want.usage["input_tokens"]-want.usage["cached_input_tokens"], a.Tokens.InputTokens)
			assert.Equal(t, want.usage["cached_input_tokens"], a.Tokens.CacheReadInputTokens)
			assert.Equal(t, want.usage["output_tokens"], a.Tokens.OutputTokens)
			assert.Equal(t, want.usage["input_tokens"]+want.usage["output_tokens"], a.Tokens.TotalTokens)
			assert.Nil(t, a.Cost)
			assert.Contains(t, a.CostNote, "the stream names no model")
		})
	}
}

// TestCodexToolsListEveryCommandWithItsFailures: tools lists every
// command_execution; the failed ones (status "failed") failed, their
// result saying the exit code (03-shell-fail: 2; 08-long-session: two).
func TestCodexToolsListEveryCommandWithItsFailures(t *testing.T) {
	for _, name := range []string{"03-shell-fail", "08-long-session", "02-write-read"} {
		t.Run(name, func(t *testing.T) {
			path := codexDir + name + ".jsonl"
			want := readCodexFacts(t, path)
			got := runIn(t, []string{"tools", "-F", "json", path}, "")
			require.Equal(t, exitOK, got.Code, got.Stderr)
			var rows []map[string]any
			require.NoError(t, json.Unmarshal([]byte(got.Stdout), &rows))
			var bash, failed int
			for _, r := range rows {
				if r["tool"] == "Bash" {
					bash++
					if r["is_error"] == true {
						failed++
					}
				}
			}
			assert.Equal(t, want.commands, bash)
			assert.Equal(t, len(want.failedCodes), failed)
			full := runIn(t, []string{"errors", path}, "").Stdout
			for _, code := range want.failedCodes {
				assert.Contains(t, full, "Exit code "+strconv.FormatInt(code, 10))
			}
		})
	}
}

// TestCodexInterruptedCommandIsListedAsInterrupted: 09-sigint-tool stops
// after a command's item.started: the command is a call without a
// result, as a killed Claude Code run's.
func TestCodexInterruptedCommandIsListedAsInterrupted(t *testing.T) {
	got := runIn(t, []string{"tools", codexDir + "09-sigint-tool.jsonl"}, "")
	assert.Equal(t, exitOK, got.Code, got.Stderr) // (as on a killed Claude Code run: tools lists)
	assert.Contains(t, got.Stdout, "(no result)")
	assert.Contains(t, got.Stdout, "for i in $(seq 1 30)")
}

// TestCodexRetriesAndFailureAreTroubles: 05-auth-401's five
// "Reconnecting... n/5" errors are retries n of 5 with their HTTP status,
// and the turn.failed is the failed result, said by its reasons (before:
// "error_during_execution").
func TestCodexRetriesAndFailureAreTroubles(t *testing.T) {
	got := runIn(t, []string{"errors", "-F", "json", codexDir + "05-auth-401.jsonl"}, "")
	assert.Equal(t, exitOK, got.Code, got.Stderr) // (errors lists; final says the run failed)
	var rows []map[string]any
	require.NoError(t, json.Unmarshal([]byte(got.Stdout), &rows))
	retries := 0
	for _, r := range rows {
		if r["kind"] == "retry" {
			retries++
			assert.Contains(t, r["message"], "401")
			assert.Contains(t, r["message"], strconv.Itoa(retries)+"/5")
		}
	}
	assert.Equal(t, 5, retries, got.Stdout)
	// The turn.failed, the API's 401: an API error of its category and
	// a failed result with the HTTP status, as Claude Code's 401 is.
	kinds := map[string]map[string]any{}
	for _, r := range rows {
		kinds[r["kind"].(string)] = r
	}
	require.Contains(t, kinds, "api_error", got.Stdout)
	assert.True(t, strings.HasPrefix(kinds["api_error"]["message"].(string), "authentication_failed: unexpected status 401"), kinds["api_error"])
	require.Contains(t, kinds, "result_failed", got.Stdout)
	assert.EqualValues(t, 401, kinds["result_failed"]["status"])
	final := runIn(t, []string{"final", codexDir + "05-auth-401.jsonl"}, "")
	assert.Equal(t, 1, final.Code)
	assert.Contains(t, final.Stderr, "the run failed (api_error, authentication_failed, HTTP 401)")
}

// TestCodexSubagentIsAThreadRow: 19-subagent's spawn_agent makes a
// subagent row, completed when a later wait says so, with its report;
// its tokens are not in the input (Codex leaves the child's usage out of
// the parent's).
func TestCodexSubagentIsAThreadRow(t *testing.T) {
	got := runIn(t, []string{"subagents", "-F", "json", codexDir + "19-subagent.jsonl"}, "")
	require.Equal(t, exitOK, got.Code, got.Stderr)
	var rows []map[string]any
	require.NoError(t, json.Unmarshal([]byte(got.Stdout), &rows))
	require.Len(t, rows, 1)
	assert.Equal(t, "completed", rows[0]["status"])
	assert.Equal(t, "item_1", rows[0]["tool_use_id"])
	assert.Contains(t, got.Stdout, "There are 3 files.")
}

// TestCodexUnknownEventsPassThroughAndAreCounted: an event type and an
// item type Codex's stream has never had (derived from 01-plain-text
// with two lines added) are passed through and counted by types, and the
// run reads as before.
func TestCodexUnknownEventsPassThroughAndAreCounted(t *testing.T) {
	b, err := os.ReadFile(codexDir + "01-plain-text.jsonl")
	require.NoError(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	extra := `{"type":"turn.progress","percent":50}` + "\n" + `{"type":"item.completed","item":{"id":"item_9","type":"hologram","text":"?"}}` + "\n"
	path := filepath.Join(t.TempDir(), "unknown.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(lines[0]+lines[1]+extra+strings.Join(lines[2:], "")), 0o600))
	got := runIn(t, []string{"types", "-F", "json", path}, "")
	require.Equal(t, exitOK, got.Code, got.Stderr)
	var rows []map[string]any
	require.NoError(t, json.Unmarshal([]byte(got.Stdout), &rows))
	counts := map[string]float64{}
	for _, r := range rows {
		counts[r["type"].(string)] += r["count"].(float64)
	}
	assert.Equal(t, 1.0, counts["turn.progress"])
	assert.Equal(t, 1.0, counts["item.completed"])
	final := runIn(t, []string{"final", path}, "")
	assert.Equal(t, exitOK, final.Code)
	assert.Equal(t, "Hello! I am a scripted fake model. 2 + 2 = 4.\n", final.Stdout)
}

// TestCodexReportsNameTheCLI: a Codex run's report says so in its first
// line, and the input is detected without --input.
func TestCodexReportsNameTheCLI(t *testing.T) {
	got := runIn(t, []string{"all", "-F", "markdown", codexDir + "02-write-read.jsonl"}, "")
	require.Equal(t, exitOK, got.Code, got.Stderr)
	assert.True(t, strings.HasPrefix(got.Stdout, "# Codex CLI run"), got.Stdout[:min(80, len(got.Stdout))])
	forced := runIn(t, []string{"final", "--input", "codex", codexDir + "02-write-read.jsonl"}, "")
	assert.Equal(t, exitOK, forced.Code, forced.Stderr)
}

// TestCodexResumedThreadIsNotCountedTwice: after `codex exec resume`
// (12b-resume) turn.completed's usage is the thread's running total
// (37618 input = 18575 of 12-resume + the resumed run's). Read together
// with 12-resume (one input, the two captures concatenated), the later
// total replaces the earlier; with a run of another thread
// (01-plain-text) the two threads' totals add up.
func TestCodexResumedThreadIsNotCountedTwice(t *testing.T) {
	first, resumed, other := readCodexFacts(t, codexDir+"12-resume.jsonl"), readCodexFacts(t, codexDir+"12b-resume.jsonl"), readCodexFacts(t, codexDir+"01-plain-text.jsonl")
	require.Greater(t, resumed.usage["input_tokens"], first.usage["input_tokens"], "12b's usage is the thread's running total")
	input := func(u map[string]int64) int64 { return u["input_tokens"] - u["cached_input_tokens"] }
	for _, c := range []struct {
		name  string
		files []string
		want  int64
	}{
		{"same thread: the later total", []string{"12-resume", "12b-resume"}, input(resumed.usage)},
		{"two threads: added", []string{"01-plain-text", "12b-resume"}, input(other.usage) + input(resumed.usage)},
	} {
		t.Run(c.name, func(t *testing.T) {
			var all []byte
			for _, f := range c.files {
				b, err := os.ReadFile(codexDir + f + ".jsonl")
				require.NoError(t, err)
				all = append(all, b...)
			}
			path := filepath.Join(t.TempDir(), "runs.jsonl")
			require.NoError(t, os.WriteFile(path, all, 0o600))
			got := runIn(t, []string{"account", "-F", "json", path}, "")
			require.Equal(t, exitOK, got.Code, got.Stderr)
			var accs []stream.Account
			require.NoError(t, json.Unmarshal([]byte(got.Stdout), &accs))
			assert.Equal(t, c.want, accs[0].Tokens.InputTokens)
		})
	}
}

// codexSessionOf is the session file (rollout) of a capture's thread, in
// the copy of the captures' session files under testdata/agents/codex/home.
func codexSessionOf(t *testing.T, capture string) string {
	t.Helper()
	b, err := os.ReadFile(codexDir + capture + ".jsonl")
	require.NoError(t, err)
	var first struct {
		ThreadID string `json:"thread_id"`
	}
	line, _, _ := strings.Cut(string(b), "\n")
	require.NoError(t, json.Unmarshal([]byte(line), &first))
	files, err := filepath.Glob(codexDir + "home/.codex/sessions/*/*/*/rollout-*-" + first.ThreadID + ".jsonl")
	require.NoError(t, err)
	require.Len(t, files, 1)
	return files[0]
}

// TestCodexSessionHasPerCallUsageThatAddsUpToTheStreams: a Codex session
// file (codex-session, detected without --input) gives each model call's
// usage (token_count's last_token_usage), of the model turn_context
// names; the calls add up to the stream's turn.completed usage of the
// same run (03-shell-fail, 08-long-session: 25 calls); the account names
// the CLI's version (session_meta's cli_version); final is the stream's
// last agent message; an interrupted run (09-sigint-tool: turn_aborted)
// and a failed one (05-auth-401) failed.
func TestCodexSessionHasPerCallUsageThatAddsUpToTheStreams(t *testing.T) {
	for _, c := range []struct {
		capture string
		calls   int
		code    int
	}{
		{"03-shell-fail", 2, exitOK},
		{"08-long-session", 25, exitOK},
		{"09-sigint-tool", 1, exitFailed},
		{"05-auth-401", 0, exitFailed},
	} {
		t.Run(c.capture, func(t *testing.T) {
			session := codexSessionOf(t, c.capture)
			want := readCodexFacts(t, codexDir+c.capture+".jsonl")
			got := runIn(t, []string{"account", "-F", "json", session}, "")
			require.Equal(t, exitOK, got.Code, got.Stderr)
			var accs []stream.Account
			require.NoError(t, json.Unmarshal([]byte(got.Stdout), &accs))
			a := accs[0]
			assert.Equal(t, stream.CLI{ID: "codex", Name: "Codex CLI", Version: "0.171.0"}, a.CLI) // (JSON: the provider is not in it)
			assert.Equal(t, c.calls, a.Tokens.Calls)
			if want.usage != nil {
				assert.Equal(t, want.usage["input_tokens"]-want.usage["cached_input_tokens"], a.Tokens.InputTokens)
				assert.Equal(t, want.usage["cached_input_tokens"], a.Tokens.CacheReadInputTokens)
				assert.Equal(t, want.usage["output_tokens"], a.Tokens.OutputTokens)
				require.Len(t, a.Models, 1)
				assert.Equal(t, "gpt-5.5", a.Models[0].Model)
			}
			final := runIn(t, []string{"final", session}, "")
			assert.Equal(t, c.code, final.Code, final.Stderr)
			if c.code == exitOK {
				assert.Equal(t, want.last+"\n", final.Stdout)
			}
			forced := runIn(t, []string{"final", "--input", "codex-session", session}, "")
			assert.Equal(t, final, forced)
		})
	}
}

// TestFollowCodexShowsEachItemAsWritten: a Codex stream followed (-f)
// as codex exec writes it (02-write-read appended line by line) shows its
// first agent message before the next line is written, ends on its own
// after turn.completed, and prints what the whole file prints, with its
// exit code; 03-shell-fail's final too.
func TestFollowCodexShowsEachItemAsWritten(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
	}{{"02-write-read", nil}, {"03-shell-fail", []string{"final"}}} {
		t.Run(c.name, func(t *testing.T) {
			full := codexDir + c.name + ".jsonl"
			b, err := os.ReadFile(full)
			require.NoError(t, err)
			want := runIn(t, append(append([]string{}, c.args...), full), "")
			path := filepath.Join(t.TempDir(), "run.jsonl")
			run := startFollow(t, append(append([]string{"-f", "--follow-grace", "200ms"}, c.args...), path)...)
			facts := readCodexFacts(t, full)
			for i, line := range strings.SplitAfter(string(b), "\n") {
				appendFile(t, path, line)
				if c.args == nil && i == 2 {
					// The first agent message, shown before the next line.
					run.stdout.waitUntil(t, run.code, "the first agent message", func(s string) bool {
						return strings.Contains(s, "I'll create the file first.")
					})
				}
			}
			assert.Equal(t, want.Code, run.end(t))
			assert.Equal(t, want.Stdout, run.stdout.String())
			if c.args != nil {
				assert.Equal(t, facts.last+"\n", run.stdout.String())
			}
		})
	}
}

// TestCodexTraceNamesOpenAIAsTheProvider: a Codex run's trace says
// gen_ai.provider.name "openai" (the GenAI conventions' name) on its
// spans, and its agent is codex; a Claude Code run's stays "anthropic".
func TestCodexTraceNamesOpenAIAsTheProvider(t *testing.T) {
	for _, c := range []struct{ in, provider, agent string }{
		{codexDir + "03-shell-fail.jsonl", "openai", "codex"},
		{"../../testdata/events/01-plain-text.jsonl", "anthropic", "claude-code"},
	} {
		got := runIn(t, []string{"all", "-F", "otlp", c.in}, "")
		require.Equal(t, exitOK, got.Code, got.Stderr)
		assert.Contains(t, got.Stdout, `"key":"gen_ai.provider.name","value":{"stringValue":"`+c.provider+`"}`)
		assert.NotContains(t, got.Stdout, `"gen_ai.provider.name","value":{"stringValue":"`+map[string]string{"openai": "anthropic", "anthropic": "openai"}[c.provider])
		assert.Contains(t, got.Stdout, `"key":"gen_ai.agent.name","value":{"stringValue":"`+c.agent+`"}`)
	}
}

// TestCodexNDJSONPassesTheCLIsLinesThrough: -F ndjson with no filter
// prints a Codex input's own lines, byte for byte, not their
// translation (every capture and session file here), as a stream's
// pass-through prints its lines; --redact redacts them (01-plain-text
// with an AWS key id put into its agent message, the rest unchanged).
func TestCodexNDJSONPassesTheCLIsLinesThrough(t *testing.T) {
	sessions, err := filepath.Glob(codexDir + "home/.codex/sessions/*/*/*/*.jsonl")
	require.NoError(t, err)
	for _, path := range append(codexCaptures(t), sessions...) {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		got := runIn(t, []string{"-F", "ndjson", path}, "")
		assert.Equal(t, string(b), got.Stdout, filepath.Base(path))
	}
	b, err := os.ReadFile(codexDir + "01-plain-text.jsonl")
	require.NoError(t, err)
	key := "AK" + "IA" + "Z7Q4XW2PLM3NB6VC" // (pkg/redact's example)
	secret := strings.Replace(string(b), "2 + 2 = 4.", "my key is "+key, 1)
	path := filepath.Join(t.TempDir(), "secret.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(secret), 0o600))
	got := runIn(t, []string{"--redact", "-F", "ndjson", path}, "")
	require.Equal(t, exitOK, got.Code, got.Stderr)
	assert.Equal(t, strings.Replace(secret, key, "[REDACTED:aws-access-key-id#1]", 1), got.Stdout)
}

// codexInputs are the Codex captures and session files the sweeps read
// (testdata/agents/codex): every one, or with -short a failed, an
// interrupted, a subagent and a long run, and the session files.
func codexInputs(t *testing.T) []string {
	t.Helper()
	codex, err := filepath.Glob("../../testdata/agents/codex/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, codex)
	if testing.Short() {
		codex = slices.DeleteFunc(codex, func(f string) bool {
			return !slices.ContainsFunc([]string{"05-auth-401", "08-long-session", "09-sigint-tool", "19-subagent"}, func(n string) bool { return strings.Contains(f, n) })
		})
	}
	sessions, err := filepath.Glob("../../testdata/agents/codex/home/.codex/sessions/*/*/*/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, sessions)
	return append(codex, sessions...)
}

// TestCodexRunSaysNoDurationItDoesNotHave proves a run whose input says
// no duration (Codex's exec stream has neither timestamps nor a
// duration: 03-shell-fail) shows none: the account's
// reported_duration_ms is null, and the text closing line, the markdown
// glance, summary and result and the HTML facts and result give none,
// where they said 0ms before; a Claude Code result's duration_ms is
// still shown (01-plain-text: 194ms). (A tool call's time in an undated
// input is still 0ms, as for an undated Claude Code stream.)
func TestCodexRunSaysNoDurationItDoesNotHave(t *testing.T) {
	const run = "../../testdata/agents/codex/03-shell-fail.jsonl"
	acc := runIn(t, []string{"account", "-F", "json", run}, "")
	require.Equal(t, exitOK, acc.Code, acc.Stderr)
	var a []struct {
		Times map[string]any `json:"times"`
	}
	require.NoError(t, json.Unmarshal([]byte(acc.Stdout), &a))
	require.Len(t, a, 1)
	assert.Contains(t, a[0].Times, "reported_duration_ms")
	assert.Nil(t, a[0].Times["reported_duration_ms"], "no result says a duration")
	for f, duration := range map[string]string{"text": " · 0ms · ", "markdown": "Duration", "html": "<dt>Duration</dt>"} {
		out := runIn(t, []string{"-F", f, run}, "")
		require.Equal(t, exitOK, out.Code, out.Stderr)
		assert.NotContains(t, out.Stdout, duration, f)
	}
	claude := runIn(t, []string{"../../testdata/events/01-plain-text.jsonl"}, "")
	assert.Contains(t, claude.Stdout, " · 194ms · ")
}

// TestCodexRenamedAnswerIsNotASilentEmptyAnswer proves that a Codex
// release's new name for its answer item (02-write-read with
// agent_message renamed agent_message_v2) is not an empty answer said by
// nothing: final notes that lines of a type it does not know were passed
// over; the capture as it is has no note.
func TestCodexRenamedAnswerIsNotASilentEmptyAnswer(t *testing.T) {
	b, err := os.ReadFile(codexDir + "02-write-read.jsonl")
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "renamed.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(strings.ReplaceAll(string(b), `"agent_message"`, `"agent_message_v2"`)), 0o644))
	got := runIn(t, []string{"final", path}, "")
	assert.Equal(t, "\n", got.Stdout)
	assert.Contains(t, got.Stderr, "the answer is empty, and lines of a type ccfilter does not know were passed over (2 lines, first item.completed)")
	got = runIn(t, []string{"final", codexDir + "02-write-read.jsonl"}, "")
	assert.Empty(t, got.Stderr)
}

// TestCodexTextNDJSONIsTheAnswerLines proves text -F ndjson on a Codex
// stream writes the lines its texts come from and no other (02: its two
// agent_message items); before, the turn.started before them came out too.
func TestCodexTextNDJSONIsTheAnswerLines(t *testing.T) {
	got := runIn(t, []string{"text", "-F", "ndjson", codexDir + "02-write-read.jsonl"}, "")
	require.Equal(t, 0, got.Code, got.Stderr)
	lines := strings.Split(strings.TrimSuffix(got.Stdout, "\n"), "\n")
	require.Len(t, lines, 2, got.Stdout)
	for _, l := range lines {
		assert.Contains(t, l, `"type":"agent_message"`)
	}
}

// TestAgentCountsThatAreNoneAreSaid proves a Codex or Gemini usage count
// past 64 bits, or negative, is left out and said, as one of Claude
// Code's is (TestNumbersThatDoNotFit), not read as 0 without a word or
// summed (02-write-read of each CLI with one count edited). The figures
// that do not depend on it stay.
func TestAgentCountsThatAreNoneAreSaid(t *testing.T) {
	for _, c := range []struct {
		capture, from, to, stderr, still string
	}{
		{codexDir + "02-write-read.jsonl", `"output_tokens":76`, `"output_tokens":1e999`,
			"output_tokens 1e999 does not fit a 64-bit number: read as missing", `"cache_read_input_tokens":24192`},
		{codexDir + "02-write-read.jsonl", `"cached_input_tokens":24192`, `"cached_input_tokens":-5`,
			"input_tokens -5 is negative, which no count is: read as missing", `"output_tokens":76`},
		{"../../testdata/agents/gemini/02-write-read.jsonl", `"total_tokens":36062,"input_tokens":35969`, `"total_tokens":36062,"input_tokens":1e999`,
			"input_tokens 1e999 does not fit a 64-bit number: read as missing", `"cache_read_input_tokens":23040`},
	} {
		b, err := os.ReadFile(c.capture)
		require.NoError(t, err)
		require.Contains(t, string(b), c.from)
		path := filepath.Join(t.TempDir(), "edited.jsonl")
		require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(b), c.from, c.to, 1)), 0o644))
		got := runIn(t, []string{"usage", "-F", "json", "-c", path}, "")
		require.Equal(t, 0, got.Code, got.Stderr)
		assert.Contains(t, got.Stderr, c.stderr, c.to)
		assert.Contains(t, got.Stdout, c.still, c.to)
	}
}

// TestCodexContextWindowExceededIsPromptTooLong proves the real capture
// 11-context-window-exceeded (turn.failed: "Codex ran out of room in the
// model's context window", the API's context_length_exceeded) is said as
// Claude Code says a run its context cannot hold, terminal_reason
// prompt_too_long (SDK TerminalReason, ../shared/reference), in every
// view, its stream and its session file (the capture's rollout, whose
// task_complete error says the same) alike: final's exit code 1 and
// reason, errors' failed result, the account's outcome reasons, the
// markdown and HTML results. Before, error_during_execution, which names
// no reason.
func TestCodexContextWindowExceededIsPromptTooLong(t *testing.T) {
	session, err := filepath.Glob("../../../shared/agents/codex/11-context-window-exceeded.home/.codex/sessions/*/*/*/rollout-*.jsonl")
	require.NoError(t, err)
	require.Len(t, session, 1)
	for _, in := range []string{codexDir + "11-context-window-exceeded.jsonl", session[0]} {
		final := runIn(t, []string{"final", in}, "")
		assert.Equal(t, exitFailed, final.Code, in)
		assert.Empty(t, final.Stdout, in)
		assert.Contains(t, final.Stderr, ": the run failed (prompt_too_long)\n  Codex ran out of room in the model's context window.", in)

		var acc []struct {
			Outcome struct {
				Status         string
				TerminalReason string `json:"terminal_reason"`
				Reasons        []string
			}
		}
		got := runIn(t, []string{"account", "-F", "json", in}, "")
		require.NoError(t, json.Unmarshal([]byte(got.Stdout), &acc), got.Stdout)
		require.Len(t, acc, 1)
		assert.Equal(t, "failed", acc[0].Outcome.Status, in)
		assert.Equal(t, "prompt_too_long", acc[0].Outcome.TerminalReason, in)
		assert.Equal(t, []string{"prompt_too_long"}, acc[0].Outcome.Reasons, in)

		for _, v := range []struct {
			args []string
			says string
		}{
			{[]string{"errors"}, "✗ run failed (prompt_too_long)"},
			{[]string{"all", "-F", "markdown"}, `### Result: failed (prompt\_too\_long)`},
			{[]string{"all", "-F", "html"}, "failed (prompt_too_long)"},
		} {
			got := runIn(t, append(v.args, in), "")
			assert.Contains(t, got.Stdout, v.says, "%v %s", v.args, in)
			assert.NotContains(t, got.Stdout, "error_during_execution", "%v %s", v.args, in)
		}
	}
}
