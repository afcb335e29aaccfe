package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// joinRecord is what an assistant record says of the join keys, read by
// an expression over the input itself (the stream's request_id, a
// transcript's requestId): the oracle of TestOTLPSpansCarryClaudeCodesJoinKeys.
type joinRecord struct {
	MessageID string   `json:"m"`
	RequestID string   `json:"r"`
	UUID      string   `json:"u"`
	Session   string   `json:"s"`
	Tools     []string `json:"t"`
}

func joinRecords(t *testing.T, path string) []joinRecord {
	t.Helper()
	r := runIn(t, []string{"-c", `select(.type == "assistant") | {m: (.message.id // ""), r: (.request_id // .requestId // ""), u: (.uuid // ""), s: (.session_id // .sessionId // ""), t: [.message.content[]? | select(.type == "tool_use") | .id]}`, path}, "")
	var out []joinRecord
	for _, line := range strings.Fields(r.Stdout) {
		var j joinRecord
		require.NoError(t, json.Unmarshal([]byte(line), &j), r.Stderr)
		out = append(out, j)
	}
	return out
}

// TestOTLPSpansCarryClaudeCodesJoinKeys proves every span of every capture
// and transcript carries the keys that join it to Claude Code's own
// telemetry wherever the input has them: session.id on every span (the
// root's gen_ai.conversation.id); on a model call's span the request_id
// and message.uuid of its first assistant record that has them (a
// stream's request_id, a transcript's requestId), gen_ai.response.id
// staying the message id; on a tool call's span tool_use_id (its
// gen_ai.tool.call.id) and the message.uuid of the record that made the
// call. The transcript of 05-subagents-async and the capture
// 07-partial-messages (its model calls begin with a partial message,
// which carries no request id) must have a request id on every chat span.
func TestOTLPSpansCarryClaudeCodesJoinKeys(t *testing.T) {
	mustHaveRequestIDs := map[string]bool{"07-partial-messages.jsonl": true, "cb10905b-9d5a-4d11-a6f3-8e2e6e2068cd.jsonl": true}
	inputs := append(otlpInputs(t), "../../testdata/events/07-partial-messages.jsonl")
	for _, path := range inputs {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			r := runIn(t, []string{"-F", "otlp", path}, "")
			if r.Stdout == "" {
				return // an empty capture: no run, no trace
			}
			spans := otlpSpans(t, r.Stdout)
			requestOf, uuidOf, callUUID := map[string]string{}, map[string]string{}, map[string]string{}
			for _, j := range joinRecords(t, path) {
				if _, ok := requestOf[j.MessageID]; !ok || requestOf[j.MessageID] == "" {
					requestOf[j.MessageID] = j.RequestID
				}
				if _, ok := uuidOf[j.MessageID]; !ok || uuidOf[j.MessageID] == "" {
					uuidOf[j.MessageID] = j.UUID
				}
				for _, id := range j.Tools {
					if _, ok := callUUID[id]; !ok {
						callUUID[id] = j.UUID
					}
				}
			}
			var root *otlpSpan
			for _, s := range spans {
				if s.Name == "invoke_agent claude-code" {
					root = s
				}
			}
			require.NotNil(t, root)
			session := root.str("gen_ai.conversation.id")
			chats, withRequest := 0, 0
			for _, s := range spans {
				assert.Equal(t, session, s.str("session.id"), "%s: session.id", s.Name)
				switch {
				case strings.HasPrefix(s.Name, "chat "):
					id := s.str("gen_ai.response.id")
					if id == "" {
						continue // a call with no message id
					}
					chats++
					assert.Equal(t, requestOf[id], s.str("request_id"), "%s %s: request_id", s.Name, id)
					assert.Equal(t, uuidOf[id], s.str("message.uuid"), "%s %s: message.uuid", s.Name, id)
					if s.str("request_id") != "" {
						withRequest++
						assert.True(t, strings.HasPrefix(s.str("request_id"), "req_"), "an API request id")
					}
				case strings.HasPrefix(s.Name, "execute_tool "):
					id := s.str("gen_ai.tool.call.id")
					assert.Equal(t, id, s.str("tool_use_id"), "%s: tool_use_id", s.Name)
					assert.Equal(t, callUUID[id], s.str("message.uuid"), "%s %s: message.uuid", s.Name, id)
				}
			}
			if mustHaveRequestIDs[name] {
				assert.Positive(t, chats)
				assert.Equal(t, chats, withRequest, "every chat span carries its request id")
			}
		})
	}
}

// TestOTLPRunUnderTraceParent proves TRACEPARENT (and TRACESTATE) in the
// environment put the run's trace under the caller's, as claude -p puts
// its own spans: the trace id is the given one, the root span's parent the
// given span, every span carries the trace state, and the spans are the
// run's own otherwise (the same ids, names and times); --otlp-endpoint
// names that trace; a folder's sessions all go under it; an invalid
// TRACEPARENT is said once and ignored. On the capture 05-subagents-async
// and the transcripts of 50-multi-turn.
func TestOTLPRunUnderTraceParent(t *testing.T) {
	const (
		traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
		spanID  = "00f067aa0ba902b7"
	)
	env := []string{"TRACEPARENT=00-" + traceID + "-" + spanID + "-01", "TRACESTATE=ci=job-42,rojo=00f067aa0ba902b7"}
	own := otlpSpans(t, runEnv(t, nil, "-F", "otlp", sendCapture).Stdout)
	r := runEnv(t, env, "-F", "otlp", sendCapture)
	require.Equal(t, exitOK, r.Code, r.Stderr)
	assert.Empty(t, r.Stderr)
	under := otlpSpans(t, r.Stdout)
	require.Len(t, under, len(own))
	var traceStates []string
	require.NoError(t, json.Unmarshal([]byte("["+strings.Join(jsonField(t, r.Stdout, "traceState"), ",")+"]"), &traceStates))
	assert.Len(t, traceStates, len(own), "every span carries the trace state")
	for i, s := range under {
		assert.Equal(t, traceID, s.TraceID, "%s: the caller's trace", s.Name)
		assert.Equal(t, own[i].SpanID, s.SpanID, "the run's own span ids")
		assert.Equal(t, own[i].Name, s.Name)
		assert.Equal(t, own[i].Start, s.Start)
		if own[i].Parent == "" {
			assert.Equal(t, spanID, s.Parent, "the root: a child of the caller's span")
		} else {
			assert.Equal(t, own[i].Parent, s.Parent)
		}
		assert.Equal(t, "ci=job-42,rojo=00f067aa0ba902b7", traceStates[i])
	}

	rc := newReceiver(t)
	r = runEnv(t, env, "--otlp-endpoint", rc.srv.URL, sendCapture)
	require.Equal(t, exitOK, r.Code, r.Stderr)
	assert.Equal(t, "ccfilter: --otlp-endpoint "+rc.srv.URL+"/v1/traces: sent 15 spans of trace "+traceID+"\n", r.Stderr)

	folder := "../../testdata/transcripts/50-multi-turn/home/.claude/projects/-home-user-project"
	r = runEnv(t, env, "--otlp-endpoint", rc.srv.URL, folder)
	require.Equal(t, exitOK, r.Code, r.Stderr)
	assert.Contains(t, r.Stderr, " spans of trace "+traceID+"\n", "two sessions, one trace: the caller's")

	for _, bad := range []string{"00-" + traceID + "-" + spanID, "00-" + strings.ToUpper(traceID) + "-" + spanID + "-01", "00-00000000000000000000000000000000-" + spanID + "-01", "ff-" + traceID + "-" + spanID + "-01"} {
		r = runEnv(t, []string{"TRACEPARENT=" + bad}, "-F", "otlp", sendCapture)
		require.Equal(t, exitOK, r.Code, r.Stderr)
		assert.Equal(t, 1, strings.Count(r.Stderr, "\n"), "said once: %s", r.Stderr)
		assert.Contains(t, r.Stderr, "ccfilter: TRACEPARENT: \""+bad+"\" is not a W3C traceparent")
		assert.Equal(t, own[0].TraceID, otlpSpans(t, r.Stdout)[0].TraceID, "ignored: the run's own trace")
	}
}

// jsonField lists the values of a key in OTLP/JSON lines, as JSON.
func jsonField(t *testing.T, out, key string) []string {
	t.Helper()
	var vals []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var req struct {
			ResourceSpans []struct {
				ScopeSpans []struct {
					Spans []map[string]json.RawMessage `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &req))
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					if v, ok := s[key]; ok {
						vals = append(vals, string(v))
					}
				}
			}
		}
	}
	return vals
}
