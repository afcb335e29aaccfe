package stream_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// TestBytesDecoderSameAsDecoder proves that an input held in memory and
// cut into lines where it lies (NewBytesDecoder, what a tree of sessions
// is read with) gives what the Decoder reading the same bytes as a file
// gives: events, line numbers, offsets, kinds, bytes and line errors, in
// order, at every check level, with and without a Want that passes most
// lines over (usage --by day's); and what the readers of sessions read
// of each record's message, also where the framing walk indexes it
// (IndexMessages, on either reader). On every real session transcript
// (testdata/transcripts, subagents' files too, one after the other),
// 60-long-session, all captures concatenated, and hostile variants of
// them: CRLF line ends, a
// BOM and blank lines, bad escapes, cut and glued lines, no final
// newline, lines far longer than the Decoder's buffer, a JSON array
// (which the Decoder reads itself), only spaces, and random mutations.
func TestBytesDecoderSameAsDecoder(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/transcripts/*/home/.claude/projects/*/*.jsonl")
	subs, _ := filepath.Glob("../../testdata/transcripts/*/home/.claude/projects/*/*/subagents/*.jsonl")
	files = append(files, subs...)
	require.Greater(t, len(files), 25)
	inputs := map[string][]byte{}
	var sessions []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		sessions = append(sessions, b...)
	}
	long, err := os.ReadFile(longSession)
	require.NoError(t, err)
	all := allCaptures(t)
	huge := `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result","content":"` + strings.Repeat(`ab\n`, 1<<20) + `"}]}}`
	inputs["sessions"] = sessions
	inputs["60-long-session"] = long
	inputs["captures"] = all
	inputs["crlf"] = bytes.ReplaceAll(sessions, []byte("\n"), []byte("\r\n"))
	inputs["bom, blank lines"] = append([]byte("\xEF\xBB\xBF\n  \n\t\r\n"), bytes.Replace(sessions, []byte("\n"), []byte("\n\n \n"), 40)...)
	inputs["bad escapes"] = bytes.Replace(bytes.Replace(sessions, []byte(`\n`), []byte(`\q`), 30), []byte(`\"`), []byte(`\u12`), 30)
	inputs["cut"] = append(bytes.Clone(sessions[:len(sessions)/2]), sessions[len(sessions)/2+777:]...)
	inputs["glued"] = bytes.Replace(sessions, []byte("}\n{"), []byte("}{"), 9)
	inputs["no final newline"] = long[:len(long)-1]
	inputs["cut end"] = long[:len(long)-300]
	inputs["huge lines"] = []byte(strings.Join([]string{`{"type":"a"}`, huge, `{"type":"assistant"}`, huge[:len(huge)/2], huge, `{"type":"cost-state"}`}, "\n"))
	inputs["array"] = []byte(" \n[" + strings.Join([]string{`{"type":"a"}`, `{"type":"assistant","message":{}}`}, ",") + "]\n")
	inputs["spaces"] = []byte(" \n\t\n")
	inputs["empty"] = nil
	r := rand.New(rand.NewPCG(41, 5))
	for i := range 8 {
		inputs[fmt.Sprintf("mutated %d", i)] = mutate(r, sessions)
	}
	// The lines a usage account reads: those that say they are an
	// assistant record or a cost-state near their start or end.
	want := func(l []byte) bool {
		head, tail := l[:min(len(l), 512)], l[max(0, len(l)-1024):]
		return bytes.Contains(head, []byte(`"type":"cost-state"`)) || bytes.Contains(tail, []byte(`"type":"assistant"`)) || l[0] != '{'
	}
	for name, in := range inputs {
		for _, check := range []stream.Check{stream.CheckAll, stream.CheckFraming, stream.CheckEnds} {
			for _, w := range []func([]byte) bool{nil, want} {
				opts := stream.DecoderOptions{Check: check, Want: w, Source: "s.jsonl"}
				t.Run(fmt.Sprintf("%s/check=%d/want=%v", filepath.Base(name), check, w != nil), func(t *testing.T) {
					dec := stream.NewDecoder(bytes.NewReader(in), opts)
					defer dec.Close()
					want := drainViews(t, dec)
					assert.Equal(t, want, drainViews(t, stream.NewBytesDecoder(in, opts)))
					if check == stream.CheckFraming {
						// (the only check whose walk indexes the members)
						assert.Equal(t, want, drainViews(t, stream.IndexMessages(stream.NewBytesDecoder(in, opts))), "indexing messages")
						assert.Equal(t, want, drainViews(t, stream.IndexMessages(stream.NewDecoder(bytes.NewReader(in), opts))), "a Decoder indexing messages")
					}
				})
			}
		}
	}
}

// drainViews is drain, with what the readers of a tree of sessions read
// of each record's message (its members are indexed by the framing walk
// of a NewBytesDecoder): the head of an assistant record, the text.
func drainViews(t *testing.T, rd stream.Reader) []string {
	var out []string
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			require.True(t, stream.IsLineError(err), "only line errors here: %v", err)
			out = append(out, err.Error())
			continue
		}
		out = append(out, fmt.Sprintf("%d %d %s %q %q %+v %q", ev.Line, ev.Offset, ev.Kind, ev.Raw, ev.ParentToolUseID(), ev.AssistantHead(), ev.Text()))
	}
}

// TestReadWholeReadsToTheEnd proves Scratch.ReadWhole reads an input to
// its end whatever size it was told (a file appended to since it was
// looked at, or cut short), in one read call and the one that finds the
// end when the size is right, and keeps its buffer for the next input
// (60-long-session, 1.3 MB).
func TestReadWholeReadsToTheEnd(t *testing.T) {
	data, err := os.ReadFile(longSession)
	require.NoError(t, err)
	var s stream.Scratch
	for _, told := range []int64{int64(len(data)), 0, int64(len(data)) / 3, int64(len(data)) * 2} {
		r := &countingReader{r: bytes.NewReader(data)}
		got, err := s.ReadWhole(r, told)
		require.NoError(t, err)
		assert.Equal(t, data, got, "told %d", told)
		if told == int64(len(data)) {
			assert.Equal(t, 2, r.calls, "one read for the bytes, one for the end")
		}
	}
	first, err := s.ReadWhole(bytes.NewReader(data[:100]), 100)
	require.NoError(t, err)
	again, err := s.ReadWhole(bytes.NewReader(data[:200]), 200)
	require.NoError(t, err)
	assert.Same(t, &first[0], &again[0], "the buffer is kept from input to input")
	_, err = s.ReadWhole(io.MultiReader(bytes.NewReader(data[:10]), errReader{}), 10)
	assert.ErrorIs(t, err, io.ErrClosedPipe)
}

type countingReader struct {
	r     io.Reader
	calls int
}

func (c *countingReader) Read(p []byte) (int, error) { c.calls++; return c.r.Read(p) }

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, io.ErrClosedPipe }
