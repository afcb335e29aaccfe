package preset

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// final prints the final answer at the end, or says on stderr why there
// is none; its status is the run's outcome, with or without -e.
var final = Preset{
	Name: "final", DefaultAgent: "all",
	NoAgent: "the final answer is the run's (a subagent's report: ccfilter subagents; its words: ccfilter text --agent ID)",
	Summary: "the final answer only (exit 1 if the run failed, 4 if it has no result)",
	Example: "answer=$(claude -p 'what is 2+2' --output-format stream-json --verbose | ccfilter final) || exit",
	Words:   []string{"answer", "result", "output", "reply", "response"},
	// One answer is not a table: no csv.
	Formats: []render.Format{render.Text, render.Markdown, render.NDJSON, render.JSON},
	Needs:   fixed(stream.Needs{Follow: stream.FollowOutcome, NoOwners: true, Kinds: outcomeKinds}),
	Start: func(c *Config, tr *stream.Tracker) (Run, error) {
		return &finalRun{c: c, tr: tr, w: plainWriter(c)}, nil
	},
}

type finalRun struct {
	c  *Config
	tr *stream.Tracker
	w  *bufio.Writer
}

func (r *finalRun) Prepare(ev *stream.Event) error { return validateIf(keepsOutcome(ev), ev) }

func (r *finalRun) Event(context.Context, *stream.Event, []*stream.ToolCall) error { return nil }

func (r *finalRun) Flush() error { return r.w.Flush() }

func (r *finalRun) Finish(end End) (Status, error) {
	out := r.tr.Outcome()
	switch out.Status {
	case stream.NoResult:
		if end.Diagnosis == "" {
			Warn(r.c.Stderr, fmt.Sprintf("%s: no result: %s", r.c.Source, stream.NoResultSaid))
		}
		return NoResult, r.w.Flush()
	case stream.Failed:
		Warn(r.c.Stderr, failure(r.c.Source, out))
		return Failed, r.w.Flush()
	}
	switch r.c.Format {
	case render.JSON:
		var buf bytes.Buffer
		if r.c.Render.Compact {
			if err := json.Compact(&buf, r.tr.LastResult()); err != nil {
				return 0, err
			}
		} else if err := json.Indent(&buf, r.tr.LastResult(), "", r.c.Render.Indent); err != nil {
			return 0, err
		}
		buf.WriteByte('\n')
		r.w.Write(r.terminalSafe(buf.Bytes()))
	case render.NDJSON:
		r.w.Write(r.terminalSafe(r.tr.LastResult()))
		r.w.WriteByte('\n')
	default:
		text, fellBack := r.tr.FinalText()
		if r.c.Format == render.Markdown {
			// A markdown answer is pasted into documents: its HTML and
			// script links are neutralised as all's and text's are.
			text = strings.TrimSuffix(render.MarkdownAnswer(text), "\n")
		}
		if text == "" && !fellBack {
			r.emptyAnswer()
		}
		if fellBack {
			Warn(r.c.Stderr, fmt.Sprintf("note: %s: the result has no text; printing the main agent's last assistant text instead", r.c.Source))
			if r.tr.Stats().FinalTextCut {
				Warn(r.c.Stderr, fmt.Sprintf("%s: that text is longer than the %s kept: only its start is printed", r.c.Source, render.Bytes(r.tr.Limits().MaxTextBytes)))
			}
		}
		if r.c.Terminal {
			text = render.Sanitize(text, true)
		}
		r.w.WriteString(text)
		r.w.WriteByte('\n')
	}
	return OK, r.w.Flush()
}

// emptyAnswer notes an empty answer of a run that succeeded when lines of
// a type ccfilter does not know were passed over: a newer CLI's answer
// under a new name (a Codex release renamed agent_message) would
// otherwise print as an empty line with exit 0 and nothing said.
func (r *finalRun) emptyAnswer() {
	var unknown int64
	first := ""
	for _, c := range r.tr.Types() {
		if !c.Known {
			unknown += c.Count
			if first == "" {
				first = strings.TrimSpace(c.Type + " " + c.Subtype)
			}
		}
	}
	if unknown > 0 {
		Warn(r.c.Stderr, fmt.Sprintf("note: %s: the answer is empty, and lines of a type ccfilter does not know were passed over (%s, first %s): the answer may be there (ccfilter types lists them)",
			r.c.Source, render.Plural(unknown, "line"), first))
	}
}

// failure says why a run failed, as the views' status says it (its
// reasons: the error subtype or terminal reason, the API error that ended
// the last turn, the HTTP status; never a "success" subtype), then the
// result's errors and text.
func failure(source string, out stream.Outcome) string {
	r := out.Last
	msg := fmt.Sprintf("%s: the run %s", source, render.OutcomeStatus(r, out.APIError))
	for _, e := range r.Errors {
		msg += "\n  " + e
	}
	if r.HasText && r.Text != "" {
		msg += "\n  " + r.Text
	}
	return msg
}

// terminalSafe escapes the result's JSON text for a terminal, as the
// renderers' byte formats do; to a pipe or a file it is kept as it is.
func (r *finalRun) terminalSafe(b []byte) []byte {
	if r.c.Terminal {
		return render.TerminalSafe(b)
	}
	return b
}
