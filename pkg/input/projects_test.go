package input

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProjectFolder proves the folder of a working directory is the one
// the real CLI made, for the escaped and the long cwd of the transcripts.
func TestProjectFolder(t *testing.T) {
	for _, tc := range []struct{ cwd, capture string }{
		{"/home/user/project", "02-write-read"},
		{"/home/user/my project/v1.2_beta/ünï code", "52-escaped-cwd"},
		{"/home/user/" + rep("a") + "/" + rep("b") + "/" + rep("c") + "/" + rep("d"), "53-long-cwd"},
	} {
		dirs, err := filepath.Glob(filepath.Join("../../../shared/transcripts", tc.capture, "home/.claude/projects/*"))
		require.NoError(t, err)
		if len(dirs) == 0 {
			dirs, _ = filepath.Glob(filepath.Join("../../testdata/transcripts", tc.capture, "home/.claude/projects/*"))
		}
		require.Len(t, dirs, 1, tc.capture)
		assert.Equal(t, filepath.Base(dirs[0]), filepath.Base(ProjectFolder("/p", tc.cwd)), tc.cwd)
	}
	// A character beyond the BMP is two UTF-16 units: two '-'.
	assert.Equal(t, "/p/-a--b", ProjectFolder("/p", "/a😀b"))
}

func rep(s string) string {
	out := ""
	for range 60 {
		out += s
	}
	return out
}

// TestNewestSession proves the newest session is the one whose last
// record is latest, whatever the files' modification times say.
func TestNewestSession(t *testing.T) {
	dir := t.TempDir()
	write := func(name, first, last string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(`{"type":"user","sessionId":"x","timestamp":"`+first+`"}`+"\n"+`{"type":"user","sessionId":"x","timestamp":"`+last+`"}`+"\n"), 0o600))
		return p
	}
	old := write("a.jsonl", "2026-01-01T00:00:00Z", "2026-03-01T00:00:00Z") // resumed later: newest
	write("b.jsonl", "2026-02-01T00:00:00Z", "2026-02-02T00:00:00Z")
	newest, err := NewestSession(dir)
	require.NoError(t, err)
	assert.Equal(t, old, newest)
	_, err = NewestSession(t.TempDir())
	assert.ErrorIs(t, err, ErrNoSession)
}
