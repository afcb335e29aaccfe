package stream

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/ccfilter/ccfilter/internal/jsonx"
)

// JSON-array input: what `claude -p --output-format json --verbose` prints,
// one array of the same events. Its elements are numbered like lines.

// nextElement returns the next element of a JSON array input. Each element
// is cut out by a small resumable scanner, so the array is never held whole.
func (d *Decoder) nextElement() (*Event, error) {
	if err := d.skipSeparators(); err != nil {
		return nil, err
	}
	var st elemScanner
	off := d.off
	elem := d.longBuffer(0)
	size := int64(0)
	for {
		if d.br.Buffered() == 0 {
			if _, err := d.br.Peek(1); err == io.EOF {
				break // cut off: the element's check says so
			} else if err != nil {
				return nil, d.fail(err)
			}
		}
		b, _ := d.br.Peek(d.br.Buffered())
		n, done := st.feed(b)
		size += int64(n)
		if size <= int64(d.opts.MaxLineBytes) {
			elem = append(elem, b[:n]...)
		}
		d.arrLines += int64(bytes.Count(b[:n], []byte{'\n'}))
		d.discard(n)
		if done {
			break
		}
	}
	d.s.long = elem
	d.line++ // elements are numbered like lines
	if size > int64(d.opts.MaxLineBytes) {
		return nil, d.tooLong(size, off)
	}
	if st.depth > 0 || st.inString || !st.started {
		d.arrEnd = true // the cut element says it all
		if err := jsonx.Validate(elem); err != nil {
			return nil, newSyntaxError(d.opts.Source, d.line, off, elem, err)
		}
	}
	if err := prepare(&d.ev, elem, &d.opts, d.line, off, d.screen, nil, nil); err != nil {
		return nil, err
	}
	return &d.ev, nil
}

// skipSeparators reads up to the next element: past spaces and commas,
// through the closing ']', reporting an array that ends without it or
// anything after it (once; the rest is read and dropped).
func (d *Decoder) skipSeparators() error {
	for {
		c, err := d.br.ReadByte()
		if err == io.EOF && !d.arrEnd {
			d.arrEnd = true
			return &SyntaxError{Source: d.opts.Source, Line: d.line + 1, Offset: d.off,
				Err: errors.New("JSON array input ends without its closing ']'"), Truncated: true}
		}
		if err != nil {
			return d.fail(err)
		}
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',':
			d.off++
			if c == '\n' {
				d.arrLines++
			}
		case d.arrEnd:
			// More after the array: the input is not one array but lines,
			// the first of them an array ('[]' before a stream, say). The
			// array's line is reported, and the lines after it read as
			// lines, numbered as they are, none of them dropped.
			if err := d.br.UnreadByte(); err != nil {
				return d.fail(err)
			}
			err := &SyntaxError{Source: d.opts.Source, Line: d.arrEndLine, Offset: 0,
				Err: fmt.Errorf("a JSON array among the event lines, not one event (its %d elements were read as events; an input that is one array, --output-format json, has nothing after it); the lines after it are read", d.line)}
			d.array, d.line = false, d.arrLines // what follows on the array's own line is that line's
			return err
		case c == ']':
			d.off++
			d.arrEnd = true
			d.arrEndLine = d.arrLines + 1
		default:
			return d.br.UnreadByte()
		}
	}
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
