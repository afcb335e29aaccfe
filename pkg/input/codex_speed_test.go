package input

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// TestCodexItemTypeIsStrWithoutAString proves that the item type the
// translator reads once (codexItemType) is the item's "type" decoded, as
// each Str before it read it: on every item of the 18 Codex CLI 0.171.0
// captures (testdata/agents/codex) and on types spelled otherwise (an
// escape, a type Codex may add, not a string, none), and that a known
// type is read without making a string (each Str made one, a tenth of a
// types run's allocations).
func TestCodexItemTypeIsStrWithoutAString(t *testing.T) {
	files, err := filepath.Glob("../../testdata/agents/codex/*.jsonl")
	require.NoError(t, err)
	require.Len(t, files, 18)
	types := []jsonx.Value{jsonx.Value(`"agent\u005fmessage"`), jsonx.Value(`"web_search_call"`), jsonx.Value(`7`), jsonx.Value(`null`), nil}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			if typ := jsonx.Value(line).Get("item").Get("type"); typ != nil {
				types = append(types, typ)
			}
		}
	}
	require.Greater(t, len(types), 100)
	for _, typ := range types {
		assert.Equal(t, typ.Str(), codexItemType(typ), "%s", typ)
	}
	for _, known := range codexItemTypes {
		v := jsonx.Value(`"` + known + `"`)
		assert.Zero(t, testing.AllocsPerRun(10, func() { _ = codexItemType(v) }), known)
	}
}

// TestCodexDeclaredClassIsTheClassifiers proves that the classification
// the Codex translator declares for the events it writes (written.as,
// which Event.RemakeClassified takes instead of classifying what was just
// written) is the classifier's: every event made of the 18 Codex CLI
// 0.171.0 captures (testdata/agents/codex) is classified again from its
// bytes (stream.NewEvent), and its type, subtype and kind must be the
// same; each declared kind is met. (Seen failing with a tool result
// declared as KindText.)
func TestCodexDeclaredClassIsTheClassifiers(t *testing.T) {
	files, err := filepath.Glob("../../testdata/agents/codex/*.jsonl")
	require.NoError(t, err)
	require.Len(t, files, 18)
	seen := map[stream.Kind]int{}
	for _, f := range files {
		for k, n := range classifiedAgain(t, f) {
			seen[k] += n
		}
	}
	for _, k := range []stream.Kind{stream.KindInit, stream.KindText, stream.KindThinking, stream.KindToolUse, stream.KindToolResult, stream.KindResult} {
		assert.Positive(t, seen[k], "events of kind %s", k)
	}
}

// classifiedAgain reads file with the Codex reader and checks that each
// event's classification is what stream.NewEvent finds in its bytes; it
// returns the events met of each kind.
func classifiedAgain(t *testing.T, file string) map[stream.Kind]int {
	t.Helper()
	in, err := os.Open(file)
	require.NoError(t, err)
	defer in.Close()
	rd := NewCodexReader(in, file, stream.DecoderOptions{Source: file})
	defer rd.Close()
	seen := map[stream.Kind]int{}
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			return seen
		}
		require.NoError(t, err)
		again, err := stream.NewEvent(ev.Raw, ev.Source, ev.Line)
		require.NoError(t, err)
		require.Equal(t, [3]string{again.Type, again.Subtype, again.Kind.String()}, [3]string{ev.Type, ev.Subtype, ev.Kind.String()},
			"%s:%d: %s", file, ev.Line, ev.Raw)
		seen[ev.Kind]++
	}
}
