// Package live keeps where a run stands while its events arrive: the
// tool calls running and for how long, the subagents and background tasks
// running, tokens and cost so far, an API retry in progress, the
// rate-limit state. State is what ccfilter --follow's status line shows
// (Line), and it tells whether a claude -p run may have ended
// (MayHaveEnded). It is one more observer of the same events, with the
// arrival time of each: a stream's events carry none of their own.
package live

import (
	"time"

	"github.com/ccfilter/ccfilter/pkg/spend"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// maxStarts bounds the start times kept of calls waiting for their
// result, as the tracker bounds the calls themselves.
const maxStarts = 10000

// State is a run's state so far. Not safe for concurrent use: the caller
// that draws a status line from another goroutine holds a lock.
type State struct {
	tr *stream.Tracker

	start  time.Time // the run's start: the earliest time of its events
	latest time.Time // the latest time of its events
	// recorded is the latest time a record gave of its own: the clock of
	// a file read after the fact.
	recorded time.Time
	// arrived is when the last event was read (the clock's time, not the
	// record's): how long nothing has been written.
	arrived time.Time
	// watched: what is read from now on is written while it is watched
	// (Watching); live: an event was, so the wall clock counts (clock).
	watched, live bool
	starts        map[string]time.Time // open tool calls' start, by tool_use id
	// background tasks running (a background Bash, agent or workflow),
	// by task id: a result while one runs is not the run's end.
	background map[string]bool
	retry      *retry
	limit      *rateLimit
	lastResult bool // the last event is a result
	mainCalls  int  // the main agent's model calls
	lastMsg    string
	events     int64
}

type retry struct {
	attempt, max int64
	delay        time.Duration
	status       int64
	err          string
	at           time.Time
}

type rateLimit struct {
	status, kind string
	utilization  float64
	hasUtil      bool
	resets       time.Time
}

// New returns the state of a run with no event yet; prices estimate the
// cost before the run's result says it (the zero value: spend.Prices).
func New(prices spend.PriceTable) *State {
	return &State{
		tr:         stream.NewTracker(stream.TrackerOptions{Prices: prices}),
		starts:     map[string]time.Time{},
		background: map[string]bool{},
	}
}

// Observe updates the state with ev, which arrived at now.
func (s *State) Observe(ev *stream.Event, now time.Time) {
	s.live = s.live || s.watched
	at := now
	if ts, err := time.Parse(time.RFC3339Nano, ev.Timestamp()); err == nil && !ts.After(now) {
		// The record says when it was written (a transcript's, and the
		// CLI's assistant and user events): what a file read late shows
		// truly; a time ahead of this clock is not believed.
		at = ts
		if ts.After(s.recorded) {
			s.recorded = ts
		}
	} else if !s.live && !s.recorded.IsZero() {
		at = s.recorded // read after the fact: no later than the records around it
	}
	if s.events == 0 || at.Before(s.start) {
		// The earliest time known: a file read late shows its records'
		// times, older than the init's arrival.
		s.start = at
	}
	if s.events == 0 || at.After(s.latest) {
		s.latest = at
	}
	s.arrived = now
	s.events++
	for _, c := range s.tr.Observe(ev) {
		delete(s.starts, c.ID)
	}
	s.lastResult = ev.Kind == stream.KindResult
	switch {
	case ev.Kind == stream.KindToolUse:
		s.callsStarted(ev, at)
	case ev.Kind == stream.KindRetry && ev.ParentToolUseID() == "":
		// The main agent's: the run waits on it (a subagent's retry
		// holds up only its subagent). The typed view: a stream's
		// api_retry and a transcript's api_error spell their fields apart.
		r := ev.Retry()
		s.retry = &retry{attempt: r.Attempt, max: r.MaxRetries, delay: time.Duration(r.DelayMs) * time.Millisecond,
			status: r.Status, err: r.Error, at: at}
	case ev.Kind == stream.KindTask:
		s.task(ev)
	case ev.Type == "rate_limit_event":
		s.rateLimit(ev)
	}
	if ev.Type == "assistant" || ev.Type == "stream_event" || ev.Kind == stream.KindResult {
		// The model answered (or the run ended): no retry is waiting.
		if ev.ParentToolUseID() == "" {
			s.retry = nil
		}
	}
	if ev.Type == "assistant" && ev.ParentToolUseID() == "" {
		if id := ev.AssistantHead().MessageID; id != "" && id != s.lastMsg {
			s.lastMsg = id
			s.mainCalls++
		}
	}
}

// Watching says the reader has read all that was written before and
// waits for more (a followed file caught up, a live pipe from its start):
// from the next event on, the wall clock counts. Until then, durations
// are the records' own: a file written long ago and read now shows how
// long its calls took, not how long ago they started.
func (s *State) Watching() { s.watched = true }

// clock is the time the line counts to: now once an event was written
// while watched, else the latest event's time.
func (s *State) clock(now time.Time) time.Time {
	switch {
	case s.live:
		return now
	case !s.recorded.IsZero():
		return s.recorded
	}
	return s.latest
}

// callsStarted notes when ev's tool calls started.
func (s *State) callsStarted(ev *stream.Event, at time.Time) {
	for _, b := range ev.Assistant().Blocks {
		if b.ID != "" && b.Type == "tool_use" && len(s.starts) < maxStarts {
			s.starts[b.ID] = at
		}
	}
}

// task follows the background tasks: background_tasks_changed lists
// them all; task_started and task_notification add and remove one.
func (s *State) task(ev *stream.Event) {
	switch ev.Subtype {
	case "background_tasks_changed":
		clear(s.background)
		for _, t := range ev.BackgroundTasks() {
			if t.TaskID != "" && len(s.background) < maxStarts {
				s.background[t.TaskID] = true
			}
		}
	case "task_started":
		if t := ev.Task(); t.IsBackgrounded && len(s.background) < maxStarts {
			s.background[t.TaskID] = true
		}
	case "task_notification":
		delete(s.background, ev.Task().TaskID)
	}
}

// rateLimit keeps the rate_limit_event's state of the subscription's
// limits.
func (s *State) rateLimit(ev *stream.Event) {
	rl := ev.RateLimit()
	l := &rateLimit{status: rl.Status, kind: rl.Type, utilization: rl.Utilization, hasUtil: rl.HasUtilization}
	if rl.HasResetsAt {
		l.resets = unixTime(rl.ResetsAt)
	}
	s.limit = l
}

// unixTime reads a time given in seconds since 1970, or milliseconds (a
// number too large to be seconds).
func unixTime(v float64) time.Time {
	if v > 1e11 {
		return time.UnixMilli(int64(v))
	}
	return time.Unix(int64(v), 0)
}

// MayHaveEnded reports whether a claude -p run may have ended: its last
// event is a result and no background task runs (a run with one prints a
// result, then goes on when the task reports).
func (s *State) MayHaveEnded() bool { return s.lastResult && len(s.background) == 0 }

// Events is how many events the state has seen.
func (s *State) Events() int64 { return s.events }
