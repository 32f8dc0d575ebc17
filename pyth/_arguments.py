"""Integer arguments as PyTorch's argument parser reads them (dims, positions, int64 parameters,
counts): the types it refuses and the errors it gives before a value reaches C."""

from __future__ import annotations

import operator
from typing import Any

from . import dtypes as _dt

_INT_MAX = 2**31 - 1
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def bool_arg_error(op: str, name: str) -> TypeError:
    """PyTorch's argument parser takes no bool where an int is asked for (True is not dim 1)."""
    where = f"{op}(): " if op else ""
    return TypeError(f"{where}argument '{name}' must be int, not bool")


def as_dim(d: Any, op: str = "", name: str = "dim") -> int:
    """A dim argument as a C int: TypeError for non-integers and bools, IndexError when
    absurdly large."""
    if d.__class__ is bool:
        raise bool_arg_error(op, name)
    d = operator.index(d)
    if not -_INT_MAX <= d <= _INT_MAX:
        raise IndexError(f"dim {d} is out of range")
    return d


def as_index(v: Any, op: str, name: str = "index") -> int:
    """A position argument (index, start, offset) as a C int64: TypeError for non-integers,
    IndexError outside int64 (cffi would raise OverflowError)."""
    if v.__class__ is bool:
        raise bool_arg_error(op, name)
    v = operator.index(v)
    if not _INT64_MIN <= v <= _INT64_MAX:
        raise IndexError(f"{op}(): {name} {_dt.short(v)} is out of range (outside int64)")
    return v


def as_int64(v: Any, op: str, name: str, pos: int | None = None) -> int:
    """An integer argument PyTorch parses as int64 (kernel sizes, strides, paddings,
    ignore_index, ...): TypeError for non-integers, ValueError outside int64 with PyTorch's
    words (cffi would raise OverflowError), or for element `pos` (from 1) of a tuple argument
    PyTorch's TypeError naming that position; op "" leaves the op's name out of the message."""
    v = operator.index(v)
    if not _INT64_MIN <= v <= _INT64_MAX:
        if pos is not None:
            raise TypeError(f"{op}(): argument '{name}' failed to unpack the object at pos {pos} "
                            f"with error \"Overflow when unpacking long long\"")
        raise ValueError(f"{op + '(): ' if op else ''}{name}={_dt.short(v)} does not fit in "
                         f"int64 (Overflow when unpacking long long)")
    return v


def as_count(v: Any, op: str, name: str = "size") -> int:
    """A count argument (size, length, step, bins) as a C int64: TypeError for non-integers,
    MemoryError outside int64, as for sizes."""
    if v.__class__ is bool:
        raise bool_arg_error(op, name)
    v = operator.index(v)
    if not _INT64_MIN <= v <= _INT64_MAX:
        raise MemoryError(f"{op}(): {name} {_dt.short(v)} does not fit in int64")
    return v
