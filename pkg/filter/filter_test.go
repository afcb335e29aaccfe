package filter

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// events decodes a capture, keeping every event (clones).
func events(t *testing.T, name string) []*stream.Event {
	t.Helper()
	f, err := os.Open(filepath.Join("../../testdata/events", name))
	require.NoError(t, err)
	defer f.Close()
	dec := stream.NewDecoder(f, stream.DecoderOptions{Source: name})
	var out []*stream.Event
	for {
		ev, err := dec.Next()
		if err == io.EOF {
			return out
		}
		require.NoError(t, err)
		out = append(out, ev.Clone())
	}
}

// run collects an expression's outputs on one event, and its error.
func run(t *testing.T, x *Expr, e *stream.Event) []any {
	t.Helper()
	var out []any
	err := x.Run(context.Background(), e, nil, func(v any, _ bool) error {
		out = append(out, v)
		return nil
	})
	if err != nil {
		out = append(out, "error: "+err.Error())
	}
	return out
}

// TestTypeGuardSkipIsExact proves that skipping events by a leading
// select(.type == "X") changes nothing: on every capture, each event the
// guard skips yields nothing when the expression really runs on it, and the
// guard is only recognised where it heads the whole expression.
func TestTypeGuardSkipIsExact(t *testing.T) {
	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	srcs := []string{
		`select(.type=="user") | .message.content[0].tool_use_id`,
		`select( .type == "result" )`,
		`select(.type=="assistant") | kind, line`,
		`select(.type=="system")|.subtype`,
	}
	for _, src := range srcs {
		guarded, err := Compile(src, nil, nil, nil)
		require.NoError(t, err)
		require.NotEmpty(t, guarded.typeGuard, src)
		plain, err := Compile(src, nil, nil, nil)
		require.NoError(t, err)
		plain.typeGuard = "" // the slow path: every event runs
		skipped := 0
		for _, f := range files {
			for _, e := range events(t, filepath.Base(f)) {
				assert.Equal(t, run(t, plain, e), run(t, guarded, e), "%s on %s:%d", src, f, e.Line)
				if guarded.Skips(e) {
					skipped++
				}
			}
		}
		assert.Positive(t, skipped, "%s skips some events", src)
	}
	for _, src := range []string{
		`select(.type=="user"), 1`,        // the 1 comes for every event
		`select(.type=="user") as $x | 1`, // not a pipe after the select
		`.a | select(.type=="user")`,
		`select(.type=="user" or true)`,
	} {
		x, err := Compile(src, nil, nil, nil)
		require.NoError(t, err)
		assert.Empty(t, x.typeGuard, src)
	}
}

// TestFunctions proves ccfilter's extra functions on a capture with two
// foreground subagents.
func TestFunctions(t *testing.T) {
	evs := events(t, "05b-subagents-foreground.jsonl")
	x, err := Compile(`[kind, agent, is_subagent, line, source, (text|type), (tool_uses|length), (tool_results|length), is_error]`, nil, nil, nil)
	require.NoError(t, err)
	var rows [][]any
	for _, e := range evs {
		out := run(t, x, e)
		require.Len(t, out, 1)
		rows = append(rows, out[0].([]any))
	}
	byKind := map[string][]any{}
	subagentEvents := 0
	for _, r := range rows {
		if _, ok := byKind[r[0].(string)]; !ok {
			byKind[r[0].(string)] = r
		}
		if r[2] == true {
			subagentEvents++
			assert.NotEqual(t, stream.MainAgent, r[1], "a subagent's event names its Agent call")
		}
		assert.Equal(t, "05b-subagents-foreground.jsonl", r[4])
	}
	assert.Positive(t, subagentEvents)
	assert.Equal(t, []any{"init", "main", false, 1, "05b-subagents-foreground.jsonl", "null", 0, 0, false}, byKind["init"])
	assert.Equal(t, 1, byKind["tool_use"][6], "tool_uses of a tool_use event")
	assert.Equal(t, 1, byKind["tool_result"][7], "tool_results of a tool_result event")
	assert.Equal(t, "string", byKind["text"][5], "text of an assistant text event")
	assert.Equal(t, "null", byKind["result"][5], "text is null outside messages")
}

// TestIsTrouble proves the errors preset's rule on captures that hold each
// kind of trouble, and on a clean run.
func TestIsTrouble(t *testing.T) {
	tests := []struct {
		capture string
		want    map[string]int // kind → trouble events of that kind
	}{
		{"01-plain-text.jsonl", map[string]int{}},
		{"03-bash-fail.jsonl", map[string]int{"tool_result": 1}},
		{"11-overloaded-529-retry.jsonl", map[string]int{"retry": 2}},
		{"12-max-turns.jsonl", map[string]int{"result": 1}},
		{"15-permission-denied.jsonl", map[string]int{"permission_denied": 2, "tool_result": 2}},
		{"17-sigint-streaming.jsonl", map[string]int{"interrupt": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.capture, func(t *testing.T) {
			got := map[string]int{}
			for _, e := range events(t, tt.capture) {
				if IsTrouble(e) {
					got[e.Kind.String()]++
				}
			}
			for k, n := range tt.want {
				assert.Equal(t, n, got[k], "kind %s", k)
			}
			if len(tt.want) == 0 {
				assert.Empty(t, got)
			}
		})
	}
}

// TestAgentMatch proves --agent's values.
func TestAgentMatch(t *testing.T) {
	sub := &stream.Subagent{ToolUseID: "toolu_1", AgentID: "ab38ee1e1381baf0b"}
	tests := []struct {
		agent  Agent
		parent string
		sub    *stream.Subagent
		want   bool
	}{
		{"", "", nil, true},
		{"all", "toolu_1", sub, true},
		{"main", "", nil, true},
		{"main", "toolu_1", sub, false},
		{"sub", "toolu_1", sub, true},
		{"sub", "", nil, false},
		{"toolu_1", "toolu_1", sub, true},
		{"ab38ee1e1381baf0b", "toolu_1", sub, true},
		{"ab38ee", "toolu_1", sub, true}, // an id prefix of six or more
		{"ab38e", "toolu_1", sub, false}, // too short to be a prefix
		{"toolu_2", "toolu_1", sub, false},
		{"ab38ee1e1381baf0b", "", nil, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.agent.Match(tt.parent, tt.sub), "%q on parent %q", tt.agent, tt.parent)
	}
}

// TestCompileErrors proves a syntax error carries the caret under the bad
// token, and a runtime error and halt_error come back typed with the
// event's place.
func TestCompileErrors(t *testing.T) {
	_, err := Compile(`.a | | .b`, nil, nil, nil)
	var pe *ParseError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "    .a | | .b\n         ^", pe.Caret())

	_, err = Compile(`nosuchfunc`, nil, nil, nil)
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "", pe.Caret(), "no position for an unknown function")

	e := events(t, "01-plain-text.jsonl")[0]
	x, err := Compile(`error("boom")`, nil, nil, nil)
	require.NoError(t, err)
	err = x.Run(context.Background(), e, nil, func(any, bool) error { return nil })
	var re *RuntimeError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "01-plain-text.jsonl:1: jq error: boom", re.Error())

	x, err = Compile(`"bye\n" | halt_error(3)`, nil, nil, nil)
	require.NoError(t, err)
	err = x.Run(context.Background(), e, nil, func(any, bool) error { return nil })
	var h *Halt
	require.ErrorAs(t, err, &h)
	assert.Equal(t, 3, h.Code)
	assert.Equal(t, "bye\n", h.Value)
}

// TestVarsAndEnviron proves --arg/--argjson values reach the expression and
// that $ENV is empty unless the caller gives an environment.
func TestVarsAndEnviron(t *testing.T) {
	e := events(t, "01-plain-text.jsonl")[0]
	x, err := Compile(`[$name, $n, $ENV.HOME]`, []Var{{"name", "x"}, {"n", json.Number("2")}}, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, []any{[]any{"x", json.Number("2"), nil}}, run(t, x, e))
	x, err = Compile(`$ENV.HOME`, nil, nil, func() []string { return []string{"HOME=/h"} })
	require.NoError(t, err)
	assert.Equal(t, []any{"/h"}, run(t, x, e))
}

// TestTroubleOfSubagentsAndCompaction proves the errors preset's rule
// takes a subagent's retry (tool_progress with subagent_retry) and a
// failed compaction (system/status), on lines derived from the captures'
// shapes, and not their ordinary counterparts.
func TestTroubleOfSubagentsAndCompaction(t *testing.T) {
	for _, tc := range []struct {
		line    string
		trouble bool
	}{
		{`{"type":"tool_progress","tool_use_id":"toolu_1","tool_name":"Agent","parent_tool_use_id":null,"elapsed_time_seconds":3,"subagent_retry":{"agent_id":"a1","attempt":1,"max_retries":10,"retry_delay_ms":500,"error_status":529,"error_category":"overloaded"}}`, true},
		{`{"type":"tool_progress","tool_use_id":"toolu_1","tool_name":"Agent","parent_tool_use_id":null,"elapsed_time_seconds":3}`, false},
		{`{"type":"system","subtype":"status","status":null,"compact_result":"failed","compact_error":"Conversation too long","session_id":"s"}`, true},
		{`{"type":"system","subtype":"status","status":null,"compact_result":"success","session_id":"s"}`, false},
		{`{"type":"system","subtype":"status","status":"compacting","session_id":"s"}`, false},
	} {
		e, err := stream.NewEvent([]byte(tc.line), "t", 1)
		require.NoError(t, err)
		assert.Equal(t, tc.trouble, IsTrouble(e), tc.line)
	}
}

// TestStopped proves the signs of an answer the API stopped are read:
// the synthetic messages claude-code 2.1.328 adds (30-refusal's and
// 29-max-tokens' texts), 2.1.332's refusal_retry, the refusal notices, and
// a transcript record's stop_reason; a stream's assistant event (the
// message_start snapshot, which carries no final stop_reason) is never
// read for it.
func TestStopped(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Your response above was stopped by a safety classifier — this is not a tool or API error."}]},"parent_tool_use_id":null,"isSynthetic":true}`, "refusal"},
		{`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Output token limit hit. Resume directly"}]},"parent_tool_use_id":null,"isSynthetic":true}`, "max_tokens"},
		{`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"try again"}]},"parent_tool_use_id":null,"refusal_retry":{"attempt":1}}`, "refusal"},
		{`{"type":"system","subtype":"model_refusal_no_fallback","original_model":"m","content":"x"}`, "refusal"},
		{`{"type":"assistant","message":{"id":"m","model":"x","content":[{"type":"text","text":"I can't"}],"stop_reason":"refusal"},"sessionId":"s","uuid":"u"}`, "refusal"},
		{`{"type":"assistant","message":{"id":"m","model":"x","content":[{"type":"text","text":"cut"}],"stop_reason":"max_tokens"},"sessionId":"s","uuid":"u"}`, "max_tokens"},
		{`{"type":"assistant","message":{"id":"m","model":"x","content":[{"type":"text","text":"fine"}],"stop_reason":"end_turn"},"sessionId":"s","uuid":"u"}`, ""},
		{`{"type":"assistant","message":{"id":"m","model":"x","content":[{"type":"text","text":"a stream's"}],"stop_reason":"refusal"},"session_id":"s","parent_tool_use_id":null}`, ""},
		{`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Output token limit hit"}]},"parent_tool_use_id":null}`, ""},
	} {
		ev, err := stream.NewEvent([]byte(tc.line), "t", 1)
		require.NoError(t, err)
		assert.Equal(t, tc.want, Stopped(ev), tc.line)
		assert.Equal(t, tc.want != "", IsTrouble(ev), tc.line)
	}
}
