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

/* Adadelta: t += 1; d = ±g (+ weight_decay * p); s = rho * s + (1 - rho) * d * d;
 * u = sqrt(a + eps) / sqrt(s + eps) * d; a = rho * a + (1 - rho) * u * u; p -= lr * u. */
int THOptim_(Adadelta_step)(THTensor **params, THTensor **grads, THTensor **square_avgs,
                            THTensor **acc_deltas, THFloatTensor **steps, int n, double lr,
                            double rho, double eps, double weight_decay, int maximize);

/* Adamax: t += 1; d = ±g (+ weight_decay * p); m = lerp(m, d, 1 - beta1);
 * u = max(beta2 * u, |d| + eps); p -= lr / (1 - beta1^t) * m / u. */
int THOptim_(Adamax_step)(THTensor **params, THTensor **grads, THTensor **exp_avgs,
                          THTensor **exp_infs, THFloatTensor **steps, int n, double lr,
                          double beta1, double beta2, double eps, double weight_decay,
                          int maximize);

/* NAdam: t += 1; mu_t = beta1 (1 - 0.96^(t momentum_decay) / 2), P *= mu_t (the float32
 * mu_product); d = ±g with weight_decay added to d, or decoupled (p *= 1 - lr * weight_decay);
 * m = lerp(m, d, 1 - beta1); v = beta2 v + (1 - beta2) d * d; r = sqrt(v / (1 - beta2^t)) + eps;
 * p -= lr (1 - mu_t) / (1 - P) * d / r; p -= lr mu_{t+1} / (1 - P mu_{t+1}) * m / r. */
int THOptim_(NAdam_step)(THTensor **params, THTensor **grads, THTensor **exp_avgs,
                         THTensor **exp_avg_sqs, THFloatTensor **mu_products,
                         THFloatTensor **steps, int n, double lr, double beta1, double beta2,
                         double eps, double weight_decay, double momentum_decay,
                         int decoupled_weight_decay, int maximize);

/* RAdam: t += 1; d, m, v and weight decay as NAdam's; rho_inf = 2 / (1 - beta2) - 1,
 * rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t). If rho_t > 5, with the rectification
 * r = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t)):
 * p -= m / (1 - beta1^t) * lr * sqrt(1 - beta2^t) / (sqrt(v) + eps) * r;
 * otherwise p -= m / (1 - beta1^t) * lr. */
int THOptim_(RAdam_step)(THTensor **params, THTensor **grads, THTensor **exp_avgs,
                         THTensor **exp_avg_sqs, THFloatTensor **steps, int n, double lr,
                         double beta1, double beta2, double eps, double weight_decay,
                         int decoupled_weight_decay, int maximize);

/* Rprop: t += 1; d = ±g; f = etaplus, etaminus or 1 as d * prev is > 0, < 0 or else;
 * s = clamp(s * f, step_size_min, step_size_max); d = 0 where f is etaminus;
 * p -= sign(d) * s; prev = d. */
int THOptim_(Rprop_step)(THTensor **params, THTensor **grads, THTensor **prevs,
                         THTensor **step_sizes, THFloatTensor **steps, int n, double etaminus,
                         double etaplus, double step_size_min, double step_size_max,
                         int maximize);

/* ASGD: t += 1; d = ±g (+ weight_decay * p); p *= 1 - lambd * eta; p -= eta * d;
 * ax += (p - ax) * mu (ax = p while mu is 1); then, in the float32 counters,
 * eta = lr / (1 + lambd lr t)^alpha and mu = 1 / max(1, t - t0). */
int THOptim_(ASGD_step)(THTensor **params, THTensor **grads, THTensor **axs,
                        THFloatTensor **etas, THFloatTensor **mus, THFloatTensor **steps,
                        int n, double lr, double lambd, double alpha, double t0,
                        double weight_decay, int maximize);

#endif
