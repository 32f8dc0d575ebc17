#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensorProgram.h"
#else

/* r = the program's value over inputs[0..ninputs), contiguous tensors of one shape (r is
 * resized to it and must not partly overlap an input), with scalars[0..nscalars) as its
 * constants. Returns 0, or -1 with an error recorded. */
int THTensor_(evalProgram)(THTensor *r, const int32_t *program, int ninstr,
                           THTensor *const *inputs, int ninputs, const double *scalars,
                           int nscalars);

#endif
