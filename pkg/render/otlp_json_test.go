package render

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// protojsonOTLP is how OTLPJSON encoded a request until issue 41 (main at
// aa5e20c), kept as the reference its direct encoder is held to:
// protojson's mapping, compacted, then every base64 id rewritten as hex.
func protojsonOTLP(req *tracepb.TracesData) ([]byte, error) {
	b, err := protojson.MarshalOptions{UseEnumNumbers: true}.Marshal(req)
	if err != nil {
		return nil, err
	}
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		return nil, err
	}
	return refIDField.ReplaceAllFunc(c.Bytes(), func(m []byte) []byte {
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

var refIDField = regexp.MustCompile(`"(?:traceId|spanId|parentSpanId)":"[A-Za-z0-9+/=]*"`)

// TestOTLPJSONMatchesProtojson: the direct encoder writes, byte for byte,
// what protojson wrote, for every request of every capture's trace (each
// batch the otlp format exports, taken as an exporter takes it), with
// the transcripts' traces too (their join keys, prompt ids).
func TestOTLPJSONMatchesProtojson(t *testing.T) {
	more, err := filepath.Glob("../../testdata/transcripts/*/home/.claude/projects/*/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, more)
	spans := 0
	for _, f := range append(captureFiles(t), more...) {
		for i, req := range otlpRequests(t, f) {
			want, err := protojsonOTLP(req)
			require.NoError(t, err)
			got, err := OTLPJSON(req)
			require.NoError(t, err)
			require.Equal(t, string(want), string(got), "%s: request %d", captureName(f), i)
			spans += len(req.ResourceSpans[0].ScopeSpans[0].Spans)
		}
	}
	assert.Greater(t, spans, 250, "the captures' traces were encoded")
}

// otlpRequests are the requests of the trace of a capture or transcript,
// as an exporter (Options.Spans) takes them.
func otlpRequests(t *testing.T, file string) []*tracepb.TracesData {
	input, err := os.ReadFile(file)
	require.NoError(t, err)
	var reqs []*tracepb.TracesData
	tr := stream.NewTracker(stream.TrackerOptions{})
	o := goldenOptions(tr)
	o.Spans = func(req *tracepb.TracesData) error { reqs = append(reqs, req); return nil }
	r, err := New(OTLP, &bytes.Buffer{}, o)
	require.NoError(t, err)
	observeEach(t, input, tr, func(ev *stream.Event, done []*stream.ToolCall) {
		require.NoError(t, r.Render(Record{Event: ev, Calls: done}))
	})
	require.NoError(t, r.Close(tr.OpenCalls()))
	return reqs
}

// TestOTLPJSONMatchesProtojsonOnHardValues: what the captures may not
// hold: every control character, quotes and backslashes, HTML's
// characters, text beyond ASCII, extreme and special floats, zero values
// (an empty string, false, 0 in an attribute are still written), a
// status with no code, dropped counts, a trace state.
func TestOTLPJSONMatchesProtojsonOnHardValues(t *testing.T) {
	var ctl []byte
	for c := 0; c < 0x20; c++ {
		ctl = append(ctl, byte(c))
	}
	ctl = append(ctl, "\"\\/<>&\u2028\u2029\x7fé😀"...)
	span := &tracepb.Span{TraceId: bytes.Repeat([]byte{0xab}, 16), SpanId: []byte{1, 2, 3, 4, 5, 6, 7, 8},
		TraceState: "k=v", Name: string(ctl), Kind: tracepb.Span_SPAN_KIND_CLIENT,
		StartTimeUnixNano: uint64(time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC).UnixNano()), EndTimeUnixNano: math.MaxUint64,
		Status: &tracepb.Status{}, DroppedEventsCount: 7}
	for i, f := range []float64{0, 1, -1.5, 1e-7, 1e21, 1e20, 123456789.125, math.SmallestNonzeroFloat64, math.MaxFloat64, math.NaN(), math.Inf(1), math.Inf(-1)} {
		span.Attributes = append(span.Attributes, floatAttr("f"+string(rune('a'+i)), f))
	}
	span.Attributes = append(span.Attributes, strAttr("", ""), boolAttr("b", false), boolAttr("t", true),
		intAttr("i", 0), intAttr("min", math.MinInt64), &commonpb.KeyValue{Key: "unset"})
	span.Events = []*tracepb.Span_Event{{Name: "e", TimeUnixNano: 1, Attributes: []*commonpb.KeyValue{strAttr("m", string(ctl))}}, {}}
	done := &tracepb.Span{Status: &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: "x"}}
	for _, req := range []*tracepb.TracesData{{}, {ResourceSpans: []*tracepb.ResourceSpans{{}}},
		{ResourceSpans: []*tracepb.ResourceSpans{{ScopeSpans: []*tracepb.ScopeSpans{{Scope: &commonpb.InstrumentationScope{}, Spans: []*tracepb.Span{span, done}}}}}}} {
		want, err := protojsonOTLP(req)
		require.NoError(t, err)
		got, err := OTLPJSON(req)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got))
	}
	// A string that is not UTF-8 is refused by both.
	bad := &tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{{SchemaUrl: "a\xffb"}}}
	_, err := protojsonOTLP(bad)
	require.Error(t, err)
	_, err = OTLPJSON(bad)
	assert.ErrorContains(t, err, "invalid UTF-8")
}

// TestOTLPJSONIsOneBufferPerRequest: encoding a batch of the trace of
// 05-subagents-async allocates only its output buffer as it grows (a few
// allocations, whatever the spans), where protojson's reflection, the
// compaction and the id rewriting allocated per field (thousands: most
// of --format otlp's time, issue 41).
func TestOTLPJSONIsOneBufferPerRequest(t *testing.T) {
	reqs := otlpRequests(t, "../../testdata/events/05-subagents-async.jsonl")
	require.Len(t, reqs, 1)
	require.Greater(t, len(reqs[0].ResourceSpans[0].ScopeSpans[0].Spans), 10)
	allocs := testing.AllocsPerRun(5, func() {
		_, err := OTLPJSON(reqs[0])
		require.NoError(t, err)
	})
	assert.LessOrEqual(t, allocs, 12.0, "allocations of one request's encoding")
}

// TestOTLPLaunchedReadsTheResultsStart: a subagent's launch is told by
// the start of its result's text (05-subagents-async's "Async agent
// launched successfully..." results, which carry no tool_use_result),
// read from a prefix of the text, also past a blank start longer than
// the prefix, and from text blocks as from a string.
func TestOTLPLaunchedReadsTheResultsStart(t *testing.T) {
	blank := strings.Repeat(" \n", launchedPrefix)
	for _, c := range []struct {
		name, content string
		want          bool
	}{
		{"string", `"Async agent launched successfully.\nagentId: a1"`, true},
		{"blocks", `[{"type":"text","text":"\n Workflow launched: w"},{"type":"text","text":"more"}]`, true},
		{"blank start past the prefix", `"` + strings.ReplaceAll(blank, "\n", `\n`) + `Async agent launched"`, true},
		{"other", `"the file was read"`, false},
		{"empty", `""`, false},
		{"blank past the prefix only", `"` + strings.ReplaceAll(blank, "\n", `\n`) + `"`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dec := stream.NewDecoder(strings.NewReader(`{"type":"user","message":{"role":"user","content":[]}}`+"\n"), stream.DecoderOptions{})
			ev, err := dec.Next()
			require.NoError(t, err)
			assert.Equal(t, c.want, launched(ev, &stream.ToolResult{Content: []byte(c.content)}))
		})
	}
}

// TestMayEscapeMissesNoByte: the eight-byte test of the encoder's quote
// finds every byte that needs an escape at every place of a word, among
// ASCII letters and among bytes past ASCII, and stops at no other byte
// among letters.
func TestMayEscapeMissesNoByte(t *testing.T) {
	for _, fill := range []byte{'a', 0xc3, 0xff, ' ', '~'} {
		for at := range 8 {
			for c := range 256 {
				var w [8]byte
				for k := range w {
					w[k] = fill
				}
				w[at] = byte(c)
				x := uint64(0)
				for k := range w {
					x |= uint64(w[k]) << (8 * k)
				}
				need := c < ' ' || c == '"' || c == '\\'
				if need {
					require.True(t, mayEscape(x), "byte %#x at %d among %#x", c, at, fill)
				} else if fill < 0x80 && c < 0x80 {
					require.False(t, mayEscape(x), "byte %#x at %d among %#x", c, at, fill)
				}
			}
		}
	}
}
