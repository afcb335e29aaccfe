package stream

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/ccfilter/ccfilter/internal/jsonx"
)

// Passing over long lines. A consumer that only needs the kind of most
// events (type counts, the final answer) does not need a 50 MB tool result
// in memory: DecoderOptions.SkipLong lets the decoder classify a line that
// does not fit in its buffer from the buffer's worth of head, and then read
// the rest through the buffer, checking its framing as it goes, without
// keeping it. Memory then stays at the buffer size however long the lines.

// headBytes is how much of a passed-over line Event.Raw keeps.
const headBytes = 64 << 10

// skipped is what readLine tells its caller about a line it passed over.
type skipped struct {
	typ, subtype string
	kind         Kind
}

// headKind classifies a line from its head alone, when the head decides
// it: a tool result (the first block says so), or an assistant block of a
// real model (its model and first block come first). Anything else needs
// the whole line.
func headKind(head []byte) (typ, subtype string, k Kind, sure bool) {
	typ, subtype = discriminators(head)
	v := jsonx.Value(head)
	// "type" must be the first key (as claude-code writes it, spaced or
	// not), so that no later key can change what the head says.
	var first [1]jsonx.Member
	if ms, _ := jsonx.Members(head, first[:0]); len(ms) == 0 || string(ms[0].Key) != "type" {
		return typ, subtype, 0, false
	}
	msg := v.Find("message")
	switch {
	case typ == "user":
		if msg.Find("content").First().Find("type").Trim().StrEqual("tool_result") {
			return typ, subtype, KindToolResult, true
		}
	case typ == "assistant":
		model := msg.Find("model").Trim()
		if model.Type() != jsonx.String || model.StrEqual("<synthetic>") {
			return typ, subtype, 0, false
		}
		if content := msg.Find("content"); content.Type() == jsonx.Array {
			k := blockKind(content)
			return typ, subtype, k, k != KindUnknown
		}
	}
	return typ, subtype, 0, false
}

// skipLong is called by readLine when the line at d.start fills the whole
// buffer. If SkipLong wants the line passed over, it reads the line to its
// end, checking its framing, and returns its head; ok is false when the
// line must be read whole.
func (d *Decoder) skipLong() (head []byte, off int64, err error, ok bool) {
	data := d.buf[d.start:d.end]
	typ, subtype, kind, sure := headKind(data)
	if !sure || !d.opts.SkipLong(kind) {
		return nil, 0, nil, false
	}
	d.writable() // the buffer is read into from its start again below
	data = d.buf[d.start:d.end]
	d.head = append(d.head[:0], data[:min(len(data), headBytes)]...)
	d.skip = skipped{typ, subtype, kind}
	off = d.base + int64(d.start)
	d.line++
	var fs frameScanner
	fs.feed(data)
	for {
		d.base += int64(d.end)
		d.start, d.end, d.scan, d.nl = 0, 0, 0, 0
		if err := d.fill(); err != nil {
			if err == io.EOF {
				break // the last line, without a final newline
			}
			return nil, 0, err, true
		}
		data = d.buf[d.start:d.end]
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			fs.feed(data[:i])
			d.start += i + 1
			break
		}
		fs.feed(data)
	}
	if fs.n > int64(d.opts.MaxLineBytes) {
		return nil, 0, &LineTooLongError{Source: d.opts.Source, Line: d.line, Offset: off, Size: fs.n, Max: d.opts.MaxLineBytes}, true
	}
	if se := fs.end(); se != nil {
		// A fault in the head reads as full validation states it (it scans
		// left to right, so the first fault it finds in the head is the
		// line's first); one further on is the framing fault found.
		var hv *jsonx.SyntaxError
		if errors.As(jsonx.Validate(d.head), &hv) && hv.Offset < len(d.head) {
			return nil, 0, &SyntaxError{Source: d.opts.Source, Line: d.line, Offset: off, Column: hv.Offset, Err: hv}, true
		}
		return nil, 0, &SyntaxError{Source: d.opts.Source, Line: d.line, Offset: off, Column: se.Offset,
			Truncated: fs.truncated, Err: se}, true
	}
	return d.head, off, nil, true
}

// frameScanner checks a line's framing chunk by chunk, as jsonx.Members
// does on a whole line: brackets balance, strings close, the top-level
// object's members are keys, colons, values and commas in turn, nothing
// but spaces follows the object. Its errors read as jsonx.Validate's for
// the same faults where it can tell.
type frameScanner struct {
	member    memberState // where the top-level object is, between its members
	n         int64       // bytes fed
	depth     int
	inStr     bool
	slashes   int   // backslashes that ended the last chunk, inside a string
	closed    bool  // the top-level value has ended
	trail     int64 // spaces at the end of what was fed
	err       *jsonx.SyntaxError
	truncated bool
}

// memberState is where a frameScanner is in the top-level object (depth 1,
// outside strings).
type memberState uint8

const (
	memberFirst  memberState = iota // after '{': a key or '}'
	memberKey                       // after ',': a key
	memberColon                     // after a key
	memberValue                     // after ':'
	memberScalar                    // in a number or literal
	memberNext                      // after a value: ',' or '}'
)

func (s *frameScanner) fail(at int, msg string) {
	s.err = &jsonx.SyntaxError{Offset: int(s.n) + at, Msg: msg}
}

func (s *frameScanner) feed(b []byte) {
	defer func() { s.n += int64(len(b)) }()
	if s.err != nil {
		return
	}
	for i := 0; i < len(b); {
		if s.depth >= 2 && len(b)-i >= 64 {
			// Inside a member's value: the fused block scanner passes over
			// what stays there (tool result text, mostly).
			ns := jsonx.NestedState{InString: s.inStr, Escaped: s.inStr && s.slashes%2 == 1, Depth: s.depth - 1}
			if k := jsonx.SkipNested(b[i:], &ns); k > 0 {
				s.inStr, s.depth, s.slashes = ns.InString, ns.Depth+1, b2i(ns.Escaped)
				if s.inStr {
					s.trail = 0
				} else if t := k - len(bytes.TrimRight(b[i:i+k], " \t\r")); t == k {
					s.trail += int64(t)
				} else {
					s.trail = int64(t)
				}
				i += k
				continue
			}
		}
		if s.inStr {
			k := bytes.IndexByte(b[i:], '"')
			if k < 0 {
				t := 0
				for p := len(b) - 1; p >= i && b[p] == '\\'; p-- {
					t++
				}
				if t == len(b)-i {
					s.slashes += t
				} else {
					s.slashes = t
				}
				s.trail = 0
				return
			}
			q := i + k
			n, p := 0, q-1
			for ; p >= i && b[p] == '\\'; p-- {
				n++
			}
			if p < i {
				n += s.slashes
			}
			s.slashes = 0
			i = q + 1
			if n%2 == 0 {
				s.inStr = false
				if s.depth == 1 {
					if s.member == memberFirst || s.member == memberKey {
						s.member = memberColon // the string was a key
					} else {
						s.member = memberNext
					}
				}
			}
			s.trail = 0
			continue
		}
		c := b[i]
		if c == ' ' || c == '\t' || c == '\r' {
			if s.depth == 1 && s.member == memberScalar {
				s.member = memberNext
			}
			s.trail++
			i++
			continue
		}
		s.trail = 0
		if s.closed {
			s.fail(i, fmt.Sprintf("unexpected %q after the value", c))
			return
		}
		if s.depth == 1 && !s.member1(c, i) {
			return
		}
		switch c {
		case '"':
			s.inStr, s.slashes = true, 0
		case '{', '[':
			s.depth++
		case '}', ']':
			s.depth--
			if s.depth <= 0 {
				s.closed = true
			}
			if s.depth == 1 {
				s.member = memberNext // a nested value has ended
			}
		}
		i++
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// member1 checks byte c, at offset i of the chunk, against the member
// syntax of the top-level object, and moves on; false: a fault, recorded.
func (s *frameScanner) member1(c byte, i int) bool {
	switch s.member {
	case memberFirst, memberKey:
		if c == '"' || c == '}' && s.member == memberFirst {
			return true // the key's end moves to memberColon
		}
		s.fail(i, "expected a string key")
	case memberColon:
		if c == ':' {
			s.member = memberValue
			return true
		}
		s.fail(i, "expected ':'")
	case memberValue:
		switch c {
		case '"', '{', '[':
			return true // their ends move to memberNext
		case '}', ']', ',', ':':
			s.fail(i, "expected a value")
		default:
			s.member = memberScalar
			return true
		}
	case memberScalar, memberNext:
		switch c {
		case ',':
			s.member = memberKey
			return true
		case '}':
			return true
		}
		if s.member == memberScalar && c != '"' && c != '{' && c != '[' && c != ']' && c != ':' {
			return true // the number or literal goes on
		}
		s.fail(i, "expected ',' or '}'")
	}
	return false
}

// end reports the line's framing error, if any, once it is all fed.
func (s *frameScanner) end() *jsonx.SyntaxError {
	if s.err != nil {
		return s.err
	}
	at := int(s.n - s.trail) // the line without its trailing spaces, as Validate sees it
	switch {
	case s.inStr:
		s.truncated = true
		return &jsonx.SyntaxError{Offset: at, Msg: "unterminated string: " + jsonx.ErrUnexpectedEnd.Error()}
	case !s.closed:
		s.truncated = true
		return &jsonx.SyntaxError{Offset: at, Msg: jsonx.ErrUnexpectedEnd.Error()}
	}
	return nil
}
