package input

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// TestTranscriptSpellings proves that a transcript's own names for fields
// reach the core under the stream's names when its records are decoded
// with the transcript's spellings, and only then (the core reads one
// spelling), and that a flag written false gives way to the next spelling.
func TestTranscriptSpellings(t *testing.T) {
	tests := []struct {
		name, record string
		check        func(t *testing.T, ev *stream.Event, spelled bool)
	}{
		{"agentId is agent_id", `{"type":"assistant","agentId":"a1","message":{"content":[]}}`,
			func(t *testing.T, ev *stream.Event, spelled bool) {
				assert.Equal(t, map[bool]string{true: "a1", false: ""}[spelled], ev.AgentID())
			}},
		{"toolUseResult is tool_use_result", `{"type":"user","toolUseResult":{"stdout":"x"},"message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"x"}]}}`,
			func(t *testing.T, ev *stream.Event, spelled bool) {
				assert.Equal(t, spelled, len(ev.ToolUseResult()) > 0)
			}},
		{"compactMetadata is compact_metadata", `{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":9}}`,
			func(t *testing.T, ev *stream.Event, spelled bool) {
				assert.Equal(t, map[bool]int64{true: 9, false: 0}[spelled], ev.Compaction().PreTokens)
			}},
		{"isMeta is isSynthetic", `{"type":"user","isMeta":true,"message":{"content":"reminder"}}`,
			func(t *testing.T, ev *stream.Event, spelled bool) {
				assert.Equal(t, spelled, ev.Kind == stream.KindSynthetic, ev.Kind)
			}},
		{"a false isMeta gives way to isCompactSummary", `{"type":"user","isMeta":false,"isCompactSummary":true,"message":{"content":"summary"}}`,
			func(t *testing.T, ev *stream.Event, spelled bool) {
				assert.Equal(t, spelled, ev.Kind == stream.KindSynthetic, ev.Kind)
			}},
		{"isMeta false is a prompt", `{"type":"user","isMeta":false,"message":{"content":"typed"}}`,
			func(t *testing.T, ev *stream.Event, _ bool) {
				assert.Equal(t, stream.KindPrompt, ev.Kind)
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, spelled := range []bool{true, false} {
				opts := stream.DecoderOptions{}
				if spelled {
					opts.Spellings = transcriptSpellings
				}
				ev, err := stream.NewDecoder(strings.NewReader(tc.record+"\n"), opts).Next()
				require.NoError(t, err)
				tc.check(t, ev, spelled)
			}
		})
	}
}
