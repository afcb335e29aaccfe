package stream_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// firstEvent is the first event of a real input (a path under testdata)
// whose line holds marker.
func firstEvent(t *testing.T, path, marker string) *stream.Event {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("../../testdata", path))
	require.NoError(t, err)
	require.NotEmpty(t, files, path)
	f, err := os.Open(files[0])
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for n := int64(1); sc.Scan(); n++ {
		if strings.Contains(sc.Text(), marker) {
			ev, err := stream.NewEvent(sc.Bytes(), path, n)
			require.NoError(t, err)
			return ev
		}
	}
	require.FailNow(t, "no line with "+marker, path)
	return nil
}

// TestTypedViewsReadRealEvents proves each typed view the renderers and
// the live status read instead of event JSON by key gives the fields of
// a real event, as the capture (or transcript) named has them.
func TestTypedViewsReadRealEvents(t *testing.T) {
	tests := []struct {
		name, path, marker string
		check              func(t *testing.T, ev *stream.Event)
	}{
		{"a denial", "events/15-permission-denied.jsonl", `"subtype":"permission_denied"`, func(t *testing.T, ev *stream.Event) {
			d := ev.Denial()
			assert.Equal(t, "Bash", d.ToolName)
			assert.Equal(t, "toolu_0125oLWP8fMdQdPm7bupWQHF", d.ToolUseID)
			assert.True(t, strings.HasPrefix(d.Message, "touch in '/home/user/project/should-not-exist.txt' needs approval."), d.Message)
		}},
		{"the background tasks", "events/05-subagents-async.jsonl", `"tasks":[{"task_id":"ab38ee1e1381baf0b","run_id":"0mx65ltsj-5905856a","task_type":"local_agent","subagent_type":"general-purpose","description":"Create alpha file"},{`, func(t *testing.T, ev *stream.Event) {
			tasks := ev.BackgroundTasks()
			require.Len(t, tasks, 2)
			assert.Equal(t, "ab38ee1e1381baf0b", tasks[0].TaskID)
			assert.Equal(t, "Create alpha file", tasks[0].Description)
			assert.Equal(t, "a912b2e4c07df6bb2", tasks[1].TaskID)
			assert.Equal(t, "Run beta command", tasks[1].Description)
		}},
		{"a forwarded subagent event", "events/05-subagents-async.jsonl", `"task_description"`, func(t *testing.T, ev *stream.Event) {
			typ, desc := ev.Forwarded()
			assert.Equal(t, "general-purpose", typ)
			assert.Equal(t, "Create alpha file", desc)
		}},
		{"a message_start", "events/07-partial-messages.jsonl", `"message_start"`, func(t *testing.T, ev *stream.Event) {
			d := ev.Delta()
			assert.Equal(t, "msg_01FsSES2iAi5EsjPo2Hy4GgQ", d.MessageID)
			assert.Equal(t, "claude-opus-5-5", d.Model)
		}},
		{"a message_delta", "events/07-partial-messages.jsonl", `"message_delta"`, func(t *testing.T, ev *stream.Event) {
			d := ev.Delta()
			assert.Equal(t, "tool_use", d.StopReason)
			assert.True(t, d.HasOutputTokens)
			assert.Equal(t, int64(52), d.OutputTokens)
		}},
		{"a status", "events/07-partial-messages.jsonl", `"subtype":"status"`, func(t *testing.T, ev *stream.Event) {
			assert.Equal(t, stream.Progress{Status: "requesting"}, ev.Progress())
		}},
		{"a model fallback", "events/32-fallback-model.jsonl", `"model_fallback"`, func(t *testing.T, ev *stream.Event) {
			n := ev.Notice()
			assert.Equal(t, "claude-opus-5-5", n.OriginalModel)
			assert.Equal(t, "claude-sonnet-5-5", n.FallbackModel)
			assert.Equal(t, "overloaded", n.Trigger)
			assert.Equal(t, "Switched to Sonnet 5.5 due to high demand for Opus 5.5", n.Content)
		}},
		{"an async launch", "events/05-subagents-async.jsonl", `"async_launched"`, func(t *testing.T, ev *stream.Event) {
			assert.Equal(t, "async_launched", ev.ToolUseResultStatus())
		}},
		{"a stream's session (JoinKeys)", "events/02-write-read.jsonl", `"subtype":"init"`, func(t *testing.T, ev *stream.Event) {
			assert.Equal(t, "48d4f32a-2807-49c0-9485-c942ad15aa94", ev.JoinKeys().SessionID)
			assert.Equal(t, "9dd95cea-53a3-486b-aed3-9222b279fcc7", ev.JoinKeys().UUID)
		}},
		{"an Agent call's input", "events/05-subagents-async.jsonl", `"subagent_type":"general-purpose"}`, func(t *testing.T, ev *stream.Event) {
			b := ev.Assistant().Blocks
			var in stream.ToolInput
			for _, b := range b {
				if b.Name == "Agent" {
					in = stream.ReadToolInput(b.Input)
				}
			}
			assert.Equal(t, "general-purpose", in.SubagentType())
			assert.Equal(t, "Create alpha file", in.Description())
			assert.False(t, in.HasCommand())
		}},
		{"a Write's input and edit", "events/02-write-read.jsonl", `"name":"Write"`, func(t *testing.T, ev *stream.Event) {
			for _, b := range ev.Assistant().Blocks {
				if b.Name != "Write" {
					continue
				}
				assert.Equal(t, "/home/user/project/probe.txt", stream.ReadToolInput(b.Input).FilePath())
				old, new, ok := stream.EditOf(b.Name, b.Input)
				assert.True(t, ok)
				assert.Equal(t, "", old)
				assert.Equal(t, "hello probe\nsecond line\n", new)
				_, _, ok = stream.EditOf("Read", b.Input)
				assert.False(t, ok, "only an Edit or a Write is an edit")
			}
		}},
		{"a result of tool references", "events/35-mcp-toolsearch.jsonl", `"type":"tool_reference"`, func(t *testing.T, ev *stream.Event) {
			rs := ev.ToolResults()
			require.Len(t, rs, 1)
			assert.Equal(t, "[tool_reference: mcp__probe__echo]\n[tool_reference: mcp__probe__fail]", rs[0].Shown())
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, firstEvent(t, tc.path, tc.marker))
		})
	}
}
