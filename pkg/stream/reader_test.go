package stream_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/internal/gen/realcorpus"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// TestNewReaderMatchesDecoder holds the Reader NewReader picks for a
// regular file (read ahead on a goroutine) to a plain Decoder reading the
// same bytes from a pipe: the same events (line, offset, kind, bytes,
// parent) and the same line errors, in order, at each check level, on
// every capture, the real long session, a corpus of the captures
// concatenated with ids renamed, lines far longer than the buffers, and
// random mutations of them (bytes cut out, lines glued, junk and blank
// lines put in, a cut end).
func TestNewReaderMatchesDecoder(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // the rule reads ahead with more than one CPU
	session, err := os.ReadFile(longSession)
	require.NoError(t, err)
	var sources []*realcorpus.Source
	for _, f := range captures(t) {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		sources = append(sources, realcorpus.NewSource(f, data))
	}
	var corpus bytes.Buffer
	_, err = realcorpus.Concat(&corpus, sources, 24<<20)
	require.NoError(t, err)
	long := `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result","content":"` + strings.Repeat(`ab\n`, 1<<20) + `"}]}}`
	inputs := map[string][]byte{
		"captures":   allCaptures(t),
		"session":    session,
		"corpus":     corpus.Bytes(),
		"long lines": []byte(strings.Join([]string{`{"type":"a"}`, long, long[:len(long)/2], `{"type":"b"}`, long}, "\n")),
	}
	r := rand.New(rand.NewPCG(16, 16))
	for i := range 12 {
		inputs[fmt.Sprintf("mutated %d", i)] = mutate(r, session)
	}
	// The read-ahead's buffers are read where they were filled, a line
	// cut by a buffer's end moved in front of the next (aheadSource): with
	// small buffers, lines end at, just before and just after a buffer's
	// end everywhere, and lines longer than a buffer are read in pieces.
	lines := bytes.Split(bytes.TrimSuffix(session, []byte("\n")), []byte("\n"))
	inputs["array"] = append(append([]byte("[\n"), bytes.Join(lines, []byte(",\n"))...), "\n]\n"...)
	inputs["bom"] = append([]byte("\xEF\xBB\xBF"), session...)
	inputs["blank head"] = append([]byte("\n \n\t\r\n"), session...)
	inputs["no final newline"] = bytes.TrimSuffix(session, []byte("\n"))
	var edges bytes.Buffer
	for n := 60; n < 5000; n += 7 {
		fmt.Fprintf(&edges, `{"type":"x","pad":"%s"}`+"\n", strings.Repeat("p", n-23))
	}
	inputs["edges"] = edges.Bytes()
	// More lines to a buffer than its table holds (maxFramedLines): the
	// rest are the decoder's to frame.
	inputs["tiny lines"] = bytes.Repeat([]byte("{}\n{\"type\":\"x\"}\n{\"a\":1,\"b\":[2],\"c\":{}}\n"), 60000)
	small := map[string]bool{"long lines": true, "array": true, "bom": true, "blank head": true, "no final newline": true, "edges": true, "mutated 0": true, "mutated 1": true}
	dir := t.TempDir()
	for name, in := range inputs {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".jsonl")
		require.NoError(t, os.WriteFile(path, in, 0o644))
		sizes := []int{0}
		if small[name] {
			sizes = append(sizes, 64, 1000, 4096)
		}
		for _, size := range sizes {
			for _, check := range []stream.Check{stream.CheckAll, stream.CheckFraming} {
				opts := stream.DecoderOptions{Check: check, BufferSize: size}
				want := decodeAll(t, io.MultiReader(bytes.NewReader(in)), opts)
				f, err := os.Open(path)
				require.NoError(t, err)
				rd := stream.NewReader(f, opts)
				require.True(t, stream.ReadsAhead(rd), "a regular file is read ahead")
				got := drain(t, rd)
				require.NoError(t, rd.Close())
				f.Close()
				require.NotEmpty(t, want)
				assert.Equal(t, want, got, "%s, buffers of %d, check %d", name, size, check)
				if size == 0 && (name == "session" || name == "corpus") {
					// Most lines were framed on the read-ahead goroutine:
					// the comparison above is of that path, not of a
					// fallback to the decoder's own walk.
					assert.Greater(t, stream.FramedAhead(rd), int64(len(got))*9/10, "%s: lines framed ahead", name)
				}
			}
		}
	}
	// Anything else is read by the Decoder alone.
	assert.False(t, stream.ReadsAhead(stream.NewReader(strings.NewReader("{}"), stream.DecoderOptions{})))
	runtime.GOMAXPROCS(1)
	f, err := os.Open(filepath.Join(dir, "session.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	assert.False(t, stream.ReadsAhead(stream.NewReader(f, stream.DecoderOptions{})), "one CPU: no goroutine")
}

// drain is decodeAll for any Reader, asking Buffered before every third
// Next as a live consumer does.
func drain(t *testing.T, rd stream.Reader) []decoded {
	t.Helper()
	var out []decoded
	for i := 0; ; i++ {
		if i%3 == 0 {
			rd.Buffered()
		}
		ev, err := rd.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			require.True(t, stream.IsLineError(err), "only line errors here: %v", err)
			out = append(out, decoded{Err: err.Error()})
			continue
		}
		out = append(out, decoded{ev.Line, ev.Offset, ev.Kind.String(), string(ev.Raw), ev.ParentToolUseID(), fmt.Sprint(ev.AssistantHead()), fmt.Sprint(ev.Validate()), ""})
	}
}

// mutate returns data with a few random faults: bytes cut out, a newline
// lost (two lines glued), junk and blank lines put in, and maybe a cut end.
func mutate(r *rand.Rand, data []byte) []byte {
	out := bytes.Clone(data)
	for range 1 + r.IntN(6) {
		if len(out) == 0 {
			break
		}
		at := r.IntN(len(out))
		switch r.IntN(4) {
		case 0:
			out = append(out[:at], out[min(len(out), at+1+r.IntN(500)):]...)
		case 1:
			if i := bytes.IndexByte(out[at:], '\n'); i >= 0 {
				out = append(out[:at+i], out[at+i+1:]...)
			}
		case 2:
			out = append(out[:at], append([]byte("\n{\"type\":\n\n  \n"), out[at:]...)...)
		case 3:
			out = out[:at]
		}
	}
	return out
}

// TestOneCPUStillScreensARegularFile: on one CPU (no read-ahead) the
// Screen of a regular file is still given each of its bytes, in order,
// and its verdicts reach the events (Event.Screened), so that a second
// pass over the file (the markdown report after its glance) takes the
// first's verdicts instead of scanning every line for secrets again. On
// the real long session (testdata/real/60-long-session.jsonl); the events
// are the plain Decoder's all the same.
func TestOneCPUStillScreensARegularFile(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	data, err := os.ReadFile(longSession)
	require.NoError(t, err)
	opts := stream.DecoderOptions{Check: stream.CheckFraming}
	want := decodeAll(t, bytes.NewReader(data), opts)
	scr := &recordingScreen{}
	opts.Screen = func() stream.Screen { return scr }
	f, err := os.Open(longSession)
	require.NoError(t, err)
	defer f.Close()
	rd := stream.NewReader(f, opts)
	assert.False(t, stream.ReadsAhead(rd), "one CPU: no goroutine")
	var got []decoded
	screened := 0
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		if ev.Screened() {
			screened++
		}
		got = append(got, decoded{ev.Line, ev.Offset, ev.Kind.String(), string(ev.Raw), ev.ParentToolUseID(), fmt.Sprint(ev.AssistantHead()), fmt.Sprint(ev.Validate()), ""})
	}
	require.NoError(t, rd.Close())
	assert.Equal(t, want, got)
	assert.True(t, bytes.Equal(data, scr.seen.Bytes()), "the screen saw the file's bytes, in order: %d of %d", scr.seen.Len(), len(data))
	assert.Equal(t, len(want), screened, "every line the screen found clean says so")
}

// recordingScreen keeps the bytes it is given and finds every line read
// whole clean.
type recordingScreen struct{ seen bytes.Buffer }

func (s *recordingScreen) Read(b []byte) { s.seen.Write(b) }

func (s *recordingScreen) Clean(from, to int64) bool { return to <= int64(s.seen.Len()) }

// TestReadAheadSameOnHostileInputs holds the read-ahead path (NewReader on
// a regular file, its lines framed on another goroutine) to the plain
// Decoder on a thousand inputs made from the event captures of testdata
// and from odd seeds (empty, an array, a BOM, blanks, an over-long line),
// each cut, mutated, glued or put in an array, at both check levels that
// frame, with buffers of 4 KiB so that lines cross buffers everywhere.
// (FuzzDecoder does not read ahead: with it, go test -fuzz counted 58 runs
// in 20 s while the function ran some 1,500 times a second, most likely
// because the goroutines' interleaving made each run's coverage new.)
func TestReadAheadSameOnHostileInputs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	var seeds [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		if len(data) < 200_000 {
			seeds = append(seeds, data)
		}
	}
	require.NotEmpty(t, seeds)
	seeds = append(seeds, nil, []byte("["), []byte("[{}]"), []byte("\xEF\xBB\xBF{}"), []byte("   \n\n"), []byte("{}"),
		append(bytes.Repeat([]byte("x"), 70_000), "\n{\"type\":\"result\"}\n"...))
	r := rand.New(rand.NewPCG(41, 43))
	path := filepath.Join(t.TempDir(), "in.jsonl")
	for i := range 1000 {
		data := bytes.Clone(seeds[r.IntN(len(seeds))])
		switch r.IntN(5) {
		case 0:
			for k := 0; k < 5 && len(data) > 0; k++ {
				data[r.IntN(len(data))] = byte(r.IntN(256))
			}
		case 1:
			if len(data) > 0 {
				data = data[:r.IntN(len(data))]
			}
		case 2:
			data = append([]byte("["), data...)
		case 3:
			if len(data) > 0 {
				data = data[r.IntN(len(data)):]
			}
		case 4:
			data = mutate(r, append(data, '\n'))
		}
		require.NoError(t, os.WriteFile(path, data, 0o644))
		for _, opts := range []stream.DecoderOptions{
			{Check: stream.CheckFraming}, {Check: stream.CheckAll},
			{Check: stream.CheckFraming, ValidateAhead: true}, // (tools)
		} {
			opts.BufferSize, opts.MaxLineBytes = 4096, 1<<16
			check := opts.Check
			want := decodeAll(t, bytes.NewReader(data), opts)
			f, err := os.Open(path)
			require.NoError(t, err)
			rd := stream.NewReader(f, opts)
			got := drain(t, rd)
			require.NoError(t, rd.Close())
			f.Close()
			require.Equal(t, want, got, "input %d, check %d: %q", i, check, data[:min(len(data), 300)])
		}
	}
}

// TestValidateAheadValidatesAssistantLines: with ValidateAhead (tools), a
// file read ahead has its assistant lines validated on the framer's
// goroutine, so their events are known valid before the consumer asks;
// a line that is not valid is left for the consumer, whose Validate
// reports it as the plain Decoder's would. On the real long session
// (testdata/real/60-long-session.jsonl) with a bad escape planted in one
// of its assistant lines.
func TestValidateAheadValidatesAssistantLines(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	data, err := os.ReadFile(longSession)
	require.NoError(t, err)
	i := bytes.Index(data, []byte(`{"type":"assistant"`))
	require.GreaterOrEqual(t, i, 0)
	j := i + bytes.Index(data[i:], []byte(`"text":"`))
	require.Greater(t, j, i)
	bad := append(append(bytes.Clone(data[:j+8]), `\q`...), data[j+8:]...)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(path, bad, 0o644))

	for _, ahead := range []bool{false, true} {
		opts := stream.DecoderOptions{Check: stream.CheckFraming, ValidateAhead: ahead}
		f, err := os.Open(path)
		require.NoError(t, err)
		rd := stream.NewReader(f, opts)
		calls, known := 0, 0
		var errs []string
		for {
			ev, err := rd.Next()
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
			if ev.Kind == stream.KindToolUse {
				calls++
				if stream.KnownValid(ev) {
					known++
				}
			}
			if err := ev.Validate(); err != nil {
				errs = append(errs, err.Error())
			}
		}
		require.NoError(t, rd.Close())
		f.Close()
		require.Len(t, errs, 1, "ahead %v: the planted bad escape, once", ahead)
		assert.Contains(t, errs[0], "invalid escape", "ahead %v", ahead)
		if ahead {
			assert.Greater(t, known, calls*9/10, "tool calls validated ahead: %d of %d", known, calls)
		} else {
			assert.Zero(t, known, "without ValidateAhead nothing is validated ahead")
		}
	}
}

// TestValidateAheadIndexesWhatTheDecoderWould holds the framer's work
// under ValidateAhead to the plain path's, on every capture and the long
// session: an assistant line's message indexed as it was validated has
// the members Event.message finds, a user line's tool results found and
// sized ahead are the ones Event.ToolResults finds, a message's usage read
// ahead is what the tracker reads of it (usageOf, every number fitting),
// a tool call's block heads read ahead are what Event.blockHeads reads,
// and a line said valid (assistant lines, inits, results) is; nearly every
// one of those lines of a file is done ahead, so the comparison is of the
// framer's work.
func TestValidateAheadIndexesWhatTheDecoderWould(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	kept, ahead, assistant, indexed, results, found, usages, read := 0, 0, 0, 0, 0, 0, 0, 0
	calls, heads := 0, 0
	for _, path := range append(captures(t), longSession) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := os.Open(path)
			require.NoError(t, err)
			defer f.Close()
			rd := stream.NewReader(f, stream.DecoderOptions{Check: stream.CheckFraming, ValidateAhead: true})
			defer rd.Close()
			for {
				ev, err := rd.Next()
				if err == io.EOF {
					break
				}
				require.NoError(t, err)
				msg, haveMsg := stream.MessageIndex(ev)
				if haveMsg {
					indexed++
					assert.Equal(t, stream.MessageMembers(ev), msg, "line %d: the message's members", ev.Line)
				}
				if ev.Type == "assistant" {
					assistant++
				}
				if u, have := stream.HeldUsage(ev); have {
					read++
					plain, nf := stream.PlainUsage(ev)
					assert.Equal(t, plain, u, "line %d: the usage", ev.Line)
					assert.Zero(t, nf.Count, "line %d: a usage read ahead has every number fitting", ev.Line)
				}
				if ev.Type == "assistant" && stream.MessageMembersLookup(ev, "usage") != nil {
					usages++
				}
				if bs, have := stream.HeldBlockHeads(ev); have {
					heads++
					assert.Equal(t, stream.PlainBlockHeads(ev), bs, "line %d: the block heads", ev.Line)
				}
				if ev.Kind == stream.KindToolUse {
					calls++
				}
				if rs, have := stream.HeldResults(ev); have {
					found += len(rs)
					if plain := stream.PlainToolResults(ev); len(plain)+len(rs) > 0 { // (none: nil or empty)
						assert.Equal(t, plain, rs, "line %d: the tool results", ev.Line)
					}
				}
				if ev.Kind == stream.KindToolResult {
					results += len(stream.PlainToolResults(ev))
				}
				if ev.Type == "assistant" || ev.Kind == stream.KindInit || ev.Kind == stream.KindResult {
					kept++
					if stream.KnownValid(ev) {
						ahead++
					}
				}
				if stream.KnownValid(ev) {
					assert.True(t, json.Valid(ev.Raw), "line %d: said valid", ev.Line)
				}
			}
		})
	}
	assert.Greater(t, ahead, kept*9/10, "assistant lines, inits and results validated ahead: %d of %d", ahead, kept)
	assert.Greater(t, indexed, assistant*9/10, "messages indexed ahead: %d of %d", indexed, assistant)
	assert.Greater(t, found, results*9/10, "tool results found ahead: %d of %d", found, results)
	assert.Greater(t, read, usages*9/10, "usage objects read ahead: %d of %d", read, usages)
	assert.Greater(t, heads, calls*9/10, "tool calls' block heads read ahead: %d of %d", heads, calls)
}
