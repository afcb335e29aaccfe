package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ccfilter/ccfilter/pkg/preset"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// capture returns a real capture's text, for deriving edge cases from.
func capture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../testdata/events", name))
	require.NoError(t, err)
	return string(b)
}

// derived writes a capture changed by edit (old → new, each pair must
// match) to a file of the test's own, and returns its path.
func derived(t *testing.T, name string, edits ...string) string {
	t.Helper()
	s := capture(t, name)
	for i := 0; i+1 < len(edits); i += 2 {
		require.Contains(t, s, edits[i], "the edit's anchor is in %s", name)
		s = strings.Replace(s, edits[i], edits[i+1], 1)
	}
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(s), 0o644))
	return path
}

// TestDuplicateKeysLastWins proves that a key written twice means its last
// value everywhere, as in jq and JSON.parse: final's verdict, the kind
// classification gives (type), and an expression all read the same value.
func TestDuplicateKeysLastWins(t *testing.T) {
	cases := []struct {
		name  string
		edits []string
		args  []string
		code  int
		out   string
	}{
		{"is_error false last: success", []string{`"is_error":false`, `"is_error":true,"is_error":false`},
			[]string{"final"}, 0, "Hello! I am a scripted fake model. 2 + 2 = 4.\n"},
		{"is_error true last: failure", []string{`"is_error":false`, `"is_error":false,"is_error":true`},
			[]string{"final"}, 1, ""},
		{"type result last: a result", []string{`"type":"result"`, `"type":"assistant","type":"result"`},
			[]string{"final"}, 0, "Hello! I am a scripted fake model. 2 + 2 = 4.\n"},
		{"type result first: not a result", []string{`"type":"result"`, `"type":"result","type":"mystery"`},
			[]string{"types", "--format", "csv"}, 0, "type,subtype,count,known\nsystem,init,1,true\nassistant,,1,true\nmystery,success,1,false\n"},
		{"the expression agrees", []string{`"is_error":false`, `"is_error":true,"is_error":false`},
			[]string{`select(.type == "result") | .is_error`}, 0, "false\n"},
		{"so does the full check", []string{`"is_error":false`, `"is_error":true,"is_error":false`},
			[]string{"final", "--full-check"}, 0, "Hello! I am a scripted fake model. 2 + 2 = 4.\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := derived(t, "01-plain-text.jsonl", c.edits...)
			r := runIn(t, append(c.args, path), "")
			assert.Equal(t, c.code, r.Code, r.Stderr)
			assert.Equal(t, c.out, r.Stdout)
		})
	}
}

// TestNumbersThatDoNotFit proves that a cost past float64 (1e400) or a
// count past int64 or below 0 neither crashes a JSON report nor shows as
// a 0 that was not written (nor cuts a sum): the cost is kept as written,
// the count is left out, and stderr names the line and the field.
func TestNumbersThatDoNotFit(t *testing.T) {
	cases := []struct {
		name   string
		edits  []string
		args   []string
		out    []string // in stdout
		stderr string
	}{
		{"cost 1e400: usage json has no cost, not a number it cannot hold",
			[]string{`"total_cost_usd":0.021856`, `"total_cost_usd":1e400`},
			[]string{"usage", "--format", "json", "-c"},
			[]string{`{"model":"","side":"total","calls":1,"input_tokens":3,"output_tokens":11,"cache_creation_input_tokens":2457,"cache_read_input_tokens":9840,"cost_usd":null,"cost_source":null,"output_exact":true}`},
			"line 3: total_cost_usd 1e400 does not fit a 64-bit number: read as missing"},
		{"cost 1e400: usage text shows it as written",
			[]string{`"total_cost_usd":0.021856`, `"total_cost_usd":-1e400`},
			[]string{"usage"},
			[]string{"cost $-1e400 (as written"},
			"total_cost_usd -1e400 does not fit"},
		{"cost 1e400: all shows it as written, not $+Inf",
			[]string{`"total_cost_usd":0.021856`, `"total_cost_usd":1e400`},
			[]string{"all", "--color", "never"},
			[]string{"· $1e400"},
			"total_cost_usd 1e400 does not fit"},
		{"tokens past int64: left out and said, not a silent 0",
			[]string{`"input_tokens":3,"cache_creation_input_tokens":2457,"cache_read_input_tokens":9840,"cache_creation"`,
				`"input_tokens":99999999999999999999,"cache_creation_input_tokens":2457,"cache_read_input_tokens":9840,"cache_creation"`},
			[]string{"usage", "--format", "csv"},
			[]string{"claude-opus-5-5,main,1,0,1,2457,9840,"},
			"line 2: input_tokens 99999999999999999999 does not fit a 64-bit number: read as missing"},
		{"a negative count: left out and said, not summed",
			[]string{`"input_tokens":3,"cache_creation_input_tokens":2457,"cache_read_input_tokens":9840,"cache_creation"`,
				`"input_tokens":-5000,"cache_creation_input_tokens":2457,"cache_read_input_tokens":9840,"cache_creation"`},
			[]string{"usage", "--format", "csv"},
			[]string{"claude-opus-5-5,main,1,0,1,2457,9840,"},
			"line 2: input_tokens -5000 is negative, which no count is: read as missing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := derived(t, "01-plain-text.jsonl", c.edits...)
			r := runIn(t, append(c.args, path), "")
			assert.Equal(t, 0, r.Code, r.Stderr)
			for _, s := range c.out {
				assert.Contains(t, r.Stdout, s)
			}
			assert.Contains(t, r.Stderr, c.stderr)
		})
	}
	t.Run("counts that fit but add up past int64: held at its largest, said", func(t *testing.T) {
		text := lineOf(t, "01-plain-text.jsonl", `"type":"text"`)
		big := strings.Replace(text, `"output_tokens":1,`, `"output_tokens":4611686018427387904,`, 1)
		msg := regexp.MustCompile(`"id":"(msg_[A-Za-z0-9]+)"`).FindStringSubmatch(text)[1]
		r := runIn(t, []string{"usage", "--format", "csv", repeated(t, big, 3, []string{msg}, lineOf(t, "01-plain-text.jsonl", `"subtype":"success"`)+"\n")}, "")
		require.Equal(t, 0, r.Code, r.Stderr)
		assert.Contains(t, r.Stdout, ",9223372036854775807,", "not a negative count")
		assert.NotContains(t, r.Stdout, ",-")
		assert.Contains(t, r.Stderr, "token counts add up past 9223372036854775807")
	})
}

// TestRawControlInStringIsPassedOver proves a line holding a control
// character written raw inside a string (invalid JSON, which jq rejects)
// is reported with its line number and passed over the same way in every
// format and check, the rest of the output intact: JSON output stays
// valid JSON, never thrown away with an exit 2.
func TestRawControlInStringIsPassedOver(t *testing.T) {
	path := derived(t, "01-plain-text.jsonl", "scripted fake", "scripted\x01fake")
	const warning = ":2: invalid JSON: raw control character U+0001 in string"
	for _, args := range [][]string{
		{"all"}, {"all", "--format", "json"}, {"all", "--format", "ndjson"}, {"all", "--format", "markdown"},
		{"all", "--full-check"}, {"text", "--format", "json"}, {"final"}, {"final", "--full-check"}, {".message.content[0].text"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := runIn(t, append(args, path), "")
			assert.Equal(t, 0, r.Code, r.Stderr)
			assert.Contains(t, r.Stderr, warning)
			assert.NotContains(t, r.Stdout, "\x01")
			assert.NotContains(t, r.Stdout, "scripted\\u0001fake")
			if slices.Contains(args, "json") {
				assert.True(t, json.Valid([]byte(r.Stdout)), r.Stdout)
			}
			if args[0] == "final" {
				assert.Equal(t, "Hello! I am a scripted fake model. 2 + 2 = 4.\n", r.Stdout, "the result's line is kept")
			}
		})
	}
}

// TestHookHeartbeatIsNotASubagent proves that a tool_progress event whose
// parent_tool_use_id is a main-agent Bash call (a hook's heartbeat) belongs
// to the main agent in every view: no phantom subagent in all, --agent, the
// subagents preset or the agent and is_subagent functions, whichever part
// of the stream the tracker follows.
func TestHookHeartbeatIsNotASubagent(t *testing.T) {
	const heartbeat = `{"type":"tool_progress","tool_use_id":"hook-heartbeat-1","tool_name":"PreToolUse:Bash","parent_tool_use_id":"toolu_01CUHCBN3WmSK8nKLNBqbKSm","elapsed_time_seconds":2,"heartbeat":true,"uuid":"u-hb","session_id":"s"}` + "\n"
	anchor := `{"type":"system","subtype":"hook_started","hook_id":"07f57e39-6e54-4f24-9000-88ad33b8aa7d","hook_name":"PreToolUse:Bash"`
	path := derived(t, "16-hooks.jsonl", anchor, heartbeat+anchor)
	cases := []struct {
		args []string
		want func(t *testing.T, out string)
	}{
		{[]string{`select(.type == "tool_progress") | [agent, is_subagent]`}, func(t *testing.T, out string) {
			assert.JSONEq(t, `["main", false]`, out)
		}},
		{[]string{"all", "--agent", "main", "--format", "ndjson"}, func(t *testing.T, out string) {
			assert.Contains(t, out, `"hook-heartbeat-1"`, "the heartbeat is the main agent's")
		}},
		{[]string{"all", "--agent", "sub", "--format", "ndjson"}, func(t *testing.T, out string) {
			assert.Empty(t, out)
		}},
		{[]string{"all", "--color", "never"}, func(t *testing.T, out string) {
			assert.NotContains(t, out, "▸ toolu_01CUHCBN3WmSK8nKLNBqbKSm", "no subagent header")
		}},
		{[]string{"subagents", "--format", "json"}, func(t *testing.T, out string) {
			assert.JSONEq(t, `[]`, out)
		}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := runIn(t, append(c.args, path), "")
			assert.Equal(t, 0, r.Code, r.Stderr)
			c.want(t, r.Stdout)
		})
	}
}

// TestTextMarksAbandonedStreams proves text, which prints deltas as they
// come, says that a model call's streamed text was abandoned when the CLI
// gives up on its stream (message_stop with abandoned_blocks from that
// block on) and retries; a block kept before the abandoned ones (an
// interrupt's partial answer) is not marked.
func TestTextMarksAbandonedStreams(t *testing.T) {
	cases := []struct {
		capture, want string
	}{
		{"28-midstream-error.jsonl", "Answer that streamed\n" + "[the stream above broke off and was abandoned; the call is retried]\n" +
			"Answer that streamed completely on the retry.\n"},
		{"17-sigint-streaming.jsonl", "This answer is streamed slowly so that the run can be interrupted. This answer is streamed slowly so that the run can be interrupted. This answe\n"},
	}
	for _, c := range cases {
		t.Run(c.capture, func(t *testing.T) {
			r := runIn(t, []string{"text", "../../testdata/events/" + c.capture}, "")
			assert.Equal(t, 0, r.Code, r.Stderr)
			assert.Equal(t, c.want, r.Stdout)
		})
	}
}

// TestByteFormatsOnTerminalAreEscaped proves that NDJSON, CSV, JSON and raw
// strings written to a terminal carry none of the characters a terminal
// acts on (ESC, BEL and the other C0 controls, DEL, C1 controls such as
// CSI, bidi overrides), while to a pipe NDJSON is the input byte for byte.
func TestByteFormatsOnTerminalAreEscaped(t *testing.T) {
	const hostile = "\u009b31m\u202e\x7f" + `\u001b]52;c;eA==\u0007\u001b[2J`
	path := derived(t, "02-write-read.jsonl", `"file_path":"`, `"file_path":"`+hostile)
	acts := func(r rune) bool {
		return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f ||
			r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x2028 || r == 0x2029
	}
	// run runs the command with stdout a terminal or not.
	run := func(terminal bool, args ...string) runResult {
		var stdout, stderr bytes.Buffer
		o := &options{presets: preset.Builtin(), terminalOut: func() bool { return terminal }}
		code := runWith(o, args, strings.NewReader(""), &stdout, &stderr, []string{"NO_COLOR=1"})
		return runResult{stdout.String(), stderr.String(), code}
	}
	for _, args := range [][]string{
		{"all", "--format", "ndjson"}, {"all", "--format", "csv"}, {"tools", "--format", "csv"}, {"tools", "--format", "ndjson"},
		{"all", "--format", "json"}, {"-r", `tool_uses[].input.file_path`}, {"-c", `tool_uses[].input`},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := run(true, append(args, path)...)
			require.Equal(t, 0, r.Code, r.Stderr)
			require.NotEmpty(t, r.Stdout)
			assert.Equal(t, -1, strings.IndexFunc(r.Stdout, acts), "no character a terminal acts on: %q", r.Stdout)
			assert.Contains(t, r.Stdout, `\u202e`, "the override is shown, escaped")
		})
	}
	// final writes the result itself.
	result := derived(t, "01-plain-text.jsonl", `"result":"`, `"result":"`+hostile)
	for _, format := range []string{"ndjson", "json"} {
		t.Run("final "+format, func(t *testing.T) {
			r := run(true, "final", "--format", format, result)
			require.Equal(t, 0, r.Code, r.Stderr)
			assert.Equal(t, -1, strings.IndexFunc(r.Stdout, acts), "no character a terminal acts on: %q", r.Stdout)
			assert.Contains(t, r.Stdout, `\u202e`)
		})
	}
	// A CR between tokens is JSON whitespace: on a terminal it becomes a
	// space, so that what is written stays JSON (an escape there would
	// not be) and no raw CR gets through.
	cr := derived(t, "01-plain-text.jsonl", `,"message"`, ",\r\"message\"")
	for _, args := range [][]string{{"all", "--format", "ndjson"}, {"all", "--format", "json", "-c"}, {"all", "--format", "json"}} {
		t.Run("CR between tokens "+strings.Join(args, " "), func(t *testing.T) {
			r := run(true, append(args, cr)...)
			require.Equal(t, 0, r.Code, r.Stderr)
			assert.Equal(t, -1, strings.IndexFunc(r.Stdout, acts), "no character a terminal acts on: %q", r.Stdout)
			if args[2] == "ndjson" {
				for _, l := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
					assert.True(t, json.Valid([]byte(l)), "each line stays JSON: %q", l)
				}
			} else {
				assert.True(t, json.Valid([]byte(r.Stdout)), "the document stays JSON: %q", r.Stdout)
			}
		})
	}
	t.Run("a pipe gets the bytes", func(t *testing.T) {
		r := run(false, "all", "--format", "ndjson", path)
		in, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, string(in), r.Stdout)
	})
}

// lineOf returns the first line of a capture that contains marker.
func lineOf(t *testing.T, name, marker string) string {
	t.Helper()
	for _, l := range strings.Split(capture(t, name), "\n") {
		if strings.Contains(l, marker) {
			return l
		}
	}
	t.Fatalf("%s has no line with %s", name, marker)
	return ""
}

// repeated writes n copies of line, each with the ids old1, old2 renamed
// to fresh ones (old+i), then tail; it returns the file's path.
func repeated(t *testing.T, line string, n int, ids []string, tail string) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		l := line
		for _, id := range ids {
			l = strings.ReplaceAll(l, id, fmt.Sprintf("%s%07d", id, i))
		}
		b.WriteString(l + "\n")
	}
	b.WriteString(tail)
	path := filepath.Join(t.TempDir(), "many.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	return path
}

// TestBoundsSayWhatTheyLeaveOut proves that where the tracker and the
// presets stay bounded (10,000 calls waiting for a result, 10,000
// subagents, 1,000 inits, 1 MiB of fallback text, 4,096 model calls
// followed at once) the output says what was left out, with a count on
// stderr, instead of a listing silently short.
func TestBoundsSayWhatTheyLeaveOut(t *testing.T) {
	result := lineOf(t, "01-plain-text.jsonl", `"subtype":"success"`) + "\n"
	t.Run("tools waiting for a result", func(t *testing.T) {
		call := lineOf(t, "02-write-read.jsonl", `"type":"tool_use"`)
		id := regexp.MustCompile(`"id":"(toolu_[A-Za-z0-9]+)"`).FindStringSubmatch(call)[1]
		msg := regexp.MustCompile(`"id":"(msg_[A-Za-z0-9]+)"`).FindStringSubmatch(call)[1]
		r := runIn(t, []string{"tools", "--format", "csv", repeated(t, call, 10_050, []string{id, msg}, result)}, "")
		require.Equal(t, 0, r.Code, r.Stderr)
		assert.Equal(t, 1+10_000, strings.Count(r.Stdout, "\n"), "the header and the 10,000 kept")
		assert.Contains(t, r.Stderr, "50 tool calls forgotten while waiting for a result (at most 10000 are kept waiting")
		r = runIn(t, []string{"all", "--format", "markdown", repeated(t, call, 10_050, []string{id, msg}, result)}, "")
		assert.Contains(t, r.Stdout, "| Tool calls | 10050: Write 10050 |")
		assert.Contains(t, r.Stdout, "| Calls without a result | 10000 listed, and 50 more forgotten while waiting (at most 10000 are kept) |",
			"the report's numbers add up")
	})
	t.Run("subagents", func(t *testing.T) {
		call := lineOf(t, "05b-subagents-foreground.jsonl", `"name":"Agent"`)
		id := regexp.MustCompile(`"id":"(toolu_[A-Za-z0-9]+)"`).FindStringSubmatch(call)[1]
		r := runIn(t, []string{"subagents", "--format", "csv", repeated(t, call, 10_050, []string{id}, result)}, "")
		require.Equal(t, 0, r.Code, r.Stderr)
		assert.Equal(t, 1+10_000, strings.Count(r.Stdout, "\n"))
		assert.Contains(t, r.Stderr, "50 subagents left out (at most 10000 are kept")
	})
	t.Run("inits", func(t *testing.T) {
		init := lineOf(t, "01-plain-text.jsonl", `"subtype":"init"`)
		r := runIn(t, []string{"init", "--format", "csv", repeated(t, init, 1_005, nil, result)}, "")
		require.Equal(t, 0, r.Code, r.Stderr)
		assert.Equal(t, 1+1_000, strings.Count(r.Stdout, "\n"))
		assert.Contains(t, r.Stderr, "5 inits after the first 1000 left out")
	})
	t.Run("final's fallback text", func(t *testing.T) {
		long := strings.Repeat("word ", 250_000) // 1.2 MB
		path := derived(t, "01-plain-text.jsonl", "Hello! I am a scripted fake model. 2 + 2 = 4.", long,
			`"result":"Hello! I am a scripted fake model. 2 + 2 = 4."`, `"result":""`)
		r := runIn(t, []string{"final", path}, "")
		require.Equal(t, 0, r.Code, r.Stderr)
		assert.Equal(t, 1<<20+1, len(r.Stdout), "1 MiB and the newline")
		assert.Contains(t, r.Stderr, "that text is longer than the 1.0 MB kept: only its start is printed")
	})
	t.Run("a model call that comes again after 4,096 others", func(t *testing.T) {
		text := lineOf(t, "01-plain-text.jsonl", `"type":"text"`)
		msg := regexp.MustCompile(`"id":"(msg_[A-Za-z0-9]+)"`).FindStringSubmatch(text)[1]
		again := strings.ReplaceAll(text, msg, fmt.Sprintf("%s%07d", msg, 0)) + "\n"
		r := runIn(t, []string{"usage", "--format", "json", repeated(t, text, 4_100, []string{msg}, again+result)}, "")
		require.Equal(t, 0, r.Code, r.Stderr)
		assert.Contains(t, r.Stderr, "1 model call came back after being counted (at most 4096 calls are followed at once): probably counted twice in usage")
		r = runIn(t, []string{"usage", "--format", "json", repeated(t, text, 4_100, []string{msg}, result)}, "")
		assert.Empty(t, r.Stderr, "folding calls that do not come again is not worth a word")
	})
}
