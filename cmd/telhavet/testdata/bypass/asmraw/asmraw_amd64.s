#include "textflag.h"

TEXT ·readOptions(SB), NOSPLIT, $0-8
	MOVQ $0, ret+0(FP)
	RET

TEXT ·poke(SB), NOSPLIT, $0-9
	MOVQ k+0(FP), AX
	MOVB b+8(FP), BX
	MOVB BX, (AX)
	RET

TEXT ·pokeAny(SB), NOSPLIT, $0-25
	MOVQ p_data+8(FP), AX
	MOVQ off+16(FP), BX
	MOVB b+24(FP), CX
	MOVB CX, (AX)(BX*1)
	RET
