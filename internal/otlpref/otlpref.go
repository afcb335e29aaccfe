// Package otlpref is the reference OTLP/JSON encoding the tests hold the
// trace format's own encoders to: protojson's mapping of the OpenTelemetry
// project's messages, compacted, every base64 id rewritten as hex (how
// --format otlp encoded a request until issue 41, main at aa5e20c). Only
// tests import it: the command writes its encodings straight from its
// spans (pkg/render/otlp_span.go).
package otlpref

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"regexp"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// JSON is req's OTLP/JSON by protojson.
func JSON(req *tracepb.TracesData) ([]byte, error) {
	b, err := protojson.MarshalOptions{UseEnumNumbers: true}.Marshal(req)
	if err != nil {
		return nil, err
	}
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		return nil, err
	}
	return idField.ReplaceAllFunc(c.Bytes(), func(m []byte) []byte {
		i := bytes.IndexByte(m, ':')
		raw, err := base64.StdEncoding.DecodeString(string(m[i+2 : len(m)-1]))
		if err != nil {
			return m
		}
		out := append([]byte{}, m[:i+2]...)
		out = hex.AppendEncode(out, raw)
		return append(out, '"')
	}), nil
}

var idField = regexp.MustCompile(`"(?:traceId|spanId|parentSpanId)":"[A-Za-z0-9+/=]*"`)

// FromProtobuf decodes a request's protobuf (proto.Unmarshal into
// tracepb) and writes it as JSON does: the protobuf's content in the
// reference encoding.
func FromProtobuf(b []byte) (*tracepb.TracesData, []byte, error) {
	var req tracepb.TracesData
	if err := proto.Unmarshal(b, &req); err != nil {
		return nil, nil, err
	}
	j, err := JSON(&req)
	return &req, j, err
}
