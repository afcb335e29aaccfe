package spend

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// TestAChatFileIsToldByItsHeadWhateverItsFirstLine: Read asks the
// Gemini sniff only of a file whose first line is no transcript record
// (so that a tree's transcripts are opened once). A real Gemini chat file
// (08-long-session) is still read as Gemini's with a byte-order mark, a
// blank first line or a cut first line before its records, and a real
// transcript (05-subagents-async) as Claude Code's in the same cases;
// each gives the calls of its own reader.
func TestAChatFileIsToldByItsHeadWhateverItsFirstLine(t *testing.T) {
	gemini, err := os.ReadFile("../../testdata/agents/gemini/08-long-session.chats/session-2026-12-06T02-10-b1f2b962.jsonl")
	require.NoError(t, err)
	claude, err := os.ReadFile(filepath.Join(transcripts, "05-subagents-async/home/.claude/projects/-home-user-project/cb10905b-9d5a-4d11-a6f3-8e2e6e2068cd.jsonl"))
	require.NoError(t, err)
	heads := []struct {
		name string
		head string
	}{
		{"as written", ""},
		{"byte-order mark", "\xef\xbb\xbf"},
		{"blank first line", "\n"},
		{"cut first line", "{\"cut\n"},
	}
	for _, file := range []struct {
		name string
		body []byte
		cli  string
	}{{"gemini", gemini, "gemini"}, {"claude", claude, stream.ClaudeCodeID}} {
		want, err := Read(writeFile(t, "session-2026-12-06T02-10-b1f2b962.jsonl", file.body), Options{})
		require.NoError(t, err)
		require.NotEmpty(t, want.calls, file.name)
		for _, h := range heads {
			t.Run(file.name+"/"+h.name, func(t *testing.T) {
				got, err := Read(writeFile(t, "session-2026-12-06T02-10-b1f2b962.jsonl", append([]byte(h.head), file.body...)), Options{})
				require.NoError(t, err)
				assert.Equal(t, file.cli, got.cli)
				assert.Equal(t, len(want.calls), len(got.calls))
			})
		}
	}
}

func writeFile(t *testing.T, name string, body []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, body, 0o644))
	return path
}
