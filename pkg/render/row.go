package render

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// Row is one row of a table whose rows stream as they come (the errors
// preset's): CSV writes the header (Columns) once, then a record per row;
// NDJSON an object per line and JSON an object per record, keyed by the
// columns, in their order. So the CSV header and the JSON keys are one
// list. Text and markdown show events, not rows: they refuse one.
type Row struct {
	Columns []string
	// Values, one per column: a string, an int64, a bool or nil (an empty
	// cell, null). A row without values is the header alone: a CSV of no
	// rows still has it.
	Values []any
}

// withSource is the row with a source column first: the run's name when
// an output holds several runs (Options.Run).
func (r *Row) withSource(run string) *Row {
	if run == "" {
		return r
	}
	return &Row{Columns: append([]string{"source"}, r.Columns...), Values: append([]any{run}, r.Values...)}
}

// MarshalJSON writes the row as an object whose keys are the columns, in
// order.
func (r *Row) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, c := range r.Columns {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(c)
		b.Write(k)
		b.WriteByte(':')
		v, err := marshal(r.Values[i], "", true)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// cells are the row's values as CSV fields.
func (r *Row) cells() []string {
	out := make([]string, len(r.Values))
	for i, v := range r.Values {
		switch v := v.(type) {
		case string:
			out[i] = cell(v)
		case int64:
			out[i] = strconv.FormatInt(v, 10)
		case int:
			out[i] = strconv.Itoa(v)
		case bool:
			out[i] = strconv.FormatBool(v)
		}
	}
	return out
}

// errNoRows: text and markdown lay out events, not rows.
type errNoRows struct{}

func (errNoRows) Error() string { return "render: rows are written as csv, ndjson or json" }
