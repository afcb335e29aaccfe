// Package jsonx is a small, allocation-free JSON scanner for one line of a
// stream-json stream.
//
// Why not encoding/json: classifying an event needs three or four fields out
// of lines that can be megabytes long (a tool result holding a whole file).
// Building a tree, or even a typed struct, costs far more than finding those
// fields. jsonx validates a line's structure in one pass that jumps over
// string contents (quote to quote with bytes.IndexByte, or 64 bytes at a
// time with the block scanner of blocks.go on long values), and then reads fields straight out of
// the raw bytes (Value.Get), the way gjson does. A full tree (Decode) is built
// only when a caller asks for it, e.g. to hand the event to gojq.
//
// Every function is safe on arbitrary input: invalid bytes give a zero Value
// or an error, never a panic.
package jsonx

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// MaxDepth bounds nesting so that a hostile line such as "[[[[…" cannot
// exhaust the stack.
const MaxDepth = 10000

// SyntaxError describes why a byte slice is not one JSON value.
type SyntaxError struct {
	Offset int    // byte offset of the problem within the input
	Msg    string // what was wrong, e.g. "unexpected end of input"
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s at byte %d", e.Msg, e.Offset)
}

// ErrUnexpectedEnd is wrapped by the SyntaxError of an input that stops in
// the middle of a value (a line cut off by a killed producer).
var ErrUnexpectedEnd = errors.New("unexpected end of input")

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	if i < len(b) && b[i] > ' ' {
		// claude-code writes no space between tokens: one compare, not
		// four (skipSpace runs four times a member; a twentieth of
		// final's time went to its compares).
		return i
	}
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// Validate reports whether b holds exactly one JSON value, surrounded by
// optional whitespace, as RFC 8259 says: a control character written raw
// in a string is an error, as in jq; invalid UTF-8 is accepted (jq reads
// it as U+FFFD).
func Validate(b []byte) error {
	i := skipSpace(b, 0)
	if i == len(b) {
		return &SyntaxError{Offset: i, Msg: "empty input"}
	}
	end, err := validValue(b, i, 0)
	if err != nil {
		return err
	}
	end = skipSpace(b, end)
	if end != len(b) {
		return &SyntaxError{Offset: end, Msg: fmt.Sprintf("unexpected %q after the value", b[end])}
	}
	return nil
}

func errAt(b []byte, i int, what string) error {
	if i >= len(b) {
		return &SyntaxError{Offset: len(b), Msg: ErrUnexpectedEnd.Error()}
	}
	return &SyntaxError{Offset: i, Msg: fmt.Sprintf("unexpected %q, want %s", b[i], what)}
}

// validValue validates the value starting at b[i] and returns the offset just
// past it.
func validValue(b []byte, i, depth int) (int, error) {
	if i >= len(b) {
		return i, errAt(b, i, "a value")
	}
	switch c := b[i]; {
	case c == '"':
		return validString(b, i)
	case c == '{':
		if depth >= MaxDepth {
			return i, &SyntaxError{Offset: i, Msg: "nesting too deep"}
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1, nil
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return i, errAt(b, i, "a string key")
			}
			var err error
			if q := plainQuote(b, i+1, true); q >= 0 {
				i = q + 1 // (validString's first look, without its call)
			} else if i, err = validString(b, i); err != nil {
				return i, err
			}
			i = skipSpace(b, i)
			if i >= len(b) || b[i] != ':' {
				return i, errAt(b, i, "':'")
			}
			i = skipSpace(b, i+1)
			if i, err = validValue(b, i, depth+1); err != nil {
				return i, err
			}
			i = skipSpace(b, i)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
				continue
			}
			if i < len(b) && b[i] == '}' {
				return i + 1, nil
			}
			return i, errAt(b, i, "',' or '}'")
		}
	case c == '[':
		if depth >= MaxDepth {
			return i, &SyntaxError{Offset: i, Msg: "nesting too deep"}
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1, nil
		}
		for {
			var err error
			if i, err = validValue(b, i, depth+1); err != nil {
				return i, err
			}
			i = skipSpace(b, i)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
				continue
			}
			if i < len(b) && b[i] == ']' {
				return i + 1, nil
			}
			return i, errAt(b, i, "',' or ']'")
		}
	case c == '-' || (c >= '0' && c <= '9'):
		return validNumber(b, i)
	case c == 't':
		return validLiteral(b, i, "true")
	case c == 'f':
		return validLiteral(b, i, "false")
	case c == 'n':
		return validLiteral(b, i, "null")
	default:
		return i, errAt(b, i, "a value")
	}
}

func validLiteral(b []byte, i int, lit string) (int, error) {
	if len(b)-i < len(lit) {
		if string(b[i:]) == lit[:len(b)-i] {
			return len(b), errAt(b, len(b), lit)
		}
		return i, errAt(b, i, lit)
	}
	if string(b[i:i+len(lit)]) != lit {
		return i, &SyntaxError{Offset: i, Msg: "invalid literal, want " + lit}
	}
	return i + len(lit), nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func validNumber(b []byte, i int) (int, error) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && isDigit(b[i]):
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return i, errAt(b, i, "a digit")
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return i, errAt(b, i, "a digit")
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return i, errAt(b, i, "a digit")
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	return i, nil
}

// StringEnd is stringEnd for callers that walk JSON text themselves (the
// JSON renderer's re-indenter): faster on short strings than Value.Trim,
// which sets up the skip loop.
func StringEnd(b []byte, i int) int { return stringEnd(b, i) }

// stringEnd returns the offset just past the string that starts at b[i]
// (b[i] == '"'), or -1 when it is not terminated. It jumps from quote to
// quote with bytes.IndexByte; a quote preceded by an odd run of backslashes
// is escaped.
func stringEnd(b []byte, i int) int {
	j := i + 1
	for quotes := 0; ; quotes++ {
		if quotes == 2 && useBlocks {
			// Two escaped quotes already: a long string of escaped
			// text, where the block scanner is faster.
			return blockStringEnd(b, i)
		}
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
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

func validString(b []byte, i int) (int, error) {
	if q := plainQuote(b, i+1, true); q >= 0 {
		return q + 1, nil // short and plain: no escape, no control byte
	}
	if k := bytes.IndexByte(b[i+1:], '"'); useBlocks && (k < 0 || k >= blockStrLenMin || b[i+k] == '\\') {
		// Not a short string whose first quote closes it: one pass of the
		// block scanner finds its end and checks its escapes.
		end, bad, ctl := blockValidString(b, i)
		switch {
		case end < 0:
			return len(b), &SyntaxError{Offset: len(b), Msg: "unterminated string: " + ErrUnexpectedEnd.Error()}
		case bad >= 0:
			return bad, &SyntaxError{Offset: bad, Msg: "invalid escape in string"}
		case ctl >= 0:
			return ctl, controlError(b, ctl)
		}
		return end, nil
	} else if useBlocks && plainBody(b[i+1:i+1+k]) {
		// A short string whose first quote closes it, without escapes or
		// control characters (most keys and values): one more pass over
		// its few bytes.
		return i + k + 2, nil
	}
	end := stringEnd(b, i)
	if end < 0 {
		return len(b), &SyntaxError{Offset: len(b), Msg: "unterminated string: " + ErrUnexpectedEnd.Error()}
	}
	body := b[i+1 : end-1]
	if k := bytes.IndexByte(body, '\\'); k >= 0 {
		if off := badEscape(body[k:]); off >= 0 {
			return i + 1 + k + off, &SyntaxError{Offset: i + 1 + k + off, Msg: "invalid escape in string"}
		}
	}
	// (After the escapes, as the block scanner's path: both give the
	// same message.)
	return end, rawControl(b, i+1, end-1)
}

// plainQuote returns the offset of the quote that closes a string whose
// body starts at b[j], when it comes within 32 bytes of j with no
// backslash before it (nor, with ctl, a byte below 0x20), else -1 (the
// caller's general loop decides). One pass over a few words, eight bytes
// at a time, where the general loops set up a search and a check each:
// most keys and short values close within it.
func plainQuote(b []byte, j int, ctl bool) int {
	if j+32 > len(b) {
		return -1 // (near the line's end: the general loop)
	}
	w := b[j : j+32 : j+32] // one bounds check for the four words
	for k := 0; k < 32; k += 8 {
		x := binary.LittleEndian.Uint64(w[k:])
		// The lowest bit set of each mask is exact (a false hit lies
		// above a true one), so the lowest of their union is the first
		// quote, backslash or control byte.
		m := isQuote(x) | isBackslash(x)
		if ctl {
			m |= belowSpace(x)
		}
		if m != 0 {
			if k += bits.TrailingZeros64(m) / 8; w[k] == '"' {
				return j + k
			}
			return -1
		}
	}
	return -1
}

// keyEnd is stringEnd for an object key, short and plain nearly always
// (a value, often long, goes straight to stringEnd's search: the words
// looked at first cost it more than they save).
func keyEnd(b []byte, i int) int {
	if q := plainQuote(b, i+1, false); q >= 0 {
		return q + 1
	}
	return stringEnd(b, i)
}

// isQuote is isBackslash for '"'.
func isQuote(x uint64) uint64 { x ^= 0x22 * ones; return (x - ones) &^ x & highs }

// rawControl reports a control character (U+0000 to U+001F) written raw
// in the string body b[from:to], which JSON forbids and jq rejects: a line
// that holds one is not valid, whichever output it would go to.
func rawControl(b []byte, from, to int) error {
	if k := controlAt(b[from:to]); k >= 0 {
		return controlError(b, from+k)
	}
	return nil
}

func controlError(b []byte, at int) error {
	return &SyntaxError{Offset: at, Msg: fmt.Sprintf("raw control character U+%04X in string (JSON writes it escaped)", b[at])}
}

// Word-at-a-time byte tests (SWAR): of each byte of x, the top bit of the
// result is set when the byte is below 0x20, or equals '\\'. Exact for
// whether any byte is; a bit above a hit may be set too.
const ones, highs = 0x0101010101010101, 0x8080808080808080

func belowSpace(x uint64) uint64 { return (x - 0x20*ones) &^ x & highs }

func isBackslash(x uint64) uint64 { x ^= 0x5c * ones; return (x - ones) &^ x & highs }

// plainBody reports whether the string body s holds neither a backslash
// nor a byte below 0x20, eight bytes at a time.
func plainBody(s []byte) bool {
	if useBlocks && len(s) >= blockStrLenMin {
		return plainBlocks(s)
	}
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if x := binary.LittleEndian.Uint64(s[i:]); belowSpace(x)|isBackslash(x) != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == '\\' {
			return false
		}
	}
	return true
}

// plainBlocks is plainBody on a long body, with the block scanner's masks.
func plainBlocks(s []byte) bool {
	sc := blockScanner{b: s}
	for {
		ms := sc.next(maskBatch)
		if ms == nil {
			return true
		}
		for _, m := range ms {
			hit := m.control | m.backslash
			if rest := len(s) - sc.pos; rest < 64 {
				hit &= 1<<rest - 1 // (the padding's zero bytes are no control characters)
			}
			if hit != 0 {
				return false
			}
			sc.pos += 64
		}
	}
}

// controlAt returns the offset of the first byte below 0x20 in s, or -1,
// as a check that every string of a fully validated line goes through.
func controlAt(s []byte) int {
	i := 0
	for ; i+32 <= len(s); i += 32 { // four words a step
		w := s[i : i+32 : i+32]
		if belowSpace(binary.LittleEndian.Uint64(w))|belowSpace(binary.LittleEndian.Uint64(w[8:]))|
			belowSpace(binary.LittleEndian.Uint64(w[16:]))|belowSpace(binary.LittleEndian.Uint64(w[24:])) != 0 {
			break
		}
	}
	for ; i+8 <= len(s); i += 8 {
		if belowSpace(binary.LittleEndian.Uint64(s[i:])) != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if s[i] < 0x20 {
			return i
		}
	}
	return -1
}

// badEscape returns the offset of the first invalid escape sequence in s, or -1.
func badEscape(s []byte) int {
	for i := 0; i < len(s); i++ {
		k := bytes.IndexByte(s[i:], '\\')
		if k < 0 {
			return -1
		}
		i += k
		if i+1 >= len(s) {
			return i
		}
		switch s[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i++
		case 'u':
			if i+5 >= len(s) {
				return i
			}
			for _, h := range s[i+2 : i+6] {
				if hexVal(h) < 0 {
					return i
				}
			}
			i += 5
		default:
			return i
		}
	}
	return -1
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// ValidateFraming reports whether b holds one complete object or array:
// brackets balance and every string closes, with nothing after it. It is
// the cheap part of Validate (it jumps from quote to quote and does not look
// at escapes, literals or separators), and it is what tells a whole line
// from one cut off or two merged into one.
func ValidateFraming(b []byte) error {
	i := skipSpace(b, 0)
	if i == len(b) {
		return &SyntaxError{Offset: i, Msg: "empty input"}
	}
	if b[i] != '{' && b[i] != '[' {
		return Validate(b) // a scalar line: small, and wrong for a stream anyway
	}
	end := skip(b, i)
	if end < 0 {
		return &SyntaxError{Offset: len(b), Msg: ErrUnexpectedEnd.Error()}
	}
	if end = skipSpace(b, end); end != len(b) {
		return &SyntaxError{Offset: end, Msg: fmt.Sprintf("unexpected %q after the value", b[end])}
	}
	return nil
}

// Member is one member of an object: its key's raw bytes (between the
// quotes, escapes not decoded) and its value.
type Member struct {
	Key []byte
	Val Value
}

// Is reports whether the member's key, unescaped, is key.
func (m Member) Is(key string) bool { return keyEqual(m.Key, key) }

// Members checks the framing of the object b, as ValidateFraming does, and
// appends its members to dst (reused, so a caller that keeps dst allocates
// nothing). It is one walk over a line that then answers every top-level
// lookup without walking again: the keys claude-code writes after a
// megabyte "message" (parent_tool_use_id, timestamp, ...) would otherwise
// cost a walk over the megabyte each.
func Members(b []byte, dst []Member) ([]Member, error) { return frameMembers(b, dst) }

// ValidMembers validates b in full, as Validate does (the same errors),
// and appends the members of the object b to dst on the way: one pass for
// a line that is checked in full and then read by its members.
func ValidMembers(b []byte, dst []Member) ([]Member, error) { return walkMembers(b, dst, true, 0) }

// frameMembers is walkMembers(b, dst, false) on a well-framed object (the
// walk of every line, and of the tracker's messages and blocks): the
// happy path alone, small enough for its state to stay in registers
// (walkMembers, with both checks and their errors, kept it on the
// stack). Anything else is handed to walkMembers from the start, which
// makes the same index and the error. frameObject is the same loop with
// a nested object indexed on the way; frameMembers keeps a copy of its
// own, since made through frameObject (two more arguments, three more
// results) final took 2% more instructions on 60-long-session.
func frameMembers(b []byte, dst []Member) ([]Member, error) {
	n0, i := len(dst), 0
	if len(b) < 2 || b[0] != '{' {
		return walkMembers(b, dst, false, 0)
	}
	if i = skipSpace(b, 1); i < len(b) && b[i] == '}' {
		i++
	} else {
		for {
			if i >= len(b) || b[i] != '"' {
				return walkMembers(b, dst[:n0], false, 0)
			}
			ks, ke := i+1, keyEnd(b, i)
			if ke < 0 {
				return walkMembers(b, dst[:n0], false, 0)
			}
			if i = skipSpace(b, ke); i >= len(b) || b[i] != ':' {
				return walkMembers(b, dst[:n0], false, 0)
			}
			i = skipSpace(b, i+1)
			ve := skip(b, i)
			if ve <= i {
				return walkMembers(b, dst[:n0], false, 0)
			}
			dst = append(dst, Member{Key: b[ks : ke-1], Val: Value(b[i:ve])})
			if i = skipSpace(b, ve); i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
				continue
			}
			if i < len(b) && b[i] == '}' {
				i++
				break
			}
			return walkMembers(b, dst[:n0], false, 0)
		}
	}
	if skipSpace(b, i) != len(b) {
		return walkMembers(b, dst[:n0], false, 0)
	}
	return dst, nil
}

// ValidIndexed validates in full the object b given its members ms (as
// Members returned them: they alias b), and indexes inner, the value of
// one of them (nil: none), into dst on the way: the punctuation between
// the members, each key and each value are checked where ms say they are,
// at their depth, as Validate(b) checks them, and inner's members as they
// are indexed. A line that is validated and then read by an object's
// members is then walked once, not twice. ok false: b is not valid, or
// ms are not its members; Validate(b) gives the error.
func ValidIndexed(b []byte, ms []Member, inner Value, dst []Member) (index []Member, ok bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return dst, false
	}
	i = skipSpace(b, i+1)
	for n, m := range ms {
		if n > 0 {
			if i >= len(b) || b[i] != ',' {
				return dst, false
			}
			i = skipSpace(b, i+1)
		}
		// The key: where ms says (the same bytes, not a copy), valid.
		if i+1 >= len(b) || b[i] != '"' || cap(m.Key) == 0 || &m.Key[:1][0] != &b[i+1] {
			return dst, false
		}
		ke, err := validString(b, i)
		if err != nil || ke != i+len(m.Key)+2 {
			return dst, false
		}
		if i = skipSpace(b, ke); i >= len(b) || b[i] != ':' {
			return dst, false
		}
		// The value: likewise, inner indexed as it is validated.
		if i = skipSpace(b, i+1); i >= len(b) || len(m.Val) == 0 || &m.Val[0] != &b[i] || i+len(m.Val) > len(b) {
			return dst, false
		}
		ve := i + len(m.Val)
		if len(inner) > 0 && &inner[0] == &m.Val[0] && len(inner) == len(m.Val) && inner[0] == '{' {
			if dst, err = walkMembers(b[i:ve], dst, true, 1); err != nil {
				return dst, false
			}
			index = dst
		} else if end, err := validValue(b, i, 1); err != nil || end != ve {
			return dst, false
		}
		i = skipSpace(b, ve)
	}
	if i >= len(b) || b[i] != '}' || skipSpace(b, i+1) != len(b) {
		return dst, false
	}
	return index, true
}

// MembersNested is Members that also indexes, in the same walk, the
// members of the object under the top-level key nest (the last of a key
// written twice, as Lookup finds it) into inner: the framing walk passes
// over that object anyway, and a reader that then indexes it (an event's
// "message", which holds a call's whole input) walked it a second time,
// a twelfth of usage --by day (issue 41). found is false when the last
// such member is not an object whose members could be read (none, or
// another value, or one not framed as members are: the caller indexes it
// itself, as before); inner and the error are then as Members makes them.
func MembersNested(b []byte, dst []Member, nest string, inner []Member) (top, nested []Member, found bool, err error) {
	return frameNested(b, dst, nest, inner)
}

// frameNested is frameMembers, indexing the members of the object under
// the top-level key nest ("" for none) into inner on the way.
func frameNested(b []byte, dst []Member, nest string, inner []Member) ([]Member, []Member, bool, error) {
	n0 := len(dst)
	if len(b) < 2 || b[0] != '{' {
		dst, err := walkMembers(b, dst, false, 0)
		return dst, inner[:0], false, err
	}
	end, dst, inner, found := frameObject(b, 0, dst, nest, inner[:0])
	if end < 0 || skipSpace(b, end) != len(b) {
		dst, err := walkMembers(b, dst[:n0], false, 0)
		return dst, inner[:0], false, err
	}
	return dst, inner, found, nil
}

// frameObject indexes the members of the well-framed object at b[at]
// into dst and returns the offset just past it (-1, with dst as it came,
// when it is not one); and the members of the object under the key nest
// ("" for none; the last of a key written twice, which Lookup finds)
// into inner, found when it is one framed as members are. (The slices
// go out as results, never through a pointer, so that a caller's
// buffer on its stack stays there.)
func frameObject(b []byte, at int, dst []Member, nest string, inner []Member) (end int, _, _ []Member, found bool) {
	n0 := len(dst)
	i := skipSpace(b, at+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, dst, inner, false
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return -1, dst[:n0], inner, false
		}
		ks, ke := i+1, keyEnd(b, i)
		if ke < 0 {
			return -1, dst[:n0], inner, false
		}
		if i = skipSpace(b, ke); i >= len(b) || b[i] != ':' {
			return -1, dst[:n0], inner, false
		}
		i = skipSpace(b, i+1)
		ve := -1
		if nest != "" && ke-1 > ks && (b[ks] == nest[0] || b[ks] == '\\') && keyEqual(b[ks:ke-1], nest) {
			found = false
			if i < len(b) && b[i] == '{' {
				var ms []Member
				if ve, ms, _, _ = frameObject(b, i, inner[:0], "", nil); ve >= 0 {
					inner, found = ms, true
				}
			}
		}
		if ve < 0 {
			ve = skip(b, i) // (which says whether it is framed)
		}
		if ve <= i {
			return -1, dst[:n0], inner, false
		}
		dst = append(dst, Member{Key: b[ks : ke-1], Val: Value(b[i:ve])})
		if i = skipSpace(b, ve); i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return i + 1, dst, inner, found
		}
		return -1, dst[:n0], inner, false
	}
}

// walkMembers is Members, checking b's framing, or with full ValidMembers,
// validating every byte; b is an object at that depth (0: the whole
// input), its values one deeper.
func walkMembers(b []byte, dst []Member, full bool, depth int) ([]Member, error) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		check := ValidateFraming
		if full {
			check = Validate
		}
		if err := check(b); err != nil {
			return dst, err
		}
		return dst, &SyntaxError{Offset: i, Msg: "not an object"}
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		i++
	} else {
		for {
			if i >= len(b) || b[i] != '"' {
				return dst, errAt(b, i, "a string key")
			}
			var ke int
			if full {
				var err error
				if ke, err = validString(b, i); err != nil {
					return dst, err
				}
			} else if ke = keyEnd(b, i); ke < 0 {
				return dst, errAt(b, len(b), "'\"'")
			}
			key := b[i+1 : ke-1]
			i = skipSpace(b, ke)
			if i >= len(b) || b[i] != ':' {
				return dst, errAt(b, i, "':'")
			}
			i = skipSpace(b, i+1)
			var ve int
			if full {
				var err error
				if ve, err = validValue(b, i, depth+1); err != nil {
					return dst, err
				}
			} else {
				if i >= len(b) {
					return dst, errAt(b, i, "a value")
				}
				if ve = skip(b, i); ve < 0 {
					return dst, errAt(b, len(b), "the end of a value")
				}
				if ve <= i {
					return dst, errAt(b, i, "a value")
				}
			}
			dst = append(dst, Member{Key: key, Val: Value(b[i:ve])})
			i = skipSpace(b, ve)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
				continue
			}
			if i < len(b) && b[i] == '}' {
				i++
				break
			}
			return dst, errAt(b, i, "',' or '}'")
		}
	}
	if i = skipSpace(b, i); i != len(b) {
		return dst, &SyntaxError{Offset: i, Msg: fmt.Sprintf("unexpected %q after the value", b[i])}
	}
	return dst, nil
}

// Lookup returns the value of key among members (the last one, as Get), or
// nil.
//
// Most keys are told apart without a call, as keyEqual tells them: a
// shorter raw key is never key; one as long is key only byte for byte, so
// not when its first byte differs; a longer one whose first byte is ASCII
// and no backslash decodes to a string that starts with that byte. Only
// the rest are compared in full (the calls for every other key were a
// twentieth of the trace format's instructions: its lookups among events'
// top-level keys, issue 41).
func Lookup(members []Member, key string) Value {
	if key == "" {
		for i := len(members) - 1; i >= 0; i-- {
			if keyEqual(members[i].Key, key) {
				return members[i].Val
			}
		}
		return nil
	}
	k0 := key[0]
	for i := len(members) - 1; i >= 0; i-- {
		raw := members[i].Key
		if len(raw) < len(key) {
			continue
		}
		if c := raw[0]; c != k0 && (len(raw) == len(key) || c != '\\' && c < 0x80) {
			continue
		}
		if keyEqual(raw, key) {
			return members[i].Val
		}
	}
	return nil
}

// skip returns the offset just past the value at b[i] without validating it
// in depth, or -1 when the input ends first. It is used on lines that
// Validate has already accepted, but must stay safe on anything.
func skip(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		if useBlocks {
			if end, ok := blockSkip(b, i); ok {
				return end
			}
		}
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = stringEnd(b, i)
				if i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	default:
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r', ':', '"', '{', '[':
				return i
			}
			i++
		}
		return i
	}
}
