package jsonx

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBlockStrLenRandomEscapes proves that StrLen with the block kernels
// counts what the scalar count does on 20000 random strings of escapes:
// \u escapes (valid, cut short, bad digits, lone and paired surrogates)
// next to simple ones, bad ones and raw bytes, across block edges. A
// mismatch is shrunk to a short case. It caught a \u escape that ended
// one byte into a block being counted twice.
func TestBlockStrLenRandomEscapes(t *testing.T) {
	parts := []string{`\ud83d\ude00`, `\u00e9`, `\uZZZZ`, `\u12`, `\n`, `\\`, `a`, ` `, `\ud83d`, `\/`, "\x01", `\x`, "é", `\"`}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for size := 128 + r.IntN(400); b.Len() < size; {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		body := []byte(b.String())
		want := strLen(body)
		got := blockStrLen(body)
		if want == got {
			withoutAVX512(func() { got = blockStrLen(body) }) // and the AVX2 form
		}
		if want != got {
			// shrink
			for {
				shrunk := false
				for cut := 1; cut < len(body); cut++ {
					for _, c := range [][]byte{body[cut:], body[:len(body)-cut]} {
						if len(c) >= 128 && strLen(c) != blockStrLen(c) {
							body = append([]byte{}, c...)
							shrunk = true
							break
						}
					}
					if shrunk {
						break
					}
				}
				if !shrunk {
					break
				}
			}
			t.Fatalf("want %d got %d for %q (len %d)", strLen(body), blockStrLen(body), body, len(body))
		}
	}
}

// TestStrBlocksBound proves that the string-counting loop hands back no
// more \u escapes than strState.us holds: it stops at the block that would
// overflow it (a write past it would land in the next state, checked
// here), in both forms.
func TestStrBlocksBound(t *testing.T) {
	if !fusedKernels() {
		t.Skip("no fused kernels here")
	}
	body := []byte(strings.Repeat(`\u00e9  `, 400)) // eight a block, digits in it
	for _, avx512 := range []bool{true, false} {
		var sts [2]strState
		sts[1] = strState{carry: 7, saved: 9, nu: 11}
		want := sts[1]
		var k int
		run := func() { k = strBlocks(body, &sts[0]) }
		if avx512 {
			run()
		} else {
			withoutAVX512(run)
		}
		require.Equal(t, want, sts[1], "the next state is untouched (AVX-512: %t)", avx512)
		require.LessOrEqual(t, sts[0].nu, strMaxU)
		require.Greater(t, sts[0].nu, 0)
		require.Less(t, k, len(body)/64, "it stopped before the end")
	}
}
