package render

import "github.com/ccfilter/ccfilter/internal/jsonx"

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
	depth := 0
	open := false // after '{' or '[': the indent waits, so that {} and [] stay whole
	newline := func() {
		o.byte('\n')
		for range base + depth {
			o.str(indent)
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
			o.safe(b[i:end])
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
			o.byte(' ')
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

func delimiter(c byte) bool {
	switch c {
	case ',', ':', ']', '}', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// safe writes the JSON text b as jsonSafe(b) would be (as TerminalSafe
// to a terminal), without a copy of it.
func (o *out) safe(b []byte) { o.escaped(b, o.term) }
