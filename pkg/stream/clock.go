package stream

import (
	"bytes"
	"time"

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
}

// Observe returns e's time.
func (c *Clock) Observe(e *Event) Time {
	if raw := e.field("timestamp"); len(raw) > 2 {
		if c.now.Dated && bytes.Equal(raw, c.last) {
			return c.now
		}
		if t, ok := parseTimestamp(raw); ok {
			c.last = append(c.last[:0], raw...)
			c.now = Time{At: t, Dated: true}
			return c.now
		}
	}
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

// parseTimestamp reads a record's timestamp, as time.Parse with
// RFC3339Nano does. The form Claude Code writes, 2026-12-02T13:20:40.697Z
// (UTC, any number of fraction digits), is read digit by digit, without
// the string and the general parser that were a tenth of a run's time
// (every event is dated); any other form goes to time.Parse.
func parseTimestamp(raw jsonx.Value) (time.Time, bool) {
	if t, ok := parseUTCStamp(raw); ok {
		return t, true
	}
	t, err := time.Parse(time.RFC3339Nano, raw.Str())
	return t, err == nil
}

// parseUTCStamp reads "YYYY-MM-DDTHH:MM:SS[.fraction]Z" (with its quotes),
// or says it is not that form.
func parseUTCStamp(raw []byte) (time.Time, bool) {
	n := len(raw)
	if n < 22 || raw[0] != '"' || raw[n-1] != '"' || raw[n-2] != 'Z' {
		return time.Time{}, false
	}
	s := raw[1 : n-2] // without the quotes and the Z
	if len(s) < 19 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	num := func(b []byte) (int, bool) {
		v := 0
		for _, c := range b {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	year, ok1 := num(s[0:4])
	month, ok2 := num(s[5:7])
	day, ok3 := num(s[8:10])
	hour, ok4 := num(s[11:13])
	minute, ok5 := num(s[14:16])
	sec, ok6 := num(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || month < 1 || month > 12 || day < 1 ||
		day > daysIn(time.Month(month), year) || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	nsec := 0
	if frac := s[19:]; len(frac) > 0 {
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
			return time.Time{}, false
		}
		v, ok := num(frac[1:])
		if !ok {
			return time.Time{}, false
		}
		for i := len(frac) - 1; i < 9; i++ {
			v *= 10
		}
		nsec = v
	}
	secs := daysFromCivil(year, month, day)*86400 + int64(hour*3600+minute*60+sec)
	return time.Unix(secs, int64(nsec)).UTC(), true
}

// daysIn is the number of days of month m in year y (Gregorian).
func daysIn(m time.Month, y int) int {
	if m == time.February && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		return 29
	}
	return [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
}

// daysFromCivil is the number of days from 1970-01-01 to y-m-d (Howard
// Hinnant's days_from_civil), which time.Date computes with more steps.
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 { // January and February of year 0: the era before
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}
