// Package render turns the events a filter selected into output: terminal
// text, a markdown report, NDJSON, a CSV of tool calls, or JSON.
//
// Every renderer streams: it writes each record as it arrives and keeps only
// bounded state, so it works on a live pipe and on endless input. A renderer
// owns its writer; the caller calls Flush when output should become visible
// (after each event on a live stream) and Close once at the end.
//
// The formats:
//
//   - text: one line per tool call, result, notice and state change,
//     assistant text as is, subagent events indented under the call that
//     started them; every stream string sanitized (see Sanitize) and
//     one-line summaries cut to Options.Width columns.
//   - markdown: a report for GitHub: the run at a glance first when the
//     command read it ahead (Options.Glance), a section per turn and per subagent,
//     tool inputs and results in fences (results folded in <details>),
//     errors called out, the result, and a closing summary table. Stream
//     text can never open or close a block of it.
//   - ndjson: the selected events byte for byte; call records, values and
//     summaries as compact JSON lines.
//   - csv: a row per tool call (CSVHeader), guarded against formula
//     injection.
//   - json: pretty JSON documents, events re-indented from their raw bytes.
package render

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// Format names an output format.
type Format string

// The formats.
const (
	Text     Format = "text"
	Markdown Format = "markdown"
	NDJSON   Format = "ndjson"
	CSV      Format = "csv"
	JSON     Format = "json"
	HTML     Format = "html"
	// OTLP: the run as OpenTelemetry traces (OTLP/JSON); printed by the
	// presets that list it (RunOnly).
	OTLP Format = "otlp"
)

// RunOnly are the formats that lay out a whole run's events, which only
// the presets that name them in their Formats print (not every preset
// with none listed).
var RunOnly = []Format{OTLP}

// Formats lists every format, in the order help texts show them.
var Formats = []Format{Text, Markdown, NDJSON, CSV, JSON, HTML, OTLP}

// ParseFormat checks a format name.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	if s == "md" {
		return Markdown, nil
	}
	return "", fmt.Errorf("unknown format %q (want text, markdown, ndjson, csv, json, html or otlp)", s)
}

// Options configure a renderer.
type Options struct {
	// Color allows ANSI colors (text only). The caller decides (terminal,
	// NO_COLOR, --color).
	Color bool
	// Run names this run (its file or session) when one output holds
	// several runs, so a reader can tell them apart: in the markdown
	// title, a "==> Run <==" line before the run's text, and a source
	// column (key) of its tool-call rows. Empty for a single run.
	Run string
	// CLI names the agent CLI whose run this is ("Claude Code" when
	// empty): the markdown and HTML reports' titles say it.
	CLI string
	// Glance, when set, is the whole run in brief, read ahead of the
	// report: the markdown report opens with it (see Glance).
	Glance *Glance
	// Shared, when set, is what the runs of one output share: a CSV
	// header written by one run is not written again by the next (the
	// rows of several runs make one CSV), whichever run wrote it first.
	Shared *Shared
	// Terminal says the output is a terminal: NDJSON, CSV and JSON then
	// escape what a terminal would act on (see out.terminal); to a pipe or
	// a file they write the stream's bytes unchanged.
	Terminal bool
	// Width is the display width one-line summaries are truncated to
	// (0: 120).
	Width int
	// Redacted, when set, says what the redaction of the output replaced
	// in this run's output so far ("3 secrets (github-token 2, ...)"; ""
	// for nothing): a report's closing summary says it. The renderer
	// writes out what it holds first.
	Redacted func() string
	// Tracker is the stream state the renderers may query: the subagent of
	// an event, tool calls, usage for closing summaries. It has already
	// observed the event being rendered. May be nil.
	Tracker *stream.Tracker
	// JSON output of values and json-format events.
	Indent  string // indentation unit for pretty JSON ("  " when empty and not Compact)
	Compact bool   // -c: one line per value
	Raw     bool   // -r: a string value is written without quotes
	Join    bool   // -j: like Raw, and no newline after each value
	// SavedOutputs has the text and markdown views show a tool output a
	// session saved beside its transcript (ToolResult.Saved) rather than
	// the preview the transcript holds, within their usual limits.
	SavedOutputs bool
	// SavedValue, when set, is applied to a saved output read (a value of
	// the run that is not in its events) before it is laid out: the
	// command's redaction of values (nil: the text as it is).
	SavedValue func(string) string
	// Array has the json format write the records as the elements of one
	// array, one document ([] when there are none), for the presets that
	// print a record per event or call; without it, records are documents
	// one after the other, as jq writes an expression's outputs.
	Array bool
	// ToolCalls says the output is tool-call records (the tools preset):
	// Close then writes the calls that never got a result as records too.
	// The CSV always does; the other formats only when this is set or a
	// call-only Record was rendered.
	ToolCalls bool
	// The trace format (otlp): Spans, when set, receives each request
	// instead of its JSON line (an OTLP exporter), to encode as its
	// protocol asks (OTLPBatch: protobuf or JSON, written straight from
	// the spans, no message tree); Producer is ccfilter's
	// version, named as the instrumentation scope's. Its times are the
	// run's own (stream.Clock), never the clock's or a file's.
	Spans    func(*OTLPBatch) error
	Producer string
	// Metrics, when set, receives a grouped report's metrics
	// (Report.Metrics) instead of their JSON line: the request, in
	// either encoding. Now is the clock of their sample time (nil:
	// time.Now).
	Metrics func(*MetricsRequest) error
	Now     func() time.Time
	// Parent, when set, is the trace context the run's trace goes under
	// (TRACEPARENT): the root span its child, in its trace.
	Parent *TraceParent
}

// Shared is the state the runs of one output share (Options.Shared).
type Shared struct {
	// HeaderWritten: a CSV header is out.
	HeaderWritten bool
	// PageOpen: an HTML page is started, and its end not written; Runs
	// counts the runs in it (each run's ids have a prefix of its own).
	PageOpen bool
	Runs     int
}

// End writes what the output of several runs needs after the last of
// them: an HTML page's end. Nothing for one run, or another format.
func (s *Shared) End(w io.Writer) error {
	if s == nil || !s.PageOpen {
		return nil
	}
	s.PageOpen = false
	_, err := io.WriteString(w, pageEnd())
	return err
}

// Record is one unit of output.
type Record struct {
	// Event is an event the filter selected; nil for a record that only
	// carries tool calls (the tools preset).
	Event *stream.Event
	// Calls are tool calls that this record completes: the calls whose
	// results Event carries, or, for the tools preset, the finished calls.
	Calls []*stream.ToolCall
	// Rows, when set, are rows of a streamed table (see Row): the record
	// is only those.
	Rows []*Row
}

// Renderer writes records in one format.
type Renderer interface {
	// Render writes one record.
	Render(r Record) error
	// Value writes a value an expression produced that is not an event.
	Value(v any) error
	// Summary writes a summary preset's report.
	Summary(r *Report) error
	// Flush makes everything written so far visible on the writer.
	Flush() error
	// Close ends the output: open lists the tool calls that never got a
	// result (the CSV writes them with an empty status; the markdown report
	// writes its closing summary). It flushes.
	Close(open []*stream.ToolCall) error
}

// New returns the renderer for format f writing to w. The renderer buffers
// its output in a bufio.Writer of its own: nothing reaches w before Flush or
// Close.
func New(f Format, w io.Writer, o Options) (Renderer, error) {
	if w == nil {
		return nil, errors.New("render: nil writer")
	}
	if o.Width <= 0 {
		o.Width = 120
	}
	if o.Indent == "" {
		o.Indent = "  "
	}
	switch f {
	case Text:
		return newText(w, o), nil
	case Markdown:
		return newMarkdown(w, o), nil
	case NDJSON:
		return newNDJSON(w, o), nil
	case CSV:
		return newCSV(w, o), nil
	case JSON:
		return newJSON(w, o), nil
	case HTML:
		return newHTML(w, o), nil
	case OTLP:
		return newOTLP(w, o), nil
	}
	return nil, fmt.Errorf("unknown format %q (want text, markdown, ndjson, csv, json, html or otlp)", string(f))
}

// cliName is the name of the run's CLI a title shows.
func (o Options) cliName() string {
	if o.CLI == "" {
		return stream.CLIOf("", "").Name
	}
	return o.CLI
}
