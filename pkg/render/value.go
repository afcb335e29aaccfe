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

// callRecord is one tool call as the ndjson and json formats write it: the
// CSV's columns, with the input as JSON and null for what an open call
// lacks.
type callRecord struct {
	Source       string          `json:"source,omitempty"` // the run's file or session, when an output holds several
	Line         int64           `json:"line"`
	Timestamp    string          `json:"timestamp"`
	Agent        string          `json:"agent"`
	SubagentType string          `json:"subagent_type"`
	ToolUseID    string          `json:"tool_use_id"`
	Tool         string          `json:"tool"`
	Summary      string          `json:"summary"`
	Input        json.RawMessage `json:"input"`
	IsError      *bool           `json:"is_error"`
	ResultBytes  *int            `json:"result_bytes"`
	DurationMs   *int64          `json:"duration_ms"`
}

func newCallRecord(c *stream.ToolCall, run string) callRecord {
	r := callRecord{
		Source:       run,
		Line:         c.Line,
		Timestamp:    c.Timestamp,
		Agent:        c.AgentLabel(),
		SubagentType: agentType(c),
		ToolUseID:    c.ID,
		Tool:         c.Name,
		Summary:      ToolTarget(c.Name, c.Input),
		Input:        c.Input,
	}
	if len(r.Input) == 0 {
		r.Input = nil
	}
	if c.Done {
		isErr, n := c.IsError, c.ResultBytes
		r.IsError, r.ResultBytes = &isErr, &n
		if c.HasDuration {
			ms := c.Duration.Milliseconds()
			r.DurationMs = &ms
		}
	}
	return r
}

// durationOf returns a call's duration and whether it is known.
func durationOf(c *stream.ToolCall) (time.Duration, bool) {
	if c == nil || !c.HasDuration {
		return 0, false
	}
	return c.Duration, true
}
