package preset

import (
	"fmt"
	"math"

	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// usage reports tokens (deduplicated by message.id) and cost, by model and
// side; it follows usage, not tool calls.
var usage = Preset{
	Name: "usage", DefaultAgent: "all",
	Summary: "tokens (deduplicated by message.id) and cost, by model, main agent vs subagents, helper model apart",
	// (usage --by's rows are the grouping's: docs/usage.md)
	Dot:     rowDot(usageColumns),
	Example: "ccfilter usage --format json run.jsonl",
	Words:   []string{"cost", "costs", "spend", "spending", "tokens", "price", "billing"},
	// (FollowUsage pairs no call with its result: no tool result is read.)
	Needs: agentNeeds(stream.Needs{Follow: stream.FollowUsage, NoResultSizes: true, NoOwners: true, NoFinalText: true, NoToolTally: true,
		Kinds: ^stream.KindsOf(stream.KindToolResult)}),
	// usage --by: every session under PATH, grouped (usage_by.go).
	Grouping: usageGrouping,
	Start: func(c *Config, tr *stream.Tracker) (Run, error) {
		return startReport(c, tr, reportRun{uses: keepsFacts, report: usageReport})
	},
}

// agentUsage narrows a usage report to the model calls of the agents
// --agent picks: main or sub, that side's rows; an id, the calls of that
// subagent. The cost and the result's own totals stay the run's (a result
// does not split them by agent); the note says so.
func agentUsage(b *base, d stream.UsageReport) (stream.UsageReport, string) {
	a := b.c.Agent
	if a == "" || a == "all" {
		return d, ""
	}
	var rows []stream.ModelTokens
	switch a {
	case stream.MainAgent, "sub":
		for _, m := range d.ByModel {
			if m.Subagent == (a == "sub") {
				rows = append(rows, m)
			}
		}
	default:
		for _, s := range b.tr.Subagents() {
			if a.Match(s.ToolUseID, s) {
				b.matched = true
				rows = append(rows, b.tr.UsageOf(s)...)
			}
		}
		b.unmatchedAgent()
	}
	n := stream.UsageReport{ByModel: []stream.ModelTokens{}, OutputFrom: "events", PartialMessages: d.PartialMessages,
		CostUSD: d.CostUSD, HaveCost: d.HaveCost, CostWritten: d.CostWritten, ModelCosts: d.ModelCosts, Helper: d.Helper, HelperCostUSD: d.HelperCostUSD}
	for _, m := range rows {
		n.Add(m)
	}
	n.EventsOutputTokens = n.Total.OutputTokens
	return n, "--agent " + string(a) + ": the model calls of that agent; the cost and the result's own totals below are the whole run's"
}

func usageReport(b *base) (*render.Report, error) {
	d, agentNote := agentUsage(b, b.tr.Usage())
	if d.Total.Saturated() {
		Warn(b.c.Stderr, fmt.Sprintf("%s: token counts add up past %d, the largest a 64-bit count holds: the sums past it are shown at it",
			b.c.Source, int64(math.MaxInt64)))
	}
	head := render.Plural(int64(d.Calls), "model call")
	if d.Calls == 0 && d.OutputFrom == "result" && len(d.ByModel) > 0 {
		// (the tracker's Usage: an input with only the run's totals)
		head = "the run's totals: the input gives no per-call usage"
	}
	// The run's cost is the account's (Tracker.Cost): the last result's
	// total_cost_usd, else the calls priced at list prices, marked as an
	// estimate in every format (the head and Cost line "~$", the rows'
	// cost_source).
	runCost, why := b.tr.Cost()
	// The one phrase of the run's cost, in the text head and the markdown
	// Cost line alike: the account's figure, one written too large to
	// compute with, or unknown and why (no result, no price for a model:
	// never nothing, as if the run were free).
	var costSaid string
	switch {
	case runCost != nil:
		costSaid = costText(runCost)
	case d.CostWritten != "":
		costSaid = "$" + d.CostWritten + " (as written: too large to compute with)"
	default:
		costSaid = "$? (unknown: " + why + ")"
	}
	head += ", cost " + costSaid
	// tokens are a row's four counts; its output marked with
	// render.PlaceholderMark where it is not the calls' final count (the table
	// a person reads; CSV and JSON say it in output_exact).
	tokens := func(u stream.Usage, exact bool) []render.Cell {
		out := num(u.OutputTokens)
		if !exact {
			out.Text += render.PlaceholderMark
		}
		return []render.Cell{num(u.InputTokens), out, num(u.CacheCreationInputTokens), num(u.CacheReadInputTokens)}
	}
	// Every row once, as CSV, NDJSON and JSON write it and --where sees
	// it; the table a person reads shows the same rows --where keeps.
	var lines []usageLine
	for _, m := range d.ByModel {
		side := "main"
		if m.Subagent {
			side = "subagent"
		}
		exact := m.PlaceholderCalls == 0
		lines = append(lines, usageLine{usageRow(m.Model, side, m.Calls, m.Usage, nil, exact),
			append([]render.Cell{plain(m.Model), plain(side), num(int64(m.Calls))}, tokens(m.Usage, exact)...), false})
	}
	totalExact := render.TotalOutputExact(d)
	var cost *stream.Cost // null when there is none, or none that fits a float64 (text shows it as written)
	if agentNote == "" {
		cost = runCost // (the run's: not one agent's, which no result says)
	}
	lines = append(lines, usageLine{usageRow("", "total", d.Calls, d.Total, cost, totalExact),
		append([]render.Cell{strong("total"), plain(""), num(int64(d.Calls))}, tokens(d.Total, totalExact)...), false})
	// The result's own totals (exact, cumulative), a row per model: the
	// models that answered ("result") and the helper models ("helper").
	helper := map[string]bool{}
	for _, h := range d.Helper {
		helper[h.Model] = true
	}
	for _, mu := range d.ModelCosts {
		side := "result"
		if helper[mu.Model] {
			side = "helper"
		}
		var muCost *stream.Cost // null: the result gives no cost for it (unknown, not $0)
		costText := "$?"
		if mu.HasCost {
			muCost, costText = &stream.Cost{USD: mu.CostUSD, Source: "reported"}, fmt.Sprintf("$%.4f", mu.CostUSD)
		}
		lines = append(lines, usageLine{usageRow(mu.Model, side, nil, stream.Usage{InputTokens: mu.InputTokens, OutputTokens: mu.OutputTokens,
			CacheCreationInputTokens: mu.CacheCreationInputTokens, CacheReadInputTokens: mu.CacheReadInputTokens}, muCost, true),
			[]render.Cell{plain(mu.Model), num(mu.InputTokens), num(mu.OutputTokens),
				num(mu.CacheCreationInputTokens), num(mu.CacheReadInputTokens), plain(costText)}, true})
	}
	lines, rows, err := rowsWhere(b, lines, usageColumns, func(l usageLine) []any { return l.row })
	if err != nil {
		return nil, err
	}
	byModel := &render.Table{Columns: columns([]string{"Model", "Side", "Calls", "Input", "Output", "Cache write", "Cache read"}, 2, 3, 4, 5, 6)}
	reported := &render.Table{Columns: columns([]string{"Model", "Input", "Output", "Cache write", "Cache read", "Cost"}, 1, 2, 3, 4, 5)}
	for _, l := range lines {
		if l.reported {
			reported.Rows = append(reported.Rows, l.cells)
		} else {
			byModel.Rows = append(byModel.Rows, l.cells)
		}
	}

	blocks := []render.Block{{Only: render.Text, Line: "usage: " + head}, {Table: byModel}}
	if note := render.PlaceholderNote(d, agentNote != ""); note != "" {
		blocks = append(blocks, render.Block{Line: note})
	}
	if agentNote != "" {
		blocks = append(blocks, render.Block{Line: agentNote})
	}
	if len(reported.Rows) > 0 {
		blocks = append(blocks, render.Block{Line: reportedNote(d)}, render.Block{Table: reported})
	}
	for _, h := range d.Helper {
		blocks = append(blocks, render.Block{Only: render.Text, Line: fmt.Sprintf("helper model %s: $%.4f", h.Model, h.CostUSD)})
	}
	s := "Cost: " + costSaid
	if d.HelperCostUSD > 0 {
		s += fmt.Sprintf(" (helper models $%.4f)", d.HelperCostUSD)
	}
	blocks = append(blocks, render.Block{Only: render.Markdown, Line: s})
	return &render.Report{Title: "Usage", Blocks: blocks, Rows: rows}, nil
}

// usageLine is one row of the report: its values (usageColumns), its
// cells in the table a person reads, and which table (reported: the
// result's own totals).
type usageLine struct {
	row      []any
	cells    []render.Cell
	reported bool
}

// usageColumns are a usage row's: what CSV, NDJSON and JSON write. side is
// main or subagent (the stream's model calls, each once, by model), total
// (their sum; its output the result's when the calls' are placeholders;
// cost_usd the run's total_cost_usd), result (the last result's own
// modelUsage of a model that answered, exact; calls unknown) or helper (a
// model that answered no assistant message). cost_source says where
// cost_usd is from, as the account's cost does: reported (the result's) or
// estimated (the calls at list prices: the input reports no cost); null
// with no cost. output_exact: the output is the calls' final count, not
// the stream's placeholder.
var usageColumns = []string{"model", "side", "calls", "input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "cost_usd", "cost_source", "output_exact"}

// usageRow is one row of usageColumns; calls and cost may be nil (null).
func usageRow(model, side string, calls any, u stream.Usage, cost *stream.Cost, exact bool) []any {
	var usd, source any
	if cost != nil {
		usd, source = cost.USD, cost.Source
	}
	return []any{model, side, calls, u.InputTokens, u.OutputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens, usd, source, exact}
}

// reportedNote introduces the last result's own per-model totals under the
// usage table.
func reportedNote(stream.UsageReport) string {
	return "the result's own totals (modelUsage):"
}

// costText is the run's cost as the usage report writes it: "$0.0298", or
// an estimate marked as one, "~" as every view marks it.
func costText(c *stream.Cost) string {
	if c.Source == "estimated" {
		return fmt.Sprintf("~$%.4f (estimated at list prices: the input reports none)", c.USD)
	}
	return fmt.Sprintf("$%.4f", c.USD)
}
