"""The regularised incomplete gamma functions igamma(a, x) = P(a, x) and igammac(a, x) =
Q(a, x) = 1 - P(a, x), composed from pyth's ops (the Gamma and Chi2 cdf need them).

P comes from its power series where x < a + 1 and Q from its continued fraction (modified
Lentz) elsewhere; both run on whole tensors in float64 until every element has converged. As in
PyTorch, the derivative is given w.r.t. x only."""

from __future__ import annotations

from typing import Any, Callable

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch, overridden as _overridden
from .. import dtypes as _dt
from .._ops import as_method
from .._promotion import result_type
from ..autograd import grad_mode
from ..autograd.graph import out_error
from ..autograd.record import Op, next_edges, record_node, sum_to
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


def _regularised(op: Op, input: Tensor, other: Tensor, out: Tensor | None) -> Tensor:
    """P(input, other) (op IGAMMA) or Q(input, other) (IGAMMAC), computed in float64 on the
    broadcast operands; recorded as op when other needs a gradient, or input (whose
    derivative raises, as PyTorch's)."""
    upper = op is IGAMMAC
    a, x, dt = _operands(op.name, input, other)
    edges = next_edges(input, other)
    if edges is not None and out is not None:
        raise out_error(op.name)
    with grad_mode.no_grad():
        p = _lower(a.to(_dt.float64), x.to(_dt.float64))
        r = (1 - p if upper else p).to(dt)
    if out is not None:
        return out.copy_(r)
    if edges is not None:
        record_node(op, edges, r, {"input": input, "other": other}, {"name": op.name})
    return r


def _igamma_backward(g: Tensor, a: dict) -> list:
    """d/dx P(a, x) = x^(a-1) e^-x / Gamma(a) (minus that for Q), summed back to other's shape
    and cast to its dtype; none w.r.t. a, as in PyTorch."""
    if a["needs"][0]:
        raise NotImplementedError(f"the derivative for '{a['name']}: input' is not implemented.")
    if not a["needs"][1]:
        return [None, None]
    s, x = a["input"], a["other"]
    density = (-x + (s - 1) * x.log() - s.lgamma()).exp()
    gx = sum_to(g * (-density if a["name"] == "igammac" else density), tuple(x.shape))
    return [None, gx if gx.dtype is x.dtype else gx.to(x.dtype)]


IGAMMA = Op("igamma", "input other", _igamma_backward)
IGAMMAC = Op("igammac", "input other", _igamma_backward)


def igamma(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The regularised lower incomplete gamma function P(input, other)."""
    try:
        return _regularised(IGAMMA, input, other, out)
    except TypeError:   # input is no Tensor: a Proxy (pyth.fx) may take the call
        return _overridden(igamma, locals())


def igammac(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The regularised upper incomplete gamma function Q(input, other) = 1 - P(input, other)."""
    try:
        return _regularised(IGAMMAC, input, other, out)
    except TypeError:   # input is no Tensor: a Proxy (pyth.fx) may take the call
        return _overridden(igammac, locals())


def igamma_(self: Tensor, other: Tensor) -> Tensor:
    """In place: self = P(self, other)."""
    return self.copy_(igamma(self, other))


def igammac_(self: Tensor, other: Tensor) -> Tensor:
    """In place: self = Q(self, other)."""
    return self.copy_(igammac(self, other))


FUNCTIONS: dict[str, Callable] = {"igamma": igamma, "igammac": igammac}

METHODS: dict[str, Any] = {**{n: as_method(FUNCTIONS[n]) for n in ("igamma", "igammac")},
                           "igamma_": igamma_, "igammac_": igammac_}
