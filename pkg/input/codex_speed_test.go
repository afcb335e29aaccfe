package input

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/internal/jsonx"
)

// TestCodexItemTypeIsStrWithoutAString proves that the item type the
// translator reads once (codexItemType) is the item's "type" decoded, as
// each Str before it read it: on every item of the 18 Codex CLI 0.171.0
// captures (testdata/agents/codex) and on types spelled otherwise (an
// escape, a type Codex may add, not a string, none), and that a known
// type is read without making a string (each Str made one, a tenth of a
// types run's allocations).
func TestCodexItemTypeIsStrWithoutAString(t *testing.T) {
	files, err := filepath.Glob("../../testdata/agents/codex/*.jsonl")
	require.NoError(t, err)
	require.Len(t, files, 18)
	types := []jsonx.Value{jsonx.Value(`"agent\u005fmessage"`), jsonx.Value(`"web_search_call"`), jsonx.Value(`7`), jsonx.Value(`null`), nil}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			if typ := jsonx.Value(line).Get("item").Get("type"); typ != nil {
				types = append(types, typ)
			}
		}
	}
	require.Greater(t, len(types), 100)
	for _, typ := range types {
		assert.Equal(t, typ.Str(), codexItemType(typ), "%s", typ)
	}
	for _, known := range codexItemTypes {
		v := jsonx.Value(`"` + known + `"`)
		assert.Zero(t, testing.AllocsPerRun(10, func() { _ = codexItemType(v) }), known)
	}
}
