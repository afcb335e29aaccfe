package render

import (
	"bufio"
	"io"
)

// out is the buffered writer every renderer owns. It keeps the first write
// error: after it, writes are dropped and every method reports it, so a
// renderer can write a whole record and check once.
type out struct {
	w   *bufio.Writer
	err error
	esc [6]byte // a \u escape being written (safe)
	// term is what becomes of the characters a terminal would act on
	// (C0 controls but newline and tab, DEL, C1 controls, bidi controls,
	// line separators; invalid UTF-8 becomes \ufffd): kept (keepControls)
	// but where the formats that write the stream's bytes (NDJSON, CSV,
	// JSON, raw strings) write to a terminal, which escape them as JSON
	// does, keeping a JSON value the same (jsonControls for JSON text,
	// escapeControls for the rest). To pipes and files they write byte for
	// byte.
	term controls
	// verbatim writes JSON strings as they are (safe): for a view that
	// escapes what it writes its own way (HTML).
	verbatim bool
}

func newOut(w io.Writer) out { return out{w: bufio.NewWriterSize(w, 64<<10)} }

// newByteOut is newOut for a format that writes the stream's bytes, as
// JSON text or not.
func newByteOut(w io.Writer, o Options, jsonText bool) out {
	b := newOut(w)
	switch {
	case !o.Terminal:
	case jsonText:
		b.term = jsonControls
	default:
		b.term = escapeControls
	}
	return b
}

func (o *out) str(s string) {
	if o.term != keepControls {
		o.escaped([]byte(s), o.term)
		return
	}
	if o.err == nil {
		_, o.err = o.w.WriteString(s)
	}
}

func (o *out) bytes(b []byte) {
	if o.term != keepControls {
		o.escaped(b, o.term)
		return
	}
	o.raw(b)
}

func (o *out) raw(b []byte) {
	if o.err == nil {
		_, o.err = o.w.Write(b)
	}
}

func (o *out) byte(c byte) {
	if o.term != keepControls && (c < 0x20 && c != '\n' && c != '\t' || c == 0x7f) {
		o.escaped([]byte{c}, o.term)
		return
	}
	if o.err == nil {
		o.err = o.w.WriteByte(c)
	}
}

// escaped writes b with the escapes of jsonSafe (and what ctl says of C0
// controls), without a copy of it.
func (o *out) escaped(b []byte, ctl controls) {
	for len(b) > 0 {
		keep, repl, rest := jsonSafeStep(b, &o.esc, ctl) // (o's own: a local array would escape to the heap through Write)
		o.raw(keep)
		o.raw(repl)
		b = rest
	}
}

// Write makes out an io.Writer (for encoding/csv and encoding/json).
func (o *out) Write(b []byte) (int, error) {
	o.bytes(b)
	if o.err != nil {
		return 0, o.err
	}
	return len(b), nil
}

// Flush writes the buffer out.
func (o *out) Flush() error {
	if o.err == nil {
		o.err = o.w.Flush()
	}
	return o.err
}

// boundedMap is a map that forgets its oldest half when full: lookups see
// the current and the previous generation, so recent entries survive and
// memory stays below 2×max entries whatever the input.
type boundedMap[K comparable, V any] struct {
	max      int
	cur, old map[K]V
}

func newBoundedMap[K comparable, V any](max int) *boundedMap[K, V] {
	return &boundedMap[K, V]{max: max, cur: map[K]V{}}
}

func (m *boundedMap[K, V]) get(k K) (V, bool) {
	if v, ok := m.cur[k]; ok {
		return v, true
	}
	v, ok := m.old[k]
	return v, ok
}

func (m *boundedMap[K, V]) put(k K, v V) {
	if _, ok := m.cur[k]; !ok && len(m.cur) >= m.max {
		m.old, m.cur = m.cur, make(map[K]V, m.max)
	}
	m.cur[k] = v
}
