package input

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadMetaIsTheTwoReadsItReplaces: a subagent's .meta.json read once
// says what the two reads of it said apart (metaCall's toolUseId, and the
// agentType AgentTypes took when it decoded): a field of the wrong type
// spoils only its own, as it did when each was decoded alone. The first
// case is the real .meta.json of 05-subagents-async's first agent.
func TestReadMetaIsTheTwoReadsItReplaces(t *testing.T) {
	metas, _ := filepath.Glob("../../testdata/transcripts/05-subagents-async/home/.claude/projects/*/*/subagents/agent-*.meta.json")
	require.NotEmpty(t, metas)
	real, err := os.ReadFile(metas[0])
	require.NoError(t, err)
	tests := []struct {
		name, body string
		want       agentMeta
	}{
		{"real", string(real), readMetaByHand(t, real)},
		{"both", `{"agentType":"Explore","toolUseId":"toolu_1"}`, agentMeta{call: "toolu_1", typ: "Explore", ok: true}},
		{"no type", `{"toolUseId":"toolu_1"}`, agentMeta{call: "toolu_1", ok: true}},
		{"no call", `{"agentType":"Plan"}`, agentMeta{typ: "Plan", ok: true}},
		{"type of the wrong kind", `{"agentType":7,"toolUseId":"toolu_1"}`, agentMeta{call: "toolu_1"}},
		{"call of the wrong kind", `{"agentType":"Plan","toolUseId":[1]}`, agentMeta{typ: "Plan", ok: true}},
		{"cut", `{"agentType":"Plan","toolU`, agentMeta{}},
		{"empty", ``, agentMeta{}},
		{"not an object", `[]`, agentMeta{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "agent-a1.meta.json")
			require.NoError(t, os.WriteFile(path, []byte(tt.body), 0o644))
			assert.Equal(t, tt.want, readMeta(path))
			assert.Equal(t, tt.want.call, metaCall(path))
		})
	}
	assert.Equal(t, agentMeta{}, readMeta(filepath.Join(t.TempDir(), "missing.meta.json")))
}

// readMetaByHand is what the real file says, read with encoding/json's
// map: its toolUseId and agentType.
func readMetaByHand(t *testing.T, b []byte) agentMeta {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	call, _ := m["toolUseId"].(string)
	typ, _ := m["agentType"].(string)
	require.NotEmpty(t, call)
	return agentMeta{call: call, typ: typ, ok: true}
}
