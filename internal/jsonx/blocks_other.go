//go:build !amd64 || purego

package jsonx

// useBlocks: without a vector kernel, the scalar quote-to-quote walk is
// faster than the block scanner. The tests still run the block scanner
// with the portable kernel.
var useBlocks = false

var useBlocksKernel = false

func fillMasks(b []byte, dst []blockMasks) { fillMasksGeneric(b, dst) }

// skipBlocks: no fused kernel here; blockSkip walks every block itself.
func skipBlocks(b []byte, st *skipState) int { return 0 }

// quoteBlocks: no fused kernel here.
func quoteBlocks(b []byte, carry *uint64) int { return 0 }

// strBlocks: no fused kernel here.
func strBlocks(b []byte, st *strState) int { return 0 }

func fusedKernels() bool { return false }

// useAVX512: no AVX-512 loop here.
var useAVX512 = false
