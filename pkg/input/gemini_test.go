package input

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGeminiDetectionIsCertain proves no Claude Code capture or
// transcript is taken for a Gemini input and every Gemini stream and chat
// file is: the first line of each capture in testdata (Claude Code's
// streams and transcripts; Gemini CLI 0.61.0's, testdata/agents/gemini)
// and, where they are, ../shared/captures and ../shared/agents/gemini.
func TestGeminiDetectionIsCertain(t *testing.T) {
	var files []string
	for _, pat := range []string{"../../testdata/*/*.jsonl", "../../testdata/*/*/*.jsonl", "../../testdata/transcripts/*/home/.claude/projects/*/*.jsonl",
		"../../testdata/agents/gemini/*.chats/*.jsonl", "../../testdata/agents/gemini/*.chats/*/*.jsonl",
		"../../../shared/captures/*.jsonl", "../../../shared/agents/gemini/*.jsonl"} {
		m, err := filepath.Glob(pat)
		require.NoError(t, err)
		files = append(files, m...)
	}
	gemini, claude := 0, 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		head, _, _ := strings.Cut(strings.TrimLeft(string(b), " \r\n\t"), "\n")
		isGemini := strings.Contains(f, "/agents/gemini/")
		if isGemini && strings.Contains(f, "15-json-output") {
			continue // --output-format json: one pretty-printed document, no stream
		}
		chat := strings.Contains(f, ".chats/")
		assert.Equal(t, isGemini && !chat, isGeminiStream([]byte(head)), f)
		assert.Equal(t, isGemini && chat, isGeminiChat([]byte(head)), f)
		if isGemini {
			gemini++
		} else {
			claude++
		}
	}
	assert.GreaterOrEqual(t, gemini, 15)
	assert.GreaterOrEqual(t, claude, 30)
}
