package render

import (
	"bytes"
	"io"
	"os"
)

// agentBox is a subagent's part of the HTML page, held until the Agent
// call that started it returns (the page nests it there). A subagent can
// write megabytes before that, so past boxMemory bytes its block goes on
// in a temporary file of its own (removed as soon as it is made: nothing
// is left behind, even if the process is killed), and memory stays
// bounded whatever the subagents write. Without a temporary directory it
// stays in memory; the renderer then writes the largest box where it
// stands past htmlHeldBytes.
type agentBox struct {
	buf     bytes.Buffer
	spill   *os.File // what came before buf, when it outgrew boxMemory
	spilled int64
}

// boxMemory is what a box holds in memory before it goes to its file.
const boxMemory = 256 << 10

// Write adds p to the box.
func (b *agentBox) Write(p []byte) (int, error) {
	b.buf.Write(p)
	b.overflow()
	return len(p), nil
}

// WriteString adds s to the box.
func (b *agentBox) WriteString(s string) {
	b.buf.WriteString(s)
	b.overflow()
}

func (b *agentBox) overflow() {
	if b.buf.Len() < boxMemory {
		return
	}
	if b.spill == nil {
		f, err := os.CreateTemp("", "ccfilter-html-*")
		if err != nil {
			return // kept in memory (see htmlRenderer.hold)
		}
		os.Remove(f.Name()) // open, and gone from the directory
		b.spill = f
	}
	n, err := b.spill.Write(b.buf.Bytes())
	b.spilled += int64(n)
	if err == nil {
		b.buf.Reset()
	}
}

// Len is what the box holds.
func (b *agentBox) Len() int64 { return b.spilled + int64(b.buf.Len()) }

// inMemory is what the box holds in memory.
func (b *agentBox) inMemory() int { return b.buf.Len() }

// copyTo writes what the box holds to w, and empties it.
func (b *agentBox) copyTo(w io.Writer) error {
	if b.spill != nil {
		if _, err := b.spill.Seek(0, io.SeekStart); err != nil {
			return err
		}
		if _, err := io.CopyN(w, b.spill, b.spilled); err != nil {
			return err
		}
		b.spill.Close()
		b.spill, b.spilled = nil, 0
	}
	_, err := w.Write(b.buf.Bytes())
	b.buf.Reset()
	return err
}

// close lets go of the box's file.
func (b *agentBox) close() {
	if b.spill != nil {
		b.spill.Close()
		b.spill = nil
	}
}
