package render

import (
	"bytes"
	"encoding/json"
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
// HTML escaping, pretty with indent unless compact, without the newline.
func marshal(v any, indent string, compact bool) ([]byte, error) {
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
func CallRow(c *stream.ToolCall) *Row {
	var input json.RawMessage
	if len(c.Input) > 0 {
		input = c.Input
	}
	var isErr, size, ms any
	if c.Done {
		isErr, size = c.IsError, c.ResultBytes
		if c.HasDuration {
			ms = c.Duration.Milliseconds()
		}
	}
	return &Row{Columns: CSVHeader, Values: []any{c.Line, c.Timestamp, c.AgentLabel(), agentType(c), c.ID, c.Name,
		ToolTarget(c.Name, c.Input), input, isErr, size, ms}}
}

// durationOf returns a call's duration and whether it is known.
func durationOf(c *stream.ToolCall) (time.Duration, bool) {
	if c == nil || !c.HasDuration {
		return 0, false
	}
	return c.Duration, true
}
