package preset

import (
	"strings"

	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// subagents reports the subagent tree: one row per subagent.
var subagents = Preset{
	Name: "subagents", DefaultAgent: "all",
	Summary: "the subagent tree: description, type, status, tokens, tool uses, duration, report",
	Dot:     rowDot(subagentColumns),
	Example: "ccfilter subagents run.jsonl",
	Words:   []string{"agents", "tasks"},
	Needs:   fixed(stream.Needs{NoResultSizes: true}),
	Start: func(c *Config, tr *stream.Tracker) (Run, error) {
		return startReport(c, tr, reportRun{uses: keepsFacts, report: subagentsReport})
	},
}

// agentSubagents are the subagents --agent picks: main, those the main
// agent started; sub and all, every one; an id, that subagent and the
// ones it started, and theirs.
func agentSubagents(b *base, subs []*stream.Subagent) []*stream.Subagent {
	switch b.c.Agent {
	case "", "all", "sub":
		return subs
	}
	by := make(map[string]*stream.Subagent, len(subs))
	for _, s := range subs {
		by[s.ToolUseID] = s
	}
	var out []*stream.Subagent
	for _, s := range subs {
		if b.c.Agent == stream.MainAgent {
			if s.Parent == "" {
				out = append(out, s)
			}
			continue
		}
		// s or one of its ancestors is the one named (depth bounds the
		// walk: a cycle of parents cannot loop it).
		for a, n := s, 0; a != nil && n <= len(subs); a, n = by[a.Parent], n+1 {
			if b.c.Agent.Match(a.ToolUseID, a) {
				out = append(out, s)
				break
			}
		}
	}
	b.matched = len(out) > 0
	b.unmatchedAgent()
	return out
}

func subagentsReport(b *base) (*render.Report, error) {
	// The figures are the account's (stream.Account): total_tokens the
	// sum over the subagent's own calls, the CLI's task figure apart.
	acc := map[string]stream.AgentAccount{}
	for _, a := range b.tr.Account().Agents {
		acc[a.ToolUseID] = a
	}
	row := func(s *stream.Subagent) []any { return subagentRow(s, acc[s.ToolUseID]) }
	subs, rows, err := rowsWhere(b, agentSubagents(b, b.tr.Subagents()), subagentColumns, row)
	if err != nil {
		return nil, err
	}
	cols := columns([]string{"Subagent", "Type", "Description", "Status", "Background", "Tool calls", "Tokens", "Task tokens", "Duration"}, 5, 6, 7, 8)
	cols[4].Short = "bg"
	table := &render.Table{Columns: cols}
	// People read the table as the tree (stream.TreeOrder); the rows keep the
	// order the subagents started in, with parent and depth.
	for _, s := range stream.TreeOrder(subs) {
		a := acc[s.ToolUseID]
		tokens := plain("not in the input")
		if a.Tokens != nil {
			tokens = num(a.Tokens.TotalTokens)
		}
		task := plain("")
		if a.TaskReportedTokens != nil {
			task = num(*a.TaskReportedTokens)
		}
		table.Rows = append(table.Rows, []render.Cell{code(treeIndent(s.Depth) + s.Label()), plain(s.Type), prose(s.Description), plain(s.Status), plain(yesNo(s.Background)),
			num(int64(a.ToolCalls)), tokens, task, plain(render.Millis(s.Usage.DurationMs))})
	}
	return &render.Report{Title: "Subagents", Blocks: []render.Block{{Table: table}}, Rows: rows}, nil
}

// subagentColumns are a subagent row's: what CSV, NDJSON, JSON and --where
// see. The token counts and total_tokens (their sum) are the subagent's
// own model calls' in the input, each call once, null when the input has
// none of them (a stream does not forward a nested subagent's);
// task_reported_tokens, tool_uses and duration_ms are what the CLI reports
// at the subagent's end (its task's own figures).
var subagentColumns = []string{"tool_use_id", "parent_tool_use_id", "depth", "agent_id", "type", "description", "background", "status",
	"tool_calls", "total_tokens", "task_reported_tokens", "tool_uses", "duration_ms", "input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
	"report", "start_line", "end_line", "start", "end"}

// subagentRow is a subagent's values, one per subagentColumns, its figures
// from its account.
func subagentRow(s *stream.Subagent, a stream.AgentAccount) []any {
	var total, in, out, cw, cr, task any
	if t := a.Tokens; t != nil {
		total, in, out, cw, cr = t.TotalTokens, t.InputTokens, t.OutputTokens, t.CacheCreationInputTokens, t.CacheReadInputTokens
	}
	if a.TaskReportedTokens != nil {
		task = *a.TaskReportedTokens
	}
	return []any{s.ToolUseID, s.Parent, s.Depth, s.AgentID, s.Type, s.Description, s.Background, s.Status,
		a.ToolCalls, total, task, s.Usage.ToolUses, s.Usage.DurationMs, in, out,
		cw, cr, s.Report, s.StartLine, s.EndLine, s.Start, s.End}
}

// treeIndent is the indent of a subagent's row in the text table: two
// spaces per level below the main agent's subagents.
func treeIndent(depth int) string {
	if depth <= 1 {
		return ""
	}
	return strings.Repeat("  ", depth-1)
}
