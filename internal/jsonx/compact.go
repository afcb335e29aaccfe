package jsonx

// AppendCompact appends src without the whitespace between its tokens, as
// encoding/json's Compact writes it, copying each string whole (one jump
// per string, not a state change per byte: tool inputs carry whole
// files). ok is false, and dst is returned as it was, when src is not one
// valid JSON value or holds a byte below 0x20 (where Compact's answer
// would be an error: a raw control byte in a string), or nests deeper than
// compactMaxDepth: the caller then asks encoding/json.
func AppendCompact(dst, src []byte) (out []byte, ok bool) {
	if controlAt(src) >= 0 || Validate(src) != nil {
		return dst, false
	}
	start := len(dst)
	depth := 0
	for i := 0; i < len(src); {
		switch c := src[i]; c {
		case ' ':
			i++
		case '"':
			end := stringEnd(src, i)
			dst = append(dst, src[i:end]...)
			i = end
		default:
			switch c {
			case '{', '[':
				if depth++; depth > compactMaxDepth {
					return dst[:start], false
				}
			case '}', ']':
				depth--
			}
			// A run of number, literal and punctuation bytes.
			j := i + 1
			for j < len(src) && src[j] != ' ' && src[j] != '"' && src[j] != '{' && src[j] != '[' && src[j] != '}' && src[j] != ']' {
				j++
			}
			dst = append(dst, src[i:j]...)
			i = j
		}
	}
	return dst, true
}

// compactMaxDepth keeps AppendCompact well inside the nesting both it and
// encoding/json accept.
const compactMaxDepth = 1000

// IsCompact reports whether src is its own compaction: no space, tab, CR
// or LF outside its strings. A valid value without them compacts to
// itself, and an invalid one is written as it is too (AppendCompact's
// callers fall back to encoding/json, which refuses it), so a caller may
// take src as it is without validating it: Claude Code writes every tool
// input compact, and the CSV validated and copied each one for nothing
// (an eighth of its writer's work). On invalid input the answer is
// anything: src is then written as it is either way.
func IsCompact(src []byte) bool {
	for i := 0; i < len(src); {
		switch src[i] {
		case '"':
			if i = stringEnd(src, i); i < 0 {
				return true // (invalid)
			}
		case ' ', '\t', '\n', '\r':
			return false
		default:
			i++
		}
	}
	return true
}
