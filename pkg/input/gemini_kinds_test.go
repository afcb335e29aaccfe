package input

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// geminiKinds reads a Gemini stream with opts and counts the kinds of the
// events made, with the answer the result carries.
func geminiKinds(t *testing.T, data []byte, opts stream.DecoderOptions) (map[stream.Kind]int, string) {
	t.Helper()
	r := NewGeminiReader(bytes.NewReader(data), "", opts)
	defer r.Close()
	kinds := map[stream.Kind]int{}
	var answer string
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return kinds, answer
		}
		require.NoError(t, err)
		kinds[ev.Kind]++
		if ev.Kind == stream.KindResult {
			answer = string(ev.Get("result"))
		}
	}
}

// TestGeminiReaderMakesOnlyTheKindsAsked proves that a consumer that says
// which kinds of events it reads (DecoderOptions.Kinds, from
// stream.Needs.Kinds: final's) gets no event of another kind from the
// Gemini reader, and the same events of those kinds, with the same answer,
// as with every kind made: on 08-long-session (Gemini CLI 0.61.0,
// testdata/agents/gemini: 81 lines of prompts, text pieces, tool calls and
// their results) and 14-stream-cut (text sent again after a retry).
func TestGeminiReaderMakesOnlyTheKindsAsked(t *testing.T) {
	asked := stream.KindsOf(stream.KindInit, stream.KindText, stream.KindToolUse, stream.KindResult)
	for _, name := range []string{"08-long-session", "14-stream-cut"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile("../../testdata/agents/gemini/" + name + ".jsonl")
			require.NoError(t, err)
			all, answer := geminiKinds(t, data, stream.DecoderOptions{})
			some, someAnswer := geminiKinds(t, data, stream.DecoderOptions{Kinds: asked})
			assert.Positive(t, all[stream.KindDelta], "the full translation makes the text pieces")
			assert.Positive(t, all[stream.KindPrompt])
			for k, n := range all {
				if asked.Has(k) {
					assert.Equal(t, n, some[k], "%s: as many as with every kind", k)
				} else {
					assert.Zero(t, some[k], "%s: not asked for, not made", k)
				}
			}
			assert.NotEmpty(t, answer)
			assert.Equal(t, answer, someAnswer)
		})
	}
}
