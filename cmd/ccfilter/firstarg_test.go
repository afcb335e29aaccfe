package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ccfilter/ccfilter/pkg/filter"
	"github.com/ccfilter/ccfilter/pkg/preset"
	"github.com/stretchr/testify/assert"
)

// TestFirstArgumentAsMeant proves the first argument is read as the user
// means it: a slip of a preset or a flag value is a usage error with a
// suggestion (not a jq error, and not jq's error or type run on every
// event), a path that is not there is a missing file, a directory is said
// to be one, and expressions and files still work.
func TestFirstArgumentAsMeant(t *testing.T) {
	const capture = "../../testdata/events/01-plain-text.jsonl"
	cases := []struct {
		arg    string
		code   int
		stderr string
	}{
		{"tool", exitUsage, `unknown preset "tool" (did you mean "tools"?)`},
		{"finale", exitUsage, `unknown preset "finale" (did you mean "final"?)`},
		{"usgae", exitUsage, `unknown preset "usgae" (did you mean "usage"?)`},
		{"subagent", exitUsage, `unknown preset "subagent" (did you mean "subagents"?)`},
		{"Tools", exitUsage, `unknown preset "Tools" (did you mean "tools"?)`},
		{"csv", exitUsage, `unknown preset "csv" (did you mean "--format csv"?)`},
		{"json", exitUsage, `unknown preset "json" (did you mean "--format json"?)`},
		{"version", exitUsage, `unknown preset "version" (did you mean "--version"?)`},
		{"error", exitUsage, `unknown preset "error" (did you mean "errors"? to run jq's error, write (error))`},
		{"type", exitUsage, `unknown preset "type" (did you mean "types"?`},
		{"frobnicate", exitCompile, `"frobnicate" is not a preset, a file or a jq expression; presets: all,`},
		{"run.jsonl", exitInput, "ccfilter: run.jsonl: no such file or directory"},
		{"runs/today", exitInput, "ccfilter: runs/today: no such file or directory"},
		{"../../testdata/golden", exitInput, "ccfilter: ../../testdata/golden: is a directory, and not a project folder or a session's folder"},
		{"(type)", exitOK, ""},
		{"select(.usage) | .usage.output_tokens/2", exitOK, ""},
	}
	for _, tc := range cases {
		got := runIn(t, []string{tc.arg, capture}, "")
		assert.Equal(t, tc.code, got.Code, "%s: %s", tc.arg, got.Stderr)
		if tc.stderr == "" {
			assert.Empty(t, got.Stderr, tc.arg)
			assert.NotEmpty(t, got.Stdout, tc.arg)
		} else {
			assert.Contains(t, got.Stderr, tc.stderr, tc.arg)
		}
	}
	// A missing path alone (no FILE after it) is still a missing file.
	got := runIn(t, []string{"run.jsonl"}, "")
	assert.Equal(t, exitInput, got.Code)
	assert.Equal(t, "ccfilter: run.jsonl: no such file or directory\n", got.Stderr)
}

// TestOneRuntimeErrorMessage proves an expression that fails on every
// event prints its first error and then one line that counts the others,
// not one message per event, and still exits 5.
func TestOneRuntimeErrorMessage(t *testing.T) {
	got := runIn(t, []string{`error("no")`, "../../testdata/events/19-big-tool-result.jsonl"}, "")
	assert.Equal(t, exitInput, got.Code)
	lines := strings.Split(strings.TrimSuffix(got.Stderr, "\n"), "\n")
	if assert.Len(t, lines, 2, got.Stderr) {
		assert.Equal(t, "ccfilter: 19-big-tool-result.jsonl:1: jq error: no", strings.Replace(lines[0], "../../testdata/events/", "", 1))
		assert.Equal(t, "ccfilter: ../../testdata/events/19-big-tool-result.jsonl: 8 more jq errors on later events, the last on line 9 (only the first is shown)", lines[1])
	}
	// Events the expression does not fail on are still printed.
	got = runIn(t, []string{"-r", `.message.content[0].text | ascii_downcase`, "../../testdata/events/01-plain-text.jsonl"}, "")
	assert.Equal(t, exitInput, got.Code)
	assert.Equal(t, "hello! i am a scripted fake model. 2 + 2 = 4.\n", got.Stdout)
	assert.Equal(t, 2, strings.Count(got.Stderr, "\n"), got.Stderr)
}

// TestEditDistance proves the distance behind the suggestions: a swap of
// neighbours is one edit.
func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"usgae", "usage", 1}, {"tool", "tools", 1}, {"finale", "final", 1}, {"", "all", 3}, {"init", "init", 0}, {"text", "tools", 4}} {
		assert.Equal(t, tc.d, editDistance(tc.a, tc.b), "%s %s", tc.a, tc.b)
	}
}

// TestWordsForAPresetAreSuggested proves (issue 39, item 23) that a bare
// word people use for what a preset prints, which is no preset, file or
// valid jq, is answered with that preset, in a sentence with no jq
// internals ("function not defined: cost/0" before), exit 3; a word that
// is one slip from another preset ("fail" from "all", "calls" from "all")
// is still the word's preset; a bare word that is valid jq still runs as
// jq. On the real capture 04-parallel-tools.
func TestWordsForAPresetAreSuggested(t *testing.T) {
	const capture = "../../testdata/events/04-parallel-tools.jsonl"
	cases := []struct{ word, preset string }{
		{"cost", "usage"}, {"spend", "usage"}, {"tokens", "usage"},
		{"answer", "final"}, {"result", "final"},
		{"fail", "errors"}, {"failures", "errors"},
		{"calls", "tools"}, {"Cost", "usage"},
	}
	for _, tc := range cases {
		got := runIn(t, []string{tc.word, capture}, "")
		assert.Equal(t, exitCompile, got.Code, tc.word)
		assert.Equal(t, fmt.Sprintf("ccfilter: %q is not a preset, a file or a jq expression (did you mean %s?); presets: all, text, tools, errors, final, types, usage, subagents, init, account ('ccfilter presets' says what each prints)\n", tc.word, tc.preset), got.Stderr)
		assert.Empty(t, got.Stdout, tc.word)
	}
	got := runIn(t, []string{"length", capture}, "")
	assert.Equal(t, exitOK, got.Code, got.Stderr)
	assert.NotEmpty(t, got.Stdout, "length is jq's, run on every event")
}

// TestPresetWordsAreNoPresetNorJq proves the words a preset declares can
// be suggested at all: none is a preset's name (which would run), none
// is claimed by two presets, and none compiles as jq (which would run
// instead of being suggested).
func TestPresetWordsAreNoPresetNorJq(t *testing.T) {
	reg := preset.Builtin()
	seen := map[string]string{}
	for _, p := range reg.List() {
		for _, w := range p.Words {
			_, isPreset := reg.Lookup(w)
			assert.False(t, isPreset, "%s: %q is a preset", p.Name, w)
			assert.Empty(t, seen[w], "%q is a word of %s and %s", w, seen[w], p.Name)
			seen[w] = p.Name
			_, err := filter.Compile(w, nil, nil, nil)
			assert.Error(t, err, "%s: %q is valid jq and runs as jq", p.Name, w)
		}
	}
	assert.NotEmpty(t, seen)
}
