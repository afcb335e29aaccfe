package redact

import (
	"bytes"
	"io"
)

// Writer redacts what is written through it before it reaches w. Secrets
// do not span lines (but for a private key, whose block the scanner reads
// across lines), so it redacts up to the last line break written and
// holds the rest; Flush and Close redact and write everything held. A
// line longer than holdMax is redacted but for its last holdTail bytes,
// so memory stays bounded whatever the output.
type Writer struct {
	w       io.Writer
	r       *Redactor
	pending []byte
	spare   []byte // the next pending
	out     []byte
	ms      []match
	err     error
}

const (
	holdMax  = 1 << 20
	holdTail = 32 << 10 // longer than any secret a rule finds but a private key's
)

// NewWriter returns a Writer redacting with r into w.
func NewWriter(w io.Writer, r *Redactor) *Writer { return &Writer{w: w, r: r} }

func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	n := len(p)
	cut := lastNewline(p) + 1
	if cut == 0 {
		w.pending = append(w.pending, p...)
		if len(w.pending) > holdMax {
			// A line too long to hold: all but its end, where a secret
			// may be cut.
			w.keep(w.emit(w.pending[:len(w.pending)-holdTail]), w.pending[len(w.pending)-holdTail:])
		}
		return n, w.err
	}
	if len(w.pending) > 0 {
		// Only the line the pending bytes end is joined to them (a copy
		// of a few bytes); the lines after it are redacted where they are.
		first := bytes.IndexByte(p[:cut], '\n') + 1
		w.pending = append(w.pending, p[:first]...)
		if held := w.emit(w.pending); len(held) > 0 {
			// A private key's block is open: it and what follows wait
			// together (rare).
			w.keep(held, p[first:])
			return n, w.err
		}
		w.pending = w.pending[:0]
		p, cut = p[first:], cut-first
	}
	w.keep(w.emit(p[:cut]), p[cut:])
	return n, w.err
}

// keep makes held and then rest the bytes held (either may alias pending).
func (w *Writer) keep(held, rest []byte) {
	w.spare = append(append(w.spare[:0], held...), rest...)
	w.pending, w.spare = w.spare, w.pending
}

// emit redacts and writes b but for a private key's block that b starts
// and does not end, which it returns to be held until its end is written.
func (w *Writer) emit(b []byte) (held []byte) {
	if w.err != nil || len(b) == 0 {
		return nil
	}
	ms := w.r.find(b, w.ms[:0])
	if n := len(ms); n > 0 && openPEM(b, ms[n-1]) {
		b, held = b[:ms[n-1].start], b[ms[n-1].start:]
		ms = ms[:n-1]
	}
	w.send(b, ms)
	return held
}

// write redacts b whole (an open private key's block too) and writes it
// on.
func (w *Writer) write(b []byte) { w.send(b, w.r.find(b, w.ms[:0])) }

// send writes b on with its secrets ms (find's) replaced.
func (w *Writer) send(b []byte, ms []match) {
	w.ms = ms[:0]
	if len(ms) == 0 {
		// Most of a run holds no secret: b goes out as it is.
		_, w.err = w.w.Write(b)
		return
	}
	w.out = w.r.replace(w.out[:0], b, ms)
	_, w.err = w.w.Write(w.out)
	if cap(w.out) > 4*holdMax {
		w.out = nil
	}
}

// openPEM reports whether m, the last secret of b, is a private key's
// block cut short at b's end (its body runs to the end, and its END line
// is not there yet): the rest of it is still to be written.
func openPEM(b []byte, m match) bool {
	return m.id == "private-key" && m.end == len(b) && len(b)-m.start < holdMax &&
		!bytes.Contains(b[m.start:], []byte(pemEnd))
}

// Flush redacts and writes everything held: what was written is then out.
func (w *Writer) Flush() error {
	if w.err == nil && len(w.pending) > 0 {
		w.write(w.pending)
		w.pending = w.pending[:0]
	}
	return w.err
}

// Close is Flush.
func (w *Writer) Close() error { return w.Flush() }

// lastNewline is bytes.LastIndexByte(p, '\n'), which is a loop over single
// bytes, while IndexByte runs on vectors: a write of a bufio.Writer ends
// inside a line, as often as not a long one (a tool's output), so it
// looks forward through stretches from the end.
func lastNewline(p []byte) int {
	for end := len(p); end > 0; {
		start := max(0, end-4096)
		last := -1
		for k := start; ; {
			j := bytes.IndexByte(p[k:end], '\n')
			if j < 0 {
				break
			}
			last = k + j
			k = last + 1
		}
		if last >= 0 {
			return last
		}
		end = start
	}
	return -1
}
