"""The regularised incomplete gamma functions igamma(a, x) = P(a, x) and igammac(a, x) =
Q(a, x) = 1 - P(a, x), composed from pyth's ops (the Gamma and Chi2 cdf need them).

P comes from its power series where x < a + 1 and Q from its continued fraction (modified
Lentz) elsewhere; both run on whole tensors in float64 until every element has converged. As in
PyTorch, the derivative is given w.r.t. x only."""

from __future__ import annotations

from typing import Any, Callable

from .. import dtypes as _dt
from .._ops import as_method
from .._promotion import result_type
from ..autograd import grad_mode
from ..autograd.function import Function
from ..autograd.recorded import POINTWISE as P
from .shape import broadcast_tensors
from ..tensor import Tensor

where = P["where"]
_TINY = 1e-300


def _series(a: Tensor, x: Tensor) -> Tensor:
    """P(a, x) = exp(-x + a log x - lgamma(a)) sum_n x^n / (a (a+1) ... (a+n))."""
    term = 1.0 / a
    total = term
    for n in range(1, 5000):
        term = term * x / (a + n)
        total = total + term
        if n % 16 == 0 and bool((term.abs() <= 1e-17 * total.abs()).all()):
            break
    return total * (-x + a * x.clamp_min(_TINY).log() - a.lgamma()).exp()


def _continued_fraction(a: Tensor, x: Tensor) -> Tensor:
    """Q(a, x) by the modified Lentz evaluation of its continued fraction."""
    b = x + 1 - a
    c = 1.0 / _TINY + 0 * x
    d = 1.0 / b
    h = d
    for i in range(1, 5000):
        an = -i * (i - a)
        b = b + 2
        d = an * d + b
        d = where(d.abs() < _TINY, d * 0 + _TINY, d)
        c = b + an / c
        c = where(c.abs() < _TINY, c * 0 + _TINY, c)
        d = 1.0 / d
        delta = d * c
        h = h * delta
        if i % 8 == 0 and bool(((delta - 1).abs() <= 1e-16).all()):
            break
    return h * (-x + a * x.log() - a.lgamma()).exp()


def _lower(a: Tensor, x: Tensor) -> Tensor:
    """P(a, x) in float64, with P(a, 0) = 0 and P(a, inf) = 1."""
    use_series = x < a + 1
    xs = where(use_series, x, (a + 1) * 0.5)
    xc = where(use_series, a + 2, x).clamp_min(_TINY)
    p = where(use_series, _series(a, xs), 1 - _continued_fraction(a, xc))
    p = where(x == 0, 0.0, p)
    return where(x == float("inf"), 1.0, p)


def _operands(op: str, input: Any, other: Any) -> tuple:
    if not isinstance(input, Tensor) or not isinstance(other, Tensor):
        raise TypeError(f"{op}(): argument 'input' and 'other' must be Tensors")
    dt = result_type(input, other)
    if not dt.is_floating_point:
        raise RuntimeError(f'"{op}_cpu" not implemented for \'{dt.name.capitalize()}\'')
    a, x = broadcast_tensors(input.detach(), other.detach())
    return a, x, dt


class _Igamma(Function):
    """P(a, x) or Q(a, x) with d/dx = +- x^(a-1) e^-x / Gamma(a)."""

    @staticmethod
    def forward(ctx: Any, a: Tensor, x: Tensor, upper: bool) -> Tensor:
        aa, xx, dt = _operands("igammac" if upper else "igamma", a, x)
        with grad_mode.no_grad():
            a64, x64 = aa.to(_dt.float64), xx.to(_dt.float64)
            p = _lower(a64, x64)
            out = (1 - p if upper else p).to(dt)
        ctx.save_for_backward(a, x)
        ctx.upper = upper
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        a, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise NotImplementedError("the derivative for 'igamma: input' is not implemented.")
        density = (-x + (a - 1) * x.log() - a.lgamma()).exp()
        return None, (-density if ctx.upper else density) * grad, None


def igamma(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The regularised lower incomplete gamma function P(input, other)."""
    if out is not None:
        return out.copy_(_Igamma.apply(input, other, False).detach())
    return _Igamma.apply(input, other, False)


def igammac(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The regularised upper incomplete gamma function Q(input, other) = 1 - P(input, other)."""
    if out is not None:
        return out.copy_(_Igamma.apply(input, other, True).detach())
    return _Igamma.apply(input, other, True)


def igamma_(self: Tensor, other: Tensor) -> Tensor:
    """In place: self = P(self, other)."""
    return self.copy_(igamma(self, other))


def igammac_(self: Tensor, other: Tensor) -> Tensor:
    """In place: self = Q(self, other)."""
    return self.copy_(igammac(self, other))


FUNCTIONS: dict[str, Callable] = {"igamma": igamma, "igammac": igammac}

METHODS: dict[str, Any] = {**{n: as_method(FUNCTIONS[n]) for n in ("igamma", "igammac")},
                           "igamma_": igamma_, "igammac_": igammac_}
