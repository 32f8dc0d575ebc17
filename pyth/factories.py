"""Tensor factories: tensor, empty/zeros/ones/full, *_like, arange, linspace, logspace, eye,
from_numpy."""

from __future__ import annotations

import math
import numbers
import operator
from typing import Any, Sequence

import numpy as np

from . import _numpy
from . import dtypes as _dt
from ._errors import check_ptr
from ._promotion import promote_types
from ._th import ffi, lib
from .tensor import Tensor, _empty, c_sizes, parse_sizes, wrap


# ---- from Python data ----

def _kind_of(x: Any) -> str | None:
    """'b', 'i' or 'f' for a Python/numpy scalar, None for anything else."""
    if isinstance(x, (bool, np.bool_)):
        return "b"
    if isinstance(x, numbers.Integral):
        return "i"
    if isinstance(x, numbers.Real):
        return "f"
    return None


_PYTHON_SCALAR = {"b": _dt.bool_, "i": _dt.int64, "f": None}  # None: the default float


def _scalar_dtype(x: Any) -> _dt.dtype:
    """The dtype tensor() gives a scalar: numpy scalars keep theirs, Python ones are inferred."""
    if isinstance(x, np.generic):
        return _dt.from_numpy_dtype(x.dtype)
    return _PYTHON_SCALAR[_kind_of(x)] or _dt.get_default_dtype()


def _scan(data: Any, shape: list, depth: int, path: list) -> _dt.dtype | None:
    """Check that nested sequences are rectangular and numeric; record the shape and return
    the promoted dtype of the scalars (None if there are none)."""
    if isinstance(data, (Tensor, np.ndarray)):
        data = data.tolist()
    if isinstance(data, (list, tuple)):
        if depth == len(shape):
            shape.append(len(data))
        elif shape[depth] != len(data):
            raise ValueError(f"expected sequence of length {shape[depth]} at dim {depth} "
                             f"(got {len(data)})")
        found = None
        for i, x in enumerate(data):
            found = promote_types(found, _scan(x, shape, depth + 1, path + [i]))
        return found
    if depth < len(shape):
        raise ValueError(f"expected a sequence at dim {depth} (got a scalar at index {path})")
    if _kind_of(data) is None:
        raise TypeError(f"tensor(): invalid data type '{type(data).__name__}' at index {path}")
    return _scalar_dtype(data)


def tensor(data: Any, dtype: _dt.dtype | None = None, requires_grad: bool = False) -> Tensor:
    """A new tensor holding a copy of data (a scalar, nested lists, an ndarray or a tensor).

    Python floats become the default float dtype, ints int64, bools bool; numpy scalars keep
    their dtype.
    """
    dtype = _dt.resolve(dtype)
    if isinstance(data, Tensor):
        return data.to(dtype or data.dtype, copy=True)
    if isinstance(data, np.generic):
        data = np.asarray(data)
    if isinstance(data, np.ndarray):
        src = from_numpy(data if min(data.strides, default=0) >= 0 else data.copy())
        return src.to(dtype or src.dtype, copy=True)
    shape: list = []
    found = _scan(data, shape, 0, [])
    dt = dtype or found or _dt.get_default_dtype()
    carrier = np.float64 if dt in (_dt.float16, _dt.bfloat16) else dt.to_numpy()
    try:
        arr = np.array(data, dtype=carrier) if found else np.zeros(shape, dtype=carrier)
    except OverflowError as e:
        raise RuntimeError(f"tensor(): value out of range for {dt!r}: {e}") from None
    src = from_numpy(arr)
    return src.to(dt, copy=True) if src.dtype is not dt else src.clone()


# ---- from numpy, zero-copy ----

def from_numpy(a: np.ndarray) -> Tensor:
    """A tensor sharing a's memory (any non-negative strides); it keeps a alive."""
    if not isinstance(a, np.ndarray):
        raise TypeError(f"from_numpy(): expected np.ndarray (got {type(a).__name__})")
    dt = _dt.from_numpy_dtype(a.dtype)
    if not a.dtype.isnative:
        raise ValueError("from_numpy(): the array's byte order is not the machine's; "
                         "convert it with a.astype(a.dtype.newbyteorder('='))")
    item = dt.itemsize
    if any(s < 0 for s in a.strides):
        raise ValueError(f"from_numpy(): arrays with negative strides are not supported "
                         f"(strides {a.strides}); copy it first, e.g. with a.copy()")
    if any(s % item for s in a.strides):
        raise ValueError(f"from_numpy(): strides {a.strides} are not multiples of the element "
                         f"size {item}")
    if a.size == 0:
        return _empty(a.shape, dt)
    strides = [s // item for s in a.strides]
    span = 1 + sum((n - 1) * s for n, s in zip(a.shape, strides))
    ctx = _numpy.borrow_context(a)
    data = ffi.cast(dt.ctype + " *", a.ctypes.data)
    storage = check_ptr(dt.storage.newWithDataAndAllocator(
        data, span, ffi.addressof(lib, "THNumpyAllocator"), ctx))
    try:
        return wrap(dt, dt.tensor.newWithStorage(storage, 0, a.ndim, c_sizes(a.shape),
                                                 c_sizes(strides)))
    finally:
        dt.storage.free(storage)


# ---- filled tensors ----

def _sizes_and_dtype(size: Sequence[Any], dtype: _dt.dtype | None, op: str) -> tuple:
    return parse_sizes(size, op), _dt.resolve(dtype) or _dt.get_default_dtype()


def empty(*size: Any, dtype: _dt.dtype | None = None, **_: Any) -> Tensor:
    """Uninitialised tensor of the given sizes."""
    sizes, dt = _sizes_and_dtype(size, dtype, "empty")
    return _empty(sizes, dt)


def zeros(*size: Any, dtype: _dt.dtype | None = None, **_: Any) -> Tensor:
    sizes, dt = _sizes_and_dtype(size, dtype, "zeros")
    return _empty(sizes, dt).zero_()


def ones(*size: Any, dtype: _dt.dtype | None = None, **_: Any) -> Tensor:
    sizes, dt = _sizes_and_dtype(size, dtype, "ones")
    return _empty(sizes, dt).fill_(1)


def full(size: Sequence[int], fill_value: Any, dtype: _dt.dtype | None = None, **_: Any) -> Tensor:
    """A tensor of size filled with fill_value (dtype inferred from the value as tensor() does)."""
    dt = _dt.resolve(dtype) or _scalar_dtype(fill_value if _kind_of(fill_value) else 0.0)
    return _empty(parse_sizes((size,), "full"), dt).fill_(fill_value)


def empty_like(t: Tensor, dtype: _dt.dtype | None = None, **_: Any) -> Tensor:
    return _empty(t.size(), _dt.resolve(dtype) or t.dtype)


def zeros_like(t: Tensor, dtype: _dt.dtype | None = None, **_: Any) -> Tensor:
    return empty_like(t, dtype).zero_()


def ones_like(t: Tensor, dtype: _dt.dtype | None = None, **_: Any) -> Tensor:
    return empty_like(t, dtype).fill_(1)


def full_like(t: Tensor, fill_value: Any, dtype: _dt.dtype | None = None, **_: Any) -> Tensor:
    return empty_like(t, dtype).fill_(fill_value)


# ---- ranges ----

def _from_values(values: np.ndarray, dt: _dt.dtype) -> Tensor:
    src = from_numpy(np.asarray(values))
    return src.to(dt, copy=True) if src.dtype is not dt else src.clone()


def arange(start: Any, end: Any = None, step: Any = 1, dtype: _dt.dtype | None = None,
           **_: Any) -> Tensor:
    """Values start, start+step, ... below end; ceil((end-start)/step) elements, as PyTorch."""
    if end is None:
        start, end = 0, start
    kinds = {_kind_of(x) for x in (start, end, step)}
    if None in kinds:
        raise TypeError("arange(): start, end and step must be real numbers")
    dt = _dt.resolve(dtype) or (_dt.get_default_dtype() if "f" in kinds else _dt.int64)
    if step == 0:
        raise RuntimeError("arange(): step must be nonzero")
    if not all(math.isfinite(float(x)) for x in (start, end)):
        raise RuntimeError(f"arange(): unsupported range: {start} -> {end}")
    if (end - start) * step < 0:
        raise RuntimeError("arange(): upper bound and larger bound inconsistent with step sign")
    n = int(math.ceil((float(end) - float(start)) / float(step)))
    if "f" in kinds or dt.is_floating_point:
        values = np.arange(n, dtype=np.float64) * float(step) + float(start)
    else:
        values = np.arange(n, dtype=np.int64) * int(step) + int(start)
    return _from_values(values, dt)


def linspace(start: float, end: float, steps: int, dtype: _dt.dtype | None = None,
             **_: Any) -> Tensor:
    """steps values evenly spaced from start to end inclusive (symmetric, as PyTorch)."""
    steps = operator.index(steps)
    if steps < 0:
        raise RuntimeError("linspace(): number of steps must be non-negative")
    dt = _dt.resolve(dtype) or _dt.get_default_dtype()
    i = np.arange(steps, dtype=np.float64)
    if steps == 1:
        values = np.array([float(start)])
    else:
        step = (float(end) - float(start)) / max(steps - 1, 1)
        values = np.where(i < steps // 2, float(start) + i * step,
                          float(end) - (steps - 1 - i) * step)
    return _from_values(values, dt)


def logspace(start: float, end: float, steps: int, base: float = 10.0,
             dtype: _dt.dtype | None = None, **_: Any) -> Tensor:
    """base ** linspace(start, end, steps)."""
    exps = linspace(start, end, steps, dtype=_dt.float64).numpy()
    return _from_values(np.power(float(base), exps), dtype or _dt.get_default_dtype())


def eye(n: int, m: int | None = None, dtype: _dt.dtype | None = None, **_: Any) -> Tensor:
    """An n x m matrix with ones on the diagonal."""
    m = n if m is None else m
    out = zeros(n, m, dtype=dtype)
    out.diagonal().fill_(1)
    return out
