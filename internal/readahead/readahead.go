// Package readahead reads an io.Reader on a goroutine of its own, a buffer
// ahead of its consumer, so that the copying of the read calls (a third of
// ccfilter's time on a file in the page cache) overlaps the consumer's
// work on another CPU.
//
// It changes when the bytes are read, never which: a Reader returns exactly
// the bytes, and then the error, that the underlying reader returned.
package readahead

import (
	"io"
	"sync"
)

// Reader is an io.Reader that reads ahead. Close it when done before the
// end of the input, or its goroutine waits for a free buffer forever.
type Reader struct {
	full chan chunk  // read buffers, in order
	free chan []byte // consumed buffers, to read into again
	stop chan struct{}
	once sync.Once
	head int // room left free before the bytes read into each buffer (NewHeaded)
	// watch, when set, looks at each buffer read on the reading
	// goroutine, before it is handed over (NewWatched).
	watch func([]byte)

	cur  []byte // the unread rest of the buffer being consumed
	back []byte // that buffer whole, to give back
	err  error  // the underlying reader's error, after the last chunk
}

type chunk struct {
	buf []byte // the whole buffer, to give back
	b   []byte // the bytes read: buf[head:head+n]
	err error
}

// New returns a Reader that reads r in reads of size bytes, holding at most
// buffers of them (at least 2: the one consumed and the one being read).
func New(r io.Reader, size, buffers int) *Reader { return NewWatched(r, size, buffers, nil) }

// NewWatched is New with watch called, on the reading goroutine, with each
// buffer read, in order, before its consumer can read it: work on the
// input's bytes that then overlaps the consumer's (the redaction's scan
// for secrets). watch must not keep the buffer.
func NewWatched(r io.Reader, size, buffers int, watch func([]byte)) *Reader {
	return NewHeaded(r, size, 0, buffers, watch)
}

// NewHeaded is NewWatched with head bytes of room before the bytes read
// into each buffer, for a consumer of whole buffers (Next) that moves the
// unread end of one buffer in front of the next instead of copying every
// byte out: a line cut by the end of a buffer is made whole again by
// copying its head, not the buffers.
func NewHeaded(r io.Reader, size, head, buffers int, watch func([]byte)) *Reader {
	buffers = max(buffers, 2)
	ra := &Reader{
		full:  make(chan chunk, buffers),
		free:  make(chan []byte, buffers),
		stop:  make(chan struct{}),
		watch: watch,
		head:  head,
	}
	for range buffers {
		ra.free <- make([]byte, head+size)
	}
	go ra.fill(r)
	return ra
}

// fill is the reading goroutine: it reads into free buffers until an error
// (io.EOF included), which it passes on after the bytes read before it.
func (ra *Reader) fill(r io.Reader) {
	for {
		var b []byte
		select {
		case b = <-ra.free:
		case <-ra.stop:
			return
		}
		b = b[:cap(b)]
		n, err := r.Read(b[ra.head:])
		if n > 0 && ra.watch != nil {
			ra.watch(b[ra.head : ra.head+n])
		}
		if n > 0 || err != nil {
			select {
			case ra.full <- chunk{b, b[ra.head : ra.head+n], err}:
			case <-ra.stop:
				return
			}
			if err != nil {
				return
			}
			continue
		}
		ra.free <- b // (0, nil): try again
	}
}

// Read reads from the buffers read ahead, waiting for one when none is.
func (ra *Reader) Read(p []byte) (int, error) {
	for len(ra.cur) == 0 {
		if ra.err != nil {
			return 0, ra.err
		}
		if ra.back != nil {
			ra.Release(ra.back)
			ra.back = nil
		}
		c := <-ra.full
		ra.cur, ra.back, ra.err = c.b, c.buf, c.err
	}
	n := copy(p, ra.cur)
	ra.cur = ra.cur[n:]
	return n, nil
}

// Next hands over the next buffer read, waiting for it: buf is the whole
// buffer, data its bytes read (buf[head:head+len(data)], NewHeaded's
// head), err the underlying reader's error after them (io.EOF at the
// end; it is passed on once, and Next must not be called after it).
// The consumer owns buf until it gives it back with Release, which it
// must do before it asks for the buffer after next: the reading goroutine
// reads into the buffers given back. A Reader is read either by Read or
// by Next, not both.
func (ra *Reader) Next() (buf, data []byte, err error) {
	c := <-ra.full
	return c.buf, c.b, c.err
}

// Release gives a buffer Next handed over back, to read into again.
func (ra *Reader) Release(buf []byte) {
	ra.free <- buf[:0]
}

// Close stops the reading goroutine (once its current read returns). It
// does not close the underlying reader.
func (ra *Reader) Close() error {
	ra.once.Do(func() { close(ra.stop) })
	return nil
}
