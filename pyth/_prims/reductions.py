"""Reductions and scans: sum, prod, mean, var, std, norm, amax/amin, max/min, argmax/argmin,
all, any, logsumexp, cumsum, cumprod, and what is built on them (dist, equal, allclose, histc).

Each reduction is a row of _REDUCTIONS saying which input kinds its C kernel
(`lib.TH<Real>Tensor_<name>`, generic/THTensorReduce.c) accepts and what dtype it returns; one
generic function parses the dims, picks the kernel by dtype and delivers the result, fresh or
in out=. The functions (pyth.sum) and the methods (t.sum) come from the same table, FUNCTIONS.

Sums and products of integers and bools accumulate in int64 and return int64; mean, var, std
and norm need floating inputs (pass dtype= to mean / sum / norm to convert first). E.g.

    pyth.full((300,), 200, dtype=pyth.uint8).sum()   # 60000, an int64: no wrap at 255
    pyth.tensor([[1., 5.], [7., 7.]]).max(1)         # values (5, 7), FIRST indices (1, 0)
"""

from __future__ import annotations

import collections
from typing import Any, Callable, NamedTuple

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch, overridden as _overridden
from .. import dtypes as _dt
from .._errors import check, not_implemented
from .._ops import conflicts, new_result, store_pair
from .._promotion import result_type
from .._size import Size
from .._th import ffi
from ..tensor import Tensor, as_count, as_dim
from . import recorded

# ---- dims --------------------------------------------------------------------------------------

_ALL = (0, ffi.NULL)  # ndims == 0: the C kernels reduce every dim
_ONE_DIM: dict[int, tuple] = {}  # d -> (1, int64_t[1] {d}): per-call cost matters on small tensors


def _dims(op: str, dim: Any) -> tuple:
    """dim (None, an int, or a sequence of ints; negative allowed) as the C (ndims, dims)."""
    if dim is None:
        return _ALL
    if type(dim) is int:
        cached = _ONE_DIM.get(dim)
        if cached is None:
            cached = 1, ffi.new("int64_t[1]", (_dim(op, dim),))
            if -64 <= dim < 64:
                _ONE_DIM[dim] = cached
        return cached
    if isinstance(dim, (tuple, list, Size)):
        dims = [_dim(op, d) for d in dim]
        return (len(dims), ffi.new("int64_t[]", dims)) if dims else _ALL
    return 1, ffi.new("int64_t[1]", (_dim(op, dim),))


def _dim(op: str, d: Any) -> int:
    if isinstance(d, bool) or not hasattr(d, "__index__"):
        raise TypeError(f"{op}(): argument 'dim' must be int or tuple of ints, not "
                        f"{type(d).__name__}")
    return as_dim(d)


def _one_dim(op: str, dim: Any) -> int:
    """A single int dim (for max(dim), argmax, cumsum, ... which take no tuples)."""
    if isinstance(dim, (tuple, list)):
        raise TypeError(f"{op}(): argument 'dim' must be int, not {type(dim).__name__}")
    return _dim(op, dim)


# ---- the table -----------------------------------------------------------------------------------

def _same(dt: _dt.dtype) -> _dt.dtype:
    return dt


def _sum_type(dt: _dt.dtype) -> _dt.dtype:
    """What sum / prod / cumsum return: floating types stay, integers and bool give int64."""
    return dt if dt.is_floating_point else _dt.int64


def _bool_type(dt: _dt.dtype) -> _dt.dtype:
    """all / any give bool, except on uint8 where PyTorch (for legacy) gives uint8."""
    return _dt.uint8 if dt is _dt.uint8 else _dt.bool_


class _Spec(NamedTuple):
    kinds: str                                  # input kinds the kernel exists for
    result: Callable[[_dt.dtype], _dt.dtype]    # the result dtype for an input dtype
    takes_dtype: bool = False                   # dtype= (or out='s dtype) converts the input
    int_to_float: bool = False                  # integer inputs go to the default float dtype
    empty_dims_keep: bool = False               # dim=() reduces nothing (all / any), not all


_REDUCTIONS: dict[str, _Spec] = {
    "sum": _Spec("buif", _sum_type, takes_dtype=True),
    "prod": _Spec("buif", _sum_type, takes_dtype=True),
    "mean": _Spec("f", _same, takes_dtype=True),
    "amax": _Spec("buif", _same),
    "amin": _Spec("buif", _same),
    "all": _Spec("buif", _bool_type, empty_dims_keep=True),
    "any": _Spec("buif", _bool_type, empty_dims_keep=True),
    "logsumexp": _Spec("f", _same, int_to_float=True),
}

# What the C kernel of each reduction writes, when the Python result differs (a conversion).
_C_RESULT = {"sum": _sum_type, "prod": _sum_type, "all": lambda dt: _dt.bool_,
             "any": lambda dt: _dt.bool_}


def _require_tensor(op: str, x: Any) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(x).__name__}")


def _require_floating(op: str, dt: _dt.dtype) -> None:
    if not dt.is_floating_point:
        raise RuntimeError(f"{op}(): expected a floating point input (or dtype=), got "
                           f"{dt.real}")


def _deliver(op: str, c_dtype: _dt.dtype, wanted: _dt.dtype, out: Tensor | None,
             run: Callable[[Tensor], int], inputs: Any = (), same_ok: bool = False) -> Tensor:
    """Runs the kernel into a result of its dtype c_dtype and returns the op's result of dtype
    wanted: fresh, or in out (whose dtype must be wanted, as PyTorch insists), through a
    temporary when out shares memory with the inputs (see _ops.conflicts)."""
    if out is None:
        r = new_result(c_dtype)
        check(run(r))
        return r if c_dtype is wanted else r.to(wanted)
    if not isinstance(out, Tensor):
        raise TypeError(f"{op}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if out.dtype is not wanted:
        raise RuntimeError(f"{op}(): expected out tensor to have dtype {wanted.name}, but got "
                           f"{out.dtype.name} instead")
    if c_dtype is wanted and not conflicts(out, inputs, same_ok):
        check(run(out))
        return out
    r = new_result(c_dtype)
    check(run(r))
    return out.resize_(r.size()).copy_(r)


def _store(r: Tensor, value: Tensor) -> int:
    r.resize_(value.size()).copy_(value)
    return 0


# (op, dtype) -> (kernel, its result dtype, the op's result dtype) for inputs that need no
# conversion: the path a plain t.sum() / t.sum(0) takes, with its checks already passed.
_FAST: dict[tuple, tuple] = {}


def _reduce(op: str, input: Tensor, dim: Any, keepdim: bool, dtype: _dt.dtype | None,
            out: Tensor | None) -> Tensor:
    """The table-driven reduction: convert as the spec says, check the kind, run the kernel."""
    if out is None and dtype is None and (dim is None or type(dim) is int):
        plan = _FAST.get((op, getattr(input, "dtype", None)))
        if plan is not None and isinstance(input, Tensor):
            fn, c_dtype, wanted = plan
            ndims, dims = _dims(op, dim)
            r = new_result(c_dtype)
            check(fn(r._h, input._h, ndims, dims, bool(keepdim)))
            return r if c_dtype is wanted else r.to(wanted)
    return _reduce_slow(op, input, dim, keepdim, dtype, out)


def _reduce_slow(op: str, input: Tensor, dim: Any, keepdim: bool, dtype: _dt.dtype | None,
                 out: Tensor | None) -> Tensor:
    spec = _REDUCTIONS[op]
    _require_tensor(op, input)
    if spec.takes_dtype and dtype is None and out is not None:
        dtype = out.dtype  # PyTorch computes sum(..., out=o) in o's dtype
    if dtype is None and spec.int_to_float and not input.dtype.is_floating_point:
        dtype = _dt.get_default_dtype()
    src = input if dtype is None or dtype is input.dtype else input.to(dtype)
    dt = src.dtype
    if dt.kind not in spec.kinds:
        _require_floating(op, dt)
    wanted = dtype if spec.takes_dtype and dtype is not None else spec.result(dt)
    if spec.empty_dims_keep and isinstance(dim, (tuple, list, Size)) and not dim:
        return _deliver(op, wanted, wanted, out, lambda r: _store(r, _pointwise("ne")(src, 0)),
                        (src,))
    c_dtype = _C_RESULT.get(op, _same)(dt)
    ndims, dims = _dims(op, dim)
    fn = getattr(dt.tensor, op)
    if src is input and dtype is None:
        _FAST[op, dt] = (fn, c_dtype, wanted)
    return _deliver(op, c_dtype, wanted, out,
                    lambda r: fn(r._h, src._h, ndims, dims, bool(keepdim)), (src,))


# ---- public reductions ---------------------------------------------------------------------------

def sum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: _dt.dtype | None = None,
        out: Tensor | None = None) -> Tensor:
    """Sum over dim (an int, a tuple, or None for all); integers and bool give int64."""
    return _reduce("sum", input, dim, keepdim, dtype, out)


def prod(input: Tensor, dim: Any = None, keepdim: bool = False, *,
         dtype: _dt.dtype | None = None, out: Tensor | None = None) -> Tensor:
    """Product over dim; integers and bool give int64 (wrapping on overflow, as PyTorch)."""
    return _reduce("prod", input, dim, keepdim, dtype, out)


def mean(input: Tensor, dim: Any = None, keepdim: bool = False, *,
         dtype: _dt.dtype | None = None, out: Tensor | None = None) -> Tensor:
    """Arithmetic mean over dim; floating inputs only (or dtype= a floating type). NaN if empty."""
    return _reduce("mean", input, dim, keepdim, dtype, out)


def amax(input: Tensor, dim: Any = None, keepdim: bool = False, *,
         out: Tensor | None = None) -> Tensor:
    """Largest value over dim (None or (): all dims); NaN propagates."""
    return _reduce("amax", input, dim, keepdim, None, out)


def amin(input: Tensor, dim: Any = None, keepdim: bool = False, *,
         out: Tensor | None = None) -> Tensor:
    """Smallest value over dim (None or (): all dims); NaN propagates."""
    return _reduce("amin", input, dim, keepdim, None, out)


def all(input: Tensor, dim: Any = None, keepdim: bool = False, *,
        out: Tensor | None = None) -> Tensor:
    """Whether every element over dim is non-zero (bool; uint8 for uint8 input, as PyTorch)."""
    try:
        return _reduce("all", input, dim, keepdim, None, out)
    except TypeError:   # input is no Tensor: a Proxy (pyth.fx) may take the call
        return _overridden(all, locals())


def any(input: Tensor, dim: Any = None, keepdim: bool = False, *,
        out: Tensor | None = None) -> Tensor:
    """Whether some element over dim is non-zero (bool; uint8 for uint8 input, as PyTorch)."""
    try:
        return _reduce("any", input, dim, keepdim, None, out)
    except TypeError:   # input is no Tensor: a Proxy (pyth.fx) may take the call
        return _overridden(any, locals())


def logsumexp(input: Tensor, dim: Any, keepdim: bool = False, *,
              out: Tensor | None = None) -> Tensor:
    """log(sum(exp(input))) over dim without overflow; integers compute in the default float."""
    return _reduce("logsumexp", input, dim, keepdim, None, out)


def _correction(op: str, unbiased: bool | None, correction: Any) -> float:
    if unbiased is not None and correction is not None:
        raise TypeError(f"{op}(): pass either unbiased or correction, not both")
    if correction is None:
        return 1.0 if unbiased is None or unbiased else 0.0
    return float(correction)


def _var_std(op: str, input: Tensor, dim: Any, unbiased: Any, keepdim: bool, correction: Any,
             out: Tensor | None) -> Tensor:
    _require_tensor(op, input)
    if isinstance(dim, bool):       # the legacy form var(input, unbiased)
        dim, unbiased = None, dim
    c = _correction(op, unbiased, correction)
    dt = input.dtype
    if not dt.is_floating_point:
        raise RuntimeError(f"{op}(): std and var only support floating point dtypes, got "
                           f"{dt.real}")
    ndims, dims = _dims(op, dim)
    fn = getattr(dt.tensor, op)
    return _deliver(op, dt, dt, out, lambda r: fn(r._h, input._h, ndims, dims, c, bool(keepdim)),
                    (input,))


def var(input: Tensor, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *,
        correction: Any = None, out: Tensor | None = None) -> Tensor:
    """Variance over dim: squared deviations summed and divided by max(0, N - correction).

    correction defaults to 1 (Bessel's); unbiased=False means correction=0. Two passes in double.
    """
    return _var_std("var", input, dim, unbiased, keepdim, correction, out)


def std(input: Tensor, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *,
        correction: Any = None, out: Tensor | None = None) -> Tensor:
    """Standard deviation over dim: the square root of var (same arguments)."""
    return _var_std("std", input, dim, unbiased, keepdim, correction, out)


def norm(input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False,
         out: Tensor | None = None, dtype: _dt.dtype | None = None) -> Tensor:
    """Vector p-norm over dim (all dims by default), as torch.norm: p=2 ('fro'), 1, inf, -inf,
    0 (count of non-zeros) or any other float: sum(|x|**p)**(1/p)."""
    _require_tensor("norm", input)
    if isinstance(p, str):
        if p != "fro":  # 'nuc' and other matrix norms: pyth.linalg computes them (SVD)
            from .linalg import matrix_norm
            mdim = (-2, -1) if dim is None else dim
            r = matrix_norm(input if dtype is None else input.to(dtype), p, mdim, keepdim)
            return r if out is None else out.resize_(r.size()).copy_(r)
        p = 2.0
    p = 2.0 if p is None else _dt.float64.to_c(p)
    src = input if dtype is None or dtype is input.dtype else input.to(dtype)
    _require_floating("norm", src.dtype)
    ndims, dims = _dims("norm", dim)
    fn = src.dtype.tensor.norm
    return _deliver("norm", src.dtype, src.dtype, out,
                    lambda r: fn(r._h, src._h, p, ndims, dims, bool(keepdim)), (src,))


def _pointwise(name: str) -> Callable:
    """A function of pyth/_prims/pointwise.py (raw: for results no gradient reaches, or inside
    an op recorded as a whole)."""
    from .pointwise import FUNCTIONS as pointwise_functions
    return pointwise_functions[name]


def dist(input: Tensor, other: Any, p: Any = 2) -> Tensor:
    """The p-norm of input - other (broadcast)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(dist, locals())
    _require_floating("dist", result_type(input, other))
    return recorded.norm(recorded.sub(input, other), p)


# ---- max / min with indices ----------------------------------------------------------------------

def _values_indices(name: str) -> type:
    cls = collections.namedtuple(name, ["values", "indices"])
    cls.__module__ = "pyth.return_types"
    return cls


_RESULTS = {"max": _values_indices("max"), "min": _values_indices("min")}
_PAIRWISE = {"max": "maximum", "min": "minimum"}


def _extreme(op: str, input: Tensor, dim: Any, keepdim: bool, out: Any) -> Any:
    _require_tensor(op, input)
    if isinstance(dim, Tensor):             # max(input, other): the elementwise maximum
        return _pointwise(_PAIRWISE[op])(input, dim, out=out)
    dt = input.dtype
    fn = getattr(dt.tensor, op)
    if dim is None:                          # the value only
        if out is None:
            r = new_result(dt)
            check(fn(r._h, ffi.NULL, input._h, 0, ffi.NULL, 0))
            return r
        return _deliver(op, dt, dt, out, lambda r: fn(r._h, ffi.NULL, input._h, 0, ffi.NULL, 0),
                        (input,))
    d = _dims(op, _one_dim(op, dim))[1]
    if out is None:
        values, indices = new_result(dt), new_result(_dt.int64)
    else:
        values, indices = out
        for t, want in ((values, dt), (indices, _dt.int64)):
            if not isinstance(t, Tensor) or t.dtype is not want:
                got = t.dtype.name if isinstance(t, Tensor) else type(t).__name__
                raise RuntimeError(f"{op}(): expected out tensors of dtypes {dt.name} and int64, "
                                   f"but got {got}")
        values, indices = store_pair(op, (values, indices), (input,),
                                     lambda v, i: fn(v._h, i._h, input._h, 1, d, bool(keepdim)),
                                     (dt, _dt.int64))
        return _RESULTS[op](values, indices)
    check(fn(values._h, indices._h, input._h, 1, d, bool(keepdim)))
    return _RESULTS[op](values, indices)


def max(input: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Any:
    """The largest value (no dim), or (values, indices) of the FIRST largest along dim, or the
    elementwise maximum with a tensor; NaN counts as the largest."""
    return _extreme("max", input, dim, keepdim, out)


def min(input: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Any:
    """The smallest value (no dim), or (values, indices) of the FIRST smallest along dim, or the
    elementwise minimum with a tensor; NaN counts as the smallest."""
    return _extreme("min", input, dim, keepdim, out)


def _arg(op: str, input: Tensor, dim: Any, keepdim: bool, out: Tensor | None) -> Tensor:
    _require_tensor(op, input)
    if input.dtype is _dt.bool_:
        raise RuntimeError(f"{op}(): does not support bool input")
    ndims, dims = _ALL if dim is None else _dims(op, _one_dim(op, dim))
    fn = getattr(input.dtype.tensor, op)
    if out is None:
        r = new_result(_dt.int64)
        check(fn(r._h, input._h, ndims, dims, bool(keepdim)))
        return r
    return _deliver(op, _dt.int64, _dt.int64, out,
                    lambda r: fn(r._h, input._h, ndims, dims, bool(keepdim)), (input,))


def argmax(input: Tensor, dim: Any = None, keepdim: bool = False, *,
           out: Tensor | None = None) -> Tensor:
    """int64 position of the first largest value along dim (no dim: in the flattened tensor)."""
    try:
        return _arg("argmax", input, dim, keepdim, out)
    except TypeError:   # input is no Tensor: a Proxy (pyth.fx) may take the call
        return _overridden(argmax, locals())


def argmin(input: Tensor, dim: Any = None, keepdim: bool = False, *,
           out: Tensor | None = None) -> Tensor:
    """int64 position of the first smallest value along dim (no dim: in the flattened tensor)."""
    try:
        return _arg("argmin", input, dim, keepdim, out)
    except TypeError:   # input is no Tensor: a Proxy (pyth.fx) may take the call
        return _overridden(argmin, locals())


# ---- scans ------------------------------------------------------------------------------------------

def _scan(op: str, input: Tensor, dim: Any, dtype: _dt.dtype | None, out: Tensor | None) -> Tensor:
    _require_tensor(op, input)
    if dtype is None and out is not None:
        dtype = out.dtype
    if dtype is _dt.bool_:  # a running sum or product has no bool kernel
        raise not_implemented(op, dtype)
    src = input if dtype is None or dtype is input.dtype else input.to(dtype)
    c_dtype = _sum_type(src.dtype)
    d = _one_dim(op, dim)
    fn = getattr(src.dtype.tensor, op)
    return _deliver(op, c_dtype, dtype or c_dtype, out, lambda r: fn(r._h, src._h, d), (src,),
                    same_ok=True)  # a scan reads each element before writing it


def cumsum(input: Tensor, dim: int, *, dtype: _dt.dtype | None = None,
           out: Tensor | None = None) -> Tensor:
    """Running sum along dim; integers and bool accumulate in and return int64."""
    return _scan("cumsum", input, dim, dtype, out)


def cumprod(input: Tensor, dim: int, *, dtype: _dt.dtype | None = None,
            out: Tensor | None = None) -> Tensor:
    """Running product along dim; integers and bool accumulate in and return int64."""
    return _scan("cumprod", input, dim, dtype, out)


def _scan_(op: str):
    def method(self: Tensor, dim: int, *, dtype: _dt.dtype | None = None) -> Tensor:
        if dtype is not None and dtype is not self.dtype:
            raise RuntimeError(f"{op}_(): dtype {dtype.name} does not match the tensor's "
                               f"{self.dtype.name}")
        if self.dtype is _dt.bool_:
            raise not_implemented(op + "_", self.dtype)
        if _sum_type(self.dtype) is self.dtype:          # the kernel may write self directly
            check(getattr(self.dtype.tensor, op)(self._h, self._h, _one_dim(op, dim)))
            return self
        return self.copy_(_scan(op, self, dim, None, None))
    method.__name__ = op + "_"
    method.__doc__ = f"In-place {op} along dim."
    return method


# ---- comparisons and histograms ------------------------------------------------------------------

def equal(input: Tensor, other: Tensor) -> bool:
    """True when both have the same shape and equal elements (NaN is unequal to itself)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(equal, locals())
    _require_tensor("equal", input)
    _require_tensor("equal", other)
    if input.size() != other.size():
        return False
    return bool(all(_pointwise("eq")(input, other)).item())


def _isclose(input: Tensor, other: Tensor, rtol: float, atol: float, equal_nan: bool) -> Tensor:
    abs, eq, isfinite, isnan, le, mul, sub = map(_pointwise, (
        "abs", "eq", "isfinite", "isnan", "le", "mul", "sub"))
    if input.dtype is not other.dtype:
        raise RuntimeError(f"isclose(): {input.dtype.real} did not match {other.dtype.real}")
    close = eq(input, other)
    a, b = input, other
    if not a.dtype.is_floating_point:       # differences of integers in double: no overflow
        a, b = a.double(), b.double()
    elif equal_nan:
        close = close | (isnan(a) & isnan(b))
    actual = abs(sub(a, b))
    allowed = abs(mul(b, rtol)) + atol
    return close | (isfinite(actual) & le(actual, allowed))


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    """Whether |input - other| <= atol + rtol * |other| everywhere (broadcast; same dtype)."""
    _require_tensor("allclose", input)
    _require_tensor("allclose", other)
    return bool(all(_isclose(input, other, rtol, atol, equal_nan)).item())


def histc(input: Tensor, bins: int = 100, min: Any = 0, max: Any = 0, *,
          out: Tensor | None = None) -> Tensor:
    """Counts of input's elements in `bins` equal bins over [min, max] (min == max: the data's
    range); elements outside are ignored. Floating types; the counts have input's dtype."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(histc, locals())
    _require_tensor("histc", input)
    dt = input.dtype
    if not dt.is_floating_point:
        raise NotImplementedError(f"histc(): not implemented for '{dt.real}' (expects a "
                                  f"floating point tensor)")
    b = as_count(bins, "histc", "bins")
    lo, hi = _dt.float64.to_c(min), _dt.float64.to_c(max)
    return _deliver("histc", dt, dt, out, lambda r: dt.tensor.histc(r._h, input._h, b, lo, hi),
                    (input,))


# ---- export -----------------------------------------------------------------------------------------

FUNCTIONS: dict[str, Any] = {
    f.__name__: f for f in (sum, prod, mean, var, std, norm, amax, amin, max, min, argmax, argmin,
                            all, any, logsumexp, cumsum, cumprod, dist, equal, allclose, histc)
}


# input is the first parameter: self, as a method
METHODS: dict[str, Any] = {**FUNCTIONS, "cumsum_": _scan_("cumsum"), "cumprod_": _scan_("cumprod")}
