"""Creation helpers beyond pyth/_prims/creation.py: PyTorch's keywords on every factory
(device=, out=, requires_grad=, layout=, pin_memory=, memory_format=), as_tensor, tensor() from
any iterable,
Tensor.new_* and type_as, tril_indices / triu_indices."""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

import numpy as np

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch
from .. import dtypes as _dt
from .._prims import creation as _f
from ..device import check_device
from ..tensor import Tensor, parse_sizes


# keyword -> the values pyth accepts (PyTorch's defaults); device is validated on its own, and
# requires_grad is passed on to the wrapped factory (autograd decides what it means)
_ACCEPTED = {"layout": (None, "strided", "pyth.strided", "torch.strided"),
             "pin_memory": (False,), "memory_format": (None, "contiguous_format",
                                                       "preserve_format")}


def _check_keywords(op: str, kwargs: dict) -> None:
    """device= must be the CPU; the other PyTorch keywords must have values pyth supports."""
    check_device(kwargs.pop("device", None), op)
    for k, v in kwargs.items():
        if k not in _ACCEPTED:
            raise TypeError(f"{op}() got an unexpected keyword argument '{k}'")
        if v not in _ACCEPTED[k] and str(v) not in _ACCEPTED[k]:
            raise RuntimeError(f"{op}(): {k}={v!r} is not supported by pyth")


def _store_out(op: str, r: Tensor, out: Tensor | None) -> Tensor:
    """r, or out resized and filled with it (out's dtype must match, as PyTorch's factories)."""
    if out is None:
        return r
    if not isinstance(out, Tensor):
        raise TypeError(f"{op}(): out must be a Tensor, not {type(out).__name__}")
    if out.dtype is not r.dtype:
        raise RuntimeError(f"{op}(): dtype {r.dtype!r} does not match out's dtype {out.dtype!r}")
    return out.resize_(r.size()).copy_(r)


def with_keywords(fn: Callable, name: str, has_out: bool = True) -> Callable:
    """fn with PyTorch's factory keywords checked: device= (CPU only), out= when has_out."""
    named = {p.name for p in inspect.signature(fn).parameters.values()
             if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}

    @functools.wraps(fn)
    def factory(*args: Any, out: Tensor | None = None, dtype: Any = None, **kwargs: Any) -> Tensor:
        if not kwargs and out is None:   # zeros(3, 4), zeros(3, dtype=...): nothing to check
            return fn(*args, dtype=dtype)
        extra = {k: kwargs.pop(k) for k in list(kwargs) if k in named}
        requires_grad = kwargs.pop("requires_grad", False)
        _check_keywords(name, kwargs)
        if out is not None and not has_out:
            raise TypeError(f"{name}() got an unexpected keyword argument 'out'")
        if out is not None and dtype is None and isinstance(out, Tensor):
            dtype = out.dtype
        r = _store_out(name, fn(*args, dtype=dtype, **extra), out)
        return r.requires_grad_(True) if requires_grad else r
    return factory


_WITH_OUT = ("empty", "zeros", "ones", "full", "arange", "linspace", "logspace", "eye")
_NO_OUT = ("empty_like", "zeros_like", "ones_like", "full_like")

FACTORIES: dict[str, Callable] = {n: with_keywords(getattr(_f, n), n) for n in _WITH_OUT}
FACTORIES.update({n: with_keywords(getattr(_f, n), n, has_out=False) for n in _NO_OUT})


def _device_checked(fn: Callable, name: str) -> Callable:
    """fn with device= validated (CPU only) and dropped; fn checks its other keywords."""
    @functools.wraps(fn)
    def factory(*args: Any, **kwargs: Any) -> Tensor:
        check_device(kwargs.pop("device", None), name)
        return fn(*args, **kwargs)
    return factory


def _random_factories() -> dict:
    from .. import random as _r
    return {n: _device_checked(getattr(_r, n), n) for n in (
        "rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like")}


FACTORIES.update(_random_factories())


def _materialise(data: Any) -> Any:
    """Nested lists from any iterable (range, generators, tuples of tensors ...)."""
    if isinstance(data, (Tensor, np.ndarray, np.generic, str, bytes)) or np.isscalar(data):
        return data
    if isinstance(data, (list, tuple)):
        return [_materialise(x) for x in data] if any(
            not np.isscalar(x) for x in data) else data
    if hasattr(data, "__array_interface__") or hasattr(data, "__array__"):
        return np.asarray(data)
    if hasattr(data, "__iter__"):
        return [_materialise(x) for x in data]
    return data


def tensor(data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:
    """A new tensor holding a copy of data (scalar, nested sequences, any iterable, ndarray)."""
    if type(data) is list and device is None and not pin_memory:   # [1.0, 2.0]: no checks
        t = _f.number_list(data, dtype)
        if t is not None:
            return t
    _check_keywords("tensor", {"device": device, "pin_memory": pin_memory})
    if isinstance(data, (list, tuple, Tensor, np.ndarray)) or np.isscalar(data):
        try:  # the common case, without a Python pass over the data
            return _f.tensor(data, dtype=dtype, requires_grad=requires_grad)
        except TypeError:
            pass  # an iterable (range, generator) somewhere inside: materialise and retry
    return _f.tensor(_materialise(data), dtype=dtype, requires_grad=requires_grad)


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """data as a tensor, sharing memory when it already is one (or an ndarray) of that dtype."""
    check_device(device, "as_tensor")
    dtype = _dt.resolve(dtype)
    if isinstance(data, Tensor):
        return data if dtype is None or dtype is data.dtype else data.to(dtype)
    if isinstance(data, np.ndarray) and data.dtype.isnative and min(data.strides, default=0) >= 0:
        try:
            t = _f.from_numpy(data)
        except TypeError:
            return tensor(data, dtype=dtype)
        return t if dtype is None or dtype is t.dtype else t.to(dtype)
    return tensor(data, dtype=dtype)


def asarray(obj: Any, *, dtype: Any = None, device: Any = None, copy: bool | None = None,
            requires_grad: bool = False) -> Tensor:
    """obj as a tensor: shares memory unless copy=True or a conversion is needed."""
    _check_keywords("asarray", {"device": device})
    if copy or requires_grad:
        return tensor(obj, dtype=dtype, requires_grad=requires_grad)
    return as_tensor(obj, dtype=dtype)


# ---- Tensor.new_*: same dtype (and device) as self unless given ----

def _new(name: str, make: Callable) -> Callable:
    def method(self: Tensor, *args: Any, dtype: Any = None, **kwargs: Any) -> Tensor:
        _check_keywords(name, kwargs)
        return make(self, args, _dt.resolve(dtype) or self.dtype)
    method.__name__ = name
    return method


def _sizes_arg(args: tuple, op: str) -> tuple:
    return parse_sizes(args, op)


new_empty = _new("new_empty", lambda s, a, dt: _f.empty(_sizes_arg(a, "new_empty"), dtype=dt))
new_empty.__doc__ = "An uninitialised tensor of the given size, with self's dtype."
new_zeros = _new("new_zeros", lambda s, a, dt: _f.zeros(_sizes_arg(a, "new_zeros"), dtype=dt))
new_zeros.__doc__ = "A zero tensor of the given size, with self's dtype."
new_ones = _new("new_ones", lambda s, a, dt: _f.ones(_sizes_arg(a, "new_ones"), dtype=dt))
new_ones.__doc__ = "A tensor of ones of the given size, with self's dtype."
new_full = _new("new_full", lambda s, a, dt: _f.full(a[0], a[1], dtype=dt))
new_full.__doc__ = "A tensor of the given size filled with fill_value, with self's dtype."
new_tensor = _new("new_tensor", lambda s, a, dt: tensor(a[0], dtype=dt))
new_tensor.__doc__ = "A copy of data as a tensor, with self's dtype unless dtype= is given."


def type_as(self: Tensor, other: Tensor) -> Tensor:
    """self converted to other's dtype (self when it already has it)."""
    return self.to(other.dtype)


# ---- triangle indices ----

def _tril_count(row: int, col: int, offset: int) -> int:
    """How many (i, j) with 0 <= i < row, 0 <= j < col, j <= i + offset: row i holds
    clip(i + offset + 1, 0, col) of them, a ramp and a plateau summed in closed form."""
    if row <= 0 or col <= 0:
        return 0
    first = min(max(0, -offset), row)                 # the first row holding any
    full = min(max(first, col - offset - 1), row)     # the first row holding col
    ramp = (full - first) * ((first + offset + 1) + (full + offset)) // 2
    return ramp + (row - full) * col


def _tri_indices(op: str, row: int, col: int, offset: int, dtype: Any, device: Any,
                 lower: bool) -> Tensor:
    """The 2 x N indices, sized from N (counted first, in closed form): the result is one
    checked allocation (MemoryError when it cannot be had), then every temporary is of the
    result's length, never of the matrix's (an empty triangle of a 2^31 x 2^31 matrix is
    free)."""
    check_device(device, op)
    dt = _dt.resolve(dtype) or _dt.int64
    if dt.kind not in "iu":
        raise NotImplementedError(f"\"{op}\" not implemented for '{dt.real}'")
    row, col, offset = int(row), int(col), int(offset)
    if row < 0 or col < 0:
        raise RuntimeError(f"{op}(): row and col must be non-negative, got {row}, {col}")
    offset = min(max(offset, -row - 1), col + 1)       # beyond these the triangle is the same
    n = _tril_count(row, col, offset) if lower else row * col - _tril_count(row, col, offset - 1)
    out = _f.empty(2, n, dtype=_dt.int64)
    if n:
        if lower:   # rows first.. hold j in [0, min(i + offset + 1, col))
            ids = np.arange(max(0, -offset), row, dtype=np.int64)
            starts = np.zeros(ids.shape, np.int64)
            lengths = np.minimum(ids + (offset + 1), col)
        else:       # rows ..last hold j in [max(0, i + offset), col)
            ids = np.arange(0, min(row, col - offset), dtype=np.int64)
            starts = np.maximum(ids + offset, 0)
            lengths = col - starts
        a = out.numpy()
        a[0] = np.repeat(ids, lengths)
        a[1] = np.arange(n, dtype=np.int64) - np.repeat(np.cumsum(lengths) - lengths - starts,
                                                        lengths)
    return out if dt is _dt.int64 else out.to(dt)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None,
                 layout: Any = None) -> Tensor:
    """2 x N indices (rows, cols) of the lower triangle of a row x col matrix."""
    return _tri_indices("tril_indices", row, col, offset, dtype, device, True)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None,
                 layout: Any = None) -> Tensor:
    """2 x N indices (rows, cols) of the upper triangle of a row x col matrix."""
    return _tri_indices("triu_indices", row, col, offset, dtype, device, False)


FUNCTIONS: dict[str, Callable] = {
    **FACTORIES, "tensor": tensor, "as_tensor": as_tensor, "asarray": asarray,
    "tril_indices": tril_indices, "triu_indices": triu_indices,
}

METHODS: dict[str, Callable] = {
    "new_empty": new_empty, "new_zeros": new_zeros, "new_ones": new_ones, "new_full": new_full,
    "new_tensor": new_tensor, "type_as": type_as,
}


def clone(input: Tensor, *, memory_format: Any = None) -> Tensor:
    """A copy of input with its own storage."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(clone, locals())
    return input.clone()


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """Vandermonde matrix of a 1-D tensor: decreasing powers unless increasing=True."""
    if type(x) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(vander, locals())
    from .linalg import vander as lv
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    if N is not None and N < 0:
        raise RuntimeError("N must be non-negative.")
    r = lv(x.long() if x.dtype is _dt.bool_ else x, N=N)
    if not increasing:
        r = r.flip(-1)
    return r


FUNCTIONS.update({"clone": clone, "vander": vander})
