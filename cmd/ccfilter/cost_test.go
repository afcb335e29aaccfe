package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/spend"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// noCost04 is capture 04-parallel-tools (testdata/events, a copy of
// ../shared/captures) with total_cost_usd and modelUsage's costUSD taken
// out of its result: a Claude Code stream whose result reports no cost
// (as the tester's nocost04.jsonl). Its assistant events carry the
// placeholder output count (2 over both calls); the result's modelUsage
// the real one (154).
func noCost04(t *testing.T) string {
	return derived(t, "04-parallel-tools.jsonl", `"total_cost_usd":0.029841,`, ``, `"costUSD":0.029841,`, ``)
}

// TestEstimateOfAStreamWithoutCostPricesTheTokensTheAccountShows proves
// the estimate of a run whose result reports no cost prices the output
// the account reports (the result's modelUsage: 154), not the stream's
// placeholder (2, which gave $0.0184 beside total_tokens 25,113), and
// that every view says that one figure (the text view's closing line
// said $?).
func TestEstimateOfAStreamWithoutCostPricesTheTokensTheAccountShows(t *testing.T) {
	in := noCost04(t)
	a := checkEveryFormat(t, in)
	require.NotNil(t, a)
	require.Equal(t, "result", a.Tokens.OutputFrom, "the output is the result's")
	require.Equal(t, int64(154), a.Tokens.OutputTokens)
	require.NotNil(t, a.Cost, a.CostNote)
	assert.Equal(t, "estimated", a.Cost.Source)
	require.Len(t, a.Models, 1)
	m := a.Models[0]
	// The account's tokens priced at list prices, its cache writes in the
	// 1-hour cache (as the capture's usage says: 2.1.328 writes them all
	// there), are the CLI's own figure, which the derived file took out.
	u := m.Tokens.Usage()
	u.CacheWrite1hTokens = u.CacheCreationInputTokens
	want, ok := spend.Prices.Estimate(m.Model, u)
	require.True(t, ok, "a list price for %s", m.Model)
	assert.InDelta(t, want, a.Cost.USD, 1e-12, "the estimate prices the account's tokens")
	assert.InDelta(t, 0.029841, a.Cost.USD, 1e-6, "the CLI's own cost, which the derived file took out")
	placeholder := u
	placeholder.OutputTokens = 2
	wrong, _ := spend.Prices.Estimate(m.Model, placeholder)
	assert.NotEqual(t, fmt.Sprintf("%.4f", wrong), fmt.Sprintf("%.4f", a.Cost.USD), "not the placeholder's price")

	text := runIn(t, []string{"all", "--color", "never", in}, "").Stdout
	assert.True(t, strings.HasSuffix(strings.TrimSpace(text), fmt.Sprintf(" · ~$%.4f", a.Cost.USD)), "the closing line: %s", text[strings.LastIndex(strings.TrimSpace(text), "\n")+1:])
}

// TestUsagePresetShowsTheAccountsEstimate proves the usage preset gives
// the run's cost where the input reports none (the account's estimate at
// list prices, as account, usage --by and sessions do), marked as an
// estimate in every format: it gave no cost and "cost_usd": null. On a
// Gemini chat file and a Codex session file (testdata/agents, copies of
// ../shared/agents) and on capture 04 without its cost (noCost04).
func TestUsagePresetShowsTheAccountsEstimate(t *testing.T) {
	inputs := map[string]string{
		"gemini chat 08-long-session": firstGlob(t, "../../testdata/agents/gemini/08-long-session.chats/session-*.jsonl"),
		"codex session 03-shell-fail": "../../testdata/agents/codex/home/.codex/sessions/2026/12/06/rollout-2026-12-06T02-07-36-01a2491b-4f2e-7e21-adbe-20d605d7ab6d.jsonl",
		"capture 04 without its cost": noCost04(t),
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			acc := accountOf(t, in)
			require.NotNil(t, acc.Cost, acc.CostNote)
			require.Equal(t, "estimated", acc.Cost.Source)
			usd := fmt.Sprintf("%.4f", acc.Cost.USD)
			for _, c := range []struct{ format, want string }{
				{"text", "cost ~$" + usd + " (estimated at list prices"},
				{"markdown", `Cost: \~\$` + usd + " (estimated at list prices"},
				{"html", "<p>Cost: ~$" + usd + " (estimated at list prices"},
				{"csv", fmt.Sprintf(",total,%d,", acc.Tokens.Calls)},
				{"csv", ",estimated,"},
			} {
				r := runIn(t, []string{"usage", "-F", c.format, in}, "")
				require.Equal(t, 0, r.Code, r.Stderr)
				assert.Contains(t, r.Stdout, c.want, "usage -F %s", c.format)
			}
			for _, row := range jsonRowsOf(t, "usage", in) {
				if row["side"] == "total" {
					assert.Equal(t, acc.Cost.USD, row["cost_usd"], "usage json total cost")
					assert.Equal(t, "estimated", row["cost_source"], "usage json total cost_source")
				}
			}
		})
	}
}

// accountOf is the account preset's account of in.
func accountOf(t *testing.T, in string) stream.Account {
	t.Helper()
	r := runIn(t, []string{"account", "-F", "json", in}, "")
	require.Equal(t, 0, r.Code, r.Stderr)
	var accs []stream.Account
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &accs))
	require.Len(t, accs, 1)
	return accs[0]
}

func firstGlob(t *testing.T, pattern string) string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	require.NoError(t, err)
	require.NotEmpty(t, m, pattern)
	return m[0]
}

// TestEstimatedCostIsOneFigureInEveryView proves a run whose CLI reports
// no cost shows the account's estimate, marked "~", in every view: the
// text view's closing line, the markdown result block beside its glance,
// the HTML page's result block beside its facts, and the trace's root
// span with its source. On Gemini's stream 01-plain-text and the Codex
// session file of 03-shell-fail (testdata/agents, copies of
// ../shared/agents), where the closing line said "$?", the markdown
// "- **Cost:** \$?" beside "~$0.0090", and the root span had no cost.
func TestEstimatedCostIsOneFigureInEveryView(t *testing.T) {
	for name, in := range map[string]string{
		"gemini stream 01-plain-text": "../../testdata/agents/gemini/01-plain-text.jsonl",
		"codex session 03-shell-fail": "../../testdata/agents/codex/home/.codex/sessions/2026/12/06/rollout-2026-12-06T02-07-36-01a2491b-4f2e-7e21-adbe-20d605d7ab6d.jsonl",
	} {
		t.Run(name, func(t *testing.T) {
			acc := accountOf(t, in)
			require.NotNil(t, acc.Cost, acc.CostNote)
			require.Equal(t, "estimated", acc.Cost.Source)
			label := fmt.Sprintf("~$%.4f", acc.Cost.USD)
			text := runIn(t, []string{"all", "--color", "never", in}, "").Stdout
			assert.True(t, strings.HasSuffix(strings.TrimSpace(text), " · "+label), "text closing line: %s", text)
			md := runIn(t, []string{"all", "-F", "markdown", in}, "").Stdout
			assert.Contains(t, md, `- **Cost:** \~\$`+label[2:], "markdown result block")
			assert.NotContains(t, md, `\$?`, "markdown: no unknown cost beside the estimate")
			page := runIn(t, []string{"all", "-F", "html", in}, "").Stdout
			assert.Equal(t, 2, strings.Count(page, "<dt>Cost</dt><dd>"+label+"</dd>"), "html result block and facts")
			assert.NotContains(t, page, "<dd>$?</dd>", "html: no unknown cost beside the estimate")
			trace := runIn(t, []string{"all", "-F", "otlp", in}, "").Stdout
			assert.Contains(t, trace, fmt.Sprintf(`{"key":"claude_code.cost_usd","value":{"doubleValue":%v}},{"key":"claude_code.cost_source","value":{"stringValue":"estimated"}}`, acc.Cost.USD), "trace root")
		})
	}
}

// TestUsageSaysTheRunsCostInTextAndMarkdown proves the usage preset says
// the run's cost in one phrase in its text head and its markdown Cost
// line, whatever the cost is (capture 04-parallel-tools, its result's
// cost edited): reported, estimated (no total_cost_usd), written too large
// for a float64 (1e400: the text said it, the markdown had no Cost line),
// and unknown (no cost, a model no price is known for: neither said
// anything, as if the run were free, where every other view says $?).
func TestUsageSaysTheRunsCostInTextAndMarkdown(t *testing.T) {
	const cost = `"total_cost_usd":0.029841,`
	for _, tc := range []struct {
		name, said string
		edits      []string
	}{
		{"reported", `$0.0298`, nil},
		{"estimated", `~$0.0298 (estimated at list prices: the input reports none)`, []string{cost, ``, `"costUSD":0.029841,`, ``}},
		{"too large", `$1e400 (as written: too large to compute with)`, []string{cost, `"total_cost_usd":1e400,`}},
		{"unknown model", `$? (unknown: the last result gives no total_cost_usd; no price is known for claude-opus-9)`,
			[]string{cost, ``, `"costUSD":0.029841,`, ``}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := derived(t, "04-parallel-tools.jsonl", tc.edits...)
			if tc.name == "unknown model" {
				b, err := os.ReadFile(in)
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(in, []byte(strings.ReplaceAll(string(b), "claude-opus-5-5", "claude-opus-9")), 0o644))
			}
			text := runIn(t, []string{"usage", in}, "")
			require.Equal(t, 0, text.Code, text.Stderr)
			head := strings.SplitN(text.Stdout, "\n", 2)[0]
			assert.True(t, strings.HasSuffix(head, ", cost "+tc.said), "the text head: %s", head)
			md := runIn(t, []string{"usage", "-F", "markdown", in}, "").Stdout
			assert.Contains(t, md, "\nCost: "+mdEscapeTest(tc.said), "the markdown Cost line")
		})
	}
}

// mdEscapeTest escapes what markdown's inline text escapes in a cost.
func mdEscapeTest(s string) string {
	return strings.NewReplacer(`$`, `\$`, `~`, `\~`, `_`, `\_`).Replace(s)
}
