// Package readahead reads an io.Reader on a goroutine of its own, buffers
// ahead of its consumer, so that the copying of the read calls (a third of
// ccfilter's time on a file in the page cache) overlaps the consumer's
// work on another CPU.
//
// It changes when the bytes are read, never which: a Reader hands over
// exactly the bytes, and then the error, that the underlying reader
// returned.
package readahead

import (
	"io"
	"sync"
)

// Reader hands over the buffers it read, in order (Next). Close it when
// done before the end of the input, or its goroutines wait for a free
// buffer forever.
type Reader struct {
	bufs [][]byte   // the buffers, each head+size bytes
	full chan chunk // read buffers, in order
	free chan int   // consumed buffers, to read into again
	stop chan struct{}
	once sync.Once
	done sync.WaitGroup // the goroutines, which Close waits for
	head int            // room left free before the bytes read into each buffer
	// read, when set, looks at each buffer read on the reading goroutine,
	// watch on a goroutine of its own after it, before it is handed over
	// (New's read and look).
	read  func(b []byte)
	watch func(id int, b []byte)
}

type chunk struct {
	id  int    // the buffer
	b   []byte // the bytes read: bufs[id][head:head+n]
	err error
}

// New returns a Reader that reads r in reads of size bytes into buffers
// (at least 2) with head bytes of room in front of the bytes read into
// each, for a consumer of whole buffers (Next) that moves the unread end
// of one buffer in front of the next instead of copying every byte out (a
// line cut by the end of a buffer is made whole by copying its head, not
// the buffers). read, when set, is called with each buffer read, in
// order, on the reading goroutine: work on the input's bytes that then
// overlaps the consumer's (the redaction's scan for secrets). look, when
// set, is given each buffer after read, on a goroutine of its own between
// the reading one and the consumer (a pipeline of three: the read calls'
// copying, look's work and the consumer's overlap), and told which buffer
// it looks at (its id, as Next hands it over), so that what it finds
// there can be kept beside the buffer for its consumer; buffers should
// then be at least 4 (one read into, one looked at, and the consumer's,
// with the one before while it moves a cut line). Neither may keep the
// buffer.
func New(r io.Reader, size, head, buffers int, read func([]byte), look func(id int, b []byte)) *Reader {
	buffers = max(buffers, 2)
	ra := &Reader{
		bufs:  make([][]byte, buffers),
		full:  make(chan chunk, buffers),
		free:  make(chan int, buffers),
		stop:  make(chan struct{}),
		head:  head,
		read:  read,
		watch: look,
	}
	for id := range buffers {
		ra.bufs[id] = make([]byte, head+size)
		ra.free <- id
	}
	if look == nil {
		ra.done.Go(func() { ra.fill(r, ra.full) })
		return ra
	}
	in := make(chan chunk, len(ra.bufs))
	ra.done.Go(func() { ra.fill(r, in) })
	ra.done.Go(func() { ra.look(in) })
	return ra
}

// fill is the reading goroutine: it reads into free buffers until an error
// (io.EOF included), which it passes on to out after the bytes read
// before it.
func (ra *Reader) fill(r io.Reader, out chan<- chunk) {
	for {
		var id int
		select {
		case id = <-ra.free:
		case <-ra.stop:
			return
		}
		b := ra.bufs[id][ra.head:]
		n, err := r.Read(b)
		if n > 0 && ra.read != nil {
			ra.read(b[:n])
		}
		if n > 0 || err != nil {
			select {
			case out <- chunk{id, b[:n], err}:
			case <-ra.stop:
				return
			}
			if err != nil {
				return
			}
			continue
		}
		ra.free <- id // (0, nil): try again
	}
}

// look is New's looking goroutine: it hands each buffer read on to
// the consumer, in order, once watch has looked at it.
func (ra *Reader) look(in <-chan chunk) {
	for {
		var c chunk
		select {
		case c = <-in:
		case <-ra.stop:
			return
		}
		if len(c.b) > 0 {
			ra.watch(c.id, c.b)
		}
		select {
		case ra.full <- c:
		case <-ra.stop:
			return
		}
		if c.err != nil {
			return
		}
	}
}

// Next hands over the next buffer read, waiting for it: its id, the bytes
// read (Buffer(id)[head:head+len(data)]), and the underlying reader's
// error after them (io.EOF at the end; it is passed on once, and Next
// must not be called after it). The consumer owns the buffer until it
// gives it back with Release, which it must do before it asks for the
// buffer after next: the reading goroutine reads into the buffers given
// back.
func (ra *Reader) Next() (id int, data []byte, err error) {
	c := <-ra.full
	return c.id, c.b, c.err
}

// Buffer returns buffer id whole, its room in front included.
func (ra *Reader) Buffer(id int) []byte { return ra.bufs[id] }

// Release gives a buffer Next handed over back, to read into again.
func (ra *Reader) Release(id int) { ra.free <- id }

// Close stops the goroutines and waits for them to end (the reading one
// once its current read returns), so that nothing of the Reader runs on
// after it. It does not close the underlying reader.
func (ra *Reader) Close() error {
	ra.once.Do(func() { close(ra.stop) })
	ra.done.Wait()
	return nil
}
