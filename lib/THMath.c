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

/* ---- special functions ----
 * digamma and polygamma shift x up by the recurrences psi(x) = psi(x + 1) - 1/x and
 * psi^(n)(x) = psi^(n)(x + 1) + (-1)^(n+1) n! / x^(n+1) until it is large enough for the
 * asymptotic (Euler-Maclaurin) series, whose Bernoulli-number terms are then below double
 * rounding; digamma reflects negative x with psi(1 - x) - psi(x) = pi cot(pi x). I0 sums its
 * power series for |x| <= 30 and its asymptotic expansion above. */

static const double TH_BERNOULLI[] = {1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66,
                                      -691.0 / 2730, 7.0 / 6, -3617.0 / 510};

double TH_digamma(double x) {
  if (x == 0) return signbit(x) ? INFINITY : -INFINITY;
  if (isnan(x) || x == -INFINITY) return NAN;
  if (x < 0) {
    if (x == floor(x)) return NAN;
    return TH_digamma(1 - x) - M_PI / tan(M_PI * x);
  }
  double r = 0;
  while (x < 10) {
    r -= 1 / x;
    x += 1;
  }
  double f = 1 / (x * x);
  return r + log(x) - 0.5 / x -
         f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

/* sum over k >= 0 of 1 / (x + k)^s (the Hurwitz zeta function), s > 1 an integer. */
static double TH_hurwitz_zeta(double s, double x) {
  if (x <= 0 && x == floor(x)) return INFINITY;
  double sum = 0, limit = 20 + s;
  while (x < limit) {
    const double term = pow(x, -s);
    sum += term;
    /* the terms left add up to at most the integral of t^-s from x: term * x / (s - 1). Once
     * that is below the sum's last bit, stop (for a large s, here after a few terms, where
     * counting x up to 20 + s would take ~s steps, forever once x + 1 == x). */
    if (x > 0 && term * x / (s - 1) <= sum * 0x1p-54) return sum;
    x += 1;
  }
  /* tail: x^(1-s)/(s-1) + x^-s/2 + sum_j B_2j/(2j)! (s)_(2j-1) x^(1-s-2j) */
  double tail = pow(x, 1 - s) / (s - 1) + 0.5 * pow(x, -s);
  double rising = s, fact = 2, xp = pow(x, -s - 1);
  for (int j = 1; j <= 8; j++) {
    tail += TH_BERNOULLI[j - 1] / fact * rising * xp;
    rising *= (s + 2 * j - 1) * (s + 2 * j);
    fact *= (2.0 * j + 1) * (2.0 * j + 2);
    xp /= x * x;
  }
  return sum + tail;
}

double TH_polygamma(double n, double x) {
  if (n == 0) return TH_digamma(x);
  if (isnan(x)) return NAN;
  if (x == INFINITY) return 0;
  double sign = fmod(n, 2) == 1 ? 1 : -1; /* (-1)^(n+1) */
  return sign * exp(lgamma(n + 1)) * TH_hurwitz_zeta(n + 1, x);
}

double TH_i0(double x) {
  x = fabs(x);
  if (x <= 30) {
    double q = x * x / 4, term = 1, sum = 1;
    for (int k = 1; k < 500 && term > sum * 1e-17; k++) {
      term *= q / ((double)k * k);
      sum += term;
    }
    return sum;
  }
  if (isinf(x)) return NAN; /* PyTorch's i0(+-inf) (its Chebyshev form gives inf * 0) */
  double term = 1, sum = 1;
  for (int k = 1; k < 30; k++) {
    term *= (2.0 * k - 1) * (2.0 * k - 1) / (8.0 * k * x);
    sum += term;
  }
  double e = exp(x / 2); /* exp(x) as e * e, so a finite result does not overflow early */
  return e * (e * sum / sqrt(2 * M_PI * x));
}

double TH_xlogy(double x, double y) {
  if (isnan(y)) return NAN;
  if (x == 0) return 0;
  return x * log(y);
}

double TH_logaddexp(double x, double y) {
  if (isinf(x) && x == y) return x;
  double m = x > y ? x : y;
  return m + log1p(exp(-fabs(x - y)));
}

double TH_logaddexp2(double x, double y) {
  if (isinf(x) && x == y) return x;
  double m = x > y ? x : y;
  return m + log1p(exp2(-fabs(x - y))) / M_LN2;
}
