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
		if ev.Kind == stream.KindRecord {
			// (a line of no event, turn.started, handed out as it is as
			// bookkeeping: its kind is the reader's word, not its bytes')
			seen[ev.Kind]++
			continue
		}
		again, err := stream.NewEvent(ev.Raw, ev.Source, ev.Line)
		require.NoError(t, err)
		require.Equal(t, [3]string{again.Type, again.Subtype, again.Kind.String()}, [3]string{ev.Type, ev.Subtype, ev.Kind.String()},
			"%s:%d: %s", file, ev.Line, ev.Raw)
		seen[ev.Kind]++
	}
}

// TestRequoteIsAppendQuotedOfStr proves that requote, which copies a
// string value's bytes as they are when it can, writes what
// jsonx.AppendQuoted(v.Str()) wrote before it: on every string value of
// the 18 Codex CLI 0.171.0 captures (testdata/agents/codex: commands,
// ids, outputs) and on values spelled otherwise (each escape, raw and
// escaped U+2028, invalid UTF-8, not a string, none); and that a plain
// value is copied without a string made of it.
func TestRequoteIsAppendQuotedOfStr(t *testing.T) {
	values := []jsonx.Value{
		jsonx.Value(`"plain"`), jsonx.Value(`""`), jsonx.Value(`"a\"b"`), jsonx.Value(`"a\\b"`), jsonx.Value(`"a\/b"`),
		jsonx.Value(`"line\nnext\ttab"`), jsonx.Value(`"\u00e9t\u00E9"`), jsonx.Value("\"\xc3\xa9t\xc3\xa9\""),
		jsonx.Value("\"a\xe2\x80\xa8b\""), jsonx.Value(`"a\u2028b"`), jsonx.Value("\"a\xe2\x82\xacb\""), jsonx.Value("\"bad \xff byte\""),
		jsonx.Value(`"\ud83d\ude00"`), jsonx.Value(`"\u0001"`), jsonx.Value(`12`), jsonx.Value(`null`), jsonx.Value(`{"a":1}`), nil,
	}
	files, err := filepath.Glob("../../testdata/agents/codex/*.jsonl")
	require.NoError(t, err)
	require.Len(t, files, 18)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			var walk func(v jsonx.Value)
			walk = func(v jsonx.Value) {
				switch v.Type() {
				case jsonx.String:
					values = append(values, v)
				case jsonx.Object:
					v.EachMember(func(_ []byte, m jsonx.Value) bool { walk(m); return true })
				case jsonx.Array:
					v.Each(func(_ int, e jsonx.Value) bool { walk(e); return true })
				}
			}
			walk(jsonx.Value(line))
		}
	}
	require.Greater(t, len(values), 500)
	for _, v := range values {
		assert.Equal(t, string(jsonx.AppendQuoted([]byte("x"), v.Str())), string(requote([]byte("x"), v)), "%s", v)
	}
	plain, buf := jsonx.Value(`"bash -lc 'ls -la'"`), make([]byte, 0, 64)
	assert.Zero(t, testing.AllocsPerRun(10, func() { buf = requote(buf[:0], plain) }))
}
