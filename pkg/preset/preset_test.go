package preset

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/filter"
	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// runPreset runs p on a capture as the command does (decoder, tracker,
// run) and returns what it printed, on stdout and stderr, and its status.
func runPreset(t *testing.T, p Preset, f render.Format, capture string) (string, string, Status) {
	t.Helper()
	return runPresetNeeding(t, p, f, capture, func(n stream.Needs) stream.Needs { return n })
}

// runPresetNeeding is runPreset with its tracker made from need(the
// preset's needs).
func runPresetNeeding(t *testing.T, p Preset, f render.Format, capture string, need func(stream.Needs) stream.Needs) (string, string, Status) {
	t.Helper()
	in, err := os.Open("../../testdata/events/" + capture)
	require.NoError(t, err)
	defer in.Close()
	var out, errs bytes.Buffer
	c := &Config{Format: f, Out: &out, Stderr: &errs, Source: capture, Agent: "all", ExitStatus: true}
	tr := stream.NewTracker(stream.TrackerOptions{Needs: need(p.NeedsOf(c))})
	run, err := p.Start(c, tr)
	require.NoError(t, err)
	dec := stream.NewDecoder(in, stream.DecoderOptions{Source: capture, Check: stream.CheckFraming, Prepare: run.Prepare})
	for {
		ev, err := dec.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		require.NoError(t, run.Event(context.Background(), ev, tr.Observe(ev)))
	}
	st, err := run.Finish(End{})
	require.NoError(t, err)
	return out.String(), errs.String(), st
}

// TestBuiltinRegistry proves the built-in table: every preset in the order
// help lists them, each with its help, example and Start; lookups; a name
// taken once; --where refused where a preset has no Dot.
func TestBuiltinRegistry(t *testing.T) {
	r := Builtin()
	assert.Equal(t, []string{"all", "text", "tools", "errors", "final", "types", "usage", "subagents", "init", "account"}, r.Names())
	for _, p := range r.List() {
		got, ok := r.Lookup(p.Name)
		require.True(t, ok)
		assert.Equal(t, p.Name, got.Name)
		assert.NotEmpty(t, p.Summary, p.Name)
		assert.NotEmpty(t, p.Example, p.Name)
		assert.NotNil(t, p.Start, p.Name)
		assert.Contains(t, []string{"all", "main"}, p.DefaultAgent, p.Name)
		if p.Dot == "" {
			assert.ErrorContains(t, p.CheckWhere(), "--where does not apply to the "+p.Name+" preset")
		} else {
			assert.NoError(t, p.CheckWhere())
		}
	}
	_, ok := r.Lookup("nope")
	assert.False(t, ok)
	assert.Error(t, r.Add(all), "a name is taken once")
	assert.Error(t, r.Add(Preset{Name: "x"}), "a preset needs a Start")
	r.List()[0].Name = "changed"
	assert.Equal(t, "all", r.Names()[0], "List hands out a copy")
}

// TestReportsInEveryFormat proves every report preset prints in every
// format: JSON formats one document that parses, CSV a table with its own
// header that reads back, markdown a heading and a table, text a table;
// on captures with subagents, several models and unknown types.
func TestReportsInEveryFormat(t *testing.T) {
	for _, name := range []string{"types", "usage", "subagents", "init", "account"} {
		p, _ := Builtin().Lookup(name)
		csvOut, _, _ := runPreset(t, p, render.CSV, "05-subagents-async.jsonl")
		rows, err := csv.NewReader(strings.NewReader(csvOut)).ReadAll()
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(rows), 2, "%s: header and rows", name)
		header := rows[0]
		assert.NotEqual(t, render.CSVHeader, header, "%s: a report has its own header", name)
		if p.Dot != "" {
			assert.Equal(t, "a row: {"+strings.Join(header, ", ")+"}", p.Dot, "%s: --where sees the row (its Dot is made from the columns)", name)
		}
		for _, f := range render.Formats {
			if !p.Prints(f) {
				continue // a trace (otlp): the all preset's
			}
			got, errs, st := runPreset(t, p, f, "05-subagents-async.jsonl")
			assert.Equal(t, OK, st, "%s %s", name, f)
			assert.Empty(t, errs)
			switch f {
			case render.NDJSON:
				lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
				assert.Len(t, lines, len(rows)-1, "%s: a row per line", name)
				for _, l := range lines {
					assert.Equal(t, header, objectKeys(t, []byte(l)), "%s: the keys are the CSV header, in order", name)
				}
			case render.JSON:
				var arr []json.RawMessage
				require.NoError(t, json.Unmarshal([]byte(got), &arr), name)
				assert.Len(t, arr, len(rows)-1, "%s: an array of the rows", name)
				for _, o := range arr {
					assert.Equal(t, header, objectKeys(t, o), "%s: the keys are the CSV header, in order", name)
				}
				assert.Greater(t, strings.Count(got, "\n"), 1, "%s: pretty", name)
			case render.CSV:
			case render.Markdown:
				assert.Regexp(t, `\n## \w`, got, name)
				assert.Contains(t, got, "|---", name)
			case render.Text:
				assert.NotEmpty(t, got, name)
			}
		}
	}
	got, _, _ := runPreset(t, types, render.Text, "01-plain-text.jsonl")
	assert.Equal(t, "type       subtype  count  known\nsystem     init         1  yes\nassistant               1  yes\nresult     success      1  yes\n", got)
}

// TestTextPicksTheAssistantsText proves text outside its own printer
// renders the assistant's text events and nothing else.
func TestTextPicksTheAssistantsText(t *testing.T) {
	got, _, _ := runPreset(t, text, render.NDJSON, "07-partial-messages.jsonl")
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	require.NotEmpty(t, lines)
	for _, l := range lines {
		ev, err := stream.NewEvent([]byte(l), "", 0)
		require.NoError(t, err)
		assert.Equal(t, stream.KindText, ev.Kind, l)
	}
}

// TestFinalStatusIsTheOutcome proves final's status is the run's outcome,
// with or without -e, and that it says why on stderr.
func TestFinalStatusIsTheOutcome(t *testing.T) {
	for capture, want := range map[string]Status{"01-plain-text.jsonl": OK, "12-max-turns.jsonl": Failed, "09c-auth-401-killed.jsonl": NoResult} {
		out, errs, st := runPreset(t, final, render.Text, capture)
		assert.Equal(t, want, st, capture)
		if want == OK {
			assert.NotEmpty(t, out, capture)
			assert.Empty(t, errs, capture)
		} else {
			assert.Empty(t, out, capture)
			assert.Contains(t, errs, capture+": ", capture)
		}
	}
}

// TestTreeOrder proves the subagents table lists each subagent's subagents
// right under it, in the order they started, and loses no row when the
// parents are not a tree (a parent not listed, a subagent its own parent,
// two that name each other).
func TestTreeOrder(t *testing.T) {
	sa := func(id, parent string) *stream.Subagent { return &stream.Subagent{ToolUseID: id, Parent: parent} }
	ids := func(subs []*stream.Subagent) string {
		var out []string
		for _, s := range subs {
			out = append(out, s.ToolUseID)
		}
		return strings.Join(out, " ")
	}
	cases := []struct {
		name string
		in   []*stream.Subagent
		want string
	}{
		{"flat keeps start order", []*stream.Subagent{sa("a", ""), sa("b", ""), sa("c", "")}, "a b c"},
		{"children under their parent", []*stream.Subagent{sa("a", ""), sa("b", ""), sa("a1", "a"), sa("b1", "b"), sa("a2", "a"), sa("a11", "a1")}, "a a1 a11 a2 b b1"},
		{"parent not listed: stays", []*stream.Subagent{sa("x", "gone"), sa("a", "")}, "x a"},
		{"own parent", []*stream.Subagent{sa("s", "s"), sa("a", "")}, "s a"},
		{"a cycle loses nothing", []*stream.Subagent{sa("a", ""), sa("p", "q"), sa("q", "p")}, "a p q"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, ids(stream.TreeOrder(c.in)))
		})
	}
}

// objectKeys are a JSON object's keys, in order.
func objectKeys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	require.NoError(t, err)
	require.Equal(t, json.Delim('{'), tok, "%s", b)
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, k.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return keys
}

// validatedKinds runs p on a capture as runPreset does and counts, by
// kind, the events its Prepare validated in full and all of them; tr is
// its tracker, after the run.
func validatedKinds(t *testing.T, p Preset, capture string, agent filter.Agent) (checked, all map[stream.Kind]int, tr *stream.Tracker) {
	t.Helper()
	in, err := os.Open("../../testdata/events/" + capture)
	require.NoError(t, err)
	defer in.Close()
	c := &Config{Format: render.JSON, Out: io.Discard, Stderr: io.Discard, Source: capture, Agent: agent}
	tr = stream.NewTracker(stream.TrackerOptions{Needs: p.NeedsOf(c)})
	run, err := p.Start(c, tr)
	require.NoError(t, err)
	dec := stream.NewDecoder(in, stream.DecoderOptions{Source: capture, Check: stream.CheckFraming, Prepare: run.Prepare})
	checked, all = map[stream.Kind]int{}, map[stream.Kind]int{}
	for {
		ev, err := dec.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		all[ev.Kind]++
		if ev.Checked() {
			checked[ev.Kind]++
		}
		require.NoError(t, run.Event(context.Background(), ev, tr.Observe(ev)))
	}
	_, err = run.Finish(End{})
	require.NoError(t, err)
	return checked, all, tr
}

// TestOnlyFinalKeepsTheFinalAnswer: the final answer's fallback (the main
// agent's last text, which 27-compact's empty result falls back to) is
// kept by the tracker of the preset that shows it only; types, usage and
// tools say they do not show it (stream.Needs.NoFinalText), so their
// tracker decodes no text. What each validates in full stays: final and
// types every text event (a bad escape in one is a warning in both, as
// with --full-check), usage and tools every tool call and none of them.
func TestOnlyFinalKeepsTheFinalAnswer(t *testing.T) {
	const capture = "27-compact.jsonl"
	for _, tc := range []struct {
		preset     Preset
		keepsText  bool
		textsValid bool
	}{{final, true, true}, {types, false, true}, {usage, false, false}, {tools, false, false}} {
		t.Run(tc.preset.Name, func(t *testing.T) {
			c := &Config{Format: render.JSON, Agent: "all"}
			assert.Equal(t, !tc.keepsText, tc.preset.NeedsOf(c).NoFinalText)
			checked, all, tr := validatedKinds(t, tc.preset, capture, "all")
			require.Positive(t, all[stream.KindText])
			want := 0
			if tc.textsValid {
				want = all[stream.KindText]
			}
			assert.Equal(t, want, checked[stream.KindText], "text events validated in full")
			_, fellBack := tr.FinalText()
			assert.Equal(t, tc.keepsText, fellBack, "27-compact's answer is the fallback")
		})
	}
}

// TestWhatAPresetLeavesOutItDoesNotShow: types, usage and tools tell their
// tracker to keep no final answer (Needs.NoFinalText) and, usage and
// tools, no tally of tool calls (Needs.NoToolTally); each prints, in every
// format, byte for byte what it prints with a tracker that keeps both, on
// captures with tool errors, subagents, several results and a final
// answer that falls back to the text.
func TestWhatAPresetLeavesOutItDoesNotShow(t *testing.T) {
	keepAll := func(n stream.Needs) stream.Needs {
		n.NoFinalText, n.NoToolTally = false, false
		return n
	}
	c := &Config{Agent: "all"}
	assert.True(t, types.NeedsOf(c).NoFinalText)
	for _, p := range []Preset{usage, tools} {
		assert.True(t, p.NeedsOf(c).NoFinalText, p.Name)
		assert.True(t, p.NeedsOf(c).NoToolTally, p.Name)
	}
	printed := 0
	for _, p := range []Preset{types, usage, tools} {
		for _, f := range render.Formats {
			if !p.Prints(f) {
				continue
			}
			for _, capture := range []string{"25-tool-errors.jsonl", "05b-subagents-foreground.jsonl", "05-subagents-async.jsonl", "27-compact.jsonl"} {
				out, errs, st := runPreset(t, p, f, capture)
				wantOut, wantErrs, wantSt := runPresetNeeding(t, p, f, capture, keepAll)
				what := p.Name + " " + string(f) + " " + capture
				if out != "" {
					printed++
				}
				assert.Equal(t, wantOut, out, what)
				assert.Equal(t, wantErrs, errs, what)
				assert.Equal(t, wantSt, st, what)
			}
		}
	}
	assert.Greater(t, printed, 40, "most runs print something (tools on 27-compact: no call)")
}

// TestTheTraceLeavesOutWhatItDoesNotShow: the trace format (all -F otlp)
// tells its tracker to measure no result, keep no final answer and tally
// no tool call, and writes, on every capture, byte for byte the trace,
// stderr and status it writes with a tracker that keeps them all.
func TestTheTraceLeavesOutWhatItDoesNotShow(t *testing.T) {
	keepAll := func(n stream.Needs) stream.Needs {
		n.NoResultSizes, n.NoFinalText, n.NoToolTally = false, false, false
		return n
	}
	n := all.NeedsOf(&Config{Format: render.OTLP, Agent: "all"})
	assert.True(t, n.NoResultSizes && n.NoFinalText && n.NoToolTally, "%+v", n)
	captures, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, captures)
	for _, path := range captures {
		capture := filepath.Base(path)
		t.Run(capture, func(t *testing.T) {
			out, errs, st := runPreset(t, all, render.OTLP, capture)
			wantOut, wantErrs, wantSt := runPresetNeeding(t, all, render.OTLP, capture, keepAll)
			assert.Equal(t, wantOut, out)
			assert.Equal(t, wantErrs, errs)
			assert.Equal(t, wantSt, st)
		})
	}
}
