package stream

import (
	"bytes"
	"io"
)

// An input held whole in memory (a session transcript of a tree of
// sessions, read in one read call: see Scratch.ReadWhole) is cut into
// lines where it lies: no read buffer refilled and its line's head moved
// to its start, no look-ahead and seek for each long line, no read call
// per MiB (on a tree of 1,272 sessions, 0.8 GB, those were a sixth of
// usage --by day's CPU time: docs/performance.md). Each line is then
// checked and classified by prepare, as the Decoder's are, so the events
// and the line errors are the Decoder's (TestBytesDecoderSameAsDecoder).

// bytesDecoder is the Reader of an input held in memory.
type bytesDecoder struct {
	data []byte
	pos  int   // offset of the next unread byte
	line int64 // number of the last line returned or passed over
	opts DecoderOptions
	ev   Event
}

// NewBytesDecoder returns a Reader of the input data, held whole in
// memory, that returns what a Decoder reading it from a file returns:
// the same events, line numbers, offsets and line errors. An input that
// opens with a JSON array, or is longer than the line cap (a line too
// long to return is told by where the Decoder's buffer filled), is read
// by a Decoder itself, from data. opts.Buffer is not used (nor
// opts.Scratch, whose buffer may be data).

func NewBytesDecoder(data []byte, opts DecoderOptions) Reader {
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = DefaultMaxLineBytes
	}
	opts.Scratch = nil
	start := 0
	if bytes.HasPrefix(data, []byte("\xEF\xBB\xBF")) {
		start = 3 // (a UTF-8 BOM: passed over, as the Decoder does; offsets count it)
	}
	if i := firstNonSpace(data[start:]); len(data) > opts.MaxLineBytes || i >= 0 && data[start+i] == '[' {
		return NewDecoder(bytes.NewReader(data), opts)
	}
	return &bytesDecoder{data: data, pos: start, opts: opts}
}

// IndexMessages has the events of r (a Decoder, or NewBytesDecoder's
// Reader; any other is returned as it is) index their message in the
// walk that checks their framing, for a consumer that reads the message
// of nearly every event it takes: a usage account (AssistantHead) or a
// listing of sessions, which then walked each message (a call's whole
// input) a second time. Its events are the same (see Event.frame).
func IndexMessages(r Reader) Reader {
	switch d := r.(type) {
	case *Decoder:
		d.ev.nestMsg = true
	case *bytesDecoder:
		d.ev.nestMsg = true
	}
	return r
}

// firstNonSpace is the index of b's first byte that is not a space, a
// tab or a line end; -1 when there is none.
func firstNonSpace(b []byte) int {
	for i, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return i
	}
	return -1
}

func (d *bytesDecoder) Next() (*Event, error) {
	for d.pos < len(d.data) {
		off := d.pos
		rest := d.data[off:]
		end := bytes.IndexByte(rest, '\n')
		if end < 0 {
			end = len(rest) // the last line, without a final newline
			d.pos = len(d.data)
		} else {
			d.pos += end + 1
		}
		d.line++
		line := trimLine(rest[:end])
		if len(line) == 0 {
			continue // blank line
		}
		if d.opts.Want != nil && !d.opts.Want(line) {
			continue // not read: the consumer has no use for it
		}
		if err := prepare(&d.ev, line, &d.opts, d.line, int64(off), nil, nil, nil); err != nil {
			return nil, err
		}
		return &d.ev, nil
	}
	d.ev = Event{nestMsg: d.ev.nestMsg}
	return nil, io.EOF
}

// Buffered is true: the whole input is in memory.
func (d *bytesDecoder) Buffered() bool { return true }

// Close holds nothing to release (data is the caller's).
func (d *bytesDecoder) Close() error { return nil }

// ReadWhole reads r to its end into the Scratch's buffer, which it then
// returns (valid until the Scratch is used again): size, the input's
// size when it was looked at, sizes the buffer, and a file that has grown
// since is read on to its end, as a Decoder reads it. The buffer is kept
// for the next input, as a long line's is: its memory stays at the
// largest input read until the caller drops the Scratch.
func (s *Scratch) ReadWhole(r io.Reader, size int64) ([]byte, error) {
	if int64(cap(s.long)) < size+1 {
		s.long = nil // the GC may take the old one before the new one is made
		s.long = make([]byte, 0, size+1)
	}
	buf := s.long[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // (the file grew: room for more)
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			s.long = buf[:0]
			return buf, nil
		}
		if err != nil {
			s.long = buf[:0]
			return nil, err
		}
	}
}
