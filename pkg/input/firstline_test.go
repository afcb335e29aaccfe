package input

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSessionWithItsFirstLineCutIsStillListed proves a session file whose
// first line is cut (a disk full, a copy cut short) is still listed as its
// CLI's session, with the same tool calls and tokens as whole, and the cut
// line reported: the kind is told from the first line recognised, not the
// first line. Before, a Codex rollout so cut was "not a session transcript
// (empty)" and a Gemini chat file was listed as Claude Code's.
func TestSessionWithItsFirstLineCutIsStillListed(t *testing.T) {
	codex, err := filepath.Glob("../../testdata/agents/codex/home/.codex/sessions/*/*/*/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, codex)
	for _, c := range []struct {
		path, cli string
	}{
		{codex[0], codexCLI},
		{"../../testdata/agents/gemini/08-long-session.chats/session-2026-12-06T02-10-b1f2b962.jsonl", geminiCLI},
	} {
		whole, err := ScanSession(c.path)
		require.NoError(t, err)
		require.Equal(t, c.cli, whole.CLI, c.path)
		b, err := os.ReadFile(c.path)
		require.NoError(t, err)
		first := bytes.IndexByte(b, '\n')
		cut := append(append([]byte(nil), b[:first/2]...), b[first:]...)
		path := filepath.Join(t.TempDir(), filepath.Base(c.path))
		require.NoError(t, os.WriteFile(path, cut, 0o644))

		s, err := ScanSession(path)
		require.NoError(t, err, c.path)
		assert.Equal(t, c.cli, s.CLI, c.path)
		assert.Equal(t, whole.ToolCalls, s.ToolCalls, c.path)
		assert.Equal(t, whole.Tokens, s.Tokens, c.path)
		require.NotEmpty(t, s.Bad, "%s: the cut line is reported", c.path)
		assert.Contains(t, s.Bad[0].Error(), ":1: ")
	}
}

// TestOpenTellsTheKindPastItsFirstLine proves Open picks each CLI's kind
// whatever comes before its first event or in place of it: what the CLI
// wrote on stderr, mixed in by 2>&1 (Gemini CLI's "Loaded cached
// credentials.", Codex's "Reading prompt from stdin..."); a byte order
// mark; an event of a type no release had; the first line lost or cut.
// Before, each of these made a Gemini stream read as Claude Code's (a
// failed run came out as an empty answer and exit 0) and a Codex stream
// refused.
func TestOpenTellsTheKindPastItsFirstLine(t *testing.T) {
	for _, c := range []struct {
		path string
		kind Kind
	}{
		{"../../testdata/agents/gemini/05-auth-401.jsonl", Gemini},
		{"../../testdata/agents/gemini/02-write-read.jsonl", Gemini},
		{"../../testdata/agents/codex/05-auth-401.jsonl", Codex},
		{"../../testdata/agents/codex/02-write-read.jsonl", Codex},
		{"../../testdata/events/02-write-read.jsonl", Stream},
		{"../../testdata/agents/codex/home/.codex/sessions/2026/12/06/rollout-2026-12-06T02-07-36-01a2491b-4f2e-7e21-adbe-20d605d7ab6d.jsonl", CodexSession},
		{"../../testdata/transcripts/02-write-read/home/.claude/projects/-home-user-project/0db2634f-ae79-455c-9f0e-6a3434377177.jsonl", Transcript},
		{"../../testdata/agents/gemini/08-long-session.chats/session-2026-12-06T02-10-b1f2b962.jsonl", GeminiSession},
	} {
		b, err := os.ReadFile(c.path)
		require.NoError(t, err)
		first := bytes.IndexByte(b, '\n') + 1
		for name, input := range map[string][]byte{
			"as it is":        b,
			"stderr in front": append([]byte("Loaded cached credentials.\nReading prompt from stdin...\n"), b...),
			"a BOM in front":  append([]byte("\xef\xbb\xbf"), b...),
			"an unknown type": append([]byte(`{"type":"brand_new_event","x":1}`+"\n"), b...),
			"no first line":   b[first:],
			"first line cut":  append(append([]byte(nil), b[:first/2]...), b[first-1:]...),
		} {
			// In a file, and on a pipe (a reader that is no file), where a
			// whole JSON line no kind knows ends the look at once, so
			// that a live pipe of other JSON is not held.
			path := filepath.Join(t.TempDir(), "in.jsonl")
			require.NoError(t, os.WriteFile(path, input, 0o644))
			f, err := os.Open(path)
			require.NoError(t, err)
			for _, how := range []struct {
				r    io.Reader
				kind Kind
			}{{f, c.kind}, {bytes.NewReader(input), c.kind}} {
				if _, pipe := how.r.(*bytes.Reader); pipe && name == "an unknown type" {
					how.kind = Stream
				}
				in, err := Open(how.r, "", "")
				require.NoError(t, err)
				assert.Equal(t, how.kind, in.Kind(), "%s, %s, from a %T", c.path, name, how.r)
				assert.Equal(t, input, readAll(t, in), "%s, %s: the reader is given every byte", c.path, name)
			}
			f.Close()
		}
	}
}

// TestOpenOnAPipeOfOtherJSONDoesNotWait proves a pipe whose first line is
// JSON of no kind (ccfilter used as jq on other JSON lines) is opened at
// its first line, not held until 64 KiB came; and that one whose first
// lines are not JSON (stderr mixed in) is read on to the first event.
func TestOpenOnAPipeOfOtherJSONDoesNotWait(t *testing.T) {
	for _, c := range []struct {
		first string
		kind  Kind
	}{
		{`{"level":"info","msg":"started"}` + "\n", Stream},
		{"Loaded cached credentials.\n" + `{"type":"init","timestamp":"2026-12-06T02:09:51.887Z","session_id":"s","model":"auto"}` + "\n", Gemini},
	} {
		pr, pw := io.Pipe()
		go pw.Write([]byte(c.first))
		opened := make(chan *Input)
		go func() {
			in, err := Open(pr, "", "")
			assert.NoError(t, err)
			opened <- in
		}()
		select {
		case in := <-opened:
			assert.Equal(t, c.kind, in.Kind(), c.first)
		case <-time.After(30 * time.Second): // generous: a busy machine passes, a hang fails
			t.Fatalf("Open waited for more than %q", c.first)
		}
		pw.Close()
	}
}

// readAll is what in's kind's reader would read: every byte of the input.
func readAll(t *testing.T, in *Input) []byte {
	t.Helper()
	b, err := io.ReadAll(in.r)
	require.NoError(t, err)
	return b
}
