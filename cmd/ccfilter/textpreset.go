package main

import (
	"bufio"

	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// textPrinter is the text preset in text format: the assistant's words and
// nothing else. With --include-partial-messages streams it writes each
// text_delta as it arrives and skips the complete text event that repeats
// them, so no text is printed twice.
type textPrinter struct {
	w        *bufio.Writer
	safe     bool     // writing to a terminal: escape control characters
	open     bool     // a streamed block is being written
	streamed []string // message ids whose text came as deltas (the last few)
}

func newTextPrinter(w *bufio.Writer, terminal bool) *textPrinter {
	return &textPrinter{w: w, safe: terminal}
}

func (t *textPrinter) write(s string) error {
	if t.safe {
		s = sanitize(s)
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
			t.open = true
			return t.write(d.Text)
		case d.EventType == "content_block_stop" || d.EventType == "message_stop":
			return t.endBlock()
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

func (t *textPrinter) endBlock() error {
	if !t.open {
		return nil
	}
	t.open = false
	_, err := t.w.WriteString("\n")
	return err
}

func (t *textPrinter) close() error { return t.endBlock() }

// sanitize escapes what a terminal would interpret (the renderers' one
// sanitizer), keeping newlines and tabs.
func sanitize(s string) string { return render.Sanitize(s, true) }
