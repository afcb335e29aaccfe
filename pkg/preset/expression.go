package preset

import (
	"context"

	"github.com/ccfilter/ccfilter/pkg/filter"
	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// Expression returns the preset-shaped run of a jq expression given as
// FILTER: each event is handed to x; an output that is the event itself
// is rendered as an event, any other as a value. It is not in the
// registry: the command makes one for the expression it compiled.
func Expression(x *filter.Expr) Preset {
	held := 1
	if x.Paths() == nil {
		held = 2 // a line and the whole tree built from it
	}
	return Preset{
		Name: "expression", DefaultAgent: "all", LinesHeld: held,
		Summary: "a jq expression run per event",
		Dot:     "the event object",
		// An output that is the event is rendered as one: the events
		// presets' needs, and whose each event is (agent, is_subagent).
		Needs: func(c *Config) stream.Needs {
			n := eventsNeeds(c)
			n.NoOwners = false
			if x.UsesAgent() {
				// agent names a nested subagent only from the subagent
				// tree, whatever the format.
				n.Follow = stream.FollowAll
			}
			return n
		},
		Start: func(c *Config, tr *stream.Tracker) (Run, error) {
			b, err := newBase(c, tr, false, false)
			if err != nil {
				return nil, err
			}
			b.resolveAgents(x)
			return &exprRun{base: b, x: x}, nil
		},
	}
}

type exprRun struct {
	*base
	x         *filter.Expr
	outputs   int
	lastValue any
}

// Prepare builds the event's tree (cut to the paths x reads), validating
// the line on the way; the events x certainly skips are left alone.
func (r *exprRun) Prepare(ev *stream.Event) error { return r.x.Prepare(ev) }

func (r *exprRun) Event(ctx context.Context, ev *stream.Event, done []*stream.ToolCall) error {
	if !r.agentMatch(ev) {
		return nil
	}
	err := r.x.Run(ctx, ev, nil, func(v any, isEvent bool) error {
		r.outputs++
		r.lastValue = v
		if isEvent {
			return r.r.Render(render.Record{Event: ev, Calls: done})
		}
		return r.r.Value(v)
	})
	return r.runtime(err)
}

// Finish: with -e, the status follows jq's: no output, or a last output
// false or null, is a failure.
func (r *exprRun) Finish(end End) (Status, error) {
	if err := r.r.Close(nil); err != nil {
		return 0, err
	}
	r.errorSummary()
	r.unmatchedAgent()
	switch {
	case r.runtimeErr > 0:
		return BadInput, nil
	case !r.c.ExitStatus:
		return OK, nil
	case r.outputs == 0:
		return NoResult, nil
	case !filter.Truthy(r.lastValue):
		return Failed, nil
	}
	return OK, nil
}
