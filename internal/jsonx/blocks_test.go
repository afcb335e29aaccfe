package jsonx

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// withScanner runs f with the block scanner on or off (and, when on, with
// the AVX2 kernel or the portable one), restoring the package's choice.
func withScanner(blocks, kernel bool, f func()) {
	b, k := useBlocks, useBlocksKernel
	useBlocks, useBlocksKernel = blocks, kernel && k
	defer func() { useBlocks, useBlocksKernel = b, k }()
	f()
}

// withoutAVX512 runs f with the fused skip loop in its AVX2 form (the
// machine's choice otherwise), so that both forms are held to the scalar
// walk where the machine has AVX-512.
func withoutAVX512(f func()) {
	z := useAVX512
	useAVX512 = false
	defer func() { useAVX512 = z }()
	f()
}

// scanEnds is what skip and stringEnd (and strEndLen, with the decoded
// length) return at every offset of b where a string, array or object
// starts: the answers the block scanner must give.
func scanEnds(b []byte) []int {
	var ends []int
	for i, c := range b {
		switch c {
		case '"':
			end, n := strEndLen(b, i)
			ends = append(ends, stringEnd(b, i), end, n)
		case '{', '[':
			ends = append(ends, skip(b, i))
		}
	}
	return ends
}

// requireSameEnds checks the block scanner, with each kernel, against the
// scalar walk on b.
func requireSameEnds(t *testing.T, b []byte) {
	t.Helper()
	var want, vec, generic []int
	withScanner(false, false, func() { want = scanEnds(b) })
	withScanner(true, true, func() { vec = scanEnds(b) })
	withScanner(true, false, func() { generic = scanEnds(b) })
	var avx2 []int
	withScanner(true, true, func() { withoutAVX512(func() { avx2 = scanEnds(b) }) })
	require.Equal(t, want, vec, "block scanner, fastest kernel, on %q", b)
	require.Equal(t, want, avx2, "block scanner, AVX2 kernel, on %q", b)
	require.Equal(t, want, generic, "block scanner, portable kernel, on %q", b)
	// And Validate.
	var wantErr, vecErr, genericErr error
	withScanner(false, false, func() { wantErr = Validate(b) })
	withScanner(true, true, func() { vecErr = Validate(b) })
	withScanner(true, false, func() { genericErr = Validate(b) })
	var avx2Err error
	withScanner(true, true, func() { withoutAVX512(func() { avx2Err = Validate(b) }) })
	require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(vecErr), "Validate, fastest kernel, on %q", b)
	require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(avx2Err), "Validate, AVX2 kernel, on %q", b)
	require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(genericErr), "Validate, portable kernel, on %q", b)
	// And StrLen, b taken as the inside of a string.
	str := Value(append(append([]byte{'"'}, b...), '"'))
	var wantLen, vecLen, genericLen int
	withScanner(false, false, func() { wantLen = str.StrLen() })
	withScanner(true, true, func() { vecLen = blockStrLen(b) })
	withScanner(true, false, func() { genericLen = blockStrLen(b) })
	var avx2Len int
	withScanner(true, true, func() { withoutAVX512(func() { avx2Len = blockStrLen(b) }) })
	require.Equal(t, wantLen, vecLen, "StrLen, fastest kernel, of %q", b)
	require.Equal(t, wantLen, avx2Len, "StrLen, AVX2 kernel, of %q", b)
	require.Equal(t, wantLen, genericLen, "StrLen, portable kernel, of %q", b)
}

// TestFillMasksKernelMatchesGeneric proves the AVX2 kernel (where the
// machine has it) gives the portable kernel's masks, on random bytes drawn
// mostly from the ones it looks for.
func TestFillMasksKernelMatchesGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte(`"\{}[]a ` + "\x00\xff\x7b\x5b\x7d\x5d\x22\x5c\x02\xa2")
	for range 200 {
		n := 1 + r.IntN(maskBatch)
		b := make([]byte, 64*n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
			if r.IntN(4) == 0 {
				b[i] = byte(r.Uint32())
			}
		}
		want := make([]blockMasks, n)
		fillMasksGeneric(b, want)
		got := make([]blockMasks, n)
		fillMasks(b, got)
		require.Equal(t, want, got)
	}
}

// TestEscapedBytes proves the word arithmetic that finds escaped bytes
// agrees with counting backslash runs one byte at a time, across block
// boundaries (runs that straddle two and three blocks).
func TestEscapedBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		nb := 1 + r.IntN(4)
		bs := make([]bool, 64*nb)
		density := r.IntN(10)
		for i := range bs {
			bs[i] = r.IntN(10) < density
		}
		if r.IntN(5) == 0 { // one long run over a boundary
			for i := 40; i < min(len(bs), 40+r.IntN(150)); i++ {
				bs[i] = true
			}
		}
		want := make([]bool, len(bs))
		run := 0
		for i, isBS := range bs {
			want[i] = !isBS && run%2 == 1 || isBS && run%2 == 1
			if isBS {
				run++
			} else {
				run = 0
			}
		}
		var carry uint64
		for k := range nb {
			var mask uint64
			for j := range 64 {
				if bs[64*k+j] {
					mask |= 1 << j
				}
			}
			got := escapedBytes(mask, &carry)
			for j := range 64 {
				require.Equal(t, want[64*k+j], got&(1<<j) != 0, "block %d byte %d of %v", k, j, bs)
			}
		}
	}
}

// TestBlockScannerMatchesScalarOnCaptures: on every line of the real
// captures, and on each cut short at several places, the block scanner
// finds the end of every string, array and object where the scalar walk
// does.
func TestBlockScannerMatchesScalarOnCaptures(t *testing.T) {
	eachCaptureLine(t, func(f string, n int, line []byte) {
		if len(line) > 1<<16 {
			// A long line: the ends of its outer values only (every offset
			// would be quadratic), and its length as a string.
			str := Value(append(append([]byte{'"'}, line...), '"'))
			var want int
			withScanner(false, false, func() { want = str.StrLen() })
			require.Equal(t, want, blockStrLen(line), "%s:%d: StrLen", f, n)
			for _, cut := range []int{len(line), len(line) - 1, len(line) / 2} {
				var want, got int
				withScanner(false, false, func() { want = skip(line[:cut], 0) })
				withScanner(true, true, func() { got = skip(line[:cut], 0) })
				require.Equal(t, want, got, "%s:%d cut at %d", f, n, cut)
			}
			return
		}
		requireSameEnds(t, line)
		for _, cut := range []int{len(line) / 3, len(line) - 2} {
			if cut > 0 {
				requireSameEnds(t, line[:cut])
			}
		}
	})
}

// TestBlockScannerHostile covers what the captures lack: backslashes
// outside strings (where the scanner must hand over to the scalar rule),
// runs of backslashes before quotes at block boundaries, deep nesting,
// and values that end exactly at, one before and one after a block edge.
func TestBlockScannerHostile(t *testing.T) {
	pad := func(n int) string { return string(bytes.Repeat([]byte("x"), n)) }
	cases := []string{
		`{\"a": 1}`,
		`[\"x"]`,
		`["\\\\\\\"` + pad(70) + `"]`,
		`{"a":"` + pad(56) + `\\\"` + pad(64) + `\"` + `"}`,
		`[` + pad(62) + `]`,
		`[` + pad(61) + `]`,
		`[` + pad(63) + `]`,
		string(bytes.Repeat([]byte("["), 300)) + string(bytes.Repeat([]byte("]"), 300)),
		string(bytes.Repeat([]byte("{\"k\":["), 100)),
		`{"a":"}` + pad(100) + `{"`,
		`"` + pad(63) + `\`,
		`"` + pad(62) + `\"`,
		`"` + pad(62) + `\\"`,
		`{"a":"b"}}`,
		`[]`,
		`{`,
		pad(60) + `\u00e9\ud83d\ude00\ud83d` + pad(60) + `\\u0041\uZZZZ\u12`,
		pad(63) + `\\` + pad(63) + `\` + "\n" + `\/\b\f\r\t\x`,
		// An escape across the edge of a block the fused kernel takes and
		// one it stops at (a \u escape; a bad escape; the tail).
		pad(63) + `\n\u00e9` + pad(70),
		pad(127) + `\t\x` + pad(70),
		pad(63) + `\"` + pad(10),
		pad(61) + `\\\\\u00e9` + pad(64),
		pad(63) + `\ud83d\ude00` + pad(64),
	}
	for _, c := range cases {
		requireSameEnds(t, []byte(c))
	}
}

// FuzzBlockScanner holds the block scanner to the scalar walk on any
// input.
func FuzzBlockScanner(f *testing.F) {
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","content":"a \"b\" \\\\ c"}]}}`))
	f.Add([]byte(`[\"x",{"a":"\\"},"\\\""]`))
	f.Add(bytes.Repeat([]byte(`{"a":["\\\"]}",`), 20))
	f.Fuzz(func(t *testing.T, b []byte) {
		requireSameEnds(t, b)
	})
}

// TestValidateBlockStrings: Validate with the block scanner's string
// check gives Validate's answers without it (the same error, at the same
// offset) on strings around the length where it takes over, with escapes
// good and bad near their ends and across block edges; and the block
// scanner's string ends and StrLen agree with the scalar walk's there.
func TestValidateBlockStrings(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"a", "b", " ", `\"`, `\\`, `\n`, `\u00e9`, `\ud83d\ude00`, `\ud83d`, `\\\\\\`, `\u12`, `\x`, `\`, `"`, `\uZZZZ`, `\/`, "\x01", "é"}
	for range 6000 {
		var sb bytes.Buffer
		sb.WriteString(`["`)
		n := r.IntN(600)
		for range n {
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		if r.IntN(4) > 0 {
			sb.WriteString(`"`)
		}
		if r.IntN(2) > 0 {
			sb.WriteString(`]`)
		}
		b := sb.Bytes()
		var want, got error
		withScanner(false, false, func() { want = Validate(b) })
		withScanner(true, true, func() { got = Validate(b) })
		require.Equal(t, fmt.Sprint(want), fmt.Sprint(got), "%q", b)
		withScanner(true, false, func() { got = Validate(b) })
		require.Equal(t, fmt.Sprint(want), fmt.Sprint(got), "portable kernel, %q", b)
		// The string's end and decoded length too (the fused kernel stops
		// at \u and bad escapes, which these put at every offset).
		requireSameEnds(t, b)
	}
}

// TestSkipLongStrings holds the fused skip loop's string loop (the blocks
// wholly inside a long string) to the scalar walk: long strings whose end,
// escaped quotes and backslash runs fall at every offset of a block and
// across block edges, with structure after them in the block where they
// end, nested, and cut short.
func TestSkipLongStrings(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	pieces := []string{`\"`, `\\`, `\\\"`, `\\\\`, `\n`, `\u00e9`, `é`, "\x01"}
	str := func() string {
		var sb strings.Builder
		sb.WriteByte('"')
		for n := 64 + r.IntN(400); sb.Len() < n; {
			if r.IntN(6) == 0 {
				sb.WriteString(pieces[r.IntN(len(pieces))])
			} else {
				sb.WriteString(strings.Repeat("x", 1+r.IntN(70)))
			}
		}
		sb.WriteByte('"')
		return sb.String()
	}
	for range 3000 {
		var sb strings.Builder
		sb.WriteString(`{"p":"` + strings.Repeat("p", r.IntN(64)) + `","a":[`)
		for k := range 1 + r.IntN(4) {
			if k > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(`{"s":` + str() + `,"n":[1,{}]}`)
		}
		sb.WriteString(`],"b":` + str() + `}`)
		line := sb.String()
		requireSameEnds(t, []byte(line))
		requireSameEnds(t, []byte(line[:r.IntN(len(line))]))
	}
}

// TestPlainBodyMatchesScalar holds plainBody (words, and block masks on
// long bodies) and controlAt to a byte loop: a control character or a
// backslash at every offset of bodies around the word, block and
// block-path lengths, and bodies of UTF-8 and bytes above 0x7f.
func TestPlainBodyMatchesScalar(t *testing.T) {
	plain := func(s []byte) bool {
		for _, c := range s {
			if c < 0x20 || c == '\\' {
				return false
			}
		}
		return true
	}
	ctl := func(s []byte) int {
		for i, c := range s {
			if c < 0x20 {
				return i
			}
		}
		return -1
	}
	for _, n := range []int{0, 1, 7, 8, 9, 31, 32, 33, 63, 64, 65, 255, 256, 257, 300, 1000} {
		base := bytes.Repeat([]byte("aé\xff~ "), n)[:n]
		for _, blocks := range []bool{false, true} {
			withScanner(blocks, blocks, func() {
				require.True(t, plainBody(base), "n=%d", n)
				for at := 0; at < n; at++ {
					for _, c := range []byte{0, 0x1f, '\n', '\\', 0x20, 0x7f, 0x80} {
						s := bytes.Clone(base)
						s[at] = c
						require.Equal(t, plain(s), plainBody(s), "n=%d at=%d c=%#x blocks=%v", n, at, c, blocks)
						require.Equal(t, ctl(s), controlAt(s), "n=%d at=%d c=%#x", n, at, c)
					}
				}
			})
		}
	}
}
