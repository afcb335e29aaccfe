package render

import (
	"bufio"
	"bytes"
	"encoding/json"

	"github.com/ccfilter/ccfilter/internal/jsonx"
)

// indented writes the JSON value b re-indented and made safe, byte for byte
// what jsonSafe(reindent(b, indent)) gives (encoding/json's Indent, then
// the escapes of jsonSafe), straight into the output: re-indenting a long
// event into a buffer and escaping it into another cost four times its
// size (712 MB for a 150 MB text line). b must be valid JSON (the events
// a renderer gets are validated; jsonRenderer checks).
func (o *out) indented(b []byte, indent string) { o.indentedAt(b, indent, 0) }

// indentedAt is indented for a value nested base levels deep (an element
// of an array): its lines after the first are indented base levels more.
func (o *out) indentedAt(b []byte, indent string, base int) {
	o.jsonText(b, jsonLayout{indent: indent, base: base})
}

// jsonLayout is how jsonText lays out JSON text.
type jsonLayout struct {
	indent string
	base   int // levels the value is nested: its lines after the first go this much deeper
	// compact writes no space or newline between tokens (encoding/json's
	// Compact); else as encoding/json's Indent.
	compact bool
	// bytes writes strings as the output's bytes (out.bytes: NDJSON, a
	// pipeline's text), not made safe (out.safe).
	bytes bool
}

// jsonText writes the valid JSON text b laid out as l says.
func (o *out) jsonText(b []byte, l jsonLayout) {
	depth := 0
	open := false // after '{' or '[': the indent waits, so that {} and [] stay whole
	newline := func() {
		if l.compact {
			return
		}
		o.byte('\n')
		for range l.base + depth {
			o.str(l.indent)
		}
	}
	for i := 0; i < len(b); {
		c := b[i]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			i++
			continue
		}
		if open && c != '}' && c != ']' {
			open = false
			depth++
			newline()
		}
		switch c {
		case '"':
			end := jsonx.StringEnd(b, i)
			if end < 0 {
				end = len(b) // (it does not end: b is not valid)
			}
			if l.bytes {
				o.bytes(b[i:end])
			} else {
				o.safe(b[i:end])
			}
			i = end
			continue
		case '{', '[':
			open = true
			o.byte(c)
		case ',':
			o.byte(c)
			newline()
		case ':':
			o.byte(c)
			if !l.compact {
				o.byte(' ')
			}
		case '}', ']':
			if open {
				open = false
			} else {
				depth--
				newline()
			}
			o.byte(c)
		default: // a number or a literal, up to the next delimiter
			j := i + 1
			for j < len(b) && !delimiter(b[j]) {
				j++
			}
			o.bytes(b[i:j])
			i = j
			continue
		}
		i++
	}
}

// row writes r as the JSON object json.Marshal(r) is, laid out as l says,
// straight into the output: a tool call's input (a whole file for a
// Write) is laid out from the call's own bytes, where encoding/json made
// the object, compacted the input into it and indented that (a 100 MB
// Write: 630 MB for tools -F json).
// The values are rowValues(r)'s.
func (o *out) row(r *Row, values [][]byte, l jsonLayout) {
	inner := l
	inner.base++
	o.byte('{')
	for i, c := range r.Columns {
		if i > 0 {
			o.byte(',')
		}
		if !l.compact {
			o.byte('\n')
			for range inner.base {
				o.str(l.indent)
			}
		}
		k, _ := json.Marshal(c)
		o.jsonText(k, inner)
		o.byte(':')
		if !l.compact {
			o.byte(' ')
		}
		o.jsonText(values[i], inner)
	}
	if !l.compact && len(r.Columns) > 0 {
		o.byte('\n')
		for range l.base {
			o.str(l.indent)
		}
	}
	o.byte('}')
}

// rowValues are the values of r as JSON text (rowValue), or the error
// encoding/json gives on one.
func rowValues(r *Row) ([][]byte, error) {
	values := make([][]byte, len(r.Values))
	for i, v := range r.Values {
		b, err := rowValue(v)
		if err != nil {
			return nil, err
		}
		values[i] = b
	}
	return values, nil
}

// rowValue is a row's value as JSON text: JSON text itself (a tool call's
// input) as it is, when it is valid (jsonText lays it out); the rest as
// encoding/json writes it.
func rowValue(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok && len(raw) > 0 && jsonx.Validate(raw) == nil {
		return raw, nil
	}
	return marshal(v, "", true)
}

func delimiter(c byte) bool {
	switch c {
	case ',', ':', ']', '}', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// safe writes the JSON text b as jsonSafe(b) would be (as TerminalSafe
// to a terminal), without a copy of it.
func (o *out) safe(b []byte) {
	if o.verbatim {
		o.raw(b)
		return
	}
	o.escaped(b, o.term)
}

// indentedCapped is capText(string(jsonSafe(reindent(b, indent))),
// maxBytes, maxLines) (without jsonSafe when verbatim; b itself when it is
// not JSON) made without the whole text: the indented text goes through a
// writer that keeps its first maxBytes+1 bytes and counts the rest. A
// report shows the head of a tool call's input: re-indenting a 100 MB
// Write's input whole, then escaping and cutting it, cost four copies of
// it.
func indentedCapped(b []byte, indent string, verbatim bool, maxBytes, maxLines int) (string, string) {
	h := &headWriter{max: maxBytes + 1}
	o := out{w: bufio.NewWriterSize(h, 4<<10), verbatim: verbatim}
	if len(b) > 0 && jsonx.Validate(b) == nil {
		o.indented(b, indent)
	} else {
		o.safe(b) // (as reindent's error left it)
	}
	o.Flush()
	head, cut := capHead(string(h.head), maxBytes, maxLines)
	if !cut {
		return head, ""
	}
	lines := h.lines
	if h.last != '\n' {
		lines++
	}
	return head, capNote(head, h.size, lines)
}

// headWriter keeps the first max bytes written to it, and counts them
// all and their lines.
type headWriter struct {
	head  []byte
	max   int
	size  int
	lines int64 // newlines
	last  byte
}

func (h *headWriter) Write(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if room := h.max - len(h.head); room > 0 {
		h.head = append(h.head, b[:min(room, len(b))]...)
	}
	h.size += len(b)
	h.lines += int64(bytes.Count(b, []byte{'\n'}))
	h.last = b[len(b)-1]
	return len(b), nil
}
