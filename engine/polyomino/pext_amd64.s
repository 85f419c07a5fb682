//go:build amd64 && gc && !purego

#include "textflag.h"

// func pextRows(dst *uint64, adj *uint64, k int, L *uint64) int
//
// For each vertex u of the state L (k words, in increasing order), writes
// to dst the row adj[u*k : (u+1)*k] restricted to L and packed: bit i of
// the packed row is the i-th vertex of L. Returns the number of vertices.
// L must hold at most 64 vertices. Needs BMI1, BMI2 and POPCNT.
TEXT ·pextRows(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ adj+8(FP), SI
	MOVQ k+16(FP), CX
	MOVQ L+24(FP), DX
	XORQ R8, R8           // w: word of L
	XORQ AX, AX           // vertices written
	MOVQ SI, R9           // &adj[w*64*k]: first row of word w
wordloop:
	CMPQ R8, CX
	JGE done
	MOVQ (DX)(R8*8), R10  // the vertices of word w not done yet
bitloop:
	TESTQ R10, R10
	JZ nextword
	TZCNTQ R10, R11       // b
	BLSRQ R10, R10
	IMULQ CX, R11         // b*k
	LEAQ (R9)(R11*8), R11 // &adj[(w*64+b)*k]
	XORQ R12, R12         // packed row
	XORQ R13, R13         // its next bit
	XORQ R14, R14         // j
jloop:
	MOVQ (DX)(R14*8), R15 // L[j]
	MOVQ (R11)(R14*8), BX // row[j]
	PEXTQ R15, BX, BX
	SHLXQ R13, BX, BX
	ORQ BX, R12
	POPCNTQ R15, R15
	ADDQ R15, R13
	INCQ R14
	CMPQ R14, CX
	JLT jloop
	MOVQ R12, (DI)(AX*8)
	INCQ AX
	JMP bitloop
nextword:
	INCQ R8
	MOVQ CX, R11
	SHLQ $9, R11          // 64 rows of k words, in bytes
	ADDQ R11, R9
	JMP wordloop
done:
	MOVQ AX, ret+32(FP)
	RET

// func pextWords(x, L []uint64) uint64
//
// x restricted to the vertices of L and packed (at most 64 of them).
TEXT ·pextWords(SB), NOSPLIT, $0-56
	MOVQ x_base+0(FP), SI
	MOVQ L_base+24(FP), DX
	MOVQ L_len+32(FP), CX
	XORQ AX, AX           // packed
	XORQ R13, R13         // its next bit
	XORQ R14, R14         // j
loop:
	CMPQ R14, CX
	JGE end
	MOVQ (DX)(R14*8), R15
	MOVQ (SI)(R14*8), BX
	PEXTQ R15, BX, BX
	SHLXQ R13, BX, BX
	ORQ BX, AX
	POPCNTQ R15, R15
	ADDQ R15, R13
	INCQ R14
	JMP loop
end:
	MOVQ AX, ret+48(FP)
	RET

// func cpuid(leaf, sub uint32) (a, b, c, d uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, a+8(FP)
	MOVL BX, b+12(FP)
	MOVL CX, c+16(FP)
	MOVL DX, d+20(FP)
	RET

// func prefetch(p *nearEntry)
TEXT ·prefetch(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), AX
	PREFETCHT0 (AX)
	RET

// func pextPack(dst *uint64, src *uint64, L *uint64, k int)
//
// src (k words) restricted to the vertices of L (k words) and packed into
// dst: ceil(|L|/64) words, every one written (bit i: the i-th vertex of
// L). Needs BMI1, BMI2 and POPCNT.
TEXT ·pextPack(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ L+16(FP), DX
	MOVQ k+24(FP), CX
	XORQ R12, R12         // the word being filled
	XORQ R13, R13         // its bits filled
	XORQ R14, R14         // j
packloop:
	CMPQ R14, CX
	JGE packend
	MOVQ (DX)(R14*8), R15 // L[j]
	MOVQ (SI)(R14*8), BX  // src[j]
	PEXTQ R15, BX, BX     // x: nb bits
	POPCNTQ R15, R15      // nb
	SHLXQ R13, BX, R8
	ORQ R8, R12
	ADDQ R15, R13
	CMPQ R13, $64
	JLT packnext
	MOVQ R12, (DI)        // a word full
	ADDQ $8, DI
	SUBQ $64, R13         // bits of x left over
	MOVQ R15, R9
	SUBQ R13, R9          // bits of x used: 1 to 64
	XORQ R12, R12
	CMPQ R9, $64
	JGE packnext
	SHRXQ R9, BX, R12
packnext:
	INCQ R14
	JMP packloop
packend:
	TESTQ R13, R13
	JZ packdone
	MOVQ R12, (DI)
packdone:
	RET
