#include "THTensorMath.h"

#include <math.h>
#include <string.h>

#include "THTensorApply.h"

/* What a row function reports back: the first error code any thread saw. */
typedef struct THMathCtx {
  _Atomic int error;
  const void *extra; /* op-specific constants (clamp bounds, addcmul's value) */
} THMathCtx;

static void THMath_report(void *ctx, int err) {
  if (err) atomic_store(&((THMathCtx *)ctx)->error, err);
}

static int THMath_finish(THMathCtx *ctx, const char *op) {
  switch (atomic_load(&ctx->error)) {
    case TH_MATH_OK: return 0;
    case TH_MATH_ZERO_DIVISION:
      THError_set(TH_ERR_RUNTIME, "%s: ZeroDivisionError: integer division by zero", op);
      return -1;
    default:
      THError_set(TH_ERR_RUNTIME, "%s: integers to negative integer powers are not allowed", op);
      return -1;
  }
}

/* Runs a row function over one row on the calling thread. Never inlined or specialised
 * (noipa), so every path - the <name>New fast path, run()'s short path and THIter's - runs
 * an op's row function as the same compiled code: how a loop is vectorised (libmvec's vector
 * variants for most elements, scalar calls for the rest) decides the last bit of the
 * transcendental ops, and inlining a row function into one caller could change that. */
__attribute__((noipa)) static void THMath_runRow(THRowFn fn, THMathCtx *ctx, int64_t n,
                                                 char **data, const int64_t *stride) {
  fn(ctx, n, data, stride);
}

#include "generic/THTensorMath.c"
#include "THGenerateAllTypes.h"
