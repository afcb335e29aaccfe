package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/preset"
	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// TestGeminiFastPathMatchesFullTranslation proves that the Gemini
// reader's fast path (no event made of a kind the preset does not read,
// stream.Needs.Kinds; the events written from a line's values not
// validated again) prints byte for byte what the full translation prints
// (every event made, every line validated in full: Kinds cleared and
// --full-check): every preset in every format on every Gemini CLI 0.61.0
// capture (testdata/agents/gemini, copies of ../shared/agents/gemini) and
// chat file, and on each stream cut in the middle of its longest line and
// with that line glued to the next, and with a bad escape (\q) in its
// first assistant piece (framing intact), which final and text print and
// so must report with its line (and --strict stop at).
func TestGeminiFastPathMatchesFullTranslation(t *testing.T) {
	streams, err := filepath.Glob(geminiData + "*.jsonl")
	require.NoError(t, err)
	require.Len(t, streams, 15)
	chats, err := filepath.Glob(geminiData + "*.chats/session-*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, chats)

	dir := t.TempDir()
	var hostile, badEscapes []string
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name+".jsonl")
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	for _, f := range streams {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		cut, glued, ok := cutAndGlued(data)
		require.True(t, ok, name)
		hostile = append(hostile, write(name+"-cut", cut), write(name+"-glued", glued))
		piece := []byte(`"role":"assistant","content":"`)
		if i := bytes.Index(data, piece); i >= 0 {
			at := i + len(piece)
			bad := append(append(bytes.Clone(data[:at]), `\q`...), data[at:]...)
			badEscapes = append(badEscapes, write(name+"-badescape", bad))
		}
	}
	require.NotEmpty(t, badEscapes)

	var runs [][]string
	for _, p := range preset.Builtin().List() {
		for _, f := range render.Formats {
			runs = append(runs, []string{p.Name, "--format", string(f)})
		}
	}
	runs = append(runs, []string{"-c", "."}, []string{"-c", `[kind, agent, line]`}, []string{"final", "-e"}, []string{"text", "--agent", "all"})
	short := [][]string{{"types"}, {"final"}, {"final", "--format", "json"}, {"text"}, {"tools", "--format", "csv"},
		{"usage", "--format", "json"}, {"errors", "--format", "ndjson"}, {"-c", "."}, {"final", "--strict"}, {"text", "--strict"}}
	everything := func(stream.Needs) stream.Needs { return stream.Needs{} }
	differ := 0
	check := func(in string, runs [][]string) {
		for _, args := range runs {
			full := append(append([]string{}, args...), "--full-check", in)
			fast := append(append([]string{}, args...), in)
			want, got := runNeeding(t, full, dir, everything), runIn(t, fast, dir)
			if !assert.Equal(t, want, got, "%s on %s", strings.Join(args, " "), filepath.Base(in)) {
				if differ++; differ > 2 {
					t.Fatal("too many differences")
				}
			}
		}
	}
	inputs := append(append([]string{}, streams...), chats...)
	if testing.Short() {
		inputs = geminiInputs(t)
	}
	for _, in := range inputs {
		check(in, runs)
	}
	for _, in := range append(hostile, badEscapes...) {
		check(in, short)
	}
	// The hostile variants really are caught: each reports its bad line.
	bad := runIn(t, []string{"types", filepath.Join(dir, "08-long-session-glued.jsonl")}, dir)
	assert.Regexp(t, `08-long-session-glued.jsonl:\d+: `, bad.Stderr)
	for _, args := range [][]string{{"text"}, {"final"}, {"final", "--strict"}} {
		bad = runIn(t, append(args, filepath.Join(dir, "08-long-session-badescape.jsonl")), dir)
		assert.Regexp(t, `badescape.jsonl:\d+: .*escape`, bad.Stderr, args)
	}
	// --strict stops there: the input error's exit code.
	assert.Equal(t, exitInput, bad.Code)
}
