package stream

import (
	"io"
	"os"
	"runtime"
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
// bytes: only when they are read differs, and that a file read ahead is
// read where the read-ahead goroutine put it (aheadSource), not copied
// once more into the Decoder's own buffer. docs/performance.md has the
// figures behind the rule (final 1.2x faster on a file of real runs; a
// pipe's writer already reads on another CPU). A regular file is screened
// (DecoderOptions.Screen) either way: on one CPU as the Decoder reads it,
// so that a second pass over the file (a markdown report after its
// glance) takes the first's verdicts there too rather than looking at
// every line again.
func NewReader(r io.Reader, opts DecoderOptions) Reader {
	f, ok := r.(*os.File)
	if !ok || (opts.Screen == nil && runtime.GOMAXPROCS(0) == 1) {
		return NewDecoder(r, opts)
	}
	fi, err := f.Stat()
	pos, serr := f.Seek(0, io.SeekCurrent) // before the goroutine reads
	if err != nil || serr != nil || !fi.Mode().IsRegular() {
		return NewDecoder(r, opts)
	}
	var screen Screen
	var watch func([]byte)
	if opts.Screen != nil {
		screen = opts.Screen()
		watch = screen.Read
	}
	var d *Decoder
	if runtime.GOMAXPROCS(0) > 1 && opts.Buffer == nil && opts.BufferSize <= maxAheadBufferSize {
		// The decoder reads the read-ahead's buffers where they were
		// filled (aheadSource), not through a copy into a bufio.Reader.
		if opts.BufferSize <= 0 {
			opts.BufferSize = aheadBufferSize
		}
		opts.setDefaults()
		a := newAheadSource(f, opts.BufferSize, opts.Check, opts.ValidateAhead, watch)
		d = newDecoder(a, opts)
		d.ahead, d.closer = a, a
	} else {
		d = NewDecoder(watched{f, watch}, opts)
	}
	d.screen = screen
	d.ra, d.raAt = f, pos // long lines are still sized in the file
	return d
}

// watched is a reader whose bytes watch sees as they are read, on the
// reader's goroutine (readahead.New's read, without the goroutine).
type watched struct {
	r     io.Reader
	watch func([]byte)
}

func (w watched) Read(b []byte) (int, error) {
	n, err := w.r.Read(b)
	if n > 0 {
		w.watch(b[:n])
	}
	return n, err
}

// A Screen looks at an input's bytes on the read-ahead goroutine, ahead of
// the decoder, for what a stage after it would otherwise look for in each
// line on the decoder's goroutine (the redaction's scan for secrets): so
// that the two overlap (on one CPU, it is given them as the decoder reads
// them). DecoderOptions.Screen makes one for each regular file NewReader
// reads; the events of a line it found clean say so (Event.Screened).
type Screen interface {
	// Read is given each buffer of the input, in order, on the read-ahead
	// goroutine, before the decoder reads it. It must not keep it.
	Read(b []byte)
	// Clean reports, on the decoder's goroutine, whether the input's
	// bytes [from, to) (offsets from where the reading began) were read
	// and hold nothing the screen looks for; from grows from call to call.
	Clean(from, to int64) bool
}

// aheadBufferSize is the size of the read-ahead's buffers, each with as
// much room in front (aheadSource), eight of them in flight: 8 MiB in all,
// where buffers of defaultBufferSize would make 16 (a line longer than a
// buffer is read as the Decoder reads any long line).
const aheadBufferSize = 512 << 10

// maxAheadBufferSize bounds a buffer the read-ahead takes (a caller's
// DecoderOptions.BufferSize): the framer's tables hold offsets in a
// buffer, with its room in front, as int32.
const maxAheadBufferSize = 1 << 29
