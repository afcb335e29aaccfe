package stream_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// TestToolCallsReadAsEncodingJSONReadsThem holds the tracker's and the
// tally's reading of an assistant message's content blocks (indexed once
// per event and shared: Event.blockHeads) to encoding/json's: every
// tool_use block, in order, with its id, name and input, opened as a call
// and counted by tool, while the Decoder reuses one Event for every line.
// On 21-sixty-tool-calls, 04-parallel-tools and 05-subagents-async
// (testdata/events).
func TestToolCallsReadAsEncodingJSONReadsThem(t *testing.T) {
	for _, name := range []string{"21-sixty-tool-calls", "04-parallel-tools", "05-subagents-async"} {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile("../../testdata/events/" + name + ".jsonl")
			require.NoError(t, err)

			type call struct{ ID, Name, Input string }
			var want []call
			byTool := map[string]int{}
			for _, line := range bytes.Split(raw, []byte("\n")) {
				var ev struct {
					Type    string
					Message struct {
						Content json.RawMessage
					}
				}
				if json.Unmarshal(line, &ev) != nil || ev.Type != "assistant" {
					continue
				}
				var blocks []struct {
					Type, ID, Name string
					Input          json.RawMessage
				}
				if json.Unmarshal(ev.Message.Content, &blocks) != nil {
					continue
				}
				for _, b := range blocks {
					if b.Type == "tool_use" || b.Type == "server_tool_use" || b.Type == "mcp_tool_use" {
						want = append(want, call{b.ID, b.Name, string(b.Input)})
						byTool[b.Name]++
					}
				}
			}
			require.NotEmpty(t, want)

			tr := stream.NewTracker(stream.TrackerOptions{})
			var got []call
			seen := map[string]bool{}
			d := stream.NewDecoder(bytes.NewReader(raw), stream.DecoderOptions{Check: stream.CheckFraming})
			for {
				ev, err := d.Next()
				if err != nil {
					break
				}
				tr.Observe(ev)
				for _, c := range tr.OpenCalls() {
					if !seen[c.ID] {
						seen[c.ID] = true
						got = append(got, call{c.ID, c.Name, string(c.Input)})
					}
				}
			}
			// (A call answered in the event that made it is never open: none
			// is in these captures.)
			assert.ElementsMatch(t, want, got)
			assert.Equal(t, len(want), tr.Tally().ToolCalls)
			assert.Equal(t, byTool, tr.Tally().Tools)
		})
	}
}
