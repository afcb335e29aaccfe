//go:build !amd64 || purego

package jsonx

// useBlocks: without a vector kernel, the scalar quote-to-quote walk is
// faster than the block scanner. The tests still run the block scanner
// with the portable kernel.
var useBlocks = false

var useBlocksKernel = false

func fillMasks(b []byte, dst []blockMasks) { fillMasksGeneric(b, dst) }
