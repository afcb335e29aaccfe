//go:build amd64 && !purego

#include "textflag.h"

// func fillMasksAVX2(src *byte, n int, dst *blockMasks)
//
// For each 64-byte block: compare both 32-byte halves with '"', '\\',
// '{' and '}' (a byte ORed with 0x20 is '{' when it was '{' or '[', '}'
// when it was '}' or ']'), and pack each comparison into 64 bits.
TEXT ·fillMasksAVX2(SB), NOSPLIT, $0-24
	MOVQ src+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ dst+16(FP), DI
	MOVQ $0x22, AX
	MOVQ AX, X0
	VPBROADCASTB X0, Y0
	MOVQ $0x5c, AX
	MOVQ AX, X1
	VPBROADCASTB X1, Y1
	MOVQ $0x20, AX
	MOVQ AX, X2
	VPBROADCASTB X2, Y2
	MOVQ $0x7b, AX
	MOVQ AX, X3
	VPBROADCASTB X3, Y3
	MOVQ $0x7d, AX
	MOVQ AX, X4
	VPBROADCASTB X4, Y4
	TESTQ CX, CX
	JEQ done

loop:
	VMOVDQU (SI), Y5
	VMOVDQU 32(SI), Y6

	VPCMPEQB Y0, Y5, Y7
	VPCMPEQB Y0, Y6, Y8
	VPMOVMSKB Y7, AX
	VPMOVMSKB Y8, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, 0(DI)

	VPCMPEQB Y1, Y5, Y7
	VPCMPEQB Y1, Y6, Y8
	VPMOVMSKB Y7, AX
	VPMOVMSKB Y8, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, 8(DI)

	VPOR Y2, Y5, Y5
	VPOR Y2, Y6, Y6

	VPCMPEQB Y3, Y5, Y7
	VPCMPEQB Y3, Y6, Y8
	VPMOVMSKB Y7, AX
	VPMOVMSKB Y8, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, 16(DI)

	VPCMPEQB Y4, Y5, Y7
	VPCMPEQB Y4, Y6, Y8
	VPMOVMSKB Y7, AX
	VPMOVMSKB Y8, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, 24(DI)

	ADDQ $64, SI
	ADDQ $32, DI
	DECQ CX
	JNZ loop

done:
	VZEROUPPER
	RET
