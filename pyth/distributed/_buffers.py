"""Tensor memory as MPI buffers.

A contiguous tensor is handed to MPI as a numpy view of its own memory (an export of its
storage, so the memory cannot move while MPI works on it): no copy. A non-contiguous tensor is
staged through a contiguous copy, and for outputs the result is copied back when the operation
completes. Each dtype travels as the MPI type of the same layout; float16 and bfloat16 as raw
16-bit words (MPI has no such floats; pyth reduces them, see reduce_op.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes as _dt
from .._numpy import export
from ..autograd import no_grad
from .._prims.creation import empty
from ._mpi import mpi
from .reduce_op import RAW16

_MPI_TYPE = {"uint8": "UINT8_T", "int8": "INT8_T", "int16": "INT16_T", "int32": "INT32_T",
             "int64": "INT64_T", "float32": "FLOAT", "float64": "DOUBLE", "bool": "C_BOOL",
             "float16": "UINT16_T", "bfloat16": "UINT16_T"}


def mpi_type(dtype: _dt.dtype) -> Any:
    """The MPI datatype carrying dtype's elements."""
    return getattr(mpi(), _MPI_TYPE[dtype.name])


def flat_array(t: Any) -> np.ndarray:
    """A 1-d numpy view of contiguous t's memory (raw uint16 for the 16-bit floats)."""
    return export(t, np.uint16 if t.dtype in RAW16 else None).reshape(-1)


class Buf:
    """tensor's memory for MPI: `spec` is the [array, datatype] pair mpi4py takes; `stage` the
    contiguous tensor behind it; finish() copies a staged output back into the tensor."""

    __slots__ = ("array", "spec", "stage", "target")

    def __init__(self, t: Any, write: bool = False) -> None:
        d = t.detach()
        self.stage = d if d.is_contiguous() else d.contiguous()
        self.target = d if write and self.stage is not d and d.numel() else None
        self.array = flat_array(self.stage)
        self.spec = [self.array, mpi_type(t.dtype)]

    def finish(self) -> None:
        if self.target is not None:
            with no_grad():
                self.target.copy_(self.stage)


class ListBuf:
    """A list of same-shaped tensors as one contiguous MPI buffer (rank i's part at i): the
    inputs are copied in, the outputs copied out by finish()."""

    __slots__ = ("array", "outputs", "spec", "stage")

    def __init__(self, tensors: Sequence[Any], write: bool) -> None:
        first = tensors[0]
        self.stage = empty((len(tensors),) + tuple(first.shape), dtype=first.dtype)
        if not write:
            with no_grad():
                for i, t in enumerate(tensors):
                    self.stage[i].copy_(t.detach())
        self.outputs = list(tensors) if write else []
        self.array = flat_array(self.stage)
        self.spec = [self.array, mpi_type(first.dtype)]

    def finish(self) -> None:
        with no_grad():
            for i, t in enumerate(self.outputs):
                t.detach().copy_(self.stage[i])
