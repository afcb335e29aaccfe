package preset

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// account prints the run's account (stream.Account): every figure the
// other views show of the run, computed once by the tracker. For machines
// it is one row per run whose columns are the account's parts, each a JSON
// value (docs/account.md says what every field means); for people, its
// tables.
var account = Preset{
	Name: "account", DefaultAgent: "all",
	NoAgent: "the account is the whole run's: it gives each agent's share in its agents",
	Summary: "the run's account: outcome, turns, times, tokens and cost by model and agent, tool calls by tool, troubles (one source for every view)",
	Dot:     rowDot(accountColumns),
	Example: "ccfilter account --format json run.jsonl",
	Words:   []string{"figures", "totals", "summary"},
	Start: func(c *Config, tr *stream.Tracker) (Run, error) {
		return startReport(c, tr, reportRun{uses: keepsFacts, report: accountReport})
	},
}

// accountColumns are the account's parts, as its JSON names them.
var accountColumns = []string{"cli", "outcome", "turns", "times", "tokens", "cost", "cost_note", "models", "agents", "tool_calls", "troubles"}

// accountRow is the account as a row: each part its own JSON.
func accountRow(a stream.Account) ([]any, error) {
	b, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	var parts map[string]json.RawMessage
	if err := json.Unmarshal(b, &parts); err != nil {
		return nil, err
	}
	row := make([]any, len(accountColumns))
	for i, c := range accountColumns {
		if v, ok := parts[c]; ok {
			row[i] = v
		}
	}
	return row, nil
}

func accountReport(b *base) (*render.Report, error) {
	a := b.tr.Account()
	row, err := accountRow(a)
	if err != nil {
		return nil, err
	}
	_, rows, err := rowsWhere(b, [][]any{row}, accountColumns, func(r []any) []any { return r })
	if err != nil {
		return nil, err
	}
	return &render.Report{Title: "Account", Blocks: []render.Block{
		{Table: accountFacts(a)}, {Table: accountAgents(a)}, {Table: accountTools(a)},
	}, Rows: rows}, nil
}

// accountFacts is the run's figures, a row each.
func accountFacts(a stream.Account) *render.Table {
	t := &render.Table{Columns: columns([]string{"Figure", "Value"})}
	add := func(k, v string) { t.Rows = append(t.Rows, []render.Cell{plain(k), plain(v)}) }
	outcome := a.Outcome.Status
	if len(a.Outcome.Reasons) > 0 {
		outcome += " (" + strings.Join(a.Outcome.Reasons, ", ") + ")"
	} else if a.Outcome.Subtype != "" {
		outcome += " (" + a.Outcome.Subtype + ")"
	}
	add("cli", strings.TrimSpace(a.CLI.Name+" "+a.CLI.Version))
	add("outcome", outcome)
	add("turns", strconv.FormatInt(a.Turns.Count, 10)+" ("+a.Turns.Meaning+")")
	elapsed := render.Millis(a.Times.ElapsedMs)
	if !a.Times.Dated {
		elapsed += " (no record is dated: from the stream's durations)"
	}
	add("elapsed", elapsed)
	if a.Times.ReportedMs != nil {
		add("reported duration", render.Millis(*a.Times.ReportedMs))
	}
	if a.Cost != nil {
		add("cost", fmt.Sprintf("$%.4f (%s)", a.Cost.USD, a.Cost.Source))
	} else {
		add("cost", "unknown: "+a.CostNote)
	}
	add("model calls", strconv.Itoa(a.Tokens.Calls))
	add("total_tokens", strconv.FormatInt(a.Tokens.TotalTokens, 10))
	add("tool calls", strconv.Itoa(a.ToolCalls.Calls)+" ("+strconv.Itoa(a.ToolCalls.Failures)+" failed)")
	troubles := strconv.Itoa(a.Troubles.Count)
	if len(a.Troubles.ByKind) > 0 {
		kinds := make([]string, 0, len(a.Troubles.ByKind))
		for k, n := range a.Troubles.ByKind {
			kinds = append(kinds, k+" "+strconv.Itoa(n))
		}
		sort.Strings(kinds)
		troubles += " (" + strings.Join(kinds, ", ") + ")"
	}
	add("troubles", troubles)
	return t
}

// accountAgents is each agent's tokens by model, a row per (agent,
// model); an agent whose calls the input does not carry has one row
// without figures.
func accountAgents(a stream.Account) *render.Table {
	t := &render.Table{Columns: columns([]string{"Agent", "Model", "Calls", "input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "total_tokens", "task_reported_tokens"}, 2, 3, 4, 5, 6, 7, 8)}
	for _, ag := range a.Agents {
		task := plain("")
		if ag.TaskReportedTokens != nil {
			task = num(*ag.TaskReportedTokens)
		}
		id := code(strings.Repeat("  ", max(ag.Depth-1, 0)) + ag.ID)
		if ag.Tokens == nil {
			t.Rows = append(t.Rows, []render.Cell{id, prose("not in the input"), plain(""), plain(""), plain(""), plain(""), plain(""), plain(""), task})
			continue
		}
		for _, m := range ag.Models {
			t.Rows = append(t.Rows, []render.Cell{id, plain(m.Model), num(int64(m.Calls)), num(m.InputTokens), outputCell(m.Tokens),
				num(m.CacheCreationInputTokens), num(m.CacheReadInputTokens), num(m.TotalTokens), task})
		}
		if len(ag.Models) == 0 {
			t.Rows = append(t.Rows, []render.Cell{id, plain(""), num(0), num(0), num(0), num(0), num(0), num(0), task})
		}
	}
	return t
}

// outputCell is an output count, marked where a call's is a placeholder.
func outputCell(tk stream.Tokens) render.Cell {
	c := num(tk.OutputTokens)
	if tk.PlaceholderCalls > 0 {
		c.Text += render.PlaceholderMark
	}
	return c
}

// accountTools is the tool calls by tool.
func accountTools(a stream.Account) *render.Table {
	t := &render.Table{Columns: columns([]string{"Tool", "Calls", "Failures", "Time", "Bytes"}, 1, 2, 3, 4)}
	for _, f := range a.ToolCalls.ByTool {
		t.Rows = append(t.Rows, []render.Cell{code(f.Name), num(int64(f.Calls)), num(int64(f.Failures)), plain(render.Millis(f.DurationMs)), num(f.Bytes)})
	}
	return t
}
