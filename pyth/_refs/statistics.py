"""Statistics and numerical helpers composed from pyth ops: cov, corrcoef, histogram,
gradient, trapezoid / cumulative_trapezoid, renorm, diag_embed / diagflat, combinations,
vander, unravel_index, index_reduce, narrow_copy, clone, hardshrink, prelu."""

from __future__ import annotations

import itertools
import math
from typing import Any, Callable, Sequence

from .. import dtypes as _dt
from .._errors import not_implemented
from .._ops import as_method, as_tensor, result_of
from .._prims.pointwise import FUNCTIONS as P
from ..tensor import Tensor, as_int64


def clone(input: Tensor, *, memory_format: Any = None) -> Tensor:
    """A copy of input with its own storage."""
    return input.clone()


def narrow_copy(input: Tensor, dim: int, start: int, length: int, *,
                out: Tensor | None = None) -> Tensor:
    """A copy of input.narrow(dim, start, length)."""
    return result_of("narrow_copy", input.narrow(dim, start, length).clone(), out)


def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,
        aweights: Tensor | None = None) -> Tensor:
    """Covariance matrix of the variables in input's rows (observations in columns)."""
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
    from collections import namedtuple
    from .._prims.creation import linspace, zeros
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


def gradient(input: Tensor, *, spacing: Any = 1, dim: Any = None, edge_order: int = 1) -> tuple:
    """Derivative estimates along each dim: central differences inside, one-sided (first or
    second order) at the edges; spacing is a step per dim or the coordinates."""
    from .._prims.shape import cat
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if input.dtype in (_dt.uint8, _dt.bool_):
        raise RuntimeError(f"torch.gradient does not support {input.dtype.name} input.")
    dims = list(range(input.dim())) if dim is None else ([dim] if isinstance(dim, int)
                                                          else list(dim))
    if isinstance(spacing, (int, float)) or (isinstance(spacing, Tensor) and spacing.dim() == 0):
        spacing = [spacing] * len(dims)
    elif len(spacing) == 1 and len(dims) > 1:
        spacing = list(spacing) * len(dims)
    x = input if input.dtype.is_floating_point else input.to(_dt.get_default_dtype())
    out = []
    for d, h in zip(dims, spacing):
        n = x.size(d)
        if n < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")
        f = lambda a, b, d=d: x.narrow(d, a, b - a)  # noqa: E731
        if isinstance(h, Tensor) and h.dim() == 1:
            c = h.to(x.dtype)
            shape = [1] * x.dim()
            shape[d] = n
            c = c.reshape(shape)
            hl = P["sub"](c.narrow(d, 1, n - 2), c.narrow(d, 0, n - 2))
            hr = P["sub"](c.narrow(d, 2, n - 2), c.narrow(d, 1, n - 2))
            a = P["neg"](P["div"](hr, P["mul"](hl, P["add"](hl, hr))))
            b = P["div"](P["sub"](hr, hl), P["mul"](hl, hr))
            cc = P["div"](hl, P["mul"](hr, P["add"](hl, hr)))
            mid = P["add"](P["add"](P["mul"](a, f(0, n - 2)), P["mul"](b, f(1, n - 1))),
                           P["mul"](cc, f(2, n)))
            h0 = P["sub"](c.narrow(d, 1, 1), c.narrow(d, 0, 1))
            hn = P["sub"](c.narrow(d, n - 1, 1), c.narrow(d, n - 2, 1))
            first = P["div"](P["sub"](f(1, 2), f(0, 1)), h0)
            last = P["div"](P["sub"](f(n - 1, n), f(n - 2, n - 1)), hn)
            if edge_order == 2:
                raise RuntimeError("gradient(): edge_order=2 with coordinate spacing is not "
                                   "supported by pyth")
        else:
            h = float(h)
            mid = P["div"](P["sub"](f(2, n), f(0, n - 2)), 2 * h)
            if edge_order == 1:
                first = P["div"](P["sub"](f(1, 2), f(0, 1)), h)
                last = P["div"](P["sub"](f(n - 1, n), f(n - 2, n - 1)), h)
            else:
                first = P["div"](P["add"](P["sub"](P["mul"](f(1, 2), 2.0), P["mul"](f(0, 1), 1.5)),
                                          P["mul"](f(2, 3), -0.5)), h)
                last = P["div"](P["add"](P["sub"](P["mul"](f(n - 1, n), 1.5),
                                                  P["mul"](f(n - 2, n - 1), 2.0)),
                                         P["mul"](f(n - 3, n - 2), 0.5)), h)
        out.append(cat([first, mid, last], d))
    return tuple(out)


def _no_bool(op: str, y: Tensor) -> None:
    if y.dtype is _dt.bool_:
        raise RuntimeError(f"{op}: received a bool input for `y`, but bool is not supported")


def trapezoid(y: Tensor, x: Tensor | None = None, *, dx: float | None = None,
              dim: int = -1) -> Tensor:
    """Integral of y along dim by the trapezoidal rule (sample points x, or spacing dx)."""
    _no_bool("trapezoid", y)
    n = y.size(dim)
    if n == 0:
        return y.sum(dim) if y.dtype.is_floating_point else y.sum(dim)
    a, b = y.narrow(dim, 1, n - 1), y.narrow(dim, 0, n - 1)
    s = P["add"](a, b)
    if x is not None:
        xd = x if x.dim() == 1 else x
        if x.dim() == 1:
            shape = [1] * y.dim()
            shape[dim] = n
            xd = x.reshape(shape)
        h = P["sub"](xd.narrow(dim, 1, n - 1), xd.narrow(dim, 0, n - 1))
        return P["div"](P["mul"](s, h).sum(dim), 2)
    step = 1.0 if dx is None else dx
    return P["mul"](s.sum(dim), step / 2)


def trapz(y: Tensor, x: Tensor | None = None, *, dx: float | None = None,
          dim: int = -1) -> Tensor:
    """trapezoid (an alias)."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x: Tensor | None = None, *, dx: float | None = None,
                         dim: int = -1) -> Tensor:
    """Running trapezoidal integral of y along dim (one fewer element)."""
    _no_bool("cumulative_trapezoid", y)
    n = y.size(dim)
    a, b = y.narrow(dim, 1, max(n - 1, 0)), y.narrow(dim, 0, max(n - 1, 0))
    s = P["add"](a, b)
    if x is not None:
        xd = x
        if x.dim() == 1:
            shape = [1] * y.dim()
            shape[dim] = n
            xd = x.reshape(shape)
        s = P["div"](P["mul"](s, P["sub"](xd.narrow(dim, 1, n - 1), xd.narrow(dim, 0, n - 1))), 2)
    else:
        s = P["mul"](s, (1.0 if dx is None else dx) / 2)
    return s.cumsum(dim)


def renorm(input: Tensor, p: float, dim: int, maxnorm: float, *,
           out: Tensor | None = None) -> Tensor:
    """Each slice along dim rescaled so its p-norm is at most maxnorm."""
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"renorm: expected a floating point tensor, got {input.dtype.name}")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    from ..linalg import vector_norm
    others = [k for k in range(input.dim()) if k != dim % max(input.dim(), 1)]
    norms = vector_norm(input, p, others, keepdim=True) if others else P["abs"](input)
    factor = P["where"](P["gt"](norms, maxnorm), P["div"](maxnorm, P["add"](norms, 1e-7)),
                        as_tensor(1.0, input.dtype))
    return result_of("renorm", P["mul"](input, factor), out)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices (in dims dim1, dim2 of the result) whose diagonal holds input's last dim."""
    from .._prims.creation import zeros
    n = input.size(-1) + abs(offset)
    nd = input.dim() + 1
    d1, d2 = dim1 % nd, dim2 % nd
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    shape = list(input.size())[:-1]
    full_shape = list(shape)
    for d in sorted((d1, d2)):
        full_shape.insert(d, n)
    r = zeros(*full_shape, dtype=input.dtype)
    r.diagonal(offset, d1, d2).copy_(input)
    return r


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A matrix with input's elements (flattened) on diagonal offset."""
    from .._prims.shape import diag
    return diag(input.reshape(-1), offset)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """All length-r combinations of a 1-D tensor's elements, one per row (itertools order)."""
    from .._prims.creation import tensor, empty
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.size())}")
    r = as_int64(r, "combinations", "r")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return empty(0, dtype=input.dtype)
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    idx = list(pick(range(input.size(0)), r))
    if not idx:
        return empty(0, r, dtype=input.dtype)
    return input.index_select(0, tensor(idx).reshape(-1)).reshape(len(idx), r)


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """Vandermonde matrix of a 1-D tensor: decreasing powers unless increasing=True."""
    from .linalg import vander as lv
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    if N is not None and N < 0:
        raise RuntimeError("N must be non-negative.")
    r = lv(x.long() if x.dtype is _dt.bool_ else x, N=N)
    if not increasing:
        r = r.flip(-1)
    return r


def unravel_index(indices: Any, shape: Any) -> tuple:
    """Coordinates in shape of flat indices, one tensor per dim."""
    from .._prims.creation import tensor
    idx = indices if isinstance(indices, Tensor) else tensor(indices)
    if idx.dtype.is_floating_point or idx.dtype is _dt.bool_:
        raise TypeError("expected 'indices' to be integer dtype, but got "
                        f"{idx.dtype.name}")
    shape = [shape] if isinstance(shape, int) else list(shape)
    total = math.prod(shape)
    idx = P["remainder"](idx.long(), total) if total else idx.long()
    out = []
    for s in reversed(shape):
        out.append(P["remainder"](idx, s))
        idx = P["floor_divide"](idx, s)
    return tuple(reversed(out))


def index_reduce_(self: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                  include_self: bool = True) -> Tensor:
    """self's slices index[k] along dim combined with source's slice k by reduce ('prod',
    'mean', 'amax', 'amin')."""
    from .indexing import scatter_reduce_
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    if index.dim() > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector")
    d = dim % max(self.dim(), 1)
    shape = [1] * source.dim()
    shape[d] = index.numel()
    full = index.long().reshape(shape).expand(*source.size()).contiguous()
    return scatter_reduce_(self, d, full, source, reduce, include_self=include_self)


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:
    """A copy of input with index_reduce_ applied."""
    return index_reduce_(input.clone(), dim, index, source, reduce, include_self=include_self)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """input where |input| > lambd, else 0 (floating types)."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"hardshrink_cpu\" not implemented for '{input.dtype.real}'")
    return P["where"](P["gt"](P["abs"](input), lambd), input, as_tensor(0, input.dtype))


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """max(0, x) + weight * min(0, x), weight per channel (dim 1) or one value."""
    w = weight
    if weight.numel() > 1 and input.dim() > 1:
        shape = [1] * input.dim()
        shape[1] = weight.numel()
        w = weight.reshape(shape)
    return P["where"](P["ge"](input, 0), input, P["mul"](w, input))


FUNCTIONS: dict[str, Callable] = {
    "clone": clone, "narrow_copy": narrow_copy, "cov": cov, "corrcoef": corrcoef,
    "histogram": histogram, "gradient": gradient, "trapezoid": trapezoid, "trapz": trapz,
    "cumulative_trapezoid": cumulative_trapezoid, "renorm": renorm, "diag_embed": diag_embed,
    "diagflat": diagflat, "combinations": combinations, "vander": vander,
    "unravel_index": unravel_index, "index_reduce": index_reduce, "hardshrink": hardshrink,
    "prelu": prelu,
}

METHODS: dict[str, Any] = {n: as_method(FUNCTIONS[n]) for n in (
    "narrow_copy", "cov", "corrcoef", "histogram", "renorm", "diag_embed", "diagflat",
    "index_reduce", "hardshrink", "prelu")}
METHODS["renorm_"] = lambda self, p, dim, maxnorm: self.copy_(renorm(self, p, dim, maxnorm))
METHODS["index_reduce_"] = index_reduce_
