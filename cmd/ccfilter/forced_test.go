package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestForcedKindOnLinesOfNoKindIsNoRun proves that JSON lines of no type
// any kind knows, read as a session file because --input said so, are
// "not a Claude Code event stream" (exit 5, docs/exit-codes.md), as they
// are read as a stream: the session readers make no init and no result
// of a file in which they read no record of theirs. Before, each of them
// made a successful run of it (final: an empty answer and exit 0).
func TestForcedKindOnLinesOfNoKindIsNoRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "junk.jsonl")
	if err := os.WriteFile(path, []byte(`{"foo":1}`+"\n"+`{"bar":2}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"stream", "transcript", "codex-session", "gemini-session"} {
		r := runIn(t, []string{"final", "--input", kind, path}, "")
		assert.Equal(t, 5, r.Code, "%s: %s", kind, r.Stderr)
		assert.Contains(t, r.Stderr, "no line has a known type", kind)
		assert.Empty(t, r.Stdout, kind)
	}
}
