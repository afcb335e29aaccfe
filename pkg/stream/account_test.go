package stream_test

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/spend"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// accountOf is the account of the lines kept of a capture (keep: all when
// nil).
func accountOf(t *testing.T, path string, keep func(line string) bool) stream.Account {
	return accountPriced(t, path, keep, nil)
}

func accountPriced(t *testing.T, path string, keep func(line string) bool, prices stream.Pricer) stream.Account {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var kept bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if keep == nil || keep(sc.Text()) {
			kept.WriteString(sc.Text() + "\n")
		}
	}
	dec := stream.NewDecoder(&kept, stream.DecoderOptions{})
	tr := stream.NewTracker(stream.TrackerOptions{Prices: prices})
	for {
		ev, err := dec.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		tr.Observe(ev)
	}
	return tr.Account()
}

// TestAccountSumsASubagentsCallsAndKeepsTheTaskFigureApart proves, on
// 05-subagents-async, that a subagent's total_tokens is the sum of the
// four counts over its own calls (14,778 for "Create alpha file": 6 +
// 2 + 1,971 + 12,799), not the CLI's task figure (7,678), which the
// account keeps as task_reported_tokens; that the agents add up to the
// models; and that the subagents sit in the tree under main.
func TestAccountSumsASubagentsCallsAndKeepsTheTaskFigureApart(t *testing.T) {
	a := accountOf(t, "../../testdata/events/05-subagents-async.jsonl", nil)
	require.Len(t, a.Agents, 3)
	assert.Equal(t, stream.MainAgent, a.Agents[0].ID)
	alpha := a.Agents[1]
	assert.Equal(t, "Create alpha file", alpha.Description)
	assert.Equal(t, stream.MainAgent, alpha.Parent)
	require.NotNil(t, alpha.Tokens)
	assert.Equal(t, int64(6+2+1971+12799), alpha.Tokens.TotalTokens)
	require.NotNil(t, alpha.TaskReportedTokens)
	assert.Equal(t, int64(7678), *alpha.TaskReportedTokens)
	calls, toolCalls := 0, 0
	for _, ag := range a.Agents {
		calls += ag.Tokens.Calls
		toolCalls += ag.ToolCalls
	}
	assert.Equal(t, a.Tokens.Calls, calls, "every model call is one agent's")
	assert.Equal(t, a.ToolCalls.Calls, toolCalls, "every tool call is one agent's")
	assert.Equal(t, 4, toolCalls)
	var models int64
	for _, m := range a.Models {
		models += m.InputTokens + m.CacheCreationInputTokens + m.CacheReadInputTokens
	}
	tk := a.Tokens
	assert.Equal(t, tk.InputTokens+tk.CacheCreationInputTokens+tk.CacheReadInputTokens, models, "the models add up to the run")
	assert.Equal(t, tk.InputTokens+tk.OutputTokens+tk.CacheCreationInputTokens+tk.CacheReadInputTokens, tk.TotalTokens)
	assert.Equal(t, "num_turns", a.Turns.Meaning)
	assert.Equal(t, int64(5), a.Turns.Count)
	assert.Equal(t, "success", a.Outcome.Status)
}

// TestAccountSaysASubagentsTokensAreNotInTheInput proves that a subagent
// none of whose calls the input carries (as a stream does not forward a
// nested subagent's) has null tokens and says so, never 0, while its
// task figure stays. The input is 05-subagents-async with the assistant
// events of "Run beta command" (parent_tool_use_id
// toolu_01r2WPWbzSiZgDUNfhEYjAat) taken out.
func TestAccountSaysASubagentsTokensAreNotInTheInput(t *testing.T) {
	const beta = `"parent_tool_use_id":"toolu_01r2WPWbzSiZgDUNfhEYjAat"`
	a := accountOf(t, "../../testdata/events/05-subagents-async.jsonl", func(l string) bool {
		return !(strings.Contains(l, `"type":"assistant"`) && strings.Contains(l, beta))
	})
	require.Len(t, a.Agents, 3)
	b := a.Agents[2]
	assert.Equal(t, "Run beta command", b.Description)
	assert.Nil(t, b.Tokens, "not 0: not in the input")
	assert.Contains(t, b.TokensNote, "is in the input")
	require.NotNil(t, b.TaskReportedTokens)
	assert.Equal(t, int64(7627), *b.TaskReportedTokens)
	assert.NotNil(t, a.Agents[1].Tokens, "alpha's calls are there")
}

// TestAccountCountsTroublesByTheErrorsRule proves the account's troubles
// are the events the errors preset lists, by kind, and a missing result
// as its last row: on captures that hold each kind.
func TestAccountCountsTroublesByTheErrorsRule(t *testing.T) {
	for _, c := range []struct {
		capture string
		want    map[string]int
	}{
		{"03-bash-fail.jsonl", map[string]int{stream.TroubleToolError: 1}},
		{"11-overloaded-529-retry.jsonl", map[string]int{stream.TroubleRetry: 2}},
		{"15-permission-denied.jsonl", map[string]int{stream.TroubleToolError: 2, stream.TroubleDenial: 2}},
		{"17-sigint-streaming.jsonl", map[string]int{stream.TroubleInterrupt: 1, stream.TroubleResult: 1}},
		{"09c-auth-401-killed.jsonl", map[string]int{stream.TroubleRetry: 4, stream.TroubleNoResult: 1}},
		{"01-plain-text.jsonl", map[string]int{}},
	} {
		t.Run(c.capture, func(t *testing.T) {
			a := accountOf(t, "../../testdata/events/"+c.capture, nil)
			assert.Equal(t, c.want, a.Troubles.ByKind)
			n := 0
			for _, v := range c.want {
				n += v
			}
			assert.Equal(t, n, a.Troubles.Count)
		})
	}
}

// TestAccountTimesAreTheRunsWhateverTheClock proves the account's times are
// the records' (Tracker.Time's rule): 04-parallel-tools runs from its
// first record to its last, 0.86 s by the stream, whatever the input path.
func TestAccountTimesAreTheRunsWhateverTheClock(t *testing.T) {
	a := accountOf(t, "../../testdata/events/04-parallel-tools.jsonl", nil)
	assert.True(t, a.Times.Dated)
	assert.Less(t, a.Times.ElapsedMs, int64(5000))
	assert.Greater(t, a.Times.ElapsedMs, int64(0))
	require.NotNil(t, a.Times.ReportedMs)
	assert.Equal(t, int64(862), *a.Times.ReportedMs)
}

// TestAccountEstimatesACostTheInputDoesNotReport proves a run whose input
// reports no cost (05-subagents-async with its result events taken out, as
// a killed run's) has its calls priced at list prices, marked estimated,
// and no cost at all, with why, without a price table; and that a reported
// cost is the result's, whatever the table says. (The captures' model,
// claude-opus-5-5, is priced by the --prices entry given here, which
// wins over the shipped catalog.)
func TestAccountEstimatesACostTheInputDoesNotReport(t *testing.T) {
	const capture = "../../testdata/events/05-subagents-async.jsonl"
	noResult := func(l string) bool { return !strings.Contains(l, `"type":"result"`) }
	prices := pricesFile(t, `{"claude-opus-5-5": 5}`)
	a := accountPriced(t, capture, noResult, prices)
	require.NotNil(t, a.Cost)
	assert.Equal(t, "estimated", a.Cost.Source)
	assert.Greater(t, a.Cost.USD, 0.0)
	a = accountPriced(t, capture, noResult, spend.Prices)
	require.NotNil(t, a.Cost, "the shipped catalog prices claude-opus-5-5")
	assert.Equal(t, "estimated", a.Cost.Source)
	a = accountPriced(t, capture, noResult, knowsNoPrice{})
	assert.Nil(t, a.Cost)
	assert.Contains(t, a.CostNote, "no price is known for claude-opus-5-5")
	a = accountPriced(t, capture, noResult, nil)
	assert.Nil(t, a.Cost)
	assert.Contains(t, a.CostNote, "no result")
	a = accountPriced(t, capture, nil, prices)
	require.NotNil(t, a.Cost)
	assert.Equal(t, stream.Cost{USD: 0.083995, Source: "reported"}, *a.Cost)
}

// TestAccountNamesTheCLIItsInitSays proves that the account names the
// agent CLI and its version from the run's first init: Claude Code's own
// (01-plain-text: claude_code_version 2.1.328, no "cli" field), and the
// one another agent's input kind writes into the init it makes (the same
// capture with its init given "cli":"codex" and a cli_version in place of
// claude_code_version), and Claude Code when there is no init at all
// (01-plain-text without its init line).
func TestAccountNamesTheCLIItsInitSays(t *testing.T) {
	const path = "../../testdata/events/01-plain-text.jsonl"
	isInit := func(line string) bool { return strings.Contains(line, `"subtype":"init"`) }
	tests := []struct {
		name string
		keep func(string) bool
		want stream.CLI
	}{
		{"claude code's init", nil, stream.CLI{ID: "claude-code", Name: "Claude Code", Version: "2.1.328", Provider: "anthropic"}},
		{"no init", func(l string) bool { return !isInit(l) }, stream.CLI{ID: "claude-code", Name: "Claude Code", Provider: "anthropic"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, accountOf(t, path, tt.keep).CLI)
		})
	}
	t.Run("another cli's init", func(t *testing.T) {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		var b strings.Builder
		for _, line := range strings.SplitAfter(string(data), "\n") {
			if isInit(line) {
				line = strings.Replace(line, `"claude_code_version":"2.1.328"`, `"cli":"codex","cli_version":"0.171.0"`, 1)
				require.Contains(t, line, `"cli":"codex"`)
			}
			b.WriteString(line)
		}
		f := t.TempDir() + "/codex-init.jsonl"
		require.NoError(t, os.WriteFile(f, []byte(b.String()), 0o644))
		assert.Equal(t, stream.CLI{ID: "codex", Name: "Codex CLI", Version: "0.171.0", Provider: "openai"}, accountOf(t, f, nil).CLI)
	})
}

// pricesFile is the price table of a --prices file holding body.
func pricesFile(t *testing.T, body string) spend.PriceTable {
	t.Helper()
	f := t.TempDir() + "/prices.json"
	require.NoError(t, os.WriteFile(f, []byte(body), 0o644))
	p, err := spend.ReadPrices(f)
	require.NoError(t, err)
	return p
}

// knowsNoPrice is a price table that knows no model.
type knowsNoPrice struct{}

func (knowsNoPrice) Estimate(string, stream.Usage) (float64, bool) { return 0, false }
