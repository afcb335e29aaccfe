package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/preset"
	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// thinkingPreset is a preset written outside package preset, as anyone
// would add one: one value, added to the registry, nothing else touched.
// It counts the assistant's thinking blocks, main agent and subagents.
func thinkingPreset() preset.Preset {
	return preset.Preset{
		Name: "thinking", DefaultAgent: "all",
		Summary: "how many thinking blocks the assistant wrote",
		Example: "ccfilter thinking run.jsonl",
		Needs:   func(*preset.Config) stream.Needs { return stream.Needs{Follow: stream.FollowOutcome} },
		Start: func(c *preset.Config, tr *stream.Tracker) (preset.Run, error) {
			var main, sub int64
			return preset.StartReport(c, tr, preset.Reporter{
				Uses: func(ev *stream.Event) bool { return ev.Kind == stream.KindThinking },
				Keep: func(ev *stream.Event) {
					switch {
					case ev.Kind != stream.KindThinking:
					case ev.IsSubagent():
						sub++
					default:
						main++
					}
				},
				Report: func(*stream.Tracker) (*render.Report, error) {
					count := func(n int64) render.Cell { return render.Cell{Text: render.Plural(n, "block"), Style: render.Number} }
					return &render.Report{
						Title: "Thinking",
						Blocks: []render.Block{{Table: &render.Table{
							Columns: []render.Column{{Name: "Agent"}, {Name: "Thinking", Right: true}},
							Rows:    [][]render.Cell{{{Text: "main"}, count(main)}, {{Text: "subagents"}, count(sub)}},
						}}},
						Rows: &render.RowSet{Columns: []string{"main", "subagents"}, Rows: [][]any{{main, sub}}},
					}, nil
				},
			})
		},
	}
}

// TestPresetAddedThroughTheRegistry proves a preset is one value: added to
// the registry alone, it runs in every format, and the help, the presets
// list and the completion offer it.
func TestPresetAddedThroughTheRegistry(t *testing.T) {
	want := map[render.Format]string{
		render.Text:     "agent      thinking\nmain       2 blocks\nsubagents  0 blocks\n",
		render.Markdown: "# Claude Code run\n\n## Thinking\n\n| Agent | Thinking |\n|---|---:|\n| main | 2 blocks |\n| subagents | 0 blocks |\n\n",
		render.NDJSON:   "{\"main\":2,\"subagents\":0}\n",
		render.CSV:      "main,subagents\n2,0\n",
		render.JSON:     "[\n  {\n    \"main\": 2,\n    \"subagents\": 0\n  }\n]\n",
	}
	registry := func() *preset.Registry {
		r := preset.Builtin()
		require.NoError(t, r.Add(thinkingPreset()))
		return r
	}
	for _, f := range render.Formats {
		if slices.Contains(render.RunOnly, f) {
			continue // a trace: printed by the presets that name it
		}
		var stdout, stderr bytes.Buffer
		code := runWith(&options{presets: registry()}, []string{"thinking", "--format", string(f), "-e", "../../testdata/events/08-thinking.jsonl"},
			strings.NewReader(""), &stdout, &stderr, []string{"NO_COLOR=1"})
		assert.Equal(t, 0, code, "%s: %s", f, stderr.String())
		if f == render.HTML { // a page around the table
			assert.Contains(t, stdout.String(), "<h2>Thinking</h2>\n<table><tr><th>Agent</th><th>Thinking</th></tr>\n<tr><td>main</td><td class=\"n\">2 blocks</td></tr>\n<tr><td>subagents</td><td class=\"n\">0 blocks</td></tr>\n</table>", f)
			continue
		}
		assert.Equal(t, want[f], stdout.String(), f)
		assert.Empty(t, stderr.String(), f)
	}
	// Without it in the registry, "thinking" is an expression (a jq error).
	var stderr bytes.Buffer
	code := run([]string{"thinking", "../../testdata/events/08-thinking.jsonl"}, strings.NewReader(""), &bytes.Buffer{}, &stderr, nil)
	assert.Equal(t, exitCompile, code, stderr.String())

	for _, args := range [][]string{{"--help"}, {"presets"}, {"__complete", "thin"}} {
		var out bytes.Buffer
		code := runWith(&options{presets: registry()}, args, strings.NewReader(""), &out, &out, nil)
		require.Equal(t, 0, code, args)
		assert.Contains(t, out.String(), "thinking", args)
		assert.Contains(t, out.String(), "how many thinking blocks", args)
	}
	assert.Error(t, registry().Add(thinkingPreset()), "a name is taken once")
}
