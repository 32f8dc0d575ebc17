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

/* Digamma, the derivative of lgamma: reflection below 0.5 (poles at 0, -1, ...), recurrence
 * psi(x) = psi(x + 1) - 1/x up to x >= 6, then the asymptotic series. */
double TH_digamma(double x) {
  if (isnan(x) || x == -INFINITY) return NAN;
  if (x == 0) return copysign(INFINITY, -x);
  if (x < 0 && x == floor(x)) return NAN;
  if (x < 0.5) return TH_digamma(1 - x) - M_PI / tan(M_PI * x);
  double r = 0;
  while (x < 6) {
    r -= 1 / x;
    x += 1;
  }
  double f = 1 / (x * x);
  double series = f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 -
                  f * (1.0 / 132)))));
  return r + log(x) - 0.5 / x - series;
}
