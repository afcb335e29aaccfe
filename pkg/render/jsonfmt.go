package render

import (
	"io"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// jsonRenderer writes pretty JSON documents, one after the other as jq
// does: each event re-indented from its raw bytes (so its key order is the
// stream's), each tool-call record, each value, each summary. With Compact
// each is one line. Runes that could disturb a terminal (C1 and bidi
// controls, U+2028/U+2029) are written as \u escapes, which is the same JSON.
type jsonRenderer struct {
	out
	o         Options
	callsSeen bool
}

func newJSON(w io.Writer, o Options) *jsonRenderer { return &jsonRenderer{out: newOut(w), o: o} }

func (r *jsonRenderer) doc(b []byte) {
	r.safe(b)
	r.byte('\n')
}

func (r *jsonRenderer) Render(rec Record) error {
	if ev := rec.Event; ev != nil {
		if r.o.Compact {
			r.doc(ev.Raw)
			return r.err
		}
		if err := jsonx.Validate(ev.Raw); err != nil {
			return err // (as reindent would fail)
		}
		r.indented(ev.Raw, r.o.Indent)
		r.byte('\n')
		return r.err
	}
	r.callsSeen = true
	for _, c := range rec.Calls {
		r.call(c)
	}
	return r.err
}

func (r *jsonRenderer) call(c *stream.ToolCall) {
	b, err := marshal(newCallRecord(c), r.o.Indent, r.o.Compact)
	if err != nil {
		r.err = err
		return
	}
	r.doc(b)
}

func (r *jsonRenderer) Value(v any) error {
	if s, ok := v.(string); ok && (r.o.Raw || r.o.Join) {
		r.str(s)
	} else {
		b, err := encodeValue(v, r.o.Indent, r.o.Compact)
		if err != nil {
			return err
		}
		r.bytes(jsonSafe(b))
	}
	if !r.o.Join {
		r.byte('\n')
	}
	return r.err
}

func (r *jsonRenderer) Summary(rep *Report) error {
	b, err := marshal(rep.Data, r.o.Indent, r.o.Compact)
	if err != nil {
		return err
	}
	r.doc(b)
	return r.err
}

func (r *jsonRenderer) Close(open []*stream.ToolCall) error {
	if r.o.ToolCalls || r.callsSeen {
		for _, c := range open {
			r.call(c)
		}
	}
	return r.Flush()
}
