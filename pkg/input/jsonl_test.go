package input

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGlobJSONLFindsCompressedCopies proves a session folder's
// JSON-lines files are found compressed (x.jsonl.zst as `ccfilter
// archive` writes it, x.jsonl.gz) where x.jsonl is looked for, and that a
// compressed copy beside its plain file is left out (the plain file is the
// one Claude Code writes to: the same session twice would count it twice).
func TestGlobJSONLFindsCompressedCopies(t *testing.T) {
	cases := []struct {
		name  string
		files []string
		want  []string
		file  string // JSONLFile("a.jsonl")
	}{
		{"plain", []string{"a.jsonl"}, []string{"a.jsonl"}, "a.jsonl"},
		{"archived", []string{"a.jsonl.zst"}, []string{"a.jsonl.zst"}, "a.jsonl.zst"},
		{"gzipped", []string{"a.jsonl.gz"}, []string{"a.jsonl.gz"}, "a.jsonl.gz"},
		{"plain and its copy", []string{"a.jsonl", "a.jsonl.zst", "a.jsonl.gz"}, []string{"a.jsonl"}, "a.jsonl"},
		{"both copies", []string{"a.jsonl.zst", "a.jsonl.gz"}, []string{"a.jsonl.zst"}, "a.jsonl.zst"},
		{"others", []string{"a.jsonl.zst", "b.jsonl", "c.json", "d.jsonl.zst.ccfilter-tmp-1"}, []string{"a.jsonl.zst", "b.jsonl"}, "a.jsonl.zst"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tc.files {
				require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o600))
			}
			got, err := GlobJSONL(filepath.Join(dir, "*.jsonl"))
			require.NoError(t, err)
			var names []string
			for _, g := range got {
				names = append(names, filepath.Base(g))
			}
			assert.Equal(t, tc.want, names)
			assert.Equal(t, filepath.Join(dir, tc.file), JSONLFile(filepath.Join(dir, "a.jsonl")))
		})
	}
}

// globJSONLThreeGlobs is GlobJSONL as it was (main at aa5e20c): a
// filepath.Glob for the plain names and one for each compressed
// extension. The reference the one-listing GlobJSONL must equal.
func globJSONLThreeGlobs(pattern string) ([]string, error) {
	files, err := filepath.Glob(pattern)
	if err != nil {
		return nil, err
	}
	plain := len(files)
	for _, ext := range compressedExts {
		more, err := filepath.Glob(pattern + ext)
		if err != nil {
			return nil, err
		}
		for _, m := range more {
			if base := strings.TrimSuffix(m, ext); !slices.Contains(files[:plain], base) && !slices.Contains(files[plain:], base+".zst") {
				files = append(files, m)
			}
		}
	}
	slices.Sort(files)
	return files, nil
}

// jsonlPatterns are the patterns ccfilter globs in a projects tree: its
// sessions (tree/*/*.jsonl, a project's *.jsonl), a session id's prefix,
// its subagents' and Workflow agents' files.
func jsonlPatterns(projects string) []string {
	return []string{filepath.Join(projects, "*.jsonl"), filepath.Join(projects, "*", "*.jsonl"), filepath.Join(projects, "*", "0*.jsonl"),
		filepath.Join(projects, "*", "*", "subagents", "agent-*.jsonl"), filepath.Join(projects, "*", "*", "subagents", "workflows", "*", "agent-*.jsonl")}
}

// TestGlobJSONLSameAsThreeGlobs proves the one-listing GlobJSONL finds
// what the three filepath.Globs found, file for file, on every real
// projects tree (testdata/transcripts, ../shared/transcripts) and on a
// tree made of one of them (05-subagents-async's project folder) with
// each of its files also kept as .zst and .gz copies, and some only so.
func TestGlobJSONLSameAsThreeGlobs(t *testing.T) {
	trees, _ := filepath.Glob("../../testdata/transcripts/*/home/.claude/projects")
	shared, _ := filepath.Glob("../../../shared/transcripts/*/home/.claude/projects")
	trees = append(trees, shared...)
	require.NotEmpty(t, trees)

	src := "../../testdata/transcripts/05-subagents-async/home/.claude/projects"
	mixed := t.TempDir()
	n := 0
	require.NoError(t, filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		for i, name := range [][]string{{rel}, {rel, rel + ".zst"}, {rel + ".zst", rel + ".gz"}, {rel + ".gz"}}[n%4] {
			dst := filepath.Join(mixed, fmt.Sprintf("p%d", i), name)
			require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
			require.NoError(t, os.WriteFile(dst, nil, 0o600))
		}
		n++
		return nil
	}))
	trees = append(trees, mixed, filepath.Join(mixed, "p0"), "../../testdata/transcripts/nonexistent")

	for _, tree := range trees {
		for _, pattern := range jsonlPatterns(tree) {
			want, werr := globJSONLThreeGlobs(pattern)
			got, err := GlobJSONL(pattern)
			require.Equal(t, werr, err, pattern)
			assert.Equal(t, want, got, pattern)
			assert.Equal(t, len(want) > 0, HasJSONL(pattern), pattern)
		}
	}
	_, err := GlobJSONL(filepath.Join(mixed, "[", "*.jsonl"))
	assert.ErrorIs(t, err, filepath.ErrBadPattern)
}

// TestGlobJSONLListsATreeOnce proves GlobJSONL lists a projects tree's
// folders once, not once per name it looks for (plain, .zst, .gz): on
// 60-long-session's tree (testdata/transcripts), it allocates no more
// than 1.5 times one filepath.Glob of the same pattern, where the three
// Globs took three times as many. Allocations, not time: the same on a
// busy machine.
func TestGlobJSONLListsATreeOnce(t *testing.T) {
	tree := "../../testdata/transcripts/60-long-session/home/.claude/projects"
	if _, err := os.Stat(tree); err != nil {
		tree = "../../../shared/transcripts/60-long-session/home/.claude/projects"
	}
	for _, pattern := range []string{filepath.Join(tree, "*", "*.jsonl"), filepath.Join(tree, "*", "*", "subagents", "agent-*.jsonl")} {
		one := testing.AllocsPerRun(5, func() { _, _ = filepath.Glob(pattern) })
		ours := testing.AllocsPerRun(5, func() { _, _ = GlobJSONL(pattern) })
		t.Logf("%s: filepath.Glob %.0f allocations, GlobJSONL %.0f", pattern, one, ours)
		assert.LessOrEqual(t, ours, 1.5*one, pattern)
	}
}
