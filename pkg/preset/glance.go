package preset

import (
	"io"

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
			g.AddTrouble(render.GlanceItem{Source: ev.Source, Line: ev.Line, Agent: filter.AgentOf(ev, tr), Text: render.TroubleLine(ev, done, tr.Outcome().APIError)})
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
