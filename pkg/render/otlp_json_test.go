package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/ccfilter/ccfilter/internal/otlpref"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// otlpRequest is one request of a trace, in both encodings, as an
// exporter (Options.Spans) takes them.
type otlpRequest struct {
	json, protobuf []byte
	spans          int
}

// otlpRequests are the requests of the trace of a capture or transcript.
func otlpRequests(t *testing.T, file string) []otlpRequest {
	var reqs []otlpRequest
	exportEach(t, file, func(b *OTLPBatch) {
		j, err := b.AppendJSON(nil)
		require.NoError(t, err)
		pb, err := b.AppendProtobuf(nil)
		require.NoError(t, err)
		reqs = append(reqs, otlpRequest{json: j, protobuf: pb, spans: b.Len()})
	})
	return reqs
}

// exportEach lays out the trace of a capture or transcript, each batch
// handed to fn as an exporter takes it (Options.Spans).
func exportEach(t *testing.T, file string, fn func(*OTLPBatch)) {
	input, err := os.ReadFile(file)
	require.NoError(t, err)
	tr := stream.NewTracker(stream.TrackerOptions{})
	o := goldenOptions(tr)
	o.Spans = func(b *OTLPBatch) error { fn(b); return nil }
	r, err := New(OTLP, &bytes.Buffer{}, o)
	require.NoError(t, err)
	observeEach(t, input, tr, func(ev *stream.Event, done []*stream.ToolCall) {
		require.NoError(t, r.Render(Record{Event: ev, Calls: done}))
	})
	require.NoError(t, r.Close(tr.OpenCalls()))
}

// traceInputs are every capture and every transcript of testdata.
func traceInputs(t *testing.T) []string {
	more, err := filepath.Glob("../../testdata/transcripts/*/home/.claude/projects/*/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, more)
	return append(captureFiles(t), more...)
}

// TestOTLPJSONMatchesProtojson: the two encodings of every request of
// every capture's and transcript's trace agree with protojson: the
// protobuf, decoded by the proto package into the OpenTelemetry
// project's messages, is what protojson writes, byte for byte, as the
// JSON the format writes.
func TestOTLPJSONMatchesProtojson(t *testing.T) {
	spans := 0
	for _, f := range traceInputs(t) {
		for i, req := range otlpRequests(t, f) {
			msg, want, err := otlpref.FromProtobuf(req.protobuf)
			require.NoError(t, err, "%s: request %d", captureName(f), i)
			require.Equal(t, string(want), string(req.json), "%s: request %d", captureName(f), i)
			spans += len(msg.ResourceSpans[0].ScopeSpans[0].Spans)
			require.Equal(t, req.spans, len(msg.ResourceSpans[0].ScopeSpans[0].Spans))
		}
	}
	assert.Greater(t, spans, 250, "the captures' traces were encoded")
}

// TestOTLPProtobufDecodesToTheOldTrace: the protobuf the trace format now
// writes straight from its spans (no tracepb tree) decodes to the trace
// the tree made, on every capture and transcript: decoded into tracepb's
// messages and written by protojson (internal/otlpref, the reference
// encoding), each trace's requests are the old path's, whose digests
// testdata/otlp/trace.sha256 records: at main c8c501a, when the spans
// were tracepb messages, each request of the same layout (goldenOptions,
// Options.Spans) written by protojson the same way. Each request's spans
// are sorted by id first: the spans still open when a run ends are ended
// in a map's order, which differs from run to run (then and now).
func TestOTLPProtobufDecodesToTheOldTrace(t *testing.T) {
	raw, err := os.ReadFile("../../testdata/otlp/trace.sha256")
	require.NoError(t, err)
	old := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		require.True(t, ok, line)
		old[name] = sum
	}
	inputs := traceInputs(t)
	require.Len(t, old, len(inputs), "a digest for every capture and transcript")
	for _, f := range inputs {
		var lines bytes.Buffer
		for _, req := range otlpRequests(t, f) {
			msg, _, err := otlpref.FromProtobuf(req.protobuf)
			require.NoError(t, err)
			spans := msg.ResourceSpans[0].ScopeSpans[0].Spans
			slices.SortFunc(spans, func(a, b *tracepb.Span) int { return bytes.Compare(a.SpanId, b.SpanId) })
			b, err := otlpref.JSON(msg)
			require.NoError(t, err)
			lines.Write(append(b, '\n'))
		}
		rel, err := filepath.Rel("../../testdata", f)
		require.NoError(t, err)
		sum := sha256.Sum256(lines.Bytes())
		assert.Equal(t, old[filepath.ToSlash(rel)], hex.EncodeToString(sum[:]), "%s: the trace decoded from the protobuf", rel)
	}
}

// hardBatch is a batch of what the captures may not hold: every control
// character, quotes and backslashes, HTML's characters, text beyond
// ASCII, extreme and special floats, zero values (an empty string, false,
// 0 in an attribute are still written), an empty key, a set status with
// no code, dropped events, a trace state, a resource's version, a span
// of more than 127 bytes and one less (a protobuf length of two bytes
// and of one).
func hardBatch(name string) *OTLPBatch {
	var ctl []byte
	for c := 0; c < 0x20; c++ {
		ctl = append(ctl, byte(c))
	}
	ctl = append(ctl, "\"\\/<>&\u2028\u2029\x7fé😀"...)
	if name == "" {
		name = string(ctl)
	}
	run := &otlpRun{o: Options{Producer: "v1", Parent: &TraceParent{State: "k=v"}}, traceID: bytes.Repeat([]byte{0xab}, 16), version: "2.1"}
	span := &otlpSpan{id: otlpID{1, 2, 3, 4, 5, 6, 7, 8}, parent: otlpID{9}, name: name, kind: otlpKindClient,
		start: uint64(time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC).UnixNano()), end: math.MaxUint64,
		status: otlpStatus{set: true}, droppedEvents: 7}
	for i, f := range []float64{0, 1, -1.5, 1e-7, 1e21, 1e20, 123456789.125, math.SmallestNonzeroFloat64, math.MaxFloat64, math.NaN(), math.Inf(1), math.Inf(-1)} {
		span.attrs = append(span.attrs, floatAttr("f"+string(rune('a'+i)), f))
	}
	span.attrs = append(span.attrs, strAttr("", ""), boolAttr("b", false), boolAttr("t", true),
		intAttr("i", 0), intAttr("min", math.MinInt64), strAttr(strings.Repeat("k", 300), string(ctl)))
	span.events = []otlpEvent{{name: "e", at: 1, attrs: []otlpAttr{strAttr("m", string(ctl))}}, {}}
	done := &otlpSpan{id: otlpID{8}, status: otlpStatus{set: true, code: otlpStatusError, msg: "x"}}
	return &OTLPBatch{run: run, spans: []*otlpSpan{span, done, {}}}
}

// TestOTLPJSONMatchesProtojsonOnHardValues: on what the captures may not
// hold (hardBatch), the JSON is protojson's of the protobuf, decoded.
func TestOTLPJSONMatchesProtojsonOnHardValues(t *testing.T) {
	// The names: every hard character, then escapes in a string's last
	// eight bytes, which the quoting looks at in one word (some seen
	// already), and in a string shorter than a word.
	for _, name := range []string{"", "abcdefghij\n", "abcdefgh\"ij", "abcdefghi\\", "\"abcdefghijklmno", "ééééé\n", "a\tb", "abcdefgh", "abcdefghijklmnop"} {
		b := hardBatch(name)
		got, err := b.AppendJSON(nil)
		require.NoError(t, err)
		pb, err := b.AppendProtobuf(nil)
		require.NoError(t, err)
		msg, want, err := otlpref.FromProtobuf(pb)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "%q", name)
		assert.Len(t, msg.ResourceSpans[0].ScopeSpans[0].Spans, 3)
	}
	// A string that is not UTF-8, which protojson and proto.Marshal
	// refuse, is written by both encodings with each bad byte replaced by
	// U+FFFD, wherever its bad byte sits (the JSON's check is made of the
	// strings with a byte past ASCII, seen eight bytes at a time or one by
	// one): the same bytes as protojson's of the batch with it replaced.
	for _, name := range []string{"a\xffb", "abcdefg\xff", "\xffabcdefgh", "abcdefgh\xc3", "ééé\xe9é", "abc\"\xff\"defgh"} {
		got, err := hardBatch(name).AppendJSON(nil)
		require.NoError(t, err, "%q", name)
		pb, err := hardBatch(name).AppendProtobuf(nil)
		require.NoError(t, err, "%q", name)
		valid := hardBatch(strings.ToValidUTF8(name, "\uFFFD"))
		wantPB, err := valid.AppendProtobuf(nil)
		require.NoError(t, err)
		assert.Equal(t, wantPB, pb, "%q", name)
		_, want, err := otlpref.FromProtobuf(wantPB)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "%q", name)
	}
}

// TestOTLPJSONIsOneBufferPerRequest: encoding a batch of the trace of
// 05-subagents-async into the buffer of the batch before (as the format
// and the exporter do) allocates next to nothing, in either encoding
// (protojson's reflection, the compaction and the id rewriting allocated
// per field: thousands, most of --format otlp's time, issue 41).
func TestOTLPJSONIsOneBufferPerRequest(t *testing.T) {
	batches := 0
	exportEach(t, "../../testdata/events/05-subagents-async.jsonl", func(b *OTLPBatch) {
		batches++
		require.Greater(t, b.Len(), 10)
		for _, enc := range []func([]byte) ([]byte, error){b.AppendJSON, b.AppendProtobuf} {
			buf, err := enc(nil)
			require.NoError(t, err)
			allocs := testing.AllocsPerRun(5, func() {
				_, err := enc(buf[:0])
				require.NoError(t, err)
			})
			assert.LessOrEqual(t, allocs, 2.0, "allocations of one request's encoding")
		}
	})
	assert.Equal(t, 1, batches)
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

// eachWord calls fn with every eight-byte word of one byte c at one place
// among the bytes fill, as the encoder loads it (little-endian), and its
// bytes.
func eachWord(fills []byte, fn func(x uint64, w [8]byte, c byte, at int, fill byte)) {
	for _, fill := range fills {
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
				fn(x, w, byte(c), at, fill)
			}
		}
	}
}

// TestMayEscapeMissesNoByte: the eight-byte test of the encoder's quote
// finds every byte that needs an escape at every place of a word, among
// ASCII letters and among bytes past ASCII, and stops at no other byte
// among letters.
func TestMayEscapeMissesNoByte(t *testing.T) {
	eachWord([]byte{'a', 0xc3, 0xff, ' ', '~'}, func(x uint64, _ [8]byte, c byte, at int, fill byte) {
		need := c < ' ' || c == '"' || c == '\\'
		if need {
			require.True(t, mayEscape(x), "byte %#x at %d among %#x", c, at, fill)
		} else if fill < 0x80 && c < 0x80 {
			require.False(t, mayEscape(x), "byte %#x at %d among %#x", c, at, fill)
		}
	})
}

// TestPlainWordIsExact: the eight-byte test of quote's short way says a
// word is plain exactly when each of its bytes is ASCII and needs no
// escape, whatever the byte at each place among plain and other fills.
func TestPlainWordIsExact(t *testing.T) {
	eachWord([]byte{'a', 0xc3, 0xff, ' ', '~', 0x7f, 0x1f, '"'}, func(x uint64, w [8]byte, c byte, at int, fill byte) {
		plain := true
		for _, b := range w {
			plain = plain && b >= ' ' && b < 0x80 && b != '"' && b != '\\'
		}
		require.Equal(t, plain, plainWord(x), "byte %#x at %d among %#x", c, at, fill)
	})
}

// TestQuoteShortWayIsTheLongWay: a string quote writes at once
// (plainASCII) is written as the general loop writes it, and the strings
// it does not take are the ones that need it: every length to two words
// and past, with a byte to escape or past ASCII at each place.
func TestQuoteShortWayIsTheLongWay(t *testing.T) {
	tests := []struct {
		name string
		c    byte
		want bool // plainASCII
	}{
		{"letter", 'x', true},
		{"space", ' ', true},
		{"delete", 0x7f, true},
		{"quote", '"', false},
		{"backslash", '\\', false},
		{"newline", '\n', false},
		{"unit separator", 0x1f, false},
		{"nul", 0, false},
		{"past ASCII", 0xc3, false},
		{"not UTF-8", 0xff, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for n := 1; n <= 19; n++ {
				for at := range n {
					b := bytes.Repeat([]byte("a"), n)
					b[at] = tt.c
					s := string(b)
					assert.Equal(t, tt.want, plainASCII(s), "%q", s)
					var short, long otlpEncoder
					short.quote(s)
					long.quoteEscaped(s)
					assert.Equal(t, string(long.b), string(short.b), "%q", s)
				}
			}
		})
	}
}

// TestOTLPSpansAreNoMessageTrees: laying out the trace of
// 21-sixty-tool-calls (122 spans; the capture read and its events
// observed apart) costs at most 13.5 allocations a span: a span is one flat
// record, its attributes values in one slice, the record reused once
// exported; an id is hashed in the run's buffers; the last result is
// kept by value; an assistant's calls are read into the renderer's
// slice, and a record's join keys only for a span that lacks them. As
// tracepb messages (main at c8c501a) each attribute was three objects (a
// KeyValue, an AnyValue, its member) and each span a fresh tree: 54
// allocations a span; flat records with the id's, the result's, the
// calls' and the join keys' allocations: 14.9; now 12.5.
func TestOTLPSpansAreNoMessageTrees(t *testing.T) {
	input, err := os.ReadFile("../../testdata/events/21-sixty-tool-calls.jsonl")
	require.NoError(t, err)
	var out bytes.Buffer
	tr := stream.NewTracker(stream.TrackerOptions{})
	r, err := New(OTLP, &out, goldenOptions(tr))
	require.NoError(t, err)
	var mallocs uint64
	var before, after runtime.MemStats
	observeEach(t, input, tr, func(ev *stream.Event, done []*stream.ToolCall) {
		runtime.ReadMemStats(&before)
		require.NoError(t, r.Render(Record{Event: ev, Calls: done}))
		runtime.ReadMemStats(&after)
		mallocs += after.Mallocs - before.Mallocs
	})
	runtime.ReadMemStats(&before)
	require.NoError(t, r.Close(tr.OpenCalls()))
	runtime.ReadMemStats(&after)
	mallocs += after.Mallocs - before.Mallocs
	spans := bytes.Count(out.Bytes(), []byte(`"spanId"`))
	require.Equal(t, 122, spans)
	assert.LessOrEqual(t, float64(mallocs)/float64(spans), 13.5, "allocations a span (%d for %d spans)", mallocs, spans)
}

// TestOTLPReadsOnlyWhatTheTraceLaysOut: the trace lays out an assistant
// event's tool calls and its model call's head, never its text, and an
// init's facts, never its lists of tools, and a tool result's status,
// never the edit it made: 02-write-read's init (line 1) with its tools
// list grown by 1 MiB of names, its line 2 ("I'll write the file
// first.", a text block) with the text made 1 MiB long, and its line 4
// (the Write's result) with a patch of 1 MiB of lines, are
// each laid out allocating far less than what was added (the
// description's views decoded every text and thinking block, every tool
// name, every line of a patch, into strings).
func TestOTLPReadsOnlyWhatTheTraceLaysOut(t *testing.T) {
	input, err := os.ReadFile("../../testdata/events/02-write-read.jsonl")
	require.NoError(t, err)
	lines := bytes.SplitAfter(input, []byte("\n"))
	for _, c := range []struct {
		name      string
		line      int // of the capture, from 1
		said, big string
	}{
		{"an init's tools", 1, `"tools":["Task",`, `"tools":[` + strings.Repeat(`"mcp__some_server__some_tool",`, 1<<20/30) + `"Task",`},
		{"an assistant's text", 2, `"text":"I'll write the file first."`, `"text":"` + strings.Repeat("x", 1<<20) + `"`},
		{"a result's patch", 4, `"structuredPatch":[]`, `"structuredPatch":[{"oldStart":1,"oldLines":0,"newStart":1,"newLines":43690,"lines":[` +
			strings.Repeat(`"+a line of the file",`, 1<<20/22) + `"+its last line"]}]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Contains(t, string(lines[c.line-1]), c.said)
			grown := append(bytes.Join(lines[:c.line-1], nil), strings.Replace(string(lines[c.line-1]), c.said, c.big, 1)...)
			tr := stream.NewTracker(stream.TrackerOptions{})
			r, err := New(OTLP, &bytes.Buffer{}, goldenOptions(tr))
			require.NoError(t, err)
			var allocated uint64
			observeEach(t, grown, tr, func(ev *stream.Event, done []*stream.ToolCall) {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				require.NoError(t, r.Render(Record{Event: ev, Calls: done}))
				runtime.ReadMemStats(&after)
				if ev.Line == int64(c.line) {
					allocated = after.TotalAlloc - before.TotalAlloc
				}
			})
			require.NotZero(t, allocated, "the event was laid out")
			assert.Less(t, allocated, uint64(64<<10), "bytes allocated laying out the event grown by 1 MiB")
		})
	}
}

// TestOTLPEventsWithoutSpansAllocateNothing: in every capture and
// transcript, the main agent's events the trace takes nothing from but
// their time (a prompt, progress, bookkeeping: otlpIgnores, but the
// deltas, which carry a model call on; a subagent's first event notes
// when its agent was last heard of) are laid out allocating nothing:
// their join keys,
// which nearly every record carries, are read only of the records that
// make a span (reading them of every event was a third of the format's
// allocations). Such an event laid out again changes nothing.
func TestOTLPEventsWithoutSpansAllocateNothing(t *testing.T) {
	events, mallocs := 0, 0.0
	for _, f := range traceInputs(t) {
		input, err := os.ReadFile(f)
		require.NoError(t, err)
		tr := stream.NewTracker(stream.TrackerOptions{})
		r, err := New(OTLP, &bytes.Buffer{}, goldenOptions(tr))
		require.NoError(t, err)
		first := true
		observeEach(t, input, tr, func(ev *stream.Event, done []*stream.ToolCall) {
			if first || !otlpIgnores[ev.Kind] || ev.Kind == stream.KindDelta || ev.ParentToolUseID() != "" {
				require.NoError(t, r.Render(Record{Event: ev, Calls: done}))
				first = false // (the run's first event starts its trace)
				return
			}
			// Laid out again and again, as an averaged count (a stray
			// allocation of the runtime's, a finalizer run after a
			// collection, falls below one).
			events++
			mallocs += testing.AllocsPerRun(4, func() {
				require.NoError(t, r.Render(Record{Event: ev, Calls: done}))
			})
		})
	}
	require.Greater(t, events, 100)
	assert.Zero(t, mallocs, "allocations laying out %d events that make no span", events)
}
