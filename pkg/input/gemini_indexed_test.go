package input

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// TestGeminiEventsIndexedAsFramed proves that the events the Gemini
// stream's reader writes and indexes as it writes them (jw's key and done,
// Event.RemakeIndexed: no framing walk) read as the same JSON framed anew
// reads: the same type, subtype and kind, and every top-level member the
// same bytes. On every Gemini CLI 0.61.0 capture in testdata/agents/gemini,
// read for every preset's kinds (all; final's, text's, usage's), and on
// 01-plain-text with lines added in the spellings translate reads (an
// error and a warning, whose events are marshalled, and a restarted text,
// whose stop event is), so that each way an event is made is read.
// (Seen failing with done's value ends off by one.)
func TestGeminiEventsIndexedAsFramed(t *testing.T) {
	files, err := filepath.Glob("../../testdata/agents/gemini/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	inputs := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		inputs[filepath.Base(f)] = data
	}
	plain := inputs["01-plain-text.jsonl"]
	require.NotEmpty(t, plain)
	piece := `{"type":"message","timestamp":"2026-12-06T02:13:15.321Z","role":"assistant","content":"Hello! I am","delta":true}` + "\n"
	inputs["01-plain-text.jsonl with an error, a warning and a restart"] = append(bytes.Clone(plain), []byte(
		`{"type":"error","timestamp":"2026-12-06T02:13:16.000Z","severity":"warning","message":"a <warning> & more"}`+"\n"+
			piece+`{"type":"message","timestamp":"2026-12-06T02:13:15.321Z","role":"assistant","content":" there","delta":true}`+"\n"+
			piece+
			`{"type":"error","timestamp":"2026-12-06T02:13:17.000Z","severity":"error","message":"quota \"exceeded\""}`+"\n")...)

	kinds := map[string]stream.KindSet{"all": 0}
	for name, k := range geminiRunKinds {
		kinds[name] = k
	}
	made := map[stream.Kind]int{}
	for name, data := range inputs {
		for run, k := range kinds {
			r := NewGeminiReader(bytes.NewReader(data), "", stream.DecoderOptions{Kinds: k})
			for {
				ev, err := r.Next()
				if err == io.EOF {
					break
				}
				require.NoError(t, err, "%s (%s)", name, run)
				made[ev.Kind]++
				framed, err := stream.NewEvent(ev.Raw, "", ev.Line)
				require.NoError(t, err, "%s (%s): %s", name, run, ev.Raw)
				where := name + " (" + run + "): " + string(ev.Raw)
				assert.Equal(t, framed.Kind, ev.Kind, where)
				assert.Equal(t, framed.Type, ev.Type, where)
				assert.Equal(t, framed.Subtype, ev.Subtype, where)
				top, err := jsonx.Members(ev.Raw, nil)
				require.NoError(t, err, where)
				for _, m := range top {
					assert.Equal(t, string(framed.Get(string(m.Key))), string(ev.Get(string(m.Key))), "%s: member %s", where, m.Key)
				}
				assert.Nil(t, ev.Get("not_a_member"), where)
			}
			require.NoError(t, r.Close())
		}
	}
	// every way an event is made was read
	for _, k := range []stream.Kind{stream.KindInit, stream.KindPrompt, stream.KindDelta, stream.KindText, stream.KindToolUse,
		stream.KindToolResult, stream.KindResult, stream.KindNotice, stream.KindAPIError} {
		assert.Positive(t, made[k], "no event of kind %s", k)
	}
	assert.True(t, strings.Contains(string(plain), `"type":"result"`))
}
