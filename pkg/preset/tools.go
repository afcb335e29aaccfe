package preset

import (
	"context"

	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// tools prints every tool call with its result, as the result arrives;
// the calls that never got one at the end.
var tools = Preset{
	Name: "tools", DefaultAgent: "all",
	Summary: "every tool call with its result: tool, target, ok or error, duration, agent",
	Dot:     rowDot(render.CSVHeader),
	Example: "ccfilter tools --where '.tool == \"Bash\"' run.jsonl",
	Words:   []string{"calls", "commands"},
	// Every call paired, in every agent; the final answer and the tally's
	// tool counts are not shown (a report's are the account's).
	Needs: fixed(stream.Needs{NoFinalText: true, NoToolTally: true, ValidatesCalls: true}),
	Start: func(c *Config, tr *stream.Tracker) (Run, error) {
		b, err := newBase(c, tr, true, true)
		if err != nil {
			return nil, err
		}
		return &toolsRun{b}, nil
	},
}

type toolsRun struct{ *base }

// Prepare validates what the calls are made of: their inputs (tool_use
// events); --where runs on the call object, not on an event's tree.
func (r *toolsRun) Prepare(ev *stream.Event) error { return validateIf(keepsFacts(ev), ev) }

func (r *toolsRun) Event(ctx context.Context, ev *stream.Event, done []*stream.ToolCall) error {
	var keep []*stream.ToolCall
	for _, c := range done {
		if !r.agentCallMatch(c) {
			continue
		}
		if r.c.Where != nil {
			ok, err := r.where(ctx, ev, callObject(c))
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
		}
		keep = append(keep, c)
	}
	if len(keep) == 0 {
		return nil
	}
	return r.r.Render(render.Record{Calls: keep})
}

func (r *toolsRun) Finish(end End) (Status, error) {
	if err := r.r.Close(r.openCalls()); err != nil {
		return 0, err
	}
	r.unmatchedAgent()
	return r.status(), nil
}

// callObject is a tool call as --where sees it (the preset's Dot): the
// row CSV, NDJSON and JSON write (render.CallRow), its input decoded.
func callObject(c *stream.ToolCall) map[string]any { return render.CallRow(c).Object() }
