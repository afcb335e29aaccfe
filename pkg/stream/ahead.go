package stream

import (
	"bufio"
	"bytes"
	"errors"
	"io"

	"github.com/ccfilter/ccfilter/internal/readahead"
)

// lineSource is what the Decoder reads its input through: the part of
// bufio.Reader it uses. A *bufio.Reader is the reference; aheadSource is
// the same reading over the buffers a read-ahead goroutine filled.
type lineSource interface {
	io.Reader
	io.ByteScanner
	ReadSlice(delim byte) ([]byte, error)
	Peek(n int) ([]byte, error)
	Discard(n int) (int, error)
	Buffered() int
}

var (
	_ lineSource = (*bufio.Reader)(nil)
	_ lineSource = (*aheadSource)(nil)
)

// aheadSource reads a readahead.Reader's buffers where they were filled,
// instead of copying each into a bufio.Reader's buffer: that copy was a
// memmove of every byte of the input on the decoder's goroutine, a
// quarter of `final`'s time on a file (issue 41). Each buffer has size
// bytes of room in front of the bytes read (readahead.NewHeaded): the
// unread end of a buffer (the head of a line it cut, under size bytes)
// is moved there, in front of the next buffer's bytes, so that a line of
// up to size bytes is always whole in one buffer.
//
// It reads as a bufio.Reader of size bytes would, call for call: the same
// bytes, a line longer than size bytes cut into pieces of size bytes
// (bufio.ErrBufferFull), Peek and Buffered never beyond size bytes, and
// the same errors, so that the Decoder gives the same events and line
// errors whichever it reads through (TestNewReaderMatchesDecoder).
type aheadSource struct {
	ra   *readahead.Reader
	size int
	buf  []byte // the buffer being read (nil before the first)
	r, w int    // its unread bytes are buf[r:w]
	err  error  // the read-ahead's error, once its last buffer came
	// unread: the last call was a ReadByte that UnreadByte may undo.
	unread bool
}

func newAheadSource(ra *readahead.Reader, size int) *aheadSource {
	return &aheadSource{ra: ra, size: size}
}

// fill takes the next buffer read ahead, moves the unread bytes in front
// of its bytes and gives the one before back. The caller checks that no
// error came before (a.err == nil) and that fewer than size bytes are
// unread.
func (a *aheadSource) fill() {
	buf, data, err := a.ra.Next()
	head := cap(buf) - cap(data) // the room in front of data
	u := a.w - a.r
	copy(buf[head-u:head], a.buf[a.r:a.w])
	if a.buf != nil {
		a.ra.Release(a.buf)
	}
	a.buf, a.r, a.w, a.err = buf[:cap(buf)], head-u, head+len(data), err
}

// more fills until at least n bytes are unread, or an error came.
func (a *aheadSource) more(n int) {
	for a.w-a.r < n && a.err == nil {
		a.fill()
	}
}

// ReadSlice is bufio.Reader.ReadSlice.
func (a *aheadSource) ReadSlice(delim byte) ([]byte, error) {
	a.unread = false
	from := 0 // where the search goes on: the bytes before have no delim
	for {
		un := a.buf[a.r:a.w]
		if i := bytes.IndexByte(un[from:min(len(un), a.size)], delim); i >= 0 {
			a.r += from + i + 1
			return un[:from+i+1], nil
		}
		if len(un) >= a.size {
			a.r += a.size
			return un[:a.size], bufio.ErrBufferFull
		}
		if a.err != nil {
			a.r = a.w
			return un, a.err
		}
		from = len(un)
		a.fill()
	}
}

// Peek is bufio.Reader.Peek.
func (a *aheadSource) Peek(n int) ([]byte, error) {
	a.unread = false
	if n < 0 {
		return nil, bufio.ErrNegativeCount
	}
	a.more(min(n, a.size))
	un := a.buf[a.r:a.w]
	if n > a.size {
		return un[:min(len(un), a.size)], bufio.ErrBufferFull
	}
	if len(un) < n {
		err := a.err
		if err == nil {
			err = bufio.ErrBufferFull
		}
		return un, err
	}
	return un[:n], nil
}

// Discard is bufio.Reader.Discard.
func (a *aheadSource) Discard(n int) (int, error) {
	a.unread = false
	done := 0
	for done < n {
		if a.r == a.w {
			if a.err != nil {
				return done, a.err
			}
			a.fill()
			continue
		}
		k := min(n-done, a.w-a.r)
		a.r += k
		done += k
	}
	return done, nil
}

// Buffered is bufio.Reader.Buffered: never more than size bytes.
func (a *aheadSource) Buffered() int { return min(a.w-a.r, a.size) }

// Read is bufio.Reader.Read.
func (a *aheadSource) Read(p []byte) (int, error) {
	a.unread = false
	if len(p) == 0 {
		return 0, nil
	}
	if a.r == a.w {
		if a.err != nil {
			return 0, a.err
		}
		a.fill()
	}
	n := copy(p, a.buf[a.r:a.w])
	a.r += n
	return n, nil
}

// ReadByte is bufio.Reader.ReadByte.
func (a *aheadSource) ReadByte() (byte, error) {
	a.unread = false
	a.more(1)
	if a.r == a.w {
		return 0, a.err
	}
	c := a.buf[a.r]
	a.r++
	a.unread = true
	return c, nil
}

var errUnreadByte = errors.New("stream: UnreadByte not after ReadByte")

// UnreadByte is bufio.Reader.UnreadByte (after a ReadByte only: the byte
// read is still in front of the unread ones, whatever fill did after).
func (a *aheadSource) UnreadByte() error {
	if !a.unread || a.r == 0 {
		return errUnreadByte
	}
	a.unread = false
	a.r--
	return nil
}
