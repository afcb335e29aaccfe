//go:build amd64 && !purego

package redact

import "golang.org/x/sys/cpu"

// useVectorScan: the AVX2 kernel. A variable so that the tests can run
// both scans.
var useVectorScan = cpu.X86.HasAVX2

// vectorTables are nibbleTables(Rules), in the order the kernel loads them.
var vectorTables = nibbleTables(Rules)

// pairBlocksAVX2 passes over n blocks of 32 positions from src (reading
// 33 bytes each: a pair's second byte may be the next block's first) and
// returns the offset of the first where a trigger may start, with its
// mask; or n*32 and 0.
//
//go:noescape
func pairBlocksAVX2(src *byte, n int, t *[5][32]byte) (off int, mask uint32)

// vectorScan runs the kernel over n blocks of b (len(b) >= 32n+1).
func vectorScan(b []byte, n int) (int, uint32) {
	_ = b[32*n]
	return pairBlocksAVX2(&b[0], n, &vectorTables)
}
