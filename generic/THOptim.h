#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THOptim.h"
#else

/* SGD: d = ±g (+ weight_decay * p); with momentum, b = momentum * b + (1 - dampening) * d
 * (b = d where fresh[i] is set: a buffer's first step) and d = nesterov ? d + momentum * b : b;
 * then p -= lr * d. momentum_buffers is NULL when momentum is 0; fresh may be NULL. */
int THOptim_(SGD_step)(THTensor **params, THTensor **grads, THTensor **momentum_buffers,
                       const uint8_t *fresh, int n, double lr, double momentum,
                       double dampening, double weight_decay, int nesterov, int maximize);

/* Adam / AdamW: t += 1; d = ±g, with weight_decay either added to d (Adam) or decoupled,
 * p *= 1 - lr * weight_decay (AdamW); m = lerp(m, d, 1 - beta1);
 * v = beta2 * v + (1 - beta2) * d * d; with amsgrad vmax = max(vmax, v) replaces v below;
 * p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps).
 * max_exp_avg_sqs is NULL unless amsgrad. */
int THOptim_(Adam_step)(THTensor **params, THTensor **grads, THTensor **exp_avgs,
                        THTensor **exp_avg_sqs, THTensor **max_exp_avg_sqs,
                        THFloatTensor **steps, int n, double lr, double beta1, double beta2,
                        double eps, double weight_decay, int decoupled_weight_decay,
                        int maximize);

/* RMSprop: t += 1; d = ±g (+ weight_decay * p); s = alpha * s + (1 - alpha) * d * d;
 * centered: a = lerp(a, d, 1 - alpha), r = sqrt(s - a * a) + eps, else r = sqrt(s) + eps;
 * with momentum b = momentum * b + d / r, p -= lr * b, else p -= lr * d / r.
 * grad_avgs is NULL unless centered, momentum_buffers NULL unless momentum > 0. */
int THOptim_(RMSprop_step)(THTensor **params, THTensor **grads, THTensor **square_avgs,
                           THTensor **grad_avgs, THTensor **momentum_buffers,
                           THFloatTensor **steps, int n, double lr, double alpha, double eps,
                           double weight_decay, double momentum, int maximize);

/* Adagrad: t += 1; d = ±g (+ weight_decay * p); s += d * d;
 * p -= lr / (1 + (t - 1) * lr_decay) * d / (sqrt(s) + eps). */
int THOptim_(Adagrad_step)(THTensor **params, THTensor **grads, THTensor **sums,
                           THFloatTensor **steps, int n, double lr, double lr_decay,
                           double weight_decay, double eps, int maximize);

#endif
