"""ReduceOp and how each one runs over MPI for each kind of dtype.

Integers and floats reduce with MPI's own operations; bool with MPI's logical ones (SUM and MAX
are "or", PRODUCT and MIN "and", as a sum of bools is nonzero exactly when one is true). MPI has
no 16-bit float type: float16 and bfloat16 travel as raw 16-bit words and a user-defined MPI
operation reduces them with pyth's own kernels. AVG is a SUM divided by the world size after.
"""

from __future__ import annotations

import enum
from typing import Any, Callable

import numpy as np

from .. import dtypes as _dt
from ._mpi import mpi


class ReduceOp(enum.Enum):
    """The reductions of all_reduce, reduce and reduce_scatter (torch.distributed.ReduceOp)."""

    SUM = "sum"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"
    BAND = "band"
    BOR = "bor"
    BXOR = "bxor"
    AVG = "avg"

    def __repr__(self) -> str:
        return f"<ReduceOp.{self.name}>"


RAW16 = (_dt.float16, _dt.bfloat16)

_NATIVE = {ReduceOp.SUM: "SUM", ReduceOp.AVG: "SUM", ReduceOp.PRODUCT: "PROD",
           ReduceOp.MIN: "MIN", ReduceOp.MAX: "MAX", ReduceOp.BAND: "BAND",
           ReduceOp.BOR: "BOR", ReduceOp.BXOR: "BXOR"}
_BOOL = {ReduceOp.SUM: "LOR", ReduceOp.MAX: "LOR", ReduceOp.BOR: "LOR",
         ReduceOp.PRODUCT: "LAND", ReduceOp.MIN: "LAND", ReduceOp.BAND: "LAND",
         ReduceOp.BXOR: "LXOR"}
_BITWISE = (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR)

# pyth's kernels for the 16-bit floats: b <- a op b
_PYTH: dict[ReduceOp, Callable[[Any, Any], Any]] = {
    ReduceOp.SUM: lambda a, b: b.add_(a),
    ReduceOp.AVG: lambda a, b: b.add_(a),
    ReduceOp.PRODUCT: lambda a, b: b.mul_(a),
    ReduceOp.MIN: lambda a, b: b.copy_(_minimum(a, b)),
    ReduceOp.MAX: lambda a, b: b.copy_(_maximum(a, b)),
}
_user_ops: dict = {}


def _minimum(a: Any, b: Any) -> Any:
    from ..autograd.recorded import minimum
    return minimum(a, b)


def _maximum(a: Any, b: Any) -> Any:
    from ..autograd.recorded import maximum
    return maximum(a, b)


def check_op(op: Any, dtype: _dt.dtype, name: str) -> str | None:
    """Why op cannot reduce dtype (a message), or None when it can."""
    if not isinstance(op, ReduceOp):
        return f"{name}: op must be a pyth.distributed.ReduceOp, got {op!r}"
    if dtype is _dt.bool_:
        return f"{name}: ReduceOp.AVG is not defined for bool tensors" if op is ReduceOp.AVG \
            else None
    if op in _BITWISE and dtype.is_floating_point:
        return f"{name}: ReduceOp.{op.name} needs an integer or bool tensor, got {dtype.name}"
    return None


def mpi_op(op: ReduceOp, dtype: _dt.dtype) -> Any:
    """The MPI operation that performs op on dtype's elements (check_op first)."""
    MPI = mpi()
    if dtype in RAW16:
        key = (op, dtype)
        if key not in _user_ops:
            _user_ops[key] = MPI.Op.Create(_raw16_reducer(_PYTH[op], dtype), commute=True)
        return _user_ops[key]
    table = _BOOL if dtype is _dt.bool_ else _NATIVE
    return getattr(MPI, table[op])


def _raw16_reducer(fn: Callable[[Any, Any], Any], dtype: _dt.dtype) -> Callable:
    """An MPI user function reducing raw 16-bit words as dtype with pyth's kernels."""
    from .._numpy import export
    from .._prims.creation import empty

    def reduce(inbuf: Any, inoutbuf: Any, datatype: Any) -> None:
        src = np.frombuffer(inbuf, np.uint16)
        dst = np.frombuffer(inoutbuf, np.uint16)
        a, b = empty(src.size, dtype=dtype), empty(src.size, dtype=dtype)
        export(a, np.uint16)[...] = src
        export(b, np.uint16)[...] = dst
        fn(a, b)
        memoryview(inoutbuf).cast("B")[:] = export(b, np.uint16).view(np.uint8)
    return reduce
