//go:build !amd64 || purego

package redact

// useVectorScan: no vector kernel here; the plain scan does it all.
var useVectorScan = false

func vectorMasks(b []byte, n int, out *[maxBatch]uint64) int { return 0 }
