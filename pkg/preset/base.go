package preset

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ccfilter/ccfilter/pkg/filter"
	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// base is what every run that prints through a renderer shares: the
// renderer, the tracker, --agent and --where, and runtime errors.
type base struct {
	c  *Config
	tr *stream.Tracker
	r  render.Renderer
	// runtimeErr counts the events an expression or --where failed on;
	// the first is reported, the others are summed up at the end.
	runtimeErr    int
	lastErrorLine int64
	// matched: --agent let an event or a call through.
	matched bool
}

// newBase opens the renderer; calls says the output is tool-call records
// (render.Options.ToolCalls), records that it is a record per event or
// call, which the json format writes as one array (render.Options.Array).
func newBase(c *Config, tr *stream.Tracker, calls, records bool) (*base, error) {
	o := c.Render
	o.Tracker, o.ToolCalls, o.Array = tr, calls, records
	r, err := render.New(c.Format, c.Out, o)
	if err != nil {
		return nil, err
	}
	b := bareBase(c, tr)
	b.r = r
	return b, nil
}

// bareBase is a base without a renderer, for a run that writes itself.
func bareBase(c *Config, tr *stream.Tracker) *base {
	b := &base{c: c, tr: tr}
	b.resolveAgents(c.Where)
	return b
}

// resolveAgents has x's agent function name subagents as the tracker
// knows them.
func (b *base) resolveAgents(x *filter.Expr) {
	if x != nil {
		x.SetAgent(func(e *stream.Event) string { return filter.AgentOf(e, b.tr) })
	}
}

func (b *base) Flush() error { return b.r.Flush() }

// agentMatch applies --agent to an event.
func (b *base) agentMatch(ev *stream.Event) bool {
	if b.c.Agent == "" || b.c.Agent == "all" {
		return true
	}
	parent := ev.ParentToolUseID()
	ok := b.c.Agent.Match(parent, b.tr.Subagent(parent))
	b.matched = b.matched || ok
	return ok
}

// agentCallMatch applies --agent to a tool call.
func (b *base) agentCallMatch(c *stream.ToolCall) bool {
	ok := b.c.Agent.Match(c.ParentToolUseID, c.Agent)
	b.matched = b.matched || ok
	return ok
}

// unmatchedAgent warns, at the end of a run that picks by --agent, when
// the subagent it names matched nothing, and names the ones there are: a
// mistyped id otherwise printed nothing and exited 0.
func (b *base) unmatchedAgent() {
	if b.c.Agent.ByKind() || b.matched {
		return
	}
	var ids []string
	for _, s := range b.tr.Subagents() {
		ids = append(ids, s.Label())
	}
	msg := fmt.Sprintf("%s: --agent %s matches no event; the run has no subagent", b.c.Source, b.c.Agent)
	if len(ids) > 0 {
		msg = fmt.Sprintf("%s: --agent %s matches no event; its subagents are %s (main, sub and all also work)", b.c.Source, b.c.Agent, strings.Join(ids, ", "))
	}
	Warn(b.c.Stderr, msg)
}

// openCalls are the calls that never got a result, of the agents --agent
// lets through.
func (b *base) openCalls() []*stream.ToolCall {
	var open []*stream.ToolCall
	for _, c := range b.tr.OpenCalls() {
		if b.agentCallMatch(c) {
			open = append(open, c)
		}
	}
	return open
}

// where runs --where on an event (root nil) or on another value, and says
// whether it was true for any output.
func (b *base) where(ctx context.Context, ev *stream.Event, root any) (bool, error) {
	ok := false
	err := b.c.Where.Run(ctx, ev, root, func(v any, _ bool) error {
		if filter.Truthy(v) {
			ok = true
		}
		return nil
	})
	if err := b.runtime(err); err != nil {
		return false, err
	}
	return ok, nil
}

// rowsWhere makes the rows of a report's items (row gives an item's values,
// one per column) and keeps the items --where is true for, each seen as
// its row's object: the one set of columns CSV, NDJSON and JSON write. All
// of them without --where.
func rowsWhere[T any](b *base, items []T, columns []string, row func(T) []any) ([]T, *render.RowSet, error) {
	all := render.NewRowSet(columns...)
	for _, it := range items {
		all.Add(row(it)...)
	}
	if b.c.Where == nil {
		return items, all, nil
	}
	keep, kept := []T{}, render.NewRowSet(columns...)
	for i, it := range items {
		ok, err := b.where(context.Background(), &stream.Event{Source: b.c.Source}, all.Object(i))
		if err != nil {
			return nil, nil, err
		}
		if ok {
			keep = append(keep, it)
			kept.Add(all.Rows[i]...)
		}
	}
	return keep, kept, nil
}

// runtime reports an expression's runtime error and goes on (ErrStopped
// with --strict); other errors are returned as they are. Only the first
// is printed: an expression that fails on one event usually fails on
// thousands (error, a path into events that lack it), and one message per
// event buried the output. The others are counted, and the run's end says
// how many and where (errorSummary). The run goes on, as jq's does, so
// the events the expression does not fail on are still printed.
func (b *base) runtime(err error) error {
	var re *filter.RuntimeError
	if !errors.As(err, &re) {
		return err
	}
	if b.runtimeErr == 0 {
		Warn(b.c.Stderr, re.Error())
	}
	b.runtimeErr++
	b.lastErrorLine = re.Line
	if b.c.Strict {
		return ErrStopped
	}
	return nil
}

// errorSummary says, at the end, how many runtime errors were not shown.
func (b *base) errorSummary() {
	if n := b.runtimeErr - 1; n > 0 {
		Warn(b.c.Stderr, fmt.Sprintf("%s: %s on later events, the last on line %d (only the first is shown)",
			b.c.Source, render.Plural(int64(n), "more jq error"), b.lastErrorLine))
	}
}

// unfitSummary says which numbers did not fit where the figures keep them
// and were read as missing, so that no figure is silently short.
func (b *base) unfitSummary() {
	nf := b.tr.Unfit()
	if nf.Count == 0 {
		return
	}
	what := "does not fit a 64-bit number"
	if nf.First.Negative {
		what = "is negative, which no count is"
	}
	msg := fmt.Sprintf("%s: line %d: %s %s %s: read as missing",
		b.c.Source, nf.First.Line, nf.First.Field, nf.First.Text, what)
	if nf.Count > 1 {
		msg += fmt.Sprintf(" (%s in all)", render.Plural(nf.Count, "such number"))
	}
	Warn(b.c.Stderr, msg)
}

// droppedSummary says what the tracker left out to stay bounded, so that
// no listing is silently short and no count contradicts another: real runs
// stay far below every bound (a run has tens of open calls at most), the
// hostile and the concatenated inputs do not.
func droppedSummary(c *Config, tr *stream.Tracker) {
	s, lim := tr.Stats(), tr.Limits()
	if s.EvictedCalls > 0 {
		Warn(c.Stderr, fmt.Sprintf("%s: %s forgotten while waiting for a result (at most %d are kept waiting, the oldest let go first): not listed, nor are results that came for them later",
			c.Source, render.Plural(int64(s.EvictedCalls), "tool call"), lim.MaxOpenCalls))
	}
	if s.EvictedSubagents > 0 {
		Warn(c.Stderr, fmt.Sprintf("%s: %s left out (at most %d are kept, the oldest let go first)",
			c.Source, render.Plural(int64(s.EvictedSubagents), "subagent"), lim.MaxSubagents))
	}
	if s.RecountedMessages > 0 {
		Warn(c.Stderr, fmt.Sprintf("%s: %s came back after being counted (at most %d calls are followed at once): probably counted twice in usage",
			c.Source, render.Plural(int64(s.RecountedMessages), "model call"), lim.MaxOpenMessages))
	}
}

// Warn writes one message line, as ccfilter writes all of its own on
// stderr: "ccfilter: <msg>" (a message that is empty once its trailing
// newlines are cut is not written). The command and the runs share it.
func Warn(w io.Writer, msg string) {
	if msg = strings.TrimRight(msg, "\n"); msg != "" {
		fmt.Fprintf(w, "ccfilter: %s\n", msg)
	}
}

// status is how a preset's run ended: a runtime error of --where first
// (summed up on stderr), then with -e the stream's outcome.
func (b *base) status() Status {
	b.errorSummary()
	b.unfitSummary()
	droppedSummary(b.c, b.tr)
	if b.runtimeErr > 0 {
		return BadInput
	}
	return outcomeStatus(b.c, b.tr.Outcome())
}

// outcomeStatus is the stream's outcome as a status with -e; OK without.
func outcomeStatus(c *Config, out stream.Outcome) Status {
	if !c.ExitStatus {
		return OK
	}
	return statusOf(out)
}

func statusOf(out stream.Outcome) Status {
	switch out.Status {
	case stream.Failed:
		return Failed
	case stream.NoResult:
		return NoResult
	}
	return OK
}

// keepsFacts reports whether an event carries facts a report keeps beyond
// the ids, flags, sizes and usage the tracker reads: tool inputs, the
// init, the result. A run validates these in full.
func keepsFacts(ev *stream.Event) bool {
	return ev.Kind == stream.KindToolUse || ev.Kind == stream.KindInit || ev.Kind == stream.KindResult
}

// keepsOutcome reports whether an event carries what a tracker following
// the outcome keeps: the result, the assistant's text (the final answer's
// fallback).
// outcomeKinds are the kinds of events a run that shows only the outcome
// reads (stream.Needs.Kinds): the tracker at FollowOutcome reads the
// texts and results, and every assistant event (a later call clears an
// API error from the outcome); the init names the agent CLI. The unknown
// are kept for the warnings that count them.
var outcomeKinds = stream.KindsOf(stream.KindInit, stream.KindText, stream.KindThinking, stream.KindToolUse,
	stream.KindAPIError, stream.KindResult, stream.KindUnknown)

func keepsOutcome(ev *stream.Event) bool {
	return ev.Kind == stream.KindResult || ev.Kind == stream.KindText
}

// validateUsed validates in full an event the run uses; with --where,
// which runs on it, building its tree on the way.
func validateUsed(c *Config, ev *stream.Event) error {
	if c.Where != nil {
		return ev.ValidateValue()
	}
	return ev.Validate()
}

// validateIf validates ev in full when used says the run uses it.
func validateIf(used bool, ev *stream.Event) error {
	if !used {
		return nil
	}
	return ev.Validate()
}

// plainWriter is the buffered writer of the runs that print stream text
// themselves (final, text as text) rather than through a renderer.
func plainWriter(c *Config) *bufio.Writer { return bufio.NewWriterSize(c.Out, 64<<10) }

// fixed returns a Needs function for a preset whose needs do not depend on
// the configuration.
func fixed(n stream.Needs) func(*Config) stream.Needs {
	return func(*Config) stream.Needs { return n }
}

// eventBytes says the format writes each event as its own bytes (NDJSON,
// JSON), with no tool result size in sight.
func eventBytes(c *Config) bool { return c.Format == render.NDJSON || c.Format == render.JSON }
