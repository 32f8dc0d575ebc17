"""More reductions, composed from pyth's reductions and sorting: aminmax, var_mean / std_mean,
quantile / nanquantile (sort, then interpolate between neighbours), nansum / nanmean,
count_nonzero, logcumsumexp (a C scan: generic/THTensorReduce.c), trace, unique_consecutive."""

from __future__ import annotations

import math
from collections import namedtuple
from typing import Any, Callable

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch, overridden as _overridden
from .. import dtypes as _dt
from .._ops import as_method, as_tensor, into, result_of
from .._prims.creation import arange, tensor
from ..autograd.graph import out_error
from ..autograd.record import Op, next_edges, record_node
from ..autograd.recorded import POINTWISE as P, cat, sort, stack
from ..tensor import Tensor, _empty


where, isnan = P["where"], P["isnan"]

aminmax_type = namedtuple("aminmax", ["min", "max"])


def _need_tensor(op: str, x: Any) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(x).__name__}")


def aminmax(input: Tensor, *, dim: int | None = None, keepdim: bool = False,
            out: Any = None) -> Any:
    """(amin, amax) of input, over dim or over everything."""
    if not isinstance(input, Tensor):
        if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
            return _dispatch(aminmax, locals())
        _need_tensor("aminmax", input)   # (raises)
    if input.numel() == 0 and (dim is None or input.size(dim) == 0):
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    if dim is None:
        lo, hi = input.amin(), input.amax()
        if keepdim:
            lo, hi = lo.reshape([1] * input.dim()), hi.reshape([1] * input.dim())
    else:
        lo, hi = input.amin(dim, keepdim=keepdim), input.amax(dim, keepdim=keepdim)
    if out is not None:
        lo, hi = result_of("aminmax", lo, out[0]), result_of("aminmax", hi, out[1])
    return aminmax_type(lo, hi)


def _moments(op: str, fn: str, input: Tensor, dim: Any, unbiased: Any, keepdim: bool,
             correction: Any) -> tuple:
    _need_tensor(op, input)
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"{op} only support floating point and complex dtypes")
    if isinstance(dim, bool) and unbiased is None:  # the legacy (input, unbiased) form
        dim, unbiased = None, dim
    kw = {"keepdim": keepdim}
    if correction is not None:
        kw["correction"] = correction
    if unbiased is not None:
        kw["unbiased"] = unbiased
    spread = getattr(input, fn)(dim, **kw)
    mean = input.mean(dim, keepdim=keepdim) if dim is not None else input.mean()
    if dim is None and keepdim:
        mean = mean.reshape([1] * input.dim())
    return spread, mean


def var_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple:
    """(var, mean) over dim, in one call."""
    try:
        return _moments("var_mean", "var", input, dim, unbiased, keepdim, correction)
    except TypeError:   # input is no Tensor: a Proxy (pyth.fx) may take the call
        return _overridden(var_mean, locals())


def std_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple:
    """(std, mean) over dim, in one call."""
    try:
        return _moments("std_mean", "std", input, dim, unbiased, keepdim, correction)
    except TypeError:   # input is no Tensor: a Proxy (pyth.fx) may take the call
        return _overridden(std_mean, locals())


def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None,
           out: Tensor | None = None) -> Tensor:
    """Sum treating NaN as zero."""
    if not isinstance(input, Tensor):
        if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
            return _dispatch(nansum, locals())
        _need_tensor("nansum", input)   # (raises)
    x = where(isnan(input), as_tensor(0, input.dtype), input) if input.dtype.is_floating_point \
        else input
    return x.sum(dim, keepdim, dtype=dtype, out=out) if dim is not None else \
        _full_reduce(x.sum(dtype=dtype), input, keepdim, out, "nansum")


def _full_reduce(r: Tensor, input: Tensor, keepdim: bool, out: Tensor | None, op: str) -> Tensor:
    if keepdim:
        r = r.reshape([1] * input.dim())
    return result_of(op, r, out)


def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None,
            out: Tensor | None = None) -> Tensor:
    """Mean of the non-NaN elements."""
    if not isinstance(input, Tensor):
        if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
            return _dispatch(nanmean, locals())
        _need_tensor("nanmean", input)   # (raises)
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype "
                           f"but got {input.dtype.real}")
    x = input if dtype is None else input.to(dtype)
    valid = P["logical_not"](isnan(x))
    total = nansum(x, dim, keepdim)
    count = valid.sum(dim, keepdim) if dim is not None else _full_reduce(
        valid.sum(), x, keepdim, None, "nanmean")
    return result_of("nanmean", P["div"](total, count.to(x.dtype)), out)


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:
    """Number of non-zero elements (over dim: an int or a tuple)."""
    if not isinstance(input, Tensor):
        if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
            return _dispatch(count_nonzero, locals())
        _need_tensor("count_nonzero", input)   # (raises)
    nz = P["ne"](input, 0)
    if dim is None:
        return nz.sum()
    return nz.sum(dim)


def logcumsumexp(input: Tensor, dim: int, *, out: Tensor | None = None) -> Tensor:
    """log(cumsum(exp(input))) along dim without overflow or underflow (a C scan accumulating
    by logaddexp in double: generic/THTensorReduce.c)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(logcumsumexp, locals())
    from .shape import _wrap
    _need_tensor("logcumsumexp", input)
    dt = input.dtype
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{dt.real}'")
    d = _wrap(dim, input.dim(), "logcumsumexp")
    edges = None if input._ag is None else next_edges(input)
    if edges is not None and out is not None:
        raise out_error("logcumsumexp")
    r = into("logcumsumexp", dt, out, lambda r: dt.tensor.logcumsumexp(r._h, input._h, d))
    if edges is not None:
        record_node(LOGCUMSUMEXP, edges, r, {"input": input, "result": r}, {"dim": d})
    return r


def _logcumsumexp_backward(g: Tensor, a: dict) -> list:
    """grad_i = sum_{k >= i} g_k exp(x_i - r_k), computed around c = max r (a constant per
    slice) as exp(x - c) * reverse_cumsum(g * exp(c - r)), in recorded ops (create_graph
    works). A 0-dim or empty input passes g through."""
    x, r, d = a["input"], a["result"], a["dim"]
    if x.dim() == 0 or x.numel() == 0:
        return [g]
    c = r.detach().amax(d, keepdim=True)
    c = c.masked_fill(~c.isfinite(), 0.0)
    w = (g * (c - r).exp()).flip(d).cumsum(d).flip(d)
    return [w * (x - c).exp()]


LOGCUMSUMEXP = Op("logcumsumexp", "input", _logcumsumexp_backward)


def trace(input: Tensor) -> Tensor:
    """Sum of the main diagonal of a 2-D tensor (integers sum to int64)."""
    if not isinstance(input, Tensor):
        if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
            return _dispatch(trace, locals())
        _need_tensor("trace", input)   # (raises)
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    if input.dtype is _dt.bool_:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    return input.diagonal().sum()


# ---- quantiles ----

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(op: str, input: Tensor, q: Any, dim: Any, keepdim: bool, interpolation: str,
              out: Tensor | None, ignore_nan: bool) -> Tensor:
    _need_tensor(op, input)
    dt = input.dtype
    if dt not in (_dt.float32, _dt.float64):
        raise RuntimeError(f"{op}() input tensor must be either float or double dtype")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{op}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest. Got {interpolation}")
    if isinstance(q, Tensor):
        if q.dim() > 1:
            raise RuntimeError(f"{op}() q must be a scalar or 1D tensor")
        if q.dtype is not dt:
            raise RuntimeError(f"{op}() q tensor must be same dtype as the input tensor")
        qs, many = [float(v) for v in q.reshape(-1).tolist()], q.dim() == 1
    elif isinstance(q, (list, tuple)):
        qs, many = [float(v) for v in q], True
    else:
        qs, many = [float(q)], False
    if any(not 0 <= v <= 1 for v in qs):
        raise RuntimeError(f"{op}() q values must be in the range [0, 1]")
    if input.numel() == 0:
        raise RuntimeError(f"{op}() input tensor must be non-empty")
    if dim is None:
        x = input.reshape(-1)
        d = 0
    else:
        from .shape import _wrap
        d = _wrap(dim, input.dim(), op)
        x = input.movedim(d, -1) if input.dim() else input.reshape(1)
    sorted_x = sort(x, -1).values          # NaN sorts last
    n = sorted_x.size(-1)
    nans = isnan(sorted_x)
    if ignore_nan:
        valid = P["sub"](n, nans.sum(-1, keepdim=True).to(dt))   # non-NaN count per row
    else:
        valid = as_tensor(n, dt)
    results = []
    for v in qs:
        pos = P["mul"](P["sub"](valid, 1), v)
        if interpolation == "lower":
            pos = P["floor"](pos)
        elif interpolation == "higher":
            pos = P["ceil"](pos)
        elif interpolation == "nearest":
            pos = P["round"](pos)
        pos = P["clamp"](pos, min=0)
        lo = P["floor"](pos)
        hi = P["clamp"](P["ceil"](pos), max=n - 1)
        shape = list(sorted_x.size())[:-1] + [1]
        lo_i = lo.long().expand(*shape) if lo.dim() else _empty(shape, _dt.int64).fill_(int(lo))
        hi_i = hi.long().expand(*shape) if hi.dim() else _empty(shape, _dt.int64).fill_(int(hi))
        a, b = sorted_x.gather(-1, lo_i.contiguous()), sorted_x.gather(-1, hi_i.contiguous())
        w = P["sub"](pos, lo)
        if interpolation == "midpoint":
            w = as_tensor(0.5, dt)  # the mean of the neighbours (equal when pos is whole)
        r = P["lerp"](a, b, w.expand(*shape).contiguous() if w.dim() else w)
        if ignore_nan:
            r = where(P["eq"](valid, 0), as_tensor(math.nan, dt), r)
        else:
            r = where(nans.narrow(-1, n - 1, 1), as_tensor(math.nan, dt), r)
        r = r.squeeze(-1)
        if keepdim:
            if dim is None:
                r = r.reshape([1] * input.dim())
            else:
                r = r.unsqueeze(d) if input.dim() else r
        results.append(r)
    res = stack(results, 0) if many else results[0]
    return result_of(op, res, out)


def quantile(input: Tensor, q: Any, dim: int | None = None, keepdim: bool = False, *,
             interpolation: str = "linear", out: Tensor | None = None) -> Tensor:
    """The q-th quantiles over dim (q a float or a 1-D tensor; q dims come first)."""
    try:
        return _quantile("quantile", input, q, dim, keepdim, interpolation, out, False)
    except TypeError:   # input is no Tensor: a Proxy (pyth.fx) may take the call
        return _overridden(quantile, locals())


def nanquantile(input: Tensor, q: Any, dim: int | None = None, keepdim: bool = False, *,
                interpolation: str = "linear", out: Tensor | None = None) -> Tensor:
    """quantile ignoring NaN (NaN only where a row is all NaN)."""
    try:
        return _quantile("nanquantile", input, q, dim, keepdim, interpolation, out, True)
    except TypeError:   # input is no Tensor: a Proxy (pyth.fx) may take the call
        return _overridden(nanquantile, locals())


# ---- unique_consecutive ----

def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None) -> Any:
    """input with each run of equal consecutive elements (or slices along dim) kept once;
    optionally the run each element belongs to and the run lengths."""
    if not isinstance(input, Tensor):
        if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
            return _dispatch(unique_consecutive, locals())
        _need_tensor("unique_consecutive", input)   # (raises)
    if dim is None:
        x = input.reshape(-1)
        n = x.numel()
        if n == 0:
            starts = _empty((0,), _dt.bool_)
        else:
            change = P["ne"](x.narrow(0, 1, n - 1), x.narrow(0, 0, n - 1))
            starts = cat([tensor([True]), change])
        values = x.masked_select(starts) if n else x.clone()
        inv_shape = input.size()
    else:
        from .shape import _wrap
        d = _wrap(dim, input.dim(), "unique_consecutive")
        x = input.movedim(d, 0)
        n = x.size(0)
        if n == 0:
            starts = _empty((0,), _dt.bool_)
        else:
            change = P["ne"](x.narrow(0, 1, n - 1), x.narrow(0, 0, n - 1))
            change = change.reshape(n - 1, -1).any(1) if change.numel() else \
                _empty((n - 1,), _dt.bool_).fill_(False)
            starts = cat([tensor([True]), change])
        values = x.index_select(0, arange(n).masked_select(starts)).movedim(0, d)
        inv_shape = (n,)
    result = [values]
    if return_inverse:
        inv = (starts.long().cumsum(0) - 1) if n else _empty((0,), _dt.int64)
        result.append(inv.reshape(inv_shape))
    if return_counts:
        pos = arange(n).masked_select(starts) if n else _empty((0,), _dt.int64)
        ends = cat([pos.narrow(0, 1, pos.numel() - 1), tensor([n])]) if pos.numel() else pos
        result.append(P["sub"](ends, pos))
    return result[0] if len(result) == 1 else tuple(result)


FUNCTIONS: dict[str, Callable] = {
    "aminmax": aminmax, "var_mean": var_mean, "std_mean": std_mean, "nansum": nansum,
    "nanmean": nanmean, "count_nonzero": count_nonzero, "logcumsumexp": logcumsumexp,
    "trace": trace, "quantile": quantile, "nanquantile": nanquantile,
    "unique_consecutive": unique_consecutive,
}

METHODS: dict[str, Any] = {n: as_method(f) for n, f in FUNCTIONS.items()
                           if n not in ("var_mean", "std_mean")}


def gradient(input: Tensor, *, spacing: Any = 1, dim: Any = None, edge_order: int = 1) -> tuple:
    """Derivative estimates along each dim: central differences inside, one-sided (first or
    second order) at the edges; spacing is a step per dim or the coordinates."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(gradient, locals())
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
    if type(y) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(trapezoid, locals())
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
    if type(y) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(trapz, locals())
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x: Tensor | None = None, *, dx: float | None = None,
                         dim: int = -1) -> Tensor:
    """Running trapezoidal integral of y along dim (one fewer element)."""
    if type(y) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(cumulative_trapezoid, locals())
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


FUNCTIONS.update({"gradient": gradient, "trapezoid": trapezoid, "trapz": trapz,
                  "cumulative_trapezoid": cumulative_trapezoid})
