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
