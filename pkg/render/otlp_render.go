package render

import (
	"errors"
	"io"
	"time"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// otlpRenderer writes a run as OpenTelemetry traces (otlp.go): OTLP/JSON,
// one ExportTraceServiceRequest per line (the OTLP file format the
// Collector's file receiver reads), or each request handed to
// Options.Spans (an OTLP exporter) instead.
type otlpRenderer struct {
	out
	o Options
	describer
	run  *otlpRun
	json []byte         // the last batch's encoding: the next one's buffer
	uses []stream.Block // the tool calls of the event laid out
}

func newOTLP(w io.Writer, o Options) *otlpRenderer {
	return &otlpRenderer{out: newOut(w), o: o, describer: newDescriber("", 0, o), run: newOTLPRun(o)}
}

// errOTLPEvents: the trace format lays out a run's events, and the
// metrics of a grouped report (Report.Metrics); a preset's other reports
// or an expression's values are neither.
var errOTLPEvents = errors.New("render: the otlp format writes a run's events as a trace (the all preset), or usage --by's metrics")

func (t *otlpRenderer) Render(rec Record) error {
	ev := rec.Event
	if ev == nil {
		return nil // a call-only record: its call's span is made from its events
	}
	r := t.run
	at := r.at(ev)
	r.ev, r.keysRead = ev, false
	r.begin(ev, at)
	agent := ev.ParentToolUseID()
	if p := ev.PromptID(); p != "" {
		r.prompt = p // the user's prompt: the calls that follow answer it
	}
	// Described first: an assistant event's head (its message id and
	// model, which the model call below needs) is read once, by the
	// description's reading of the message.
	var parts []Part
	switch {
	case otlpIgnores[ev.Kind]:
	case otlpCalls[ev.Kind]:
		parts = t.calls(ev, agent)
	case ev.Kind == stream.KindToolResult:
		parts = t.results(ev, rec.Calls)
	case ev.Kind == stream.KindTask:
		r.task(ev, at) // (its one effect: a background subagent's end)
	case ev.Kind == stream.KindResult:
		// The result's outcome alone: its figures the result event takes
		// (outcome), not its usage (the root's tokens are the account's)
		// nor the label, cost and echo the description adds for others.
		res := ev.ResultHead()
		t.parts = append(t.parts[:0], Part{Form: FormOutcome, Outcome: &res})
		parts = t.parts
	case ev.Kind == stream.KindInit:
		// The run's facts, not its lists of tools and commands.
		in := ev.InitHead()
		t.parts = append(t.parts[:0], Part{Form: FormInit, Init: &in})
		parts = t.parts
	default:
		parts = t.describe(ev, rec.Calls)
	}
	// A model call ends at its last block: when the agent's next call
	// starts (its tool results may come between its blocks), or the run or
	// the subagent ends.
	switch {
	case ev.Type == "assistant":
		r.chat(ev, agent, at)
	case ev.Kind == stream.KindDelta:
		r.partial(ev, agent, at)
	}
	for i := range parts {
		t.part(ev, &parts[i], at)
	}
	if len(r.lastAt) < otlpMaxOpen || agent == "" {
		r.lastAt[agent] = at
	}
	if len(r.ended) >= otlpBatch && !r.held() {
		return t.export()
	}
	return t.err
}

// otlpIgnores are the kinds whose parts the trace lays out nothing of
// (part: none is an init, a call, a tool result, an outcome, nor a
// notice's kind): they are not described, which for prompts, deltas and
// progress was most of the description's work (issue 41). What the trace
// takes from them it reads before (a delta's model call, a prompt's id).
var otlpIgnores = [len(stream.Kinds)]bool{stream.KindPrompt: true, stream.KindSubagentPrompt: true,
	stream.KindSynthetic: true, stream.KindDelta: true, stream.KindProgress: true, stream.KindInfo: true, stream.KindRecord: true}

// otlpCalls are the assistant's kinds: of their parts the trace lays out
// the calls alone (a model call's span is read off the event's head), so
// only the tool-use blocks are read, not the text and thinking the
// description decodes (issue 41: a tenth of the format's instructions
// on real captures). An API error's event has no call.
var otlpCalls = [len(stream.Kinds)]bool{stream.KindText: true, stream.KindThinking: true, stream.KindToolUse: true, stream.KindAPIError: true}

// calls are the call parts of an assistant event (otlpCalls); the slice
// is the describer's, reused by the next event.
func (t *otlpRenderer) calls(ev *stream.Event, agent string) []Part {
	t.parts = t.parts[:0]
	if ev.Kind == stream.KindAPIError {
		return nil
	}
	clear(t.uses) // (the last event's, not kept alive by the slice)
	t.uses = ev.AppendToolUses(t.uses[:0])
	for i := range t.uses {
		t.parts = append(t.parts, callPart(AgentRef{ID: agent}, &t.uses[i]))
	}
	return t.parts
}

// results are the result parts of a tool result event, the results as
// the tracker read them: not the edit's patch, the call's target, the
// text shown that the description adds for other formats (the result's
// text is read when the trace needs it: an error's, a launch's start).
func (t *otlpRenderer) results(ev *stream.Event, calls []*stream.ToolCall) []Part {
	t.parts = t.parts[:0]
	res := ev.ToolResults()
	for i := range res {
		t.parts = append(t.parts, Part{Form: FormToolResult, Result: &res[i], Call: findCall(calls, res[i].ToolUseID)})
	}
	return t.parts
}

func (t *otlpRenderer) part(ev *stream.Event, p *Part, at time.Time) {
	r := t.run
	switch p.Form {
	case FormInit:
		r.init(p.Init)
	case FormCall:
		r.call(ev, p, at)
	case FormToolResult:
		r.toolResult(ev, p, at)
	case FormOutcome:
		r.outcome(p.Outcome, at)
	case FormLine, FormFold:
		r.notice(ev, p, at)
	}
}

// export writes the ended spans as one request, encoded straight from
// their records into the buffer of the request before (a batch is about a
// hundred kilobytes, grown from nothing every time it was half the
// format's allocations); the records are then reused.
func (t *otlpRenderer) export() error {
	if len(t.run.ended) == 0 || t.run.held() || t.err != nil {
		return t.err
	}
	batch := OTLPBatch{run: t.run, spans: t.run.ended}
	defer t.run.exported()
	if t.o.Spans != nil {
		t.err = t.o.Spans(&batch)
		return t.err
	}
	b, err := batch.AppendJSON(t.json[:0])
	if err != nil {
		t.err = err
		return err
	}
	t.json = append(b, '\n')
	t.raw(t.json)
	return t.err
}

func (t *otlpRenderer) Value(any) error { return errOTLPEvents }

// Flush exports the spans that ended (on a live pipe: as the run goes).
func (t *otlpRenderer) Flush() error {
	if err := t.export(); err != nil {
		return err
	}
	return t.out.Flush()
}

func (t *otlpRenderer) Close([]*stream.ToolCall) error {
	t.run.finish()
	if err := t.export(); err != nil {
		return err
	}
	return t.out.Flush()
}
