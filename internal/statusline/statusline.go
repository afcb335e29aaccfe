// Package statusline draws one line of status at the bottom of a
// terminal and keeps it there: it redraws the line in place at each tick
// when its text changed, and every other write to the terminal (the
// program's output and messages, through Writer) clears it first, so the
// line never mixes into them. Stop clears it for good.
package statusline

import (
	"io"
	"sync"
	"time"
)

// Escape sequences: back to the line's start, and erase to its end.
const (
	home  = "\r"
	erase = "\x1b[K"
)

// Line is a status line on a terminal.
type Line struct {
	mu    sync.Mutex
	w     io.Writer
	text  func() string // what the line says now; called under mu
	shown string        // what the terminal shows ("" when cleared)
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
}

// Start draws text() on w at each tick until Stop. text is called with
// the line's lock held: what it reads is changed under Do.
func Start(w io.Writer, ticks <-chan time.Time, text func() string) *Line {
	l := &Line{w: w, text: text, stop: make(chan struct{}), done: make(chan struct{})}
	go l.run(ticks)
	return l
}

// Every is a ticker's channel and its stop, for Start.
func Every(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(d)
	return t.C, t.Stop
}

func (l *Line) run(ticks <-chan time.Time) {
	defer close(l.done)
	for {
		select {
		case <-l.stop:
			return
		case <-ticks:
			l.Draw()
		}
	}
}

// Draw redraws the line now, when its text changed.
func (l *Line) Draw() {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.text()
	if t == l.shown {
		return
	}
	io.WriteString(l.w, home+t+erase)
	l.shown = t
}

// Do runs fn with the line's lock held: a change to what text reads.
func (l *Line) Do(fn func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fn()
}

// clear erases the line from the terminal (lock held).
func (l *Line) clear() {
	if l.shown != "" {
		io.WriteString(l.w, home+erase)
		l.shown = ""
	}
}

// Stop stops drawing and clears the line.
func (l *Line) Stop() {
	l.once.Do(func() {
		close(l.stop)
		<-l.done
		l.mu.Lock()
		l.clear()
		l.mu.Unlock()
	})
}

// Writer returns w, written to the same terminal, clearing the line
// before each write; the next tick draws it again under what was written.
func (l *Line) Writer(w io.Writer) io.Writer { return &clearing{l: l, w: w} }

type clearing struct {
	l *Line
	w io.Writer
}

func (c *clearing) Write(p []byte) (int, error) {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	c.l.clear()
	return c.w.Write(p)
}

// Fd is the descriptor of the writer beneath, when it has one (a
// terminal's size is asked of it).
func (c *clearing) Fd() uintptr {
	if f, ok := c.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}
