"""Tensor factories: tensor, empty/zeros/ones/full, *_like, arange, linspace, logspace, eye,
from_numpy."""

from __future__ import annotations

import array
import math
import numbers
import operator
from typing import Any, Sequence

import numpy as np

from .. import _numpy
from .. import dtypes as _dt
from .._errors import check, check_ptr
from .._promotion import promote_types
from .._th import ffi, lib
from ..tensor import Tensor, _empty, as_count, c_sizes, parse_sizes, wrap


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


# dtype -> the array module's code for its C type: the dtypes a list of numbers packs into
_ARRAY_CODES = {_dt.float64: "d", _dt.float32: "f", _dt.int64: "q", _dt.int32: "i",
                _dt.int16: "h", _dt.int8: "b", _dt.uint8: "B"}
_NUMBERS = frozenset((float, int))
_F32_EXACT = 1 << 24   # ints a float32 holds exactly (larger ones would round twice: via double)


def number_list(data: list, dtype: _dt.dtype | None) -> Tensor | None:
    """tensor() of a list, or a list of equal-length lists, of Python floats and ints (no bools),
    the commonest literal: packed by the array module (C's conversions, as numpy's) and copied
    in by one memmove. None for anything else, which tensor() then scans in general."""
    shape: tuple = (len(data),)
    if data and type(data[0]) is list:
        n = len(data[0])
        for row in data:
            if type(row) is not list or len(row) != n:
                return None
        shape, data = (len(data), n), [v for row in data for v in row]
    kinds = set(map(type, data))
    if not kinds or not kinds <= _NUMBERS:
        return None
    dt = _dt.resolve(dtype) or (_dt.get_default_dtype() if float in kinds else _dt.int64)
    code = _ARRAY_CODES.get(dt)
    if code is None or float in kinds and code not in "fd":
        return None   # floats into an integer dtype truncate: the general path's rules
    if code == "f" and int in kinds and \
            not all(-_F32_EXACT <= v <= _F32_EXACT for v in data if type(v) is int):
        return None
    try:
        buf = array.array(code, data)
    except (OverflowError, TypeError):
        return None   # the general path raises the error PyTorch gives
    t = _empty(shape, dt)
    ffi.memmove(dt.tensor.data(t._h), buf, len(buf) * buf.itemsize)
    return t


def tensor(data: Any, dtype: _dt.dtype | None = None, requires_grad: bool = False) -> Tensor:
    """A new tensor holding a copy of data (a scalar, nested lists, an ndarray or a tensor).

    Python floats become the default float dtype, ints int64, bools bool; numpy scalars keep
    their dtype.
    """
    if type(data) is list:
        t = number_list(data, dtype)
        if t is not None:
            return t
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
    except OverflowError:
        raise _overflow(data, dt) from None
    src = from_numpy(arr)
    return src.to(dt, copy=True) if src.dtype is not dt else src.clone()


def _flat_ints(item: Any) -> list | None:
    """The leaves of nested lists / tuples as Python ints, or None when one is not an integer."""
    out: list = []
    stack = [item]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(reversed(x))
        elif isinstance(x, (bool, float, np.bool_, np.floating)):
            return None
        else:
            try:
                out.append(operator.index(x))
            except TypeError:
                return None
    return out


def _overflow(data: Any, dt: _dt.dtype) -> Exception:
    """The error for data holding a value dt cannot hold: PyTorch's ValueError for an integer
    outside int64 (it fails to unpack it), RuntimeError for a value outside dt's range."""
    if not dt.is_floating_point:
        leaves = _flat_ints(data if isinstance(data, (list, tuple)) else [data]) or []
        big = next((v for v in leaves if not -(2**63) <= v < 2**63), None)
        if big is not None:
            return ValueError(f"tensor(): Overflow when unpacking long long: value "
                              f"{_dt.short(big)} is out of range for int64")
    return RuntimeError(f"tensor(): value out of range: it cannot be converted to type "
                        f"{dt.name} without overflow")


# ---- from numpy, zero-copy ----

def _borrowable(a: np.ndarray, dt: _dt.dtype) -> np.ndarray:
    """a itself, or a copy where sharing a's memory would break a rule of the core.

    The rule is _numpy.borrow_refusal's (read-only, misaligned, or bool bytes other than 0 and
    1, as np.frombuffer of bytes, a read-only memmap or an odd byte offset give): such arrays
    are copied (bools normalised: non-zero is true), so the tensor no longer shares a's memory.
    """
    is_bool = dt is _dt.bool_
    if _numpy.borrow_refusal(a.ctypes.data, dt.itemsize, a.flags.writeable,
                             a.view(np.uint8) if is_bool else None) is None:
        return a
    return a.view(np.uint8) != 0 if is_bool else np.array(a, copy=True, order="C")


def from_numpy(a: np.ndarray) -> Tensor:
    """A tensor sharing a's memory (any non-negative strides); it keeps a alive.

    Read-only or misaligned arrays, and bool arrays holding bytes other than 0/1, are copied
    instead (see _borrowable): pyth never writes memory numpy forbids it to write.
    """
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
    a = _borrowable(a, dt)
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


def empty(*size: Any, dtype: _dt.dtype | None = None) -> Tensor:
    """Uninitialised tensor of the given sizes."""
    sizes, dt = _sizes_and_dtype(size, dtype, "empty")
    return _empty(sizes, dt)


def _filled(t: Tensor, value: Any) -> Tensor:
    """t (new) filled with value by the C fill itself: a factory's result is not an in-place
    write, so its version stays 0 (as PyTorch's); a tensor value takes the public fill_."""
    if isinstance(value, Tensor):
        return t.fill_(value)
    check(t.dtype.tensor.fill(t._h, t.dtype.to_c(value)))
    return t


def _zeroed(t: Tensor) -> Tensor:
    check(t.dtype.tensor.zero(t._h))
    return t


def zeros(*size: Any, dtype: _dt.dtype | None = None) -> Tensor:
    sizes, dt = _sizes_and_dtype(size, dtype, "zeros")
    return _zeroed(_empty(sizes, dt))


def ones(*size: Any, dtype: _dt.dtype | None = None) -> Tensor:
    sizes, dt = _sizes_and_dtype(size, dtype, "ones")
    return _filled(_empty(sizes, dt), 1)


def full(size: Sequence[int], fill_value: Any, dtype: _dt.dtype | None = None) -> Tensor:
    """A tensor of size filled with fill_value (dtype inferred from the value as tensor() does)."""
    dt = _dt.resolve(dtype) or _scalar_dtype(fill_value if _kind_of(fill_value) else 0.0)
    return _filled(_empty(parse_sizes((size,), "full"), dt), fill_value)


def empty_like(t: Tensor, dtype: _dt.dtype | None = None) -> Tensor:
    return _empty(t.size(), _dt.resolve(dtype) or t.dtype)


def zeros_like(t: Tensor, dtype: _dt.dtype | None = None) -> Tensor:
    return _zeroed(empty_like(t, dtype))


def ones_like(t: Tensor, dtype: _dt.dtype | None = None) -> Tensor:
    return _filled(empty_like(t, dtype), 1)


def full_like(t: Tensor, fill_value: Any, dtype: _dt.dtype | None = None) -> Tensor:
    return _filled(empty_like(t, dtype), fill_value)


# ---- ranges ----

def _from_values(values: np.ndarray, dt: _dt.dtype) -> Tensor:
    src = from_numpy(np.asarray(values))
    return src.to(dt, copy=True) if src.dtype is not dt else src.clone()


# PyTorch's rules for ranges, which pyth follows to the element:
# - arange's length is ceil((end - start) / step) in double, except for int64 results, where
#   start, end and step are truncated to integers first. Integer results take start and step
#   truncated (a step of 0.5 gives a constant run) and wrap on overflow. Floating results are
#   start + i * step in double (in float32 for float16/bfloat16), rounded once.
# - linspace and logspace first convert start and end to the result dtype, refusing values it
#   cannot hold (an integer bound may go down to -max for an unsigned type, and wraps), then
#   compute linspace in that dtype's own arithmetic (double for integers) from both ends
#   towards the middle, and logspace as base ** exponent in double.
# PyTorch's vectorised loops add the step in the dtype within a SIMD vector, so its floats can
# differ from these in the last place; integer results and lengths agree exactly.

def _no_bool(op: str, dt: _dt.dtype) -> None:
    if dt is _dt.bool_:
        raise NotImplementedError(f"{op}(): \"{op}_cpu\" not implemented for 'Bool'")


def _checked(value: Any, dt: _dt.dtype, op: str, overflow: bool = True) -> Any:
    """value converted to dt's domain as PyTorch's Scalar.to<T>() does (dtypes.checked)."""
    return _dt.checked(value, dt, op, overflow)


def _from_ints(values: np.ndarray, dt: _dt.dtype) -> Tensor:
    """int64 values wrapped into an integer dtype (two's complement, as a C cast)."""
    return _from_values(values.astype(dt.to_numpy()), dt)


def _float_to_int(values: np.ndarray, dt: _dt.dtype) -> Tensor:
    """Doubles truncated to an integer dtype as x86 converts them: values out of the range of
    the 32-bit (64-bit for int64) conversion become its minimum, then wrap."""
    bits = 64 if dt is _dt.int64 else 32
    bad = ~(np.abs(values) < 2.0 ** (bits - 1))
    ints = np.trunc(np.where(bad, 0.0, values)).astype(np.int64)
    ints[bad] = -(2 ** (bits - 1))
    return _from_ints(ints, dt)


def _range_checks(start: float, end: float, step: float, sign: bool = True) -> None:
    """step nonzero, bounds finite and (sign=True) on the side of start the step goes to."""
    if step == 0:
        raise RuntimeError("arange(): step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"arange(): unsupported range: {start} -> {end}")
    if sign and not ((step > 0 and end >= start) or (step < 0 and end <= start)):
        raise RuntimeError("arange(): upper bound and lower bound inconsistent with step sign")


def arange(start: Any, end: Any = None, step: Any = 1, dtype: _dt.dtype | None = None) -> Tensor:
    """Values start, start+step, ... below end; ceil((end-start)/step) elements, as PyTorch."""
    if end is None:
        start, end = 0, start
    kinds = {_kind_of(x) for x in (start, end, step)}
    if None in kinds:
        raise TypeError("arange(): start, end and step must be real numbers")
    for x in (start, end, step):  # RuntimeError (not OverflowError) for ints beyond a double
        _dt.float64.to_c(x)
    dt = _dt.resolve(dtype) or (_dt.get_default_dtype() if "f" in kinds else _dt.int64)
    _no_bool("arange", dt)
    if dt is _dt.int64:               # PyTorch computes int64 ranges in int64 throughout
        _range_checks(float(start), float(end), float(step), sign=False)
        xs, xe, xst = (_checked(v, dt, "arange") for v in (start, end, step))
        if xst == 0:
            raise ValueError(f"arange(): step must be nonzero (step {step} truncates to 0 for "
                             f"int64)")
        _range_checks(xs, xe, xst)
        n = (xe - xs + xst - (1 if xst > 0 else -1)) // xst
    else:
        _range_checks(float(start), float(end), float(step))
        n = int(math.ceil((float(end) - float(start)) / float(step)))
    if dt.is_floating_point:
        if dt in (_dt.float16, _dt.bfloat16):
            i = np.arange(n, dtype=np.float32)
            return _from_values(np.float32(step) * i + np.float32(start), dt)
        return _from_values(np.arange(n, dtype=np.float64) * float(step) + float(start), dt)
    xs, xst = (_checked(v, _dt.int64, "arange") for v in (start, step))
    return _from_ints(np.arange(n, dtype=np.int64) * np.int64(xst) + np.int64(xs), dt)


def _steps(steps: Any, op: str) -> int:
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)):
        raise TypeError(f"{op}(): argument 'steps' must be int, not {type(steps).__name__}")
    if steps < 0:
        raise RuntimeError(f"{op}(): number of steps must be non-negative")
    return as_count(steps, op, "steps")


def _symmetric(start: Any, end: Any, step: Any, steps: int, cast: Any) -> np.ndarray:
    """start + i*step for the first half, end - (steps-1-i)*step for the second (PyTorch's
    order, which makes both endpoints exact); cast turns the integer counts into the compute
    type."""
    i = np.arange(steps, dtype=np.int64)
    return np.where(i < steps // 2, start + step * cast(i), end - step * cast(steps - 1 - i))


def linspace(start: float, end: float, steps: int, dtype: _dt.dtype | None = None) -> Tensor:
    """steps values evenly spaced from start to end inclusive (symmetric, as PyTorch)."""
    steps = _steps(steps, "linspace")
    dt = _dt.resolve(dtype) or _dt.get_default_dtype()
    if steps == 0:
        return _empty((0,), dt)
    if steps == 1:
        return full((1,), _checked(start, dt, "linspace", overflow=False), dtype=dt)
    _no_bool("linspace", dt)
    s, e = _checked(start, dt, "linspace"), _checked(end, dt, "linspace")
    if not dt.is_floating_point:
        step = (float(e) - float(s)) / max(steps - 1, 1)
        values = _symmetric(float(s), float(e), step, steps, lambda i: i.astype(np.float64))
        return _from_ints(np.trunc(values).astype(np.int64), dt)
    ct = (dt.to_numpy() if dt is not _dt.bfloat16 else np.dtype(np.float32)).type  # compute type
    with np.errstate(all="ignore"):
        s, e = ct(s), ct(e)
        step = (e - s) / ct(max(steps - 1, 1))
        values = _symmetric(s, e, step, steps, lambda i: i.astype(ct))
    return _from_values(values.astype(ct), dt)


def logspace(start: float, end: float, steps: int, base: float = 10.0,
             dtype: _dt.dtype | None = None) -> Tensor:
    """base ** linspace(start, end, steps)."""
    steps = _steps(steps, "logspace")
    dt = _dt.resolve(dtype) or _dt.get_default_dtype()
    if steps == 0:
        return _empty((0,), dt)
    if steps == 1:
        with np.errstate(all="ignore"):
            value = float(np.power(float(base), float(start)))
        return full((1,), _checked(value, dt, "logspace", overflow=False), dtype=dt)
    _no_bool("logspace", dt)
    s, e = _checked(start, dt, "logspace"), _checked(end, dt, "logspace")
    if dt.is_floating_point:
        s, e = (float(_from_values(np.array([v]), dt).item()) for v in (s, e))
        span = float(_from_values(np.array([e - s]), dt).item())
    else:
        span, base = float(e - s), float(np.float32(base))
    with np.errstate(all="ignore"):
        exps = _symmetric(float(s), float(e), span / max(steps - 1, 1), steps,
                          lambda i: i.astype(np.float64))
        values = np.power(float(base), exps)
    if dt.is_floating_point:
        return _from_values(values, dt)
    return _float_to_int(values, dt)


def eye(n: int, m: int | None = None, dtype: _dt.dtype | None = None) -> Tensor:
    """An n x m matrix with ones on the diagonal."""
    m = n if m is None else m
    out = zeros(n, m, dtype=dtype)
    _filled(out.diagonal(), 1)
    return out


def _from_data(data: Any, dt: _dt.dtype) -> Tensor:
    """data as a new tensor of dtype dt (legacy constructors, copy_ from data, Storage(data))."""
    return tensor(data, dtype=dt)


METHODS: dict[str, Any] = {"_from_data": staticmethod(_from_data)}
