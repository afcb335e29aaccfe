package render

// The trace format's spans as the run keeps them (otlp.go): flat records
// of what each span carries, attributes and events held by value, no
// tree of protobuf messages (tracepb made three objects of every
// attribute, and a collector's encoding then walked them: issue 41). A
// batch is encoded once, straight from these records into the output's
// buffer, as OTLP/JSON (otlp_json.go) or protobuf (otlp_proto.go); an
// exported span's record is then reused for the next one.

// otlpID is a span id (8 bytes); the zero id is none (a root with no
// parent: OTLP leaves an invalid id out the same way).
type otlpID [8]byte

// OTLP's span kinds and status codes (trace.proto's enums), the ones the
// trace format sets.
const (
	otlpKindInternal = 1
	otlpKindClient   = 3
	otlpStatusOK     = 1
	otlpStatusError  = 2
)

// otlpSpan is one span of the run.
type otlpSpan struct {
	id, parent otlpID
	name       string
	kind       int32
	start, end uint64
	attrs      []otlpAttr
	events     []otlpEvent
	// droppedEvents counts the events past otlpMaxEvents.
	droppedEvents uint32
	status        otlpStatus
}

// otlpStatus is a span's status; hasStatus says it was set (an OK
// status with no message is still written, as protojson writes a set
// message).
type otlpStatus struct {
	set  bool
	code int32
	msg  string
}

type otlpEvent struct {
	name  string
	at    uint64
	attrs []otlpAttr
}

// otlpValueKind is which of AnyValue's members an attribute sets.
type otlpValueKind uint8

const (
	otlpString otlpValueKind = iota
	otlpBool
	otlpInt
	otlpDouble
)

// otlpAttr is an attribute: its key and one value (s for a string; n for
// an int, or 1 for true; f for a double).
type otlpAttr struct {
	key  string
	kind otlpValueKind
	s    string
	n    int64
	f    float64
}

func strAttr(k, v string) otlpAttr       { return otlpAttr{key: k, kind: otlpString, s: v} }
func intAttr(k string, v int64) otlpAttr { return otlpAttr{key: k, kind: otlpInt, n: v} }
func floatAttr(k string, v float64) otlpAttr {
	return otlpAttr{key: k, kind: otlpDouble, f: v}
}

func boolAttr(k string, v bool) otlpAttr {
	a := otlpAttr{key: k, kind: otlpBool}
	if v {
		a.n = 1
	}
	return a
}

func hasAttr(s *otlpSpan, k string) bool {
	for i := range s.attrs {
		if s.attrs[i].key == k {
			return true
		}
	}
	return false
}

// OTLPBatch is one request of the trace format (an
// ExportTraceServiceRequest: the run's resource, ccfilter's scope, the
// spans that ended), handed to Options.Spans to be encoded in the
// protocol the exporter speaks. It is valid only during that call: its
// spans' records are then reused.
type OTLPBatch struct {
	run   *otlpRun
	spans []*otlpSpan
}

// Len is how many spans the request carries.
func (b *OTLPBatch) Len() int { return len(b.spans) }

// TraceID is the trace of the request's spans (a run is one trace).
func (b *OTLPBatch) TraceID() []byte { return b.run.traceID }

// AppendJSON appends the request as OTLP/JSON on one line (no newline):
// what --format otlp writes.
func (b *OTLPBatch) AppendJSON(dst []byte) ([]byte, error) {
	e := otlpEncoder{b: dst}
	e.batch(b)
	if e.err != nil {
		return nil, e.err
	}
	return e.b, nil
}

// AppendProtobuf appends the request's protobuf encoding (OTLP/HTTP's
// default body).
func (b *OTLPBatch) AppendProtobuf(dst []byte) ([]byte, error) {
	e := otlpProto{b: dst}
	e.batch(b)
	if e.err != nil {
		return nil, e.err
	}
	return e.b, nil
}

// resource is the request's resource's attributes.
func (b *OTLPBatch) resource() []otlpAttr {
	res := []otlpAttr{strAttr("service.name", "claude-code")}
	if v := b.run.version; v != "" {
		res = append(res, strAttr("service.version", v))
	}
	return res
}
