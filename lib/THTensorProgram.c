#include "THTensorProgram.h"

#include <math.h>
#include <string.h>

/* Checks every instruction before anything runs: a known opcode, a temporary as destination,
 * operands that are slots of the program and temporaries written before they are read. */
int THProgram_check(const int32_t *program, int ninstr, int ninputs, int nscalars) {
  const char *op = "evalProgram()";
  THArgCheck(ninstr >= 1 && ninstr <= TH_PROGRAM_MAX_INSTRUCTIONS, TH_ERR_VALUE, -1,
             "%s: a program has 1 to %d instructions, got %d", op, TH_PROGRAM_MAX_INSTRUCTIONS,
             ninstr);
  THArgCheck(program != NULL, TH_ERR_VALUE, -1, "%s: the program is missing", op);
  THArgCheck(ninputs >= 1 && ninputs <= TH_PROGRAM_MAX_INPUTS, TH_ERR_VALUE, -1,
             "%s: a program reads 1 to %d inputs, got %d", op, TH_PROGRAM_MAX_INPUTS, ninputs);
  THArgCheck(nscalars >= 0 && nscalars <= TH_PROGRAM_MAX_SCALARS, TH_ERR_VALUE, -1,
             "%s: a program has 0 to %d scalars, got %d", op, TH_PROGRAM_MAX_SCALARS, nscalars);
  const int first_temp = ninputs + nscalars, end = first_temp + TH_PROGRAM_MAX_TEMPS;
  int written[TH_PROGRAM_MAX_TEMPS] = {0};
  for (int i = 0; i < ninstr; i++) {
    const int32_t *ins = program + 4 * i;
    const int code = ins[0], dst = ins[1];
    THArgCheck(code >= 0 && code < TH_PROGRAM_END && code != TH_PROGRAM_UNARY_END, TH_ERR_VALUE,
               -1, "%s: instruction %d has no opcode %d", op, i, code);
    const int binary = code > TH_PROGRAM_UNARY_END;
    THArgCheck(dst >= first_temp && dst < end, TH_ERR_VALUE, -1,
               "%s: instruction %d writes slot %d, which is not a temporary (slots %d to %d)", op,
               i, dst, first_temp, end - 1);
    for (int k = 0; k < 2; k++) {
      const int s = ins[2 + k];
      if (k == 1 && !binary) {
        THArgCheck(s == -1, TH_ERR_VALUE, -1,
                   "%s: instruction %d is a unary op and takes no second operand (-1), got %d",
                   op, i, s);
        continue;
      }
      THArgCheck(s >= 0 && s < end, TH_ERR_VALUE, -1,
                 "%s: instruction %d reads slot %d, outside the program's slots 0 to %d", op, i,
                 s, end - 1);
      THArgCheck(s < first_temp || written[s - first_temp], TH_ERR_VALUE, -1,
                 "%s: instruction %d reads temporary slot %d before it is written", op, i, s);
    }
    const int a_scalar = ins[2] >= ninputs && ins[2] < first_temp;
    const int b_scalar = binary && ins[3] >= ninputs && ins[3] < first_temp;
    THArgCheck(!(a_scalar && (b_scalar || !binary)), TH_ERR_VALUE, -1,
               "%s: instruction %d computes on scalars only", op, i);
    written[dst - first_temp] = 1;
  }
  return 0;
}

#include "generic/THTensorProgram.c"
#include "THGenerateBlasTypes.h"
