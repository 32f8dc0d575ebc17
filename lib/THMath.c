#include <math.h>

#include "THMathOps.h"

/* Inverse error function: a closed-form first guess (Winitzki's approximation with a = 0.147)
 * polished by Newton steps on erf(x) - y, whose derivative is 2/sqrt(pi) * exp(-x^2). */
double TH_erfinv(double y) {
  if (isnan(y) || y < -1 || y > 1) return NAN;
  if (y == 1) return INFINITY;
  if (y == -1) return -INFINITY;
  if (y == 0) return y;
  const double a = 0.147, two_over_pi_a = 2.0 / (M_PI * a);
  double l = log((1 - y) * (1 + y));
  double t = two_over_pi_a + l / 2;
  double x = copysign(sqrt(sqrt(t * t - l / a) - t), y);
  for (int i = 0; i < 3; i++) {
    double err = erf(x) - y;
    x -= err / (M_2_SQRTPI * exp(-x * x));
  }
  return x;
}
