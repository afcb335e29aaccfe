package jsonx

import (
	"math/bits"
	"unicode/utf8"
)

// The block scanner: skip and stringEnd for long values, 64 bytes at a
// time. A line of stream-json is mostly the text of tool results, with a
// quote every 40 bytes or so (escaped JSON, source code); jumping from
// quote to quote with bytes.IndexByte then costs a call per quote. Here a
// kernel (AVX2 on amd64) turns each 64-byte block into bit masks of its
// quotes, backslashes and brackets, and a few word operations per block
// give the escaped bytes, the bytes inside strings and the nesting depth
// (the way simdjson's first stage does). The scalar functions stay: they
// are faster on short values, they are the only path where no kernel
// exists, and they define what the block scanner must return (the tests
// and the fuzzer hold the two to the same answers).

// blockMasks are the bit masks of one 64-byte block: bit k stands for the
// block's byte k.
type blockMasks struct {
	quote, backslash, open, close uint64 // '"'; '\\'; '{' or '['; '}' or ']'
	control                       uint64 // bytes below 0x20 (raw in a string: invalid)
}

// maskBatch is how many blocks one call of the kernel covers: enough to
// amortise the call, few enough for the masks to stay on the stack.
const maskBatch = 16

// fillMasksGeneric is the portable kernel: the masks of len(dst) blocks
// from b, which holds at least 64*len(dst) bytes.
func fillMasksGeneric(b []byte, dst []blockMasks) {
	for k := range dst {
		var m blockMasks
		for j, c := range b[64*k : 64*k+64] {
			bit := uint64(1) << j
			switch c {
			case '"':
				m.quote |= bit
			case '\\':
				m.backslash |= bit
			case '{', '[':
				m.open |= bit
			case '}', ']':
				m.close |= bit
			default:
				if c < 0x20 {
					m.control |= bit
				}
			}
		}
		dst[k] = m
	}
}

// blockScanner walks b from a start offset block by block.
type blockScanner struct {
	b     []byte
	pos   int // offset of the next block
	masks [maskBatch]blockMasks
	tail  [64]byte
}

// next returns the masks of the next blocks (at most want of them; the
// last one is padded with zero bytes, which are in no mask), or nil at
// the end of b. The first returned block starts at s.pos.
func (s *blockScanner) next(want int) []blockMasks {
	rest := len(s.b) - s.pos
	if rest <= 0 {
		return nil
	}
	if rest < 64 {
		s.tail = [64]byte{}
		copy(s.tail[:], s.b[s.pos:])
		fillMasks(s.tail[:], s.masks[:1])
		return s.masks[:1]
	}
	n := min(rest/64, want, maskBatch)
	fillMasks(s.b[s.pos:], s.masks[:n])
	return s.masks[:n]
}

// escapedBytes returns the bytes escaped by a backslash (those that follow
// an odd run of backslashes), given the block's backslashes and carry: 1
// when the previous block ended in a backslash that escapes this block's
// first byte. It updates carry for the next block.
func escapedBytes(backslash uint64, carry *uint64) uint64 {
	if backslash == 0 {
		e := *carry
		*carry = 0
		return e
	}
	const oddBits = 0xAAAAAAAAAAAAAAAA
	// A backslash escaped by the previous block's last one starts no escape.
	potential := backslash &^ *carry
	// Subtracting each run's start from the run shifted left by one carries
	// through the run; with the odd bits set, what is left marks the escapes
	// (every other backslash of a run, from its start) and the byte after a
	// run of odd length.
	codes := (((potential << 1) | oddBits) - potential) ^ oddBits
	escaped := codes ^ (backslash | *carry)
	escape := codes & backslash
	*carry = escape >> 63
	return escaped
}

// prefixXor sets bit k to the parity of bits 0..k of x: applied to a
// block's real quotes, it marks the bytes inside strings (each string's
// opening quote included, its closing quote not).
func prefixXor(x uint64) uint64 {
	x ^= x << 1
	x ^= x << 2
	x ^= x << 4
	x ^= x << 8
	x ^= x << 16
	x ^= x << 32
	return x
}

// blockStringEnd is stringEnd (b[i] == '"') for the block scanner.
func blockStringEnd(b []byte, i int) int {
	s := blockScanner{b: b, pos: i}
	var carry uint64
	first := uint64(1) // the opening quote
	for want := 2; ; want = maskBatch {
		if fusedKernels() && first == 0 && s.pos < len(b) {
			// The fused kernel takes the blocks without a quote that ends
			// the string; the loop below takes the one with it.
			s.pos += 64 * quoteBlocks(b[s.pos:], &carry)
			want = 1
		}
		ms := s.next(want)
		if ms == nil {
			return -1
		}
		for _, m := range ms {
			quotes := m.quote &^ escapedBytes(m.backslash, &carry) &^ first
			first = 0
			if quotes != 0 {
				return s.pos + bits.TrailingZeros64(quotes) + 1
			}
			s.pos += 64
		}
	}
}

// blockSkip is skip for an array or object (b[i] is '[' or '{'). ok is
// false when the value holds a backslash outside its strings: there the
// scalar rule (a backslash escapes only inside a string) and the masks'
// (every backslash escapes) part, and the caller takes the scalar path.
// Such a line is not JSON anyway.
func blockSkip(b []byte, i int) (end int, ok bool) {
	s := blockScanner{b: b, pos: i}
	var st skipState
	for want := 2; ; want = maskBatch {
		// The fused kernel takes the blocks that need no care; the loop
		// below takes the one it stops at (then want is 1) and the tail.
		if s.pos < len(b) && fusedKernels() {
			s.pos += 64 * skipBlocks(b[s.pos:], &st)
			want = 1
		}
		ms := s.next(want)
		if ms == nil {
			return -1, true
		}
		for _, m := range ms {
			quotes := m.quote &^ escapedBytes(m.backslash, &st.carry)
			in := prefixXor(quotes) ^ st.inString
			st.inString = uint64(int64(in) >> 63)
			if m.backslash&^in != 0 {
				return 0, false
			}
			open, close := m.open&^in, m.close&^in
			if nc := bits.OnesCount64(close); st.depth > nc {
				// The depth cannot reach zero in this block.
				st.depth += bits.OnesCount64(open) - nc
			} else {
				for x := open | close; x != 0; x &= x - 1 {
					if open&(x&-x) != 0 {
						st.depth++
						continue
					}
					if st.depth--; st.depth == 0 {
						return s.pos + bits.TrailingZeros64(x) + 1, true
					}
				}
			}
			s.pos += 64
		}
	}
}

// skipState is blockSkip's state between blocks, shared with the fused
// kernel (whose assembly reads it by offset: keep the order).
type skipState struct {
	carry    uint64 // escapedBytes' carry
	inString uint64 // all ones when the next block starts inside a string
	depth    int    // brackets open
}

// blockStrLenMin is the string length from which StrLen counts with the
// block scanner.
const blockStrLenMin = 256

// blockStrLen is StrLen's count for the string body (between the quotes):
// its length, less what each escape saves once decoded.
func blockStrLen(body []byte) int {
	n, _, _ := blockStrScan(body, false)
	return n
}

// blockStrScan counts the inside of a string from b[0] up to its closing
// quote (the first quote no escape consumed) when toQuote, else (or when
// there is none) to the end of b, quotes and all: the decoded length, and
// the quote's offset (-1: none); ok is false when it gave up on an
// invalid escape (strScanEscape). The backslashes come from the masks; one
// that an escape before it has consumed (the second of "\\") is passed
// over. The kernel stops before a block with a real quote, so finding a
// tool result's end and counting its size is one pass, not two.
func blockStrScan(b []byte, toQuote bool) (n, end int, ok bool) {
	s := blockScanner{b: b}
	adj := 0  // what the escapes so far save, negated
	free := 0 // the first byte no escape has consumed
	want := maskBatch
	for {
		// The fused kernel takes the blocks whose escapes are simple ones
		// (each saves a byte) or \u escapes it can hand back, when no
		// escape reaches into the block and no quote ends the string; the
		// loop below takes the block it stops at.
		// (A first byte already consumed by an escape must be a simple
		// escape's letter, which the kernel counts and the caller takes
		// back, not the 'u' of a \u escape, which it would hand back.)
		if fusedKernels() && s.pos < len(b) && (free <= s.pos || free == s.pos+1 && b[s.pos] != 'u') {
			carryIn := free == s.pos+1 // the first byte is an escape's letter, already counted
			st := strState{carry: uint64(b2i(carryIn))}
			if k := strBlocks(b[s.pos:], &st); k > 0 {
				adj -= st.saved - b2i(carryIn)
				// The \u escapes, in order; the second half of a
				// surrogate pair is consumed by the first.
				for _, u := range st.us[:st.nu] {
					if bk := s.pos + int(u) - 1; bk >= free {
						var bad bool
						if adj, free, _, bad = strScanEscape(b, bk, adj, toQuote); bad {
							return 0, -1, false
						}
					}
				}
				s.pos += 64 * k
				if st.carry != 0 && s.pos-1 >= free {
					// The last byte starts an escape whose letter is the
					// next block's first: counted here, as below.
					var done, bad bool
					if adj, free, done, bad = strScanEscape(b, s.pos-1, adj, toQuote); done || bad {
						return len(b) + adj, -1, !bad
					}
				} else {
					free = max(free, s.pos)
				}
			}
			want = 1
		}
		ms := s.next(want)
		if ms == nil {
			return len(b) + adj, -1, true
		}
		for _, m := range ms {
			x := m.backslash
			if toQuote {
				x |= m.quote
			}
			for ; x != 0; x &= x - 1 {
				k := s.pos + bits.TrailingZeros64(x)
				if k < free {
					continue
				}
				if b[k] == '"' {
					return k + adj, k, true
				}
				var done, bad bool
				if adj, free, done, bad = strScanEscape(b, k, adj, toQuote); done || bad {
					return len(b) + adj, -1, !bad
				}
			}
			s.pos += 64
		}
	}
}

// strScanEscape is strLenEscape for blockStrScan. Before the string's end
// is known (toQuote), an invalid \u escape (no four hex digits) makes the
// scan give up (bad): StrLen, on the string alone, counts it as six bytes
// that may run past the end, and what a backslash or quote among them
// means is then not what stringEnd says. Valid escapes take no quote and
// no backslash but their own; JSON has no other.
func strScanEscape(b []byte, k, n int, toQuote bool) (_, _ int, done, bad bool) {
	if toQuote && k+1 < len(b) && b[k+1] == 'u' && (k+6 > len(b) || hexVal(b[k+2])|hexVal(b[k+3])|hexVal(b[k+4])|hexVal(b[k+5]) < 0) {
		return n, k, false, true
	}
	n, free, done := strLenEscape(b, k, n)
	return n, free, done, false
}

// strLenEscape counts the escape whose backslash is body[k] into n, the
// decoded length so far, and returns the first byte after it. done: the
// backslash ends the body, and counts as itself.
func strLenEscape(body []byte, k, n int) (int, int, bool) {
	if k+1 >= len(body) {
		return n, k + 1, true
	}
	switch body[k+1] {
	case 'u':
		if k+6 <= len(body) && body[k+2] == '0' && body[k+3] == '0' && hexVal(body[k+4]) >= 0 && hexVal(body[k+5]) >= 0 {
			// \u00XX (an ANSI escape's \u001b, Latin-1), the common
			// case: one byte decoded below 0x80, two above.
			return n - 5 + b2i(hexVal(body[k+4]) >= 8), k + 6, false
		}
		if r, w := unicodeEscape(body[k:]); w > 0 {
			return n - (w - utf8.RuneLen(r)), k + w, false
		}
		// else kept literally
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		n--
	}
	return n, k + 2, false
}

// strState is strBlocks' state between blocks (the assembly reads it by
// offset: keep the order).
type strState struct {
	carry uint64         // escapedBytes' carry
	saved int            // simple escapes in the blocks consumed (a byte saved each)
	nu    int            // \u escapes in them, for the caller to count:
	us    [strMaxU]int32 // the offset of each one's 'u'
}

// strMaxU is how many \u escapes one call of strBlocks takes (the
// assembly's bound too).
const strMaxU = 32

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// blockValidString is validString's search for the string at b[i]: where
// it ends (-1: it does not), the offset of the backslash of its first
// invalid escape (-1: none), and the offset of its first control character
// written raw (-1: none). Each escaped byte is one of the masks'; the
// letter after each backslash is checked where the bit says; the control
// characters are a mask of their own, found by the same pass.
func blockValidString(b []byte, i int) (end, bad, ctl int) {
	s := blockScanner{b: b, pos: i}
	var carry uint64
	first := uint64(1) // the opening quote
	bad, ctl = -1, -1
	for want := 2; ; want = maskBatch {
		ms := s.next(want)
		if ms == nil {
			return -1, bad, ctl
		}
		for _, m := range ms {
			escaped := escapedBytes(m.backslash, &carry)
			quotes := m.quote &^ escaped &^ first
			first = 0
			inside := ^uint64(0)
			if quotes != 0 {
				inside = quotes&-quotes - 1 // the bytes before the closing quote
			}
			if c := m.control & inside; c != 0 && ctl < 0 {
				// (The last block is padded with zero bytes: past b, none.)
				if p := s.pos + bits.TrailingZeros64(c); p < len(b) {
					ctl = p
				}
			}
			for x := escaped & inside; x != 0 && bad < 0; x &= x - 1 {
				p := s.pos + bits.TrailingZeros64(x)
				if p >= len(b) {
					break // a backslash at the very end: not terminated
				}
				switch b[p] {
				case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				case 'u':
					// Four hex digits (none of them the closing quote).
					if p+4 >= len(b) || hexVal(b[p+1]) < 0 || hexVal(b[p+2]) < 0 || hexVal(b[p+3]) < 0 || hexVal(b[p+4]) < 0 {
						bad = p - 1
					}
				default:
					bad = p - 1
				}
			}
			if quotes != 0 {
				return s.pos + bits.TrailingZeros64(quotes) + 1, bad, ctl
			}
			s.pos += 64
		}
	}
}
