package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	hostile, badEscapes := hostileVariants(t, dir, streams, `"role":"assistant","content":"`)
	inputs := append(append([]string{}, streams...), chats...)
	if testing.Short() {
		inputs = geminiInputs(t)
	}
	// (--strict too: a bad escape in a text piece stops it.)
	fastMatchesFull(t, dir, inputs, append(hostile, badEscapes...), []string{"final", "--strict"}, []string{"text", "--strict"})

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
