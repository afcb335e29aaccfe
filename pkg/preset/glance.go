package preset

import (
	"io"
	"strconv"

	"github.com/ccfilter/ccfilter/pkg/filter"
	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/spend"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// ScanGlance reads a whole input ahead of its report and returns the run
// in brief (render.Glance): outcome, cost, tokens, counts, and the events
// that signal trouble (filter.IsTrouble, the errors preset's rule) with
// their lines. Its memory is a tracker's and the first
// render.MaxGlanceTrouble troubles; malformed lines are passed over (the
// report's own pass reports them).
//
// agent is the report's --agent: only the troubles of the events the
// report shows are listed, each a link to its place in it.
func ScanGlance(events stream.Reader, agent filter.Agent) (*render.Glance, error) {
	// (priced as the report's own tracker is, so that the glance's cost is
	// the account's)
	tr := stream.NewTracker(stream.TrackerOptions{Prices: spend.Prices})
	g := &render.Glance{}
	for {
		ev, err := events.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if stream.IsLineError(err) {
				continue
			}
			return nil, err
		}
		done := tr.Observe(ev)
		if p := ev.ParentToolUseID(); filter.IsTrouble(ev) && agent.Match(p, tr.Subagent(p)) {
			g.AddTrouble(render.GlanceItem{Source: ev.Source, Line: ev.Line, Agent: filter.AgentOf(ev, tr), Text: troubleText(ev, done, tr)})
		}
	}
	out := tr.Outcome()
	g.Result, g.Account, g.APIError = out.Last, tr.Account(), out.APIError
	if g.Account.Troubles.ByKind[stream.TroubleNoResult] > 0 && agent.Match("", nil) {
		// The account's last trouble, the errors preset's last row: no
		// event's, so listed "at the end".
		g.AddTrouble(render.GlanceItem{Text: "no result: " + stream.NoResultSaid})
	}
	return g, nil
}

// troubleText says in a line what the trouble of ev is (tr has observed
// it).
func troubleText(ev *stream.Event, done []*stream.ToolCall, tr *stream.Tracker) string {
	switch ev.Kind {
	case stream.KindToolResult:
		for _, c := range done {
			if c.IsError {
				return "✗ " + c.Name + " " + render.ToolTarget(c.Name, c.Input) + " failed"
			}
		}
		return "✗ a tool call failed"
	case stream.KindRetry:
		r := ev.Retry()
		s := "API retry " + strconv.FormatInt(r.Attempt, 10) + "/" + strconv.FormatInt(r.MaxRetries, 10) + ": " + r.Error
		if r.Status != 0 {
			s += " (" + strconv.FormatInt(r.Status, 10) + ")"
		}
		return s
	case stream.KindPermissionDenied:
		return "permission denied: " + ev.Denial().ToolName
	case stream.KindHook:
		h := ev.Hook()
		s := "hook " + h.Name + " failed"
		if m := oneLine(h.Message); m != "" {
			s += ": " + m
		}
		return s
	case stream.KindAPIError:
		return "API error: " + ev.Assistant().Error + ": " + ev.Text()
	case stream.KindInterrupt:
		return "interrupted: " + ev.Text()
	case stream.KindResult:
		// As the views say it: its reasons, not a "success" subtype.
		return "the run " + render.OutcomeStatus(ev.Result(), tr.Outcome().APIError)
	}
	s := ev.Kind.String()
	if ev.Subtype != "" {
		s += " (" + ev.Subtype + ")"
	}
	return s
}
