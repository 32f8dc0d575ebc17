"""Type promotion, as torch.result_type computes it.

Operands fall in three groups: tensors with dims, 0-dim tensors, and Python scalars. Within a
group types promote normally; a later group only matters when it is of a higher category
(bool < integer < floating). So `int8_tensor + 1000` stays int8, `int_tensor + 2.5` becomes the
default float dtype, and `float32_tensor + float64_scalar_tensor` stays float32.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from . import dtypes as _dt

_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2}


def category(d: _dt.dtype) -> int:
    """0 for bool, 1 for integers, 2 for floating types."""
    return _CATEGORY[d.kind]


def promote_types(a: _dt.dtype | None, b: _dt.dtype | None) -> _dt.dtype | None:
    """The smallest dtype both a and b convert to without losing category or range."""
    if a is None or a is b:
        return b
    if b is None:
        return a
    if a.kind == "b":
        return b
    if b.kind == "b":
        return a
    if a.is_floating_point and b.is_floating_point:
        if {a, b} == {_dt.float16, _dt.bfloat16}:
            return _dt.float32
        return a if a.itemsize >= b.itemsize else b
    if a.is_floating_point or b.is_floating_point:
        return a if a.is_floating_point else b
    if a.kind == b.kind:
        return a if a.itemsize >= b.itemsize else b
    unsigned, signed = (a, b) if a.kind == "u" else (b, a)
    return signed if signed.itemsize > unsigned.itemsize else _dt.int16


def scalar_dtype(x: Any) -> _dt.dtype:
    """The dtype a Python (or numpy) scalar takes part in promotion as."""
    if isinstance(x, (bool, np.bool_)):
        return _dt.bool_
    if isinstance(x, numbers.Integral):
        return _dt.int64
    if isinstance(x, numbers.Real):
        return _dt.get_default_dtype()
    raise TypeError(f"unsupported operand type: {type(x).__name__}")


def _combine(higher: _dt.dtype | None, lower: _dt.dtype | None) -> _dt.dtype | None:
    if higher is None:
        return lower
    if lower is None or higher.is_floating_point:
        return higher
    if higher.kind == "b" or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher


def result_type(*operands: Any) -> _dt.dtype:
    """The dtype an op on these tensors and scalars computes in (torch.result_type)."""
    dims = zero = scalars = None
    for x in operands:
        if isinstance(x, Tensor):
            if x._h.nDimension:
                dims = promote_types(dims, x.dtype)
            else:
                zero = promote_types(zero, x.dtype)
        elif x is not None:
            scalars = promote_types(scalars, scalar_dtype(x))
    out = _combine(dims, _combine(zero, scalars))
    if out is None:
        raise TypeError("result_type(): needs at least one tensor or scalar")
    return out


def can_cast(src: _dt.dtype, dst: _dt.dtype) -> bool:
    """Whether a result of dtype src may be stored into dst (no drop in category)."""
    return category(src) <= category(dst)


# ---- names the functions above use, imported last so that import cycles resolve -------------
from .tensor import Tensor  # noqa: E402
