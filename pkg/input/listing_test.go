package input

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestListingGlobSameAsFilepathGlob holds the listings kept for one
// search of a tree (Listing, what sessions and usage --by read a projects
// tree with) to filepath.Glob and to the plain GlobJSONL, Projects and
// TreeSessions, which list every folder afresh: the same files, in the
// same order, the same errors, with one Listing asked every pattern in
// turn (a folder listed for one is reused by the next). On a tree of the
// real session folders (testdata/transcripts: project folders, session
// folders, subagents, tool-results) with hostile entries beside them: a
// link to a project folder, a link to a session file, a dangling link, a
// file named as a folder the patterns go into, an empty folder, a
// Codex-shaped YYYY/MM/DD folder and a Gemini chats folder, compressed
// copies; and bad and literal patterns. The tree's 24 entries are more
// than prefetchMin: a level of them is listed on every core (prefetch),
// whose listings must land on their own folders.
func TestListingGlobSameAsFilepathGlob(t *testing.T) {
	tree := filepath.Join(t.TempDir(), "projects")
	require.NoError(t, os.MkdirAll(tree, 0o755))
	projects, _ := filepath.Glob("../../testdata/transcripts/*/home/.claude/projects/*")
	require.Greater(t, len(projects), 15)
	for _, p := range projects {
		abs, err := filepath.Abs(p)
		require.NoError(t, err)
		require.NoError(t, os.CopyFS(filepath.Join(tree, filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(p)))))+filepath.Base(p)), os.DirFS(abs)))
	}
	some, _ := filepath.Glob(filepath.Join(tree, "*", "*.jsonl"))
	require.NotEmpty(t, some)
	require.NoError(t, os.Symlink(filepath.Dir(some[0]), filepath.Join(tree, "linked-project")))
	require.NoError(t, os.Symlink(some[0], filepath.Join(filepath.Dir(some[1]), "linked.jsonl")))
	require.NoError(t, os.Symlink(filepath.Join(tree, "nowhere"), filepath.Join(tree, "dangling")))
	require.NoError(t, os.WriteFile(filepath.Join(tree, "chats"), []byte("a file"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(tree, "empty"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(tree, "2026", "12", "05"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(tree, "2026", "12", "05", "rollout-x.jsonl"), []byte("{}\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(tree, "g", "chats"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(tree, "g", "chats", "session-1.jsonl"), []byte("{}\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(some[2]), "z.jsonl.zst"), []byte("x"), 0o644))
	require.NoError(t, os.WriteFile(some[2]+".gz", []byte("x"), 0o644))

	patterns := []string{
		"*", "*/*", "*/*/*", "*/*/*/*", "*/*/*/rollout-*.jsonl", "*/chats/session-*.jsonl", "*/*.jsonl", "*.jsonl",
		"*/*/subagents/agent-*.jsonl", "*/*/subagents/workflows/*/agent-*.jsonl", "*/*/subagents/agent-*.meta.json",
		"linked-project/*", "dangling", "dangling/*", "chats/*", "empty/*", "nowhere/*", "2026/*/*", "[", "*/[", "[*/*",
		"", ".", "*/", "2026/12/05/rollout-x.jsonl",
	}
	shared := NewListing()
	for _, p := range patterns {
		for name, l := range map[string]*Listing{"shared": shared, "fresh": NewListing()} {
			pat := filepath.Join(tree, p)
			if p == "" || p == "*/" {
				pat = tree + "/" + p
			}
			want, wantErr := filepath.Glob(pat)
			got, err := l.Glob(pat)
			assert.Equal(t, wantErr, err, "%s: %s", name, p)
			assert.Equal(t, want, got, "%s: %s", name, p)
			want, wantErr = GlobJSONL(pat)
			got, err = l.GlobJSONL(pat)
			assert.Equal(t, wantErr, err, "%s: GlobJSONL %s", name, p)
			assert.Equal(t, want, got, "%s: GlobJSONL %s", name, p)
			assert.Equal(t, HasJSONL(pat), l.HasJSONL(pat), "%s: HasJSONL %s", name, p)
		}
	}
	wantTree, wantOK := TreeSessions(tree)
	require.NotEmpty(t, wantTree, "the Codex-shaped folder and the Gemini chat are found")
	wantProjects, err := Projects([]string{tree})
	require.NoError(t, err)
	require.Greater(t, len(wantProjects), 15)
	for name, l := range map[string]*Listing{"shared": shared, "fresh": NewListing()} {
		gotTree, gotOK := l.TreeSessions(tree)
		assert.Equal(t, wantTree, gotTree, name)
		assert.Equal(t, wantOK, gotOK, name)
		gotProjects, err := l.Projects([]string{tree})
		require.NoError(t, err)
		assert.Equal(t, wantProjects, gotProjects, name)
	}
}
