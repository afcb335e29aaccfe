package preset

import (
	"strconv"
	"strings"

	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// subagents reports the subagent tree: one row per subagent.
var subagents = Preset{
	Name: "subagents", DefaultAgent: "all",
	Summary: "the subagent tree: description, type, status, tokens, tool uses, duration, report",
	Dot:     "a subagent row: {tool_use_id, parent_tool_use_id, depth, agent_id, description, type, status, background, tokens, tool_uses, duration_ms, report}",
	Example: "ccfilter subagents run.jsonl",
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
	subs, err := whereRows(b, agentSubagents(b, b.tr.Subagents()), subagentObject)
	if err != nil {
		return nil, err
	}
	cols := columns([]string{"Subagent", "Type", "Description", "Status", "Background", "Tool calls", "Tokens", "Duration"}, 5, 6, 7)
	cols[4].Short = "bg"
	table := &render.Table{Columns: cols}
	rows := render.Table{Columns: columns([]string{"tool_use_id", "parent_tool_use_id", "depth", "agent_id", "type", "description", "background", "status", "tool_calls", "total_tokens", "tool_uses", "duration_ms", "start_line", "end_line"})}
	data := make([]subagentJSON, 0, len(subs))
	// People read the table as the tree (treeOrder); CSV and JSON keep
	// the order the subagents started in, with parent and depth.
	for _, a := range treeOrder(subs) {
		table.Rows = append(table.Rows, []render.Cell{code(treeIndent(a.Depth) + a.Label()), plain(a.Type), prose(a.Description), plain(a.Status), plain(yesNo(a.Background)),
			num(int64(a.ToolCalls)), num(a.Usage.TotalTokens), plain(render.Millis(a.Usage.DurationMs))})
	}
	for _, a := range subs {
		rows.Rows = append(rows.Rows, []render.Cell{plain(a.ToolUseID), plain(a.Parent), num(int64(a.Depth)), plain(a.AgentID), plain(a.Type), plain(a.Description), plain(strconv.FormatBool(a.Background)), plain(a.Status),
			num(int64(a.ToolCalls)), num(a.Usage.TotalTokens), num(a.Usage.ToolUses), num(a.Usage.DurationMs), num(a.StartLine), num(a.EndLine)})
		data = append(data, subagentJSON{a.ToolUseID, a.Parent, a.Depth, a.AgentID, a.Type, a.Description, a.Background,
			a.Status, a.ToolCalls, a.Usage, a.Tokens, a.Report, a.StartLine, a.EndLine, a.Start, a.End})
	}
	return &render.Report{Title: "Subagents", Blocks: []render.Block{{Table: table}}, Rows: rows, Data: data}, nil
}

// treeOrder puts each subagent's subagents right after it (depth first,
// each level in the order they started), so the table reads as the tree.
// A subagent whose parent is not listed stays where it started.
func treeOrder(subs []*stream.Subagent) []*stream.Subagent {
	listed := make(map[string]bool, len(subs))
	for _, s := range subs {
		listed[s.ToolUseID] = true
	}
	children := map[string][]*stream.Subagent{}
	var roots []*stream.Subagent
	for _, s := range subs {
		if s.Parent != "" && listed[s.Parent] && s.Parent != s.ToolUseID {
			children[s.Parent] = append(children[s.Parent], s)
		} else {
			roots = append(roots, s)
		}
	}
	out := make([]*stream.Subagent, 0, len(subs))
	var walk func(s *stream.Subagent)
	walk = func(s *stream.Subagent) {
		out = append(out, s)
		for _, c := range children[s.ToolUseID] {
			walk(c)
		}
		delete(children, s.ToolUseID) // (each once, even in a cycle)
	}
	for _, r := range roots {
		walk(r)
	}
	if len(out) < len(subs) { // parents that name each other: no root reaches them
		seen := make(map[*stream.Subagent]bool, len(out))
		for _, s := range out {
			seen[s] = true
		}
		for _, s := range subs {
			if !seen[s] {
				out = append(out, s)
			}
		}
	}
	return out
}

// treeIndent is the indent of a subagent's row in the text table: two
// spaces per level below the main agent's subagents.
func treeIndent(depth int) string {
	if depth <= 1 {
		return ""
	}
	return strings.Repeat("  ", depth-1)
}

// subagentObject is a subagent row for --where (the preset's Dot).
func subagentObject(sa *stream.Subagent) map[string]any {
	return map[string]any{
		"tool_use_id": sa.ToolUseID, "parent_tool_use_id": sa.Parent, "depth": sa.Depth, "agent_id": sa.AgentID, "description": sa.Description, "type": sa.Type,
		"status": sa.Status, "background": sa.Background, "tokens": int(sa.Usage.TotalTokens),
		"tool_uses": int(sa.Usage.ToolUses), "duration_ms": int(sa.Usage.DurationMs), "report": sa.Report,
	}
}

// subagentJSON is a subagent as NDJSON and JSON write it.
type subagentJSON struct {
	ToolUseID   string           `json:"tool_use_id"`
	Parent      string           `json:"parent_tool_use_id"` // "" for the main agent's subagents
	Depth       int              `json:"depth"`              // 1 for the main agent's subagents
	AgentID     string           `json:"agent_id"`
	Type        string           `json:"type"`
	Description string           `json:"description"`
	Background  bool             `json:"background"`
	Status      string           `json:"status"`
	ToolCalls   int              `json:"tool_calls"`
	Usage       stream.TaskUsage `json:"usage"`
	Tokens      stream.Usage     `json:"tokens"`
	Report      string           `json:"report"`
	StartLine   int64            `json:"start_line"`
	EndLine     int64            `json:"end_line"`
	Start       string           `json:"start"`
	End         string           `json:"end"`
}
