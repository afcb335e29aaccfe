package preset

import (
	"context"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// tools prints every tool call with its result, as the result arrives;
// the calls that never got one at the end.
var tools = Preset{
	Name: "tools", DefaultAgent: "all",
	Summary: "every tool call with its result: tool, target, ok or error, duration, agent",
	Dot:     "a tool call object: {id, name, input, agent, subagent_type, is_error, result_bytes, duration_ms, line, done}",
	Example: "ccfilter tools --where '.name == \"Bash\"' run.jsonl",
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

func (r *toolsRun) Finish() (Status, error) {
	if err := r.r.Close(r.openCalls()); err != nil {
		return 0, err
	}
	r.unmatchedAgent()
	return r.status(), nil
}

// callObject is the tool-call view for --where (the preset's Dot).
func callObject(c *stream.ToolCall) map[string]any {
	// The input was validated with its line; an absent one decodes as null.
	input := jsonx.Value(c.Input).Decode()
	m := map[string]any{
		"id": c.ID, "name": c.Name, "input": input, "agent": c.AgentLabel(),
		"is_error": c.IsError, "result_bytes": c.ResultBytes, "line": int(c.Line), "done": c.Done,
		"subagent_type": nil, "duration_ms": nil,
	}
	if c.Agent != nil {
		m["subagent_type"] = c.Agent.Type
	}
	if c.HasDuration {
		m["duration_ms"] = int(c.Duration.Milliseconds())
	}
	return m
}
