"""Storage: a flat, refcounted, typed buffer (TH's THStorage), one class per element type.

Each Python Storage owns one C reference. For a given C storage there is at most one live
Python wrapper (a weak cache by address), so tensors sharing memory share one Storage object:
that is what lets pickle and deepcopy keep the sharing.
"""

from __future__ import annotations

import operator
import os
import weakref
from typing import Any, Iterable

import numpy as np

from . import dtypes as _dt
from ._arguments import as_count
from ._errors import check, check_ptr
from ._th import ffi, lib

_wrappers: "weakref.WeakValueDictionary[int, Storage]" = weakref.WeakValueDictionary()


def _address(ptr) -> int:
    return int(ffi.cast("uintptr_t", ptr))


def wrap_storage(dt: _dt.dtype, ptr, owned: bool) -> "Storage":
    """The Python Storage for C storage ptr; owned=True hands over the caller's reference."""
    key = _address(ptr)
    s = _wrappers.get(key)
    if s is not None:
        if owned:
            dt.storage.free(ptr)
        return s
    if not owned:
        dt.storage.retain(ptr)
    s = object.__new__(dt.storage_class)
    s._h = ffi.gc(ptr, dt.storage.free)
    _wrappers[key] = s
    return s


def storage_bytes(s: "Storage") -> memoryview:
    """The bytes of a storage, without copying: sized by its C element type, which no Python
    attribute can change."""
    n = s._h.size * ffi.sizeof(ffi.typeof(s._h.data).item)
    if n == 0:
        return memoryview(b"")
    return memoryview(ffi.buffer(s._h.data, n))


def new_storage(dt: _dt.dtype, n: int) -> "Storage":
    """A new storage of n elements of dt (uninitialised)."""
    return wrap_storage(dt, check_ptr(dt.storage.newWithSize(n)), True)


class Storage:
    """A flat buffer of one element type; tensors are views on it."""

    __slots__ = ("_h", "__weakref__")
    dtype: _dt.dtype = None
    # Bound by pyth/_bind.py from the layers above (this module does not import them): data ->
    # a new tensor of a dtype (pyth/_prims/creation.py), and a 1-D tensor viewing all of a
    # storage (pyth/tensor.py).
    _from_data: Any
    _as_tensor: Any

    def __new__(cls, data: int | Iterable[Any] = 0) -> "Storage":
        dt = cls.dtype or _dt.get_default_dtype()
        if isinstance(data, (int, np.integer)) and not isinstance(data, bool):
            n = as_count(data, "Storage")
            return wrap_storage(dt, check_ptr(dt.storage.newWithSize(n)), True)
        values = cls._from_data(list(data), dt).reshape(-1)
        s = wrap_storage(dt, check_ptr(dt.storage.newWithSize(values.numel())), True)
        s._as_tensor().copy_(values)
        return s

    # ---- construction from files and shared memory ----
    @classmethod
    def from_file(cls, filename: str, shared: bool = False, size: int = 0) -> "Storage":
        """Map a file (TH's THMapAllocator): shared=True writes reach the file, else stay private.

        size is in elements; 0 means the whole file. A shared mapping creates or extends the file.
        """
        dt = cls.dtype
        flags = lib.TH_ALLOCATOR_MAPPED_SHARED if shared else 0
        path = os.fsencode(filename)
        if b"\0" in path:  # C would see a shorter, different name
            raise ValueError("from_file(): embedded null byte in the file name")
        ptr = check_ptr(dt.storage.newWithMapping(path, operator.index(size), flags))
        dt.storage.normalize(ptr)  # bool bytes other than 0/1 become 1 (non-zero is true)
        return wrap_storage(dt, ptr, True)

    def share_memory_(self) -> "Storage":
        """Move the data into POSIX shared memory, in place (views follow)."""
        check(self.dtype.storage.shareMemory(self._h))
        return self

    def is_shared(self) -> bool:
        """Whether the memory is shared with other processes (shared memory or a shared mapping)."""
        name = self.allocator_name()
        if name == "shared":
            return True
        if name == "mapped":
            ctx = ffi.cast("THMapAllocatorContext *", self._h.allocatorContext)
            return bool(ctx.flags & lib.TH_ALLOCATOR_MAPPED_SHARED)
        return False

    def allocator_name(self) -> str:
        """Which allocator the memory came from: default, mapped, shared, numpy, borrowed."""
        return ffi.string(self._h.allocator.name).decode()

    # ---- geometry and access ----
    def size(self) -> int:
        return self._h.size

    def __len__(self) -> int:
        return self._h.size

    def nbytes(self) -> int:
        return self._h.size * self.dtype.itemsize

    def element_size(self) -> int:
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        return _address(self._h.data)

    def _index(self, i: Any) -> int:
        n = self._h.size
        i = operator.index(i)
        if not -n <= i < n:
            raise IndexError(f"storage index {i} is out of range for size {n}")
        return i + n if i < 0 else i

    def __getitem__(self, i: Any) -> Any:
        dt = self.dtype
        out = ffi.new(dt.ctype + " *")
        check(dt.storage.get(out, self._h, self._index(i)))
        return dt.from_c(out[0])

    def __setitem__(self, i: Any, value: Any) -> None:
        check(self.dtype.storage.set(self._h, self._index(i), self.dtype.to_c(value)))

    def __iter__(self):
        return iter(self.tolist())

    def tolist(self) -> list:
        return self._as_tensor().tolist()

    def fill_(self, value: Any) -> "Storage":
        self.dtype.storage.fill(self._h, self.dtype.to_c(value))
        return self

    def copy_(self, src: "Storage") -> "Storage":
        """Copy every element of a storage of the same size and any type, converting."""
        if not isinstance(src, Storage):
            raise TypeError(f"copy_(): expected a Storage, got {type(src).__name__}")
        check(getattr(self.dtype.storage, "copy" + src.dtype.real)(self._h, src._h))
        return self

    def resize_(self, size: int) -> "Storage":
        """Grow or shrink to size elements, keeping the prefix."""
        check(self.dtype.storage.resize(self._h, as_count(size, "resize_")))
        return self

    def type(self, t: Any = None) -> Any:
        if t is None:
            return f"pyth.{type(self).__name__}"
        target = t.dtype if isinstance(t, type) and issubclass(t, Storage) else t
        if not isinstance(target, _dt.dtype):
            raise TypeError(f"type(): expected a Storage class or a dtype, got {t!r}")
        return self._convert(target)

    def _convert(self, dt: _dt.dtype) -> "Storage":
        out = wrap_storage(dt, check_ptr(dt.storage.newWithSize(self._h.size)), True)
        return out.copy_(self)

    def __reduce__(self):
        data = self._as_tensor().clone()
        raw = bytes(ffi.buffer(data._h.storage.data, self.nbytes())) if self.nbytes() else b""
        return (_rebuild_storage, (self.dtype.name, raw))

    def __repr__(self) -> str:
        body = "\n".join(f" {v}" for v in self.tolist())
        footer = f"[pyth.{type(self).__name__} of size {len(self)}]"
        return f"{body}\n{footer}" if body else footer


def _rebuild_storage(dtype_name: str, raw: bytes) -> Storage:
    """A storage of dtype_name holding raw's elements (the pickle path): every argument checked,
    bool bytes normalised to 0/1 (non-zero is true)."""
    dt = _dt._dtype_by_name(dtype_name)
    if not isinstance(raw, (bytes, bytearray)):
        raise TypeError(f"_rebuild_storage(): raw data must be bytes, not {type(raw).__name__}")
    n, rest = divmod(len(raw), dt.itemsize)
    if rest:
        raise ValueError(f"_rebuild_storage(): {len(raw)} bytes are not a whole number of "
                         f"{dt.name} elements of {dt.itemsize} bytes")
    if dt is _dt.bool_:
        raw = np.frombuffer(raw, dtype=np.uint8).astype(bool).tobytes()
    s = wrap_storage(dt, check_ptr(dt.storage.newWithSize(n)), True)
    if n:
        ffi.memmove(s._h.data, raw, len(raw))
    return s


globals().update(_dt.stamp_classes(Storage, "Storage", Storage._convert,
                                   "A copy converted to pyth.{name}."))
