package input

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSubagentFilesSameAsTheirGlobs proves that looking for a session's
// subagents/ entry before globbing under it (hasSubagents, one Lstat
// where four pattern walks were) finds what the globs alone find: on
// every real session folder (testdata/transcripts: with subagents, with
// a Workflow's agents, with none) and on hostile ones: subagents/ a
// file, a link to another session's subagents/, a dangling link, an
// empty folder, no session folder at all.
func TestSubagentFilesSameAsTheirGlobs(t *testing.T) {
	files := func(dir string) []string {
		a, _ := GlobJSONL(filepath.Join(dir, "subagents", "agent-*.jsonl"))
		b, _ := GlobJSONL(filepath.Join(dir, "subagents", "workflows", "*", "agent-*.jsonl"))
		return append(a, b...)
	}
	metas := func(dir string) []string {
		a, _ := filepath.Glob(filepath.Join(dir, "subagents", "agent-*.meta.json"))
		b, _ := filepath.Glob(filepath.Join(dir, "subagents", "workflows", "*", "agent-*.meta.json"))
		return append(a, b...)
	}
	sessions, _ := filepath.Glob("../../testdata/transcripts/*/home/.claude/projects/*/*.jsonl")
	require.Greater(t, len(sessions), 15)
	var dirs []string
	with := 0
	for _, s := range sessions {
		dirs = append(dirs, SessionDir(s))
		if len(files(SessionDir(s))) > 0 {
			with++
		}
	}
	require.Positive(t, with, "some real sessions have subagents")
	tmp := t.TempDir()
	mk := func(name string, build func(dir string)) {
		dir := filepath.Join(tmp, name)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		build(dir)
		dirs = append(dirs, dir)
	}
	linkTo := ""
	for _, d := range dirs {
		if len(files(d)) > 0 {
			linkTo, _ = filepath.Abs(filepath.Join(d, "subagents"))
		}
	}
	mk("file", func(d string) { require.NoError(t, os.WriteFile(filepath.Join(d, "subagents"), nil, 0o644)) })
	mk("link", func(d string) { require.NoError(t, os.Symlink(linkTo, filepath.Join(d, "subagents"))) })
	mk("dangling", func(d string) {
		require.NoError(t, os.Symlink(filepath.Join(d, "nowhere"), filepath.Join(d, "subagents")))
	})
	mk("empty", func(d string) { require.NoError(t, os.MkdirAll(filepath.Join(d, "subagents"), 0o755)) })
	dirs = append(dirs, filepath.Join(tmp, "no-such-session"))
	linked := 0
	for _, d := range dirs {
		assert.Equal(t, files(d), SubagentFiles(d), d)
		assert.Equal(t, metas(d), SubagentMetas(d), d)
		if filepath.Base(d) == "link" {
			linked = len(SubagentFiles(d))
		}
	}
	assert.Positive(t, linked, "a linked subagents/ folder is read")
	assert.Empty(t, SubagentMetas(""), "no folder: no subagents (a transcript read from stdin)")
}

// TestSessionWithoutSubagentsIsNotGlobbed proves a session folder with
// no subagents/ entry costs one look, not the four pattern walks of its
// path it cost (each filepath.Glob and GlobJSONL builds its pattern and
// its matches): counted in allocations, which a walk cannot hide, on a
// real session without subagents (02-write-read).
func TestSessionWithoutSubagentsIsNotGlobbed(t *testing.T) {
	sessions, _ := filepath.Glob("../../testdata/transcripts/02-write-read/home/.claude/projects/*/*.jsonl")
	require.Len(t, sessions, 1)
	dir := SessionDir(sessions[0])
	require.Empty(t, SubagentFiles(dir))
	look := testing.AllocsPerRun(20, func() { _, _ = os.Lstat(filepath.Join(dir, "subagents")) })
	assert.LessOrEqual(t, testing.AllocsPerRun(20, func() { SubagentFiles(dir) }), look)
	assert.LessOrEqual(t, testing.AllocsPerRun(20, func() { SubagentMetas(dir) }), look)
}
