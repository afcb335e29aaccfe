package render

import (
	"bytes"
	"unicode/utf8"
)

// indented writes the JSON value b re-indented and made safe, byte for byte
// what jsonSafe(reindent(b, indent)) gives (encoding/json's Indent, then
// the escapes of jsonSafe), straight into the output: re-indenting a long
// event into a buffer and escaping it into another cost four times its
// size (712 MB for a 150 MB text line). b must be valid JSON (the events
// a renderer gets are validated; jsonRenderer checks).
func (o *out) indented(b []byte, indent string) {
	depth := 0
	open := false // after '{' or '[': the indent waits, so that {} and [] stay whole
	newline := func() {
		o.byte('\n')
		for range depth {
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
			end := stringEnd(b, i)
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

// stringEnd returns the offset just past the string that starts at b[i]
// (a quote), or len(b) when it does not end.
func stringEnd(b []byte, i int) int {
	for j := i + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b)
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// safe writes b as jsonSafe(b) would be, without a copy of it.
func (o *out) safe(b []byte) {
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] < utf8.RuneSelf && b[i] != 0x7f {
			i++
		}
		o.bytes(b[:i])
		if i == len(b) {
			return
		}
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			o.str(`\ufffd`)
		case r == 0x7f || escapedRune(r):
			o.bytes([]byte{'\\', 'u', hexDigits[r>>12&15], hexDigits[r>>8&15], hexDigits[r>>4&15], hexDigits[r&15]})
		default:
			o.bytes(b[i : i+n])
		}
		b = b[i+n:]
	}
}
