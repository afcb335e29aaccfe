package jsonx

// String writing, for the few places that build JSON by hand (a test
// generator's lines; an input kind's reader translating another CLI's
// records): escaped in one pass, without reflection.

const quoteHex = "0123456789abcdef"

// needsEscape[b] is true for bytes that cannot be copied verbatim into a JSON
// string: control characters, '"' and '\\'. 0xE2 is flagged too so that the
// slow path can check for U+2028/U+2029, which claude-code writes as escapes.
var needsEscape = func() (t [256]bool) {
	for i := 0; i < 0x20; i++ {
		t[i] = true
	}
	t['"'] = true
	t['\\'] = true
	t[0xE2] = true
	return t
}()

// AppendEscaped appends s escaped as the inside of a JSON string (no quotes),
// the way JavaScript's JSON.stringify does it (\b \f \n \r \t, other controls
// as \u00XX with lower-case hex) plus \u2028/\u2029 as claude-code emits them.
// s must be valid UTF-8.
func AppendEscaped(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !needsEscape[c] {
			continue
		}
		if c == 0xE2 {
			if i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9) {
				dst = append(dst, s[start:i]...)
				if s[i+2] == 0xA8 {
					dst = append(dst, `\u2028`...)
				} else {
					dst = append(dst, `\u2029`...)
				}
				i += 2
				start = i + 1
			}
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		default:
			dst = append(dst, '\\', 'u', '0', '0', quoteHex[c>>4], quoteHex[c&0xF])
		}
		start = i + 1
	}
	return append(dst, s[start:]...)
}

// AppendQuoted appends s as a complete JSON string literal.
func AppendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = AppendEscaped(dst, s)
	return append(dst, '"')
}
