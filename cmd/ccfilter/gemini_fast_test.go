package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
// so must report with its line (and --strict stop at); and on
// 08-long-session with every other line written otherwise than Gemini
// CLI writes it (geminiOddVariants: what the reader's look at a line's
// bytes must not take for a line it may pass over).
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
	hostile = append(hostile, geminiOddVariants(t, dir)...)
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

// geminiOddVariants writes, into dir, 08-long-session (Gemini CLI 0.61.0)
// with every other line (the odd ones, then the even ones) written
// otherwise than Gemini CLI writes it, each way in a file of its own: its
// type unknown, its type key not first, its type or role \u-escaped, its
// type or role written twice (the last one counts), its content opening
// with escaped quotes and backslashes or 1.2 MB long (past the read
// buffer), a CRLF ending, blank lines before it.
func geminiOddVariants(t *testing.T, dir string) []string {
	t.Helper()
	data, err := os.ReadFile(geminiData + "08-long-session.jsonl")
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	variants := map[string]func(string) string{
		"unknown-type": func(l string) string { return strings.Replace(l, `{"type":"`, `{"type":"x`, 1) },
		"type-not-first": func(l string) string {
			typ, rest, _ := strings.Cut(strings.TrimPrefix(l, "{"), ",")
			return "{" + rest[:len(rest)-1] + "," + typ + "}"
		},
		"escaped-type":   func(l string) string { return strings.Replace(l, `{"type":"t`, `{"type":"\u0074`, 1) },
		"escaped-role":   escapeRole,
		"type-twice":     func(l string) string { return strings.TrimSuffix(l, "}") + `,"type":"message"}` },
		"role-twice":     func(l string) string { return strings.TrimSuffix(l, "}") + `,"role":"user"}` },
		"escaped-quotes": func(l string) string { return strings.Replace(l, `"content":"`, `"content":"\\\" \"\\\\`, 1) },
		"huge": func(l string) string {
			return strings.Replace(l, `"output":"`, `"output":"`+strings.Repeat("ab\\n", 300000), 1)
		},
		"crlf":        func(l string) string { return l + "\r" },
		"blank-lines": func(l string) string { return "\n \t\n" + l },
	}
	var files []string
	for name, spoil := range variants {
		for parity := range 2 {
			var b strings.Builder
			for i, l := range lines {
				if i%2 == parity && i > 0 { // (the first line, the init, says what the input is)
					l = spoil(l)
				}
				b.WriteString(l + "\n")
			}
			p := filepath.Join(dir, fmt.Sprintf("08-long-session-%s-%d.jsonl", name, parity))
			require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
			files = append(files, p)
		}
	}
	return files
}

// escapeRole writes the first letter of a line's role \u-escaped.
func escapeRole(l string) string {
	i := strings.Index(l, `"role":"`)
	if i < 0 || i+8 >= len(l) {
		return l
	}
	return l[:i+8] + fmt.Sprintf(`\u%04x`, l[i+8]) + l[i+9:]
}
