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
	copies, inCopy := idsPerCopy(t, out.Bytes(), `{"type":"init"`, ids)
	assert.Equal(t, 3, copies)
	assert.Greater(t, inCopy, 3*10, "each copy's session and tool ids")
}

// idsPerCopy checks that no id (the submatches of ids) of a corpus is in
// two of its copies (each begins with a line that starts with first),
// and returns how many copies and ids there are.
func idsPerCopy(t *testing.T, corpus []byte, first string, ids *regexp.Regexp) (copies, n int) {
	t.Helper()
	inCopy := map[string]int{} // id -> the copy it was seen in
	copyNo := -1
	for _, line := range bytes.Split(bytes.TrimSuffix(corpus, []byte("\n")), []byte("\n")) {
		if bytes.HasPrefix(line, []byte(first)) {
			copyNo++
		}
		for _, m := range ids.FindAllSubmatch(line, -1) {
			id := string(bytes.Join(m[1:], nil))
			if c, ok := inCopy[id]; ok {
				assert.Equal(t, copyNo, c, "%s is in two copies", id)
			}
			inCopy[id] = copyNo
		}
	}
	return copyNo + 1, len(inCopy)
}

// TestCodexCopiesAreSeparateRuns proves that the copies of a Codex CLI
// stream (codex exec --json, Codex CLI 0.171.0, testdata/agents/codex:
// 08-long-session, 32 tool calls; 19-subagent, whose subagent's thread is
// named in receiver_thread_ids and agents_states) share no thread id and
// no item id: the reader makes an item's id its tool call's id, and a
// call pairs with its result by it, so an item_N repeated across copies
// would be taken for one call. Copy 0 is the capture itself.
func TestCodexCopiesAreSeparateRuns(t *testing.T) {
	ids := regexp.MustCompile(`"(?:id|thread_id|sender_thread_id)":"([^"]+)"|"receiver_thread_ids":\["([^"]+)"`)
	for _, name := range []string{"08-long-session", "19-subagent"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile("../../../testdata/agents/codex/" + name + ".jsonl")
			require.NoError(t, err)
			var out bytes.Buffer
			_, err = Concat(&out, []*Source{NewCodexSource(name, data)}, int64(3*len(data)))
			require.NoError(t, err)
			assert.True(t, bytes.HasPrefix(out.Bytes(), data))

			copies, inCopy := idsPerCopy(t, out.Bytes(), `{"type":"thread.started"`, ids)
			assert.Equal(t, 3, copies)
			assert.Greater(t, inCopy, 3*3, "each copy's thread and item ids")
		})
	}
}
