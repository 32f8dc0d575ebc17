"""More pointwise and element-wise math, composed from pyth's kernels: the ones with their own
C kernel (erfc, digamma, i0, copysign, nextafter, xlogy, logaddexp(2), gcd, lcm) are rows of
pointwise.py's tables; here are those that are a few existing ops (square, sinc, logit,
heaviside, nan_to_num, float_power, round(decimals=), isclose, softmax, relu, ...), cummax /
cummin and searchsorted / bucketize over their C kernels (generic/THTensorSort.c), and the
helpers bincount, diff, kron, cross."""

from __future__ import annotations

import math
from collections import namedtuple
from typing import Any, Callable

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch, overridden as _overridden
from .. import dtypes as _dt
from .._errors import check, not_implemented
from .._ops import as_method, as_tensor, into, new_result, out_checked, result_of, written
from .._prims.creation import from_numpy, ones, tensor, tensor as make, zeros
from ..autograd.graph import out_error
from ..autograd.record import Op, next_edges, record_node
from ..autograd.recorded import POINTWISE as P, cat, gather, sort, stack
from .._prims.pointwise import _inplace_unary
from .._prims.reductions import _isclose
from .._promotion import result_type
from ..dtype_info import finfo
from ..tensor import Tensor, _empty, as_dim, as_int64


where, isnan, eq = P["where"], P["isnan"], P["eq"]


def _float_of(x: Tensor) -> _dt.dtype:
    """The floating dtype an op computes in: x's own, or the default float for ints/bool."""
    return x.dtype if x.dtype.is_floating_point else _dt.get_default_dtype()


def _need_tensor(op: str, x: Any) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(x).__name__}")


# ---- simple compositions ----

def square(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """input * input (bool squares to int64, as pow(input, 2))."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(square, locals())
    _need_tensor("square", input)
    x = input.long() if input.dtype is _dt.bool_ else input
    return P["mul"](x, x, out=out)


def sinc(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """sin(pi x) / (pi x), 1 at 0 (ints compute in the default float)."""
    if not isinstance(input, Tensor):
        if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
            return _dispatch(sinc, locals())
        _need_tensor("sinc", input)   # (raises)
    x = as_tensor(input, _float_of(input))
    px = P["mul"](x, math.pi)
    r = where(eq(x, 0), as_tensor(1, x.dtype), P["div"](P["sin"](px), px))
    return result_of("sinc", r, out)


def deg2rad(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Degrees to radians."""
    if not isinstance(input, Tensor):
        if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
            return _dispatch(deg2rad, locals())
        _need_tensor("deg2rad", input)   # (raises)
    return result_of("deg2rad", P["mul"](as_tensor(input, _float_of(input)), math.pi / 180), out)


def rad2deg(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Radians to degrees."""
    if not isinstance(input, Tensor):
        if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
            return _dispatch(rad2deg, locals())
        _need_tensor("rad2deg", input)   # (raises)
    return result_of("rad2deg", P["mul"](as_tensor(input, _float_of(input)), 180 / math.pi), out)


def logit(input: Tensor, eps: float | None = None, *, out: Tensor | None = None) -> Tensor:
    """log(p / (1 - p)), p clamped to [eps, 1 - eps] when eps is given."""
    if not isinstance(input, Tensor):
        if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
            return _dispatch(logit, locals())
        _need_tensor("logit", input)   # (raises)
    x = as_tensor(input, _float_of(input))
    if eps is not None:
        x = P["clamp"](x, eps, 1 - eps)
    return result_of("logit", P["log"](P["div"](x, P["sub"](1, x))), out)


def heaviside(input: Tensor, values: Tensor, *, out: Tensor | None = None) -> Tensor:
    """0 where input < 0, values where input == 0, 1 where input > 0."""
    if not isinstance(input, Tensor):
        if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
            return _dispatch(heaviside, locals())
        _need_tensor("heaviside", input)   # (raises)
    if not isinstance(values, Tensor) or values.dtype is not input.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    dt = input.dtype
    r = where(eq(input, 0), values, as_tensor(P["gt"](input, 0), dt))
    return result_of("heaviside", as_tensor(r, dt), out)


def float_power(input: Any, exponent: Any, *, out: Tensor | None = None) -> Tensor:
    """input ** exponent computed in double precision."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(float_power, locals())
    a = as_tensor(input, _dt.float64) if isinstance(input, Tensor) else input
    b = as_tensor(exponent, _dt.float64) if isinstance(exponent, Tensor) else exponent
    if not isinstance(a, Tensor):
        a = as_tensor(a, _dt.float64)
    return P["pow"](a, b, out=out)


def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None, *, out: Tensor | None = None) -> Tensor:
    """NaN, +inf and -inf replaced by nan, posinf and neginf (default: the dtype's extremes)."""
    if not isinstance(input, Tensor):
        if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
            return _dispatch(nan_to_num, locals())
        _need_tensor("nan_to_num", input)   # (raises)
    dt = input.dtype
    if not dt.is_floating_point:
        return result_of("nan_to_num", input.clone(), out)
    big = finfo(dt).max
    nan = _dt.as_double(nan)   # (C doubles in PyTorch: any int a double holds)
    hi = big if posinf is None else _dt.as_double(posinf)
    lo = -big if neginf is None else _dt.as_double(neginf)
    c = lambda v: as_tensor(v, dt)  # noqa: E731
    r = where(isnan(input), c(nan), input)
    r = where(eq(r, math.inf), c(hi), r)
    r = where(eq(r, -math.inf), c(lo), r)
    return result_of("nan_to_num", r, out)


def _nan_to_num_(self: Tensor, nan: float = 0.0, posinf: float | None = None,
                 neginf: float | None = None) -> Tensor:
    """In-place nan_to_num."""
    return self.copy_(nan_to_num(self, nan, posinf, neginf))


def polygamma(n: int, input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The n-th derivative of digamma (n >= 0)."""
    n = as_int64(n, "polygamma", "n")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    _need_tensor("polygamma", input)
    edges = None if input._ag is None else next_edges(input)
    if edges is not None and out is not None:
        raise out_error("polygamma")
    x = as_tensor(input, _float_of(input))
    dt = x.dtype
    r = into("polygamma", dt, out, lambda r: dt.tensor.polygammaScalar(r._h, x._h,
                                                                        dt.op_c(float(n))))
    if edges is not None:
        record_node(POLYGAMMA, edges, r, {"input": input}, {"n": n})
    return r


def _polygamma_backward(g: Tensor, a: dict) -> list:
    """d/dx polygamma(n, x) = polygamma(n + 1, x), itself recorded (so it differentiates
    again)."""
    return [g * polygamma(a["n"] + 1, a["input"])]


POLYGAMMA = Op("polygamma", "input", _polygamma_backward)


def round(input: Tensor, *, decimals: int = 0, out: Tensor | None = None) -> Tensor:  # noqa: A001
    """Round half to even, to `decimals` decimal places (negative: to tens, hundreds ...)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(round, locals())
    if decimals == 0:
        return P["round"](input, out=out)
    _need_tensor("round", input)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"round_cpu\" not implemented for '{input.dtype.real}'")
    scale = 10.0 ** abs(decimals)
    x = input.float() if input.dtype in (_dt.float16, _dt.bfloat16) else input  # round once
    if decimals > 0:
        r = P["div"](P["round"](P["mul"](x, scale)), scale)
    else:
        r = P["mul"](P["round"](P["div"](x, scale)), scale)
    return result_of("round", r.to(input.dtype), out)


def _round_method(self: Tensor, *, decimals: int = 0) -> Tensor:
    """self rounded half to even (to `decimals` places)."""
    return round(self, decimals=decimals)


_plain_round_ = _inplace_unary("round")  # the in-place kernel, for decimals=0


def _round_(self: Tensor, *, decimals: int = 0) -> Tensor:
    """In-place round (to `decimals` places)."""
    if decimals == 0:
        return _plain_round_(self)
    return self.copy_(round(self, decimals=decimals))


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    """|input - other| <= atol + rtol * |other|, elementwise (same dtypes; broadcast)."""
    if not isinstance(input, Tensor):
        if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
            return _dispatch(isclose, locals())
        _need_tensor("isclose", input)   # (raises)
    _need_tensor("isclose", other)
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{input.dtype.real} did not match {other.dtype.real}")
    rtol, atol = _dt.as_double(rtol), _dt.as_double(atol)   # (C doubles in PyTorch)
    if rtol < 0 or atol < 0:
        raise RuntimeError(f"isclose(): rtol and atol must be non-negative, got {rtol}, {atol}")
    return _isclose(input, other, rtol, atol, equal_nan)


def positive(input: Tensor) -> Tensor:
    """input itself (unary plus); bool raises."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(positive, locals())
    if input.dtype is _dt.bool_:
        raise TypeError("The `+` operator, on a bool tensor is not supported.")
    return input


def signbit(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """True where the sign bit is set (-0.0 included)."""
    if not isinstance(input, Tensor):
        if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
            return _dispatch(signbit, locals())
        _need_tensor("signbit", input)   # (raises)
    if not input.dtype.is_floating_point:
        return result_of("signbit", P["lt"](input, 0), out)
    one = as_tensor(1.0, input.dtype)
    return result_of("signbit", P["lt"](P["copysign"](one, input), 0), out)


def sgn(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The sign of input (as sign() for real dtypes)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(sgn, locals())
    return P["sign"](input, out=out)


def fmax(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise maximum ignoring NaN (NaN only where both are NaN)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(fmax, locals())
    m = P["maximum"](input, other)
    if m.dtype.is_floating_point:
        m = where(isnan(input), other, where(isnan(other), input, m))
        m = as_tensor(m, result_type(input, other))
    return result_of("fmax", m, out)


def fmin(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise minimum ignoring NaN (NaN only where both are NaN)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(fmin, locals())
    m = P["minimum"](input, other)
    if m.dtype.is_floating_point:
        m = where(isnan(input), other, where(isnan(other), input, m))
        m = as_tensor(m, result_type(input, other))
    return result_of("fmin", m, out)


def isposinf(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """True where input is +inf."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(isposinf, locals())
    return result_of("isposinf", P["eq"](input, math.inf) if input.dtype.is_floating_point
                     else P["ne"](input, input), out)


def isneginf(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """True where input is -inf."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(isneginf, locals())
    return result_of("isneginf", P["eq"](input, -math.inf) if input.dtype.is_floating_point
                     else P["ne"](input, input), out)


def isreal(input: Tensor) -> Tensor:
    """True everywhere (pyth has no complex dtypes)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(isreal, locals())
    return _full_bool(input, True)


def _full_bool(input: Tensor, value: bool) -> Tensor:
    return _empty(input.size(), _dt.bool_).fill_(value)


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False,
         invert: bool = False) -> Tensor:
    """True where an element of elements is in test_elements."""
    if type(elements) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(isin, locals())
    e = elements if isinstance(elements, Tensor) else as_tensor(elements, result_type(
        elements, test_elements))
    t = test_elements if isinstance(test_elements, Tensor) else as_tensor(
        test_elements, result_type(elements, test_elements))
    dt = result_type(e, t)
    if dt is _dt.bool_:  # PyTorch refuses this one (its search has no bool kernel)
        raise RuntimeError("isin(): not supported for Bool tensors")
    flat = sort(as_tensor(t, dt).reshape(-1)).values
    ev = as_tensor(e, dt)
    if flat.numel() == 0:
        r = _full_bool(ev, False)
    else:
        pos = P["clamp"](searchsorted(flat, ev), max=flat.numel() - 1)
        r = eq(flat.take(pos), ev)
    return P["logical_not"](r) if invert else r


# ---- nextafter on 16-bit floats ----
#
# The C kernel computes in float32, where the next float after a half value rounds back to
# it; for float16 and bfloat16 the step is taken on the 16-bit pattern itself (numpy's
# float16 nextafter, and bfloat16 as the top half of a float32's bits).

def _next16(a: Any, b: Any, bf16: bool) -> Any:
    import numpy as np
    if not bf16:
        return np.nextafter(a.astype(np.float16), b.astype(np.float16)).astype(np.float32)
    bits = (a.astype(np.float32).view(np.uint32) >> 16).astype(np.int32)
    up = (b > a) == (a >= 0)
    step = np.where(a == 0, 0, np.where(up, 1, -1))
    bits = np.where(a == 0, np.where(b > 0, 1, np.where(b < 0, 0x8001, bits)), bits + step)
    r = (bits.astype(np.uint32) << 16).view(np.float32)
    r = np.where(a == b, b, r)
    return np.where(np.isnan(a) | np.isnan(b), np.float32(np.nan), r)


def nextafter(input: Any, other: Any, *, out: Tensor | None = None) -> Tensor:
    """The next representable value after input towards other."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(nextafter, locals())
    from .shape import broadcast_tensors
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        dt = result_type(input, other)
        if dt in (_dt.float16, _dt.bfloat16):
            a, b = broadcast_tensors(input.float(), other.float())
            r = _next16(a.detach().contiguous().numpy(), b.detach().contiguous().numpy(), dt is _dt.bfloat16)
            return result_of("nextafter", from_numpy(r.reshape(a.size())).to(dt), out)
    return P["nextafter"](input, other, out=out)


# ---- activations (module-level forms) ----

def _softmax_input(op: str, input: Tensor, dim: Any, dtype: Any) -> tuple:
    _need_tensor(op, input)
    x = input if dtype is None else input.to(dtype)
    if x.numel() == 0:
        return x, dim
    if not x.dtype.is_floating_point:
        raise NotImplementedError(f"\"{op}_lastdim_kernel_impl\" not implemented for "
                                  f"'{x.dtype.real}'")
    if dim is None:
        dim = 0 if x.dim() in (0, 1, 3) else 1  # PyTorch's legacy implicit choice
    return x, dim


_THNN_SOFTMAX: list = []   # nn._softmax_kernels.softmax, bound at first use (nn imports pyth)


def _thnn_softmax(x: Tensor, dim: Any, log: bool, op: str) -> Tensor | None:
    """softmax / log_softmax of a float32 or float64 x as THNN's kernel and one autograd node
    (the composition below records five), or None for the other dtypes."""
    if x.dtype is not _dt.float32 and x.dtype is not _dt.float64:
        return None
    if not _THNN_SOFTMAX:
        from ..nn._softmax_kernels import softmax as kernel
        _THNN_SOFTMAX.append(kernel)
    return _THNN_SOFTMAX[0](x, as_dim(dim, op), log)


def softmax(input: Tensor, dim: int | None = None, dtype: Any = None) -> Tensor:
    """exp(x - max) / sum(exp(x - max)) along dim."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(softmax, locals())
    x, dim = _softmax_input("softmax", input, dim, dtype)
    if x.numel() == 0:
        return x.clone()
    r = _thnn_softmax(x, dim, False, "softmax")
    if r is not None:
        return r
    e = P["exp"](P["sub"](x, x.amax(dim, keepdim=True)))
    return P["div"](e, e.sum(dim, keepdim=True))


def log_softmax(input: Tensor, dim: int | None = None, dtype: Any = None) -> Tensor:
    """x - max - log(sum(exp(x - max))) along dim."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(log_softmax, locals())
    x, dim = _softmax_input("log_softmax", input, dim, dtype)
    if x.numel() == 0:
        return x.clone()
    r = _thnn_softmax(x, dim, True, "log_softmax")
    if r is not None:
        return r
    s = P["sub"](x, x.amax(dim, keepdim=True))
    return P["sub"](s, P["log"](P["exp"](s).sum(dim, keepdim=True)))


# ---- cummax / cummin: one C pass per slice (generic/THTensorSort.c, cumExtremeSlice) ----

_ValuesIndices: dict = {}


def _result_type(name: str) -> type:
    t = _ValuesIndices.get(name)
    if t is None:
        t = _ValuesIndices[name] = namedtuple(name, ["values", "indices"])
    return t


def _cumextreme(op: str, input: Tensor, dim: int, out: Any, minimum: bool) -> Any:
    _need_tensor(op, input)
    dt = input.dtype
    if out is not None:
        values, indices = out
        if values.dtype is not dt or indices.dtype is not _dt.int64:
            raise RuntimeError(f"{op}(): expected out tensors of dtypes {dt.name} and int64, "
                               f"got {values.dtype.name} and {indices.dtype.name}")
        out_checked(op, out, input)
    else:
        values, indices = new_result(dt), new_result(_dt.int64)
    check(dt.tensor.cumextreme(values._h, indices._h, input._h, as_dim(dim, op),
                               int(minimum)))
    if out is not None:
        written(out)
    if out is None and input.dim() > 0 and _records(input):
        values = input.gather(int(dim), indices)  # the same values, recorded: grads scatter
    return _result_type(op)(values, indices)


def _records(t: Tensor) -> bool:
    """Whether an op on t is recorded for autograd (t requires grad, grad mode on)."""
    from ..autograd import is_grad_enabled
    return t._ag is not None and t.requires_grad and is_grad_enabled()


def cummax(input: Tensor, dim: int, *, out: Any = None) -> Any:
    """Running maximum along dim and the index where it was found (NaN propagates)."""
    try:
        return _cumextreme("cummax", input, dim, out, False)
    except TypeError:   # input is no Tensor: a Proxy (pyth.fx) may take the call
        return _overridden(cummax, locals())


def cummin(input: Tensor, dim: int, *, out: Any = None) -> Any:
    """Running minimum along dim and the index where it was found (NaN propagates)."""
    try:
        return _cumextreme("cummin", input, dim, out, True)
    except TypeError:   # input is no Tensor: a Proxy (pyth.fx) may take the call
        return _overridden(cummin, locals())


# ---- searching and counting ----

def searchsorted(sorted_sequence: Tensor, input: Any, *, out_int32: bool = False,
                 right: bool = False, side: str | None = None, out: Tensor | None = None,
                 sorter: Tensor | None = None) -> Tensor:
    """For each value, the index where inserting it keeps the innermost dim sorted (a binary
    search per value in C: generic/THTensorSort.c)."""
    if type(sorted_sequence) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(searchsorted, locals())
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    seq = sorted_sequence
    if sorter is not None:
        seq = gather(seq, -1, sorter)
    scalar = not isinstance(input, Tensor)
    vals = as_tensor(input, result_type(seq, input)) if scalar else input
    dt = result_type(seq, vals)
    if dt is _dt.bool_:
        raise not_implemented("searchsorted", dt)
    seq, vals = as_tensor(seq, dt), as_tensor(vals, dt)
    if seq.dim() > 1:
        if vals.dim() != seq.dim() or list(vals.size())[:-1] != list(seq.size())[:-1]:
            raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension "
                               f"or the first N-1 dimensions of boundaries tensor and input "
                               f"value tensor must match, but we got boundaries tensor "
                               f"{list(seq.size())} and input value tensor "
                               f"{list(vals.size())}")
    out_dt = _dt.int32 if out_int32 else _dt.int64
    r = new_result(_dt.int64)
    check(dt.tensor.searchsorted(r._h, seq.contiguous()._h, vals.contiguous()._h, int(right)))
    return result_of("searchsorted", r.to(out_dt), out)


def bucketize(input: Any, boundaries: Tensor, *, out_int32: bool = False, right: bool = False,
              out: Tensor | None = None) -> Tensor:
    """The bucket of each value: boundaries[i-1] < x <= boundaries[i] (right=False)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(bucketize, locals())
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries.dim()})")
    r = searchsorted(boundaries, input, out_int32=out_int32, right=right)
    return result_of("bucketize", r, out)


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """Counts of each value 0..max of a 1-D non-negative integer tensor (weighted sums)."""
    if not isinstance(input, Tensor):
        if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
            return _dispatch(bincount, locals())
        _need_tensor("bincount", input)   # (raises)
    if input.dtype.kind not in "ui":
        raise not_implemented("bincount", input.dtype, "expects integer tensors")
    if input.dim() != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    idx = input.long()
    if idx.numel() and int(idx.amin()) < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.dim() != 1 or weights.numel() != input.numel()):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    n = max(int(idx.amax()) + 1 if idx.numel() else 0, minlength)
    if weights is None:
        return zeros(n, dtype=_dt.int64).index_add_(0, idx, ones(idx.numel(), dtype=_dt.int64))
    wdt = _dt.float32 if weights.dtype is _dt.float32 else _dt.float64
    if weights.dtype in (_dt.float16, _dt.bfloat16):
        wdt = weights.dtype
    return zeros(n, dtype=wdt).index_add_(0, idx, weights.to(wdt))


def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None, *, out: Tensor | None = None) -> Tensor:
    """n-th forward difference along dim (prepend/append joined first); bool gives !=."""
    if not isinstance(input, Tensor):
        if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
            return _dispatch(diff, locals())
        _need_tensor("diff", input)   # (raises)
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    x = input
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        parts = [as_tensor(p, x.dtype) if not isinstance(p, Tensor) else p for p in parts]
        x = cat(parts, dim)
    for _ in range(n):
        size = x.size(dim)
        if size == 0:
            break
        a, b = x.narrow(dim, 1, size - 1), x.narrow(dim, 0, size - 1)
        x = P["logical_xor"](a, b) if x.dtype is _dt.bool_ else P["sub"](a, b)
    return result_of("diff", x if n else x.clone(), out)


def kron(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Kronecker product: every element of input times all of other, blockwise."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(kron, locals())
    nd = max(input.dim(), other.dim())
    a = input.reshape([1] * (nd - input.dim()) + list(input.size()))
    b = other.reshape([1] * (nd - other.dim()) + list(other.size()))
    ashape, bshape = [], []
    for sa, sb in zip(a.size(), b.size()):
        ashape += [sa, 1]
        bshape += [1, sb]
    r = P["mul"](a.reshape(ashape), b.reshape(bshape))
    return result_of("kron", r.reshape([sa * sb for sa, sb in zip(a.size(), b.size())]), out)


def cross(input: Tensor, other: Tensor, dim: int | None = None, *,
          out: Tensor | None = None) -> Tensor:
    """Cross product of 3-vectors along dim (default: the first dim of size 3)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(cross, locals())
    from .shape import broadcast_tensors
    if input.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    a, b = broadcast_tensors(input, other)
    if dim is None:
        dim = next((i for i, s in enumerate(a.size()) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    if a.size(dim) != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.size(dim)} and {other.size(dim)}")
    if result_type(a, b) is _dt.bool_:
        raise not_implemented("cross", _dt.bool_)
    c = [a.select(dim, i) for i in range(3)]
    e = [b.select(dim, i) for i in range(3)]
    mul, sub = P["mul"], P["sub"]
    r = stack([sub(mul(c[1], e[2]), mul(c[2], e[1])), sub(mul(c[2], e[0]), mul(c[0], e[2])),
               sub(mul(c[0], e[1]), mul(c[1], e[0]))], dim)
    return result_of("cross", r, out)


def linalg_cross(input: Tensor, other: Tensor, *, dim: int = -1,
                 out: Tensor | None = None) -> Tensor:
    """Cross product of 3-vectors along dim (default the last)."""
    return cross(input, other, dim, out=out)


# ---- apply_ / map_ (legacy TH: Python callables over the elements) ----

def apply_(self: Tensor, callable: Callable) -> Tensor:  # noqa: A002
    """Replace each element x by callable(x) (slow: a Python call per element)."""
    vals = [callable(x) for x in self.reshape(-1).tolist()]
    if vals:
        self.copy_(tensor(vals, dtype=self.dtype).reshape(self.size()))
    return self


def map_(self: Tensor, tensor: Tensor, callable: Callable) -> Tensor:  # noqa: A002
    """Replace each element x by callable(x, y), y from tensor broadcast to self's shape."""
    other = tensor.expand(*self.size()).reshape(-1).tolist()
    vals = [callable(x, y) for x, y in zip(self.reshape(-1).tolist(), other)]
    if vals:
        self.copy_(make(vals, dtype=self.dtype).reshape(self.size()))
    return self


def _format(self: Tensor, spec: str) -> str:
    if self.dim() == 0:
        return self.item().__format__(spec)
    return object.__format__(self, spec)


FUNCTIONS: dict[str, Callable] = {
    "square": square, "sinc": sinc, "deg2rad": deg2rad, "rad2deg": rad2deg, "logit": logit,
    "heaviside": heaviside, "float_power": float_power, "nan_to_num": nan_to_num,
    "polygamma": polygamma, "round": round, "isclose": isclose, "positive": positive,
    "signbit": signbit, "sgn": sgn, "fmax": fmax, "fmin": fmin, "isposinf": isposinf,
    "isneginf": isneginf, "isreal": isreal, "isin": isin, "softmax": softmax,
    "log_softmax": log_softmax, "cummax": cummax, "cummin": cummin,
    "searchsorted": searchsorted, "bucketize": bucketize, "bincount": bincount, "diff": diff,
    "kron": kron, "cross": cross, "nextafter": nextafter,
}


def _inplace(fn: Callable) -> Callable:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return self.copy_(fn(self, *args, **kwargs))
    method.__name__ = fn.__name__ + "_"
    method.__doc__ = f"In-place {fn.__name__}."
    return method


def _polygamma_method(self: Tensor, n: int) -> Tensor:
    """polygamma(n, self)."""
    return polygamma(n, self)


METHODS: dict[str, Any] = {name: as_method(FUNCTIONS[name]) for name in (
    "square", "sinc", "deg2rad", "rad2deg", "logit", "heaviside", "float_power", "nan_to_num",
    "isclose", "positive", "signbit", "sgn", "fmax", "fmin", "isposinf", "isneginf", "isreal",
    "softmax", "log_softmax", "cummax", "cummin", "bincount", "diff", "kron", "cross",
    "nextafter")}
METHODS.update({
    n + "_": _inplace(FUNCTIONS[n]) for n in (
        "square", "sinc", "deg2rad", "rad2deg", "logit", "heaviside", "float_power",
        "sgn", "nextafter")})
METHODS.update(round=_round_method, round_=_round_, nan_to_num_=_nan_to_num_,
               polygamma=_polygamma_method, polygamma_=lambda self, n: self.copy_(
                   polygamma(n, self)),
               apply_=apply_, map_=map_, __format__=_format)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """input where |input| > lambd, else 0 (floating types)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(hardshrink, locals())
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"hardshrink_cpu\" not implemented for '{input.dtype.real}'")
    return P["where"](P["gt"](P["abs"](input), lambd), input, as_tensor(0, input.dtype))


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """max(0, x) + weight * min(0, x), weight per channel (dim 1) or one value."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(prelu, locals())
    w = weight
    if weight.numel() > 1 and input.dim() > 1:
        shape = [1] * input.dim()
        shape[1] = weight.numel()
        w = weight.reshape(shape)
    return P["where"](P["ge"](input, 0), input, P["mul"](w, input))


FUNCTIONS.update({"hardshrink": hardshrink, "prelu": prelu})
METHODS.update({"hardshrink": as_method(hardshrink), "prelu": as_method(prelu)})
