package preset

import (
	"strconv"

	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// subagents reports the subagent tree: one row per subagent.
var subagents = Preset{
	Name: "subagents", DefaultAgent: "all",
	Summary: "the subagent tree: description, type, status, tokens, tool uses, duration, report",
	Dot:     "a subagent row: {tool_use_id, agent_id, description, type, status, background, tokens, tool_uses, duration_ms, report}",
	Example: "ccfilter subagents run.jsonl",
	Needs:   fixed(stream.Needs{NoResultSizes: true}),
	Start: func(c *Config, tr *stream.Tracker) (Run, error) {
		return startReport(c, tr, reportRun{uses: keepsFacts, report: subagentsReport})
	},
}

func subagentsReport(b *base) (*render.Report, error) {
	subs, err := whereRows(b, b.tr.Subagents(), subagentObject)
	if err != nil {
		return nil, err
	}
	cols := columns([]string{"Subagent", "Type", "Description", "Status", "Background", "Tool calls", "Tokens", "Duration"}, 5, 6, 7)
	cols[4].Short = "bg"
	table := &render.Table{Columns: cols}
	rows := render.Table{Columns: columns([]string{"tool_use_id", "agent_id", "type", "description", "background", "status", "tool_calls", "total_tokens", "tool_uses", "duration_ms", "start_line", "end_line"})}
	data := make([]subagentJSON, 0, len(subs))
	for _, a := range subs {
		table.Rows = append(table.Rows, []render.Cell{code(a.Label()), plain(a.Type), prose(a.Description), plain(a.Status), plain(yesNo(a.Background)),
			num(int64(a.ToolCalls)), num(a.Usage.TotalTokens), plain(render.Millis(a.Usage.DurationMs))})
		rows.Rows = append(rows.Rows, []render.Cell{plain(a.ToolUseID), plain(a.AgentID), plain(a.Type), plain(a.Description), plain(strconv.FormatBool(a.Background)), plain(a.Status),
			num(int64(a.ToolCalls)), num(a.Usage.TotalTokens), num(a.Usage.ToolUses), num(a.Usage.DurationMs), num(a.StartLine), num(a.EndLine)})
		data = append(data, subagentJSON{a.ToolUseID, a.AgentID, a.Type, a.Description, a.Background,
			a.Status, a.ToolCalls, a.Usage, a.Tokens, a.Report, a.StartLine, a.EndLine, a.Start, a.End})
	}
	return &render.Report{Title: "Subagents", Blocks: []render.Block{{Table: table}}, Rows: rows, Data: data}, nil
}

// subagentObject is a subagent row for --where (the preset's Dot).
func subagentObject(sa *stream.Subagent) map[string]any {
	return map[string]any{
		"tool_use_id": sa.ToolUseID, "agent_id": sa.AgentID, "description": sa.Description, "type": sa.Type,
		"status": sa.Status, "background": sa.Background, "tokens": int(sa.Usage.TotalTokens),
		"tool_uses": int(sa.Usage.ToolUses), "duration_ms": int(sa.Usage.DurationMs), "report": sa.Report,
	}
}

// subagentJSON is a subagent as NDJSON and JSON write it.
type subagentJSON struct {
	ToolUseID   string           `json:"tool_use_id"`
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
