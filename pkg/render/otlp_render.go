package render

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"

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
	run *otlpRun
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
	r.begin(ev, at)
	agent := ev.ParentToolUseID()
	if p := ev.JoinKeys().PromptID; p != "" {
		r.prompt = p // the user's prompt: the calls that follow answer it
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
	parts := t.describe(ev, rec.Calls)
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

func (t *otlpRenderer) part(ev *stream.Event, p *Part, at time.Time) {
	r := t.run
	switch p.Form {
	case FormInit:
		r.init(p.Init)
	case FormCall:
		r.call(ev, p, at)
	case FormToolResult:
		r.toolResult(p, launched(ev, p.Result), at)
	case FormOutcome:
		r.outcome(p.Outcome, at)
	case FormLine, FormFold:
		r.notice(ev, p, at)
	}
}

// export writes the ended spans as one request.
func (t *otlpRenderer) export() error {
	if len(t.run.ended) == 0 || t.run.held() || t.err != nil {
		return t.err
	}
	req := &tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{t.run.resourceSpans()}}
	if t.o.Spans != nil {
		t.err = t.o.Spans(req)
		return t.err
	}
	b, err := OTLPJSON(req)
	if err != nil {
		t.err = err
		return err
	}
	t.raw(b)
	t.raw([]byte{'\n'})
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

// OTLPJSON encodes a request as OTLP/JSON on one line: protojson's
// mapping of the protobuf messages (lowerCamelCase names, 64-bit integers
// as strings, enums as numbers), compacted (protojson varies its spacing
// from build to build), with the one difference OTLP/JSON makes: trace
// and span ids are hex, not base64.
func OTLPJSON(req *tracepb.TracesData) ([]byte, error) {
	b, err := protojson.MarshalOptions{UseEnumNumbers: true}.Marshal(req)
	if err != nil {
		return nil, err
	}
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		return nil, err
	}
	return idField.ReplaceAllFunc(c.Bytes(), hexID), nil
}

// idField is an id member of compact JSON. The text cannot occur inside
// a string value, where every quote is escaped.
var idField = regexp.MustCompile(`"(?:traceId|spanId|parentSpanId)":"[A-Za-z0-9+/=]*"`)

// hexID rewrites one id member's base64 value as hex.
func hexID(m []byte) []byte {
	i := bytes.IndexByte(m, ':')
	raw, err := base64.StdEncoding.DecodeString(string(m[i+2 : len(m)-1]))
	if err != nil {
		return m
	}
	out := append([]byte{}, m[:i+2]...)
	out = hex.AppendEncode(out, raw)
	return append(out, '"')
}
