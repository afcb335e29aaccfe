package main

import (
	"context"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/ccfilter/ccfilter/internal/statusline"
	"github.com/ccfilter/ccfilter/pkg/follow"
	"github.com/ccfilter/ccfilter/pkg/input"
	"github.com/ccfilter/ccfilter/pkg/live"
	"github.com/ccfilter/ccfilter/pkg/spend"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// --follow (-f): a file, a session or a project folder read as it is
// written (pkg/follow), each run through runOne as any input; and the
// status line of a run being watched (pkg/live, internal/statusline).

// softInterrupt, when set, is what the first Ctrl-C does instead of
// exiting at once (exitOnInterrupt): a followed input ends there and what
// was read is printed, ending as a run ends. A second Ctrl-C exits.
var softInterrupt atomic.Pointer[func()]

// statusEvery is how often the status line is redrawn (when it changed).
const statusEvery = 250 * time.Millisecond

// watch is what observes the run being read live: its state (pkg/live),
// the followed file it tells when the run may have ended, and the status
// line that shows the state.
type watch struct {
	state   *live.State
	line    *statusline.Line // nil: no status line
	file    *follow.File     // nil: not following a file
	endable bool             // a claude -p stream, which ends after its result (a transcript does not)
	// asWritten: the input is a live pipe, every event of it written
	// while watched (a followed file says when it caught up).
	asWritten bool
}

// do runs fn under the status line's lock (its drawing reads the state).
func (w *watch) do(fn func()) {
	if w.line != nil {
		w.line.Do(fn)
		return
	}
	fn()
}

// start begins a run of an input of kind k. A nil watch (no run is
// watched) does nothing, here and in event.
func (w *watch) start(k input.Kind) {
	if w == nil {
		return
	}
	w.do(func() {
		w.state = live.New(spend.PriceTable{})
		if w.asWritten {
			w.state.Watching()
		}
	})
	w.endable = k != input.Transcript
}

// event observes ev, and tells the followed file whether the run may end.
func (w *watch) event(ev *stream.Event) {
	if w == nil {
		return
	}
	w.do(func() {
		if w.file != nil && w.file.CaughtUp() {
			w.state.Watching() // what was written before is read: the rest comes as written
		}
		w.state.Observe(ev, time.Now())
	})
	if w.file != nil && w.endable {
		w.file.EndWhenIdle(w.state.MayHaveEnded())
	}
}

// statusWanted says whether stderr shows a status line: never when it
// is not a terminal or with --no-status; with --status, --follow, or
// stdin a live pipe read alone.
func (o *options) statusWanted(p *plan) bool {
	switch {
	case o.NoStatus || !o.terminalErr():
		return false
	case o.Status || o.Follow:
		return true
	}
	return o.pipedIn(p)
}

// pipedIn reports whether the one input is stdin, a live pipe.
func (o *options) pipedIn(p *plan) bool {
	return len(p.files) == 1 && p.files[0] == "-" && isPipe(o.stdin)
}

// isPipe reports whether r is a pipe or a socket (not a file, not a
// terminal): what is read from it arrives live.
func isPipe(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0
}

// startWatch sets up the watch of a live run: the state always; with a
// status line, stderr (and stdout, when it is the terminal too) clear it
// before they write. It returns what ends it.
func (o *options) startWatch(p *plan) func() {
	status := o.statusWanted(p)
	if !status && !o.Follow {
		return func() {} // a run read to its end: nothing watches it
	}
	o.watch = &watch{state: live.New(spend.PriceTable{}), asWritten: o.pipedIn(p)}
	if !status {
		return func() {}
	}
	ticks, stopTicks := statusline.Every(statusEvery)
	if o.statusTicks != nil {
		ticks, stopTicks = o.statusTicks()
	}
	w := o.watch
	width := o.width(o.rawStderr) - 1 // the last column would wrap the line on some terminals
	w.line = statusline.Start(o.rawStderr, ticks, func() string {
		return w.state.Line(time.Now(), width, time.Local)
	})
	o.stderr = w.line.Writer(o.stderr)
	if o.terminalOut() {
		o.stdout = w.line.Writer(o.stdout)
	}
	return func() {
		stopTicks()
		w.line.Stop()
	}
}

// cutByTheReader reports whether the followed input ended because the
// reading stopped (Ctrl-C, a newer session): then its last line may be
// one still being written, no bad line.
func (o *options) cutByTheReader() bool {
	f := o.followed
	return f != nil && (f.Why() == follow.Interrupted || f.Why() == follow.Stopped)
}

// interrupted reports whether Ctrl-C ended the followed input: what was
// read is ended as a file cut there, with no outcome made up for it.
func (o *options) interrupted() bool {
	return o.followed != nil && o.followed.Why() == follow.Interrupted
}

// readLive reports whether the one input named is read as it is written
// anyway, without following: stdin named ("-"), a FIFO, a device. Their
// reads wait for what comes, and end at the writer's end.
func readLive(p *plan) bool {
	if len(p.files) != 1 || p.noFiles {
		return false
	}
	if p.files[0] == "-" {
		return true
	}
	fi, err := os.Stat(p.files[0])
	return err == nil && !fi.Mode().IsRegular() && !fi.IsDir()
}

// followInputs follows the one input named (a file, a session, a
// project folder; none: the project of the working directory) until its
// run ends, or Ctrl-C.
func (o *options) followInputs(ctx context.Context, p *plan, out io.Writer, tty bool) (int, error) {
	if len(p.files) > 1 {
		return 0, &flagError{errors.New("--follow follows one file, session or project folder (run one ccfilter -f for each)")}
	}
	// Ctrl-C ends the reading (the followed file's context), not what
	// is done with what was read: the run ends as at its input's end.
	reading, cancel := context.WithCancel(ctx)
	defer cancel()
	o.reading = reading
	hook := func() {
		say(o.stderr, "interrupted")
		cancel()
	}
	softInterrupt.Store(&hook)
	defer softInterrupt.Store(nil)
	if o.Pid > 0 {
		o.writerGone = follow.ProcessEnded(reading, o.Pid)
	}
	name := p.files[0]
	if p.noFiles {
		cwd, err := os.Getwd()
		if err != nil {
			return 0, errorf(exitInput, "--follow with no file follows the working directory's project: %v", err)
		}
		return o.followFolder(ctx, p, input.ProjectFolder(o.projectsDir(), cwd), out, tty)
	}
	if fi, err := os.Stat(name); err == nil && fi.IsDir() {
		// A session's folder (no transcript in it, its own beside it) is
		// its transcript; any other folder a project's. Told by a listing:
		// input.SessionFiles would read every session's record times, which
		// followFolder reads to find the newest.
		session := filepath.Clean(name) + ".jsonl"
		if _, err := input.RegularFile(session); err != nil || len(follow.Listing(name, ".jsonl")) > 0 {
			return o.followFolder(ctx, p, name, out, tty)
		}
		name = session
	}
	code, _, err := o.followFile(ctx, p, name, nil, out, tty)
	return code, err
}

// followFile follows the file path until its run ends (a stream's result
// and the grace period), stop is closed, or Ctrl-C; a file truncated or
// replaced is read again from its start, as a new run.
func (o *options) followFile(ctx context.Context, p *plan, path string, stop <-chan struct{}, out io.Writer, tty bool) (int, follow.Why, error) {
	f := follow.Open(o.reading, path, follow.Options{Grace: o.FollowGrace, Stop: stop, WriterGone: o.writerGone,
		Note: func(s string) { say(o.stderr, s) }})
	defer f.Close()
	o.followed, o.watch.file = f, f
	defer func() { o.followed, o.watch.file = nil, nil }()
	for {
		code, err := o.runOne(ctx, p, path, out, tty)
		var ee *exitError
		switch {
		case err != nil && errors.As(err, &ee) && ee.code == exitInput && f.Why() == follow.Restarted:
			say(o.stderr, ee.msg) // the cut run's trouble; the new one is read
		case err != nil:
			return code, f.Why(), err
		}
		switch {
		case f.Why() == follow.Restarted:
			f.Resume()
			continue
		case f.Why() == follow.Interrupted:
			return exitInterrupted, follow.Interrupted, nil
		}
		return code, f.Why(), nil
	}
}

// followFolder follows the newest session of a project folder, and the
// next one when a newer session starts (a new transcript in the folder),
// until Ctrl-C. A folder with no session yet (or none at all) is waited
// for.
func (o *options) followFolder(ctx context.Context, p *plan, dir string, out io.Writer, tty bool) (int, error) {
	o.multiRun = true // each session's output says which it is
	known := follow.Listing(dir, ".jsonl")
	current, err := input.NewestSession(dir)
	if err != nil {
		say(o.stderr, dir+": no session yet: waiting for one to start")
		if current = follow.NewFile(o.reading, dir, ".jsonl", known, 0); current == "" {
			return exitInterrupted, nil
		}
	}
	for {
		known[current] = true
		say(o.stderr, "following "+current)
		stop := make(chan struct{})
		newer := make(chan string, 1)
		wctx, stopWatching := context.WithCancel(o.reading)
		go func(known map[string]bool) {
			if n := follow.NewFile(wctx, dir, ".jsonl", known, 0); n != "" {
				newer <- n
				close(stop)
			}
		}(maps.Clone(known))
		code, why, err := o.followFile(ctx, p, current, stop, out, tty)
		stopWatching()
		if err != nil || why != follow.Stopped {
			return code, err
		}
		current = <-newer
		say(o.stderr, "a newer session started: switching to it")
	}
}
