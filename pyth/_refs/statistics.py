"""Statistics composed from pyth ops: cov, corrcoef and histogram."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch
from .. import dtypes as _dt
from .._errors import not_implemented
from .._ops import as_method, as_tensor, result_of
from .._prims.creation import linspace, zeros
from ..autograd.recorded import POINTWISE as P
from ..tensor import Tensor


def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,
        aweights: Tensor | None = None) -> Tensor:
    """Covariance matrix of the variables in input's rows (observations in columns)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(cov, locals())
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.dim()} dimensions")
    if input.dtype is _dt.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input.reshape(1, -1) if input.dim() < 2 else input
    if not x.dtype.is_floating_point:
        x = x.to(_dt.get_default_dtype())
    n = x.size(1)
    w = None
    if fweights is not None:
        w = fweights.to(x.dtype)
    if aweights is not None:
        w = aweights.to(x.dtype) if w is None else P["mul"](w, aweights.to(x.dtype))
    if w is None:
        wsum = as_tensor(float(n), x.dtype)
        mean = x.mean(1, keepdim=True)
        norm = P["sub"](wsum, correction)
    else:
        wsum = w.sum()
        mean = P["div"](P["mul"](x, w).sum(1, keepdim=True), wsum)
        if correction == 0:
            norm = wsum
        elif aweights is None:
            norm = P["sub"](wsum, correction)
        else:
            norm = P["sub"](wsum, P["div"](P["mul"](w, aweights.to(x.dtype)).sum(),
                                           wsum) * correction)
    norm = P["clamp"](norm, min=0)
    xc = P["sub"](x, mean)
    xw = xc if w is None else P["mul"](xc, w)
    c = P["div"](xw.matmul(xc.t()), norm)
    return c.squeeze() if input.dim() < 2 else c


def corrcoef(input: Tensor) -> Tensor:
    """Pearson correlation coefficients of the variables in input's rows (clipped to [-1, 1])."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(corrcoef, locals())
    c = cov(input)
    if c.dim() == 0:
        return P["div"](c, c)
    d = c.diagonal()
    std = P["sqrt"](d)
    c = P["div"](P["div"](c, std.unsqueeze(1)), std.unsqueeze(0))
    return P["clamp"](c, -1, 1)


def histogram(input: Tensor, bins: Any = 100, *, range: Sequence[float] | None = None,
              weight: Tensor | None = None, density: bool = False, out: Any = None) -> Any:
    """(hist, bin_edges): counts (or weight sums) of input in bins (an int or the edges)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(histogram, locals())
    from collections import namedtuple
    from .pointwise import searchsorted
    x = input.reshape(-1)
    dt = input.dtype
    if dt not in (_dt.float32, _dt.float64):
        raise not_implemented("histogram", dt, "expects float32 or float64 tensors")
    if isinstance(bins, Tensor):
        edges = bins.to(dt)
    else:
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
        elif x.numel():
            lo, hi = float(x.amin()), float(x.amax())
        else:
            lo, hi = 0.0, 0.0
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5  # numpy's and PyTorch's widening of an empty range
        edges = linspace(lo, hi, int(bins) + 1, dtype=dt)
    nb = edges.numel() - 1
    lo_e, hi_e = edges[0], edges[-1]
    inside = P["logical_and"](P["ge"](x, lo_e), P["le"](x, hi_e))
    idx = P["sub"](searchsorted(edges, x, right=True), 1)
    idx = P["clamp"](idx, 0, max(nb - 1, 0))  # the last edge belongs to the last bin
    idx = idx.masked_select(inside)
    w = weight.reshape(-1).to(dt).masked_select(inside) if weight is not None else \
        as_tensor(1.0, dt).expand(idx.numel()).contiguous()
    hist = zeros(nb, dtype=dt).index_add_(0, idx, w) if nb > 0 else zeros(0, dtype=dt)
    if density:
        widths = P["sub"](edges[1:], edges[:-1])
        hist = P["div"](hist, P["mul"](hist.sum(), widths))
    if out is not None:
        hist, edges = result_of("histogram", hist, out[0]), result_of("histogram", edges, out[1])
    return namedtuple("histogram", ["hist", "bin_edges"])(hist, edges)


FUNCTIONS: dict[str, Callable] = {"cov": cov, "corrcoef": corrcoef, "histogram": histogram}

METHODS: dict[str, Any] = {n: as_method(FUNCTIONS[n]) for n in ("cov", "corrcoef", "histogram")}
