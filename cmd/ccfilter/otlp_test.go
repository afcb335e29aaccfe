package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// otlpSpan is a span of OTLP/JSON, as a collector reads it.
type otlpSpan struct {
	TraceID    string `json:"traceId"`
	SpanID     string `json:"spanId"`
	Parent     string `json:"parentSpanId"`
	Name       string `json:"name"`
	Kind       int    `json:"kind"`
	Start      string `json:"startTimeUnixNano"`
	End        string `json:"endTimeUnixNano"`
	Attributes []struct {
		Key   string         `json:"key"`
		Value map[string]any `json:"value"`
	} `json:"attributes"`
	Status struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"status"`
	Events []struct {
		Name string `json:"name"`
	} `json:"events"`
}

func (s *otlpSpan) attr(k string) any {
	for _, a := range s.Attributes {
		if a.Key == k {
			for _, v := range a.Value {
				return v
			}
		}
	}
	return nil
}

func (s *otlpSpan) str(k string) string { v, _ := s.attr(k).(string); return v }

func (s *otlpSpan) int(k string) int64 {
	v, _ := s.attr(k).(string) // OTLP/JSON writes 64-bit integers as strings
	n, _ := strconv.ParseInt(v, 10, 64)
	return n
}

func (s *otlpSpan) times() (uint64, uint64) {
	a, _ := strconv.ParseUint(s.Start, 10, 64)
	b, _ := strconv.ParseUint(s.End, 10, 64)
	return a, b
}

// otlpSpans reads OTLP/JSON lines: every line one request, every
// resource claude-code's.
func otlpSpans(t *testing.T, out string) []*otlpSpan {
	t.Helper()
	var spans []*otlpSpan
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var req struct {
			ResourceSpans []struct {
				Resource struct {
					Attributes []struct {
						Key   string         `json:"key"`
						Value map[string]any `json:"value"`
					} `json:"attributes"`
				} `json:"resource"`
				ScopeSpans []struct {
					Spans []*otlpSpan `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &req), "each line one ExportTraceServiceRequest")
		require.NotEmpty(t, req.ResourceSpans)
		for _, rs := range req.ResourceSpans {
			require.Equal(t, "service.name", rs.Resource.Attributes[0].Key)
			require.Equal(t, "claude-code", rs.Resource.Attributes[0].Value["stringValue"])
			for _, ss := range rs.ScopeSpans {
				spans = append(spans, ss.Spans...)
			}
		}
	}
	return spans
}

// otlpInputs are the runs the trace is checked on: every capture (a
// sample in -short mode) and every transcript.
func otlpInputs(t *testing.T) []string {
	captures, _ := filepath.Glob("../../testdata/events/*.jsonl")
	if testing.Short() {
		captures = sampleCaptures(captures)
	}
	transcripts, _ := filepath.Glob("../../testdata/transcripts/*/home/.claude/projects/*/*.jsonl")
	require.NotEmpty(t, transcripts)
	return append(captures, transcripts...)
}

// TestOTLPTraceOfEveryRun proves the trace of every capture and
// transcript is valid OTLP/JSON of one trace that holds the run: one
// root; every parent a span of the trace; every tool call a span (an
// error result its span's error); every model call (message id) a chat
// span; every subagent an invoke_agent span under the Agent call that
// started it, its calls under it; every span within its time and the
// root's; the tokens of the chat spans and the root those the usage
// preset counts; and the same ids when the run is read again.
func TestOTLPTraceOfEveryRun(t *testing.T) {
	for _, path := range otlpInputs(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			r := runIn(t, []string{"-F", "otlp", path}, "")
			if r.Code == exitNoResult && r.Stdout == "" {
				return // an empty capture: no run, no trace
			}
			require.Contains(t, []int{0, 1}, r.Code, r.Stderr)
			spans := otlpSpans(t, r.Stdout)
			byID := map[string]*otlpSpan{}
			var root *otlpSpan
			for _, s := range spans {
				require.NotContains(t, byID, s.SpanID, "span ids are unique: %s", s.Name)
				byID[s.SpanID] = s
				assert.Len(t, s.TraceID, 32)
				assert.Equal(t, spans[0].TraceID, s.TraceID, "one trace per run")
				if s.Parent == "" {
					require.Nil(t, root, "one root")
					root = s
				}
			}
			require.NotNil(t, root)
			assert.Equal(t, "invoke_agent claude-code", root.Name)
			rs, re := root.times()
			for _, s := range spans {
				if s.Parent != "" {
					assert.Contains(t, byID, s.Parent, "%s: its parent is in the trace", s.Name)
				}
				st, en := s.times()
				assert.LessOrEqual(t, st, en, "%s starts before it ends", s.Name)
				assert.True(t, st >= rs && en <= re, "%s lies within the run: %d..%d in %d..%d", s.Name, st, en, rs, re)
			}
			checkToolSpans(t, path, spans, byID)
			checkChatSpans(t, path, spans, root)
			again := runIn(t, []string{"-F", "otlp", path}, "")
			assert.Equal(t, r.Stdout, again.Stdout, "the same run, the same trace")
		})
	}
}

// checkToolSpans: every call of the tools preset is an execute_tool span,
// failed as its result is; a subagent's under its invoke_agent span, which
// sits under the Agent call that started it.
func checkToolSpans(t *testing.T, path string, spans []*otlpSpan, byID map[string]*otlpSpan) {
	t.Helper()
	var calls []struct {
		ID      string `json:"tool_use_id"`
		Agent   string `json:"agent"`
		Tool    string `json:"tool"`
		IsError *bool  `json:"is_error"`
	}
	r := runIn(t, []string{"tools", "-F", "json", path}, "")
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &calls), r.Stderr)
	tools := map[string]*otlpSpan{}
	for _, s := range spans {
		if strings.HasPrefix(s.Name, "execute_tool ") {
			tools[s.str("gen_ai.tool.call.id")] = s
		}
	}
	for _, c := range calls {
		s := tools[c.ID]
		if !assert.NotNil(t, s, "call %s (%s) has a span", c.ID, c.Tool) {
			continue
		}
		assert.Equal(t, "execute_tool "+c.Tool, s.Name)
		failed := c.IsError != nil && *c.IsError
		assert.Equal(t, failed, s.Status.Code == 2, "%s %s: failed as its result", c.Tool, c.ID)
		parent := byID[s.Parent]
		require.NotNil(t, parent)
		if c.Agent == "main" {
			assert.Equal(t, "", parent.Parent, "a main-agent call sits under the root")
			continue
		}
		assert.True(t, strings.HasPrefix(parent.Name, "invoke_agent "), "a subagent's call sits under its agent: %s", parent.Name)
		agentCall := byID[parent.Parent]
		require.NotNil(t, agentCall)
		assert.Equal(t, parent.str("gen_ai.agent.id"), agentCall.str("gen_ai.tool.call.id"), "the subagent under the call that started it")
	}
	assert.Len(t, tools, len(calls), "no span of a call the tools preset does not list")
}

// checkChatSpans: every message id of the run's assistant events is one
// chat span; their tokens add up to the usage preset's per model call,
// and the root's are its totals.
func checkChatSpans(t *testing.T, path string, spans []*otlpSpan, root *otlpSpan) {
	t.Helper()
	// The calls the run made: its assistant messages, and the calls whose
	// stream began (message_start) and died before any.
	ids := runIn(t, []string{"-r", `(select(.type == "assistant") | .message.id // empty), (select(.type == "stream_event" and .event.type == "message_start") | .event.message.id // empty)`, path}, "")
	want := map[string]bool{}
	for _, id := range strings.Fields(ids.Stdout) {
		want[id] = true
	}
	var sum struct{ input, uncached, output, read, write int64 }
	got := map[string]bool{}
	for _, s := range spans {
		if !strings.HasPrefix(s.Name, "chat ") {
			continue
		}
		assert.Equal(t, 3, s.Kind, "a model call is a client span")
		got[s.str("gen_ai.response.id")] = true
		sum.input += s.int("gen_ai.usage.input_tokens")
		sum.uncached += s.int("claude_code.usage.uncached_input_tokens")
		sum.output += s.int("gen_ai.usage.output_tokens")
		sum.read += s.int("gen_ai.usage.cache_read.input_tokens")
		sum.write += s.int("gen_ai.usage.cache_creation.input_tokens")
	}
	assert.Equal(t, want, got, "one chat span per message id")
	var rows []struct {
		Side                     string `json:"side"`
		Input, Output            int64
		CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
		InputTokens              int64 `json:"input_tokens"`
		OutputTokens             int64 `json:"output_tokens"`
	}
	u := runIn(t, []string{"usage", "-F", "json", path}, "")
	require.NoError(t, json.Unmarshal([]byte(u.Stdout), &rows), u.Stderr)
	var calls struct{ input, output, read, write int64 }
	for _, row := range rows {
		switch row.Side {
		case "main", "subagent":
			calls.input += row.InputTokens
			calls.output += row.OutputTokens
			calls.read += row.CacheReadInputTokens
			calls.write += row.CacheCreationInputTokens
		case "total":
			assert.Equal(t, row.InputTokens+row.CacheReadInputTokens+row.CacheCreationInputTokens, root.int("gen_ai.usage.input_tokens"), "the root: the run's input, cache included")
			assert.Equal(t, row.OutputTokens, root.int("gen_ai.usage.output_tokens"), "the root: the run's output")
		}
	}
	assert.Equal(t, calls.input, sum.uncached)
	assert.Equal(t, calls.input+calls.read+calls.write, sum.input, "input tokens include the cache's, as the GenAI conventions count them")
	assert.Equal(t, calls.output, sum.output)
	assert.Equal(t, calls.read, sum.read)
	assert.Equal(t, calls.write, sum.write)
	assert.True(t, slices.ContainsFunc(root.Attributes, func(a struct {
		Key   string         `json:"key"`
		Value map[string]any `json:"value"`
	}) bool {
		return a.Key == "claude_code.times"
	}), "the root says where its times come from")
}
