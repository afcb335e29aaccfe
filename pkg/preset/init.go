package preset

import (
	"fmt"
	"strings"

	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// maxInits bounds the inits kept (a run has one; concatenated streams a
// few).
const maxInits = 1000

// initPreset reports the session facts of each init event.
var initPreset = Preset{
	Name: "init", DefaultAgent: "all",
	NoAgent: "the init is the run's, which the main agent starts (the subagents preset describes each subagent)",
	Summary: "session facts: model, version, cwd, permission mode, tools, agents",
	Dot:     rowDot(initColumns),
	Example: "ccfilter init run.jsonl",
	Words:   []string{"setup", "config", "mcp"},
	// The inits are the preset's own; the tracker gives the outcome.
	Needs: fixed(stream.Needs{Follow: stream.FollowOutcome, NoOwners: true}),
	Start: func(c *Config, tr *stream.Tracker) (Run, error) {
		inits := []stream.Init{} // JSON: [] when there is none, not null
		left := 0
		return startReport(c, tr, reportRun{
			uses: keepsFacts,
			keep: func(ev *stream.Event) {
				switch {
				case ev.Kind != stream.KindInit:
				case len(inits) < maxInits:
					inits = append(inits, ev.Init())
				default:
					left++
				}
			},
			report: func(b *base) (*render.Report, error) {
				if left > 0 {
					Warn(c.Stderr, fmt.Sprintf("%s: %s after the first %d left out", c.Source, render.Plural(int64(left), "init"), maxInits))
				}
				return initReport(b, inits)
			},
		})
	},
}

func initReport(b *base, inits []stream.Init) (*render.Report, error) {
	inits, rows, err := rowsWhere(b, inits, initColumns, func(in stream.Init) []any {
		return []any{in.Model, in.Version, in.CWD, in.PermissionMode, in.SessionID, in.APIKeySource, in.OutputStyle,
			in.Tools, in.Agents, in.Skills, in.MCPServers, in.SlashCommands}
	})
	if err != nil {
		return nil, err
	}
	table := &render.Table{Columns: columns([]string{"Model", "Version", "Working directory", "Permission mode", "Session", "Tools", "MCP servers"}, 5)}
	var blocks []render.Block
	for _, in := range inits {
		tools, toolCell := render.Plural(int64(len(in.Tools)), "tool")+": "+strings.Join(in.Tools, " "), num(int64(len(in.Tools)))
		if in.Synthetic && len(in.Tools) == 0 {
			tools, toolCell = "tools not recorded (a session transcript does not list them)", plain("not recorded")
		}
		e := &render.Entry{
			Title:   strings.Join([]string{in.Model, "claude-code " + in.Version, in.CWD, in.PermissionMode}, " · "),
			Details: []string{"session " + in.SessionID, tools},
		}
		if len(in.MCPServers) > 0 {
			e.Details = append(e.Details, "mcp: "+strings.Join(in.MCPServers, ", "))
		}
		blocks = append(blocks, render.Block{Only: render.Text, Entry: e})
		table.Rows = append(table.Rows, []render.Cell{plain(in.Model), plain(in.Version), code(in.CWD), plain(in.PermissionMode), code(in.SessionID),
			toolCell, plain(strings.Join(in.MCPServers, ", "))})
	}
	blocks = append(blocks, render.Block{Only: render.Markdown, Table: table})
	return &render.Report{Title: "Init", Blocks: blocks, Rows: rows}, nil
}

// initColumns are an init row's: what CSV, NDJSON and JSON write (lists
// are JSON arrays; CSV joins them with spaces).
var initColumns = []string{"model", "claude_code_version", "cwd", "permission_mode", "session_id", "api_key_source", "output_style",
	"tools", "agents", "skills", "mcp_servers", "slash_commands"}
