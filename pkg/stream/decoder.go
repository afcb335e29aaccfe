package stream

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/ccfilter/ccfilter/internal/jsonx"
)

// DefaultMaxLineBytes is the line cap when DecoderOptions.MaxLineBytes is 0.
// Real tool results reach tens of megabytes; a gigabyte is far past any
// legitimate line and still keeps a runaway producer from eating all memory.
const DefaultMaxLineBytes = 1 << 30

// defaultBufferSize is the read size: large enough that a file is read in few
// syscalls and most lines are cut out of the buffer without copying. Tool
// results of 100 KB to 1 MB carry most of a real stream's bytes; a line that
// straddles the end of the buffer is slid to its front, and with 1 MiB that
// copy moved half of all input (4 MiB: under a tenth).
const defaultBufferSize = 4 << 20

// DecoderOptions configure a Decoder. The zero value is ready to use.
type DecoderOptions struct {
	// Source names the input in errors and events ("<stdin>", a file name).
	Source string
	// MaxLineBytes caps one line (one array element in JSON-array input);
	// 0 means DefaultMaxLineBytes. A longer line is skipped and reported as a
	// *LineTooLongError; reading goes on with the next line.
	MaxLineBytes int
	// BufferSize is the size of reads from the underlying reader; 0 means
	// 4 MiB.
	BufferSize int
	// Check says how much of each line Next validates; the zero value,
	// CheckAll, validates every byte.
	Check Check
	// Parallel reads, checks and classifies lines on other goroutines
	// (Workers of them for the checks; 0 means GOMAXPROCS), ahead of Next.
	// Events, errors and their order are those of a serial decoder. Call
	// Close when done before the end of the input, or the goroutines wait
	// for the reader forever.
	Parallel bool
	Workers  int
	// ToolResults has each tool_result event's blocks found (with their
	// sizes, Event.ToolResults) while it is decoded: on the workers of a
	// Parallel decoder, off the consumer's goroutine, for consumers that
	// read them all (the Tracker does).
	ToolResults bool
	// NoResultSizes has ToolResults find the blocks without counting their
	// sizes (ToolResult.Size counts on demand): for consumers that never
	// show them (with TrackerOptions.NoResultSizes).
	NoResultSizes bool
	// SkipLong, when set, is asked about each line longer than BufferSize
	// whose kind its head decides (a tool result, an assistant block of a
	// real model): if it returns true, the line is read through the buffer
	// without being kept, its framing checked on the way, and the event
	// returned has Partial set and only the line's head in Raw. Memory then
	// stays at the buffer size however long the lines. Not with CheckAll.
	// A passed-over line that is not one whole object is reported as
	// such; when the fault lies beyond its head, the message names the
	// framing fault, where full validation might name an earlier one.
	SkipLong func(Kind) bool
	// Prepare, when set, is called on each event as it is decoded: on the
	// workers of a Parallel decoder, ahead of Next. An error it returns
	// (a *SyntaxError, as ValidateValue's) is returned by Next in the
	// event's place. For consumers that hand events to jq: building their
	// trees (ValidateValue, ValidateValueOf) is most of their work. It must
	// be safe to call from several goroutines at once.
	Prepare func(*Event) error
	// MapFiles lets a Parallel decoder read a large
	// regular file through a memory mapping instead of read calls (see
	// mapped.go): faster, and a long line costs no buffer (its pages
	// only: SkipLong does not apply, and every line comes whole). A file that
	// shrinks while it is read then makes Next return an error; an
	// Event's bytes point into the mapping, and reading them after the
	// file shrank faults (debug.SetPanicOnFault turns that into a panic
	// the caller can recover from: IsFault). Ignored where files cannot be
	// mapped.
	MapFiles bool

	mapMin int // the smallest file mapped; 0: mapMin (for tests)
	mapMax int // maps at most this many bytes, as if the file grew after (for tests)
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
	CheckEnds
)

// Decoder reads a stream-json stream (one JSON object per LF-terminated
// line) or the single JSON array printed by --output-format json, and
// returns its events one at a time.
//
// Memory is bounded by the read buffer plus the longest line: nothing of an
// earlier line is kept, but the buffer of the longest line so far is, for
// the next long line (see longBuffer).
type Decoder struct {
	r        io.Reader
	opts     DecoderOptions
	buf      []byte
	small    []byte      // the BufferSize buffer, kept while buf is grown for one long line
	ra       io.ReaderAt // r, when it is a seekable file (see restOfLine)
	raPos    int64       // r's offset where the decoder began reading
	ahead    []byte      // restOfLine's read buffer
	start    int         // first unconsumed byte in buf
	end      int         // end of valid data in buf
	scan     int         // bytes of buf[start:end] already searched for '\n'
	base     int64       // input offset of buf[0]
	line     int64       // number of the last line returned or skipped
	eof      bool
	err      error // sticky read error
	began    bool  // the first bytes (BOM, array detection) were looked at
	array    bool  // input is one JSON array
	arrEnd   bool  // the closing ']' was seen
	nl       int   // if > start: index+1 in buf of the next '\n', found by lineBuffered
	ev       Event
	pipe     *pipeline // a Parallel decoder's goroutines
	holdsBig bool      // the reader holds the long-line token (see waitBig)
	head     []byte    // the head of the line skipLong passed over
	skip     skipped   // its classification
	skipped  bool      // readLine's line is such a head
	lent     bool      // lines of buf were handed to a Parallel decoder's batches uncopied
	retired  [][]byte  // buffers left to those batches, for the next one sent
	spare    []byte    // the last long line's buffer, kept for the next one
}

// NewDecoder returns a Decoder reading from r.
func NewDecoder(r io.Reader, opts DecoderOptions) *Decoder {
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = DefaultMaxLineBytes
	}
	if opts.BufferSize <= 0 {
		opts.BufferSize = defaultBufferSize
	}
	return &Decoder{r: r, opts: opts}
}

// Buffered reports whether a complete line is already in the buffer, i.e.
// whether the next call to Next can return without reading. A caller that
// writes live output flushes it when this is false, just before Next would
// block on a pipe (and writes in large blocks while reading a file).
func (d *Decoder) Buffered() bool {
	if d.pipe != nil {
		return d.pipe.buffered()
	}
	if d.array {
		return d.end > d.start
	}
	return d.lineBuffered()
}

// lineBuffered reports whether a whole line is in the buffer, remembering
// where it ends for readLine.
func (d *Decoder) lineBuffered() bool {
	if d.nl > d.start {
		return true
	}
	data := d.buf[d.start:d.end]
	i := bytes.IndexByte(data[d.scan:], '\n')
	if i < 0 {
		d.scan = len(data)
		return false
	}
	d.nl = d.start + d.scan + i + 1
	return true
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
	if d.opts.Parallel {
		if d.pipe == nil {
			d.startPipeline()
		}
		return d.pipe.next()
	}
	for {
		line, off, err := d.readLine()
		if err != nil {
			return nil, err
		}
		line = trimLine(line)
		if len(line) == 0 {
			continue // blank line
		}
		return d.event(line, off)
	}
}

// event validates and classifies one line.
func (d *Decoder) event(line []byte, off int64) (*Event, error) {
	if d.skipped {
		d.skipped = false
		d.ev.partial(line, d.opts.Source, d.line, off, d.skip)
		return &d.ev, nil
	}
	if err := prepare(&d.ev, line, &d.opts, d.line, off); err != nil {
		return nil, err
	}
	return &d.ev, nil
}

// prepare checks line number n as opts.Check says and points ev at it,
// classified. It reads nothing of the Decoder, so that the workers of a
// Parallel decoder can run it.
func prepare(ev *Event, line []byte, opts *DecoderOptions, n, off int64) error {
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
	if opts.Check == CheckFraming {
		// The framing walk indexes the top-level members on its way.
		if err := ev.frame(); err != nil {
			return badLine(opts, line, n, off, err)
		}
	}
	return classified(ev, opts)
}

// prepareFramed is prepare for a line whose framing was checked, and its
// top-level members found, by jsonx.MembersLine (CheckFraming).
func prepareFramed(ev *Event, line []byte, top []jsonx.Member, opts *DecoderOptions, n, off int64) error {
	ev.point(line, opts.Source, n, off)
	ev.top, ev.haveTop = top, true
	return classified(ev, opts)
}

// classified is the end of prepare: classification, and what the options
// ask for on the workers.
func classified(ev *Event, opts *DecoderOptions) error {
	ev.classify()
	if opts.ToolResults && ev.Kind == KindToolResult {
		ev.findToolResults(!opts.NoResultSizes)
	}
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

func (d *Decoder) syntaxError(line []byte, off int64, err error) error {
	return newSyntaxError(d.opts.Source, d.line, off, line, err)
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

// begin strips a UTF-8 BOM and decides between lines and one array.
func (d *Decoder) begin() error {
	d.began = true
	for {
		data := d.buf[d.start:d.end]
		if d.base == 0 && d.start == 0 && len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
			d.start += 3
			continue
		}
		i := 0
		for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
			i++
		}
		// Wait for the first non-space byte (and for a whole possible BOM).
		if (i == len(data) || (d.base == 0 && d.start == 0 && len(data) < 3 && data[0] == 0xEF)) && !d.eof {
			if err := d.fill(); err != nil {
				return err
			}
			continue
		}
		if i < len(data) && data[i] == '[' {
			d.array = true
			d.start += i + 1
		}
		return nil
	}
}

// fill reads more input into the buffer, moving or growing it as needed.
func (d *Decoder) fill() error {
	if d.err != nil {
		return d.err
	}
	if d.eof {
		return io.EOF
	}
	if d.buf == nil {
		d.buf = make([]byte, d.opts.BufferSize)
		d.small = d.buf
		if ra, ok := d.r.(io.ReaderAt); ok {
			if sk, ok := d.r.(io.Seeker); ok {
				if pos, err := sk.Seek(0, io.SeekCurrent); err == nil {
					d.ra, d.raPos = ra, pos
				}
			}
		}
	}
	d.nl = 0
	if d.start > 0 && (d.end == len(d.buf) || d.start == d.end) {
		// Slide the partial line to the front (of a fresh buffer when
		// batches point into this one).
		if d.lent {
			d.writable()
		} else {
			n := copy(d.buf, d.buf[d.start:d.end])
			d.base += int64(d.start)
			d.start, d.end = 0, n
		}
	}
	if d.end == len(d.buf) {
		// One line fills the buffer: grow it, to the line's exact size when
		// the input is a file we can look ahead in, else by doubling (which
		// holds the old and the new buffer at once: 1.5x a 48 MB line).
		if err := d.waitBig(); err != nil {
			return err
		}
		size := 2 * len(d.buf)
		if rest, ok := d.restOfLine(); ok {
			size = d.end - d.start + rest
		}
		nb := d.longBuffer(size)
		copy(nb, d.buf[d.start:d.end])
		d.base += int64(d.start)
		d.end -= d.start
		d.start = 0
		d.buf = nb
	}
	// Reads stay BufferSize long even into a grown buffer, so that little
	// beyond the long line is read into it and shrink can drop it at once.
	limit := min(len(d.buf), d.end+d.opts.BufferSize)
	for tries := 0; ; tries++ {
		n, err := d.r.Read(d.buf[d.end:limit])
		d.end += n
		if err == io.EOF {
			d.eof = true
			if n > 0 {
				return nil
			}
			return io.EOF
		}
		if err != nil {
			d.err = err
			return err
		}
		if n > 0 {
			return nil
		}
		if tries > 100 {
			d.err = io.ErrNoProgress
			return d.err
		}
	}
}

// writable is called before buf is written below end. When lines of buf
// were handed to a Parallel decoder's batches uncopied, buf is left to
// them (retired: the producer gives it to the next batch it sends, and it
// comes back when that one is consumed), and reading goes on in a fresh
// buffer holding the unconsumed bytes.
func (d *Decoder) writable() {
	if !d.lent {
		return
	}
	old := d.buf
	nb := d.pipe.buffer(len(old), len(d.retired) == 0)
	n := copy(nb, old[d.start:d.end])
	d.base += int64(d.start)
	d.start, d.end, d.nl = 0, n, 0
	d.buf, d.small, d.lent = nb, nb, false
	d.retired = append(d.retired, old)
}

// longBuffer returns a buffer of n bytes for a long line: the previous
// long line's, when it is free and large enough. Reusing it, rather than
// allocating each long line's buffer, spares the page faults and the
// zeroing of fresh memory (a stream with a few 47 MB tool results spent
// a sixth of its time there); memory stays at the longest line, which a
// decoder holds anyway while it reads that line.
func (d *Decoder) longBuffer(n int) []byte {
	if len(d.buf) > len(d.small) && cap(d.buf) >= n {
		return d.buf[:n] // a long line's buffer already, with room
	}
	if d.pipe != nil {
		select {
		case b := <-d.pipe.spare:
			d.spare = b
		default:
		}
	}
	if b := d.spare; cap(b) >= n {
		d.spare = nil
		return b[:n]
	}
	d.spare = nil // too small: the GC takes it
	return make([]byte, n)
}

// restOfLine looks ahead in a seekable file, without consuming it, for the
// end of the line that fills the buffer, and returns how many bytes after
// the buffered ones it still needs (with its '\n'). It gives up (false) on
// other readers, on JSON-array input, and past MaxLineBytes.
func (d *Decoder) restOfLine() (int, bool) {
	if d.ra == nil || d.array {
		return 0, false
	}
	if d.ahead == nil {
		d.ahead = make([]byte, 256<<10)
	}
	pos := d.raPos + d.base + int64(d.end)
	for k := 0; k <= d.opts.MaxLineBytes; {
		n, err := d.ra.ReadAt(d.ahead, pos+int64(k))
		if i := bytes.IndexByte(d.ahead[:n], '\n'); i >= 0 {
			return k + i + 1, true
		}
		k += n
		if err != nil {
			// At the end of the file the line ends there; an error is
			// reported by the real read that follows.
			return k, err == io.EOF && k > 0
		}
	}
	return 0, false
}

// shrink goes back to the BufferSize buffer as soon as the line that grew
// the buffer is consumed, so that what follows a long line is read in
// BufferSize reads; the long line's buffer becomes the spare for the next
// one (longBuffer).
func (d *Decoder) shrink() {
	if len(d.buf) > d.opts.BufferSize && d.end-d.start <= len(d.small) {
		if d.pipe == nil {
			// (A Parallel decoder's batch took the buffer over, and hands
			// it back when it is consumed.)
			d.spare = d.buf[:cap(d.buf)]
		}
		d.nl = 0
		n := copy(d.small, d.buf[d.start:d.end])
		d.base += int64(d.start)
		d.start, d.end, d.scan = 0, n, 0
		d.buf = d.small
	}
}

// bufferedLines returns the whole lines in the buffer (through its last
// '\n') and the input offset of the first, consuming them; nil when no
// whole line is buffered. The lines are lent to a Parallel decoder's
// batch.
func (d *Decoder) bufferedLines() ([]byte, int64) {
	d.shrink()
	data := d.buf[d.start:d.end]
	i := lastNewline(data[d.scan:])
	if i < 0 {
		d.scan = len(data)
		return nil, 0
	}
	n := d.scan + i + 1
	off := d.base + int64(d.start)
	d.start += n
	d.scan, d.nl = 0, 0
	d.lent = true
	return data[:n:n], off
}

// roomToRead reports whether fill can read more without growing the
// buffer for one long line (readLine's part), and the input goes on.
func (d *Decoder) roomToRead() bool {
	return !d.eof && d.err == nil && len(d.buf) == len(d.small) && (d.start > 0 || d.end < len(d.buf))
}

// lastNewline is bytes.LastIndexByte(b, '\n') with the vector search of
// IndexByte (LastIndexByte goes a byte at a time: a fifth of final's time),
// on windows that grow from the end.
func lastNewline(b []byte) int {
	end := len(b)
	for w := 4 << 10; end > 0; w *= 2 {
		from := max(end-w, 0)
		if i := bytes.IndexByte(b[from:end], '\n'); i >= 0 {
			last := from + i
			for {
				j := bytes.IndexByte(b[last+1:end], '\n')
				if j < 0 {
					return last
				}
				last += 1 + j
			}
		}
		end = from
	}
	return -1
}

// readLine returns the next line without its '\n' and the input offset of
// its first byte. An over-long line is consumed and reported.
func (d *Decoder) readLine() ([]byte, int64, error) {
	d.shrink()
	for {
		data := d.buf[d.start:d.end]
		i := -1
		if d.nl > d.start {
			i, d.nl = d.nl-1-d.start-d.scan, 0 // found by lineBuffered
		} else {
			i = bytes.IndexByte(data[d.scan:], '\n')
		}
		if i >= 0 {
			n := d.scan + i
			line := data[:n]
			off := d.base + int64(d.start)
			d.start += n + 1
			d.scan = 0
			d.line++
			if len(line) > d.opts.MaxLineBytes {
				return nil, 0, &LineTooLongError{Source: d.opts.Source, Line: d.line, Offset: off, Size: int64(len(line)), Max: d.opts.MaxLineBytes}
			}
			return line, off, nil
		}
		d.scan = len(data)
		if len(data) > d.opts.MaxLineBytes {
			return nil, 0, d.discardLine()
		}
		if d.opts.SkipLong != nil && d.opts.Check != CheckAll && !d.array && d.start == 0 && d.end == len(d.buf) && len(d.buf) == len(d.small) {
			if head, off, err, ok := d.skipLong(); ok {
				d.skipped = err == nil
				return head, off, err
			}
		}
		if err := d.fill(); err != nil {
			if err == io.EOF && d.end > d.start {
				// Last line without a final newline.
				line := d.buf[d.start:d.end]
				off := d.base + int64(d.start)
				d.start = d.end
				d.scan = 0
				d.line++
				return line, off, nil
			}
			return nil, 0, err
		}
		// fill may have moved the data; scan resumes where it stopped.
	}
}

// discardLine skips the rest of an over-long line without keeping it.
func (d *Decoder) discardLine() error {
	d.writable()
	off := d.base + int64(d.start)
	size := int64(d.end - d.start)
	d.start, d.end, d.scan = 0, 0, 0
	d.base = off + size
	d.line++
	lineNo := d.line
	for {
		if err := d.fill(); err != nil {
			if err == io.EOF {
				break
			}
			return err
		}
		data := d.buf[d.start:d.end]
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			size += int64(i)
			d.start += i + 1
			break
		}
		size += int64(len(data))
		d.base += int64(d.end)
		d.start, d.end = 0, 0
	}
	return &LineTooLongError{Source: d.opts.Source, Line: lineNo, Offset: off, Size: size, Max: d.opts.MaxLineBytes}
}

// nextElement returns the next element of a JSON array input. Each element
// is cut out by a small resumable scanner, so the array is never held whole.
func (d *Decoder) nextElement() (*Event, error) {
	d.shrink()
	for {
		// Skip separators.
		for {
			for d.start < d.end {
				c := d.buf[d.start]
				if c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != ',' {
					break
				}
				d.start++
			}
			if d.start < d.end {
				break
			}
			if err := d.fill(); err != nil {
				if err == io.EOF && !d.arrEnd {
					d.arrEnd = true // report it once
					return nil, &SyntaxError{Source: d.opts.Source, Line: d.line + 1, Offset: d.base + int64(d.end),
						Err: errors.New("JSON array input ends without its closing ']'"), Truncated: true}
				}
				return nil, err
			}
		}
		if d.arrEnd {
			err := &SyntaxError{Source: d.opts.Source, Line: d.line + 1, Offset: d.base + int64(d.start),
				Err: fmt.Errorf("unexpected %q after the closing ']' of a JSON array", d.buf[d.start])}
			// Reported once; what follows the array is read and dropped
			// (returning the error without consuming looped forever).
			for d.start = d.end; ; d.start = d.end {
				if ferr := d.fill(); ferr != nil {
					if ferr != io.EOF {
						d.err = ferr
					}
					break
				}
			}
			return nil, err
		}
		if d.buf[d.start] == ']' {
			d.start++
			d.arrEnd = true
			continue
		}
		// Find the element's end, reading more as needed.
		var st elemScanner
		pos := d.start
		for {
			n, done := st.feed(d.buf[pos:d.end])
			pos += n
			if done {
				break
			}
			if pos-d.start > d.opts.MaxLineBytes {
				return nil, d.discardElement(&st, pos)
			}
			rel := pos - d.start
			if err := d.fill(); err != nil {
				if err == io.EOF {
					elem := d.buf[d.start:d.end]
					off := d.base + int64(d.start)
					d.start = d.end
					d.line++
					d.arrEnd = true // the cut element says it all
					if verr := jsonx.Validate(elem); verr != nil {
						return nil, d.syntaxError(elem, off, verr)
					}
					return d.event(elem, off)
				}
				return nil, err
			}
			pos = d.start + rel
		}
		elem := d.buf[d.start:pos]
		off := d.base + int64(d.start)
		d.line++ // elements are numbered like lines
		d.start = pos
		return d.event(elem, off)
	}
}

func (d *Decoder) discardElement(st *elemScanner, pos int) error {
	off := d.base + int64(d.start)
	size := int64(pos - d.start)
	d.line++
	lineNo := d.line
	d.base += int64(pos)
	d.start, d.end = 0, 0
	for {
		if err := d.fill(); err != nil {
			if err == io.EOF {
				break
			}
			return err
		}
		n, done := st.feed(d.buf[d.start:d.end])
		size += int64(n)
		if done {
			d.start += n
			break
		}
		d.base += int64(d.end)
		d.start, d.end = 0, 0
	}
	return &LineTooLongError{Source: d.opts.Source, Line: lineNo, Offset: off, Size: size, Max: d.opts.MaxLineBytes}
}

// elemScanner finds where one JSON value ends in a byte stream that arrives
// in pieces.
type elemScanner struct {
	depth    int
	inString bool
	escape   bool
	started  bool
	scalar   bool
}

// feed consumes b and returns how many bytes belong to the value and whether
// the value ended.
func (s *elemScanner) feed(b []byte) (int, bool) {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if s.inString {
			switch {
			case s.escape:
				s.escape = false
			case c == '\\':
				s.escape = true
			case c == '"':
				s.inString = false
				if s.depth == 0 {
					return i + 1, true
				}
			default:
				// Jump to the next quote or backslash.
				j := i + 1
				for j < len(b) && b[j] != '"' && b[j] != '\\' {
					j++
				}
				i = j - 1
			}
			continue
		}
		if s.scalar {
			switch c {
			case ',', ']', ' ', '\t', '\r', '\n', '}':
				return i, true
			}
			continue
		}
		switch c {
		case '"':
			s.inString = true
			s.started = true
		case '{', '[':
			s.depth++
			s.started = true
		case '}', ']':
			s.depth--
			if s.depth <= 0 {
				return i + 1, true
			}
		case ' ', '\t', '\r', '\n':
		default:
			if !s.started {
				s.scalar = true
				s.started = true
			}
		}
	}
	return len(b), false
}

// preview returns the start of b for an error message.
func preview(b []byte) string {
	const n = 40
	if len(b) > n {
		return fmt.Sprintf("%q…", b[:n])
	}
	return fmt.Sprintf("%q", b)
}
