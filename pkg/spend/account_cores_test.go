package spend

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAccountOnEveryCoreSameAsOneAfterTheOther proves the account's
// sessions scanned on several cores, a window of them at a time, give
// the same calls in the same order, each told the same session, and the
// same summaries, as the scans one after the other: on every real
// session of Claude Code, Codex and Gemini CLI here, each read three
// times (copies: calls several sessions hold, forks whose parent is read
// or not), with windows of one session, of a few and of all.
func TestAccountOnEveryCoreSameAsOneAfterTheOther(t *testing.T) {
	var files []string
	for _, pat := range []string{
		filepath.Join(transcripts, "*/home/.claude/projects/*/*.jsonl"),
		"../../../shared/transcripts/*/home/.claude/projects/*/*.jsonl",
		"../../../shared/agents/*/*.home/.codex/sessions/*/*/*/*.jsonl",
		"../../../shared/agents/*/*.home/.gemini/tmp/*/chats/*.json*",
	} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	require.Greater(t, len(files), 20)
	var ledgers []*Ledger
	for range 3 {
		for _, f := range files {
			if l, err := Read(f, Options{}); err == nil {
				ledgers = append(ledgers, l)
			}
		}
	}
	require.Greater(t, len(ledgers), 60)
	type emitted struct {
		I int
		C Call
	}
	run := func(workers, window int) ([]emitted, []Summary) {
		var out []emitted
		sums := accountEach(ledgers, Options{}, func(i int, c Call) { out = append(out, emitted{i, c}) }, workers, window)
		return out, sums
	}
	want, wantSums := run(1, len(ledgers))
	require.Greater(t, len(want), 300)
	for _, workers := range []int{2, 3, 5} {
		for _, window := range []int{1, 7, len(ledgers)} {
			got, sums := run(workers, window)
			assert.Equal(t, want, got, "%d workers, windows of %d", workers, window)
			assert.Equal(t, wantSums, sums, "%d workers, windows of %d", workers, window)
		}
	}
}
