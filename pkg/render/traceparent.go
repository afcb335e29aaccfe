package render

import (
	"encoding/hex"
	"fmt"
	"strings"
)

// TraceParent is the W3C trace context a run's trace is put under
// (TRACEPARENT and TRACESTATE in the environment, as claude -p reads
// them for its own spans): its trace id is the run's, its span the root
// span's parent, its state every span's.
type TraceParent struct {
	TraceID [16]byte
	SpanID  [8]byte
	State   string
}

// ParseTraceParent reads a traceparent header's value
// (https://www.w3.org/TR/trace-context/#traceparent-header):
// version-traceid-parentid-flags in lower-case hex, version 00 (a later
// version's first four fields are read the same); an all-zero id is
// invalid.
func ParseTraceParent(traceparent, tracestate string) (*TraceParent, error) {
	f := strings.Split(strings.TrimSpace(traceparent), "-")
	bad := func(why string) error {
		return fmt.Errorf("%q is not a W3C traceparent (00-<32 hex digits>-<16 hex digits>-<2 hex digits>): %s", traceparent, why)
	}
	if len(f) < 4 || f[0] == "00" && len(f) != 4 {
		return nil, bad("four fields, separated by -")
	}
	if len(f[0]) != 2 || f[0] == "ff" || len(f[1]) != 32 || len(f[2]) != 16 || len(f[3]) != 2 {
		return nil, bad("a field's length")
	}
	var p TraceParent
	for _, x := range f[:4] {
		if x != strings.ToLower(x) {
			return nil, bad("upper-case hex")
		}
	}
	if _, err := hex.Decode(p.TraceID[:], []byte(f[1])); err != nil {
		return nil, bad("the trace id")
	}
	if _, err := hex.Decode(p.SpanID[:], []byte(f[2])); err != nil {
		return nil, bad("the parent id")
	}
	if _, err := hex.DecodeString(f[0] + f[3]); err != nil {
		return nil, bad("the version or flags")
	}
	if p.TraceID == [16]byte{} || p.SpanID == [8]byte{} {
		return nil, bad("an id of zeros")
	}
	p.State = strings.TrimSpace(tracestate)
	return &p, nil
}
