"""More creation functions: as_strided, empty_strided, frombuffer, from_file, from_dlpack,
range (PyTorch's deprecated inclusive arange), and the strided layout object."""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch
from .. import dtypes as _dt
from .._prims.creation import arange, empty, from_numpy
from ..storage import Storage
from ..tensor import Tensor


class layout:
    """A memory layout; pyth has one, pyth.strided."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"pyth.{self.name}"

    def __reduce__(self):
        return (_layout, (self.name,))


def _layout(name: str) -> layout:
    return strided if name == "strided" else layout(name)


strided = layout("strided")


def as_strided(input: Tensor, size: Sequence[int], stride: Sequence[int],
               storage_offset: int | None = None) -> Tensor:
    """A view of input's storage with the given sizes, strides and offset."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(as_strided, locals())
    return input.as_strided(size, stride, storage_offset)


def _keywords(op: str, device: Any, layout: Any = None, pin_memory: bool = False) -> None:
    """PyTorch's factory keywords, checked: the CPU, a strided layout, no pinned memory."""
    from .creation import _check_keywords
    _check_keywords(op, {"device": device, "layout": layout, "pin_memory": pin_memory})


def _requiring_grad(t: Tensor, requires_grad: bool) -> Tensor:
    return t.requires_grad_(True) if requires_grad else t


def empty_strided(size: Sequence[int], stride: Sequence[int], *, dtype: Any = None,
                  layout: Any = None, device: Any = None, requires_grad: bool = False,
                  pin_memory: bool = False) -> Tensor:
    """An uninitialised tensor with the given sizes and strides (storage just large enough)."""
    _keywords("empty_strided", device, layout, pin_memory)
    dt = _dt.resolve(dtype) or _dt.get_default_dtype()
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    span = 1 + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0
    base = empty(span, dtype=dt)
    return _requiring_grad(base.as_strided(tuple(size), tuple(stride), 0), requires_grad)


def frombuffer(buffer: Any, *, dtype: Any, count: int = -1, offset: int = 0,
               requires_grad: bool = False) -> Tensor:
    """A 1-D tensor sharing the memory of an object with the buffer protocol."""
    dt = _dt.resolve(dtype)
    if dt is None:
        raise TypeError("frombuffer(): missing required argument 'dtype'")
    if dt is _dt.bfloat16:  # numpy has no bfloat16: a copy from the raw patterns
        return _bf16_from_bits(np.frombuffer(buffer, dtype=np.uint16, count=count,
                                             offset=offset))
    arr = np.frombuffer(buffer, dtype=dt.to_numpy(), count=count, offset=offset)
    if arr.size == 0:
        raise ValueError("both buffer length (0) and count (-1) must not be 0")
    # a read-only buffer (bytes) cannot be shared writable: pyth copies it
    return from_numpy(arr) if arr.flags.writeable else from_numpy(arr.copy())


def _bf16_from_bits(raw: np.ndarray) -> Tensor:
    """bfloat16 tensor from raw 16-bit patterns (a copy: numpy has no bfloat16)."""
    f32 = (raw.astype(np.uint32) << 16).view(np.float32)
    return from_numpy(f32).to(_dt.bfloat16)


def from_file(filename: str, shared: bool | None = None, size: int = 0, *, dtype: Any = None,
              layout: Any = None, device: Any = None, pin_memory: bool = False) -> Tensor:
    """A 1-D tensor of size elements memory-mapped from a file (shared: writes reach it)."""
    _keywords("from_file", device, layout, pin_memory)
    dt = _dt.resolve(dtype) or _dt.get_default_dtype()
    storage = dt.storage_class.from_file(filename, shared=bool(shared), size=size)
    return dt.tensor_class(storage)


def from_dlpack(ext_tensor: Any) -> Tensor:
    """A tensor sharing the memory of an object with __dlpack__ (numpy arrays, PyTorch
    tensors, ...)."""
    if isinstance(ext_tensor, Tensor):
        return ext_tensor
    return from_numpy(np.from_dlpack(ext_tensor))


def range(start: float, end: float, step: float = 1, *, out: Tensor | None = None,  # noqa: A001
          dtype: Any = None, layout: Any = None, device: Any = None,
          requires_grad: bool = False) -> Tensor:
    """start, start + step, ... up to end inclusive (deprecated in PyTorch: use arange)."""
    from .creation import _store_out
    _keywords("range", device, layout)
    if out is not None and dtype is None and isinstance(out, Tensor):
        dtype = out.dtype
    if step == 0:
        raise RuntimeError("step must be nonzero")
    dt = _dt.resolve(dtype) or _dt.get_default_dtype()
    n = int(math.floor((end - start) / step)) + 1
    if n < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    r = _store_out("range", arange(n, dtype=_dt.float64).mul(step).add(start).to(dt), out)
    return _requiring_grad(r, requires_grad)


def is_storage(obj: Any) -> bool:
    """True for pyth storages."""
    return isinstance(obj, Storage)


def _layout_property(self: Tensor) -> layout:
    return strided


FUNCTIONS: dict[str, Callable] = {
    "as_strided": as_strided, "empty_strided": empty_strided, "frombuffer": frombuffer,
    "from_file": from_file, "from_dlpack": from_dlpack, "range": range,
    "is_storage": is_storage, "strided": strided, "layout": layout,
}

METHODS: dict[str, Any] = {"layout": property(_layout_property)}
