package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// partsLayout is a format for people written as the architecture says a new
// one is: it sees the Parts only, never an event. It writes one line per
// part, and the test reads back what it shows.
func partsLayout(p *Part) string {
	switch p.Form {
	case FormHidden:
		return ""
	case FormCall:
		return "call " + p.Use.Name + " " + p.Use.ID
	case FormToolResult:
		s := "result " + p.Result.ToolUseID
		if p.Result.IsError {
			s += " error"
		}
		return s
	case FormInit:
		return "init " + p.Init.Model
	case FormOutcome:
		return "outcome " + p.Outcome.Subtype
	case FormProse, FormPrompt:
		return "prose " + p.Body
	}
	return p.Mark + " " + p.Line + " " + p.Stats
}

// TestDescriptionIsEnoughForALayout proves that a layout of Parts alone, as
// a new format for people is written, shows every tool call, every tool
// result (failed ones as failed), every result event and every assistant
// text of every capture and of the transcripts, and that each part carries
// what its Form needs. It fails if describe drops an event or a block, or
// leaves a form's field empty.
func TestDescriptionIsEnoughForALayout(t *testing.T) {
	files := captureFiles(t)
	more, err := filepath.Glob("../../testdata/transcripts/*/home/.claude/projects/*/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, more)
	for _, file := range append(files, more...) {
		input, err := os.ReadFile(file)
		require.NoError(t, err)
		tr := stream.NewTracker(stream.TrackerOptions{})
		d := newDescriber(": ", 64<<10, Options{Tracker: tr})
		var shown strings.Builder
		var want []string
		observeEach(t, input, tr, func(ev *stream.Event, done []*stream.ToolCall) {
			parts := d.describe(ev, done)
			require.NotEmpty(t, parts, "%s line %d: an event has a description", file, ev.Line)
			for i := range parts {
				p := &parts[i]
				switch p.Form {
				case FormLine, FormFold:
					assert.NotEmpty(t, p.Mark, "%s line %d: a line has a mark", file, ev.Line)
					if p.Say == SayCallout {
						assert.NotEmpty(t, p.Label, "%s line %d: a callout has a label", file, ev.Line)
					}
				case FormCall:
					require.NotNil(t, p.Use, "%s line %d", file, ev.Line)
				case FormToolResult:
					require.NotNil(t, p.Result, "%s line %d", file, ev.Line)
				case FormInit:
					require.NotNil(t, p.Init, "%s line %d", file, ev.Line)
				case FormOutcome:
					require.NotNil(t, p.Outcome, "%s line %d", file, ev.Line)
				}
				shown.WriteString(partsLayout(p) + "\n")
			}
			switch ev.Kind {
			case stream.KindResult:
				want = append(want, "outcome "+ev.Result().Subtype)
			case stream.KindToolResult:
				for _, r := range ev.ToolResults() {
					s := "result " + r.ToolUseID
					if r.IsError {
						s += " error"
					}
					want = append(want, s)
				}
			case stream.KindText, stream.KindToolUse:
				for _, b := range ev.Assistant().Blocks {
					switch b.Type {
					case "text":
						want = append(want, "prose "+b.Text)
					case "tool_use":
						want = append(want, "call "+b.Name+" "+b.ID)
					}
				}
			}
		})
		for _, w := range want {
			assert.Contains(t, shown.String(), w+"\n", "%s: the parts show it", filepath.Base(file))
		}
	}
}

// TestResultRepeatingTheAnswer proves the describer marks a result whose
// text the main agent just said (both layouts then leave it out), and not
// one that only a subagent said.
func TestResultRepeatingTheAnswer(t *testing.T) {
	tests := []struct {
		name     string
		parent   string
		repeated bool
	}{
		{"said by the main agent", "null", true},
		{"said by a subagent only", `"toolu_1"`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := newDescriber(": ", 64<<10, Options{})
			text := `{"type":"assistant","parent_tool_use_id":` + tc.parent + `,"message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"The answer is 42."}]}}`
			result := `{"type":"result","subtype":"success","is_error":false,"result":"The answer is 42.","num_turns":1}`
			for i, l := range []string{text, result} {
				ev, err := stream.NewEvent([]byte(l), "test", int64(i+1))
				require.NoError(t, err)
				parts := d.describe(ev, nil)
				if ev.Kind == stream.KindResult {
					require.Len(t, parts, 1)
					assert.Equal(t, tc.repeated, parts[0].Repeated)
				}
			}
		})
	}
}

// TestResultsAndOutcomesAreWordedOnce proves a tool result and an outcome
// are worded by the describer and laid out by text, markdown and html as
// it says: every result part of every capture and transcript names its
// tool, its mark and figures, the fold's line and a failure's sentence;
// every outcome part its title and mark; and each format's output, read
// back, holds those words (text: the figures; markdown: the fold's line,
// the failure's callout, the title; html: the figures, each trouble in the
// trouble list in TroubleLine's words, the title). Before, each format worded them itself and
// the parts carried none of it.
func TestResultsAndOutcomesAreWordedOnce(t *testing.T) {
	files := captureFiles(t)
	more, err := filepath.Glob("../../testdata/transcripts/*/home/.claude/projects/*/*.jsonl")
	require.NoError(t, err)
	for _, file := range append(files, more...) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			input, err := os.ReadFile(file)
			require.NoError(t, err)
			tr := stream.NewTracker(stream.TrackerOptions{})
			d := newDescriber(": ", 64<<10, Options{Tracker: tr})
			var results, outcomes []Part
			var troubles []string
			observeEach(t, input, tr, func(ev *stream.Event, done []*stream.ToolCall) {
				parts := d.describe(ev, done)
				if stream.TroubleOf(ev) != "" {
					troubles = append(troubles, TroubleLine(ev, done, d.apiError))
				}
				for _, p := range parts {
					switch p.Form {
					case FormToolResult:
						assert.NotEmpty(t, p.Label, "line %d: the result names its tool", ev.Line)
						assert.NotEmpty(t, p.Mark, "line %d", ev.Line)
						assert.NotEmpty(t, p.Stats, "line %d: the result's figures", ev.Line)
						word := " result: "
						if p.Result.IsError {
							word = " error: "
							assert.True(t, strings.HasPrefix(p.Sentence, p.Label+" failed"), "line %d: a failure's sentence, %q", ev.Line, p.Sentence)
						}
						assert.Equal(t, p.Label+word+p.Stats, p.Line, "line %d", ev.Line)
						results = append(results, p)
					case FormOutcome:
						assert.NotEmpty(t, p.Label, "line %d: the outcome's title", ev.Line)
						assert.NotEmpty(t, p.Mark, "line %d", ev.Line)
						outcomes = append(outcomes, p)
					}
				}
			})
			out := map[Format]string{}
			for _, f := range []Format{Text, Markdown, HTML} {
				var b strings.Builder
				drive(t, f, input, false, &b)
				out[f] = b.String()
			}
			for _, p := range results {
				assert.Contains(t, out[Text], "  ("+p.Stats+")", "text: %s's figures", p.Result.ToolUseID)
				assert.Contains(t, out[Markdown], "<summary>"+htmlText(p.Mark+" "+p.Line)+"</summary>", "markdown: %s's fold", p.Result.ToolUseID)
				assert.Contains(t, out[HTML], htmlText(p.Stats), "html: %s's figures", p.Result.ToolUseID)
				if p.Result.IsError {
					assert.Contains(t, out[Markdown], "> **Error:** "+mdInline(truncate(line(p.Sentence), mdCalloutWidth)), "markdown: %s's failure", p.Result.ToolUseID)
				}
			}
			for i, tl := range troubles[:min(len(troubles), htmlTroubles)] {
				assert.Contains(t, out[HTML], ">"+htmlText(truncate(line(tl), 200))+"<", "html: trouble %d in the trouble list", i+1)
			}
			for _, p := range outcomes {
				assert.Contains(t, out[Markdown], "Result: "+mdInline(p.Label), "markdown: the outcome's title")
				assert.Contains(t, out[HTML], "Result: "+htmlText(p.Label), "html: the outcome's title")
			}
		})
	}
}
