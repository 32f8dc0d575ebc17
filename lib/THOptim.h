#ifndef TH_OPTIM_H
#define TH_OPTIM_H

/* THOptim: the update steps of pyth.optim's optimizers, stamped for float and double. Each
 * kernel updates a whole parameter group in one call: it takes arrays of n tensor handles (the
 * parameters, their gradients and the optimizer's state buffers, index i belonging to
 * parameter i) and the group's scalars, and runs the optimizer's formula over every element,
 * splitting large tensors between threads. The step counters (and NAdam's mu_product, ASGD's
 * eta and mu) are 0-dim float32 tensors (as in PyTorch), advanced here. Each returns 0, or -1 with an error recorded (a buffer whose size
 * is not its parameter's); parameters before the failing one are already updated. */

#include "THTensor.h"

#define THOptim_(NAME) TH_CONCAT_3(THOptim_, Real, NAME)

#include "generic/THOptim.h"
#include "THGenerateBlasTypes.h"

#endif
