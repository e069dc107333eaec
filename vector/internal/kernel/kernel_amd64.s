#include "textflag.h"

// The kernels walk ids in order. Before row i they prefetch every cache
// line of the rows up to i+5 (LEAD_PLUS_ONE - 1) that they have not
// prefetched yet, then compute row i in 16 lanes with two accumulators.
// The last len(q) % 16 components of a row (the tail) are read with
// masked loads, which read nothing of the lanes their mask leaves out
// and take no fault there (AVX-512 suppresses the faults of masked-off
// elements): a tail at the end of the matrix reads no byte past it.
//
// Registers: SI the query, CX the bytes of a row, DI the matrix, BX the
// ids, DX their number, R8 the results, R9 the row computed, R10 the next
// row to prefetch, R12 a row's address, R13 a byte offset into it, K1 the
// mask of the tail's lanes; for Cosines, R15 the norms, X4 the query's
// norm and X5 1.0.

#define LEAD_PLUS_ONE 6

// PROLOGUE loads the arguments every kernel has at the same offsets (the
// matrix at 24 is vecs, or codes for int8DotsAVX512); CX is len(q), which
// a float32 kernel then turns into bytes, and K1 has the low len(q) % 16
// bits set.
#define PROLOGUE \
	MOVQ q_base+0(FP), SI; \
	MOVQ q_len+8(FP), CX; \
	MOVQ vecs_base+24(FP), DI; \
	MOVQ ids_base+48(FP), BX; \
	MOVQ ids_len+56(FP), DX; \
	MOVQ out_base+72(FP), R8; \
	XORQ R9, R9; \
	XORQ R10, R10; \
	MOVQ CX, R11; \
	ANDQ $15, CX; \
	MOVL $1, AX; \
	SHLL CX, AX; \
	DECL AX; \
	KMOVW AX, K1; \
	MOVQ R11, CX

// NEXT prefetches up to row R9+5, and with each row what PF asks for
// (R12 holds the row's id then), and points R12 at row R9, with the
// accumulators cleared; it jumps to done when every row is computed. A
// row that does not start on a cache line ends in one that the 64-byte
// steps from its start miss: its last byte is prefetched too.
#define NEXT(PF) \
row: \
	CMPQ R9, DX; \
	JAE done; \
	LEAQ LEAD_PLUS_ONE(R9), R11; \
	CMPQ R11, DX; \
	CMOVQHI DX, R11; \
ahead: \
	CMPQ R10, R11; \
	JAE compute; \
	MOVL (BX)(R10*4), R12; \
	PF; \
	IMULQ CX, R12; \
	ADDQ DI, R12; \
	XORQ R13, R13; \
lines: \
	PREFETCHT0 (R12)(R13*1); \
	ADDQ $64, R13; \
	CMPQ R13, CX; \
	JB lines; \
	PREFETCHT0 -1(R12)(CX*1); \
	INCQ R10; \
	JMP ahead; \
compute: \
	MOVL (BX)(R9*4), R12; \
	IMULQ CX, R12; \
	ADDQ DI, R12; \
	VXORPS X0, X0, X0; \
	VXORPS X1, X1, X1; \
	XORQ R13, R13

// SUM adds the lanes of both accumulators into X0.
#define SUM \
	VADDPS Z1, Z0, Z0; \
	VEXTRACTF64X4 $1, Z0, Y1; \
	VADDPS Y1, Y0, Y0; \
	VEXTRACTF128 $1, Y0, X1; \
	VADDPS X1, X0, X0; \
	VHADDPS X0, X0, X0; \
	VHADDPS X0, X0, X0

// STORE writes X0 to out[R9] and goes on with the next row.
#define STORE \
	VMOVSS X0, (R8)(R9*4); \
	INCQ R9; \
	JMP row

// DOT accumulates the products of the row at R12 and the query.
#define DOT \
pair: \
	LEAQ 128(R13), R14; \
	CMPQ R14, CX; \
	JA single; \
	VMOVUPS (R12)(R13*1), Z2; \
	VMOVUPS 64(R12)(R13*1), Z3; \
	VFMADD231PS (SI)(R13*1), Z2, Z0; \
	VFMADD231PS 64(SI)(R13*1), Z3, Z1; \
	MOVQ R14, R13; \
	JMP pair; \
single: \
	LEAQ 64(R13), R14; \
	CMPQ R14, CX; \
	JA tail; \
	VMOVUPS (R12)(R13*1), Z2; \
	VFMADD231PS (SI)(R13*1), Z2, Z0; \
	MOVQ R14, R13; \
tail: \
	CMPQ R13, CX; \
	JAE sum; \
	VMOVUPS.Z (R12)(R13*1), K1, Z2; \
	VMOVUPS.Z (SI)(R13*1), K1, Z3; \
	VFMADD231PS Z3, Z2, Z1; \
sum: \
	SUM

// func dotsAVX512(q, vecs []float32, ids []uint32, out []float32)
TEXT ·dotsAVX512(SB), NOSPLIT, $0-96
	PROLOGUE
	SHLQ $2, CX
	NEXT(NOP)
	DOT
	STORE
done:
	VZEROUPPER
	RET

// func cosinesAVX512(q, vecs []float32, ids []uint32, out []float32, norms []float64, qnorm float64)
//
// out[i] = 1 - dot/(qnorm*norms[id]), the division in float64 as
// telha.dev/vector's kernelDistance does it.
TEXT ·cosinesAVX512(SB), NOSPLIT, $0-128
	PROLOGUE
	SHLQ $2, CX
	MOVQ norms_base+96(FP), R15
	VMOVSD qnorm+120(FP), X4
	MOVQ $0x3FF0000000000000, AX
	VMOVQ AX, X5
	NEXT(PREFETCHT0 (R15)(R12*8))
	DOT
	VCVTSS2SD X0, X0, X0
	MOVL (BX)(R9*4), AX
	VMULSD (R15)(AX*8), X4, X1
	VDIVSD X1, X0, X0
	VSUBSD X0, X5, X0
	VCVTSD2SS X0, X0, X0
	STORE
done:
	VZEROUPPER
	RET

// func squaredL2sAVX512(q, vecs []float32, ids []uint32, out []float32)
TEXT ·squaredL2sAVX512(SB), NOSPLIT, $0-96
	PROLOGUE
	SHLQ $2, CX
	NEXT(NOP)
pair:
	LEAQ 128(R13), R14
	CMPQ R14, CX
	JA single
	VMOVUPS (R12)(R13*1), Z2
	VMOVUPS 64(R12)(R13*1), Z3
	VSUBPS (SI)(R13*1), Z2, Z2
	VSUBPS 64(SI)(R13*1), Z3, Z3
	VFMADD231PS Z2, Z2, Z0
	VFMADD231PS Z3, Z3, Z1
	MOVQ R14, R13
	JMP pair
single:
	LEAQ 64(R13), R14
	CMPQ R14, CX
	JA tail
	VMOVUPS (R12)(R13*1), Z2
	VSUBPS (SI)(R13*1), Z2, Z2
	VFMADD231PS Z2, Z2, Z0
	MOVQ R14, R13
tail:
	CMPQ R13, CX
	JAE sum
	VMOVUPS.Z (R12)(R13*1), K1, Z2
	VMOVUPS.Z (SI)(R13*1), K1, Z3
	VSUBPS Z3, Z2, Z2
	VFMADD231PS Z2, Z2, Z1
sum:
	SUM
	STORE
done:
	VZEROUPPER
	RET

// func int8DotsAVX512(q []float32, codes []int8, ids []uint32, out []float32, scales []float32)
//
// A row is len(q) bytes (CX), each code widened to an int32 and
// converted to a float32 before it meets the query's component (at four
// times the code's offset); the sum is multiplied by the row's scale,
// which NEXT prefetches with the row. The tail's codes are loaded masked
// (AVX512BW's byte masks) before they are widened.
TEXT ·int8DotsAVX512(SB), NOSPLIT, $0-120
	PROLOGUE
	MOVQ scales_base+96(FP), R15
	NEXT(PREFETCHT0 (R15)(R12*4))
pair:
	LEAQ 32(R13), R14
	CMPQ R14, CX
	JA single
	VPMOVSXBD (R12)(R13*1), Z2
	VPMOVSXBD 16(R12)(R13*1), Z3
	VCVTDQ2PS Z2, Z2
	VCVTDQ2PS Z3, Z3
	VFMADD231PS (SI)(R13*4), Z2, Z0
	VFMADD231PS 64(SI)(R13*4), Z3, Z1
	MOVQ R14, R13
	JMP pair
single:
	LEAQ 16(R13), R14
	CMPQ R14, CX
	JA tail
	VPMOVSXBD (R12)(R13*1), Z2
	VCVTDQ2PS Z2, Z2
	VFMADD231PS (SI)(R13*4), Z2, Z0
	MOVQ R14, R13
tail:
	CMPQ R13, CX
	JAE sum
	VMOVDQU8.Z (R12)(R13*1), K1, X2
	VPMOVSXBD X2, Z2
	VCVTDQ2PS Z2, Z2
	VMOVUPS.Z (SI)(R13*4), K1, Z3
	VFMADD231PS Z3, Z2, Z1
sum:
	SUM
	MOVL (BX)(R9*4), AX
	VMULSS (R15)(AX*4), X0, X0
	STORE
done:
	VZEROUPPER
	RET

// func Prefetch(s []uint32)
TEXT ·Prefetch(SB), NOSPLIT, $0-24
	MOVQ s_base+0(FP), AX
	MOVQ s_len+8(FP), CX
	LEAQ (AX)(CX*4), CX
line:
	CMPQ AX, CX
	JAE none
	PREFETCHT0 (AX)
	ADDQ $64, AX
	JMP line
none:
	RET
