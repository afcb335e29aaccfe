package render

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/ccfilter/ccfilter/internal/jsonx"
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
	s := &Row{Columns: sourced(run, r.Columns)}
	if r.Values != nil { // a header-only row stays one
		s.Values = append([]any{run}, r.Values...)
	}
	return s
}

// withSource is the rows with a source column first (Row.withSource).
func (s *RowSet) withSource(run string) *RowSet {
	if run == "" {
		return s
	}
	out := &RowSet{Columns: sourced(run, s.Columns), Rows: make([][]any, len(s.Rows))}
	for i, row := range s.Rows {
		out.Rows[i] = append([]any{run}, row...)
	}
	return out
}

// sourced is columns with "source" first when run names the run.
func sourced(run string, columns []string) []string {
	if run == "" {
		return columns
	}
	return append([]string{"source"}, columns...)
}

// MarshalJSON writes the row as an object whose keys are the columns, in
// order.
func (r *Row) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := r.appendJSON(newRowEncoder(&b)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// rowEncoder writes rows' keys and values into one buffer, as
// json.Marshal writes a key and marshal a value (HTML escaped in keys,
// not in values; no newline), with two encoders for all the rows of a
// set: an encoder and a buffer made for each cell were most of the time
// sessions -F json spent writing a tree's 1,000 sessions (issue 41).
type rowEncoder struct {
	b        *bytes.Buffer
	key, val *json.Encoder
}

func newRowEncoder(b *bytes.Buffer) rowEncoder {
	val := json.NewEncoder(b)
	val.SetEscapeHTML(false)
	return rowEncoder{b: b, key: json.NewEncoder(b), val: val}
}

// encode writes v with enc, without the newline Encode ends it with.
func (e rowEncoder) encode(enc *json.Encoder, v any) error {
	if err := enc.Encode(v); err != nil {
		return err
	}
	e.b.Truncate(e.b.Len() - 1)
	return nil
}

func (r *Row) appendJSON(e rowEncoder) error {
	e.b.WriteByte('{')
	for i, c := range r.Columns {
		if i > 0 {
			e.b.WriteByte(',')
		}
		if err := e.encode(e.key, c); err != nil {
			return err
		}
		e.b.WriteByte(':')
		if err := e.encode(e.val, r.Values[i]); err != nil {
			return err
		}
	}
	e.b.WriteByte('}')
	return nil
}

// cells are the row's values as CSV fields, in out (reused: one slice for
// every row of a CSV). The row's first JSON value is compacted into
// *scratch, which its field then aliases: it holds until the next call
// with it. Any other JSON value of the row is compacted into a buffer of
// its own: in *scratch it wrote over the first (the account's row, whose
// turns were written over its outcome).
func (r *Row) cells(out []string, scratch *[]byte) []string {
	out = slices.Grow(out[:0], len(r.Values))[:len(r.Values)]
	clear(out)
	shared := scratch
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
		case float64:
			out[i] = strconv.FormatFloat(v, 'f', -1, 64)
		case json.Number:
			out[i] = string(v)
		case []string:
			out[i] = cell(strings.Join(v, " "))
		case json.RawMessage:
			if shared != nil {
				out[i], shared = cell(compactJSONIn(shared, v)), nil
			} else {
				out[i] = cell(compactJSON(v))
			}
		}
	}
	return out
}

// RowSet is a report's rows for machines, each column declared once by
// its name: CSV writes the names as its header and a record per row;
// NDJSON an object per row, a line each; JSON one array of the objects;
// --where sees each row as that object (Object). So the CSV header, the
// JSON keys and what --where sees are one list. Text and markdown show
// the report's Blocks instead, laid out for people.
type RowSet struct {
	Columns []string
	// Rows hold a value per column: a string, an int64, an int, a float64,
	// a bool, a []string (a JSON array; CSV joins it with spaces) or nil
	// (null; an empty CSV cell).
	Rows [][]any
}

// NewRowSet returns an empty set of rows with these columns.
func NewRowSet(columns ...string) *RowSet { return &RowSet{Columns: columns, Rows: [][]any{}} }

// Add appends a row of values, one per column.
func (s *RowSet) Add(values ...any) { s.Rows = append(s.Rows, values) }

// Row returns row i as a Row.
func (s *RowSet) Row(i int) *Row { return &Row{Columns: s.Columns, Values: s.Rows[i]} }

// Object returns row i as --where sees it (Row.Object).
func (s *RowSet) Object(i int) map[string]any { return s.Row(i).Object() }

// Object returns the row as --where sees it: an object of the columns'
// values as gojq takes them (ints, []any; JSON decoded).
func (r *Row) Object() map[string]any {
	m := make(map[string]any, len(r.Columns))
	for j, c := range r.Columns {
		switch v := r.Values[j].(type) {
		case int64:
			m[c] = int(v)
		case []string:
			a := make([]any, len(v))
			for k, x := range v {
				a[k] = x
			}
			m[c] = a
		case json.RawMessage:
			// Validated with its line; nil decodes as null.
			m[c] = jsonx.Value(v).Decode()
		default:
			m[c] = v
		}
	}
	return m
}

// appendIndented writes the rows as MarshalJSON does, indented as
// json.Indent indents that (no prefix, indent), in one pass: the
// re-indenting pass over the compact bytes was half of what sessions -F
// json spent writing a tree's report, on one CPU after the reading
// (issue 41). Each key is quoted once for all the rows, and a plain value
// (an integer, a bool, null, a string of ASCII that needs no escape,
// plainASCII) written as it is; any other goes through the encoder
// (TestRowSetMarshalsAsTheEncoderWrites holds the bytes to its).
func (s *RowSet) appendIndented(b *bytes.Buffer, indent string) error {
	if len(s.Rows) == 0 {
		b.WriteString("[]")
		return nil
	}
	in1, in2 := "\n"+indent, "\n"+indent+indent
	keys := make([]string, len(s.Columns))
	for i, c := range s.Columns {
		k, err := json.Marshal(c) // (HTML escaped, as the key encoder writes it)
		if err != nil {
			return err
		}
		keys[i] = in2 + string(k) + ": "
	}
	e := newRowEncoder(b)
	b.WriteByte('[')
	for i, row := range s.Rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(in1)
		if len(keys) == 0 {
			b.WriteString("{}")
			continue
		}
		b.WriteByte('{')
		for j, k := range keys {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(k)
			if err := e.indented(row[j], indent+indent, indent); err != nil {
				return err
			}
		}
		b.WriteString(in1)
		b.WriteByte('}')
	}
	b.WriteString("\n]")
	return nil
}

// indented writes the value v of a row at the depth prefix says, as
// json.Indent would (a composite value's lines begin with prefix).
func (e rowEncoder) indented(v any, prefix, indent string) error {
	b := e.b
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
		return nil
	case bool:
		b.WriteString(strconv.FormatBool(v))
		return nil
	case int:
		b.Write(strconv.AppendInt(b.AvailableBuffer(), int64(v), 10))
		return nil
	case int64:
		b.Write(strconv.AppendInt(b.AvailableBuffer(), v, 10))
		return nil
	case string:
		if plainASCII(v) { // (the trace encoder's test: no byte escaped)
			b.WriteByte('"')
			b.WriteString(v)
			b.WriteByte('"')
			return nil
		}
	}
	start := b.Len()
	if err := e.encode(e.val, v); err != nil {
		return err
	}
	if c := b.Bytes()[start]; c != '[' && c != '{' {
		return nil
	}
	compact := bytes.Clone(b.Bytes()[start:])
	b.Truncate(start)
	return json.Indent(b, compact, prefix, indent)
}

// MarshalJSON writes the rows as a JSON array of objects ([] when none).
func (s *RowSet) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	e := newRowEncoder(&b)
	b.WriteByte('[')
	for i := range s.Rows {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := s.Row(i).appendJSON(e); err != nil {
			return nil, err
		}
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

// errNoRows: text and markdown lay out events, not rows.
type errNoRows struct{}

func (errNoRows) Error() string { return "render: rows are written as csv, ndjson or json" }
