//go:build amd64 && !purego

package jsonx

import "golang.org/x/sys/cpu"

// useBlocks: the AVX2 kernel makes the block scanner faster than jumping
// from quote to quote on long values. A variable so that the tests can run
// both paths.
var useBlocks = cpu.X86.HasAVX2

// fillMasksAVX2 writes the masks of n blocks from src to dst.
//
//go:noescape
func fillMasksAVX2(src *byte, n int, dst *blockMasks)

func fillMasks(b []byte, dst []blockMasks) {
	if len(dst) == 0 {
		return
	}
	if !useBlocksKernel {
		fillMasksGeneric(b, dst)
		return
	}
	_ = b[64*len(dst)-1]
	fillMasksAVX2(&b[0], len(dst), &dst[0])
}

// useBlocksKernel is false only in tests that run the block scanner on the
// portable kernel.
var useBlocksKernel = cpu.X86.HasAVX2

// hasFusedKernels: the fused loops (skipBlocksAVX2) also need the
// carry-less multiply and popcount instructions.
var hasFusedKernels = cpu.X86.HasAVX2 && cpu.X86.HasPCLMULQDQ && cpu.X86.HasPOPCNT

//go:noescape
func skipBlocksAVX2(src *byte, n int, st *skipState) int

//go:noescape
func skipBlocksAVX512(src *byte, n int, st *skipState) int

// useAVX512: the skip loop has a form for 64-byte registers.
var useAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW

// skipBlocks runs blockSkip's loop over the whole blocks of b in one call
// (see skipBlocksAVX2) and returns how many it consumed: none without the
// fused kernel.
func skipBlocks(b []byte, st *skipState) int {
	n := len(b) / 64
	if n == 0 || !fusedKernels() {
		return 0
	}
	if useAVX512 {
		return skipBlocksAVX512(&b[0], n, st)
	}
	return skipBlocksAVX2(&b[0], n, st)
}

//go:noescape
func strBlocksAVX2(src *byte, n int, st *strState) int

//go:noescape
func strBlocksAVX512(src *byte, n int, st *strState) int

// strBlocks runs the loop over the whole blocks of a long string's inside
// in one call (see strBlocksAVX2) and returns how many it consumed: none
// without the fused kernel.
func strBlocks(b []byte, st *strState) int {
	n := len(b) / 64
	if n == 0 || !fusedKernels() {
		return 0
	}
	if useAVX512 {
		return strBlocksAVX512(&b[0], n, st)
	}
	return strBlocksAVX2(&b[0], n, st)
}

//go:noescape
func quoteBlocksAVX2(src *byte, n int, carry *uint64) int

//go:noescape
func quoteBlocksAVX512(src *byte, n int, carry *uint64) int

// quoteBlocks passes over the whole blocks of a string's inside up to the
// one holding its closing quote (see quoteBlocksAVX2) and returns how many
// it consumed: none without the fused kernels.
func quoteBlocks(b []byte, carry *uint64) int {
	n := len(b) / 64
	if n == 0 || !fusedKernels() {
		return 0
	}
	if useAVX512 {
		return quoteBlocksAVX512(&b[0], n, carry)
	}
	return quoteBlocksAVX2(&b[0], n, carry)
}

// fusedKernels: the fused loops are used (the block scanner's kernel is,
// and the machine has what they need).
func fusedKernels() bool { return hasFusedKernels && useBlocksKernel }
