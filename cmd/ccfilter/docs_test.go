package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/filter"
	"github.com/ccfilter/ccfilter/pkg/preset"
	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

var update = flag.Bool("update", false, "rewrite generated docs")

// presetsDoc renders docs/presets.md from the tables the code uses, so the
// docs list exactly the presets, kinds and functions that exist.
func presetsDoc() string {
	var b strings.Builder
	b.WriteString("# Presets, kinds and expression functions\n\n")
	b.WriteString("<!-- Generated from the preset registry (pkg/preset), pkg/stream.Kinds and pkg/filter.Funcs by `go test ./cmd/ccfilter -update`. Do not edit. -->\n\n")
	b.WriteString("## Presets\n\n`ccfilter PRESET [FILE...]`. A preset refuses (exit 2) a `--format` it does not print; `--format json` is one document (an array of the records for `all`, `text`, `tools`, `errors`).\n\n")
	b.WriteString("`--agent` picks whose events, calls or rows a preset shows (`types`: that agent's events; `usage`: its model calls; `subagents`: that subagent and the ones it started, `main` those the main agent started); a preset it does not apply to refuses it (exit 2), and one that finds no such agent says which there are.\n\n")
	b.WriteString("| preset | prints | `.` for `--where` | `--agent` (default) | formats |\n|---|---|---|---|---|\n")
	for _, p := range preset.Builtin().List() {
		dot := p.Dot
		if dot == "" {
			dot = "— (`--where` does not apply)"
		}
		var formats []string
		for _, f := range render.Formats {
			if p.Prints(f) {
				formats = append(formats, string(f))
			}
		}
		agent := p.DefaultAgent
		if p.NoAgent != "" {
			agent = "— (refused: " + p.NoAgent + ")"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", p.Name, p.Summary, dot, agent, strings.Join(formats, ", "))
	}
	b.WriteString("\nExamples:\n\n```sh\n")
	for _, p := range preset.Builtin().List() {
		b.WriteString(p.Example + "\n")
	}
	b.WriteString("```\n\n## Kinds\n\nEvery event gets one kind (the `kind` function in expressions returns its name).\n\n| kind | events |\n|---|---|\n")
	for _, k := range stream.Kinds {
		fmt.Fprintf(&b, "| `%s` | %s |\n", k.Name, k.Events)
	}
	b.WriteString("\n## Expression functions\n\nBesides jq's builtins (gojq), expressions have:\n\n| function | returns |\n|---|---|\n")
	for _, f := range filter.Funcs {
		fmt.Fprintf(&b, "| `%s` | %s |\n", f.Name, f.Doc)
	}
	return b.String()
}

// TestPresetsDocIsCurrent proves docs/presets.md is generated from the
// current tables (regenerate with -update).
func TestPresetsDocIsCurrent(t *testing.T) {
	want := presetsDoc()
	if *update {
		require.NoError(t, os.WriteFile("../../docs/presets.md", []byte(want), 0o644))
	}
	got, err := os.ReadFile("../../docs/presets.md")
	require.NoError(t, err)
	assert.Equal(t, want, string(got), "run go test ./cmd/ccfilter -update")
}

// TestWhereAppliesAsDocumented proves the presets table tells the truth
// about --where: it is accepted with every preset that documents what . is,
// and rejected as a usage error with the others.
func TestWhereAppliesAsDocumented(t *testing.T) {
	for _, p := range preset.Builtin().List() {
		t.Run(p.Name, func(t *testing.T) {
			var stderr strings.Builder
			code := run([]string{p.Name, "--where", "true", "../../testdata/events/03-bash-fail.jsonl"}, strings.NewReader(""), io.Discard, &stderr, nil)
			if p.Dot == "" {
				assert.Equal(t, exitUsage, code)
				assert.Contains(t, stderr.String(), "--where does not apply to the "+p.Name+" preset")
				return
			}
			assert.Equal(t, exitOK, code, stderr.String())
		})
	}
}
