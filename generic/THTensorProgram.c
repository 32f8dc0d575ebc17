#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensorProgram.c"
#else

/* How a program runs.
 * 1. The inputs are contiguous and of one shape, so element j of every operand is at offset
 *    j: the elements are cut into blocks of TH_PROGRAM_BLOCK, and each block runs the whole
 *    program before the next, its temporaries in a per-thread buffer that stays in L1 (the
 *    unfused ops would each stream every element through memory).
 * 2. An instruction is one loop over the block (programStep): a switch on the opcode outside
 *    the loop, so each op's loop is the expression of its THMathOps.h line, vectorised as the
 *    op's own row function is; a scalar operand is read once, outside its loop.
 * 3. The last instruction writes the result's block directly. Blocks are split between
 *    threads above the grain (THParallel_worth, weighted by the program's length). */

#if defined(TH_REAL_IS_DOUBLE)
#define TH_M(fn) fn
#else
#define TH_M(fn) fn##f
#endif
#define TH_ROUND(v) (v)
#define TH_ISNAN(x) isnan(x)
#define TH_NEG_P(x) ((x) < 0)

#define TH_PROGRAM_LOOP(X, Y, EXPR)          \
  for (int64_t j = 0; j < n; j++) {          \
    const opreal x = (X), y = (Y);           \
    (void)y;                                 \
    d[j] = (real)(EXPR);                     \
  }
#define TH_PROGRAM_UNARY_CASE(NAME, EXPR, ...) \
  case TH_PROGRAM_##NAME: TH_PROGRAM_LOOP(a[j], 0, EXPR) break;
#define TH_PROGRAM_BINARY_CASE(NAME, EXPR, ...)  \
  case TH_PROGRAM_##NAME:                        \
    if (sa && sb) {                              \
      TH_PROGRAM_LOOP(a[j], b[j], EXPR)          \
    } else if (sa) {                             \
      TH_PROGRAM_LOOP(a[j], b0, EXPR)            \
    } else {                                     \
      TH_PROGRAM_LOOP(a0, b[j], EXPR)            \
    }                                            \
    break;

/* d[0..n) = op(a, b) over one block; sa / sb: whether a / b is a row (else a scalar). */
TH_VECTOR_CLONES static void THTensor_(programStep)(int code, real *d,
                                                     const real *a, int sa, const real *b,
                                                     int sb, int64_t n) {
  const opreal a0 = a[0], b0 = b ? b[0] : 0;
  int err = 0;
  (void)err;
  (void)a0;
  (void)b0;
  switch (code) {
    TH_FLOAT_UNARY_OPS(TH_PROGRAM_UNARY_CASE)
    TH_NUMERIC_UNARY_OPS(TH_PROGRAM_UNARY_CASE)
    TH_ALL_BINARY_OPS(TH_PROGRAM_BINARY_CASE)
    TH_FLOAT_BINARY_OPS(TH_PROGRAM_BINARY_CASE)
    default: break;
  }
}

/* Runs the program over elements [begin, end) (at most one block), temporaries in tmp. */
static void THTensor_(programBlock)(const int32_t *program, int ninstr, real *const *in,
                                    int nin, const real *sc, int nsc, real *rdata,
                                    real (*tmp)[TH_PROGRAM_BLOCK], int64_t begin, int64_t end) {
  const int first_temp = nin + nsc;
  const int64_t n = end - begin;
  for (int i = 0; i < ninstr; i++) {
    const int32_t *ins = program + 4 * i;
    const real *operand[2] = {NULL, NULL};
    int row[2] = {1, 1};
    for (int k = 0; k < 2; k++) {
      const int s = ins[2 + k];
      if (s < 0) continue;
      if (s < nin) {
        operand[k] = in[s] + begin;
      } else if (s < first_temp) {
        operand[k] = sc + (s - nin);
        row[k] = 0;
      } else {
        operand[k] = tmp[s - first_temp];
      }
    }
    real *d = i == ninstr - 1 ? rdata + begin : tmp[ins[1] - first_temp];
    THTensor_(programStep)(ins[0], d, operand[0], row[0], operand[1], row[1], n);
  }
}

/* Whether r's elements partly overlap t's (the same first element is allowed: each block is
 * read before it is written). */
static int THTensor_(partlyOverlaps)(THTensor *r, THTensor *t, int64_t numel) {
  const real *p = THTensor_(data)(r), *q = THTensor_(data)(t);
  return p != q && p < q + numel && q < p + numel;
}

int THTensor_(evalProgram)(THTensor *r, const int32_t *program, int ninstr,
                           THTensor *const *inputs, int ninputs, const double *scalars,
                           int nscalars) {
  const char *op = "evalProgram()";
  char a[TH_SIZE_STR_LEN], b[TH_SIZE_STR_LEN];
  THTry(THProgram_check(program, ninstr, ninputs, nscalars), -1);
  THArgCheck(r != NULL && inputs != NULL, TH_ERR_VALUE, -1, "%s: the result or the inputs are "
             "missing", op);
  THArgCheck(nscalars == 0 || scalars != NULL, TH_ERR_VALUE, -1, "%s: the scalars are missing",
             op);
  for (int k = 0; k < ninputs; k++) {
    THArgCheck(inputs[k] != NULL, TH_ERR_VALUE, -1, "%s: input %d is missing", op, k);
    THTry(THTensor_(checkBounds)(inputs[k], op), -1);
    THArgCheck(THTensor_(isContiguous)(inputs[k]), TH_ERR_RUNTIME, -1,
               "%s: input %d is not contiguous", op, k);
    THArgCheck(THTensor_(isSameSizeAs)(inputs[k], inputs[0]), TH_ERR_RUNTIME, -1,
               "%s: input %d has size %s, but input 0 has size %s", op, k,
               THSize_str(a, sizeof a, inputs[k]->nDimension, inputs[k]->size),
               THSize_str(b, sizeof b, inputs[0]->nDimension, inputs[0]->size));
  }
  THTry(THTensor_(resizeOutput)(r, op, inputs[0]->nDimension, inputs[0]->size, 0), -1);
  THArgCheck(THTensor_(isContiguous)(r), TH_ERR_RUNTIME, -1, "%s: the result is not contiguous",
             op);
  const int64_t numel = THTensor_(nElement)(inputs[0]);
  real *in[TH_PROGRAM_MAX_INPUTS];
  for (int k = 0; k < ninputs; k++) {
    THArgCheck(!THTensor_(partlyOverlaps)(r, inputs[k], numel), TH_ERR_RUNTIME, -1,
               "%s: the result partly overlaps input %d", op, k);
    in[k] = THTensor_(data)(inputs[k]);
  }
  if (numel == 0) return 0;
  real sc[TH_PROGRAM_MAX_SCALARS];
  for (int k = 0; k < nscalars; k++) sc[k] = (real)scalars[k];
  real *rdata = THTensor_(data)(r);
  const int64_t nblocks = (numel + TH_PROGRAM_BLOCK - 1) / TH_PROGRAM_BLOCK;
  const int par = THParallel_worth(numel, (int64_t)sizeof(real) * (ninputs + 1) * ninstr);
#pragma omp parallel if (par)
  {
    real tmp[TH_PROGRAM_MAX_TEMPS][TH_PROGRAM_BLOCK];
#pragma omp for schedule(static)
    for (int64_t k = 0; k < nblocks; k++) {
      const int64_t begin = k * TH_PROGRAM_BLOCK;
      const int64_t end = begin + TH_PROGRAM_BLOCK < numel ? begin + TH_PROGRAM_BLOCK : numel;
      THTensor_(programBlock)(program, ninstr, in, ninputs, sc, nscalars, rdata, tmp, begin,
                              end);
    }
  }
  if (par) THParallel_noteTeam();
  return 0;
}

#undef TH_M
#undef TH_ROUND
#undef TH_ISNAN
#undef TH_NEG_P
#undef TH_PROGRAM_LOOP
#undef TH_PROGRAM_UNARY_CASE
#undef TH_PROGRAM_BINARY_CASE

#endif
