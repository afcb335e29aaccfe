// Package follow reads a file that is still being written, as tail -F
// does: File is an io.Reader that hands out what the file holds, then
// waits for what is appended (woken by inotify, or by polling where there
// is none), and says when the file was truncated, replaced or is not there
// yet. It knows nothing of events: its caller, which reads the events,
// tells it when the run may have ended (EndWhenIdle), and the File then
// ends the input once nothing more is written for a grace period.
package follow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// DefaultGrace is how long a File waits, once its caller says the run may
// have ended (a claude -p stream's result arrived and nothing runs in the
// background), for more to be written before it ends the input. The CLI
// writes its result last and exits; a run that goes on (a background task
// reports, another result follows) writes again well within it.
const DefaultGrace = 2 * time.Second

// Why says why a File's Read returned io.EOF (Following while it has not).
type Why int

const (
	Following   Why = iota
	Idle            // EndWhenIdle(true), and nothing written for the grace period
	Interrupted     // the context was cancelled (Ctrl-C)
	Restarted       // truncated or replaced: Resume reads it again from its start
	Stopped         // Options.Stop was closed (a newer session started)
	WriterEnded     // Options.WriterGone was closed, and all the file held was read
)

// Options tune a File. Zero values pick the defaults.
type Options struct {
	// Grace: see DefaultGrace.
	Grace time.Duration
	// Poll is how often the file is looked at when nothing wakes the
	// reader: a safety net under inotify (a file system that sends no
	// notification: NFS, FUSE), the only way where inotify cannot watch.
	// Default: 1 s with inotify, 100 ms without.
	Poll time.Duration
	// Note receives what a person watching should be told: the file is
	// not there yet, was truncated, was replaced.
	Note func(string)
	// Stop, when closed, ends the input at the file's current end.
	Stop <-chan struct{}
	// WriterGone, when closed, says the process writing the file has
	// ended (ProcessEnded): the input ends once what the file holds is
	// read, whatever the caller said of the run (a producer killed before
	// its result would leave the reader waiting forever).
	WriterGone <-chan struct{}
	// NoNotify polls even where inotify works (tests of the fallback).
	NoNotify bool
}

// File is a followed file. Read it from one goroutine; EndWhenIdle may be
// called from any.
type File struct {
	ctx  context.Context
	path string
	o    Options
	wake *waker

	f    *os.File
	off  int64  // bytes read of f
	head []byte // the file's first line (up to headBytes), to tell a rewrite
	// lineAt is where the line being read starts (off after a newline);
	// wrote is when the file last grew; tried is the off at which the
	// unterminated last line was last found not to be a whole JSON value.
	// The reading goroutine's alone.
	lineAt, tried int64
	wrote         time.Time
	caughtUp      bool // waited at the file's end: what is read next was written while followed
	// quiet is when the file last grew (or the caller said the run may
	// end); endIdle is what the caller said. Under mu: EndWhenIdle may be
	// called from another goroutine.
	mu      sync.Mutex
	quiet   time.Time
	endIdle bool
	// lineEnded: the last line, whole but without its newline, was ended
	// by the File (endLine) and nothing was written since: the grace
	// period has passed already.
	lineEnded bool
	why       Why
	woke      bool // waited at the end: look for a change before reading on
	told      bool // said the file is not there yet
	toldGone  bool
	gone      bool // WriterGone was seen closed: one more look, then the end
}

// headBytes bounds the fingerprint of a file's start: a stream's first
// line (its init, with the session's id) tells one run's file from the next.
const headBytes = 4096

// Open follows path from its start. A file that does not exist yet is
// not an error: Read waits for it, and Note says so.
func Open(ctx context.Context, path string, o Options) *File {
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	if o.Note == nil {
		o.Note = func(string) {}
	}
	clean := filepath.Clean(path)
	w := newWaker(filepath.Dir(path), func(name string) bool { return name == clean }, o.NoNotify)
	if o.Poll <= 0 {
		o.Poll = 100 * time.Millisecond
		if w.notifies() {
			o.Poll = time.Second
		}
	}
	f := &File{ctx: ctx, path: path, o: o, wake: w}
	f.grown()
	return f
}

// Path is the followed file's name.
func (f *File) Path() string { return f.path }

// Why says why the last Read ended the input.
func (f *File) Why() Why { return f.why }

// EndWhenIdle tells the File whether the run may have ended: when it may,
// the input ends once nothing is written for the grace period.
func (f *File) EndWhenIdle(may bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if may && !f.endIdle {
		if !f.lineEnded {
			f.quiet = time.Now() // the grace period counts from now
		}
		f.wake.poke() // a wait under way counts it too
	}
	f.endIdle = may
}

// idle returns whether the run may end, and for how long more the file
// must stay quiet for it to.
func (f *File) idle() (bool, time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.endIdle, f.o.Grace - time.Since(f.quiet)
}

// grown notes the file grew now.
func (f *File) grown() {
	now := time.Now()
	f.wrote = now
	f.mu.Lock()
	f.quiet, f.lineEnded = now, false
	f.mu.Unlock()
}

// Resume goes on after Restarted: the next Read starts at the new file's
// start.
func (f *File) Resume() {
	if f.why == Restarted {
		f.why = Following
	}
}

// Close lets go of the file and the watch.
func (f *File) Close() error {
	f.wake.close()
	if f.f != nil {
		return f.f.Close()
	}
	return nil
}

// Read reads what the file holds past what was read; at its end it waits
// for more, and returns io.EOF only when the input ends (Why says why).
func (f *File) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for f.why == Following {
		if f.f == nil && !f.open() {
			if f.stopped() {
				f.why = Stopped
				break
			}
			if f.ended() || !f.wait() {
				break
			}
			continue
		}
		if f.woke {
			// What woke the wait may be a rewrite: looked at before
			// reading on from where the old content ended.
			f.woke = false
			if f.changed() {
				break
			}
		}
		// Stop is looked at before the read, not after it: what was
		// written before Stop closed is then read before the input ends
		// (a look after a read that found the end would lose a line
		// written between the two).
		stop := f.stopped()
		n, err := f.f.Read(p)
		if n > 0 {
			f.grew(p[:n])
			return n, nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if f.endLine() {
			p[0] = '\n'
			return 1, nil
		}
		if stop {
			f.why = Stopped
			break
		}
		if f.ended() {
			break
		}
		// At the end: wait, then look for a change (above) before reading
		// on. Every wait is followed by that look, once.
		f.caughtUp = true
		f.woke = f.wait()
	}
	return 0, io.EOF
}

// open opens the file when it is there; says once that it is not.
func (f *File) open() bool {
	file, err := os.Open(f.path)
	if err != nil {
		if !f.told {
			f.told = true
			if errors.Is(err, os.ErrNotExist) {
				f.o.Note(fmt.Sprintf("%s does not exist yet: waiting for it", f.path))
			} else {
				f.o.Note(fmt.Sprintf("%s cannot be read yet (%v): waiting", f.path, unwrap(err)))
			}
		}
		return false
	}
	if f.told {
		f.o.Note(fmt.Sprintf("%s is there now: reading it", f.path))
		f.told = false
	}
	f.f, f.off, f.head, f.lineAt, f.tried, f.caughtUp = file, 0, nil, 0, -1, false
	f.grown()
	return true
}

// grew notes the bytes just read: the time, and the file's first line.
func (f *File) grew(b []byte) {
	if len(f.head) < headBytes && (len(f.head) == 0 || f.head[len(f.head)-1] != '\n') {
		take := b[:min(len(b), headBytes-len(f.head))]
		if i := bytes.IndexByte(take, '\n'); i >= 0 {
			take = take[:i+1]
		}
		f.head = append(f.head, take...)
	}
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		f.lineAt = f.off + int64(i) + 1
	}
	f.off += int64(len(b))
	f.grown()
}

// CaughtUp reports whether the File has read all that was written when it
// started and waited at its end: what it reads from then on is written
// while it is followed. A file read again from its start (Restarted)
// catches up again.
func (f *File) CaughtUp() bool { return f.caughtUp }

// endLine reports whether the last line, with no newline after it, is
// whole: a JSON value with nothing written for the grace period. The
// reader then gets its newline from the File, and the line is read as
// the same file's last line is without --follow (a writer that ends
// without a newline would otherwise leave it waiting for one forever).
// A line still being written is not JSON yet, or is written to within
// the grace period.
func (f *File) endLine() bool {
	if f.lineAt == f.off || f.tried == f.off || time.Since(f.wrote) < f.o.Grace {
		return false
	}
	f.tried = f.off
	b := make([]byte, f.off-f.lineAt)
	if n, _ := f.f.ReadAt(b, f.lineAt); int64(n) != int64(len(b)) || !json.Valid(b) {
		return false
	}
	f.lineAt = f.off
	f.mu.Lock()
	f.lineEnded = true
	f.mu.Unlock()
	return true
}

// lineLeft is how long the unterminated last line must stay as it is for
// endLine to end it; false when there is none to try.
func (f *File) lineLeft() (time.Duration, bool) {
	if f.f == nil || f.lineAt == f.off || f.tried == f.off {
		return 0, false
	}
	return f.o.Grace - time.Since(f.wrote), true
}

// changed reports, at the end of what was read, whether the file was
// replaced (its name now names another file), truncated (shorter than
// what was read), or rewritten from its start (its first line is not the
// one read); then the input ends (Restarted) and Resume reads the new
// content from its start.
func (f *File) changed() bool {
	what := ""
	now, err := os.Stat(f.path)
	cur, ferr := f.f.Stat()
	switch {
	case err != nil:
		if !f.toldGone {
			f.toldGone = true
			f.o.Note(fmt.Sprintf("%s is gone (%v): waiting for it to come back", f.path, unwrap(err)))
		}
		return false
	case ferr == nil && !os.SameFile(now, cur):
		what = "was replaced"
	case ferr == nil && cur.Size() < f.off:
		what = "was truncated"
	case !f.sameHead():
		what = "was rewritten from its start"
	default:
		f.toldGone = false
		return false
	}
	f.o.Note(fmt.Sprintf("%s %s: reading it again from its start", f.path, what))
	f.f.Close()
	f.f, f.toldGone = nil, false
	f.why = Restarted
	return true
}

// sameHead reports whether the file still starts with the line read.
func (f *File) sameHead() bool {
	if len(f.head) == 0 {
		return true
	}
	b := make([]byte, len(f.head))
	n, _ := f.f.ReadAt(b, 0)
	return bytes.Equal(b[:n], f.head)
}

// stopped reports whether Stop was closed.
func (f *File) stopped() bool {
	select {
	case <-f.o.Stop:
		return true
	default:
		return false
	}
}

// ended reports whether the input ends here: the run may have ended and
// the grace period passed with nothing written (Stop is Read's to look
// at, before it reads).
func (f *File) ended() bool {
	if may, left := f.idle(); may && left <= 0 {
		f.why = Idle
		return true
	}
	if f.gone {
		f.why = WriterEnded
		f.o.Note(fmt.Sprintf("the process writing %s has ended: read to its end", f.path))
		return true
	}
	return false
}

// wait waits for the file to change, for the next look, for the grace
// period to end or for Stop; false (and Interrupted) when the context
// ends first.
func (f *File) wait() bool {
	d := f.o.Poll
	if may, left := f.idle(); may {
		d = min(d, max(time.Millisecond, left))
	}
	if left, ok := f.lineLeft(); ok {
		d = min(d, max(time.Millisecond, left))
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-f.ctx.Done():
		f.why = Interrupted
		return false
	case <-f.wake.c:
	case <-t.C:
	case <-f.o.Stop:
	case <-f.o.WriterGone:
		// What it wrote before it ended is read (one more look at the
		// file), then the input ends.
		f.gone = true
	}
	return true
}

func unwrap(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
