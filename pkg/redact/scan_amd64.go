//go:build amd64 && !purego

package redact

import "golang.org/x/sys/cpu"

// useVectorScan: the AVX2 kernel. A variable so that the tests can run
// both scans.
var useVectorScan = cpu.X86.HasAVX2

// vectorTables are nibbleTables(Rules), in the order the kernel loads them.
var vectorTables = nibbleTables(Rules)

// pairMasksAVX2 passes over n blocks of 32 positions from src (reading
// 33 bytes each: a pair's second byte may be the next block's first),
// n <= maxBatch, and writes to out each block where a trigger may start,
// as its offset<<32 | its mask; it returns how many.
//
//go:noescape
func pairMasksAVX2(src *byte, n int, t *[5][32]byte, out *[maxBatch]uint64) (k int)

// vectorMasks runs the kernel over n blocks of b (len(b) >= 32n+1).
func vectorMasks(b []byte, n int, out *[maxBatch]uint64) int {
	_ = b[32*n]
	return pairMasksAVX2(&b[0], n, &vectorTables, out)
}
