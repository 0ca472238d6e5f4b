//go:build !purego

#include "go_asm.h"
#include "textflag.h"

// func memberLoop(src []byte, pos int, dst []byte, room int, slots []keySlot, i int, dropNulls bool) (ni, npos, nlen, status int)
//
// The member loop of fastMembers (members_amd64.go says what it does and
// which conditions make it stop); fastMembersGo is the same loop in Go.
//
// Registers: SI src, R8 len(src), BX pos, DI dst, R9 len(dst), R10 room,
// R11 &slots[i], R12 i. In a member: CX the value's end, DX the value's
// start; AX, R13, R14, R15 and X0-X3 scratch; X12-X14 the string scan's
// constants.
TEXT ·memberLoop(SB), NOSPLIT, $0-136
	MOVQ src_base+0(FP), SI
	MOVQ src_len+8(FP), R8
	MOVQ pos+24(FP), BX
	MOVQ dst_base+32(FP), DI
	MOVQ dst_len+40(FP), R9
	MOVQ room+56(FP), R10
	MOVQ slots_base+64(FP), R11
	MOVQ i+88(FP), R12
	IMUL3Q $keySlot__size, R12, AX
	ADDQ AX, R11

	MOVQ $0x2222222222222222, AX // '"'
	MOVQ AX, X12
	PUNPCKLQDQ X12, X12
	MOVQ $0x5c5c5c5c5c5c5c5c, AX // '\\'
	MOVQ AX, X13
	PUNPCKLQDQ X13, X13
	MOVQ $0x2020202020202020, AX // ' '
	MOVQ AX, X14
	PUNPCKLQDQ X14, X14

member:
	CMPQ R12, slots_len+72(FP)
	JGE  stop
	// The margin: the key's word loads and the value's first bytes lie
	// within src.
	MOVQ R8, AX
	SUBQ BX, AX
	CMPQ AX, $const_maxWordKey+16
	JLT  stop

	// The key: the one remembered in the slot, followed by a colon.
	MOVQ keySlot_end(R11), CX
	SUBQ keySlot_start(R11), CX
	JLE  miss
	CMPQ CX, $const_maxWordKey
	JGT  miss
	MOVQ (SI)(BX*1), AX
	XORQ keySlot_head(R11), AX
	ANDQ keySlot_mask(R11), AX
	JNZ  miss
	LEAQ (BX)(CX*1), DX
	CMPQ CX, $8
	JLE  colon
	MOVQ -8(SI)(DX*1), AX
	CMPQ AX, keySlot_tail(R11)
	JNE  miss
	CMPQ CX, $16
	JLE  colon
	MOVQ 8(SI)(BX*1), AX
	CMPQ AX, keySlot_mid(R11)
	JNE  miss

colon:
	CMPB (SI)(DX*1), $':'
	JNE  miss
	INCQ DX // the value's start, at least 15 bytes before len(src)
	MOVBLZX (SI)(DX*1), AX
	CMPB AL, $'"'
	JEQ  str
	CMPB AL, $'n'
	JEQ  null
	CMPB AL, $'t'
	JEQ  isTrue
	CMPB AL, $'f'
	JEQ  isFalse

	// A number without exponent: -?(0|[1-9][0-9]*)(\.[0-9]+)?
	MOVQ DX, CX
	CMPB AL, $'-'
	JNE  int
	INCQ CX

int:
	MOVQ CX, R13 // the first digit
	MOVBLZX (SI)(CX*1), AX
	SUBL $'0', AX
	CMPL AX, $10
	JAE  stop

intDigits:
	INCQ CX
	CMPQ CX, R8
	JGE  stop
	MOVBLZX (SI)(CX*1), AX
	SUBL $'0', AX
	CMPL AX, $10
	JB   intDigits
	CMPB (SI)(R13*1), $'0'
	JNE  fraction
	LEAQ 1(R13), AX
	CMPQ CX, AX
	JNE  stop // a leading zero

fraction:
	CMPB (SI)(CX*1), $'.'
	JNE  value
	INCQ CX
	MOVQ CX, R13

fractionDigits:
	CMPQ CX, R8
	JGE  stop
	MOVBLZX (SI)(CX*1), AX
	SUBL $'0', AX
	CMPL AX, $10
	JAE  fractionEnd
	INCQ CX
	JMP  fractionDigits

fractionEnd:
	CMPQ CX, R13
	JEQ  stop // no digit after the point
	JMP  value

null:
	CMPL (SI)(DX*1), $0x6c6c756e // "null"
	JNE  stop
	LEAQ 4(DX), CX
	JMP  value

isTrue:
	CMPL (SI)(DX*1), $0x65757274 // "true"
	JNE  stop
	LEAQ 4(DX), CX
	JMP  value

isFalse:
	CMPL (SI)(DX*1), $0x736c6166 // "fals"
	JNE  stop
	CMPB 4(SI)(DX*1), $'e'
	JNE  stop
	LEAQ 5(DX), CX
	JMP  value

	// A string of ASCII text and valid escapes, sixteen bytes at a time:
	// the first quote, backslash, control or non-ASCII byte of a block
	// is where the scan looks.
str:
	LEAQ 1(DX), CX

strBlock:
	LEAQ 16(CX), AX
	CMPQ AX, R8
	JGT  stop
	MOVOU (SI)(CX*1), X0
	MOVO  X0, X1
	PCMPEQB X12, X1
	MOVO  X0, X2
	PCMPEQB X13, X2
	MOVO  X14, X3
	PCMPGTB X0, X3 // ' ' > byte, signed: a control or non-ASCII byte
	POR   X2, X1
	POR   X3, X1
	PMOVMSKB X1, AX
	TESTL AX, AX
	JNZ   strSpecial
	ADDQ  $16, CX
	JMP   strBlock

strSpecial:
	BSFL AX, AX
	ADDQ AX, CX
	MOVBLZX (SI)(CX*1), AX
	CMPB AL, $'"'
	JNE  escape
	INCQ CX
	JMP  value

escape:
	CMPB AL, $'\\'
	JNE  stop // control or non-ASCII: the general path decides
	LEAQ 6(CX), AX
	CMPQ AX, R8
	JGT  stop
	MOVBLZX 1(SI)(CX*1), AX
	CMPB AL, $'u'
	JEQ  unicode
	CMPB AL, $'"'
	JEQ  escape2
	CMPB AL, $'\\'
	JEQ  escape2
	CMPB AL, $'/'
	JEQ  escape2
	CMPB AL, $'b'
	JEQ  escape2
	CMPB AL, $'f'
	JEQ  escape2
	CMPB AL, $'n'
	JEQ  escape2
	CMPB AL, $'r'
	JEQ  escape2
	CMPB AL, $'t'
	JNE  stop

escape2:
	ADDQ $2, CX
	JMP  strBlock

unicode:
	MOVQ $2, R13

hex:
	LEAQ (CX)(R13*1), AX
	MOVBLZX (SI)(AX*1), AX
	MOVL AX, R14
	SUBL $'0', R14
	CMPL R14, $10
	JB   hexDigit
	ORL  $0x20, AX
	SUBL $'a', AX
	CMPL AX, $6
	JAE  stop

hexDigit:
	INCQ R13
	CMPQ R13, $6
	JLT  hex
	ADDQ $6, CX
	JMP  strBlock

	// The value is src[DX:CX]. A comma or the object's closing brace
	// follows it, and moveSlack bytes of src lie past it.
value:
	MOVQ R8, AX
	SUBQ CX, AX
	CMPQ AX, $const_moveSlack
	JLT  stop
	MOVBLZX (SI)(CX*1), AX
	CMPB AL, $','
	JEQ  decided
	CMPB AL, $'}'
	JNE  stop

decided:
	CMPB keySlot_info+keyInfo_skip(R11), $0
	JNE  next
	CMPB (SI)(DX*1), $'n'
	JNE  write
	CMPB dropNulls+96(FP), $0
	JNE  next

write:
	MOVQ keySlot_info+keyInfo_member(R11), R14
	MOVQ keySlot_info+keyInfo_member+8(R11), AX
	TESTQ R14, R14
	JNZ  mapped
	// Unmapped: a comma, then key and value as they are.
	MOVQ BX, DX
	MOVL $1, AX

mapped:
	// AX bytes before the run src[DX:CX]: the name (R14) or a comma.
	MOVQ CX, R13
	SUBQ DX, R13
	LEAQ (R9)(AX*1), R15
	ADDQ R13, R15 // the new length
	CMPQ R15, R10
	JGE  stop
	// In bounds: the blocks below write below R15+16 < room+16 <= cap(dst),
	// read src below CX+16 <= len(src)-16, and a name's blocks lie within
	// its slack (newTarget).
	TESTQ R14, R14
	JZ   comma
	LEAQ (DI)(R9*1), R15
	XORQ BX, BX

nameBlock:
	MOVOU (R14)(BX*1), X0
	MOVOU X0, (R15)(BX*1)
	ADDQ  $16, BX
	CMPQ  BX, AX
	JLT   nameBlock
	JMP   run

comma:
	MOVB $',', (DI)(R9*1)

run:
	ADDQ AX, R9
	LEAQ (DI)(R9*1), R15
	LEAQ (SI)(DX*1), R14
	XORQ BX, BX

runBlock:
	MOVOU (R14)(BX*1), X0
	MOVOU X0, (R15)(BX*1)
	ADDQ  $16, BX
	CMPQ  BX, R13
	JLT   runBlock
	ADDQ  R13, R9

next:
	INCQ R12
	ADDQ $keySlot__size, R11
	CMPB (SI)(CX*1), $'}'
	JEQ  closed
	LEAQ 1(CX), BX
	JMP  member

closed:
	MOVQ CX, BX
	MOVQ $const_memberClosed, AX
	JMP  done

miss:
	MOVQ $const_memberMiss, AX
	JMP  done

stop:
	MOVQ $const_memberStop, AX

done:
	MOVQ R12, ni+104(FP)
	MOVQ BX, npos+112(FP)
	MOVQ R9, nlen+120(FP)
	MOVQ AX, status+128(FP)
	RET
