package stream_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// TestAssistantBlocksReadAsTheirHeads proves that Event.Assistant reads
// each content block by its members, as the tool calls' heads
// (AppendToolUses) and jq read them: on every assistant line of the real
// capture testdata/real/60-long-session.jsonl each tool call it reads is
// the head's; and on its line 12 (a text block) with the text written a
// second time under an escaped key (`"t\u0065xt"`, which jq reads as
// "text", the last of the two), the text is the second, where a Get per
// field (which misses a respelled duplicate below the top level) read the
// first.
func TestAssistantBlocksReadAsTheirHeads(t *testing.T) {
	data, err := os.ReadFile("../../testdata/real/60-long-session.jsonl")
	require.NoError(t, err)
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	calls := 0
	for i, line := range lines {
		ev, err := stream.NewEvent(line, "60-long-session", int64(i+1))
		require.NoError(t, err)
		if ev.Type != "assistant" {
			continue
		}
		var uses []stream.Block
		for _, b := range ev.Assistant().Blocks {
			if b.Type == "tool_use" {
				uses = append(uses, b)
			}
		}
		heads := ev.AppendToolUses(nil)
		require.Len(t, uses, len(heads), "line %d", i+1)
		for j := range heads {
			assert.Equal(t, heads[j].ID, uses[j].ID)
			assert.Equal(t, heads[j].Name, uses[j].Name)
			assert.JSONEq(t, string(heads[j].Input), string(uses[j].Input))
			calls++
		}
	}
	assert.Positive(t, calls)

	line := lines[11]
	const text = `"text":"I'll start by getting an overview of the source tree."`
	require.Contains(t, string(line), text)
	for _, tc := range []struct{ name, line, want string }{
		{"as written", string(line), "I'll start by getting an overview of the source tree."},
		{"text respelled after it", string(bytes.Replace(line, []byte(text), []byte(text+`,"t\u0065xt":"respelled"`), 1)), "respelled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := stream.NewEvent([]byte(tc.line), "60-long-session", 12)
			require.NoError(t, err)
			blocks := ev.Assistant().Blocks
			require.Len(t, blocks, 1)
			assert.Equal(t, "text", blocks[0].Type)
			assert.Equal(t, tc.want, blocks[0].Text)
		})
	}
}
