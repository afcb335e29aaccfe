package preset

import (
	"bufio"
	"context"

	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// text prints what the assistant said. As text it writes the words and
// nothing else (textRun); in the other formats it renders the assistant's
// text events as any events preset does.
var text = Preset{
	Name: "text", DefaultAgent: "main",
	Summary: "what the assistant said (main agent unless --agent); live text deltas with --include-partial-messages",
	Dot:     "the assistant event",
	Example: "claude -p 'fix the bug' --output-format stream-json --verbose | ccfilter text",
	Words:   []string{"words", "messages", "chat"},
	// Words, not a table: no csv.
	Formats: []render.Format{render.Text, render.Markdown, render.NDJSON, render.JSON, render.HTML},
	Needs: func(c *Config) stream.Needs {
		switch {
		case c.Format != render.Text:
			return eventsNeeds(c)
		case wordsOnly(c):
			// (no tool_progress is words; the words are texts and their deltas)
			return stream.Needs{Follow: stream.FollowOutcome, NoOwners: true, Kinds: outcomeKinds | stream.KindsOf(stream.KindDelta)}
		}
		return stream.Needs{NoResultSizes: true}
	},
	Start: func(c *Config, tr *stream.Tracker) (Run, error) {
		if c.Format == render.Text {
			return &textRun{base: bareBase(c, tr), p: newTextPrinter(plainWriter(c), c.Terminal), wordsOnly: wordsOnly(c)}, nil
		}
		return startEvents(c, tr, isText)
	},
}

func isText(ev *stream.Event) bool { return ev.Kind == stream.KindText }

// wordsOnly reports whether a text run needs nothing of the tracker
// beyond the outcome: the main agent's words, the subagents' or all of
// them (a subagent named by its id needs the subagent tree; --where may
// look at anything).
func wordsOnly(c *Config) bool { return c.Agent.ByKind() && c.Where == nil }

// textRun is the text preset in text format: its printer writes, not a
// renderer (base.r is nil).
type textRun struct {
	*base
	p         *textPrinter
	wordsOnly bool
}

func (r *textRun) Prepare(ev *stream.Event) error {
	if r.wordsOnly {
		// Of the deltas, only a text_delta's text is printed (a partial-
		// messages run is mostly other deltas: thinking, tool input).
		return validateIf(keepsOutcome(ev) || ev.Kind == stream.KindDelta && ev.Delta().DeltaType == "text_delta", ev)
	}
	if !keepsFacts(ev) && ev.Kind != stream.KindText && ev.Kind != stream.KindDelta {
		return nil
	}
	return validateUsed(r.c, ev)
}

func (r *textRun) Event(ctx context.Context, ev *stream.Event, _ []*stream.ToolCall) error {
	if !r.agentMatch(ev) {
		return nil
	}
	if r.c.Where != nil {
		if ev.Kind == stream.KindDelta {
			// --where judges whole assistant events: their text is
			// printed once complete, not streamed.
			return nil
		}
		if ev.Kind == stream.KindText {
			ok, err := r.where(ctx, ev, nil)
			if err != nil || !ok {
				return err
			}
		}
	}
	return r.p.event(ev)
}

func (r *textRun) Flush() error { return r.p.w.Flush() }

func (r *textRun) Finish(end End) (Status, error) {
	if err := r.p.close(); err != nil {
		return 0, err
	}
	if err := r.p.w.Flush(); err != nil {
		return 0, err
	}
	r.unmatchedAgent()
	return r.status(), nil
}

// textPrinter writes the assistant's words and nothing else. With
// --include-partial-messages streams it writes each text_delta as it
// arrives and skips the complete text event that repeats them, so no text
// is printed twice.
type textPrinter struct {
	w        *bufio.Writer
	safe     bool     // writing to a terminal: escape control characters
	open     bool     // a streamed block is being written
	streamed []string // message ids whose text came as deltas (the last few)
	// lastIndex is the index of the last text block streamed of the
	// message streamed last (streamed's last id).
	lastIndex int64
}

func newTextPrinter(w *bufio.Writer, terminal bool) *textPrinter {
	return &textPrinter{w: w, safe: terminal}
}

func (t *textPrinter) write(s string) error {
	if t.safe {
		s = render.Sanitize(s, true)
	}
	_, err := t.w.WriteString(s)
	return err
}

func (t *textPrinter) wasStreamed(id string) bool {
	if n := len(t.streamed); n > 0 && t.streamed[n-1] == id {
		return true // the message of the delta before (most are)
	}
	for _, s := range t.streamed {
		if s == id {
			return true
		}
	}
	return false
}

func (t *textPrinter) event(ev *stream.Event) error {
	switch ev.Kind {
	case stream.KindDelta:
		d := ev.Delta()
		switch {
		case d.EventType == "content_block_delta" && d.DeltaType == "text_delta":
			if !t.wasStreamed(d.MessageID) {
				t.streamed = append(t.streamed, d.MessageID)
				if len(t.streamed) > 64 {
					t.streamed = t.streamed[1:]
				}
			}
			t.open, t.lastIndex = true, d.Index
			return t.write(d.Text)
		case d.EventType == "content_block_stop" || d.EventType == "message_stop":
			if err := t.endBlock(); err != nil {
				return err
			}
			if n := len(t.streamed); d.Abandoned && n > 0 && t.streamed[n-1] == d.MessageID && t.lastIndex >= d.AbandonedFrom {
				// The text above was printed as it came and cannot be
				// taken back: say that it is not part of the answer.
				return t.write(abandonedNote)
			}
		}
	case stream.KindText:
		a := ev.Assistant()
		if a.MessageID != "" && t.wasStreamed(a.MessageID) {
			return nil // already printed from its deltas
		}
		if err := t.endBlock(); err != nil {
			return err
		}
		for _, b := range a.Blocks {
			if b.Type != "text" {
				continue
			}
			if err := t.write(b.Text); err != nil {
				return err
			}
			if _, err := t.w.WriteString("\n"); err != nil {
				return err
			}
		}
	}
	return nil
}

// abandonedNote follows the text of a model call whose stream failed midway
// (the CLI retries the call; its answer comes next).
const abandonedNote = "[the stream above broke off and was abandoned; the call is retried]\n"

func (t *textPrinter) endBlock() error {
	if !t.open {
		return nil
	}
	t.open = false
	_, err := t.w.WriteString("\n")
	return err
}

func (t *textPrinter) close() error { return t.endBlock() }
