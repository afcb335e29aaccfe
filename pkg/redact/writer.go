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
	cut := bytes.LastIndexByte(p, '\n') + 1
	if cut == 0 {
		w.pending = append(w.pending, p...)
		if len(w.pending) > holdMax {
			// A line too long to hold: all but its end, where a secret
			// may be cut.
			w.keep(w.emit(w.pending[:len(w.pending)-holdTail]), w.pending[len(w.pending)-holdTail:])
		}
		return n, w.err
	}
	region := p[:cut]
	if len(w.pending) > 0 {
		w.pending = append(w.pending, region...)
		region = w.pending
	}
	w.keep(w.emit(region), p[cut:])
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
	if k := openPEM(b); k >= 0 && len(b)-k < holdMax {
		b, held = b[:k], b[k:]
	}
	w.write(b)
	return held
}

// write redacts b and writes it on.
func (w *Writer) write(b []byte) {
	w.out = w.r.Append(w.out[:0], b)
	_, w.err = w.w.Write(w.out)
	if cap(w.out) > 4*holdMax {
		w.out = nil
	}
}

// openPEM returns where b starts a private key's block it does not end,
// or -1.
func openPEM(b []byte) int {
	for off := 0; ; {
		k := bytes.Index(b[off:], []byte(pemBegin))
		if k < 0 {
			return -1
		}
		start := off + k
		if !bytes.Contains(b[start:], []byte(pemEnd)) {
			return start
		}
		off = start + len(pemBegin)
	}
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
