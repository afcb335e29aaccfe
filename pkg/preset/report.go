package preset

import (
	"context"
	"strconv"
	"strings"

	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// reportRun is the run of a preset that prints one report at the end
// (types, usage, subagents, init).
type reportRun struct {
	*base
	uses   func(*stream.Event) bool // the events it validates in full
	keep   func(*stream.Event)      // keeps what it reports from an event (nil: nothing)
	report func(*base) (*render.Report, error)
}

// startReport starts a report preset's run r.
func startReport(c *Config, tr *stream.Tracker, r reportRun) (Run, error) {
	b, err := newBase(c, tr, false, false)
	if err != nil {
		return nil, err
	}
	r.base = b
	return &r, nil
}

// rowDot is what --where's . is for a report of these columns (the
// preset's Dot): a row, as JSON writes it.
func rowDot(columns []string) string { return "a row: {" + strings.Join(columns, ", ") + "}" }

// agentNeeds is a report preset's needs, n, unless --agent names a
// subagent: whose each event, call or row is then takes the subagent tree
// (and a report that shows no final answer or tool tally still needs
// none).
func agentNeeds(n stream.Needs) func(c *Config) stream.Needs {
	return func(c *Config) stream.Needs {
		if c.Agent.ByKind() {
			return n
		}
		return stream.Needs{NoResultSizes: true, NoFinalText: n.NoFinalText, NoToolTally: n.NoToolTally}
	}
}

// Reporter is what a preset that prints one report at the end supplies;
// StartReport runs it. It is the way to write a preset outside this
// package: a Preset whose Start calls StartReport.
type Reporter struct {
	// Uses picks the events validated in full before Keep sees them (nil:
	// none; the others are checked for framing only).
	Uses func(*stream.Event) bool
	// Keep sees each event, after the tracker (nil: none).
	Keep func(*stream.Event)
	// Report makes the report at the end, from what Keep kept and the
	// tracker.
	Report func(tr *stream.Tracker) (*render.Report, error)
}

// StartReport starts a run that prints rep's report at the end, in the
// configured format; with -e its status follows the stream's outcome.
func StartReport(c *Config, tr *stream.Tracker, rep Reporter) (Run, error) {
	uses := rep.Uses
	if uses == nil {
		uses = func(*stream.Event) bool { return false }
	}
	return startReport(c, tr, reportRun{uses: uses, keep: rep.Keep, report: func(b *base) (*render.Report, error) { return rep.Report(b.tr) }})
}

func (r *reportRun) Prepare(ev *stream.Event) error { return validateIf(r.uses(ev), ev) }

func (r *reportRun) Event(_ context.Context, ev *stream.Event, _ []*stream.ToolCall) error {
	if r.keep != nil {
		r.keep(ev)
	}
	return nil
}

func (r *reportRun) Finish(end End) (Status, error) {
	if end.Refused {
		return r.status(), nil // (no report of what is no run: End.Refused)
	}
	rep, err := r.report(r.base)
	if err != nil {
		return 0, err
	}
	if err := r.r.Summary(rep); err != nil {
		return 0, err
	}
	if err := r.r.Close(nil); err != nil {
		return 0, err
	}
	return r.status(), nil
}

// Cells of the reports' tables.
func plain(s string) render.Cell { return render.Cell{Text: s} }
func code(s string) render.Cell  { return render.Cell{Text: s, Style: render.Code} }
func num(n int64) render.Cell {
	return render.Cell{Text: strconv.FormatInt(n, 10), Style: render.Number}
}
func strong(s string) render.Cell { return render.Cell{Text: s, Style: render.Strong} }
func prose(s string) render.Cell  { return render.Cell{Text: s, Style: render.Prose} }

// yesNo is a flag as people read it.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// columns makes columns from names; the ones listed in right are
// right-aligned.
func columns(names []string, right ...int) []render.Column {
	cols := make([]render.Column, len(names))
	for i, n := range names {
		cols[i].Name = n
	}
	for _, i := range right {
		cols[i].Right = true
	}
	return cols
}
