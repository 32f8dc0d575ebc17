#ifndef TH_TENSOR_PROGRAM_H
#define TH_TENSOR_PROGRAM_H

/* Pointwise programs: a chain of the pointwise ops of THMathOps.h run in one pass (numexpr's
 * idea, pyth.compile's pointwise fusion; no C compiler at run time).
 *
 * A program is ninstr instructions of four int32 each: {opcode, dst, a, b}. Operands name
 * slots: [0, ninputs) the input tensors, [ninputs, ninputs + nscalars) the scalars, and the
 * next TH_PROGRAM_MAX_TEMPS slots the temporaries. An instruction writes a temporary from one
 * operand (unary ops; b is -1) or two (binary ops; not two scalars); the last instruction's
 * value is the result. The opcodes are the entries of the unary and binary lists of
 * THMathOps.h, in list order, as TH_PROGRAM_<name> (TH_PROGRAM_UNARY_END separates the two
 * kinds and is no opcode). */

#include "THTensorMath.h"

#define TH_PROGRAM_OPCODE(NAME, ...) TH_PROGRAM_##NAME,
enum THProgramOp {
  TH_FLOAT_UNARY_OPS(TH_PROGRAM_OPCODE) TH_NUMERIC_UNARY_OPS(TH_PROGRAM_OPCODE)
  TH_PROGRAM_UNARY_END,
  TH_ALL_BINARY_OPS(TH_PROGRAM_OPCODE) TH_FLOAT_BINARY_OPS(TH_PROGRAM_OPCODE)
  TH_PROGRAM_END
};
#undef TH_PROGRAM_OPCODE

/* The limits a program is checked against; TH_PROGRAM_BLOCK elements of each temporary are
 * what one thread keeps live (L1-resident for float). */
enum {
  TH_PROGRAM_MAX_INSTRUCTIONS = 64,
  TH_PROGRAM_MAX_INPUTS = 16,
  TH_PROGRAM_MAX_SCALARS = 16,
  TH_PROGRAM_MAX_TEMPS = 8,
  TH_PROGRAM_BLOCK = 1024
};

/* Checks a program against the slot counts (ValueError naming the instruction); 0 if sound. */
int THProgram_check(const int32_t *program, int ninstr, int ninputs, int nscalars);

#include "generic/THTensorProgram.h"
#include "THGenerateBlasTypes.h"

#endif
