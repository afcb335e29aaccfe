package input_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/input"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// TestSessionCutByItsReaderMakesNoResult proves that a session file of
// each CLI (Claude Code's transcript, Codex's rollout, Gemini's chat)
// whose reader was cut (Ctrl-C under --follow: DecoderOptions.Cut) ends
// with no result of the reader's making, and that one read to its end
// does get one: a session file has no result of its own, and the one a
// reader makes says the session ended, which a cut one has not. The
// Gemini chat reader made it either way, so `final -f` on a chat file
// printed an answer after Ctrl-C and `account` said success (docs/follow.md:
// "no outcome is made up").
func TestSessionCutByItsReaderMakesNoResult(t *testing.T) {
	transcripts, _ := filepath.Glob("../../testdata/transcripts/04-parallel-tools/home/.claude/projects/*/*.jsonl")
	rollouts, _ := filepath.Glob("../../testdata/agents/codex/home/.codex/sessions/*/*/*/rollout-*.jsonl")
	chats, _ := filepath.Glob("../../testdata/agents/gemini/03-shell-fail.chats/session-*.jsonl")
	require.NotEmpty(t, transcripts)
	require.NotEmpty(t, rollouts)
	require.NotEmpty(t, chats)
	for _, tc := range []struct {
		name, path string
		kind       input.Kind
	}{
		{"claude transcript", transcripts[0], "transcript"},
		{"codex session", rollouts[0], "codex-session"},
		{"gemini chat", chats[0], "gemini-session"},
	} {
		for _, cut := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, cut %v", tc.name, cut), func(t *testing.T) {
				f, err := os.Open(tc.path)
				require.NoError(t, err)
				defer f.Close()
				in, err := input.Open(f, tc.path, "")
				require.NoError(t, err)
				require.Equal(t, tc.kind, in.Kind(), "the kind the file is read as")
				events := in.Events(stream.DecoderOptions{Source: tc.path, Cut: func() bool { return cut }})
				defer events.Close()
				results := 0
				for {
					ev, err := events.Next()
					if err == io.EOF {
						break
					}
					if stream.IsLineError(err) {
						continue
					}
					require.NoError(t, err)
					if ev.Kind == stream.KindResult {
						results++
					}
				}
				if cut {
					assert.Zero(t, results, "cut: no result made up")
				} else {
					assert.Equal(t, 1, results, "read to its end: the session's result")
				}
			})
		}
	}
}
