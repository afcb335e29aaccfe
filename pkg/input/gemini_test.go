package input

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDetectionIsCertain proves that no line of any real input is taken
// for another kind's: each line of each capture (Claude Code's streams
// and transcripts in testdata and ../shared; Codex CLI 0.171.0's and
// Gemini CLI 0.61.0's streams and session files, testdata/agents and
// ../shared/agents) is recognised as its own kind's or as none, so that
// Open, which takes the kind of the first line it recognises, picks the
// right kind whichever line of the head comes first (a first line cut,
// stderr in front, an event of a new type); and that each file's head is
// recognised at all.
func TestDetectionIsCertain(t *testing.T) {
	kinds := []struct {
		kind Kind
		pats []string
	}{
		{Stream, []string{"../../testdata/real/*.jsonl", "../../testdata/events/*.jsonl", "../../../shared/captures/*.jsonl"}},
		{Transcript, []string{"../../testdata/transcripts/*/home/.claude/projects/*/*.jsonl", "../../../shared/transcripts/*/home/.claude/projects/*/*.jsonl"}},
		{Codex, []string{"../../testdata/agents/codex/*.jsonl", "../../../shared/agents/codex/*.jsonl"}},
		{CodexSession, []string{"../../testdata/agents/codex/home/.codex/sessions/*/*/*/*.jsonl", "../../../shared/agents/codex/*.home/.codex/sessions/*/*/*/*.jsonl"}},
		{Gemini, []string{"../../testdata/agents/gemini/*.jsonl", "../../../shared/agents/gemini/*.jsonl"}},
		{GeminiSession, []string{"../../testdata/agents/gemini/*.chats/*.jsonl", "../../testdata/agents/gemini/*.chats/*/*.jsonl",
			"../../../shared/agents/gemini/*.home/.gemini/tmp/*/chats/*.jsonl"}},
	}
	for _, k := range kinds {
		files, recognised := 0, 0
		for _, pat := range k.pats {
			m, err := filepath.Glob(pat)
			require.NoError(t, err)
			for _, f := range m {
				if strings.Contains(f, "15-json-output") {
					continue // --output-format json: one pretty-printed document, no stream
				}
				b, err := os.ReadFile(f)
				require.NoError(t, err)
				files++
				for n, line := range strings.Split(string(b), "\n") {
					line = strings.TrimSpace(line)
					if !strings.HasPrefix(line, "{") {
						continue
					}
					if got, ok, _ := recognise([]byte(line), Formats()); ok {
						recognised++
						require.Equal(t, k.kind, got.Kind, "%s:%d is taken for another kind's", f, n+1)
					}
				}
				fh, err := os.Open(f)
				require.NoError(t, err)
				h, _, err := sniff(fh, "", Formats())
				fh.Close()
				require.NoError(t, err)
				assert.Equal(t, k.kind, h.format.Kind, "%s: its head", f)
			}
		}
		assert.Greater(t, files, 3, k.kind)
		assert.Greater(t, recognised, files, "%s: most lines are recognised", k.kind)
	}
}
