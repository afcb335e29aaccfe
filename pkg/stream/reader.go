package stream

import (
	"io"
	"os"
	"runtime"

	"github.com/ccfilter/ccfilter/internal/readahead"
)

// Reader yields the events of one input in order. Decoder is the
// reference implementation. A faster way of reading plugs in behind this
// interface and must return the same events and errors, byte for byte, as
// a Decoder with the same options.
type Reader interface {
	// Next returns the next event, valid until the following call; io.EOF
	// at the end. A *SyntaxError or *LineTooLongError concerns one line
	// (IsLineError), and the next call goes on; any other error is final.
	Next() (*Event, error)
	// Buffered reports whether Next can return without waiting for input,
	// so that a live consumer flushes its output just before it would.
	Buffered() bool
	// Close releases what the Reader holds (not the underlying input).
	Close() error
}

var _ Reader = (*Decoder)(nil)

// NewReader returns the Reader for the input r, chosen by one rule: a
// regular file, with more than one CPU, is read ahead on a goroutine of
// its own (internal/readahead), so that the copying of its read calls
// overlaps the decoding; anything else, and every input on one CPU, is
// read by the Decoder alone. Both are the same Decoder, fed the same
// bytes: only when they are read differs. docs/performance.md has the
// figures behind the rule (final 1.2x faster on a file of real runs; a
// pipe's writer already reads on another CPU).
func NewReader(r io.Reader, opts DecoderOptions) Reader {
	if f, ok := r.(*os.File); ok && runtime.GOMAXPROCS(0) > 1 {
		fi, err := f.Stat()
		pos, serr := f.Seek(0, io.SeekCurrent) // before the goroutine reads
		if err == nil && serr == nil && fi.Mode().IsRegular() {
			ra := readahead.New(f, readAheadSize, 2)
			d := NewDecoder(ra, opts)
			d.ra, d.raAt = f, pos // long lines are still sized in the file
			d.closer = ra
			return d
		}
	}
	return NewDecoder(r, opts)
}

// readAheadSize is the size of the read-ahead buffers: the Decoder's own
// read size, so that each of its reads takes one whole buffer.
const readAheadSize = defaultBufferSize
