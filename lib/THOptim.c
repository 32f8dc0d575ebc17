#include "THOptim.h"

#include <math.h>
#include <tgmath.h>

/* for (j in [0, len)) BODY, split between threads when par is set. */
#define THOPTIM_FOR(par, len, BODY)                                                  \
  do {                                                                               \
    _Pragma("omp parallel for if (par)") for (int64_t j = 0; j < (len); j++) { BODY; } \
    if (par) THParallel_noteTeam();                                                  \
  } while (0)

/* Each kernel's group scalars (and per-parameter arrays), as its per-parameter update in
 * generic/THOptim.c reads them; the flags say which optional operands the walk was given. */
typedef struct {
  const uint8_t *fresh;
  double lr, momentum, dampening, weight_decay;
  int nesterov, maximize, has_buf;
} THOptimSGDArgs;

typedef struct {
  double lr, beta1, beta2, eps, weight_decay;
  int decoupled, maximize, amsgrad;
} THOptimAdamArgs;

typedef struct {
  double lr, alpha, eps, weight_decay, momentum;
  int maximize, centered, has_buf;
} THOptimRMSpropArgs;

typedef struct {
  double lr, lr_decay, weight_decay, eps;
  int maximize;
} THOptimAdagradArgs;

typedef struct {
  double lr, rho, eps, weight_decay;
  int maximize;
} THOptimAdadeltaArgs;

typedef struct {
  double lr, beta1, beta2, eps, weight_decay;
  int maximize;
} THOptimAdamaxArgs;

typedef struct {
  double lr, beta1, beta2, eps, weight_decay, momentum_decay;
  int decoupled, maximize;
  THFloatTensor **mu_products;
} THOptimNAdamArgs;

typedef struct {
  double lr, beta1, beta2, eps, weight_decay;
  int decoupled, maximize;
} THOptimRAdamArgs;

typedef struct {
  double etaminus, etaplus, step_size_min, step_size_max;
  int maximize;
} THOptimRpropArgs;

typedef struct {
  double lr, lambd, alpha, t0, weight_decay;
  int maximize;
  THFloatTensor **etas, **mus;
} THOptimASGDArgs;

#include "generic/THOptim.c"
#include "THGenerateBlasTypes.h"
