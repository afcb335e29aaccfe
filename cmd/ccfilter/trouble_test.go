package main

// Issue 39 items 11, 12, 14 and 16: what a run's trouble says, the same in
// every format. The captures in ../shared show no subagent retry and no
// failed Stop hook; those tests derive their input from a real capture or
// transcript, with the event or field added in the shape claude-code
// 2.1.328 writes it (each test says how).

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// subagentRetry is a subagent's API retry as claude-code 2.1.328 writes
// it (the shape), for subagent alpha of 05-subagents-async (its
// Agent call toolu_01GeueNaf35yNYc6unpBkPZK, its agent id
// ab38ee1e1381baf0b, the session's id).
const subagentRetry = `{"type":"tool_progress","tool_use_id":"agent_msg_01vioXZ8MVJsu7K9D6LF64DX","tool_name":"Agent","parent_tool_use_id":"toolu_01GeueNaf35yNYc6unpBkPZK","elapsed_time_seconds":0,"session_id":"bba75f85-8392-4105-a21f-755e4aa58557","uuid":"00000000-0000-4000-8000-000000000611","subagent_type":"general-purpose","subagent_retry":{"agent_id":"ab38ee1e1381baf0b","attempt":1,"max_retries":10,"retry_delay_ms":534,"error_status":529,"error_category":"overloaded"}}` + "\n"

// withSubagentRetry is 05-subagents-async with subagentRetry put before
// subagent alpha's first model call (line 12, which it becomes).
func withSubagentRetry(t *testing.T) string {
	const alphaFirstCall = `{"type":"assistant","message":{"model":"claude-opus-5-5","id":"msg_01vioXZ8MVJsu7K9D6LF64DX"`
	return derived(t, "05-subagents-async.jsonl", alphaFirstCall, subagentRetry+alphaFirstCall)
}

// TestSubagentRetryRowsSayWhatTheTextSays proves a subagent's API retry
// (05-subagents-async with a subagent_retry added, see withSubagentRetry)
// is an errors row with its HTTP status, its attempt, category and wait in
// the message (the text view's line), and the subagent's agent id in the
// agent column, as tools rows name the subagent: in ndjson, json and csv.
func TestSubagentRetryRowsSayWhatTheTextSays(t *testing.T) {
	path := withSubagentRetry(t)
	text := runIn(t, []string{"errors", path}, "")
	require.Equal(t, 0, text.Code, text.Stderr)
	const said = "retry 1/10: subagent overloaded (529), waiting 534ms"
	assert.Contains(t, text.Stdout, "! "+said)

	tools := runIn(t, []string{"tools", "-F", "json", path}, "")
	var calls []map[string]any
	require.NoError(t, json.Unmarshal([]byte(tools.Stdout), &calls))
	alpha, alphaType := "", ""
	for _, c := range calls {
		if c["tool"] == "Write" {
			alpha, _ = c["agent"].(string)
			alphaType, _ = c["subagent_type"].(string)
		}
	}
	require.Equal(t, "ab38ee1e1381baf0b", alpha, "tools names subagent alpha by its agent id")
	require.Equal(t, "general-purpose", alphaType, "and its type")

	// The row says in columns what the line says: status, category,
	// attempt of max, wait; and whose, as the tools rows say it.
	want := map[string]any{"line": 12.0, "agent": alpha, "subagent_type": alphaType, "kind": "retry", "status": 529.0,
		"category": "overloaded", "attempt": 1.0, "max_retries": 10.0, "wait_ms": 534.0, "message": said, "tool": "", "tool_use_id": ""}
	check := func(t *testing.T, row map[string]any) {
		for k, v := range want {
			assert.Equal(t, v, row[k], k)
		}
	}
	for _, format := range []string{"ndjson", "json"} {
		t.Run(format, func(t *testing.T) {
			r := runIn(t, []string{"errors", "-F", format, path}, "")
			require.Equal(t, 0, r.Code, r.Stderr)
			var rows []map[string]any
			if format == "json" {
				require.NoError(t, json.Unmarshal([]byte(r.Stdout), &rows))
			} else {
				for _, l := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
					var row map[string]any
					require.NoError(t, json.Unmarshal([]byte(l), &row))
					rows = append(rows, row)
				}
			}
			require.Len(t, rows, 1, "the retry is the run's one trouble")
			check(t, rows[0])
		})
	}
	t.Run("csv", func(t *testing.T) {
		r := runIn(t, []string{"errors", "-F", "csv", path}, "")
		require.Equal(t, 0, r.Code, r.Stderr)
		assert.Equal(t, "line,timestamp,agent,subagent_type,kind,subtype,tool,tool_use_id,status,category,attempt,max_retries,wait_ms,message\n"+
			`12,,ab38ee1e1381baf0b,general-purpose,retry,,,,529,overloaded,1,10,534,"`+said+`"`+"\n", r.Stdout)
	})
}

// TestSubagentRetryIsAnEventOnItsAgentsSpan proves a subagent's API retry
// (05-subagents-async with a subagent_retry added, see withSubagentRetry)
// is an api_retry span event on the span of the subagent that retried,
// with the attributes the main agent's retries have on the run's span
// (11-overloaded-529-retry, real).
func TestSubagentRetryIsAnEventOnItsAgentsSpan(t *testing.T) {
	type event struct {
		span  string
		attrs map[string]string
	}
	retries := func(t *testing.T, path string) []event {
		r := runIn(t, []string{"all", "-F", "otlp", path}, "")
		require.Equal(t, 0, r.Code, r.Stderr)
		var out []event
		for _, l := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
			var req struct {
				ResourceSpans []struct {
					ScopeSpans []struct {
						Spans []struct {
							Name       string
							Attributes []otlpKV
							Events     []struct {
								Name       string
								Attributes []otlpKV
							}
						}
					}
				}
			}
			require.NoError(t, json.Unmarshal([]byte(l), &req))
			for _, rs := range req.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					for _, s := range ss.Spans {
						for _, e := range s.Events {
							if e.Name == "api_retry" {
								attrs := otlpAttrs(e.Attributes)
								attrs["span.agent.id"] = otlpAttrs(s.Attributes)["gen_ai.agent.id"]
								out = append(out, event{s.Name, attrs})
							}
						}
					}
				}
			}
		}
		return out
	}
	main := retries(t, "../../testdata/events/11-overloaded-529-retry.jsonl")
	require.NotEmpty(t, main)
	assert.Equal(t, "invoke_agent claude-code", main[0].span, "the main agent's retry: on the run's span")

	sub := retries(t, withSubagentRetry(t))
	require.Len(t, sub, 1, "the subagent's retry is a span event")
	assert.Equal(t, "invoke_agent general-purpose", sub[0].span)
	assert.Equal(t, "toolu_01GeueNaf35yNYc6unpBkPZK", sub[0].attrs["span.agent.id"], "on subagent alpha's span, not beta's")
	for _, k := range []string{"claude_code.retry.attempt", "claude_code.retry.max_retries", "claude_code.retry.delay_ms", "error.type", "http.response.status_code"} {
		assert.Contains(t, main[0].attrs, k, "the main agent's retry has %s", k)
		assert.Contains(t, sub[0].attrs, k, "so does the subagent's")
	}
	assert.Equal(t, map[string]string{"claude_code.retry.attempt": "1", "claude_code.retry.max_retries": "10",
		"claude_code.retry.delay_ms": "534", "error.type": "overloaded", "http.response.status_code": "529"},
		map[string]string{"claude_code.retry.attempt": sub[0].attrs["claude_code.retry.attempt"], "claude_code.retry.max_retries": sub[0].attrs["claude_code.retry.max_retries"],
			"claude_code.retry.delay_ms": sub[0].attrs["claude_code.retry.delay_ms"], "error.type": sub[0].attrs["error.type"], "http.response.status_code": sub[0].attrs["http.response.status_code"]})
}

// otlpKV is an OTLP/JSON attribute.
type otlpKV struct {
	Key   string
	Value map[string]any
}

// otlpAttrs are attributes by key, each value as text.
func otlpAttrs(kvs []otlpKV) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		for _, v := range kv.Value {
			switch v := v.(type) {
			case string:
				m[kv.Key] = v
			default:
				b, _ := json.Marshal(v)
				m[kv.Key] = string(b)
			}
		}
	}
	return m
}

// failedStopHook is what the failed Stop hook of the tests below says.
const failedStopHook = "stop hook failed: lint errors"

// TestFailedStopHookSaysItsMessageOnce proves a failed Stop hook's message
// is its errors row's message, once, and that the markdown and HTML
// reports show it: from a stream (16-hooks with its Stop hook's
// hook_response made to exit 1 with the message on stderr, no newline
// after it, and output being stdout and stderr together as claude-code
// writes it) and from a
// transcript (16-hooks' session with hookErrors set on its
// stop_hook_summary).
func TestFailedStopHookSaysItsMessageOnce(t *testing.T) {
	stream := derived(t, "16-hooks.jsonl",
		`"hook_name":"Stop","hook_event":"Stop","output":"stop-hook\n","stdout":"stop-hook\n","stderr":"","exit_code":0,"outcome":"success"`,
		`"hook_name":"Stop","hook_event":"Stop","output":"`+failedStopHook+`","stdout":"","stderr":"`+failedStopHook+`","exit_code":1,"outcome":"error"`)
	transcript := copySession(t, "16-hooks")
	b, err := os.ReadFile(transcript)
	require.NoError(t, err)
	require.Contains(t, string(b), `"subtype":"stop_hook_summary","hookCount":1,"hookInfos":[{"command":"echo stop-hook","durationMs":6}],"hookErrors":[]`)
	b = bytes.Replace(b, []byte(`"hookErrors":[]`), []byte(`"hookErrors":["`+failedStopHook+`"]`), 1)
	require.NoError(t, os.WriteFile(transcript, b, 0o644))

	cases := []struct {
		name, path, subtype string
		line                int
		said                string // the report's words for it
	}{
		{"stream", stream, "hook_response", 14, "hook Stop failed (exit 1): " + failedStopHook},
		{"transcript", transcript, "stop_hook_summary", 33, "hook Stop failed (echo stop-hook): " + failedStopHook},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runIn(t, []string{"errors", "-F", "csv", c.path}, "")
			require.Equal(t, 0, r.Code, r.Stderr)
			lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
			require.Len(t, lines, 2, "a header and the hook's row: %s", r.Stdout)
			assert.Regexp(t, `^`+strconv.Itoa(c.line)+`,[^,]*,main,,hook_failed,`+c.subtype+`,Stop,,,,,,,`+failedStopHook+`$`, lines[1])

			md := runIn(t, []string{"all", "-F", "markdown", c.path}, "")
			require.Equal(t, 0, md.Code, md.Stderr)
			assert.Contains(t, md.Stdout, "\n> **Error:** "+c.said+"\n", "the markdown body")
			assert.Contains(t, md.Stdout, "): hook Stop failed: "+failedStopHook+"\n", "the glance")
			assert.Contains(t, md.Stdout, "| Hook failures | 1 |")

			html := runIn(t, []string{"all", "-F", "html", c.path}, "")
			require.Equal(t, 0, html.Code, html.Stderr)
			assert.Contains(t, html.Stdout, `<div class="callout tone-error"><b>Error:</b> `+c.said+"</div>", "the HTML body")
		})
	}
}

// runLines are the lines of a text view that say how the run went.
func runLines(out string) []string {
	var l []string
	for _, s := range strings.Split(out, "\n") {
		if strings.HasPrefix(s, "✓ run ") || strings.HasPrefix(s, "✗ run ") {
			l = append(l, s)
		}
	}
	return l
}

// TestResultsThatComeTogetherMakeOneClosingLine proves the text view ends
// a run whose results come together with one closing line that folds them,
// its turns and duration the sums the markdown summary gives, on real
// captures: 05-subagents-async (two background subagents: three results
// at the end) and 37-workflow (two); while results with the run's events
// between them (06-background-bash: result 0 before the background
// command's notification) and a run with one result (04) keep their line.
func TestResultsThatComeTogetherMakeOneClosingLine(t *testing.T) {
	cases := []struct {
		capture string
		want    []string
	}{
		{"05-subagents-async", []string{"✓ run ok (success, completed) · 3 results · 5 turns · 358ms · $0.0840"}},
		{"37-workflow", []string{"✓ run ok (success, completed) · 2 results · 3 turns · 393ms · $0.0627"}},
		{"06-background-bash", []string{"✓ run ok (success, completed) · 2 turns · 269ms · $0.0268",
			"✓ run ok (success, completed) · result 1 · 1 turn · 54ms · $0.0319"}},
		{"04-parallel-tools", []string{"✓ run ok (success, completed) · 5 turns · 862ms · $0.0298"}},
	}
	for _, c := range cases {
		t.Run(c.capture, func(t *testing.T) {
			path := "../../testdata/events/" + c.capture + ".jsonl"
			text := runIn(t, []string{path}, "")
			require.Equal(t, 0, text.Code, text.Stderr)
			got := runLines(text.Stdout)
			assert.Equal(t, c.want, got)
			last := strings.TrimRight(text.Stdout, "\n")
			assert.True(t, strings.HasSuffix(last, c.want[len(c.want)-1]), "the run's last line closes it")
			if len(c.want) == 1 {
				// The figures are the run's, as the markdown summary sums them.
				md := runIn(t, []string{"-F", "markdown", path}, "")
				require.Equal(t, 0, md.Code, md.Stderr)
				for _, fig := range strings.Split(c.want[0], " · ")[1:] {
					if strings.HasSuffix(fig, "turns") {
						assert.Contains(t, md.Stdout, "| Turns | "+strings.TrimSuffix(fig, " turns"))
					}
					if strings.HasSuffix(fig, "ms") {
						assert.Contains(t, md.Stdout, "| Duration | "+fig)
					}
				}
			}
		})
	}
}

// TestFailedRunSaysWhyNotItsSubtype proves a failed run's status says its
// reasons (terminal reason, the API error's category, the HTTP status),
// not the "success" subtype claude-code gives an API failure, in the text
// view's closing line, the markdown result's status and summary, and the
// message final writes on stderr: on
// 09-auth-401 (real: 401 authentication_failed on every call), as a stream
// and as its session's transcript.
func TestFailedRunSaysWhyNotItsSubtype(t *testing.T) {
	transcripts, err := filepath.Glob("../../testdata/transcripts/09-auth-401/home/.claude/projects/*/*.jsonl")
	require.NoError(t, err)
	require.Len(t, transcripts, 1)
	cases := []struct {
		name, path, why string
	}{
		{"stream", "../../testdata/events/09-auth-401.jsonl", "failed (api_error, authentication_failed, HTTP 401)"},
		{"transcript", transcripts[0], "failed (error_during_execution, authentication_failed)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := runIn(t, []string{c.path}, "")
			lines := runLines(text.Stdout)
			require.Len(t, lines, 1, text.Stdout)
			assert.True(t, strings.HasPrefix(lines[0], "✗ run "+c.why+" · 1 turn · "), lines[0])

			md := runIn(t, []string{"-F", "markdown", c.path}, "")
			mdWhy := strings.ReplaceAll(c.why, "_", `\_`)
			assert.Contains(t, md.Stdout, "- **Status:** ✗ "+mdWhy+"\n")
			assert.Contains(t, md.Stdout, "| Result | ✗ "+mdWhy+" |")
			final := runIn(t, []string{"final", c.path}, "")
			assert.Equal(t, 1, final.Code)
			assert.Contains(t, final.Stderr, ": the run "+c.why+"\n", "final's message")
			for _, out := range []string{lines[0], md.Stdout, final.Stderr} {
				assert.NotContains(t, out, "(success", "a failure is not said as its subtype success")
			}
		})
	}
}
