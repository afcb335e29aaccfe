package stream

import (
	"bytes"
	"time"
	"unsafe"

	"github.com/ccfilter/ccfilter/internal/jsonx"
)

// The times of a run, by one rule that reads neither the clock nor a
// file's modification time, so that a run has the same times whatever way
// it is given (a file, a path spelled otherwise, a pipe, stdin, a .gz or
// .zst, --follow):
//
//   - a record's own time where it carries one (a timestamp);
//   - an undated event the time of the nearest dated record before it;
//   - the undated events before the first dated record that record's time
//     (known only when it comes: Time.Dated is false until then, and a
//     view that lays out times holds those events, or moves them to it);
//   - a run with no dated record at all is laid out from UndatedOrigin,
//     advanced by the durations the stream gives (a retry's delay, the
//     result's duration), and a view says so.

// UndatedOrigin is where a run with no dated record is laid out from: a
// fixed time, so that the same run is laid out the same every time.
var UndatedOrigin = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Time is an event's time by the rule above.
type Time struct {
	At time.Time
	// Dated: At is a record's time (the event's own, or the dated record's
	// before it). False before the first dated record: At is then the
	// undated layout's (UndatedOrigin and the durations so far), which the
	// first dated record's time replaces if one comes.
	Dated bool
}

// Clock gives each event of a run its Time. Feed it every event in order
// (the Tracker does: Tracker.Time).
type Clock struct {
	now    Time
	cursor time.Duration // the undated layout: the durations so far
	// last is the timestamp last read, as written: the records of one
	// moment (a message's blocks, its tool results) repeat it, and are
	// not parsed again.
	last []byte
	// own: the event last observed is dated by its own timestamp (its
	// time is that timestamp parsed), not by a record's before it.
	own bool
}

// Observe returns e's time.
func (c *Clock) Observe(e *Event) Time {
	c.own = true
	if raw := e.field("timestamp"); len(raw) > 2 {
		if c.now.Dated && bytes.Equal(raw, c.last) {
			return c.now
		}
		if t, err := time.Parse(time.RFC3339Nano, timeText(raw)); err == nil {
			c.last = append(c.last[:0], raw...)
			c.now = Time{At: t, Dated: true}
			return c.now
		}
	}
	c.own = false
	if c.now.Dated {
		return c.now // the nearest dated record's before it
	}
	switch e.Kind {
	case KindRetry:
		c.cursor += time.Duration(e.Retry().DelayMs) * time.Millisecond
	case KindResult:
		// The run's own measure of itself, from its start.
		c.cursor = max(c.cursor, time.Duration(e.Int("duration_ms"))*time.Millisecond)
	}
	c.now = Time{At: UndatedOrigin.Add(c.cursor)}
	return c.now
}

// timeText is a timestamp's text for time.Parse: a plain string's bytes
// as they are in the line, not a copy (Str's copy and its UTF-8 check
// were a third of the clock's work); an escaped one decoded. time.Parse
// keeps its argument only in the error, which Observe drops.
func timeText(raw jsonx.Value) string {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' || bytes.IndexByte(raw, '\\') >= 0 {
		return raw.Str()
	}
	return unsafe.String(unsafe.SliceData(raw[1:]), len(raw)-2)
}
