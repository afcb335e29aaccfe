package render

import (
	"math"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
)

// otlpProto writes a batch as the protobuf of an
// ExportTraceServiceRequest (field numbers of opentelemetry-proto's
// trace.proto, common.proto, resource.proto), field by field from the
// run's records: proto3's rules, a zero scalar left out, a oneof's member
// and a set message always written. A nested message's length is known
// when it ends: one byte is kept for it, and the message moved on in the
// rare case its length needs more. TestOTLPProtobufDecodesToTheTrace
// holds what it writes, decoded by the proto package, to the JSON the
// format writes.
type otlpProto struct {
	b   []byte
	err error
}

// open starts the message field n: its tag and a byte for its length;
// close(at) writes the length.
func (e *otlpProto) open(n protowire.Number) int {
	e.b = protowire.AppendTag(e.b, n, protowire.BytesType)
	e.b = append(e.b, 0)
	return len(e.b) - 1
}

func (e *otlpProto) close(at int) {
	n := len(e.b) - at - 1
	if n < 0x80 {
		e.b[at] = byte(n)
		return
	}
	k := protowire.SizeVarint(uint64(n))
	e.b = append(e.b, make([]byte, k-1)...)
	copy(e.b[at+k:], e.b[at+1:at+1+n])
	protowire.AppendVarint(e.b[:at], uint64(n))
}

func (e *otlpProto) str(n protowire.Number, v string) {
	if v == "" {
		return
	}
	e.strAlways(n, v)
}

// strAlways writes a string even when empty (a oneof's member).
func (e *otlpProto) strAlways(n protowire.Number, v string) {
	if !utf8.ValidString(v) {
		v = utf8Valid(v) // (proto.Marshal refuses it)
	}
	e.b = protowire.AppendTag(e.b, n, protowire.BytesType)
	e.b = protowire.AppendString(e.b, v)
}

func (e *otlpProto) fixed64(n protowire.Number, v uint64) {
	if v == 0 {
		return
	}
	e.b = protowire.AppendTag(e.b, n, protowire.Fixed64Type)
	e.b = protowire.AppendFixed64(e.b, v)
}

func (e *otlpProto) varint(n protowire.Number, v uint64) {
	if v == 0 {
		return
	}
	e.b = protowire.AppendTag(e.b, n, protowire.VarintType)
	e.b = protowire.AppendVarint(e.b, v)
}

func (e *otlpProto) batch(b *OTLPBatch) {
	rs := e.open(1)  // TracesData.resource_spans
	res := e.open(1) // ResourceSpans.resource
	e.attrs(1, b.resource())
	e.close(res)
	ss := e.open(2) // ResourceSpans.scope_spans
	scope := e.open(1)
	e.str(1, "ccfilter")
	e.str(2, b.run.o.Producer)
	e.close(scope)
	for _, s := range b.spans {
		e.span(b.run, s)
	}
	e.str(3, SemconvSchema)
	e.close(ss)
	e.str(3, SemconvSchema)
	e.close(rs)
}

func (e *otlpProto) span(r *otlpRun, s *otlpSpan) {
	at := e.open(2) // ScopeSpans.spans
	e.b = protowire.AppendTag(e.b, 1, protowire.BytesType)
	e.b = protowire.AppendBytes(e.b, r.traceID)
	e.b = protowire.AppendTag(e.b, 2, protowire.BytesType)
	e.b = protowire.AppendBytes(e.b, s.id[:])
	e.str(3, r.traceState())
	if s.parent != (otlpID{}) {
		e.b = protowire.AppendTag(e.b, 4, protowire.BytesType)
		e.b = protowire.AppendBytes(e.b, s.parent[:])
	}
	e.str(5, s.name)
	e.varint(6, uint64(s.kind))
	e.fixed64(7, s.start)
	e.fixed64(8, s.end)
	e.attrs(9, s.attrs)
	for i := range s.events {
		ev := &s.events[i]
		k := e.open(11)
		e.fixed64(1, ev.at)
		e.str(2, ev.name)
		e.attrs(3, ev.attrs)
		e.close(k)
	}
	e.varint(12, uint64(s.droppedEvents))
	if st := s.status; st.set {
		k := e.open(15)
		e.str(2, st.msg)
		e.varint(3, uint64(st.code))
		e.close(k)
	}
	e.close(at)
}

// attrs writes each attribute as the KeyValue field n.
func (e *otlpProto) attrs(n protowire.Number, kvs []otlpAttr) {
	for i := range kvs {
		a := &kvs[i]
		kv := e.open(n)
		e.str(1, a.key)
		v := e.open(2) // KeyValue.value: an AnyValue, its member always written
		switch a.kind {
		case otlpString:
			e.strAlways(1, a.s)
		case otlpBool:
			e.b = protowire.AppendTag(e.b, 2, protowire.VarintType)
			e.b = protowire.AppendVarint(e.b, uint64(a.n))
		case otlpInt:
			e.b = protowire.AppendTag(e.b, 3, protowire.VarintType)
			e.b = protowire.AppendVarint(e.b, uint64(a.n))
		case otlpDouble:
			e.b = protowire.AppendTag(e.b, 4, protowire.Fixed64Type)
			e.b = protowire.AppendFixed64(e.b, math.Float64bits(a.f))
		}
		e.close(v)
		e.close(kv)
	}
}
