package preset

import (
	"context"

	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// eventsRun is the run of a preset that renders the events it picks as
// they arrive (all, errors, text in any format but text).
type eventsRun struct {
	*base
	pick func(*stream.Event) bool
	// openCalls: Close lists the calls that never got a result.
	openCalls bool
	// finish, when set, writes what the preset adds at the end.
	finish func(r *eventsRun, end End) error
}

// eventsNeeds is what a run that prints events needs. Written as their
// own bytes (NDJSON, JSON), events need nothing of the tracker but the
// outcome (for -e and errors' missing result), unless --agent names a
// subagent, which only the subagent tree knows; the other formats show
// tool calls, results and subagents from the whole tracker. The trace
// (otlp) shows no result's size, no final answer and no tool tally: its
// spans pair the calls (rec.Calls) and take the account's tokens and cost,
// and measuring every result's text, keeping the main agent's last text
// and walking every message's blocks for the tally were a tenth of its
// tracker's work (issue 41).
func eventsNeeds(c *Config) stream.Needs {
	switch {
	case c.Format == render.OTLP:
		return stream.Needs{NoResultSizes: true, NoFinalText: true, NoToolTally: true}
	case !eventBytes(c):
		return stream.Needs{}
	case c.Agent.ByKind():
		// Whose an event is matters only to pick main or sub events, and
		// to --where's agent functions.
		return stream.Needs{Follow: stream.FollowOutcome, NoOwners: (c.Agent == "" || c.Agent == "all") && c.Where == nil}
	}
	return stream.Needs{NoResultSizes: true}
}

// startEvents starts an eventsRun.
func startEvents(c *Config, tr *stream.Tracker, pick func(*stream.Event) bool) (*eventsRun, error) {
	b, err := newBase(c, tr, false, true)
	if err != nil {
		return nil, err
	}
	return &eventsRun{base: b, pick: pick}, nil
}

// Prepare validates the events the run prints and those the tracker keeps
// facts from; with --where, it builds their trees on the way (--where
// runs on each of them).
func (r *eventsRun) Prepare(ev *stream.Event) error {
	if !keepsFacts(ev) && !r.pick(ev) {
		return nil
	}
	return validateUsed(r.c, ev)
}

func (r *eventsRun) Event(ctx context.Context, ev *stream.Event, done []*stream.ToolCall) error {
	if ok, err := r.picks(ctx, ev); !ok {
		return err
	}
	return r.r.Render(render.Record{Event: ev, Calls: done})
}

// picks says whether the run shows ev: its predicate, --agent, --where.
func (r *eventsRun) picks(ctx context.Context, ev *stream.Event) (bool, error) {
	if !r.pick(ev) || !r.agentMatch(ev) {
		return false, nil
	}
	if r.c.Where != nil {
		return r.where(ctx, ev, nil)
	}
	return true, nil
}

func (r *eventsRun) Finish(end End) (Status, error) {
	if r.finish != nil {
		if err := r.finish(r, end); err != nil {
			return 0, err
		}
	}
	var open []*stream.ToolCall
	if r.openCalls {
		open = r.base.openCalls()
	}
	if err := r.r.Close(open); err != nil {
		return 0, err
	}
	r.unmatchedAgent()
	return r.status(), nil
}
