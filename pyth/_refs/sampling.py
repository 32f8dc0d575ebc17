"""Samplers the distributions need, composed from pyth's uniform and normal generators:
`_standard_gamma` (Marsaglia and Tsang's squeeze with the alpha < 1 boost) with its implicit
reparameterisation gradient `_standard_gamma_grad`, `_sample_dirichlet` with the implicit
gradient of a coordinate `_dirichlet_grad` (through the incomplete beta function's continued
fraction, differentiated by autograd), `poisson` (inversion
for small rates, Hormann's PTRS rejection for rates of 10 and above) and `binomial`.

The rejection loops run on whole tensors: each pass draws for every element and keeps the first
accepted draw of the elements still undecided, so a pass costs one vectorised op chain and the
loops end after a few passes (Marsaglia-Tsang accepts > 95% of draws, PTRS > 90%)."""

from __future__ import annotations

import math
from typing import Any, Callable

from .. import dtypes as _dt
from .._prims.creation import full, zeros_like
from ..autograd import grad_mode
from ..autograd.gradients import grad
from ..autograd.record import Op, next_edges, record_node
from ..autograd.recorded import POINTWISE as P
from ..dtype_info import finfo
from ..random import Generator, rand, randn
from ..tensor import Tensor

where = P["where"]


def _float_input(op: str, x: Any) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")
    if not x.dtype.is_floating_point:
        raise RuntimeError(f'"{op}" not implemented for \'{x.dtype.name.capitalize()}\'')
    return x.detach()


def _gamma_draw(alpha: Tensor, generator: Generator | None) -> Tensor:
    """Gamma(alpha, 1) draws, computed in float64: inf for alpha = inf, and 0 (clamped to the
    dtype's tiny by the callers, as PyTorch gives) for alpha <= 0 or NaN."""
    a = alpha.to(_dt.float64)
    drawn = (a > 0) & (a < float("inf"))
    a = where(drawn, a, 1.0)
    small = a < 1
    b = where(small, a + 1, a)
    d = b - 1.0 / 3.0
    c = (9.0 * d).rsqrt()
    out = zeros_like(a)
    undecided = drawn.clone()
    while bool(undecided.any()):
        z = randn(a.shape, generator=generator, dtype=_dt.float64)
        u = rand(a.shape, generator=generator, dtype=_dt.float64)
        v = (1 + c * z) ** 3
        ok = (v > 0) & (u.log() < 0.5 * z * z + d - d * v + d * v.clamp_min(1e-300).log())
        take = ok & undecided
        out = where(take, d * v, out)
        undecided = undecided & ~ok
    boost = rand(a.shape, generator=generator, dtype=_dt.float64) ** (1.0 / a)
    out = where(small, out * boost, out)
    return where(drawn, out, where(alpha.to(_dt.float64) == float("inf"), float("inf"), 0.0))


def _standard_gamma_grad(alpha: Tensor, x: Tensor) -> Tensor:
    """d x / d alpha at fixed CDF F(x; alpha) (the implicit reparameterisation gradient):
    -(dF/dalpha) / pdf, summing the series F = x^a e^-x sum_k x^k / Gamma(a + k + 1) in float64."""
    dt = x.dtype
    a = alpha.detach().to(_dt.float64).expand(x.shape) if alpha.shape != x.shape \
        else alpha.detach().to(_dt.float64)
    xs = x.detach().to(_dt.float64).clamp_min(1e-300)
    finite = xs.isfinite() & (a > 0) & a.isfinite()
    xs, a = where(finite, xs, 1.0), where(finite, a, 1.0)
    logx = xs.log()
    # term_k = x^(k+1) Gamma(a) / Gamma(a + k + 1), weighted by (log x - digamma(a + k + 1))
    log_term = logx - a.log()
    psi = (a + 1).digamma()
    total = zeros_like(xs)
    limit = int(float(xs.max()) + 12 * math.sqrt(float(xs.max())) + 40) if xs.numel() else 0
    for k in range(limit):
        term = log_term.exp()
        total = total + term * (logx - psi)
        # past the largest term (x < a + k + 1 everywhere) the rest is below the last term
        if k % 16 == 15 and bool((xs < a + k + 1).all()) and \
                bool((term <= 1e-17 * total.abs()).all()):
            break
        log_term = log_term + logx - (a + k + 1).log()
        psi = psi + 1.0 / (a + k + 1)
    r = where(finite, -total, float("nan")).to(dt)
    edges = None if alpha._ag is None else next_edges(alpha)
    if edges is not None:
        record_node(STANDARD_GAMMA_GRAD, edges, r)
    return r


def _standard_gamma_grad_backward(g: Tensor, a: dict) -> list:
    """PyTorch has no derivative of the implicit gradient: a second derivative of a gamma
    sample w.r.t. its concentration raises."""
    raise NotImplementedError("the derivative for '_standard_gamma_grad' is not implemented.")


STANDARD_GAMMA_GRAD = Op("_standard_gamma_grad", "input", _standard_gamma_grad_backward)


def _standard_gamma(input: Tensor, generator: Generator | None = None) -> Tensor:
    """Gamma(input, 1) samples; differentiable w.r.t. input through the implicit gradient."""
    if not isinstance(input, Tensor):
        raise TypeError(f"_standard_gamma(): argument 'self' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f'"gamma_cpu" not implemented for \'{input.dtype.name.capitalize()}\'')
    edges = None if input._ag is None else next_edges(input)
    with grad_mode.no_grad():
        x = _gamma_draw(input, generator).to(input.dtype).clamp_min(finfo(input.dtype).tiny)
    if edges is not None:
        record_node(STANDARD_GAMMA, edges, x, {"input": input, "result": x})
    return x


def _standard_gamma_backward(g: Tensor, a: dict) -> list:
    """The implicit reparameterisation gradient, g * d x / d alpha (recorded: under
    create_graph its own derivative raises, as PyTorch's)."""
    return [g * _standard_gamma_grad(a["input"], a["result"])]


STANDARD_GAMMA = Op("_standard_gamma", "input", _standard_gamma_backward)


def _sample_dirichlet(input: Tensor, generator: Generator | None = None) -> Tensor:
    """Dirichlet(input) samples over the last dim: gamma draws normalised to sum to one (not
    differentiable, as PyTorch's; Dirichlet.rsample adds the gradient)."""
    with grad_mode.no_grad():
        g = _standard_gamma(input.detach(), generator)
        return g / g.sum(-1, keepdim=True)


_TINY = 1e-300


def _guard(t: Tensor) -> Tensor:
    return where(t.abs() < _TINY, t * 0 + _TINY, t)


def _beta_cf(a: Tensor, b: Tensor, x: Tensor) -> Tensor:
    """The continued fraction of I_x(a, b) (modified Lentz), for x < (a + 1) / (a + b + 2)."""
    qab, qap, qam = a + b, a + 1, a - 1
    c = x * 0 + 1
    d = 1.0 / _guard(1 - qab * x / qap)
    h = d
    for m in range(1, 10000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 / _guard(1 + aa * d)
        c = _guard(1 + aa / c)
        h = h * d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 / _guard(1 + aa * d)
        c = _guard(1 + aa / c)
        delta = d * c
        h = h * delta
        if m % 8 == 0 and bool(((delta.detach() - 1).abs() <= 1e-15).all()):
            break
    return h


def _beta_cdf(x: Tensor, a: Tensor, b: Tensor) -> Tensor:
    """The regularised incomplete beta function I_x(a, b), differentiable in a and b."""
    direct = x < (a + 1) / (a + b + 2)
    xx, aa, bb = where(direct, x, 1 - x), where(direct, a, b), where(direct, b, a)
    lbeta = aa.lgamma() + bb.lgamma() - (aa + bb).lgamma()
    front = (aa * xx.log() + bb * (-xx).log1p() - lbeta).exp() / aa
    inner = front * _beta_cf(aa, bb, xx)
    return where(direct, inner, 1 - inner)


def _dirichlet_grad(x: Tensor, alpha: Tensor, total: Tensor) -> Tensor:
    """PyTorch's _dirichlet_grad: for x ~ Beta(alpha, total - alpha) at a fixed CDF, d x /
    d alpha with the other parameter held, divided by 1 - x. A Dirichlet draw's Jacobian is
    then d x_j / d alpha_i = g_i (delta_ij - x_j), g = _dirichlet_grad(x, alpha, total)."""
    dt = x.dtype
    eps = finfo(_dt.float64).eps
    xs = x.detach().to(_dt.float64).clamp(min=_TINY, max=1 - eps)
    b = (total.detach().to(_dt.float64) - alpha.detach().to(_dt.float64)).expand(xs.shape)
    with grad_mode.enable_grad():
        a = alpha.detach().to(_dt.float64).expand(xs.shape).contiguous().requires_grad_()
        (da,) = grad(_beta_cdf(xs, a, b).sum(), [a])
    with grad_mode.no_grad():
        av = a.detach()
        log_pdf = ((av - 1) * xs.log() + (b - 1) * (-xs).log1p()
                   - (av.lgamma() + b.lgamma() - (av + b).lgamma()))
        return (-da / log_pdf.exp() / (1 - xs)).to(dt)


def _poisson_small(lam: Tensor, generator: Generator | None) -> Tensor:
    """Inversion by sequential search: count k while the CDF stays below a uniform draw."""
    u = rand(lam.shape, generator=generator, dtype=_dt.float64)
    k = zeros_like(lam)
    p = (-lam).exp()
    cdf = p.clone()
    going = u > cdf
    step = 0
    while bool(going.any()) and step < 1000:
        step += 1
        k = where(going, k + 1, k)
        p = p * lam / step
        cdf = cdf + p
        going = going & (u > cdf)
    return k


def _poisson_ptrs(lam: Tensor, generator: Generator | None) -> Tensor:
    """Hormann's transformed rejection with squeeze (PTRS), for rates >= 10."""
    slam = lam.sqrt()
    loglam = lam.log()
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2)
    out = zeros_like(lam)
    undecided = lam == lam
    while bool(undecided.any()):
        u = rand(lam.shape, generator=generator, dtype=_dt.float64) - 0.5
        v = rand(lam.shape, generator=generator, dtype=_dt.float64)
        us = 0.5 - u.abs()
        k = ((2 * a / us + b) * u + lam + 0.43).floor()
        quick = (us >= 0.07) & (v <= vr)
        bad = (k < 0) | ((us < 0.013) & (v > us))
        slow = (v.log() + inv_alpha.log() - (a / (us * us) + b).log()
                <= -lam + k * loglam - (k + 1).lgamma())
        ok = quick | (~bad & slow)
        take = ok & undecided
        out = where(take, k, out)
        undecided = undecided & ~ok
    return out


def poisson(input: Tensor, generator: Generator | None = None) -> Tensor:
    """Poisson(input) counts, in input's dtype (PyTorch's torch.poisson)."""
    lam = _float_input("poisson", input)
    with grad_mode.no_grad():
        rates = lam.to(_dt.float64)
        if not bool((rates >= 0).all()):
            raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
        infinite = rates == float("inf")
        rates = where(infinite, 0.0, rates)
        large = rates >= 10
        out = _poisson_small(where(large, zeros_like(rates), rates), generator)
        if bool(large.any()):
            out = where(large, _poisson_ptrs(where(large, rates, full(rates.shape, 10.0,
                                                                         dtype=_dt.float64)),
                                             generator), out)
        return where(infinite, float("inf"), out).to(lam.dtype)


def binomial(count: Tensor, prob: Tensor, generator: Generator | None = None) -> Tensor:
    """Binomial(count, prob) counts: the number of uniform draws below prob among count draws,
    taken in blocks of at most 256 trials per element."""
    n = _float_input("binomial", count)
    p = _float_input("binomial", prob)
    with grad_mode.no_grad():
        n64, p64 = n.to(_dt.float64), p.to(_dt.float64)
        shape = P["add"](n64, p64).shape
        n64, p64 = n64.expand(shape), p64.expand(shape)
        out = zeros_like(n64.contiguous())
        most = int(float(n64.max())) if n64.numel() else 0
        done = 0
        while done < most:
            block = min(256, most - done)
            u = rand((*shape, block), generator=generator, dtype=_dt.float64)
            trial = full((block,), float(done), dtype=_dt.float64) + \
                full((block,), 1.0, dtype=_dt.float64).cumsum(0) - 1
            live = trial < n64.unsqueeze(-1)
            out = out + ((u < p64.unsqueeze(-1)) & live).to(_dt.float64).sum(-1)
            done += block
        return out.to(n.dtype)


FUNCTIONS: dict[str, Callable] = {"_standard_gamma": _standard_gamma,
                                  "_standard_gamma_grad": _standard_gamma_grad,
                                  "_sample_dirichlet": _sample_dirichlet,
                                  "_dirichlet_grad": _dirichlet_grad,
                                  "poisson": poisson, "binomial": binomial}

METHODS: dict[str, Any] = {}
