package statusline

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// terminal records what is written to it, from any goroutine.
type terminal struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (t *terminal) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.Write(p)
}

func (t *terminal) take() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.buf.String()
	t.buf.Reset()
	return s
}

// TestLineRedrawsClearsAndStops proves the line is drawn in place
// (carriage return, text, erase to the end) at a tick when its text
// changed and not otherwise; that a write through Writer clears it first
// and the next tick draws it again; and that Stop clears it for good.
func TestLineRedrawsClearsAndStops(t *testing.T) {
	var term terminal
	text := "one"
	l := &Line{w: &term, text: func() string { return text }, stop: make(chan struct{}), done: make(chan struct{})}
	close(l.done) // no ticker goroutine: the test draws
	l.Draw()
	assert.Equal(t, "\rone\x1b[K", term.take())
	l.Draw()
	assert.Empty(t, term.take(), "unchanged: not redrawn")
	l.Do(func() { text = "two" })
	l.Draw()
	assert.Equal(t, "\rtwo\x1b[K", term.take())

	out := l.Writer(&term)
	out.Write([]byte("an event\n"))
	assert.Equal(t, "\r\x1b[Kan event\n", term.take(), "cleared before the output")
	out.Write([]byte("another\n"))
	assert.Equal(t, "another\n", term.take(), "already clear")
	l.Draw()
	assert.Equal(t, "\rtwo\x1b[K", term.take(), "drawn again under the output")

	l.Stop()
	assert.Equal(t, "\r\x1b[K", term.take())
	l.Stop()
	assert.Empty(t, term.take(), "stopped once")
}

// TestStartDrawsAtTicks proves Start's goroutine draws at each tick it is
// given, and Stop ends it.
func TestStartDrawsAtTicks(t *testing.T) {
	var term terminal
	ticks := make(chan time.Time)
	n := 0
	l := Start(&term, ticks, func() string { n++; return strings.Repeat("x", n) })
	ticks <- time.Time{}
	ticks <- time.Time{} // sent: the first tick's draw is done
	l.Stop()
	assert.Equal(t, "\rx\x1b[K\rxx\x1b[K\r\x1b[K", term.take())
}
