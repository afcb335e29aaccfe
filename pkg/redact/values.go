package redact

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// Redaction on values: each string an event carries (keys and values, at
// any depth) is redacted as its readers see it, decoded from its JSON
// escapes, once, before the tracker, the presets and the renderers read
// the event. Every format then lays out values already redacted: the same
// secrets, with the same markers, whatever the format escapes (an HTML
// page's &#34;, a JSON string's \" and \\), and no marker can swallow a
// format's markup, since no format's markup is there yet.

// Event redacts the values of ev in place (stream.Event.SetRaw) and
// reports whether it changed. A line with no secret keeps its bytes (and
// NDJSON echoes them unchanged). The stage for DecoderOptions.Prepare,
// before the run's own. A partial message's delta with a text is left to
// Deltas, which reads it joined to the block's other deltas: a piece of a
// secret can look like a whole one alone, and redacted here, the rest of
// it would be left in the next piece.
func (r *Redactor) Event(ev *stream.Event) bool {
	if ev.Screened() {
		return false // its reader's Screen found nothing in it
	}
	if ev.Type == "stream_event" {
		if d := ev.Delta(); d.EventType == "content_block_delta" && d.Text != "" {
			return false
		}
	}
	raw, changed := r.Line(nil, ev.Raw)
	if changed {
		ev.SetRaw(raw)
	}
	if echo, ok := ev.Echoed(); ok && len(echo) > 0 {
		// The input's own lines the event was translated from (another
		// CLI's), which a pass-through prints: redacted line by line,
		// uncounted (the event's translation counted its secrets), the
		// pieces of a text joined first (a secret they cut in two is in
		// none of the lines alone).
		q := r.Quiet()
		echo, any := q.pieces(echo, ev.EchoPieces())
		out := make([]byte, 0, len(echo))
		for i, line := range bytes.Split(echo, []byte{'\n'}) {
			if i > 0 {
				out = append(out, '\n')
			}
			red, ch := q.Line(out, line)
			if !ch {
				red = append(out, line...)
			}
			out, any = red, any || ch
		}
		if any {
			ev.SetEcho(out)
		}
	}
	return changed
}

// pieces is echo with the secrets of its pieces, the JSON strings at
// spans in it, joined, taken out (Deltas' recut of a text's pieces), and
// whether it changed: the piece where a secret starts holds its marker,
// the rest of the secret is taken out of the pieces after it.
func (r *Redactor) pieces(echo []byte, spans [][2]int32) ([]byte, bool) {
	if len(spans) == 0 {
		return echo, false
	}
	var joined []byte
	ends := make([]int, len(spans))
	for k, sp := range spans {
		joined = jsonx.Value(echo[sp[0]:sp[1]]).AppendStr(joined)
		ends[k] = len(joined)
	}
	var buf [8]match
	ms := r.find(joined, buf[:0])
	if len(ms) == 0 {
		return echo, false
	}
	out, last, start := make([]byte, 0, len(echo)), 0, 0
	for k, sp := range spans {
		text, changed := r.pieceOf(joined, start, ends[k], ms)
		start = ends[k]
		if !changed {
			continue
		}
		var q bytes.Buffer
		enc := json.NewEncoder(&q)
		enc.SetEscapeHTML(false) // (as the line's own string was written)
		if enc.Encode(text) != nil {
			continue
		}
		out = append(append(out, echo[last:sp[0]]...), bytes.TrimSuffix(q.Bytes(), []byte("\n"))...)
		last = int(sp[1])
	}
	return append(out, echo[last:]...), true
}

// Line appends to dst the JSON line with the secrets of its strings
// replaced, and reports whether it changed anything (when it did not, dst
// is returned as it was: the caller keeps line). Each string is decoded,
// redacted, and written again only when it held a secret; a value is read
// with the key it is the value of (`"password":"…"` is a secret by its
// name). A line whose strings cannot be decoded (not JSON) is redacted as
// bytes.
func (r *Redactor) Line(dst, line []byte) ([]byte, bool) {
	if !r.mayHold(line) {
		// Most lines: no secret in their bytes, nor in their strings
		// decoded.
		return dst, false
	}
	var w valueWalk
	w.r, w.line, w.out = r, line, dst
	if !w.strings(nil) {
		// Not JSON strings can be read from (checked first, so that no
		// secret is counted twice).
		var buf [8]match
		ms := r.find(line, buf[:0])
		if len(ms) == 0 {
			return dst, false
		}
		return r.replace(dst, line, ms), true
	}
	w.strings(w.str)
	if !w.changed {
		return dst, false
	}
	return append(w.out, line[w.last:]...), true
}

// mayHold reports whether b, or a string of it decoded, may hold a
// secret: a rule finds one in its bytes as written (the rules read a JSON
// string's escapes: \" as a quote, \\ as a backslash, \n as a line's end),
// or a \u escape writes a printable ASCII character, which can be a
// trigger's (a \u escape of anything else cannot: no trigger holds a
// control character or a byte past ASCII). The scan, which stops at both
// (escapeTrigger), is the cost of the stage on a line with no secret,
// most of a run.
func (r *Redactor) mayHold(b []byte) bool {
	var buf [8]match
	var escapes bool
	return len(r.scan(b, buf[:0], &escapes)) > 0 || escapes
}

// asciiEscapeAt reports whether the \u escape at b[j] is one of a
// printable ASCII character, \u0020 to \u007f (Go's encoders write <, >
// and & so). Its backslash may be the second of an escaped one (\\u0041
// is a backslash and the text u0041): taken for an escape all the same,
// the line is only looked at closer.
func asciiEscapeAt(b []byte, j int) bool {
	return j+4 < len(b) && b[j+2] == '0' && b[j+3] == '0' && b[j+4] >= '2' && b[j+4] <= '7'
}

// valueWalk walks the strings of one JSON line.
type valueWalk struct {
	r       *Redactor
	line    []byte
	out     []byte // the line rewritten up to last
	last    int
	changed bool
	key     []byte // the last key read (decoded)
	text    []byte // a string decoded
	ctx     []byte // a value with its key: "key":"value"
	ms      []match
}

// strings calls each on each string of the line (its quotes b[s:e]), and
// reports whether every string could be read (a valid body, escapes and
// all); each nil: only that.
func (w *valueWalk) strings(each func(s, e int)) bool {
	b := w.line
	for i := 0; ; {
		k := bytes.IndexByte(b[i:], '"')
		if k < 0 {
			return true
		}
		s := i + k
		e := jsonx.StringEnd(b, s)
		if e < 0 {
			return false
		}
		if each != nil {
			each(s, e)
		} else if body := b[s+1 : e-1]; bytes.IndexByte(body, '\\') >= 0 {
			var ok bool
			if w.text, ok = jsonx.AppendUnquoted(w.text[:0], body); !ok {
				return false
			}
		}
		i = e
	}
}

// str redacts the string b[s:e] (its quotes included), which strings
// found can be read.
func (w *valueWalk) str(s, e int) {
	b := w.line
	body := b[s+1 : e-1]
	text := body
	escaped := bytes.IndexByte(body, '\\') >= 0
	if escaped {
		w.text, _ = jsonx.AppendUnquoted(w.text[:0], body)
		text = w.text
	}
	j := e
	for j < len(b) && isSpace(b[j]) {
		j++
	}
	isKey := j < len(b) && b[j] == ':'
	p := s - 1
	for p >= 0 && isSpace(b[p]) {
		p--
	}
	ofKey := p >= 0 && b[p] == ':' && len(w.key) > 0
	var ms []match
	switch {
	case ofKey && w.r.keyMayTell(w.key):
		// The value with its name, as the line writes it, so that a rule
		// that knows a secret by its name (assigned-secret) sees both.
		w.ctx = append(append(append(append(w.ctx[:0], '"'), w.key...), `":"`...), text...)
		w.ctx = append(w.ctx, '"')
		at := len(w.key) + 4
		ms = w.r.find(w.ctx, w.ms[:0])
		kept := ms[:0]
		for _, m := range ms {
			if m.start >= at && m.end <= at+len(text) {
				kept = append(kept, match{m.start - at, m.end - at, m.id})
			}
		}
		ms = kept
	default:
		ms = w.r.find(text, w.ms[:0])
	}
	w.ms = ms[:0]
	if isKey {
		w.key = append(w.key[:0], text...)
	}
	if len(ms) == 0 {
		return
	}
	// The string's bytes as written but for its secrets: its other
	// escapes stay as they were.
	at := func(n int, up bool) int {
		if !escaped {
			return n
		}
		return jsonx.EscapedOffset(body, n, up)
	}
	w.out = append(w.out, b[w.last:s+1]...)
	last := 0
	for _, m := range ms {
		w.out = append(w.out, body[last:max(last, at(m.start, false))]...)
		w.out = append(w.out, w.r.marker(m.id, text[m.start:m.end])...)
		last = at(m.end, true)
	}
	w.out = append(w.out, body[last:]...)
	w.last, w.changed = e-1, true
}

// keyMayTell reports whether a key holds a trigger of a rule, so that its
// value is read with it.
func (r *Redactor) keyMayTell(key []byte) bool {
	set := &triggers.set
	for i := range key {
		if k := set[pairAt(key, i)]; k != 0 && k != triggers.escape {
			return true
		}
	}
	return false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// Screen returns the Screen (stream.Screen) of one input: it runs Line's
// prefilter (mayHold) on each whole line as the input is read ahead, on
// the read-ahead goroutine, so that the scan of a run's bytes for secrets
// overlaps the decoding and rendering; Event then rewrites only the lines
// it did not find clean. A line longer than maxScreenLine is not screened
// (Event looks at it).
func (r *Redactor) Screen() stream.Screen { return &screen{r: r} }

const maxScreenLine = 1 << 20

type screen struct {
	r *Redactor
	// On the read-ahead goroutine:
	off   int64  // the input's offset of the line being read
	n     int64  // its bytes read so far
	carry []byte // those bytes, unless it is too long to screen

	mu    sync.Mutex
	seen  int64      // the end of the last whole line screened
	dirty [][2]int64 // the lines that may hold a secret, in order: [from, to)
	next  int        // the first of dirty not passed yet (Clean)
}

func (s *screen) Read(b []byte) {
	var dirty [][2]int64
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if s.n+int64(len(b)) <= maxScreenLine {
				s.carry = append(s.carry, b...)
			}
			s.n += int64(len(b))
			break
		}
		line := b[:i]
		s.n += int64(i + 1)
		if len(s.carry) > 0 {
			s.carry = append(s.carry, line...)
			line = s.carry
		}
		if s.n > maxScreenLine+1 || s.r.mayHold(line) {
			dirty = append(dirty, [2]int64{s.off, s.off + s.n})
		}
		s.off, s.n, s.carry = s.off+s.n, 0, s.carry[:0]
		b = b[i+1:]
	}
	s.mu.Lock()
	s.dirty = append(s.dirty, dirty...)
	s.seen = s.off
	s.mu.Unlock()
}

func (s *screen) Clean(from, to int64) bool { return s.clean(&s.next, from, to) }

// clean is Clean with the first of the dirty lines not yet passed at
// *next (a replay keeps its own).
func (s *screen) clean(next *int, from, to int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if to > s.seen {
		return false // not read whole yet (the last line, unended)
	}
	k := *next
	for k < len(s.dirty) && s.dirty[k][1] <= from {
		k++
	}
	*next = k
	return k == len(s.dirty) || s.dirty[k][0] >= to
}

// Screens makes the Screens of one input's passes: the first pass's
// scan, and a second pass over the same input (a markdown report's, after
// its glance's) takes what the first found rather than scanning again.
// An input the first pass did not read whole is looked at again where it
// did not (Clean says no).
type Screens struct {
	r      *Redactor
	made   []*screen // the first pass's, in the order its readers made them
	replay int       // -1: the first pass; else the next of made to replay
}

// Screens returns the Screens of an input's passes.
func (r *Redactor) Screens() *Screens { return &Screens{r: r, replay: -1} }

// Screen is the next Screen of the pass (DecoderOptions.Screen): a
// transcript's reader makes one for its file and one for each subagent's,
// in the same order in every pass.
func (m *Screens) Screen() stream.Screen {
	if m.replay < 0 {
		s := &screen{r: m.r}
		m.made = append(m.made, s)
		return s
	}
	if m.replay >= len(m.made) {
		return m.r.Screen()
	}
	m.replay++
	return &replayed{s: m.made[m.replay-1]}
}

// Again starts the second pass.
func (m *Screens) Again() { m.replay = 0 }

// replayed is a Screen of the first pass, read again.
type replayed struct {
	s    *screen
	next int
}

func (p *replayed) Read([]byte) {}

func (p *replayed) Clean(from, to int64) bool { return p.s.clean(&p.next, from, to) }
