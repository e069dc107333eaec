#include "textflag.h"

TEXT ·readOptions(SB), NOSPLIT, $0-8
	JMP github.com∕linxGnu∕grocksdb·NewDefaultReadOptions(SB) // bypass

TEXT ·poke(SB), NOSPLIT, $0-9
	MOVQ k+0(FP), AX
	MOVB b+8(FP), BX
	MOVB BX, (AX)
	RET
