//go:build amd64 && !purego

#include "textflag.h"

// The three loops below share these pieces. Each block is in Y5 (bytes
// 0-31) and Y6 (bytes 32-63); Y7 and Y8 are scratch.

// SPLAT sets every byte of y to the byte c (through AX and x, y's low half).
#define SPLAT(c, x, y) \
	MOVQ $c, AX \
	VMOVQ AX, x \
	VPBROADCASTB x, y

// ZSPLAT sets every byte of the 64-byte register z to the byte c.
#define ZSPLAT(c, z) \
	MOVL $c, AX \
	VPBROADCASTB AX, z

// BLOCK_CONSTANTS: '"' in Y0, '\\' in Y1, 0x20 in Y2, '{' in Y3, '}' in Y4
// (a byte ORed with 0x20 is '{' when it was '{' or '[', '}' when it was
// '}' or ']').
#define BLOCK_CONSTANTS \
	SPLAT(0x22, X0, Y0) \
	SPLAT(0x5c, X1, Y1) \
	SPLAT(0x20, X2, Y2) \
	SPLAT(0x7b, X3, Y3) \
	SPLAT(0x7d, X4, Y4)

// MASK64 sets bit k of dst when byte k of the block equals that byte of y;
// tmp is clobbered.
#define MASK64(y, dst, tmp) \
	VPCMPEQB y, Y5, Y7 \
	VPCMPEQB y, Y6, Y8 \
	VPMOVMSKB Y7, dst \
	VPMOVMSKB Y8, tmp \
	SHLQ $32, tmp \
	ORQ tmp, dst

// func fillMasksAVX2(src *byte, n int, dst *blockMasks)
//
// For each 64-byte block: compare both 32-byte halves with '"', '\\',
// '{' and '}' (a byte ORed with 0x20 is '{' when it was '{' or '[', '}'
// when it was '}' or ']'), find the bytes below 0x20 (those equal to
// their minimum with 0x1f, in Y10), and pack each into 64 bits.
TEXT ·fillMasksAVX2(SB), NOSPLIT, $0-24
	MOVQ src+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ dst+16(FP), DI
	BLOCK_CONSTANTS
	SPLAT(0x1f, X10, Y10)
	TESTQ CX, CX
	JEQ done

loop:
	VMOVDQU (SI), Y5
	VMOVDQU 32(SI), Y6

	MASK64(Y0, AX, BX)
	MOVQ AX, 0(DI)

	MASK64(Y1, AX, BX)
	MOVQ AX, 8(DI)

	VPMINUB Y10, Y5, Y7
	VPMINUB Y10, Y6, Y8
	VPCMPEQB Y5, Y7, Y7
	VPCMPEQB Y6, Y8, Y8
	VPMOVMSKB Y7, AX
	VPMOVMSKB Y8, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, 32(DI)

	VPOR Y2, Y5, Y5
	VPOR Y2, Y6, Y6

	MASK64(Y3, AX, BX)
	MOVQ AX, 16(DI)

	MASK64(Y4, AX, BX)
	MOVQ AX, 24(DI)

	ADDQ $64, SI
	ADDQ $40, DI
	DECQ CX
	JNZ loop

done:
	VZEROUPPER
	RET

// Z_STRING_BLOCK loads the block at SI into Z5 and, with '"' in Z0, '\\'
// in Z1 and escapedBytes' carry in R8, jumps to ends when an unescaped
// quote ends a string in it; else R12 is the carry for the next block
// (ESCAPES; BX, R11, AX, R13, K1 and K2 are clobbered).
#define Z_STRING_BLOCK(ends) \
	VMOVDQU64 (SI), Z5 \
	VPCMPEQB Z1, Z5, K1 \
	VPCMPEQB Z0, Z5, K2 \
	KMOVQ K1, BX \
	KMOVQ K2, R11 \
	ESCAPES \
	NOTQ AX \
	TESTQ AX, R11 \
	JNZ ends

// STRING_BLOCK is Z_STRING_BLOCK with the block in Y5 and Y6.
#define STRING_BLOCK(ends) \
	VMOVDQU (SI), Y5 \
	VMOVDQU 32(SI), Y6 \
	QUOTES_ESCAPES \
	NOTQ AX \
	TESTQ AX, R11 \
	JNZ ends

// QUOTES_ESCAPES: of the block, with '"' in Y0, '\\' in Y1 and escapedBytes' carry in R8: BX the backslashes,
// R11 the quotes, AX the escaped bytes, R12 the carry for the next block
// (escapedBytes' word arithmetic, which also holds without backslashes);
// R13 is clobbered.
#define QUOTES_ESCAPES \
	MASK64(Y1, BX, AX) \
	MASK64(Y0, R11, AX) \
	ESCAPES

// ESCAPES: with the backslashes in BX and escapedBytes' carry in R8, AX the
// escaped bytes and R12 the carry for the next block; R13 is clobbered.
#define ESCAPES \
	MOVQ R8, R12 \
	NOTQ R12 \
	ANDQ BX, R12 \
	MOVQ R12, R13 \
	SHLQ $1, R13 \
	MOVQ $0xAAAAAAAAAAAAAAAA, AX \
	ORQ AX, R13 \
	SUBQ R12, R13 \
	XORQ AX, R13 \
	MOVQ BX, AX \
	ORQ R8, AX \
	XORQ R13, AX \
	ANDQ BX, R13 \
	SHRQ $63, R13 \
	MOVQ R13, R12

// OUTSIDE_STRINGS: after QUOTES_ESCAPES (or ESCAPES), with inString in R9
// and all ones in X9: R13 the bytes inside strings (the prefix XOR of the
// real quotes, a carry-less multiply by all ones, with inString), AX the
// bytes outside; it jumps to done at a backslash outside a string.
#define OUTSIDE_STRINGS(done) \
	NOTQ AX \
	ANDQ AX, R11 \
	VMOVQ R11, X10 \
	VPCLMULQDQ $0x00, X9, X10, X10 \
	VMOVQ X10, R13 \
	XORQ R9, R13 \
	MOVQ R13, AX \
	NOTQ AX \
	TESTQ AX, BX \
	JNZ done

// CLOSING counts the closing brackets in R11 that are outside strings, and
// jumps to done when the depth (R10) could reach zero in the block.
#define CLOSING(done) \
	ANDQ AX, R11 \
	POPCNTQ R11, R11 \
	CMPQ R10, R11 \
	JLE done

// OPENING moves the depth by the opening brackets in BX that are outside
// strings, less the closing ones CLOSING counted.
#define OPENING \
	ANDQ AX, BX \
	POPCNTQ BX, BX \
	ADDQ BX, R10 \
	SUBQ R11, R10

// func skipBlocksAVX2(src *byte, n int, st *skipState) int
//
// blockSkip's loop over n whole 64-byte blocks, fused: the masks stay in
// registers, the escape carry and the string state are computed as in
// escapedBytes and prefixXor (the prefix XOR as a carry-less multiply by
// all ones), and the depth moves by popcounts. It stops before the first
// block that needs blockSkip's byte-by-byte care: one where the depth
// could reach zero, or with a backslash outside a string. st (carry,
// inString, depth) is updated for the blocks consumed only; the result is
// how many were consumed.
TEXT ·skipBlocksAVX2(SB), NOSPLIT, $0-32
	MOVQ src+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ st+16(FP), DI
	MOVQ 0(DI), R8   // carry
	MOVQ 8(DI), R9   // inString
	MOVQ 16(DI), R10 // depth
	BLOCK_CONSTANTS
	MOVQ $-1, AX
	VMOVQ AX, X9
	TESTQ CX, CX
	JEQ sdone

sloop:
	VMOVDQU (SI), Y5
	VMOVDQU 32(SI), Y6

	QUOTES_ESCAPES
	OUTSIDE_STRINGS(sdone)
	VMOVQ R11, X10 // the block's real quotes

	VPOR Y2, Y5, Y5
	VPOR Y2, Y6, Y6

	// R11: closing brackets outside strings, counted
	MASK64(Y4, R11, BX)
	CLOSING(sdone)

	// BX: opening brackets outside strings, counted
	MASK64(Y3, BX, DX)
	OPENING

	// The block is consumed.
	MOVQ R12, R8
	SARQ $63, R13
	MOVQ R13, R9
	ADDQ $64, SI
	DECQ CX
	JEQ sdone
	// A block wholly inside a string: the string loop takes the blocks up
	// to the one where it ends (see skipBlocksAVX512).
	VMOVQ X10, DX
	TESTQ DX, DX
	JNZ sloop
	TESTQ R9, R9
	JEQ sloop

sstring:
	STRING_BLOCK(sloop) // to sloop: the string ends in this block
	MOVQ R12, R8
	ADDQ $64, SI
	DECQ CX
	JNZ sstring

sdone:
	MOVQ R8, 0(DI)
	MOVQ R9, 8(DI)
	MOVQ R10, 16(DI)
	MOVQ n+8(FP), AX
	SUBQ CX, AX
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET

// func skipBlocksAVX512(src *byte, n int, st *skipState) int
//
// skipBlocksAVX2 with each block in one 64-byte register (Z5), compared
// into mask registers: a third fewer instructions per block.
TEXT ·skipBlocksAVX512(SB), NOSPLIT, $0-32
	MOVQ src+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ st+16(FP), DI
	MOVQ 0(DI), R8   // carry
	MOVQ 8(DI), R9   // inString
	MOVQ 16(DI), R10 // depth
	ZSPLAT(0x22, Z0)
	ZSPLAT(0x5c, Z1)
	ZSPLAT(0x20, Z2)
	ZSPLAT(0x7b, Z3)
	ZSPLAT(0x7d, Z4)
	MOVQ $-1, AX
	VMOVQ AX, X9
	TESTQ CX, CX
	JEQ zdone

zloop:
	VMOVDQU64 (SI), Z5
	VPCMPEQB Z1, Z5, K1
	VPCMPEQB Z0, Z5, K2
	VPORQ Z2, Z5, Z6
	VPCMPEQB Z4, Z6, K3
	VPCMPEQB Z3, Z6, K4
	KMOVQ K1, BX
	KMOVQ K2, R11
	ESCAPES
	OUTSIDE_STRINGS(zdone)
	MOVQ R11, DX // the block's real quotes

	// R11: closing brackets outside strings, counted
	KMOVQ K3, R11
	CLOSING(zdone)

	// BX: opening brackets outside strings, counted
	KMOVQ K4, BX
	OPENING

	// The block is consumed.
	MOVQ R12, R8
	SARQ $63, R13
	MOVQ R13, R9
	ADDQ $64, SI
	DECQ CX
	JEQ zdone
	// A block wholly inside a string (no real quote, one open) is most
	// likely in a long one (a tool result's text): the string loop takes
	// the blocks up to the one where it ends.
	TESTQ DX, DX
	JNZ zloop
	TESTQ R9, R9
	JEQ zloop

// The inside of a string: only escapes and quotes matter (as in
// quoteBlocksAVX512), twice as fast as the loop above. A block with a real
// quote goes back to it, unconsumed.
zstring:
	Z_STRING_BLOCK(zloop) // to zloop: the string ends in this block
	MOVQ R12, R8
	ADDQ $64, SI
	DECQ CX
	JNZ zstring

zdone:
	MOVQ R8, 0(DI)
	MOVQ R9, 8(DI)
	MOVQ R10, 16(DI)
	MOVQ n+8(FP), AX
	SUBQ CX, AX
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET

// func quoteBlocksAVX2(src *byte, n int, carry *uint64) int
//
// The inside of a string, n whole 64-byte blocks from src: it stops
// before the first block holding an unescaped quote (the string's end),
// whatever the escapes are (finding the end needs no more: strBlocksAVX2
// also stops at \u escapes, to count). *carry is escapedBytes' carry,
// updated for the blocks consumed; the result is how many were.
TEXT ·quoteBlocksAVX2(SB), NOSPLIT, $0-32
	MOVQ src+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ carry+16(FP), DI
	MOVQ 0(DI), R8
	SPLAT(0x22, X0, Y0)
	SPLAT(0x5c, X1, Y1)
	TESTQ CX, CX
	JEQ qdone

qloop:
	STRING_BLOCK(qdone)
	MOVQ R12, R8
	ADDQ $64, SI
	DECQ CX
	JNZ qloop

qdone:
	MOVQ R8, 0(DI)
	MOVQ n+8(FP), AX
	SUBQ CX, AX
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET

// func quoteBlocksAVX512(src *byte, n int, carry *uint64) int
//
// quoteBlocksAVX2 with each block in one 64-byte register.
TEXT ·quoteBlocksAVX512(SB), NOSPLIT, $0-32
	MOVQ src+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ carry+16(FP), DI
	MOVQ 0(DI), R8
	ZSPLAT(0x22, Z0)
	ZSPLAT(0x5c, Z1)
	TESTQ CX, CX
	JEQ zqdone

zqloop:
	Z_STRING_BLOCK(zqdone)
	MOVQ R12, R8
	ADDQ $64, SI
	DECQ CX
	JNZ zqloop

zqdone:
	MOVQ R8, 0(DI)
	MOVQ n+8(FP), AX
	SUBQ CX, AX
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET

// Nibble tables of the bytes that may follow a backslash: the high and
// the low nibble of a byte each look up a class, and the two ANDed give
// bits 0-3 for '"' '/' (1), '\\' (2), 'b' 'f' 'n' (4), 'r' 't' (8), and
// bit 4 for 'u'. Each table is repeated in both 128-bit lanes (VPSHUFB
// looks up within a lane).
DATA strHiTab<>+0(SB)/8, $0x1804020000010000
DATA strHiTab<>+8(SB)/8, $0x0000000000000000
DATA strHiTab<>+16(SB)/8, $0x1804020000010000
DATA strHiTab<>+24(SB)/8, $0x0000000000000000
GLOBL strHiTab<>(SB), RODATA|NOPTR, $32
DATA strLoTab<>+0(SB)/8, $0x00041008000d0000
DATA strLoTab<>+8(SB)/8, $0x0104000200000000
DATA strLoTab<>+16(SB)/8, $0x00041008000d0000
DATA strLoTab<>+24(SB)/8, $0x0104000200000000
GLOBL strLoTab<>(SB), RODATA|NOPTR, $32

// NOT_SIMPLE sets bit k of dst when byte k of the 32 bytes in src is not
// a simple escape's letter: the class of its high nibble (the table in
// Y3) ANDed with that of its low nibble (Y4), 0x0f in Y2, zero in Y9.
#define NOT_SIMPLE(src, dst) \
	VPSRLW $4, src, Y7 \
	VPAND Y2, Y7, Y7 \
	VPSHUFB Y7, Y3, Y7 \
	VPAND Y2, src, Y8 \
	VPSHUFB Y8, Y4, Y8 \
	VPAND Y7, Y8, Y7 \
	VPAND Y2, Y7, Y7 \
	VPCMPEQB Y9, Y7, Y7 \
	VPMOVMSKB Y7, dst

// U_ESCAPES: of the block's escaped letters that are not simple ones
// (DX), with its 'u' bytes in R11, its backslashes in BX, st.saved in R10
// and st.nu in R9: unless each is the 'u' of a \u escape whose four digits
// are in the block and hold no backslash, and st.us has room for them, it
// jumps to done (the caller takes that block byte by byte). Else it takes
// them out of the simple escapes' count (popcounted later with the rest)
// and leaves the block's offset from src in R11, for U_RECORD.
#define U_ESCAPES(done) \
	MOVQ R11, R13 \
	NOTQ R13 \
	TESTQ R13, DX \
	JNZ done \
	MOVQ $0xF000000000000000, R13 \
	TESTQ R13, DX \
	JNZ done \
	MOVQ DX, R13 \
	SHLQ $1, R13 \
	MOVQ R13, R11 \
	SHLQ $1, R13 \
	ORQ R13, R11 \
	SHLQ $1, R13 \
	ORQ R13, R11 \
	SHLQ $1, R13 \
	ORQ R13, R11 \
	TESTQ R11, BX \
	JNZ done \
	POPCNTQ DX, R13 \
	MOVQ R13, R11 \
	ADDQ R9, R13 \
	CMPQ R13, $32 \
	JGT done \
	SUBQ R11, R10 \
	MOVQ SI, R11 \
	SUBQ src+0(FP), R11

// U_RECORD writes the offset of DX's lowest 'u' (R11 plus its bit) to
// st.us[st.nu], counts it and clears it; ZF is set when none is left.
#define U_RECORD \
	BSFQ DX, R13 \
	ADDQ R11, R13 \
	MOVL R13, 24(DI)(R9*4) \
	INCQ R9 \
	MOVQ DX, R13 \
	DECQ R13 \
	ANDQ R13, DX

// func strBlocksAVX2(src *byte, n int, st *strState) int
//
// The inside of a long string, n whole 64-byte blocks from src: it stops
// before the first block holding an unescaped quote (the string's end) or
// an escaped byte other than '"' '\\' '/' 'b' 'f' 'n' 'r' 't' and 'u' (a bad
// escape), or a \u escape it cannot take: one whose four digits reach
// past the block or hold a backslash, or one more than st.us has room for.
// The caller looks at that block byte by byte. Each simple escape of the
// blocks consumed saves one byte once decoded: st.saved counts them; the
// offset from src of the 'u' of each \u escape goes to st.us (st.nu of
// them), for the caller to count (a \u escape saves 2 to 5 bytes, or
// pairs with the next). st.carry is escapedBytes' carry. The result is
// how many blocks were consumed; st is updated for those only.
TEXT ·strBlocksAVX2(SB), NOSPLIT, $0-32
	MOVQ src+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ st+16(FP), DI
	MOVQ 0(DI), R8   // carry
	MOVQ 8(DI), R10  // saved
	MOVQ 16(DI), R9  // nu
	SPLAT(0x22, X0, Y0)
	SPLAT(0x5c, X1, Y1)
	SPLAT(0x0f, X2, Y2)
	SPLAT(0x75, X10, Y10)
	VMOVDQU strHiTab<>(SB), Y3
	VMOVDQU strLoTab<>(SB), Y4
	VPXOR Y9, Y9, Y9
	TESTQ CX, CX
	JEQ tdone

tloop:
	VMOVDQU (SI), Y5
	VMOVDQU 32(SI), Y6

	QUOTES_ESCAPES
	// An unescaped quote: the string ends in this block.
	MOVQ AX, R13
	NOTQ R13
	TESTQ R13, R11
	JNZ tdone
	TESTQ AX, AX
	JEQ tcommit

	// R11: the bytes that are not a simple escape's letter
	NOT_SIMPLE(Y5, R11)
	NOT_SIMPLE(Y6, R13)
	SHLQ $32, R13
	ORQ R13, R11
	MOVQ AX, DX
	ANDQ R11, DX
	JEQ tcount // simple escapes only

	// DX: the escaped letters that are not simple ones; R11: the 'u's.
	MASK64(Y10, R11, R13)
	U_ESCAPES(tdone)
tu:
	U_RECORD
	JNZ tu

tcount:
	POPCNTQ AX, AX
	ADDQ AX, R10

tcommit:
	MOVQ R12, R8
	ADDQ $64, SI
	DECQ CX
	JNZ tloop

tdone:
	MOVQ R8, 0(DI)
	MOVQ R10, 8(DI)
	MOVQ R9, 16(DI)
	MOVQ n+8(FP), AX
	SUBQ CX, AX
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET

// func strBlocksAVX512(src *byte, n int, st *strState) int
//
// strBlocksAVX2 with each block in one 64-byte register: the classes of
// the escapes' letters by the same nibble tables (in each 128-bit lane),
// tested into a mask register.
TEXT ·strBlocksAVX512(SB), NOSPLIT, $0-32
	MOVQ src+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ st+16(FP), DI
	MOVQ 0(DI), R8   // carry
	MOVQ 8(DI), R10  // saved
	MOVQ 16(DI), R9  // nu
	ZSPLAT(0x22, Z0)
	ZSPLAT(0x5c, Z1)
	ZSPLAT(0x0f, Z2)
	ZSPLAT(0x75, Z10)
	VBROADCASTI64X4 strHiTab<>(SB), Z3
	VBROADCASTI64X4 strLoTab<>(SB), Z4
	TESTQ CX, CX
	JEQ ztdone

ztloop:
	VMOVDQU64 (SI), Z5
	VPCMPEQB Z1, Z5, K1
	VPCMPEQB Z0, Z5, K2
	KMOVQ K1, BX
	KMOVQ K2, R11
	ESCAPES
	// An unescaped quote: the string ends in this block.
	MOVQ AX, R13
	NOTQ R13
	TESTQ R13, R11
	JNZ ztdone
	TESTQ AX, AX
	JEQ ztcommit

	// R11: the bytes that are not a simple escape's letter (their classes
	// share no bit of 0x0f)
	VPSRLW $4, Z5, Z7
	VPANDQ Z2, Z7, Z7
	VPSHUFB Z7, Z3, Z7
	VPANDQ Z2, Z5, Z8
	VPSHUFB Z8, Z4, Z8
	VPANDQ Z7, Z8, Z7
	VPTESTNMB Z2, Z7, K3
	KMOVQ K3, R11
	MOVQ AX, DX
	ANDQ R11, DX
	JEQ ztcount // simple escapes only

	// DX: the escaped letters that are not simple ones; R11: the 'u's.
	VPCMPEQB Z10, Z5, K4
	KMOVQ K4, R11
	U_ESCAPES(ztdone)
ztu:
	U_RECORD
	JNZ ztu

ztcount:
	POPCNTQ AX, AX
	ADDQ AX, R10

ztcommit:
	MOVQ R12, R8
	ADDQ $64, SI
	DECQ CX
	JNZ ztloop

ztdone:
	MOVQ R8, 0(DI)
	MOVQ R10, 8(DI)
	MOVQ R9, 16(DI)
	MOVQ n+8(FP), AX
	SUBQ CX, AX
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET
