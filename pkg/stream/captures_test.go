package stream_test

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// expectation is what testdata/expect/expect.jq computes for a capture, with
// jq alone (regenerate: make expectations). It is the independent oracle of
// TestCaptures.
type expectation struct {
	Kinds     []string `json:"kinds"`
	Pairs     [][]any  `json:"pairs"`
	Open      []string `json:"open"`
	Subagents []struct {
		ToolUseID   string `json:"tool_use_id"`
		Description string `json:"description"`
		Type        string `json:"type"`
		Status      string `json:"status"`
	} `json:"subagents"`
	Outcome struct {
		Results int    `json:"results"`
		Status  string `json:"status"`
		Subtype string `json:"subtype"`
	} `json:"outcome"`
	Usage struct {
		Calls          int   `json:"calls"`
		Input          int64 `json:"input"`
		Output         int64 `json:"output"`
		CacheCreation  int64 `json:"cache_creation"`
		CacheRead      int64 `json:"cache_read"`
		SubagentOutput int64 `json:"subagent_output"`
	} `json:"usage"`
	Cost *float64 `json:"cost"`
}

func captures(t testing.TB) []string {
	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	require.Len(t, files, 42, "every capture of ../shared/captures is in testdata/events")
	return files
}

// TestCaptures proves, on every real capture, that the decoder reads every
// line, and that the kinds in order, the tool call pairs, the calls left
// open, the subagent tree, the outcome, the deduplicated usage and the cost
// are exactly what expect.jq computes independently with jq.
func TestCaptures(t *testing.T) {
	for _, f := range captures(t) {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile("../../testdata/expect/" + name + ".json")
			require.NoError(t, err)
			var want expectation
			require.NoError(t, json.Unmarshal(raw, &want))

			in, err := os.Open(f)
			require.NoError(t, err)
			defer in.Close()
			dec := stream.NewDecoder(in, stream.DecoderOptions{Source: f})
			tr := stream.NewTracker(stream.TrackerOptions{})
			kinds := []string{}
			pairs := [][]any{}
			for {
				ev, err := dec.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				require.NoError(t, err)
				kinds = append(kinds, ev.Kind.String())
				for _, c := range tr.Observe(ev) {
					pairs = append(pairs, []any{c.ID, c.Name, c.IsError})
				}
			}
			assert.Equal(t, want.Kinds, kinds, "kinds in order")
			assert.Equal(t, want.Pairs, pairs, "tool calls in completion order")
			open := []string{}
			for _, c := range tr.OpenCalls() {
				open = append(open, c.ID)
			}
			assert.Equal(t, want.Open, open, "calls without a result")

			var subs []string
			for _, s := range tr.Subagents() {
				subs = append(subs, strings.Join([]string{s.ToolUseID, s.Description, s.Type, s.Status}, "|"))
			}
			var wantSubs []string
			for _, s := range want.Subagents {
				wantSubs = append(wantSubs, strings.Join([]string{s.ToolUseID, s.Description, s.Type, s.Status}, "|"))
			}
			assert.Equal(t, wantSubs, subs, "subagent tree")

			out := tr.Outcome()
			assert.Equal(t, want.Outcome.Results, out.Results)
			assert.Equal(t, want.Outcome.Status, out.Status.String())
			assert.Equal(t, want.Outcome.Subtype, out.Last.Subtype)

			u := tr.Usage()
			assert.Equal(t, want.Usage.Calls, u.Calls, "distinct model calls")
			assert.Equal(t, want.Usage.Input, u.Total.InputTokens)
			assert.Equal(t, want.Usage.Output, u.Total.OutputTokens)
			assert.Equal(t, want.Usage.CacheCreation, u.Total.CacheCreationInputTokens)
			assert.Equal(t, want.Usage.CacheRead, u.Total.CacheReadInputTokens)
			assert.Equal(t, want.Usage.SubagentOutput, u.Subagents.OutputTokens)
			if want.Cost == nil {
				assert.False(t, u.HaveCost)
			} else {
				assert.True(t, u.HaveCost)
				assert.InDelta(t, *want.Cost, u.CostUSD, 1e-12)
			}
		})
	}
}

// TestOutcomeDetails proves the outcome carries what scripts report: the
// subtype, terminal_reason and errors of a failed run (12-max-turns), the API
// status of an API-error turn that claude-code marks success+is_error
// (09-auth-401), and no result for a killed run (09c).
func TestOutcomeDetails(t *testing.T) {
	run := func(name string) *stream.Tracker {
		tr := stream.NewTracker(stream.TrackerOptions{})
		in, err := os.Open("../../testdata/events/" + name + ".jsonl")
		require.NoError(t, err)
		defer in.Close()
		dec := stream.NewDecoder(in, stream.DecoderOptions{})
		for {
			ev, err := dec.Next()
			if err == io.EOF {
				return tr
			}
			require.NoError(t, err)
			tr.Observe(ev)
		}
	}
	o := run("12-max-turns").Outcome()
	assert.Equal(t, stream.Failed, o.Status)
	assert.Equal(t, "error_max_turns", o.Last.Subtype)
	assert.Equal(t, "max_turns", o.Last.TerminalReason)
	assert.Equal(t, []string{"Reached maximum number of turns (1)"}, o.Last.Errors)
	assert.False(t, o.Last.HasText)

	o = run("09-auth-401").Outcome()
	assert.Equal(t, stream.Failed, o.Status)
	assert.Equal(t, "success", o.Last.Subtype)
	assert.Equal(t, 401, o.Last.APIErrorStatus)

	assert.Equal(t, stream.NoResult, run("09c-auth-401-killed").Outcome().Status)
	assert.Equal(t, stream.NoResult, run("22-missing-verbose").Outcome().Status)

	// 05: three results (result_index 0,1,2); the last one wins.
	tr := run("05-subagents-async")
	o = tr.Outcome()
	assert.Equal(t, 3, o.Results)
	assert.Equal(t, int64(2), o.Last.ResultIndex)
	assert.Equal(t, "task-notification", o.Last.OriginKind)
	for _, s := range tr.Subagents() {
		assert.True(t, s.Background, "Agent runs in the background by default")
		assert.NotEmpty(t, s.AgentID, "task_started links the agent id")
		assert.NotEmpty(t, s.Report, "task_notification summary is the report")
		assert.Positive(t, s.Usage.TotalTokens)
		assert.Positive(t, s.Tokens.Total(), "tokens of the subagent's own calls")
		assert.Equal(t, 1, s.ToolCalls)
	}

	// 27-compact: result_index 1 has an empty result: the final answer
	// falls back to the main agent's last assistant text.
	tr = run("27-compact")
	text, fell := tr.FinalText()
	assert.True(t, fell)
	assert.NotEmpty(t, text)
	text, fell = run("01-plain-text").FinalText()
	assert.False(t, fell)
	assert.Equal(t, "Hello! I am a scripted fake model. 2 + 2 = 4.", text)
}

// TestToolCallTiming proves durations come from the events' timestamps and
// result sizes from the decoded content (19: a 1.5 MB Read).
func TestToolCallTiming(t *testing.T) {
	in, err := os.Open("../../testdata/events/19-big-tool-result.jsonl")
	require.NoError(t, err)
	defer in.Close()
	dec := stream.NewDecoder(in, stream.DecoderOptions{})
	tr := stream.NewTracker(stream.TrackerOptions{})
	var calls []*stream.ToolCall
	for {
		ev, err := dec.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		calls = append(calls, tr.Observe(ev)...)
	}
	require.NotEmpty(t, calls)
	biggest := 0
	for _, c := range calls {
		assert.True(t, c.HasDuration, c.ID)
		assert.GreaterOrEqual(t, c.Duration.Nanoseconds(), int64(0))
		biggest = max(biggest, c.ResultBytes)
	}
	assert.Greater(t, biggest, 1_000_000, "the allow_large Read returns the 1.5 MB file")
}
