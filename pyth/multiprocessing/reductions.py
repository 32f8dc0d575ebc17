"""Pickling tensors and storages between processes through shared memory.

A storage is reduced to (dtype, element count, a way to reach its memory): the descriptor of
its shared-memory object (multiprocessing's DupFd, sent over the process-spawning pipe or
multiprocessing's resource sharer) or, under the "file_system" strategy, a /proc path that
names that descriptor. The receiver maps the same memory with the "shared" allocator; a
storage received twice in one process is one storage (cached by the memory's inode).
A tensor is reduced to its storage plus offset, sizes, strides and requires_grad.
"""

from __future__ import annotations

import os
import weakref
from multiprocessing.reduction import DupFd, ForkingPickler
from typing import Any

from .. import dtypes as _dt
from .._errors import check_ptr
from .._th import ffi, lib
from ..storage import Storage, wrap_storage
from ..tensor import Tensor
from . import _receipts
from ._receipts import _shared_fd

# inode of the shared memory -> the storage mapping it in this process
_received: weakref.WeakValueDictionary[tuple, Storage] = weakref.WeakValueDictionary()

_FLAGS = (lib.TH_ALLOCATOR_MAPPED_SHARED | lib.TH_ALLOCATOR_MAPPED_SHAREDMEM
          | lib.TH_ALLOCATOR_MAPPED_KEEPFD)


def _from_fd(dtype_name: str, size: int, fd: int) -> Storage:
    """A storage mapping the shared memory behind fd (which the caller still owns)."""
    dt = _dt._dtype_by_name(dtype_name)
    st = os.fstat(fd)
    key = (st.st_dev, st.st_ino, dt.name, size)
    s = _received.get(key)
    if s is not None:
        return s
    if st.st_size < size * dt.itemsize:
        raise RuntimeError(f"shared memory of {st.st_size} bytes is too small for {size} "
                           f"{dt.name} elements")
    ctx = check_ptr(lib.THMapAllocatorContext_newFromFd(fd, _FLAGS))
    ptr = dt.storage.newWithAllocator(size, ffi.addressof(lib, "THSharedMemAllocator"), ctx)
    s = wrap_storage(dt, check_ptr(ptr), True)
    _received[key] = s
    return s


def rebuild_storage_fd(dtype_name: str, size: int, dupfd: Any) -> Storage:
    fd = dupfd.detach()
    try:
        return _from_fd(dtype_name, size, fd)
    finally:
        os.close(fd)


def rebuild_storage_filename(dtype_name: str, size: int, path: str, book: str | None = None,
                             slot: int = -1) -> Storage:
    fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    try:
        s = _from_fd(dtype_name, size, fd)
    finally:
        os.close(fd)
    if book is not None:   # mapped: the sender may let go of its copy
        _receipts.sign(book, slot)
    return s


_STRATEGIES = ("file_descriptor", "file_system")
_strategy = "file_descriptor"


def set_sharing_strategy(new_strategy: str) -> None:
    """Choose how shared storages travel: "file_descriptor" or "file_system"."""
    global _strategy
    if new_strategy not in _STRATEGIES:
        raise ValueError(f"set_sharing_strategy(): unknown strategy {new_strategy!r}; "
                         f"expected one of {_STRATEGIES}")
    _strategy = new_strategy


def get_sharing_strategy() -> str:
    """The current sharing strategy."""
    return _strategy


def get_all_sharing_strategies() -> set:
    """The strategies this platform supports."""
    return set(_STRATEGIES)


def rebuild_storage_empty(dtype_name: str) -> Storage:
    return _dt._dtype_by_name(dtype_name).storage_class(0)


def reduce_storage(s: Storage) -> tuple:
    if len(s) == 0:  # nothing to share
        return (rebuild_storage_empty, (s.dtype.name,))
    fd = _shared_fd(s)
    if get_sharing_strategy() == "file_system":
        # the path is valid only while this process holds the memory: kept until the
        # receiver signs for it (see _receipts)
        b = _receipts.book()
        slot = b.hold(s)
        return (rebuild_storage_filename, (s.dtype.name, len(s), f"/proc/{os.getpid()}/fd/{fd}",
                                           b.path if slot >= 0 else None, slot))
    return (rebuild_storage_fd, (s.dtype.name, len(s), DupFd(fd)))


def rebuild_tensor(cls: type, storage: Storage, offset: int, size: tuple, stride: tuple,
                   requires_grad: bool) -> Tensor:
    from ..tensor import _rebuild_tensor
    t = _rebuild_tensor(storage, offset, size, stride)
    if cls is not type(t) and issubclass(cls, Tensor):  # Parameter
        t = cls(t, requires_grad=requires_grad)
    elif requires_grad:
        t.requires_grad_(True)
    return t


def reduce_tensor(t: Tensor) -> tuple:
    if t.requires_grad and not t.is_leaf:
        raise RuntimeError("Cowardly refusing to serialize non-leaf tensor which requires_grad, "
                           "since autograd does not support crossing process boundaries. "
                           "If you just want to transfer the data, call detach() on the tensor "
                           "before serializing (e.g., putting it on the queue).")
    return (rebuild_tensor, (type(t), t.storage(), t.storage_offset(), tuple(t.size()),
                             tuple(t.stride()), bool(t.requires_grad)))


def _reducer_override(self: Any, obj: Any) -> Any:
    if isinstance(obj, Tensor):
        return reduce_tensor(obj)
    if isinstance(obj, Storage):
        return reduce_storage(obj)
    return NotImplemented


def init_reductions() -> None:
    """Make multiprocessing's pickler (queues, pipes, process arguments) share tensors."""
    ForkingPickler.reducer_override = _reducer_override
