package render

import (
	"io"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// ndjsonRenderer writes one JSON value per line: selected events byte for
// byte as they were read, tool-call records and expression values as
// compact JSON, and a summary as one compact line.
type ndjsonRenderer struct {
	out
	o         Options
	callsSeen bool
}

func newNDJSON(w io.Writer, o Options) *ndjsonRenderer {
	return &ndjsonRenderer{out: newByteOut(w, o, true), o: o}
}

func (r *ndjsonRenderer) Render(rec Record) error {
	for _, row := range rec.Rows {
		if row.Values != nil { // (not a header only)
			r.row(row.withSource(r.o.Run))
		}
	}
	if rec.Event != nil {
		// The input's own lines (stream.Event.Echo): another CLI's record
		// as it was read, not the stream event its kind's reader made of
		// it, once.
		if b, ok := rec.Event.Echo(); ok {
			r.bytes(b)
			r.byte('\n')
		}
		return r.err
	}
	r.callsSeen = true
	for _, c := range rec.Calls {
		r.call(c)
	}
	return r.err
}

func (r *ndjsonRenderer) call(c *stream.ToolCall) { r.row(CallRow(c).withSource(r.o.Run)) }

// row writes a row as an object, a line of its own.
func (r *ndjsonRenderer) row(row *Row) {
	values, err := rowValues(row)
	if err != nil {
		r.err = err
		return
	}
	r.out.row(row, values, jsonLayout{compact: true, bytes: true})
	r.byte('\n')
}

func (r *ndjsonRenderer) Value(v any) error {
	if s, ok := v.(string); ok && (r.o.Raw || r.o.Join) {
		r.str(s)
	} else {
		b, err := encodeValue(v, "", true)
		if err != nil {
			return err
		}
		r.bytes(b)
	}
	if !r.o.Join {
		r.byte('\n')
	}
	return r.err
}

// Summary writes a report's rows, an object per line.
func (r *ndjsonRenderer) Summary(rep *Report) error {
	if rep.Rows == nil {
		return r.err
	}
	set := rep.Rows.withSource(r.o.Run)
	for i := range set.Rows {
		r.row(set.Row(i))
	}
	return r.err
}

func (r *ndjsonRenderer) Close(open []*stream.ToolCall) error {
	if r.o.ToolCalls || r.callsSeen {
		for _, c := range open {
			r.call(c)
		}
	}
	return r.Flush()
}
