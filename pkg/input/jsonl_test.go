package input

import (
	"os"
	"path/filepath"
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
