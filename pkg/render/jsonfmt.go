package render

import (
	"bytes"
	"io"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// jsonRenderer writes pretty JSON: each event re-indented from its raw
// bytes (so its key order is the stream's), each tool-call record, each
// value, each summary. With Options.Array the records are the elements of
// one array, a single document ([] when there are none); without, they
// are documents one after the other, as jq writes its outputs. With
// Compact each record is one line. Runes that could disturb a terminal (C1
// and bidi controls, U+2028/U+2029) are written as \u escapes, which is
// the same JSON.
type jsonRenderer struct {
	out
	o         Options
	callsSeen bool
	elems     int // array elements written (Options.Array)
}

func newJSON(w io.Writer, o Options) *jsonRenderer {
	return &jsonRenderer{out: newByteOut(w, o, true), o: o}
}

// begin starts a record: in an array, after the bracket or the comma,
// and indented one level.
func (r *jsonRenderer) begin() {
	if !r.o.Array {
		return
	}
	if r.elems == 0 {
		r.str("[\n")
	} else {
		r.str(",\n")
	}
	r.elems++
	if !r.o.Compact {
		r.str(r.o.Indent)
	}
}

// depth is how deep a record is nested: one level in an array.
func (r *jsonRenderer) depth() int {
	if r.o.Array {
		return 1
	}
	return 0
}

// end ends a record: a document ends its line; an array element waits
// for the comma or the bracket.
func (r *jsonRenderer) end() {
	if !r.o.Array {
		r.byte('\n')
	}
}

// doc writes one record given as JSON text, pretty or compact.
func (r *jsonRenderer) doc(b []byte) {
	r.begin()
	if r.o.Array && !r.o.Compact {
		// An element's lines after the first go one level deeper; JSON
		// text has newlines only between its tokens.
		b = bytes.ReplaceAll(b, []byte("\n"), []byte("\n"+r.o.Indent))
	}
	r.safe(b)
	r.end()
}

func (r *jsonRenderer) Render(rec Record) error {
	for _, row := range rec.Rows {
		if row.Values != nil { // (not a header only)
			r.row(row.withSource(r.o.Run))
		}
	}
	if ev := rec.Event; ev != nil {
		if r.o.Compact {
			r.doc(ev.Raw)
			return r.err
		}
		if err := jsonx.Validate(ev.Raw); err != nil {
			return err // (as reindent would fail)
		}
		r.begin()
		r.indentedAt(ev.Raw, r.o.Indent, r.depth())
		r.end()
		return r.err
	}
	r.callsSeen = true
	for _, c := range rec.Calls {
		r.call(c)
	}
	return r.err
}

func (r *jsonRenderer) call(c *stream.ToolCall) { r.row(CallRow(c).withSource(r.o.Run)) }

// row writes a row as a record, pretty or compact, laid out as it is
// written (out.row).
func (r *jsonRenderer) row(row *Row) {
	values, err := rowValues(row)
	if err != nil {
		r.err = err
		return
	}
	r.begin()
	r.out.row(row, values, jsonLayout{indent: r.o.Indent, base: r.depth(), compact: r.o.Compact})
	r.end()
}

// value writes a row (or rows) as a record, pretty or compact.
func (r *jsonRenderer) value(v any) {
	b, err := marshal(v, r.o.Indent, r.o.Compact)
	if err != nil {
		r.err = err
		return
	}
	r.doc(b)
}

func (r *jsonRenderer) Value(v any) error {
	if r.o.Array {
		// A preset's own record (errors' missing result): an element.
		b, err := encodeValue(v, r.o.Indent, r.o.Compact)
		if err != nil {
			return err
		}
		r.doc(b)
		return r.err
	}
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

// Summary writes a report's rows as one document: an array of objects.
func (r *jsonRenderer) Summary(rep *Report) error {
	if rep.Rows == nil {
		return r.err
	}
	r.value(rep.Rows.withSource(r.o.Run))
	return r.err
}

func (r *jsonRenderer) Close(open []*stream.ToolCall) error {
	if r.o.ToolCalls || r.callsSeen {
		for _, c := range open {
			r.call(c)
		}
	}
	if r.o.Array {
		if r.elems == 0 {
			r.str("[]\n")
		} else {
			r.str("\n]\n")
		}
	}
	return r.Flush()
}
