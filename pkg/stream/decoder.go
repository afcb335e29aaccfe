package stream

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ccfilter/ccfilter/internal/jsonx"
)

// DefaultMaxLineBytes is the line cap when DecoderOptions.MaxLineBytes is 0.
// Real tool results reach tens of megabytes; a gigabyte is far past any
// legitimate line and still keeps a runaway producer from eating all memory.
const DefaultMaxLineBytes = 1 << 30

// defaultBufferSize is the read buffer. A real run's lines are short (p50
// 195 B, p99 34 KB on 60-long-session), so nearly every line is returned
// from the buffer without a copy; a longer line is copied out once. Reads of
// 1 MiB keep the syscalls few without holding much.
const defaultBufferSize = 1 << 20

// EndsHead and EndsTail are how much of a long line's start and end make
// its ends (DecoderOptions.Ends): more than a transcript's readers look at
// (a record's type and time in its first 512 bytes and its last KiB).
const (
	EndsHead = 4 << 10
	EndsTail = 4 << 10
)

// DecoderOptions configure a Decoder. The zero value is ready to use.
type DecoderOptions struct {
	// Source names the input in errors and events ("<stdin>", a file name).
	Source string
	// MaxLineBytes caps one line (one array element in JSON-array input);
	// 0 means DefaultMaxLineBytes. A longer line is skipped and reported as a
	// *LineTooLongError; reading goes on with the next line.
	MaxLineBytes int
	// BufferSize is the size of the read buffer; 0 means 1 MiB.
	BufferSize int
	// Buffer, when set, is the read buffer, reset onto the input (its size
	// is BufferSize's): a caller that reads many inputs one after the
	// other reuses one buffer instead of allocating one each (a tree of
	// sessions: a new buffer per file made the collector run every few
	// files). The Decoder is then the buffer's until it is done.
	Buffer *bufio.Reader
	// Scratch, when set, holds the buffers of lines longer than the read
	// buffer, kept from input to input as Buffer is: in a tree of
	// sessions, a fresh one for each file with a line of a few MB was
	// three quarters of the bytes usage --by day allocated, each zeroed
	// and collected (issue 41). Its memory stays at the longest line read
	// (and its look-ahead's 256 KiB) until the caller drops it.
	Scratch *Scratch
	// Want, when set, sees each line's bytes before anything else is done
	// with it: a line it turns down is passed over unread (not checked,
	// not classified; its line number still counts). For a consumer that
	// knows from cheap signs which lines it needs (a usage account: the
	// lines that say "type":"assistant" or a cost-state), so that it pays
	// for reading only those. Lines of a JSON array are not offered to it.
	Want func(line []byte) bool
	// Ends, when set with Want, lets the Decoder pass over a line longer
	// than its read buffer, in a regular file it reads itself (NewDecoder;
	// not NewReader's read-ahead, nor a pipe), without keeping the line:
	// half of a tree of sessions' bytes are a few tools' results, in
	// lines of megabytes that no account reads, and each was copied whole
	// into the long lines' buffer only for Want to turn it down (issue
	// 41). Ends(head) says whether the line's ends tell what Want says of
	// it, head being its first bytes (the read buffer's); if so, the
	// Decoder finds the line's end by reads that keep nothing but its
	// last EndsTail bytes, and asks Want of its ends, a line made of its
	// first EndsHead bytes and those last ones (trimmed as every line is;
	// a line that ends in more than 64 blanks is read whole), to which
	// Want must answer what it would of the whole line. A line Want takes
	// is then read whole (and not offered again); one it turns down is
	// passed over by a seek, its number counted. The first line offered
	// to Want is always read whole (a reader tells what kind of file it
	// is reading by it), and a line of more than MaxLineBytes is reported
	// as ever.
	Ends func(head []byte) bool
	// Check says how much of each line Next validates; the zero value,
	// CheckAll, validates every byte.
	Check Check
	// Prepare, when set, is called on each event as it is decoded. An
	// error it returns (a *SyntaxError, as ValidateValue's) is returned by
	// Next in the event's place. For consumers that hand events to jq
	// (building their trees is most of their work): a Reader that decoded
	// on other goroutines could do it there, so it must be safe to call
	// from several goroutines at once.
	Prepare func(*Event) error
	// Screen, when set, makes a Screen for each regular file NewReader
	// reads (on the read-ahead goroutine with more than one CPU, as the
	// Decoder reads on one); the events of the lines it finds clean say
	// so (Event.Screened) before Prepare sees them. Other inputs are not
	// screened.
	Screen func() Screen
	// Spellings, when set, are the input kind's own names for fields the
	// core reads by the stream's name (see Spellings).
	Spellings Spellings
	// Cut, when set, reports at the input's end whether its reader cut it
	// (Ctrl-C under --follow) rather than the input ending: a reader then
	// makes nothing of its own for the end (a transcript's result says a
	// session ended, which it has not).
	Cut func() bool
	// Kinds are the kinds of events the consumer reads (Needs.Kinds;
	// empty: all), for a Reader that makes events of another agent's
	// records: it may make none of the other kinds. A Decoder hands out
	// every line whatever this says.
	Kinds KindSet
	// NoEcho says the consumer prints no event's own input lines (Echo:
	// only NDJSON does): a Reader that gathers the lines an event stands
	// for (a Gemini CLI turn's pieces, for its text event) need not keep
	// them. The events are the same either way.
	NoEcho bool
	// ValidateAhead says the consumer validates in full nearly every
	// assistant event it reads, and the inits and results
	// (Needs.ValidatesCalls): a Reader that frames lines on another
	// goroutine (NewReader's read-ahead) validates those lines there,
	// indexing an assistant line's message on the way, finds and sizes
	// the tool results of each user line, and their events say so
	// (Event.Validate then has nothing to do, Event.message and
	// Event.ToolResults neither). It changes no event and no error.
	ValidateAhead bool
}

// Check is how much of each line a Decoder validates before returning it.
// Validating every escape of every tool result costs three times as much as
// finding where the line's strings and brackets end; a consumer that prints
// a few events checks those fully itself (Event.Validate) and lets the
// Decoder check only the framing of the rest.
type Check uint8

const (
	// CheckAll validates each line completely: any malformed line is a
	// *SyntaxError.
	CheckAll Check = iota
	// CheckFraming checks that each line is one complete JSON object
	// (brackets balance, strings close, nothing follows), which catches
	// lines cut off by a killed producer and lines merged by a lost
	// newline, but not a bad escape or literal inside a line. Reading at
	// about three times the speed of CheckAll.
	CheckFraming
	// CheckEnds only checks that a line starts with '{' and ends with '}',
	// which catches most cut lines but not two lines merged by a lost
	// newline (the second event is then silently lost). For consumers that
	// read the head of each line and accept that, at close to memory speed.
	// It reads a key written twice as its first value; the other checks
	// read the last, as jq does.
	CheckEnds
)

// Decoder is the reference Reader: it reads a stream-json stream (one
// JSON object per LF-terminated line) or the single JSON array printed by
// --output-format json, and returns its events one at a time, on the
// caller's goroutine, through one bufio.Reader.
//
// Memory is the read buffer plus the longest line: a line that fits in the
// buffer is returned from it; a longer one is copied out into a buffer of
// its own (kept for the next long line), sized exactly when the input is a
// file (see lineSize), else assembled from pieces, so a line costs at most
// its own size once more while it is read.
type Decoder struct {
	br lineSource    // a *bufio.Reader, or NewReader's aheadSource
	bb *bufio.Reader // br when it is a bufio.Reader (readLongInPlace resets it)
	// ahead is br when it is NewReader's aheadSource, which frames the
	// lines it reads on another goroutine (framed).
	ahead *aheadSource
	pre   int64 // the lines prepared from the read-ahead's framing (a test's figure)
	opts  DecoderOptions
	ra    io.ReaderAt // the input, when it is a file we can look ahead in (lineSize)
	raAt  int64       // the input's offset where the decoder began reading
	// sk and src: the input as br reads it, when ra is set, so that a
	// long line read by looking ahead (readLongInPlace) is passed over
	// by a seek.
	sk   io.Seeker
	src  io.Reader
	off  int64 // input offset of the next unread byte
	line int64 // number of the last line returned or skipped
	err  error // sticky read error (also io.EOF)

	began  bool
	array  bool // the input is one JSON array
	arrEnd bool // its closing ']' was seen
	// arrLines counts the line ends in the array read so far: if lines
	// follow it, it was a stray line of its own, and they are numbered on
	// from it.
	arrLines   int64
	arrEndLine int64 // the line of its closing ']', which the report names

	next int // when > 0, Buffered found the next line's end this far ahead
	// offered counts the lines offered to Want; taken says Want took the
	// line readLine returns from its ends (Ends), so is not asked again.
	offered int64
	taken   bool
	// skipping: an over-long line was reported before its end, which the
	// next read passes over.
	skipping bool
	pieces   [][]byte // a long line read from a pipe, piece by piece
	s        *Scratch // the long lines' buffers: DecoderOptions.Scratch, else the Decoder's own
	ev       Event
	closer   io.Closer // what Close stops (NewReader's read-ahead)
	screen   Screen    // NewReader's, for a Decoder fed by a read-ahead
}

// Scratch is a Decoder's long-line buffers (DecoderOptions.Scratch):
// the zero value is ready to use, one Decoder at a time.
type Scratch struct {
	long  []byte // the buffer of lines longer than the read buffer, reused
	ahead []byte // lineSize's read buffer
	ends  []byte // a long line's ends (DecoderOptions.Ends)
}

// NewDecoder returns a Decoder reading from r.
func NewDecoder(r io.Reader, opts DecoderOptions) *Decoder {
	if opts.Buffer != nil {
		// The caller's buffer, for another input: its size is the
		// buffer's.
		opts.Buffer.Reset(r)
		opts.BufferSize = opts.Buffer.Size()
	}
	opts.setDefaults()
	br := opts.Buffer
	if br == nil {
		br = bufio.NewReaderSize(r, opts.BufferSize)
	}
	d := newDecoder(br, opts)
	d.bb = br
	d.lookAheadIn(r)
	return d
}

// setDefaults gives the sizes left zero their defaults.
func (o *DecoderOptions) setDefaults() {
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = DefaultMaxLineBytes
	}
	if o.BufferSize <= 0 {
		o.BufferSize = defaultBufferSize
	}
}

// newDecoder returns a Decoder reading through br, whose buffer is
// opts.BufferSize bytes.
func newDecoder(br lineSource, opts DecoderOptions) *Decoder {
	d := &Decoder{br: br, opts: opts, s: opts.Scratch}
	if d.s == nil {
		d.s = &Scratch{}
	}
	return d
}

// lookAheadIn has long lines sized by looking ahead in in, which holds
// the bytes the decoder reads from its current offset on: a file (or any
// seekable ReaderAt) tells a long line's size before it is read, so its
// buffer is allocated once, at its size.
func (d *Decoder) lookAheadIn(in io.Reader) {
	if f, ok := in.(*os.File); ok {
		// A character device (/dev/zero), a FIFO or a socket may be
		// endless or read once: it is read like a pipe.
		if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
			return
		}
	}
	if ra, ok := in.(io.ReaderAt); ok {
		if sk, ok := in.(io.Seeker); ok {
			if pos, err := sk.Seek(0, io.SeekCurrent); err == nil {
				d.ra, d.raAt, d.sk, d.src = ra, pos, sk, in
			}
		}
	}
}

// Buffered reports whether the next call to Next can return without
// waiting for input. A caller that writes live output flushes it when
// this is false, just before Next would block on a pipe (and writes in
// large blocks while reading a file).
func (d *Decoder) Buffered() bool {
	if d.next > 0 {
		return true
	}
	if d.skipping {
		return false // (the end found would be the skipped line's)
	}
	if d.ahead != nil && d.ahead.lineAt() != nil {
		return true // (the framer found the next line's end)
	}
	n := d.br.Buffered()
	if n == 0 {
		return false
	}
	if d.array {
		return true // an element may be cut short; reading on is cheap
	}
	b, _ := d.br.Peek(n)
	i := bytes.IndexByte(b, '\n')
	d.next = i + 1 // readLine takes the line found without searching again
	return i >= 0
}

// Close stops the reading goroutine of a Decoder made by NewReader with
// one; a Decoder made by NewDecoder holds nothing to release. It does not
// close the input.
func (d *Decoder) Close() error {
	if d.closer != nil {
		return d.closer.Close()
	}
	return nil
}

// Next returns the next event. At the end of input it returns io.EOF.
//
// A malformed line yields a *SyntaxError and an over-long one a
// *LineTooLongError; both carry the line number, and the Decoder stays usable:
// the next call returns the following line. Any other error comes from the
// underlying reader and is final.
//
// The returned Event, and the bytes of its Raw field, are only valid until
// the next call to Next; use Event.Clone to keep one.
func (d *Decoder) Next() (*Event, error) {
	if !d.began {
		if err := d.begin(); err != nil {
			return nil, err
		}
	}
	if d.array {
		return d.nextElement()
	}
	for {
		line, off, err := d.readLine()
		if err == io.EOF {
			// The long line's buffer goes at the end: the consumer's work
			// after the last line (a final answer decoded, say) can have
			// its memory.
			// (A caller's Scratch is kept for its next input.)
			if d.opts.Scratch == nil {
				d.s.long, d.s.ahead = nil, nil
			}
			d.ev = Event{}
		}
		if err != nil {
			return nil, err
		}
		line = trimLine(line)
		if len(line) == 0 {
			continue // blank line
		}
		if d.opts.Want != nil && !d.taken {
			d.offered++
			if !d.opts.Want(line) {
				continue // not read: the consumer has no use for it
			}
		}
		var pre *framedLine
		if d.ahead != nil {
			// (A line not in the buffer, a long one, is framed by none.)
			if pre = d.ahead.framed(line); pre != nil {
				d.pre++
			}
		}
		if err := prepare(&d.ev, line, &d.opts, d.line, off, d.screen, d.ahead, pre); err != nil {
			return nil, err
		}
		return &d.ev, nil
	}
}

// begin strips a UTF-8 BOM and decides between lines and one array, from
// the first byte that is not a space (looked at, not consumed, so that line
// numbers and offsets count the blank lines before it).
func (d *Decoder) begin() error {
	d.began = true
	d.next = 0 // (positions move with the BOM)
	if b, _ := d.br.Peek(3); bytes.Equal(b, []byte("\xEF\xBB\xBF")) {
		d.discard(3)
	}
	for n := 1; n <= d.opts.BufferSize; n++ {
		b, err := d.br.Peek(n)
		if len(b) < n {
			if err == io.EOF {
				return nil // only spaces: readLine ends it
			}
			return d.fail(err)
		}
		switch b[n-1] {
		case ' ', '\t', '\r', '\n':
			continue
		case '[':
			// The blank lines before it count: if lines follow the
			// array, they are numbered on from its line.
			d.arrLines = int64(bytes.Count(b[:n], []byte{'\n'}))
			d.discard(n)
			d.array = true
		}
		return nil
	}
	return nil
}

// fail makes a read error sticky and returns it.
func (d *Decoder) fail(err error) error {
	if d.err == nil {
		d.err = err
	}
	return d.err
}

func (d *Decoder) discard(n int) {
	m, _ := d.br.Discard(n)
	d.off += int64(m)
}

// readLine returns the next line without its '\n' and the input offset of
// its first byte. An over-long line is consumed and reported.
func (d *Decoder) readLine() ([]byte, int64, error) {
	if d.err != nil {
		return nil, 0, d.err
	}
	if err := d.skipRest(); err != nil {
		return nil, 0, err
	}
	off := d.off
	d.taken = false
	var b []byte
	var err error
	if d.next > 0 {
		// Buffered found the line's end: the bytes are in the buffer.
		b, _ = d.br.Peek(d.next)
		d.br.Discard(d.next)
		d.next = 0
	} else {
		b, err = d.br.ReadSlice('\n')
	}
	d.off += int64(len(b))
	switch {
	case err == nil:
		d.line++
		return b[:len(b)-1], off, d.checkSize(int64(len(b)-1), off)
	case err == bufio.ErrBufferFull:
		line, err := d.readLongLine(b, off)
		if err != nil {
			return nil, 0, err
		}
		return line, off, d.checkSize(int64(len(line)), off)
	case len(b) > 0 && err == io.EOF:
		d.line++ // the last line, without a final newline
		d.err = err
		return b, off, d.checkSize(int64(len(b)), off)
	}
	return nil, 0, d.fail(err)
}

func (d *Decoder) checkSize(n, off int64) error {
	if n > int64(d.opts.MaxLineBytes) {
		return d.tooLong(n, off)
	}
	return nil
}

func (d *Decoder) tooLong(n, off int64) error {
	return &LineTooLongError{Source: d.opts.Source, Line: d.line, Offset: off, Size: n, Max: d.opts.MaxLineBytes}
}

// readLongLine goes on with a line that did not fit in the read buffer,
// whose first bytes are head.
func (d *Decoder) readLongLine(head []byte, off int64) ([]byte, error) {
	max := int64(d.opts.MaxLineBytes) + 1 // with its '\n'
	if d.ra != nil {
		if d.byEnds(head) {
			if size, ends, ok := d.endsOf(head, max-int64(len(head))); ok {
				d.offered++
				if !d.opts.Want(ends) {
					return nil, d.passOver(size) // (Next takes the empty line for a blank one)
				}
				d.taken = true
				return d.readSizedLine(head, size, off)
			}
		}
		if line, ok := d.readLongInPlace(head, max-int64(len(head))); ok {
			return line, nil
		}
		size := d.lineSize(max - int64(len(head)))
		if size < 0 {
			return nil, d.skipLine(int64(len(head)), off, head, bufio.ErrBufferFull)
		}
		if size > 0 {
			return d.readSizedLine(head, size, off)
		}
	}
	// From a pipe the size is not known: the line goes into the last long
	// line's buffer while it fits, and what does not into pieces, copied
	// into one buffer of the line's size at the end (an append that grows
	// would hold the old and the new buffer at once, up to 2.25 times the
	// line).
	line := d.s.long[:0]
	add := func(b []byte) {
		if len(d.pieces) == 0 && len(line)+len(b) <= cap(line) {
			line = append(line, b...)
		} else {
			d.pieces = append(d.pieces, bytes.Clone(b))
		}
	}
	defer func() { clear(d.pieces); d.pieces = d.pieces[:0] }()
	total := int64(len(head))
	add(head)
	for {
		b, err := d.br.ReadSlice('\n')
		d.off += int64(len(b))
		total += int64(len(b))
		if total > max {
			return nil, d.skipLine(total, off, b, err)
		}
		if err != nil && err != bufio.ErrBufferFull && err != io.EOF {
			return nil, d.fail(err)
		}
		add(b)
		if err == io.EOF {
			d.err = err
		}
		if err != bufio.ErrBufferFull {
			break
		}
	}
	if len(d.pieces) > 0 {
		whole := make([]byte, 0, total)
		whole = append(whole, line...)
		d.s.long, line = nil, nil // the GC may take it before the pieces are joined
		for _, p := range d.pieces {
			whole = append(whole, p...)
		}
		d.s.long, line = whole, whole
	}
	d.line++
	if line[len(line)-1] == '\n' {
		line = line[:len(line)-1]
	}
	return line, nil
}

// endsBlanks is how many blanks (spaces, tabs, '\r') a long line may end
// in and still be told by its ends: what Want sees of its end is the last
// EndsTail bytes less those, and a line that ends in more (no writer of
// sessions writes such a line) is read whole, so that Want never sees
// less than EndsTail−endsBlanks bytes of its end.
const endsBlanks = 64

// byEnds says whether the long line whose first bytes are head is told
// by its ends (DecoderOptions.Ends): not the first line offered to Want,
// and long enough that its ends do not overlap.
func (d *Decoder) byEnds(head []byte) bool {
	return d.opts.Ends != nil && d.opts.Want != nil && d.sk != nil && d.offered > 0 && !d.taken &&
		len(head) >= EndsHead+EndsTail && d.opts.Ends(head)
}

// endsOf looks ahead, without consuming anything, for the end of the
// long line whose head was just read, keeping nothing of it but its last
// EndsTail bytes: it returns how many bytes remain of the line with its
// '\n' and the line's ends (its first EndsHead bytes, then its last
// EndsTail, trimmed as Next trims a line; in the Scratch, valid until
// the next read). ok is false when the line has more than max bytes
// left, no '\n' before the file's end (the last line), more than
// endsBlanks blanks trimmed, or a read fails: the caller reads it as
// before.
func (d *Decoder) endsOf(head []byte, max int64) (size int64, ends []byte, ok bool) {
	if d.s.ahead == nil {
		d.s.ahead = make([]byte, 256<<10)
	}
	// ends[:EndsHead] is the head's; ends[EndsHead:] the last EndsTail
	// bytes seen so far, which the line's rest pushes along.
	ends = append(append(d.s.ends[:0], head[:EndsHead]...), head[len(head)-EndsTail:]...)
	d.s.ends = ends
	pos := d.raAt + d.off // nothing is buffered after a full ReadSlice
	for k := int64(0); k <= max; {
		n, err := d.ra.ReadAt(d.s.ahead, pos+k)
		b := d.s.ahead[:n]
		i := bytes.IndexByte(b, '\n')
		if i >= 0 {
			b = b[:i]
		}
		if len(b) >= EndsTail {
			copy(ends[EndsHead:], b[len(b)-EndsTail:])
		} else {
			tail := ends[EndsHead:]
			copy(tail, tail[len(b):])
			copy(tail[EndsTail-len(b):], b)
		}
		if i >= 0 {
			if k += int64(i) + 1; k > max {
				return 0, nil, false
			}
			if t := trimLine(ends); len(ends)-len(t) <= endsBlanks {
				return k, t, true
			}
			return 0, nil, false
		}
		k += int64(n)
		if err != nil {
			return 0, nil, false
		}
	}
	return 0, nil, false
}

// passOver moves the input past the size bytes left of a long line that
// endsOf measured, as readLongInPlace does past the one it read.
func (d *Decoder) passOver(size int64) error {
	if _, err := d.sk.Seek(d.raAt+d.off+size, io.SeekStart); err != nil {
		return d.fail(err)
	}
	d.bb.Reset(d.src) // (empty: nothing of the input after the head was in it)
	d.off += size
	d.line++
	return nil
}

// readSizedLine reads the rest of a long line whose size lineSize found:
// into one buffer of the line's size.
func (d *Decoder) readSizedLine(head []byte, size, off int64) ([]byte, error) {
	line := append(d.longBuffer(len(head)+int(size)), head...)
	line = line[:len(head)+int(size)]
	n, err := io.ReadFull(d.br, line[len(head):])
	d.off += int64(n)
	line = line[:len(head)+n]
	switch {
	case err == io.ErrUnexpectedEOF || err == io.EOF:
		// The file ended before the end the look-ahead saw (it shrank):
		// the line ends there, and its check reports it cut.
		d.err = io.EOF
	case err != nil:
		return nil, d.fail(err)
	case line[len(line)-1] != '\n':
		if _, err := d.br.Peek(1); err == io.EOF {
			d.err = io.EOF // the last line, without a final newline
			break
		}
		// The file grew past the end the look-ahead saw: go on reading.
		return d.readLongLine(bytes.Clone(line), off)
	default:
		line = line[:len(line)-1]
	}
	d.line++
	return line, nil
}

// readLongInPlace reads the rest of a long line from a file straight
// into the long lines' buffer, when that is already large enough (an
// earlier long line's, of this input or, with a Scratch, of one before),
// and moves the input past the line by a seek: its bytes are read once,
// where lineSize's look-ahead and then readSizedLine read them twice (half
// of a tree of sessions' bytes are lines of a few MB: issue 41). ok is
// false, with nothing consumed, when the buffer is too small, the line
// does not end within it and max (the bytes it may still have, with its
// '\n'), a read fails or the file ends first: the caller reads it the
// other way.
func (d *Decoder) readLongInPlace(head []byte, max int64) (line []byte, ok bool) {
	if d.sk == nil || cap(d.s.long) <= len(head) {
		return nil, false
	}
	const chunk = 256 << 10 // (lineSize's reads)
	buf := d.s.long[:cap(d.s.long)]
	limit := min(int64(len(buf)), int64(len(head))+max)
	pos := d.raAt + d.off // nothing is buffered after a full ReadSlice
	n := copy(buf, head)
	for int64(n) < limit {
		m, err := d.ra.ReadAt(buf[n:min(int64(n)+chunk, limit)], pos+int64(n-len(head)))
		if i := bytes.IndexByte(buf[n:n+m], '\n'); i >= 0 {
			size := int64(n-len(head)+i) + 1
			if _, err := d.sk.Seek(pos+size, io.SeekStart); err != nil {
				return nil, false
			}
			d.bb.Reset(d.src) // (empty: nothing of the input after the head was in it)
			d.off += size
			d.line++
			return buf[:n+i], true
		}
		n += m
		if err != nil {
			return nil, false
		}
	}
	return nil, false
}

// longBuffer returns an empty buffer with room for n bytes: the last long
// line's, when it is large enough. Reusing it spares the page faults and
// the zeroing of fresh memory for each long line; memory stays at the
// longest line, which the decoder holds anyway while it reads that line.
func (d *Decoder) longBuffer(n int) []byte {
	if cap(d.s.long) < n {
		d.s.long = nil // the GC may take the old one before the new one is made
		d.s.long = make([]byte, 0, n)
	}
	return d.s.long[:0]
}

// skipLine reports an over-long line, of which total bytes were read, the
// last ones with err. A line not yet at its end is reported at once, as it
// passes the limit: its rest is passed over by the next read (skipRest),
// never held, so an endless line (cat /dev/zero) is reported as soon as it
// is too long, in the memory of the limit.
func (d *Decoder) skipLine(total, off int64, last []byte, err error) error {
	if err == bufio.ErrBufferFull {
		d.skipping = true
		d.line++
		return &LineTooLongError{Source: d.opts.Source, Line: d.line, Offset: off, Size: total, Max: d.opts.MaxLineBytes, Unended: true}
	}
	if err != nil && err != io.EOF {
		return d.fail(err)
	}
	if err == io.EOF {
		d.err = err
	}
	if len(last) > 0 && last[len(last)-1] == '\n' {
		total--
	}
	d.line++
	return d.tooLong(total, off)
}

// skipRest reads past the rest of a line skipLine reported before its end.
func (d *Decoder) skipRest() error {
	for d.skipping {
		b, err := d.br.ReadSlice('\n')
		d.off += int64(len(b))
		switch err {
		case bufio.ErrBufferFull:
		case nil:
			d.skipping = false
		default:
			d.skipping = false
			return d.fail(err) // (io.EOF too: the line was the last)
		}
	}
	return nil
}

// lineSize looks ahead in a seekable input, without consuming it, for the
// end of the line whose head was just read, and returns how many bytes
// remain of it with its '\n' (up to the end of the file when it has none):
// -1 when that is more than max, 0 when it cannot tell (a read error,
// which the real read that follows reports).
func (d *Decoder) lineSize(max int64) int64 {
	if d.s.ahead == nil {
		d.s.ahead = make([]byte, 256<<10)
	}
	pos := d.raAt + d.off // nothing is buffered after a full ReadSlice
	for k := int64(0); k <= max; {
		n, err := d.ra.ReadAt(d.s.ahead, pos+k)
		if i := bytes.IndexByte(d.s.ahead[:n], '\n'); i >= 0 {
			k += int64(i) + 1
			if k > max {
				return -1
			}
			return k
		}
		k += int64(n)
		if err != nil {
			if err == io.EOF && k > 0 && k <= max {
				return k
			}
			return 0
		}
	}
	return -1
}

// prepare checks line number n as opts.Check says and points ev at it,
// classified. It reads nothing of a Decoder, so that any Reader that cuts
// lines its own way makes the same events.
func prepare(ev *Event, line []byte, opts *DecoderOptions, n, off int64, screen Screen, ahead *aheadSource, pre *framedLine) error {
	var err error
	switch opts.Check {
	case CheckEnds:
		if line[0] != '{' || line[len(line)-1] != '}' {
			err = jsonx.Validate(line) // for its message
		}
	case CheckFraming:
		if line[0] == '{' {
			break // checked by frame below
		}
		err = jsonx.ValidateFraming(line)
	default:
		if line[0] == '{' {
			break // checked in full by frame below
		}
		err = jsonx.Validate(line)
	}
	if err != nil {
		return badLine(opts, line, n, off, err)
	}
	if line[0] != '{' {
		return &SyntaxError{Source: opts.Source, Line: n, Offset: off,
			Err: fmt.Errorf("not a JSON object: %s", preview(line))}
	}
	ev.point(line, opts.Source, n, off)
	ev.spellings = opts.Spellings
	ev.screened = screen != nil && screen.Clean(off, off+int64(len(line)))
	ev.valid = opts.Check == CheckAll
	if pre != nil {
		// Framed (or validated, with CheckAll) as below, on the
		// read-ahead goroutine (which frames nothing under CheckEnds).
		ev.top, ev.haveTop = ahead.appendMembers(ev.top[:0], pre), true
		ev.valid = ev.valid || pre.valid
		if pre.msg {
			ev.msg, ev.haveMsg = ahead.appendMessage(ev.msg[:0], pre), true
		}
		if pre.results {
			ev.results, ev.haveResults = ahead.appendResults(ev.results[:0], pre), true
		}
		if pre.usage {
			ev.usage, ev.haveUsage = ahead.usage(pre), true
		}
		if pre.blocks {
			ev.blocks, ev.haveBlocks = ahead.appendBlocks(ev.blocks[:0], pre), true
		}
		if err := ahead.frameErr(pre); err != nil {
			return badLine(opts, line, n, off, err)
		}
	} else if opts.Check == CheckAll {
		// Validated and indexed in one pass.
		if err := ev.frameValid(); err != nil {
			return badLine(opts, line, n, off, err)
		}
	} else if opts.Check != CheckEnds {
		// The framing walk indexes the top-level members on its way. The
		// index is what classification reads, so a key written twice
		// means its last value, as in jq (CheckEnds, which reads only the
		// line's head, takes the first).
		if err := ev.frame(); err != nil {
			return badLine(opts, line, n, off, err)
		}
	}
	ev.classify()
	if opts.Prepare != nil {
		return opts.Prepare(ev)
	}
	return nil
}

// badLine reports a line that failed a check. A framing error is restated
// as full validation sees it, so the message (and the column) does not
// depend on the check level.
func badLine(opts *DecoderOptions, line []byte, n, off int64, err error) error {
	if opts.Check != CheckAll {
		if full := jsonx.Validate(line); full != nil {
			err = full
		}
	}
	return newSyntaxError(opts.Source, n, off, line, err)
}

// newSyntaxError reports the scanner's err on line number n: the column,
// and whether the line stops mid-value (a killed producer).
func newSyntaxError(source string, n, off int64, line []byte, err error) *SyntaxError {
	se := &SyntaxError{Source: source, Line: n, Offset: off, Err: err}
	var je *jsonx.SyntaxError
	if errors.As(err, &je) {
		se.Column = je.Offset
		se.Truncated = je.Offset >= len(line)
	}
	return se
}

// trimLine drops a trailing CR (CRLF files) and surrounding spaces.
func trimLine(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\r' || b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}

// preview returns the start of b for an error message.
func preview(b []byte) string {
	const n = 40
	if len(b) > n {
		return fmt.Sprintf("%q…", b[:n])
	}
	return fmt.Sprintf("%q", b)
}
