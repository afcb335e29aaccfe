package render

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"time"

	"github.com/itchyny/gojq"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// encodeValue writes a gojq value as jq does: gojq.Marshal's encoding (keys
// sorted, *big.Int exact, floats in jq 1.7's shortest form, '<', '>' and '&'
// not escaped), pretty-printed with indent unless compact.
func encodeValue(v any, indent string, compact bool) ([]byte, error) {
	b, err := gojq.Marshal(v)
	if err != nil {
		return nil, err
	}
	if compact {
		return b, nil
	}
	return reindent(b, indent)
}

// reindent pretty-prints JSON text keeping its key order and its strings'
// bytes (json.Indent only moves space around).
func reindent(b []byte, indent string) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(b) + len(b)/4)
	if err := json.Indent(&buf, b, "", indent); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// indentedWhole is b re-indented, or b itself when it is not JSON (or
// empty).
func indentedWhole(b []byte, indent string) []byte {
	pretty, err := reindent(b, indent)
	if err != nil || len(b) == 0 {
		return b
	}
	return pretty
}

// marshal encodes a Go value (a call record, a summary) as JSON without
// HTML escaping, pretty with indent unless compact, without the newline:
// encodeJSON's bytes.
func marshal(v any, indent string, compact bool) ([]byte, error) {
	if rs, ok := v.(*RowSet); ok {
		// A report's rows (sessions' 1,000 of a tree): the set writes
		// itself, compact (MarshalJSON) or indented (appendIndented),
		// and the encoder's validating pass over what it wrote is left
		// out. The same bytes (TestRowSetMarshalsAsTheEncoderWrites).
		var b []byte
		var err error
		if compact {
			b, err = rs.MarshalJSON()
		} else {
			var buf bytes.Buffer
			err = rs.appendIndented(&buf, indent)
			b = buf.Bytes()
		}
		if err != nil {
			return nil, &json.MarshalerError{Type: reflect.TypeOf(rs), Err: err} // (the encoder's words)
		}
		return b, nil
	}
	return encodeJSON(v, indent, compact)
}

// encodeJSON is marshal by encoding/json's encoder, for any value.
func encodeJSON(v any, indent string, compact bool) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if !compact {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// CallRow is one tool call as a row of CSVHeader: what CSV, NDJSON and
// JSON write of it, and what --where sees. The input is its JSON (CSV
// writes it compact, a value decodes it); is_error, result_bytes and
// duration_ms are nil (null, an empty cell) while it has no result, and
// duration_ms when its duration is unknown.
func CallRow(c *stream.ToolCall) *Row { return callCellsOf(c).row() }

// callCells is a tool call's row (CallRow) with its values typed, so that
// the CSV formats them without boxing each in an interface: eight
// allocations a call, the most of what a tools CSV allocated
// (TestCallCellsAreCallRows holds the two to each other).
type callCells struct {
	line                                          int64
	timestamp, agent, agentType, id, name, target string
	input                                         json.RawMessage // nil: none (null, an empty cell)
	done, isError                                 bool            // is_error and result_bytes only when done
	resultBytes                                   int
	hasMs                                         bool // duration_ms only when done and known
	ms                                            int64
}

func callCellsOf(c *stream.ToolCall) callCells {
	r := callCells{line: c.Line, timestamp: c.Timestamp, agent: c.AgentLabel(), agentType: agentType(c), id: c.ID, name: c.Name,
		target: ToolTarget(c.Name, c.Input), done: c.Done, isError: c.IsError, resultBytes: c.ResultBytes,
		hasMs: c.Done && c.HasDuration, ms: c.Duration.Milliseconds()}
	if len(c.Input) > 0 {
		r.input = c.Input
	}
	return r
}

// row is the call's Row, for the writers that lay out values (JSON,
// NDJSON) and --where.
func (r callCells) row() *Row {
	var isErr, size, ms any
	if r.done {
		isErr, size = r.isError, r.resultBytes
	}
	if r.hasMs {
		ms = r.ms
	}
	return &Row{Columns: CSVHeader, Values: []any{r.line, r.timestamp, r.agent, r.agentType, r.id, r.name,
		r.target, r.input, isErr, size, ms}}
}

// cells are the call's CSV fields as Row.cells makes them of row(),
// preceded by the run's name when it has one (Row.withSource), in out
// (reused); the input is compacted into *scratch, which its field
// aliases until the next call with it.
func (r callCells) cells(run string, out []string, scratch *[]byte) []string {
	out = out[:0]
	if run != "" {
		out = append(out, cell(run))
	}
	out = append(out, strconv.FormatInt(r.line, 10), cell(r.timestamp), cell(r.agent), cell(r.agentType), cell(r.id), cell(r.name),
		cell(r.target), cell(compactJSONIn(scratch, r.input)), "", "", "")
	if r.done {
		out[len(out)-3], out[len(out)-2] = strconv.FormatBool(r.isError), strconv.Itoa(r.resultBytes)
	}
	if r.hasMs {
		out[len(out)-1] = strconv.FormatInt(r.ms, 10)
	}
	return out
}

// durationOf returns a call's duration and whether it is known.
func durationOf(c *stream.ToolCall) (time.Duration, bool) {
	if c == nil || !c.HasDuration {
		return 0, false
	}
	return c.Duration, true
}
