"""The numpy bridge: zero-copy views both ways, with lifetimes tied together.

A pyth tensor seen from numpy is an ndarray over the storage's memory whose `base` holds the
tensor, so the storage lives as long as the array. An ndarray seen from pyth is a storage whose
allocator is "numpy": it borrows the array's memory and keeps the array alive through a cffi
handle, released by the C core (through `pyth_release_owner`) when the storage dies.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._th import ffi, lib

# cffi handles of the ndarrays that borrowed storages keep alive, by handle address.
_borrowed: dict[int, Any] = {}


@ffi.def_extern()
def pyth_release_owner(owner) -> None:  # called by the C core, possibly from any thread
    _borrowed.pop(int(ffi.cast("uintptr_t", owner)), None)


def borrow_refusal(address: int, itemsize: int, writeable: bool,
                   bool_bytes: np.ndarray | None = None) -> str | None:
    """Why memory at address must be copied rather than borrowed by a storage, or None.

    The one rule for every import (from_numpy, from_dlpack): read-only memory would be written by
    in-place ops; memory not aligned to its element size would be read and written with
    misaligned typed accesses (undefined in C); bool bytes other than 0 and 1 (bool_bytes, the
    memory as uint8, given for bool data) are undefined as C's bool.
    """
    if not writeable:
        return "read-only"
    if address % itemsize:
        return "misaligned"
    if bool_bytes is not None and bool_bytes.size and (bool_bytes > 1).any():
        return "bool bytes other than 0 and 1"
    return None


def borrow_context(array: np.ndarray):
    """A THBorrowedContext that keeps `array` alive until the C core releases it."""
    handle = ffi.new_handle(array)
    key = int(ffi.cast("uintptr_t", handle))
    _borrowed[key] = handle
    ctx = lib.THBorrowedContext_new(handle, lib.pyth_release_owner)
    if ctx == ffi.NULL:
        del _borrowed[key]
        from ._errors import raise_error
        raise_error()
    return ctx


class _ArrayOwner:
    """Presents memory through __array_interface__ while holding whatever owns it."""

    __slots__ = ("__array_interface__", "owner")

    def __init__(self, owner: Any, interface: dict) -> None:
        self.owner = owner
        self.__array_interface__ = interface


def array_interface(ptr: int, shape: tuple, strides: tuple, typestr: str) -> dict:
    """The __array_interface__ dict for memory at ptr with byte strides."""
    return {"version": 3, "shape": tuple(shape), "typestr": typestr,
            "data": (ptr, False), "strides": tuple(strides)}


def array_view(owner: Any, ptr: int, shape: tuple, strides: tuple, np_dtype: np.dtype) -> np.ndarray:
    """An ndarray over memory at ptr that keeps `owner` alive (an empty array if no elements)."""
    if ptr == 0 or 0 in shape:
        return np.empty(shape, np_dtype)
    return np.asarray(_ArrayOwner(owner, array_interface(ptr, shape, strides, np_dtype.str)))


def export(t: Any, raw: np.dtype | None = None) -> np.ndarray:
    """t's elements as an ndarray that holds an export of t's storage (THTensor_(export)): the
    geometry is one snapshot, and the memory cannot move or be freed while the array lives.
    raw, a numpy dtype of t's item size, reads the same bits as that type (bfloat16 as uint16)."""
    dt = t.dtype
    npdt = dt.to_numpy() if raw is None else np.dtype(raw)
    if npdt.itemsize != dt.itemsize:
        raise ValueError(f"export(): {npdt} has {npdt.itemsize} bytes, {dt.name} {dt.itemsize}")
    view = ffi.new("THView *")
    ptr = dt.tensor.export(t._h, view)
    if ptr == ffi.NULL:
        from ._errors import raise_error
        raise_error()
    owner = ffi.gc(ptr, dt.storage.exportRelease)
    shape = tuple(ffi.unpack(view.size, view.ndim))
    # the stride of a dim of size 1 is never used (and may not fit numpy's C long): 0 there
    item = dt.itemsize
    strides = tuple(s * item if n > 1 else 0 for n, s in zip(shape, ffi.unpack(view.stride, view.ndim)))
    return array_view(owner, int(ffi.cast("uintptr_t", view.data)), shape, strides, npdt)
