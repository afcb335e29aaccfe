package realcorpus

import (
	"bytes"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGeminiCopiesAreSeparateRuns proves that the copies of a Gemini CLI
// stream (08-long-session, Gemini CLI 0.61.0, testdata/agents/gemini)
// share no session id and no tool id: each copy's calls pair with their
// own results, as separate runs' do (a tool id repeated across copies
// would be taken for one call). Copy 0 is the capture itself.
func TestGeminiCopiesAreSeparateRuns(t *testing.T) {
	data, err := os.ReadFile("../../../testdata/agents/gemini/08-long-session.jsonl")
	require.NoError(t, err)
	var out bytes.Buffer
	_, err = Concat(&out, []*Source{NewGeminiSource("08", data)}, int64(3*len(data)))
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(out.Bytes(), data))

	ids := regexp.MustCompile(`"(?:tool_id|session_id)":"([^"]+)"`)
	inCopy := map[string]int{} // id -> the copy it was seen in
	copyNo := -1
	for _, line := range bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n")) {
		if bytes.HasPrefix(line, []byte(`{"type":"init"`)) {
			copyNo++
		}
		for _, m := range ids.FindAllSubmatch(line, -1) {
			id := string(m[1])
			if c, ok := inCopy[id]; ok {
				assert.Equal(t, copyNo, c, "%s is in two copies", id)
			}
			inCopy[id] = copyNo
		}
	}
	assert.Equal(t, 2, copyNo, "three copies")
	assert.Greater(t, len(inCopy), 3*10, "each copy's session and tool ids")
}
