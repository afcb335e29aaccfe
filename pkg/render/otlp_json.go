package render

import (
	"encoding/hex"
	"errors"
	"math"
	"strconv"
	"unicode/utf8"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// OTLPJSON encodes a request as OTLP/JSON on one line: the bytes
// protojson's mapping of the messages gives once compacted (lowerCamelCase
// names in declaration order, unset fields left out, 64-bit integers as
// strings, enums as numbers), with the one difference OTLP/JSON makes:
// trace and span ids are hex, not base64. Written here field by field,
// straight into one buffer: protojson walks the messages by reflection
// and its output then needed compacting and its ids rewriting, which was
// most of the otlp format's time (issue 41). The fields written are the
// ones the trace format sets (otlp.go); TestOTLPJSONMatchesProtojson holds
// the bytes equal to protojson's on every capture's trace.
func OTLPJSON(req *tracepb.TracesData) ([]byte, error) {
	return appendOTLPJSON(make([]byte, 0, 4096), req)
}

// appendOTLPJSON appends OTLPJSON(req) to dst: the otlp format encodes
// each batch into the buffer of the one before (a batch is about a
// hundred kilobytes, grown from nothing every time it was half the
// format's allocations).
func appendOTLPJSON(dst []byte, req *tracepb.TracesData) ([]byte, error) {
	e := otlpEncoder{b: dst}
	e.traces(req)
	if e.err != nil {
		return nil, e.err
	}
	return e.b, nil
}

// errOTLPUTF8 is protojson's refusal of a string that is not UTF-8.
var errOTLPUTF8 = errors.New("render: otlp: string field contains invalid UTF-8")

type otlpEncoder struct {
	b   []byte
	err error
}

// sep writes the comma before every member or element but the first.
func (e *otlpEncoder) sep(first *bool) {
	if !*first {
		e.b = append(e.b, ',')
	}
	*first = false
}

func (e *otlpEncoder) name(first *bool, n string) {
	e.sep(first)
	e.b = append(e.b, '"')
	e.b = append(e.b, n...)
	e.b = append(e.b, '"', ':')
}

func (e *otlpEncoder) str(first *bool, n, v string) {
	if v == "" {
		return
	}
	e.name(first, n)
	e.quote(v)
}

func (e *otlpEncoder) id(first *bool, n string, v []byte) {
	if len(v) == 0 {
		return
	}
	e.name(first, n)
	e.b = append(e.b, '"')
	e.b = hex.AppendEncode(e.b, v)
	e.b = append(e.b, '"')
}

// u64 writes a 64-bit integer as protojson does: a string.
func (e *otlpEncoder) u64(first *bool, n string, v uint64) {
	if v == 0 {
		return
	}
	e.name(first, n)
	e.b = append(e.b, '"')
	e.b = strconv.AppendUint(e.b, v, 10)
	e.b = append(e.b, '"')
}

// u32 writes a 32-bit integer or an enum's number: a number.
func (e *otlpEncoder) u32(first *bool, n string, v int64) {
	if v == 0 {
		return
	}
	e.name(first, n)
	e.b = strconv.AppendInt(e.b, v, 10)
}

func (e *otlpEncoder) traces(req *tracepb.TracesData) {
	e.b = append(e.b, '{')
	first := true
	list(e, &first, "resourceSpans", req.ResourceSpans, e.resourceSpans)
	e.b = append(e.b, '}')
}

// list writes the member n, the array of items (each written by each),
// unless there are none.
func list[T any](e *otlpEncoder, first *bool, n string, items []T, each func(T)) {
	if len(items) == 0 {
		return
	}
	e.name(first, n)
	e.b = append(e.b, '[')
	for i, it := range items {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		each(it)
	}
	e.b = append(e.b, ']')
}

func (e *otlpEncoder) resourceSpans(rs *tracepb.ResourceSpans) {
	e.b = append(e.b, '{')
	first := true
	if rs.Resource != nil {
		e.name(&first, "resource")
		e.resource(rs.Resource)
	}
	list(e, &first, "scopeSpans", rs.ScopeSpans, e.scopeSpans)
	e.str(&first, "schemaUrl", rs.SchemaUrl)
	e.b = append(e.b, '}')
}

func (e *otlpEncoder) resource(r *resourcepb.Resource) {
	e.b = append(e.b, '{')
	first := true
	e.attrs(&first, r.Attributes)
	e.u32(&first, "droppedAttributesCount", int64(r.DroppedAttributesCount))
	e.b = append(e.b, '}')
}

func (e *otlpEncoder) scopeSpans(ss *tracepb.ScopeSpans) {
	e.b = append(e.b, '{')
	first := true
	if s := ss.Scope; s != nil {
		e.name(&first, "scope")
		e.b = append(e.b, '{')
		f := true
		e.str(&f, "name", s.Name)
		e.str(&f, "version", s.Version)
		e.attrs(&f, s.Attributes)
		e.u32(&f, "droppedAttributesCount", int64(s.DroppedAttributesCount))
		e.b = append(e.b, '}')
	}
	list(e, &first, "spans", ss.Spans, e.span)
	e.str(&first, "schemaUrl", ss.SchemaUrl)
	e.b = append(e.b, '}')
}

func (e *otlpEncoder) span(s *tracepb.Span) {
	e.b = append(e.b, '{')
	first := true
	e.id(&first, "traceId", s.TraceId)
	e.id(&first, "spanId", s.SpanId)
	e.str(&first, "traceState", s.TraceState)
	e.id(&first, "parentSpanId", s.ParentSpanId)
	e.u32(&first, "flags", int64(s.Flags))
	e.str(&first, "name", s.Name)
	e.u32(&first, "kind", int64(s.Kind))
	e.u64(&first, "startTimeUnixNano", s.StartTimeUnixNano)
	e.u64(&first, "endTimeUnixNano", s.EndTimeUnixNano)
	e.attrs(&first, s.Attributes)
	e.u32(&first, "droppedAttributesCount", int64(s.DroppedAttributesCount))
	list(e, &first, "events", s.Events, e.event)
	e.u32(&first, "droppedEventsCount", int64(s.DroppedEventsCount))
	if len(s.Links) > 0 && e.err == nil {
		e.err = errors.New("render: otlp: span links are not encoded") // the trace format makes none
	}
	e.u32(&first, "droppedLinksCount", int64(s.DroppedLinksCount))
	if st := s.Status; st != nil {
		e.name(&first, "status")
		e.b = append(e.b, '{')
		f := true
		e.str(&f, "message", st.Message)
		e.u32(&f, "code", int64(st.Code))
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, '}')
}

func (e *otlpEncoder) event(ev *tracepb.Span_Event) {
	e.b = append(e.b, '{')
	f := true
	e.u64(&f, "timeUnixNano", ev.TimeUnixNano)
	e.str(&f, "name", ev.Name)
	e.attrs(&f, ev.Attributes)
	e.u32(&f, "droppedAttributesCount", int64(ev.DroppedAttributesCount))
	e.b = append(e.b, '}')
}

func (e *otlpEncoder) attrs(first *bool, kvs []*commonpb.KeyValue) {
	list(e, first, "attributes", kvs, e.attr)
}

func (e *otlpEncoder) attr(kv *commonpb.KeyValue) {
	e.b = append(e.b, '{')
	f := true
	e.str(&f, "key", kv.Key)
	if kv.Value != nil {
		e.name(&f, "value")
		e.value(kv.Value)
	}
	e.b = append(e.b, '}')
}

// value writes an AnyValue: its one member is written even when zero (a
// oneof's field is set or not, whatever its value).
func (e *otlpEncoder) value(v *commonpb.AnyValue) {
	switch x := v.Value.(type) {
	case *commonpb.AnyValue_StringValue:
		e.b = append(e.b, `{"stringValue":`...)
		e.quote(x.StringValue)
	case *commonpb.AnyValue_BoolValue:
		e.b = append(e.b, `{"boolValue":`...)
		e.b = strconv.AppendBool(e.b, x.BoolValue)
	case *commonpb.AnyValue_IntValue:
		e.b = append(e.b, `{"intValue":"`...)
		e.b = strconv.AppendInt(e.b, x.IntValue, 10)
		e.b = append(e.b, '"')
	case *commonpb.AnyValue_DoubleValue:
		e.b = append(e.b, `{"doubleValue":`...)
		e.float(x.DoubleValue)
	case nil:
		e.b = append(e.b, '{')
	default:
		if e.err == nil {
			e.err = errors.New("render: otlp: an attribute's value is of a kind the trace format does not make")
		}
		e.b = append(e.b, '{')
	}
	e.b = append(e.b, '}')
}

// float writes a double as protojson does (encoding/json's choice of
// notation; not-a-number and the infinities as strings).
func (e *otlpEncoder) float(n float64) {
	switch {
	case math.IsNaN(n):
		e.b = append(e.b, `"NaN"`...)
		return
	case math.IsInf(n, 1):
		e.b = append(e.b, `"Infinity"`...)
		return
	case math.IsInf(n, -1):
		e.b = append(e.b, `"-Infinity"`...)
		return
	}
	f := byte('f')
	if a := math.Abs(n); a != 0 && (a < 1e-6 || a >= 1e21) {
		f = 'e'
	}
	e.b = strconv.AppendFloat(e.b, n, f, -1, 64)
	if f == 'e' {
		// e-07, not e-7... as encoding/json: one digit when it can
		if k := len(e.b); k >= 4 && e.b[k-4] == 'e' && e.b[k-3] == '-' && e.b[k-2] == '0' {
			e.b[k-2] = e.b[k-1]
			e.b = e.b[:k-1]
		}
	}
}

// quote writes a JSON string as protojson does: only the quote, the
// backslash and the control characters escaped (no HTML escapes), a
// string that is not UTF-8 refused. Eight bytes at a time past the runs
// that need no escape (most of a trace's text): byte by byte, quoting was
// a third of the encoder's instructions.
func (e *otlpEncoder) quote(s string) {
	if !utf8.ValidString(s) && e.err == nil {
		e.err = errOTLPUTF8
	}
	e.b = append(e.b, '"')
	start := 0
	for i := 0; i < len(s); {
		for i+8 <= len(s) && !mayEscape(uint64(s[i])|uint64(s[i+1])<<8|uint64(s[i+2])<<16|uint64(s[i+3])<<24|
			uint64(s[i+4])<<32|uint64(s[i+5])<<40|uint64(s[i+6])<<48|uint64(s[i+7])<<56) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c >= ' ' && c != '"' && c != '\\' {
			i++
			continue
		}
		e.b = append(e.b, s[start:i]...)
		switch c {
		case '"', '\\':
			e.b = append(e.b, '\\', c)
		case '\b':
			e.b = append(e.b, '\\', 'b')
		case '\f':
			e.b = append(e.b, '\\', 'f')
		case '\n':
			e.b = append(e.b, '\\', 'n')
		case '\r':
			e.b = append(e.b, '\\', 'r')
		case '\t':
			e.b = append(e.b, '\\', 't')
		default:
			e.b = append(e.b, '\\', 'u', '0', '0', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
		}
		i++
		start = i
	}
	e.b = append(e.b, s[start:]...)
	e.b = append(e.b, '"')
}

// mayEscape reports whether one of the eight bytes of x may be a control
// character, a quote or a backslash (it may say so of a byte that is
// none, past a byte of 0x80 or more: that byte is then looked at alone).
func mayEscape(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, bs := x^(ones*'"'), x^(ones*'\\')
	return ((x-ones*' ')|(q-ones)|(bs-ones))&^(x&q&bs)&highs != 0
}
