package redact

import (
	"strconv"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// Deltas finds the secrets a partial-message stream cuts across its
// deltas. With --include-partial-messages, Claude Code streams a text, a
// thinking or a tool's input in pieces of a few bytes, one event each: a
// token is often cut in two, and neither piece is a secret alone, so the
// Writer, which sees each event's line alone, cannot find it.
//
// Deltas holds the events from a content block's first delta with a text
// until the block is complete (its assistant event, its
// content_block_stop, the message's end, or the turn moving on: a user or
// result event), finds the secrets in the block's joined text, and recuts
// its pieces so that they join into the redacted text: the piece where a
// secret starts holds its marker, and the rest of the secret is taken out
// of the pieces after it. Every other byte of each event is left as it
// was, and the events come out in the order they came in.
//
// Memory is bounded: past maxDeltaHold bytes held, it lets go of what it
// holds, redacted as it stands (a secret cut at that point is missed; on
// real runs a block's deltas are a few kilobytes).
type Deltas struct {
	r    *Redactor
	held []*stream.Event
	size int
	open map[string][]int // a block's deltas (indexes into held), by agent and index
	out  []*stream.Event
	err  error
}

// maxDeltaHold bounds the bytes of the events held.
const maxDeltaHold = 1 << 20

// NewDeltas returns the stage, redacting with r (whose numbering and
// counts it shares with the Writer).
func NewDeltas(r *Redactor) *Deltas { return &Deltas{r: r, open: map[string][]int{}} }

// Event takes the next event and returns the events to pass on, in order:
// none while a block is held. The slice is valid until the next call; the
// events held are copies, ev itself is returned only at once.
func (d *Deltas) Event(ev *stream.Event) []*stream.Event {
	d.out = d.out[:0]
	if ev.Type != "stream_event" {
		if ev.Type != "system" && len(d.held) > 0 {
			// The block's assistant event, or the turn moved on: every
			// delta of the blocks held is in.
			d.release()
		}
		return d.pass(ev)
	}
	dl := ev.Delta()
	key := ev.ParentToolUseID() + "/" + strconv.FormatInt(dl.Index, 10)
	switch dl.EventType {
	case "content_block_delta":
		if dl.Text == "" {
			break
		}
		d.open[key] = append(d.open[key], len(d.held))
		d.hold(ev)
		if d.size > maxDeltaHold {
			d.release()
		}
		return d.out
	case "content_block_stop":
		if _, ok := d.open[key]; ok {
			d.hold(ev)
			d.release()
			return d.out
		}
	case "message_start", "message_stop":
		d.release()
	}
	return d.pass(ev)
}

// pass passes ev on, after what is held, or holds it too (to keep the
// order) while a block is open.
func (d *Deltas) pass(ev *stream.Event) []*stream.Event {
	if len(d.held) > 0 {
		d.hold(ev)
		return d.out
	}
	return append(d.out, ev)
}

func (d *Deltas) hold(ev *stream.Event) {
	d.held = append(d.held, ev.Clone())
	d.size += len(ev.Raw)
}

// Flush returns every event held, its blocks redacted as they stand (the
// input's end, or an interrupt).
func (d *Deltas) Flush() []*stream.Event {
	d.out = d.out[:0]
	d.release()
	return d.out
}

// Err is the first error recutting a delta (whose event then went on
// unchanged): none on any line Claude Code writes.
func (d *Deltas) Err() error { return d.err }

// release recuts the blocks held and appends every event held to out.
func (d *Deltas) release() {
	for key, pieces := range d.open {
		d.recut(pieces)
		delete(d.open, key)
	}
	d.out = append(d.out, d.held...)
	clear(d.held)
	d.held, d.size = d.held[:0], 0
}

// recut redacts the joined text of the deltas held[pieces[0]], ... and
// gives each its part of the redacted text.
func (d *Deltas) recut(pieces []int) {
	var joined []byte
	ends := make([]int, len(pieces))
	for k, at := range pieces {
		joined = append(joined, d.held[at].Delta().Text...)
		ends[k] = len(joined)
	}
	var buf [8]match
	ms := d.r.find(joined, buf[:0])
	if len(ms) == 0 {
		return
	}
	start := 0
	for k, at := range pieces {
		text, changed := d.r.pieceOf(joined, start, ends[k], ms)
		start = ends[k]
		if !changed {
			continue
		}
		c, err := d.held[at].WithDeltaText(text)
		if err != nil {
			if d.err == nil {
				d.err = err
			}
			continue
		}
		d.held[at] = c
	}
}

// pieceOf is the piece joined[start:end] with the secrets ms replaced: the
// marker where a secret starts, nothing where one goes on.
func (r *Redactor) pieceOf(joined []byte, start, end int, ms []match) (string, bool) {
	var out []byte
	last, changed := start, false
	for _, m := range ms {
		if m.end <= start || m.start >= end {
			continue
		}
		changed = true
		s := max(m.start, start)
		out = append(out, joined[last:s]...)
		if m.start >= start {
			out = append(out, r.marker(m.id, joined[m.start:m.end])...)
		}
		last = min(m.end, end)
	}
	if !changed {
		return "", false
	}
	return string(append(out, joined[last:end]...)), true
}
