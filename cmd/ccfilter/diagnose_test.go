package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccfilter/ccfilter/pkg/preset"
	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInputDiagnoses proves an input that is not a stream gets one
// diagnosis, not a warning per line or a misleading "killed": a
// prettified stream (jq .), JSON lines of something else, an empty or
// blank input; and that no real capture gets one.
func TestInputDiagnoses(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, data, 0o644))
		return p
	}
	jq, err := exec.LookPath("jq")
	if err != nil {
		t.Skip("jq is not installed")
	}
	pretty, err := exec.Command(jq, ".", "../../testdata/events/05-subagents-async.jsonl").Output()
	require.NoError(t, err)
	require.Greater(t, bytes.Count(pretty, []byte("\n")), 1000)
	cases := []struct {
		name, file string
		args       []string
		code       int
		diagnosis  string
	}{
		{"pretty", write("pretty.json", pretty), []string{"final"}, exitInput, "this looks like pretty-printed JSON, not one event per line (try jq -c . first)"},
		{"pretty all", filepath.Join(dir, "pretty.json"), []string{"all"}, exitInput, "this looks like pretty-printed JSON"},
		{"other JSON", write("other.jsonl", []byte(`{"level":"info","msg":"a"}`+"\n"+`{"level":"warn","msg":"b"}`+"\n")), []string{"all"}, exitInput, "not a Claude Code event stream: no line has a known type"},
		{"other JSON final", filepath.Join(dir, "other.jsonl"), []string{"final"}, exitInput, "not a Claude Code event stream"},
		{"empty", "../../testdata/events/22-missing-verbose.jsonl", []string{"final"}, exitNoResult, "empty input: claude -p --output-format stream-json prints nothing without --verbose"},
		{"empty all", "../../testdata/events/22-missing-verbose.jsonl", []string{"all"}, exitNoResult, "empty input:"},
		{"blank", write("blank.jsonl", []byte("\n \n\t\n")), []string{"final"}, exitNoResult, "empty input:"},
	}
	for _, tc := range cases {
		got := runIn(t, append(tc.args, tc.file), "")
		assert.Equal(t, tc.code, got.Code, "%s: %s", tc.name, got.Stderr)
		assert.Equal(t, 1, strings.Count(got.Stderr, "\n"), "%s: one line: %s", tc.name, got.Stderr)
		assert.Contains(t, got.Stderr, tc.diagnosis, tc.name)
	}
	// From a pipe too, and a stream after blank lines is a stream.
	var out, errs bytes.Buffer
	code := run([]string{"final"}, bytes.NewReader(pretty), &out, &errs, nil)
	assert.Equal(t, exitInput, code)
	assert.Equal(t, "ccfilter: <stdin>: this looks like pretty-printed JSON, not one event per line (try jq -c . first)\n", errs.String())
	data, err := os.ReadFile("../../testdata/events/01-plain-text.jsonl")
	require.NoError(t, err)
	got := runIn(t, []string{"final", write("blank-first.jsonl", append([]byte("\n\n"), data...))}, "")
	assert.Equal(t, exitOK, got.Code, got.Stderr)

	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	for _, f := range files {
		got := runIn(t, []string{"types", f}, "")
		if strings.Contains(f, "22-missing-verbose") || strings.Contains(f, "34-bypass-root") {
			continue // empty: claude printed nothing
		}
		assert.NotContains(t, got.Stderr, "not a Claude Code", f)
		assert.NotContains(t, got.Stderr, "empty input", f)
	}
}

// TestRefusedInputWritesNoReport proves a report preset writes nothing on
// stdout for an input refused as no stream (exit 5), in every format it
// prints: Gemini CLI's --output-format json (../shared/agents/gemini
// capture 15, made one line as `jq -c .` makes it: JSON, no known type)
// and that capture's stderr (lines none of which is JSON). Before, a
// table of zeros ("usage: 0 model calls") beside the exit code 5. A
// stream (Gemini's 01-plain-text) still gets its report.
func TestRefusedInputWritesNoReport(t *testing.T) {
	doc, err := os.ReadFile("../../../shared/agents/gemini/15-json-output.jsonl")
	require.NoError(t, err)
	var line bytes.Buffer
	require.NoError(t, json.Compact(&line, doc))
	dir := t.TempDir()
	compact := filepath.Join(dir, "g15.jsonl")
	// (its "response" renamed: the document itself is named as Gemini's
	// at once, TestGeminiJSONOutputIsRefusedWithWhatToDo; this is JSON of
	// no known type, decided at the end)
	require.NoError(t, os.WriteFile(compact, append(bytes.Replace(line.Bytes(), []byte(`"response":`), []byte(`"answer":`), 1), '\n'), 0o644))
	inputs := map[string]string{
		compact: "no line has a known type",
		"../../../shared/agents/gemini/15-json-output.stderr": "none of its 7 lines is JSON",
	}
	for _, name := range []string{"usage", "types", "subagents", "init", "account"} {
		p, ok := preset.Builtin().Lookup(name)
		require.True(t, ok, name)
		formats := 0
		for _, f := range render.Formats {
			if !p.Prints(f) {
				continue // (refused with exit 2 before any input is read)
			}
			formats++
			for in, said := range inputs {
				got := runIn(t, []string{name, "-F", string(f), in}, "")
				assert.Equal(t, exitInput, got.Code, "%s %s %s", name, f, in)
				assert.Empty(t, got.Stdout, "%s %s %s", name, f, in)
				assert.Contains(t, got.Stderr, "not a Claude Code event stream: "+said, "%s %s %s", name, f, in)
			}
			got := runIn(t, []string{name, "-F", string(f), geminiData + "16-subagent.jsonl"}, "")
			assert.Equal(t, 0, got.Code, "%s %s", name, f)
			assert.NotEmpty(t, got.Stdout, "%s %s: a stream's report", name, f)
		}
		assert.GreaterOrEqual(t, formats, 5, name)
	}
}
