//go:build !amd64 || purego

package redact

// useVectorScan: no vector kernel here; the plain scan does it all.
var useVectorScan = false

func vectorScan(b []byte, n int) (int, uint32) { return 0, 0 }
