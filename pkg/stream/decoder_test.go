package stream_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// item is one result of Next: an event's line and raw bytes, or an error.
type item struct {
	Line int64
	Raw  string
	Err  string
}

// readAll drains a decoder through a reader that is not seekable and
// returns at most one byte per Read when oneByte is set, so buffer
// boundaries fall everywhere; before every other Next it asks Buffered.
func readAll(t *testing.T, in string, opts stream.DecoderOptions, oneByte bool) []item {
	t.Helper()
	var r io.Reader = strings.NewReader(in)
	if oneByte {
		r = iotest.OneByteReader(r)
	} else {
		r = io.MultiReader(r) // hides any Seek/WriteTo
	}
	if opts.BufferSize != 0 {
		opts.BufferSize = max(opts.BufferSize, 16) // bufio's least
	}
	dec := stream.NewDecoder(r, opts)
	var out []item
	for i := 0; i < 1000; i++ {
		if i%2 == 0 {
			dec.Buffered() // as a live consumer does: Next then takes the line it found
		}
		ev, err := dec.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			require.True(t, stream.IsLineError(err), "only line errors here: %v", err)
			out = append(out, item{Err: err.Error()})
			continue
		}
		out = append(out, item{Line: ev.Line, Raw: string(ev.Raw)})
	}
	t.Fatal("decoder does not end")
	return nil
}

// TestDecoderFraming proves the line rules of the issue: LF only, CRLF,
// BOM, blank lines, a missing final newline, malformed and cut-off lines in
// the middle (reported with their line number, nothing merged or lost), and
// JSON-array input; with both small and one-byte reads.
func TestDecoderFraming(t *testing.T) {
	a := `{"type":"a"}`
	b := `{"type":"b","s":"x\u2028y"}`
	cases := []struct {
		name string
		in   string
		want []item
	}{
		{"plain", a + "\n" + b + "\n", []item{{1, a, ""}, {2, b, ""}}},
		{"no final newline", a + "\n" + b, []item{{1, a, ""}, {2, b, ""}}},
		{"crlf", a + "\r\n" + b + "\r\n", []item{{1, a, ""}, {2, b, ""}}},
		{"bom", "\xEF\xBB\xBF" + a + "\n", []item{{1, a, ""}}},
		{"blank lines skipped, numbers kept", "\n" + a + "\n\n  \n" + b + "\n", []item{{2, a, ""}, {5, b, ""}}},
		{"raw U+2028 is not a line break", "{\"t\":\"x\u2028y\u2029z\"}\n", []item{{1, "{\"t\":\"x\u2028y\u2029z\"}", ""}}},
		{"invalid line in the middle", a + "\nnot json\n" + b + "\n", []item{{1, a, ""}, {Err: "<stdin>:2: invalid JSON: invalid literal, want null at byte 0"}, {3, b, ""}}},
		{"cut-off last line", a + "\n" + `{"type":"assistant","message":{"con`, []item{{1, a, ""}, {Err: "<stdin>:2: truncated JSON (the line ends mid-value): unterminated string: unexpected end of input at byte 35"}}},
		{"cut-off line then more", `{"type":"x` + "\n" + a + "\n", []item{{Err: "<stdin>:1: truncated JSON (the line ends mid-value): unterminated string: unexpected end of input at byte 10"}, {2, a, ""}}},
		{"two objects on one line are not merged", a + a + "\n", []item{{Err: "<stdin>:1: invalid JSON: unexpected '{' after the value at byte 12"}}},
		{"array is not an event line", "[1,2]\n" + a + "\n", nil},
		{"scalar line", a + "\n42\n", []item{{1, a, ""}, {Err: "<stdin>:2: invalid JSON: not a JSON object: \"42\""}}},
		{"unknown type is an event", `{"type":"brand_new","x":1}` + "\n", []item{{1, `{"type":"brand_new","x":1}`, ""}}},
		{"json array input", "[\n " + a + ",\n " + b + "\n]\n", []item{{1, a, ""}, {2, b, ""}}},
		{"json array one line", "[" + a + "," + b + "]", []item{{1, a, ""}, {2, b, ""}}},
		{"json array with bad element", "[" + a + ",{\"x\":1 2}," + b + "]", []item{{1, a, ""}, {Err: "<stdin>:2: invalid JSON: unexpected '2', want ',' or '}' at byte 7"}, {3, b, ""}}},
		{"json array cut off", "[" + a + ",{\"x\":", []item{{1, a, ""}, {Err: "<stdin>:2: truncated JSON (the line ends mid-value): unexpected end of input at byte 5"}}},
		// Not one array: the array is a stray line, and nothing after it
		// is lost (issue 33 item 3): the rest of its line, then line 2.
		{"json array then more", "[" + a + "] junk\n" + b + "\n", []item{{1, a, ""},
			{Err: "<stdin>:1: invalid JSON: a JSON array among the event lines, not one event (its 1 elements were read as events; an input that is one array, --output-format json, has nothing after it); the lines after it are read"},
			{Err: "<stdin>:1: invalid JSON: unexpected 'j', want a value at byte 0"}, {2, b, ""}}},
		{"blank lines, an array, then a stream", "\n\n[]\n" + a + "\n", []item{
			{Err: "<stdin>:3: invalid JSON: a JSON array among the event lines, not one event (its 0 elements were read as events; an input that is one array, --output-format json, has nothing after it); the lines after it are read"},
			{4, a, ""}}},
		{"empty array then a stream", "[]\n" + a + "\n" + b + "\n", []item{
			{Err: "<stdin>:1: invalid JSON: a JSON array among the event lines, not one event (its 0 elements were read as events; an input that is one array, --output-format json, has nothing after it); the lines after it are read"},
			{2, a, ""}, {3, b, ""}}},
		{"empty input", "", nil},
		{"only spaces", " \n\n", nil},
	}
	for _, tc := range cases {
		if tc.name == "array is not an event line" {
			continue // covered by TestDecoderArrayDetection
		}
		for _, oneByte := range []bool{false, true} {
			for _, bufSize := range []int{0, 16} {
				t.Run(fmt.Sprintf("%s/onebyte=%v/buf=%d", tc.name, oneByte, bufSize), func(t *testing.T) {
					assert.Equal(t, tc.want, readAll(t, tc.in, stream.DecoderOptions{BufferSize: bufSize}, oneByte))
				})
			}
		}
	}
}

// TestDecoderArrayDetection proves the first non-space byte decides the
// shape, and an array input that ends without ']' is reported.
func TestDecoderArrayDetection(t *testing.T) {
	got := readAll(t, "  \n[{\"type\":\"a\"}", stream.DecoderOptions{}, false)
	require.Len(t, got, 2)
	assert.Equal(t, `{"type":"a"}`, got[0].Raw)
	assert.Contains(t, got[1].Err, "without its closing ']'")
}

// TestDecoderOffsetsAndRawBytes proves every event knows its byte offset
// and keeps its bytes exactly (no re-encoding).
func TestDecoderOffsetsAndRawBytes(t *testing.T) {
	lines := []string{`{"type":"a",  "k" : [1, 2.50]}`, `{"b":"\u00e9","type":"c"}`, `{"type":"d"}`}
	in := "\xEF\xBB\xBF" + lines[0] + "\r\n\n" + lines[1] + "\n" + lines[2]
	dec := stream.NewDecoder(iotest.OneByteReader(strings.NewReader(in)), stream.DecoderOptions{BufferSize: 16})
	wantOff := []int64{3, int64(3 + len(lines[0]) + 3), int64(3 + len(lines[0]) + 3 + len(lines[1]) + 1)}
	for i := range lines {
		ev, err := dec.Next()
		require.NoError(t, err)
		assert.Equal(t, lines[i], string(ev.Raw))
		assert.Equal(t, wantOff[i], ev.Offset)
		assert.Equal(t, in[ev.Offset:ev.Offset+int64(len(ev.Raw))], string(ev.Raw))
	}
	_, err := dec.Next()
	assert.Equal(t, io.EOF, err)
}

// TestDecoderHugeLine proves a 50 MB tool_result line decodes (no 64 KiB or
// 1 MiB scanner limit) and a line over the cap is skipped with a clear
// error while reading goes on.
func TestDecoderHugeLine(t *testing.T) {
	big := `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"` + strings.Repeat("x", 50<<20) + `"}]}}`
	in := `{"type":"a"}` + "\n" + big + "\n" + `{"type":"b"}` + "\n"
	dec := stream.NewDecoder(strings.NewReader(in), stream.DecoderOptions{})
	var kinds []string
	for {
		ev, err := dec.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		kinds = append(kinds, ev.Kind.String())
		if ev.Line == 2 {
			assert.Equal(t, len(big), len(ev.Raw))
			assert.Equal(t, 50<<20, ev.ToolResults()[0].Size())
		}
	}
	assert.Equal(t, []string{"unknown", "tool_result", "unknown"}, kinds)

	dec = stream.NewDecoder(strings.NewReader(in), stream.DecoderOptions{MaxLineBytes: 1 << 20, BufferSize: 4096})
	ev, err := dec.Next()
	require.NoError(t, err)
	assert.Equal(t, int64(1), ev.Line)
	_, err = dec.Next()
	var tl *stream.LineTooLongError
	require.ErrorAs(t, err, &tl)
	assert.Equal(t, int64(2), tl.Line)
	assert.True(t, tl.Unended, "reported as it passed the limit, not at its end")
	assert.Equal(t, "<stdin>:2: line longer than the limit of 1048576 bytes (skipped without reading it whole)", err.Error())
	ev, err = dec.Next()
	require.NoError(t, err)
	assert.Equal(t, `{"type":"b"}`, string(ev.Raw))
	assert.Equal(t, int64(3), ev.Line)
}

// endlessLine is an endless line: 'x' forever, counting what was read.
type endlessLine struct{ read int64 }

func (e *endlessLine) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.read += int64(len(p))
	return len(p), nil
}

// TestEndlessLineIsReportedAtOnce proves a line that never ends (cat
// /dev/zero) is reported as soon as it passes the limit, having read little
// more than the limit, from a pipe and from a character device opened as a
// file (read like a pipe: no look-ahead, which would never find the end).
func TestEndlessLineIsReportedAtOnce(t *testing.T) {
	const limit = 1 << 20
	t.Run("pipe", func(t *testing.T) {
		in := &endlessLine{}
		dec := stream.NewDecoder(in, stream.DecoderOptions{MaxLineBytes: limit, BufferSize: 4096})
		_, err := dec.Next()
		var tl *stream.LineTooLongError
		require.ErrorAs(t, err, &tl)
		assert.Equal(t, int64(1), tl.Line)
		assert.True(t, tl.Unended)
		assert.Less(t, in.read, int64(limit+2*4096), "no more read than the limit and a buffer")
	})
	t.Run("character device", func(t *testing.T) {
		f, err := os.Open("/dev/zero")
		if err != nil {
			t.Skip("no /dev/zero here:", err)
		}
		defer f.Close()
		for _, r := range []stream.Reader{stream.NewDecoder(f, stream.DecoderOptions{MaxLineBytes: limit}), stream.NewReader(f, stream.DecoderOptions{MaxLineBytes: limit})} {
			_, err = r.Next()
			var tl *stream.LineTooLongError
			require.ErrorAs(t, err, &tl)
			assert.True(t, tl.Unended)
			require.NoError(t, r.Close())
		}
	})
	t.Run("the next line after the long one is read", func(t *testing.T) {
		in := strings.Repeat("x", 3*limit) + "\n" + `{"type":"b"}` + "\n"
		dec := stream.NewDecoder(iotest.HalfReader(strings.NewReader(in)), stream.DecoderOptions{MaxLineBytes: limit, BufferSize: 4096})
		_, err := dec.Next()
		require.True(t, stream.IsLineError(err), err)
		ev, err := dec.Next()
		require.NoError(t, err)
		assert.Equal(t, int64(2), ev.Line)
		assert.Equal(t, `{"type":"b"}`, string(ev.Raw))
		_, err = dec.Next()
		assert.Equal(t, io.EOF, err)
	})
}

// TestDecoderReadErrorIsFinal proves an I/O error is returned as is, not as
// a line error.
func TestDecoderReadErrorIsFinal(t *testing.T) {
	boom := errors.New("disk on fire")
	dec := stream.NewDecoder(io.MultiReader(strings.NewReader(`{"type":"a"}`+"\n"), iotest.ErrReader(boom)), stream.DecoderOptions{})
	_, err := dec.Next()
	require.NoError(t, err)
	_, err = dec.Next()
	assert.ErrorIs(t, err, boom)
	assert.False(t, stream.IsLineError(err))
}

// TestCutAndConcatenatedCaptures derives hostile variants of every real
// capture: cut at arbitrary byte offsets, and all captures concatenated
// without a final newline between some; no line may be lost or merged:
// events + line errors == non-blank lines.
func TestCutAndConcatenatedCaptures(t *testing.T) {
	var all []byte
	for _, f := range captures(t) {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		all = append(all, data...)
		for _, cut := range []int{len(data) / 3, len(data) / 2, len(data) - 7} {
			if cut <= 0 {
				continue
			}
			part := data[:cut]
			ev, errs := count(t, part)
			assert.Equal(t, nonBlankLines(part), ev+errs, "%s cut at %d", f, cut)
			if part[len(part)-1] != '\n' {
				assert.GreaterOrEqual(t, errs, 1, "%s cut at %d: the cut line is reported", f, cut)
			}
		}
	}
	ev, errs := count(t, all)
	assert.Equal(t, 0, errs)
	assert.Equal(t, nonBlankLines(all), ev)
}

func count(t *testing.T, data []byte) (events, lineErrors int) {
	dec := stream.NewDecoder(bytes.NewReader(data), stream.DecoderOptions{BufferSize: 4096})
	for {
		_, err := dec.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			require.True(t, stream.IsLineError(err))
			lineErrors++
			continue
		}
		events++
	}
}

func nonBlankLines(data []byte) int {
	n := 0
	for _, l := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			n++
		}
	}
	return n
}

// endless makes an endless hostile stream on the fly: tool calls that never
// get a result, distinct message ids, subagent events with fresh parent ids,
// unknown types, and a 64 KiB tool result every 100 events.
type endless struct {
	n, limit int
	buf      bytes.Buffer
}

func (g *endless) Read(p []byte) (int, error) {
	for g.buf.Len() < len(p) {
		if g.n >= g.limit {
			if g.buf.Len() == 0 {
				return 0, io.EOF
			}
			break
		}
		g.n++
		i := g.n
		switch i % 5 {
		case 0:
			fmt.Fprintf(&g.buf, `{"type":"assistant","message":{"id":"msg_%d","model":"m","content":[{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"echo %d"}}],"usage":{"input_tokens":1,"output_tokens":2}},"parent_tool_use_id":null,"timestamp":"2026-01-01T00:00:00Z"}`+"\n", i, i, i)
		case 1:
			fmt.Fprintf(&g.buf, `{"type":"assistant","message":{"id":"msg_%d","model":"m","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":1,"output_tokens":2}},"parent_tool_use_id":"toolu_parent_%d"}`+"\n", i, i)
		case 2:
			fmt.Fprintf(&g.buf, `{"type":"new_type_%d","subtype":"s%d"}`+"\n", i, i)
		case 3:
			if i%100 == 3 {
				fmt.Fprintf(&g.buf, `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":"%s"}]}}`+"\n", i-3, strings.Repeat("y", 64<<10))
			} else {
				fmt.Fprintf(&g.buf, `{"type":"system","subtype":"task_started","task_id":"t%d","tool_use_id":"toolu_%d","task_type":"local_agent"}`+"\n", i, i)
			}
		case 4:
			fmt.Fprintf(&g.buf, `{"type":"result","subtype":"success","is_error":false,"result":"ok %d","total_cost_usd":0.1}`+"\n", i)
		}
	}
	return g.buf.Read(p)
}

// TestTrackerMemoryIsBounded streams a generated input equivalent to
// several GB of events' worth of state (two million events: 400k tool calls
// that never complete, 400k subagents, 400k unknown types) through the
// decoder and tracker, and asserts the live heap stays under a fixed bound
// and the evictions are counted.
func TestTrackerMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("streams two million events")
	}
	events := 2_000_000
	if raceEnabled {
		events = 200_000 // still far past every cap
	}
	g := &endless{limit: events}
	dec := stream.NewDecoder(g, stream.DecoderOptions{})
	tr := stream.NewTracker(stream.TrackerOptions{})
	var peak uint64
	var ms runtime.MemStats
	for n := 0; ; n++ {
		ev, err := dec.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		tr.Observe(ev)
		if n%200_000 == 0 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	peak = max(peak, ms.HeapAlloc)
	t.Logf("peak live heap %d MiB after %d events", peak>>20, tr.Stats().Events)
	assert.Less(t, peak, uint64(64<<20), "live heap stays bounded")
	st := tr.Stats()
	assert.Equal(t, int64(events), st.Events)
	assert.Greater(t, st.EvictedCalls, events/10, "the open-call cap evicted the oldest calls")
	assert.Greater(t, st.EvictedSubagents, events/10)
	types := tr.Types()
	assert.LessOrEqual(t, len(types), 1001)
	assert.Equal(t, "(other)", types[len(types)-1].Type)
	assert.Equal(t, stream.Succeeded, tr.Outcome().Status)
}

// FuzzDecoder runs reader + decoder + tracker over arbitrary bytes, seeded
// with every capture: nothing may panic, and every non-blank line is either
// an event or a line error.
func FuzzDecoder(f *testing.F) {
	files, _ := os.ReadDir("../../testdata/events")
	for _, fi := range files {
		if strings.HasSuffix(fi.Name(), ".jsonl") {
			data, _ := os.ReadFile("../../testdata/events/" + fi.Name())
			if len(data) < 200_000 {
				f.Add(data)
			}
		}
	}
	// Hostile cases of issue 20: a key written twice, numbers past int64
	// and float64, a raw control byte in a string, a hook heartbeat.
	f.Add([]byte(`{"type":"result","type":"mystery","is_error":true,"is_error":false,"result":"x"}` + "\n"))
	f.Add([]byte(`{"type":"result","subtype":"success","is_error":false,"total_cost_usd":1e400,"num_turns":99999999999999999999,"usage":{"input_tokens":-1e400}}` + "\n"))
	f.Add([]byte("{\"type\":\"assistant\",\"message\":{\"id\":\"m\",\"content\":[{\"type\":\"text\",\"text\":\"a\x01\x1b]52;c;eA==\x07b\"}]}}\n"))
	f.Add(append(bytes.Repeat([]byte("x"), 70_000), "\n{\"type\":\"result\",\"is_error\":false}\n"...)) // over the limit, then a line
	f.Add([]byte(`{"type":"tool_progress","parent_tool_use_id":"toolu_bash","tool_use_id":"toolu_bash","tool_name":"Bash","elapsed_time_seconds":1}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dec := stream.NewDecoder(bytes.NewReader(data), stream.DecoderOptions{BufferSize: 64, MaxLineBytes: 1 << 16})
		tr := stream.NewTracker(stream.TrackerOptions{MaxOpenCalls: 4, MaxOpenMessages: 4, MaxSubagents: 4, MaxTypes: 4})
		for i := 0; ; i++ {
			ev, err := dec.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				if !stream.IsLineError(err) {
					t.Fatalf("unexpected error %v", err)
				}
				continue
			}
			tr.Observe(ev)
			_ = ev.Assistant()
			_ = ev.ToolResults()
			_ = ev.Result()
			_ = ev.Task()
			_ = ev.Init()
			_ = ev.Delta()
			_ = ev.Value()
			if i > 100000 {
				t.Fatal("no progress")
			}
		}
		_ = tr.Usage()
		_ = tr.Subagents()
		_, _ = tr.FinalText()

		// A seekable input (long lines sized by looking ahead), a pipe
		// (read in pieces) and one byte at a time see the same lines,
		// offsets, kinds and errors.
		kinds := func(r io.Reader, opts stream.DecoderOptions) (out []string) {
			dec := stream.NewDecoder(r, opts)
			defer dec.Close()
			for i := 0; i < 200000; i++ {
				ev, err := dec.Next()
				if err == io.EOF {
					return out
				}
				if err != nil {
					out = append(out, err.Error())
					continue
				}
				out = append(out, fmt.Sprint(ev.Line, ev.Offset, ev.Kind, ev.Type, ev.Subtype))
			}
			t.Fatal("no progress")
			return nil
		}
		base := stream.DecoderOptions{BufferSize: 64, MaxLineBytes: 1 << 16, Check: stream.CheckFraming}
		want := kinds(io.MultiReader(bytes.NewReader(data)), base)
		require.Equal(t, want, kinds(bytes.NewReader(data), base), "seekable")
		require.Equal(t, want, kinds(iotest.OneByteReader(bytes.NewReader(data)), base), "one byte")
	})
}

// TestDecoderSeekableInputSameAsPipe proves that sizing long lines by
// looking ahead in a seekable input (a file, strings.Reader) gives exactly
// the events and errors of a pipe: lines around and far past the buffer
// size, a last line without newline, an over-long line, and a reader that
// was already partly consumed when the decoder got it.
func TestDecoderSeekableInputSameAsPipe(t *testing.T) {
	line := func(n int) string { // a valid object line of exactly n bytes
		return `{"type":"x","p":"` + strings.Repeat("y", n-19) + `"}`
	}
	var in strings.Builder
	in.WriteString("skipped-prefix\n")
	for _, n := range []int{20, 63, 64, 65, 100, 300, 64 * 5, 20, 1000, 40} {
		in.WriteString(line(n) + "\n")
	}
	in.WriteString(line(5000) + "\n") // over MaxLineBytes
	in.WriteString(`{"type":"cut","p":"` + strings.Repeat("z", 200) + "\n")
	in.WriteString(line(150)) // no final newline
	data := in.String()
	const prefix = len("skipped-prefix\n")
	opts := stream.DecoderOptions{BufferSize: 64, MaxLineBytes: 2000}

	want := readAll(t, data[prefix:], opts, false)
	require.Len(t, want, 13)

	for _, name := range []string{"strings.Reader", "os.File"} {
		t.Run(name, func(t *testing.T) {
			var r io.ReadSeeker = strings.NewReader(data)
			if name == "os.File" {
				f, err := os.CreateTemp(t.TempDir(), "*.jsonl")
				require.NoError(t, err)
				defer f.Close()
				_, err = f.WriteString(data)
				require.NoError(t, err)
				r = f
			}
			_, err := r.Seek(int64(prefix), io.SeekStart)
			require.NoError(t, err)
			dec := stream.NewDecoder(r, opts)
			var got []item
			for {
				ev, err := dec.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					got = append(got, item{Err: err.Error()})
					continue
				}
				got = append(got, item{Line: ev.Line, Raw: string(ev.Raw)})
			}
			assert.Equal(t, want, got)
		})
	}
}

// decoded is everything a decoder returns for one line.
type decoded struct {
	Line, Offset int64
	Kind         string
	Raw          string
	Parent       string
	Head         string // AssistantHead, read from the event's message members
	Valid        string // what Event.Validate says of it
	Err          string
}

// decodeAll is everything a Decoder reading r returns (see drain).
func decodeAll(t *testing.T, r io.Reader, opts stream.DecoderOptions) []decoded {
	t.Helper()
	dec := stream.NewDecoder(r, opts)
	defer dec.Close()
	return drain(t, dec)
}

// TestDecoderInputsAgree proves that how the input arrives changes nothing
// (events, their line numbers, offsets, kinds and bytes, and the line
// errors, in order): a pipe, where long lines are read in pieces; a
// seekable input, where their size is looked up first (lineSize); a reader
// that returns one byte at a time; at every check level, with the default
// and a tiny buffer, on all captures concatenated, on cut and glued
// variants, with lines far longer than the buffer.
func TestDecoderInputsAgree(t *testing.T) {
	all := allCaptures(t)
	session, err := os.ReadFile(longSession)
	require.NoError(t, err)
	long := `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result","content":"` + strings.Repeat(`ab\n`, 3<<20) + `"}]}}`
	inputs := map[string][]byte{
		"captures":         all,
		"long session":     session,
		"cut":              append(append([]byte{}, all[:len(all)/2]...), all[len(all)/2+1000:]...),
		"glued":            bytes.Replace(all, []byte("}\n{"), []byte("}{"), 7),
		"long lines":       []byte(strings.Join([]string{`{"type":"a"}`, long, `{"type":"b"}`, long, long[:len(long)/2], `{"type":"c"}`}, "\n")),
		"no final newline": all[:len(all)-1],
	}
	for name, in := range inputs {
		for _, check := range []stream.Check{stream.CheckAll, stream.CheckFraming} {
			for _, bufSize := range []int{0, 4096} {
				opts := stream.DecoderOptions{Check: check, BufferSize: bufSize}
				want := decodeAll(t, io.MultiReader(bytes.NewReader(in)), opts)
				t.Run(fmt.Sprintf("%s/check=%d/buf=%d", name, check, bufSize), func(t *testing.T) {
					assert.Equal(t, want, decodeAll(t, bytes.NewReader(in), opts), "seekable")
					if len(in) < 1<<20 || bufSize == 0 {
						return
					}
					small := in[:200000]
					w := decodeAll(t, io.MultiReader(bytes.NewReader(small)), opts)
					assert.Equal(t, w, decodeAll(t, iotest.OneByteReader(bytes.NewReader(small)), opts), "one byte")
				})
			}
		}
	}
}

// TestDecoderPrepareMatchesConsumerValidation proves that building trees
// in the Prepare option gives what a consumer that validates and decodes
// the chosen events itself gets: the same trees, and a malformed chosen
// line reported as the same line error, on the captures with cut and
// glued lines.
func TestDecoderPrepareMatchesConsumerValidation(t *testing.T) {
	all := allCaptures(t)
	// A user line whose framing holds but whose JSON does not.
	bad := []byte(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"x","content":"a\qb"}]}}` + "\n")
	in := append(bytes.Replace(all, []byte("}\n{"), []byte("}{"), 5), bad...)
	in = append(in, all[:len(all)/3]...)
	chosen := func(ev *stream.Event) bool { return ev.Type == "user" }
	type seen struct {
		Line int64
		Tree string
		Err  string
	}
	run := func(opts stream.DecoderOptions, consumerDecodes bool) []seen {
		dec := stream.NewDecoder(bytes.NewReader(in), opts)
		defer dec.Close()
		var out []seen
		for {
			ev, err := dec.Next()
			if err == io.EOF {
				return out
			}
			if err == nil && consumerDecodes && chosen(ev) {
				err = ev.ValidateValue()
			}
			if err != nil {
				require.True(t, stream.IsLineError(err), "%v", err)
				out = append(out, seen{Err: err.Error()})
				continue
			}
			s := seen{Line: ev.Line}
			if chosen(ev) {
				b, err := json.Marshal(ev.Value())
				require.NoError(t, err)
				s.Tree = string(b)
			}
			out = append(out, s)
		}
	}
	want := run(stream.DecoderOptions{Check: stream.CheckFraming}, true)
	require.Contains(t, fmt.Sprint(want), "invalid escape", "the bad line is among the errors")
	for _, check := range []stream.Check{stream.CheckFraming, stream.CheckAll} {
		// (With CheckAll the decoder reports the bad line before any
		// tree: with the same message.)
		opts := stream.DecoderOptions{Check: check, Prepare: func(ev *stream.Event) error {
			if !chosen(ev) {
				return nil
			}
			return ev.ValidateValue()
		}}
		assert.Equal(t, want, run(opts, false), "check %d", check)
	}
}

// trackAll feeds a tracker every event of data, decoded with
// framing checks and the given options (bad lines are passed over), and
// hands done the calls each event completes.
func trackAll(data []byte, needs stream.Needs, done func([]*stream.ToolCall)) *stream.Tracker {
	dec := stream.NewDecoder(bytes.NewReader(data), stream.DecoderOptions{Check: stream.CheckFraming})
	defer dec.Close()
	tr := stream.NewTracker(stream.TrackerOptions{Needs: needs})
	for {
		ev, err := dec.Next()
		if err == io.EOF {
			return tr
		}
		if err == nil {
			done(tr.Observe(ev))
		}
	}
}

// TestNoResultSizes: a tracker whose Needs show no tool result sizes
// gives every completed tool call, its error flag, lines and timing,
// and the usage, subagents and outcome, exactly as with sizes; only
// ResultBytes stays 0 (and it is not 0 with sizes, on these captures).
func TestNoResultSizes(t *testing.T) {
	all := allCaptures(t)
	run := func(noSizes bool) (calls []stream.ToolCall, rest string) {
		tr := trackAll(all, stream.Needs{NoResultSizes: noSizes}, func(done []*stream.ToolCall) {
			for _, c := range done {
				calls = append(calls, *c)
			}
		})
		return calls, fmt.Sprintf("%+v %+v %+v", tr.Usage(), tr.Outcome(), len(tr.Subagents()))
	}
	with, restWith := run(false)
	without, restWithout := run(true)
	require.Equal(t, restWith, restWithout)
	require.Len(t, without, len(with))
	sized := 0
	for i := range with {
		if with[i].ResultBytes > 0 {
			sized++
		}
		assert.Zero(t, without[i].ResultBytes)
		with[i].ResultBytes = 0
	}
	assert.Greater(t, sized, 50, "the captures' results have sizes")
	assert.Equal(t, with, without)
}

// TestFollowUsage: a tracker that follows usage but no tool calls gives
// the usage and the outcome exactly as a whole one, on every capture, and
// no calls at all.
func TestFollowUsage(t *testing.T) {
	all := allCaptures(t)
	run := func(noCalls bool) (calls int, usage stream.UsageReport, out stream.Outcome, open int) {
		needs := stream.Needs{}
		if noCalls {
			needs.Follow = stream.FollowUsage
		}
		tr := trackAll(all, needs, func(done []*stream.ToolCall) {
			calls += len(done)
		})
		return calls, tr.Usage(), tr.Outcome(), len(tr.OpenCalls())
	}
	calls, usage, out, _ := run(false)
	noCalls, noUsage, noOut, noOpen := run(true)
	assert.Greater(t, calls, 50, "the captures have tool calls")
	assert.Zero(t, noCalls)
	assert.Zero(t, noOpen)
	assert.Positive(t, usage.Calls)
	assert.Equal(t, usage, noUsage)
	assert.Equal(t, out, noOut)
}

// TestFollowOutcome: a tracker that follows the outcome only gives the
// outcome, the final answer (and whether it fell back to the assistant's
// text), the last result's bytes and the type counts exactly as a whole
// one, on every capture; and no usage, calls or subagents.
func TestFollowOutcome(t *testing.T) {
	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	fellBack := 0
	for _, name := range files {
		data, err := os.ReadFile(name)
		require.NoError(t, err)
		whole := trackAll(data, stream.Needs{}, func([]*stream.ToolCall) {})
		light := trackAll(data, stream.Needs{Follow: stream.FollowOutcome}, func(done []*stream.ToolCall) {
			assert.Empty(t, done)
		})
		assert.Equal(t, whole.Outcome(), light.Outcome(), name)
		text, fb := whole.FinalText()
		lightText, lightFB := light.FinalText()
		assert.Equal(t, text, lightText, name)
		assert.Equal(t, fb, lightFB, name)
		if fb {
			fellBack++
		}
		assert.Equal(t, string(whole.LastResult()), string(light.LastResult()), name)
		assert.Equal(t, whole.Types(), light.Types(), name)
		assert.Zero(t, light.Usage().Calls, name)
		assert.Empty(t, light.Subagents(), name)
	}
	assert.Positive(t, fellBack, "some capture's final answer comes from the fallback")
}

// trackTwice tracks data with needs and with light, and returns both
// trackers and the calls each completed, in order.
func trackTwice(data []byte, needs, light stream.Needs) (a, b *stream.Tracker, aCalls, bCalls []stream.ToolCall) {
	keep := func(into *[]stream.ToolCall) func([]*stream.ToolCall) {
		return func(done []*stream.ToolCall) {
			for _, c := range done {
				*into = append(*into, *c)
			}
		}
	}
	a = trackAll(data, needs, keep(&aCalls))
	b = trackAll(data, light, keep(&bCalls))
	return a, b, aCalls, bCalls
}

// TestNoFinalTextChangesNothingElse: a tracker told the final answer is
// not shown (Needs.NoFinalText: types, usage, tools) keeps no fallback
// text, so it never falls back, and every other figure (outcome, last
// result, type counts, usage, calls) is the one a tracker that keeps it
// gives, at each level it is followed, on every capture of
// testdata/events (27-compact's answer is the fallback).
func TestNoFinalTextChangesNothingElse(t *testing.T) {
	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	fellBack := 0
	for _, follow := range []stream.Follow{stream.FollowAll, stream.FollowUsage, stream.FollowOutcome} {
		for _, name := range files {
			data, err := os.ReadFile(name)
			require.NoError(t, err)
			keeps, light, calls, lightCalls := trackTwice(data, stream.Needs{Follow: follow}, stream.Needs{Follow: follow, NoFinalText: true})
			text, fb := keeps.FinalText()
			lightText, lightFB := light.FinalText()
			assert.False(t, lightFB, name)
			if fb {
				fellBack++
				assert.Empty(t, lightText, name)
				assert.NotEmpty(t, text, name)
			} else {
				assert.Equal(t, text, lightText, name)
			}
			assert.Equal(t, keeps.Outcome(), light.Outcome(), name)
			assert.Equal(t, string(keeps.LastResult()), string(light.LastResult()), name)
			assert.Equal(t, keeps.Types(), light.Types(), name)
			assert.Equal(t, keeps.Usage(), light.Usage(), name)
			assert.Equal(t, calls, lightCalls, name)
		}
	}
	assert.Positive(t, fellBack, "some capture's final answer comes from the fallback")
}

// TestNoToolTallyChangesNothingElse: a tracker told no view reads its
// tally's tool counts (Needs.NoToolTally: usage, tools) leaves them at 0,
// and its tally's other counts, its account (whose tool calls are its
// own), usage and calls are those of a tracker that counts them, at each
// level it is followed, on every capture of testdata/events.
func TestNoToolTallyChangesNothingElse(t *testing.T) {
	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	counted := 0
	for _, follow := range []stream.Follow{stream.FollowAll, stream.FollowUsage} {
		for _, name := range files {
			data, err := os.ReadFile(name)
			require.NoError(t, err)
			keeps, light, calls, lightCalls := trackTwice(data, stream.Needs{Follow: follow}, stream.Needs{Follow: follow, NoToolTally: true})
			want, got := keeps.Tally(), light.Tally()
			if want.ToolCalls > 0 {
				counted++
			}
			assert.Zero(t, got.ToolCalls, name)
			assert.Nil(t, got.Tools, name)
			assert.Zero(t, got.ToolErrors, name)
			want.ToolCalls, want.Tools, want.OtherTools, want.ToolErrors = 0, nil, 0, 0
			assert.Equal(t, want, got, name)
			assert.Equal(t, keeps.Account(), light.Account(), name)
			assert.Equal(t, keeps.Usage(), light.Usage(), name)
			assert.Equal(t, keeps.Outcome(), light.Outcome(), name)
			assert.Equal(t, calls, lightCalls, name)
		}
	}
	assert.Positive(t, counted, "the tallies that count them count tool calls")
}

// TestOutcomeOwnsItsBytes: the outcome the tracker reports is its own,
// not a view of the result event's bytes, which the decoder reuses (and a
// mapped file's are gone after Close): after the result, a decoder with a
// small buffer reads more lines over them, and the outcome is still the
// one a tracker fed copies reports.
func TestOutcomeOwnsItsBytes(t *testing.T) {
	data, err := os.ReadFile("../../testdata/events/14-json-schema.jsonl")
	require.NoError(t, err)
	for range 200 {
		data = append(data, `{"type":"system","subtype":"status","status":"`+strings.Repeat("x", 300)+`"}`+"\n"...)
	}
	want := stream.NewTracker(stream.TrackerOptions{})
	got := stream.NewTracker(stream.TrackerOptions{})
	dec := stream.NewDecoder(bytes.NewReader(data), stream.DecoderOptions{BufferSize: 4 << 10})
	for {
		ev, err := dec.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		got.Observe(ev)
		own, err := stream.NewEvent(ev.Raw, "t", ev.Line)
		require.NoError(t, err)
		want.Observe(own)
	}
	w, g := want.Outcome(), got.Outcome()
	require.NotEmpty(t, w.Last.StructuredOutput, "the capture answers with structured output")
	assert.Equal(t, w, g)
	wt, _ := want.FinalText()
	gt, _ := got.FinalText()
	assert.Equal(t, wt, gt)
	assert.Equal(t, want.Usage(), got.Usage())
}

// TestLongLineBufferReuse proves that reusing a long line's buffer for the
// next long line (longBuffer) hands out every line exactly as it is in the
// input: long lines shorter and longer than the one before, each with its
// own bytes, a cut one, short lines between them,
// from a pipe (the buffer grows by doubling) and from a seekable file (it
// is sized exactly), with the default and a tiny read buffer.
func TestLongLineBufferReuse(t *testing.T) {
	line := func(fill byte, n int) string {
		return `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result","content":"` + strings.Repeat(string(fill), n) + `"}]}}`
	}
	lines := []string{
		line('a', 5<<20), `{"type":"a"}`, line('b', 9<<20), line('c', 6<<20), `{"type":"b"}`,
		line('d', 12<<20), line('e', 4<<20+1), line('f', 7<<20)[:5<<20], `{"type":"c"}`, line('g', 8<<20),
	}
	in := []byte(strings.Join(lines, "\n") + "\n")
	{
		for _, bufSize := range []int{0, 4096} {
			for _, seekable := range []bool{false, true} {
				t.Run(fmt.Sprintf("buf=%d/seekable=%v", bufSize, seekable), func(t *testing.T) {
					var r io.Reader = bytes.NewReader(in)
					if !seekable {
						r = io.MultiReader(r)
					}
					got := decodeAll(t, r, stream.DecoderOptions{Check: stream.CheckFraming, BufferSize: bufSize})
					require.Len(t, got, len(lines))
					for i, want := range lines {
						if i == 7 {
							assert.Contains(t, got[i].Err, fmt.Sprintf(":%d:", i+1), "the cut line is reported")
							continue
						}
						assert.Equal(t, int64(i+1), got[i].Line, "line %d", i+1)
						assert.True(t, got[i].Raw == want, "line %d: %d bytes, want the input's %d", i+1, len(got[i].Raw), len(want))
					}
				})
			}
		}
	}
}

// TestDiscriminatorsReadEscapedAndLastKeys holds classification to jq's
// reading of the top-level "type" and "subtype" (a key spelled with
// escapes is the same key; the last of two wins), through the member index
// the framing walk builds, whose look at each key first tells apart keys
// that cannot be either by their first byte. The lines are a result and an
// init of 01-simple-qa (testdata/events) with their keys respelled.
func TestDiscriminatorsReadEscapedAndLastKeys(t *testing.T) {
	tests := []struct {
		name, line string
		typ, sub   string
		kind       stream.Kind
	}{
		{"escaped type", `{"\u0074ype":"result","subtype":"success","is_error":false,"result":"4"}`, "result", "success", stream.KindResult},
		{"escaped inside", `{"t\u0079pe":"system","s\u0075btype":"init","session_id":"s"}`, "system", "init", stream.KindInit},
		{"escaped first byte of subtype", `{"type":"system","\u0073ubtype":"init","session_id":"s"}`, "system", "init", stream.KindInit},
		{"last wins", `{"type":"user","timestamp":"t","tool_use_result":{},"\u0074ype":"result","subtype":"success"}`, "result", "success", stream.KindResult},
		{"keys that start like type are not it", `{"typ":"x","types":"y","tool_use_result":"z","type":"result","subtypes":"q","subtype":"success"}`, "result", "success", stream.KindResult},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, check := range []stream.Check{stream.CheckFraming, stream.CheckAll} {
				d := stream.NewDecoder(strings.NewReader(tt.line+"\n"), stream.DecoderOptions{Check: check})
				ev, err := d.Next()
				require.NoError(t, err)
				assert.Equal(t, tt.typ, ev.Type)
				assert.Equal(t, tt.sub, ev.Subtype)
				assert.Equal(t, tt.kind, ev.Kind)
			}
		})
	}
}
