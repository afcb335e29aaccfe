package stream

// Reader yields the events of one input in order. Decoder is the
// reference implementation, and the only one today: one bufio.Reader, no
// goroutines. A faster Reader (reading ahead, or cutting lines on other
// goroutines) plugs in behind this interface, and must return the same
// events and errors, byte for byte, as a Decoder with the same options;
// docs/performance.md says why none is used yet.
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
