package jsonx

import (
	"bytes"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Value is the raw bytes of one JSON value inside a larger document, or nil
// when the value is absent. Accessors never fail: a value of an unexpected
// JSON type reads as the zero value of what was asked for, which is how the
// stream's consumers stay tolerant of fields whose type changes between
// claude-code versions.
type Value []byte

// Type is the JSON type of a Value.
type Type uint8

// The JSON types; Missing is an absent value.
const (
	Missing Type = iota
	Null
	Bool
	Number
	String
	Array
	Object
)

// Parse returns the value of a whole document with surrounding space trimmed.
// It does not validate; use Validate first where that matters.
func Parse(b []byte) Value {
	i := skipSpace(b, 0)
	j := len(b)
	for j > i && isSpace(b[j-1]) {
		j--
	}
	if i >= j {
		return nil
	}
	return Value(b[i:j])
}

// Type reports the JSON type from the first byte.
func (v Value) Type() Type {
	if len(v) == 0 {
		return Missing
	}
	switch v[0] {
	case 'n':
		return Null
	case 't', 'f':
		return Bool
	case '"':
		return String
	case '[':
		return Array
	case '{':
		return Object
	}
	return Number
}

// Exists reports whether the value is present (it may be null).
func (v Value) Exists() bool { return len(v) > 0 }

// IsNull reports whether the value is missing or JSON null.
func (v Value) IsNull() bool { t := v.Type(); return t == Missing || t == Null }

// Get returns the member key of an object, or nil. When the key appears
// more than once the last one wins, as in jq and JSON.parse: every reader
// of a key (classification, the tracker, expressions) must agree on which
// value a line holds, or "final" could call a run failed that jq calls a
// success.
//
// Walking past the first match to look for a second one would cost a pass
// over the rest of the object (message.content: most of a line), so the
// walk goes on only when the rest holds the key written plainly, "key"
// (found at memory speed). A later duplicate spelled with escapes
// ("is_\u0065rror") is therefore missed below the top level; the top level
// (stream's member index, Lookup) takes every spelling.
func (v Value) Get(key string) Value {
	var out Value
	v.EachMember(func(k []byte, val Value) bool {
		if keyEqual(k, key) {
			out = val
			end := cap(v) - cap(val) + len(val) // (val is a slice of v)
			return quotedIn(v[end:], key)
		}
		return true
	})
	return out
}

// quotedIn reports whether b holds "key", key written plainly in quotes.
func quotedIn(b []byte, key string) bool {
	s := unsafe.String(unsafe.SliceData(b), len(b))
	if key == "" {
		return strings.Contains(s, `""`)
	}
	for {
		i := strings.Index(s, key)
		if i < 0 {
			return false
		}
		if i > 0 && s[i-1] == '"' && i+len(key) < len(s) && s[i+len(key)] == '"' {
			return true
		}
		s = s[i+1:]
	}
}

// Find is Get for reaching into the head of a long value: it returns the
// member's value without finding where that value ends, so the result runs
// on to the end of v. Find, First and Type work on such an open-ended value;
// Trim cuts it to the value itself before anything else reads it. On a
// 1 MB tool result, Find("message").Find("content").First() reads a few
// dozen bytes where Get would walk the whole megabyte.
func (v Value) Find(key string) Value {
	if v.Type() != Object {
		return nil
	}
	b := []byte(v)
	i := skipSpace(b, 1)
	for i < len(b) && b[i] == '"' {
		ke := keyEnd(b, i)
		if ke < 0 {
			return nil
		}
		key0 := b[i+1 : ke-1]
		i = skipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			return nil
		}
		i = skipSpace(b, i+1)
		if i >= len(b) {
			return nil
		}
		if keyEqual(key0, key) {
			return Value(b[i:])
		}
		ve := skip(b, i)
		if ve < 0 || ve <= i {
			return nil
		}
		i = skipSpace(b, ve)
		if i >= len(b) || b[i] != ',' {
			return nil
		}
		i = skipSpace(b, i+1)
	}
	return nil
}

// First returns the first element of an array, open-ended like Find.
func (v Value) First() Value {
	if v.Type() != Array {
		return nil
	}
	i := skipSpace(v, 1)
	if i >= len(v) || v[i] == ']' {
		return nil
	}
	return v[i:]
}

// Trim cuts an open-ended value (from Find or First) to the value itself,
// or nil when it does not end.
func (v Value) Trim() Value {
	e := skip(v, 0)
	if e <= 0 {
		return nil
	}
	return v[:e]
}

// Path follows a chain of object keys.
func (v Value) Path(keys ...string) Value {
	for _, k := range keys {
		v = v.Get(k)
		if v == nil {
			return nil
		}
	}
	return v
}

// keyEqual compares a raw key (without its quotes, maybe escaped) to key,
// which holds no backslash (a name the callers look up). An escape takes
// more bytes than it stands for, so a raw key no longer than key equals it
// only byte for byte, and a longer one only when it holds an escape: most
// keys compared are told apart by their length, without a search (which
// was a tenth of the tool-result walk).
//
// A longer raw key whose first byte is ASCII and not a backslash decodes
// to a string that starts with that byte: when it is not key's, they differ, without a
// look at the rest (Lookup of "input_tokens" among a usage object's longer
// keys looked through every one of them for a backslash, a twelfth of
// tools -F csv).
//
// Small enough to be inlined where keys are compared (Lookup, Find, Get):
// the call was most of a comparison.
func keyEqual(raw []byte, key string) bool {
	if len(raw) <= len(key) {
		return string(raw) == key
	}
	return escapedKeyEqual(raw, key)
}

// escapedKeyEqual is keyEqual for a raw key longer than key.
func escapedKeyEqual(raw []byte, key string) bool {
	if c := raw[0]; len(key) > 0 && c != key[0] && c != '\\' && c < 0x80 {
		return false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return false
	}
	s, ok := unquote(raw)
	return ok && s == key
}

// strEndLen is stringEnd and StrLen of the string at b[i] (b[i] == '"')
// in one pass: the offset just past its closing quote (-1: it does not
// close) and its decoded length.
func strEndLen(b []byte, i int) (end, n int) {
	if k := bytes.IndexByte(b[i+1:], '"'); !useBlocks || k >= 0 && k < blockStrLenMin && b[i+k] != '\\' {
		// Short, its first quote closes it (or no kernel): two walks over
		// a few bytes cost less than setting up the block scanner.
		return strEndThenLen(b, i)
	}
	n, q, ok := blockStrScan(b[i+1:], true)
	if !ok {
		return strEndThenLen(b, i) // an invalid \u escape: two passes
	}
	if q < 0 {
		return -1, 0
	}
	return i + 1 + q + 1, n
}

// strEndThenLen is strEndLen in two passes.
func strEndThenLen(b []byte, i int) (end, n int) {
	if end = stringEnd(b, i); end < 0 {
		return -1, 0
	}
	return end, Value(b[i:end]).StrLen()
}

// EachMember calls fn for each member of an object, with the key's raw bytes
// (between the quotes, escapes not decoded) and its value; it stops when fn
// returns false. It does nothing for a non-object.
func (v Value) EachMember(fn func(key []byte, val Value) bool) {
	if v.Type() == Object {
		eachMember(v, fn, nil)
	}
}

// eachMember walks the object at b[0] and returns the offset just past its
// closing brace, or -1 when fn stopped it or the object does not end. With
// size, a string value's decoded length (StrLen) is counted in the pass
// that finds its end, and set there before fn sees the value (-1 for other
// values).
func eachMember(b []byte, fn func(key []byte, val Value) bool, size *int) int {
	i := skipSpace(b, 1)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for i < len(b) && b[i] == '"' {
		ke := keyEnd(b, i)
		if ke < 0 {
			return -1
		}
		key := b[i+1 : ke-1]
		i = skipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			return -1
		}
		i = skipSpace(b, i+1)
		var ve int
		if size != nil && i < len(b) && b[i] == '"' {
			ve, *size = strEndLen(b, i)
		} else {
			ve = skip(b, i)
			if size != nil {
				*size = -1
			}
		}
		if ve < 0 || ve <= i {
			return -1
		}
		if !fn(key, Value(b[i:ve])) {
			return -1
		}
		i = skipSpace(b, ve)
		if i < len(b) && b[i] == '}' {
			return i + 1
		}
		if i >= len(b) || b[i] != ',' {
			return -1
		}
		i = skipSpace(b, i+1)
	}
	return -1
}

// EachObjectMember walks an array of objects (content blocks) in one pass:
// fn gets the element's index and each of its members. Each followed by
// EachMember would walk a long member (a tool result's text) twice: once to
// find the element's end, once to find the member's. Non-object elements
// are skipped; it stops when fn returns false. With sizes, each string
// member's decoded length (StrLen) is counted in the pass that finds the
// string's end, so sizing a tool result's text costs one pass over it, not
// two; size is -1 for other members, and for all of them without sizes.
func (v Value) EachObjectMember(sizes bool, fn func(i int, key []byte, val Value, size int) bool) {
	var size int
	sp := &size
	if !sizes {
		sp = nil
	}
	if v.Type() != Array {
		return
	}
	b := []byte(v)
	i := skipSpace(b, 1)
	for n := 0; i < len(b) && b[i] != ']'; n++ {
		var e int
		if b[i] == '{' {
			e = eachMember(b[i:], func(k []byte, val Value) bool {
				sz := -1
				if sp != nil {
					sz = *sp
				}
				return fn(n, k, val, sz)
			}, sp)
			if e < 0 {
				return
			}
			e += i
		} else if e = skip(b, i); e < 0 || e <= i {
			return
		}
		i = skipSpace(b, e)
		if i >= len(b) || b[i] != ',' {
			return
		}
		i = skipSpace(b, i+1)
	}
}

// EachObject is Each, with each element's members besides, as Members
// indexes an object (an error leaving what it found; nil for an element
// that is no object), found in the walk that finds where the element
// ends: a message's blocks, whose tool inputs run to megabytes, are passed
// over once, where Each's skip and then Members walked each twice. buf is
// the members' storage, reused from element to element: members holds
// until fn returns.
func (v Value) EachObject(buf []Member, fn func(i int, elem Value, members []Member) bool) {
	if v.Type() != Array {
		return
	}
	b := []byte(v)
	i := skipSpace(b, 1)
	for n := 0; i < len(b) && b[i] != ']'; n++ {
		e := -1
		var ms []Member
		if b[i] == '{' {
			e, ms, _, _ = frameObject(b, i, buf[:0], "", nil)
		}
		if e <= i {
			// No object, or one not framed as Members frames one:
			// Each's skip and Members' walk, as before.
			if e = skip(b, i); e < 0 || e <= i {
				return
			}
			ms = nil
			if b[i] == '{' {
				ms, _ = Members(b[i:e], buf[:0])
			}
		}
		if !fn(n, Value(b[i:e]), ms) {
			return
		}
		i = skipSpace(b, e)
		if i >= len(b) || b[i] != ',' {
			return
		}
		i = skipSpace(b, i+1)
	}
}

// Each calls fn for each element of an array, stopping when fn returns false.
func (v Value) Each(fn func(i int, elem Value) bool) {
	if v.Type() != Array {
		return
	}
	b := []byte(v)
	i := skipSpace(b, 1)
	for n := 0; i < len(b) && b[i] != ']'; n++ {
		e := skip(b, i)
		if e < 0 || e <= i {
			return
		}
		if !fn(n, Value(b[i:e])) {
			return
		}
		i = skipSpace(b, e)
		if i >= len(b) || b[i] != ',' {
			return
		}
		i = skipSpace(b, i+1)
	}
}

// Index returns element i of an array, or nil.
func (v Value) Index(i int) Value {
	var out Value
	v.Each(func(n int, e Value) bool {
		if n == i {
			out = e
			return false
		}
		return true
	})
	return out
}

// Len returns the number of elements of an array or members of an object.
func (v Value) Len() int {
	n := 0
	switch v.Type() {
	case Array:
		v.Each(func(int, Value) bool { n++; return true })
	case Object:
		v.EachMember(func([]byte, Value) bool { n++; return true })
	}
	return n
}

// Str returns a string value decoded, or "" for any other type.
func (v Value) Str() string {
	if v.Type() != String || len(v) < 2 {
		return ""
	}
	body := v[1 : len(v)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return validUTF8(body)
	}
	s, _ := unquote(body)
	return s
}

// AppendStr appends a string value decoded to dst, as Str returns it, and
// dst unchanged for any other type: for a caller that keeps the text in a
// buffer of its own, without a string per value.
func (v Value) AppendStr(dst []byte) []byte {
	if v.Type() != String || len(v) < 2 {
		return dst
	}
	body := v[1 : len(v)-1]
	start := len(dst)
	if bytes.IndexByte(body, '\\') < 0 {
		dst = append(dst, body...)
	} else {
		dst = slices.Grow(dst, len(body))
		out, _ := unquoteTo(dst[start:start+len(body)], body)
		dst = dst[:start+len(out)]
	}
	if !utf8.Valid(dst[start:]) {
		dst = append(dst[:start], validUTF8(dst[start:])...)
	}
	return dst
}

// validUTF8 returns b as a string with invalid UTF-8 replaced by U+FFFD, as
// jq and encoding/json do.
func validUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	out := make([]byte, 0, len(b)+8)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		out = utf8.AppendRune(out, r) // RuneError for each invalid byte
		b = b[n:]
	}
	return string(out)
}

// StrEqual reports whether v is a string equal to s, without allocating for
// strings without escapes.
func (v Value) StrEqual(s string) bool {
	if v.Type() != String || len(v) < 2 {
		return false
	}
	return keyEqual(v[1:len(v)-1], s)
}

// StrHasPrefix reports whether v is a string that starts with prefix (which
// must not need escaping).
func (v Value) StrHasPrefix(prefix string) bool {
	if v.Type() != String || len(v) < 2 {
		return false
	}
	return bytes.HasPrefix(v[1:], []byte(prefix))
}

// StrLen returns the decoded length in bytes of a string value, without
// building the string. Non-strings give 0. It jumps from escape to escape
// eight bytes at a time (nextEscape), as unquote does, or, on a long
// string, from backslash to backslash of the block scanner's masks
// (blockStrLen: tool results have one every few dozen bytes).
func (v Value) StrLen() int {
	if v.Type() != String || len(v) < 2 {
		return 0
	}
	body := v[1 : len(v)-1]
	if useBlocks && len(body) >= blockStrLenMin {
		return blockStrLen(body)
	}
	return strLen(body)
}

// strLen is StrLen's count for the string body, escape to escape.
func strLen(body []byte) int {
	n := 0
	for i := 0; ; {
		k := nextEscape(body, i, nil)
		n += k - i
		if k+1 >= len(body) {
			return n + len(body) - k // a lone trailing backslash counts as itself
		}
		i = k + 2
		switch body[k+1] {
		case 'u':
			r, m := unicodeEscape(body[k:])
			if m == 0 {
				n += 2 // kept literally
				continue
			}
			n += utf8.RuneLen(r)
			i = k + m
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			n++
		default:
			n += 2 // kept literally
		}
	}
}

// Bool returns a boolean value, false for any other type.
func (v Value) Bool() bool { return len(v) == 4 && string(v) == "true" }

// Int returns a number as int64 (truncating a fraction), 0 for other types
// and for numbers int64 cannot hold (IntOK tells those apart).
func (v Value) Int() int64 {
	n, _ := v.IntOK()
	return n
}

// IntOK returns a number as int64 (truncating a fraction), and whether it
// is a number int64 holds: 1e30 or 99999999999999999999 give 0, false, so
// that a caller can say so rather than show a 0 as if it were written.
func (v Value) IntOK() (int64, bool) {
	if v.Type() != Number {
		return 0, false
	}
	if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		return n, true
	}
	f, _ := strconv.ParseFloat(string(v), 64)
	// 2^63 itself is out: float64(MaxInt64) rounds up to it.
	if math.IsNaN(f) || f >= math.MaxInt64 || f < math.MinInt64 {
		return 0, false
	}
	return int64(f), true
}

// Float returns a number as float64, 0 for other types and for numbers
// past float64's range (1e400; FloatOK tells those apart).
func (v Value) Float() float64 {
	f, _ := v.FloatOK()
	return f
}

// FloatOK returns a number as float64, and whether it is a number float64
// holds (1e400 is not: ParseFloat makes it +Inf, which no JSON can carry).
func (v Value) FloatOK() (float64, bool) {
	if v.Type() != Number {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

func hex4(b []byte) int {
	n := 0
	for _, c := range b {
		h := hexVal(c)
		if h < 0 {
			return 0xFFFD
		}
		n = n<<4 | h
	}
	return n
}

// Decode builds the generic tree of v: map[string]any, []any, string, bool,
// nil, and numbers as int (integers that fit), *big.Int (larger integers,
// so no digit is lost) or float64. These are the types gojq works on.
func (v Value) Decode() any {
	if t, err := DecodeValid(v); err == nil {
		return t
	}
	return v.decodeLoose()
}

// decodeLoose is Decode's best effort on invalid input: what can be read.
func (v Value) decodeLoose() any {
	switch v.Type() {
	case Null, Missing:
		return nil
	case Bool:
		return v.Bool()
	case String:
		return v.Str()
	case Number:
		return decodeNumber(v)
	case Array:
		arr := make([]any, 0, 4)
		v.Each(func(_ int, e Value) bool {
			arr = append(arr, e.decodeLoose())
			return true
		})
		return arr
	case Object:
		m := make(map[string]any, 8)
		v.EachMember(func(k []byte, e Value) bool {
			var key string
			if bytes.IndexByte(k, '\\') < 0 {
				key = validUTF8(k)
			} else {
				key, _ = unquote(k)
			}
			m[key] = e.decodeLoose()
			return true
		})
		return m
	}
	return nil
}

func decodeNumber(v Value) any {
	s := string(v)
	if bytes.IndexAny(v, ".eE") < 0 {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			if n >= math.MinInt && n <= math.MaxInt {
				return int(n)
			}
		}
		if bi, ok := new(big.Int).SetString(s, 10); ok {
			return bi
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		// Out of range: jq clamps to the largest double.
		if s[0] == '-' {
			return -math.MaxFloat64
		}
		return math.MaxFloat64
	}
	return f
}
