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
	subs, rows, err := rowsWhere(b, agentSubagents(b, b.tr.Subagents()), subagentColumns, subagentRow)
	if err != nil {
		return nil, err
	}
	cols := columns([]string{"Subagent", "Type", "Description", "Status", "Background", "Tool calls", "Tokens", "Duration"}, 5, 6, 7)
	cols[4].Short = "bg"
	table := &render.Table{Columns: cols}
	// People read the table as the tree (stream.TreeOrder); the rows keep the
	// order the subagents started in, with parent and depth.
	for _, a := range stream.TreeOrder(subs) {
		table.Rows = append(table.Rows, []render.Cell{code(treeIndent(a.Depth) + a.Label()), plain(a.Type), prose(a.Description), plain(a.Status), plain(yesNo(a.Background)),
			num(int64(a.ToolCalls)), num(a.Usage.TotalTokens), plain(render.Millis(a.Usage.DurationMs))})
	}
	return &render.Report{Title: "Subagents", Blocks: []render.Block{{Table: table}}, Rows: rows}, nil
}

// subagentColumns are a subagent row's: what CSV, NDJSON, JSON and --where
// see. total_tokens, tool_uses and duration_ms are what the subagent's end
// reports; the four token counts are its own model calls' in the stream
// (each call once).
var subagentColumns = []string{"tool_use_id", "parent_tool_use_id", "depth", "agent_id", "type", "description", "background", "status",
	"tool_calls", "total_tokens", "tool_uses", "duration_ms", "input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
	"report", "start_line", "end_line", "start", "end"}

// subagentRow is a subagent's values, one per subagentColumns.
func subagentRow(a *stream.Subagent) []any {
	return []any{a.ToolUseID, a.Parent, a.Depth, a.AgentID, a.Type, a.Description, a.Background, a.Status,
		a.ToolCalls, a.Usage.TotalTokens, a.Usage.ToolUses, a.Usage.DurationMs, a.Tokens.InputTokens, a.Tokens.OutputTokens,
		a.Tokens.CacheCreationInputTokens, a.Tokens.CacheReadInputTokens, a.Report, a.StartLine, a.EndLine, a.Start, a.End}
}

// treeIndent is the indent of a subagent's row in the text table: two
// spaces per level below the main agent's subagents.
func treeIndent(depth int) string {
	if depth <= 1 {
		return ""
	}
	return strings.Repeat("  ", depth-1)
}
