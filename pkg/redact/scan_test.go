package redact

import (
	"bytes"
	"math/bits"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// triggersOf lists the positions of b where the table has a trigger, as
// the scan finds them (with the vector kernel or without).
func triggersOf(b []byte, vector bool) (found []int, candidates int) {
	defer func(v bool) { useVectorScan = v }(useVectorScan)
	useVectorScan = useVectorScan && vector
	ts := triggerScan{b: b}
	for i := 0; i < len(b); {
		base, mask := ts.next(i)
		if mask == 0 {
			break
		}
		for ; mask != 0; mask &= mask - 1 {
			j := base + bits.TrailingZeros32(mask)
			candidates++
			if triggers.set[pairAt(b, j)] != 0 {
				found = append(found, j)
			}
		}
		i = base + 32
	}
	return found, candidates
}

// triggersByTable is every position the table names, one by one.
func triggersByTable(b []byte) []int {
	var out []int
	for j := range b {
		if triggers.set[pairAt(b, j)] != 0 {
			out = append(out, j)
		}
	}
	return out
}

// TestVectorScanSameAsPlain proves the scan finds every trigger the table
// names, no more, with the vector kernel and without, on the real long
// session at every start offset modulo 32 and on every trigger at every
// place of a block (its pair split across two blocks, at the text's end).
func TestVectorScanSameAsPlain(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "real", "60-long-session.jsonl"))
	require.NoError(t, err)
	data = data[:1<<20]
	want := triggersByTable(data)
	require.NotEmpty(t, want)
	for _, vector := range []bool{false, true} {
		got, candidates := triggersOf(data, vector)
		assert.Equal(t, want, got, "vector=%v", vector)
		t.Logf("vector=%v: %d triggers among %d candidates", vector, len(got), candidates)
	}
	all := []string{escapeTrigger}
	for _, rule := range Rules {
		all = append(all, rule.triggers...)
	}
	for _, tr := range all {
		for at := range 70 {
			b := append(bytes.Repeat([]byte(" "), at), tr...)
			b = append(b, bytes.Repeat([]byte(" "), 70-at)...)
			for _, cut := range []int{len(b), at + len(tr)} {
				assert.Equal(t, triggersByTable(b[:cut]), first(triggersOf(b[:cut], true)), "%q at %d of %d", tr, at, cut)
			}
		}
	}
}

func first(a []int, _ int) []int { return a }

// FuzzScan: on any text, the scan (the vector kernel where there is one)
// finds the triggers the table names.
func FuzzScan(f *testing.F) {
	f.Add([]byte(`{"a":"ghp_x sk-ant- @ AKIA Bearer"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, _ := triggersOf(b, true)
		assert.Equal(t, triggersByTable(b), got)
	})
}
