package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// summaryRow returns the value of a row of the markdown report's closing
// summary table.
func summaryRow(t *testing.T, md, item string) string {
	t.Helper()
	_, summary, ok := strings.Cut(md, "\n## Summary\n")
	if !assert.True(t, ok, "no summary in:\n%s", md) {
		return ""
	}
	m := regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(item) + ` \| (.*) \|$`).FindStringSubmatch(summary)
	if m == nil {
		return ""
	}
	return m[1]
}

// TestMarkdownSummaryStatesTheRun proves the closing summary of a markdown
// report states the run's facts whatever the preset shows of it: text and
// errors (which show a few events) say the run succeeded and how many tool
// calls it made, and a run with several results gets their sums, each
// result's figures beside them, never the last result's as the run's.
func TestMarkdownSummaryStatesTheRun(t *testing.T) {
	const events = "../../testdata/events/"
	for _, p := range []string{"text", "errors", "all"} {
		got := runIn(t, []string{p, "--format", "markdown", events + "04-parallel-tools.jsonl"}, "")
		assert.Equal(t, "✓ ok (success, completed)", summaryRow(t, got.Stdout, "Result"), p)
		assert.Equal(t, "4: Read 2, Bash 1, Write 1", summaryRow(t, got.Stdout, "Tool calls"), p)
		assert.Equal(t, "5", summaryRow(t, got.Stdout, "Turns"), p)
		assert.Empty(t, summaryRow(t, got.Stdout, "Results"), "%s: one result, no row", p)
	}
	// 05: three results (the run, then two background notifications).
	for _, p := range []string{"all", "errors"} {
		got := runIn(t, []string{p, "--format", "markdown", events + "05-subagents-async.jsonl"}, "")
		assert.Equal(t, "3 (the last one decides the outcome)", summaryRow(t, got.Stdout, "Results"), p)
		assert.Equal(t, "5 (3 + 1 + 1)", summaryRow(t, got.Stdout, "Turns"), p)
		assert.Equal(t, "358ms (286ms + 36ms + 36ms)", summaryRow(t, got.Stdout, "Duration"), p)
		assert.Equal(t, "4: Agent 2, Bash 1, Write 1", summaryRow(t, got.Stdout, "Tool calls"), p)
	}
	// A failed run's errors report says it failed, with its tool errors.
	got := runIn(t, []string{"errors", "--format", "markdown", events + "03-bash-fail.jsonl"}, "")
	assert.Equal(t, "1", summaryRow(t, got.Stdout, "Tool errors"))
	// A cut run: no result, and the calls without one are counted.
	got = runIn(t, []string{"text", "--format", "markdown", events + "09c-auth-401-killed.jsonl"}, "")
	assert.Equal(t, "no result (the stream ended without one)", summaryRow(t, got.Stdout, "Result"))
}

// TestMarkdownAsyncReport proves the markdown report of a run with
// background subagents reads as one: no heading of the main agent's that
// holds only a list of background tasks, the final answer written once
// (not again under the result that repeats it), and the model's line
// breaks kept.
func TestMarkdownAsyncReport(t *testing.T) {
	got := runIn(t, []string{"all", "--format", "markdown", "../../testdata/events/05-subagents-async.jsonl"}, "")
	md := got.Stdout
	for _, answer := range []string{"Both subagents reported: alpha.txt was created", "Both subagents are running in the background"} {
		assert.Equal(t, 1, strings.Count(md, answer), answer)
	}
	assert.NotContains(t, md, "Background tasks:")
	for _, part := range strings.Split(md, "\n### Main agent\n")[1:] {
		body, _, _ := strings.Cut(part, "\n#")
		assert.Greater(t, len(strings.TrimSpace(body)), 100, "a main agent's section with something in it:\n%s", body)
	}
	// A text of several lines keeps them (hard breaks), as the model wrote them.
	got = runIn(t, []string{"text", "--format", "markdown", "../../testdata/events/20-unicode-ansi.jsonl"}, "")
	assert.Contains(t, got.Stdout, "  \n", "line breaks kept")
}
