package jsonx

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

// DecodeValid validates b as one JSON value and builds its tree (the types
// of Decode) in the same pass. Validate followed by Decode walks a line
// once to validate it and then once more per level of nesting, each walk
// jumping over the same megabyte of tool result; this walks it once. The
// error is the one Validate gives.
func DecodeValid(b []byte) (any, error) {
	p := parser{b: b}
	i := skipSpace(b, 0)
	v, end, ok := p.value(i, 0, nil)
	if ok {
		if end = skipSpace(b, end); end == len(b) {
			return v, nil
		}
	}
	if err := Validate(b); err != nil {
		return nil, err
	}
	// Unreachable while the parser and Validate agree (FuzzValidateDecode).
	return nil, &SyntaxError{Offset: end, Msg: "invalid JSON"}
}

// parser builds trees; it reports only whether the input is valid, and
// DecodeValid asks Validate for the reason, which keeps one source of error
// messages.
type parser struct {
	b []byte
}

// value decodes the value at b[i] through proj (nil: whole; see
// Projection). Through a projection, the members and elements that are not
// read are passed over with skip, unvalidated: DecodeProjected's input is
// valid JSON.
func (p *parser) value(i, depth int, proj *Projection) (any, int, bool) {
	b := p.b
	if i >= len(b) {
		return nil, i, false
	}
	if proj != nil && proj.whole {
		proj = nil
	}
	switch c := b[i]; {
	case c == '"':
		return p.str(i)
	case c == '{':
		if depth >= MaxDepth {
			return nil, i, false
		}
		if proj != nil && proj.index != nil {
			proj = nil // an object where an index follows: whole
		}
		m := make(map[string]any, 8)
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return m, i + 1, true
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return nil, i, false
			}
			k, e, ok := p.str(i)
			if !ok {
				return nil, e, false
			}
			i = skipSpace(b, e)
			if i >= len(b) || b[i] != ':' {
				return nil, i, false
			}
			if sub, read := proj.key(k.(string)); read {
				v, e, ok := p.value(skipSpace(b, i+1), depth+1, sub)
				if !ok {
					return nil, e, false
				}
				m[k.(string)] = v // a later duplicate wins
				i = e
			} else if i = skip(b, skipSpace(b, i+1)); i < 0 {
				return nil, len(b), false
			}
			i = skipSpace(b, i)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
				continue
			}
			if i < len(b) && b[i] == '}' {
				return m, i + 1, true
			}
			return nil, i, false
		}
	case c == '[':
		if depth >= MaxDepth {
			return nil, i, false
		}
		if proj != nil && proj.keys != nil {
			proj = nil // an array where a key follows: whole
		}
		start := i
		arr := make([]any, 0, 4)
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return arr, i + 1, true
		}
		for n := 0; ; n++ {
			if proj != nil && n > proj.last {
				// The rest is never looked at: only where it ends.
				end := skip(b, start)
				return arr, end, end >= 0
			}
			if sub, read := proj.element(n); read {
				v, e, ok := p.value(i, depth+1, sub)
				if !ok {
					return nil, e, false
				}
				arr = append(arr, v)
				i = e
			} else if arr, i = append(arr, nil), skip(b, i); i < 0 { // nil in its place
				return nil, len(b), false
			}
			i = skipSpace(b, i)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
				continue
			}
			if i < len(b) && b[i] == ']' {
				return arr, i + 1, true
			}
			return nil, i, false
		}
	case c == '-' || isDigit(c):
		e, err := validNumber(b, i)
		if err != nil {
			return nil, e, false
		}
		return decodeNumber(Value(b[i:e])), e, true
	case c == 't':
		e, err := validLiteral(b, i, "true")
		return true, e, err == nil
	case c == 'f':
		e, err := validLiteral(b, i, "false")
		return false, e, err == nil
	case c == 'n':
		e, err := validLiteral(b, i, "null")
		return nil, e, err == nil
	}
	return nil, i, false
}

// str decodes the string at b[i], rejecting an invalid escape.
func (p *parser) str(i int) (any, int, bool) {
	end := stringEnd(p.b, i)
	if end < 0 {
		return nil, len(p.b), false
	}
	body := p.b[i+1 : end-1]
	if plainBody(body) {
		return validUTF8(body), end, true
	}
	if controlAt(body) >= 0 {
		return nil, end, false // (Validate says why)
	}
	s, ok := unquote(body)
	return s, end, ok
}

// unquote decodes the escapes of a string body into a buffer of its size
// (escapes only shrink). It copies eight bytes at a time and jumps to the
// next backslash within them (nextEscape): tool results have an escape
// every twenty bytes or so, and this was the slowest part of building a
// tree. Invalid escapes are kept literally and reported with ok=false.
// Invalid UTF-8 becomes U+FFFD, as in jq.
func unquote(body []byte) (string, bool) {
	out, ok := unquoteTo(make([]byte, len(body)), body)
	if !utf8.Valid(out) {
		return validUTF8(out), ok
	}
	// out is not touched again: the string can share its bytes.
	return unsafe.String(unsafe.SliceData(out), len(out)), ok
}

// unquoteTo decodes the escapes of a string body into out, which has room
// for len(body) bytes, and returns the decoded bytes (UTF-8 not checked).
func unquoteTo(out, body []byte) ([]byte, bool) {
	ok := true
	i, j, n := 0, 0, len(body)
	for i < n {
		// Copy up to the next backslash; out has room for eight more
		// bytes wherever body has them, since j <= i.
		k := nextEscape(body, i, out[j:])
		j += k - i
		i = k
		if i >= n {
			break
		}
		if i+1 >= n {
			out[j] = '\\'
			j++
			ok = false
			break
		}
		w := 2
		switch c := body[i+1]; c {
		case '"', '\\', '/':
			out[j] = c
			j++
		case 'b', 'f', 'n', 'r', 't':
			out[j] = simpleEscapes[c]
			j++
		case 'u':
			r, m := unicodeEscape(body[i:])
			if m == 0 {
				out[j], out[j+1] = '\\', 'u'
				j += 2
				ok = false
				break
			}
			for _, h := range body[i+2 : i+6] {
				if hexVal(h) < 0 {
					ok = false // decoded as U+FFFD, but not valid JSON
				}
			}
			j += utf8.EncodeRune(out[j:], r)
			w = m
		default:
			out[j], out[j+1] = '\\', c
			j += 2
			ok = false
		}
		i += w
	}
	return out[:j], ok
}

// nextEscape returns the offset of the first backslash in b at or after i
// (len(b) if none), eight bytes at a time. When dst is not nil the bytes
// before it are copied to dst (whole words: bytes past the backslash may be
// written too, for the caller to overwrite).
func nextEscape(b []byte, i int, dst []byte) int {
	d := 0
	for i+8 <= len(b) {
		x := binary.LittleEndian.Uint64(b[i:])
		if dst != nil {
			binary.LittleEndian.PutUint64(dst[d:], x)
		}
		if m := isBackslash(x); m != 0 {
			// The lowest flagged byte is always a real backslash.
			return i + bits.TrailingZeros64(m)>>3
		}
		i, d = i+8, d+8
	}
	for ; i < len(b); i, d = i+1, d+1 {
		if b[i] == '\\' {
			return i
		}
		if dst != nil {
			dst[d] = b[i]
		}
	}
	return i
}

// simpleEscapes maps the letter of a one-letter escape to its byte.
var simpleEscapes = [256]byte{'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// unicodeEscape decodes the \uXXXX escape at the start of s (and the low
// half of a surrogate pair after it), returning the rune and the bytes
// used, or n == 0 when fewer than four hex digits follow. A lone surrogate
// or a bad digit decodes as U+FFFD, as in jq.
func unicodeEscape(s []byte) (r rune, n int) {
	if len(s) < 6 {
		return 0, 0
	}
	r = rune(hex4(s[2:6]))
	if r >= 0xD800 && r < 0xDC00 && len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
		if lo := rune(hex4(s[8:12])); lo >= 0xDC00 && lo < 0xE000 {
			return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), 12
		}
	}
	if r >= 0xD800 && r < 0xE000 {
		return utf8.RuneError, 6
	}
	return r, 6
}

// AppendUnquoted appends the decoded text of a string's body (the bytes
// between its quotes) to dst: for a caller that reads each string of a
// line as its reader sees it (the redaction of values). ok is false when
// an escape is invalid (it is then kept literally). Invalid UTF-8 is kept
// as it is.
func AppendUnquoted(dst, body []byte) (out []byte, ok bool) {
	n := len(dst)
	dst = append(dst, make([]byte, len(body)+8)...) // room for the eight-byte copies
	out, ok = unquoteTo(dst[n:], body)
	return dst[:n+len(out)], ok
}

// EscapedOffset returns the offset in a valid string body of the decoded
// text's byte n (AppendUnquoted's): the start of the escape or byte that
// decodes to it, or, for a byte inside what one escape decodes to (a
// character of \uXXXX), the end of that escape when up, its start when
// not. For a caller that rewrites part of a decoded string and keeps the
// rest of its bytes as written.
func EscapedOffset(body []byte, n int, up bool) int {
	i, d := 0, 0
	for i < len(body) && d < n {
		if body[i] != '\\' || i+1 >= len(body) {
			i, d = i+1, d+1
			continue
		}
		w, out := 2, 1
		if body[i+1] == 'u' {
			r, m := unicodeEscape(body[i:])
			if m == 0 {
				return i
			}
			w, out = m, utf8.RuneLen(r)
			if out < 0 {
				out = 3
			}
		}
		if d+out > n && !up {
			return i // n is inside what this escape decodes to
		}
		i, d = i+w, d+out
	}
	return i
}
