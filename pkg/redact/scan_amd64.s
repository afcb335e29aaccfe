//go:build amd64 && !purego

#include "textflag.h"

// func pairBlocksAVX2(src *byte, n int, t *[5][32]byte) (off int, mask uint32)
//
// For each block of 32 positions: A is the block, B the same shifted by
// one byte (each position's pair is A's byte then B's). Each byte is cut
// into its two halves, each half looks its groups up in a table (VPSHUFB,
// per 16-byte lane: the tables are there twice), and a position is a
// candidate where the groups of A's halves and of B's have a bit in
// common.
TEXT ·pairBlocksAVX2(SB), NOSPLIT, $0-36
	MOVQ src+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ t+16(FP), DI
	VMOVDQU 0(DI), Y0  // groups of the first byte's low half
	VMOVDQU 32(DI), Y1 // of its high half
	VMOVDQU 64(DI), Y2 // of the second byte's low half
	VMOVDQU 96(DI), Y3 // of its high half
	VMOVDQU 128(DI), Y4 // 0x0f in every byte (from memory: a legacy SSE
	                    // instruction here, after the loads above, costs a
	                    // transition of the vector state: 250 ns a call)
	XORQ DX, DX

loop:
	TESTQ CX, CX
	JEQ none
	VMOVDQU (SI)(DX*1), Y5
	VMOVDQU 1(SI)(DX*1), Y6
	VPSRLW $4, Y5, Y7
	VPAND Y4, Y7, Y7
	VPAND Y4, Y5, Y5
	VPSHUFB Y5, Y0, Y5
	VPSHUFB Y7, Y1, Y7
	VPAND Y5, Y7, Y7
	VPSRLW $4, Y6, Y8
	VPAND Y4, Y8, Y8
	VPAND Y4, Y6, Y6
	VPSHUFB Y6, Y2, Y6
	VPSHUFB Y8, Y3, Y8
	VPAND Y6, Y8, Y8
	VPAND Y7, Y8, Y8
	VPTEST Y8, Y8
	JNZ found
	ADDQ $32, DX
	DECQ CX
	JMP loop

found:
	VPXOR Y9, Y9, Y9
	VPCMPEQB Y9, Y8, Y8
	VPMOVMSKB Y8, AX
	NOTL AX
	MOVQ DX, off+24(FP)
	MOVL AX, mask+32(FP)
	VZEROUPPER
	RET

none:
	MOVQ DX, off+24(FP)
	MOVL $0, mask+32(FP)
	VZEROUPPER
	RET
