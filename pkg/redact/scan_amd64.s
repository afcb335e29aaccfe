//go:build amd64 && !purego

#include "textflag.h"

// func pairMasksAVX2(src *byte, n int, t *[5][32]byte, out *[maxBatch]uint64) (k int)
//
// For each of n blocks of 32 positions (n <= maxBatch): A is the block,
// B the same shifted by one byte (each position's pair is A's byte then
// B's). Each byte is cut into its two halves, each half looks its groups
// up in a table (VPSHUFB, per 16-byte lane: the tables are there twice),
// and a position is a candidate where the groups of A's halves and of B's
// have a bit in common. Each block with a candidate is written to out as
// its offset<<32 | its mask, in order; k is how many were. All n blocks
// in one call, the tables loaded once (VMOVDQU from memory, the 0x0f too:
// a legacy SSE instruction after the loads would cost a transition of the
// vector state, 250 ns a call).
TEXT ·pairMasksAVX2(SB), NOSPLIT, $0-40
	MOVQ src+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ t+16(FP), DI
	MOVQ out+24(FP), R8
	VMOVDQU 0(DI), Y0
	VMOVDQU 32(DI), Y1
	VMOVDQU 64(DI), Y2
	VMOVDQU 96(DI), Y3
	VMOVDQU 128(DI), Y4
	VPXOR Y9, Y9, Y9
	XORQ DX, DX // the block's offset
	XORQ BX, BX // k

mloop:
	TESTQ CX, CX
	JEQ mdone
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
	JZ mnext
	VPCMPEQB Y9, Y8, Y8
	VPMOVMSKB Y8, AX
	NOTL AX
	MOVQ DX, R9
	SHLQ $32, R9
	ORQ AX, R9
	MOVQ R9, (R8)(BX*8)
	INCQ BX

mnext:
	ADDQ $32, DX
	DECQ CX
	JMP mloop

mdone:
	MOVQ BX, k+32(FP)
	VZEROUPPER
	RET
