// Package writebehind hands what is written to a goroutine that writes it
// on, so that the work of the writer underneath (redacting the output)
// runs beside the work of producing it, on another core.
//
// It is the optional fast component of a writer stage: the plain stage is
// the writer underneath, used alone on one CPU; this one writes the same
// bytes in the same order (the differential test proves it).
package writebehind

import (
	"io"
	"sync"
)

// Flusher is a writer that holds bytes back until Flush.
type Flusher interface {
	io.Writer
	Flush() error
}

// Writer writes behind: Write copies p and returns; Flush waits until all
// that was written is written on, and flushes the writer underneath.
type Writer struct {
	ch   chan chunk
	pool sync.Pool
	done chan error // a Flush's answer
	mu   sync.Mutex
	err  error // the first error underneath, seen by the next Write or Flush
}

type chunk struct {
	b     *[]byte
	flush bool
}

// depth is how many chunks may wait: enough to keep the writer underneath
// busy, few enough to bound memory (chunks are a bufio.Writer's, 64 KiB).
const depth = 16

// chunkSize is the most one chunk holds.
const chunkSize = 64 << 10

// New starts the goroutine writing to w. Close ends it.
func New(w Flusher) *Writer {
	wb := &Writer{ch: make(chan chunk, depth), done: make(chan error)}
	wb.pool.New = func() any { b := make([]byte, 0, chunkSize); return &b }
	go wb.loop(w)
	return wb
}

func (wb *Writer) loop(w Flusher) {
	var err error
	for c := range wb.ch {
		if c.flush {
			if err == nil {
				err = w.Flush()
			}
			wb.done <- err
			continue
		}
		if err == nil {
			_, err = w.Write(*c.b)
		}
		*c.b = (*c.b)[:0]
		wb.pool.Put(c.b)
		if err != nil {
			wb.mu.Lock()
			wb.err = err
			wb.mu.Unlock()
		}
	}
	close(wb.done)
}

func (wb *Writer) Write(p []byte) (int, error) {
	wb.mu.Lock()
	err := wb.err
	wb.mu.Unlock()
	if err != nil {
		return 0, err
	}
	// In pieces of a pooled buffer's size, so that a long line written in
	// one call does not make every buffer of the pool that long.
	for rest := p; len(rest) > 0; {
		n := min(len(rest), chunkSize)
		b := wb.pool.Get().(*[]byte)
		*b = append((*b)[:0], rest[:n]...)
		wb.ch <- chunk{b: b}
		rest = rest[n:]
	}
	return len(p), nil
}

// Flush waits until everything written is written on and flushed.
func (wb *Writer) Flush() error {
	wb.ch <- chunk{flush: true}
	return <-wb.done
}

// Close flushes and ends the goroutine.
func (wb *Writer) Close() error {
	err := wb.Flush()
	close(wb.ch)
	<-wb.done
	return err
}
