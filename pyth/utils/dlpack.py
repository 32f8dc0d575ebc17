"""DLPack: zero-copy exchange of tensors with numpy, PyTorch and any other DLPack library.

Producing (`t.__dlpack__()`): the capsule holds an export of t's storage (THTensor_(export)),
so the memory cannot move or be freed until the consumer calls the deleter (or the capsule is
dropped unused). Consuming (`pyth.from_dlpack(obj)`): the storage borrows the producer's memory
and calls the producer's deleter when it dies. Both the versioned (1.x, "dltensor_versioned")
and the legacy ("dltensor") capsules are spoken. Memory that from_numpy would copy (read-only,
misaligned, bool bytes other than 0 and 1: _numpy.borrow_refusal, the one rule) is copied here
too, never borrowed.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np
from cffi import FFI

from .. import dtypes as _dt
from .._th import ffi as _thffi, lib
from ..storage import wrap_storage
from ..tensor import Tensor

dl = FFI()
dl.cdef("""
typedef struct { int32_t device_type; int32_t device_id; } DLDevice;
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataType;
typedef struct {
  void *data; DLDevice device; int32_t ndim; DLDataType dtype;
  int64_t *shape; int64_t *strides; uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
  DLTensor dl_tensor; void *manager_ctx; void (*deleter)(struct DLManagedTensor *);
} DLManagedTensor;
typedef struct { uint32_t major; uint32_t minor; } DLPackVersion;
typedef struct DLManagedTensorVersioned {
  DLPackVersion version; void *manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned *); uint64_t flags; DLTensor dl_tensor;
} DLManagedTensorVersioned;
""")

CPU = 1
VERSION = (1, 0)
FLAG_READ_ONLY = 1
FLAG_IS_COPIED = 2
_INT, _UINT, _FLOAT, _BFLOAT, _BOOL = 0, 1, 2, 4, 6
_CODES = {"i": _INT, "u": _UINT, "f": _FLOAT, "b": _BOOL}

# (code, bits) <-> pyth dtype
_TO_DL = {d: (_BFLOAT if d is _dt.bfloat16 else _CODES[d.kind], d.itemsize * 8)
          for d in _dt.ALL_DTYPES}
_FROM_DL = {v: d for d, v in _TO_DL.items()}

# ---- capsules through the C API (ctypes) -------------------------------------------------------
_api = ctypes.pythonapi
_Destructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _Destructor]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetName.restype = ctypes.c_char_p
_api.PyCapsule_GetName.argtypes = [ctypes.py_object]
_api.Py_IncRef.argtypes = [ctypes.py_object]
_raw_api = ctypes.PyDLL(None)  # the same functions, taking a bare PyObject* (in destructors)
_raw_api.PyCapsule_IsValid.restype = ctypes.c_int
_raw_api.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_raw_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_raw_api.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]

_NAMES = {False: (b"dltensor", b"used_dltensor"),
          True: (b"dltensor_versioned", b"used_dltensor_versioned")}


@_Destructor
def _capsule_destructor(capsule: int) -> None:
    """An unconsumed capsule dies: its producer's deleter runs (a consumed one is renamed)."""
    for versioned, (name, _) in _NAMES.items():
        if _raw_api.PyCapsule_IsValid(capsule, name):
            ptr = _raw_api.PyCapsule_GetPointer(capsule, name)
            kind = "DLManagedTensorVersioned *" if versioned else "DLManagedTensor *"
            m = dl.cast(kind, ptr)
            if m.deleter:
                m.deleter(m)
            return


# ---- producing ---------------------------------------------------------------------------------

_live: dict[int, tuple] = {}  # managed address -> (cdata kept alive, storage export to release)


def _release(addr: int) -> None:
    entry = _live.pop(addr, None)
    if entry is not None:
        dt, storage = entry[-2], entry[-1]
        dt.storage.exportRelease(storage)


@dl.callback("void(DLManagedTensor *)")
def _deleter(m) -> None:
    _release(int(dl.cast("uintptr_t", m)))


@dl.callback("void(DLManagedTensorVersioned *)")
def _deleter_versioned(m) -> None:
    _release(int(dl.cast("uintptr_t", m)))


# A consumer may call a deleter (or drop a capsule) at any time, even while the interpreter
# shuts down and clears this module: the C trampolines must never be freed.
for _fn in (_deleter, _deleter_versioned, _capsule_destructor):
    _api.Py_IncRef(ctypes.py_object(_fn))
del _fn


def _fill(t_dl, view, dt: _dt.dtype, shape, strides) -> None:
    t_dl.data = dl.cast("void *", int(_thffi.cast("uintptr_t", view.data)))
    t_dl.device.device_type = CPU
    t_dl.device.device_id = 0
    t_dl.ndim = view.ndim
    code, bits = _TO_DL[dt]
    t_dl.dtype.code, t_dl.dtype.bits, t_dl.dtype.lanes = code, bits, 1
    t_dl.shape = shape
    t_dl.strides = strides
    t_dl.byte_offset = 0


def to_dlpack(t: Tensor, versioned: bool = False, copied: bool = False) -> Any:
    """A DLPack capsule over t's memory (legacy "dltensor" unless versioned)."""
    if not isinstance(t, Tensor):
        raise TypeError(f"to_dlpack(): expected a pyth Tensor, got {type(t).__name__}")
    if t.requires_grad:
        raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")
    dt = t.dtype
    view = _thffi.new("THView *")
    storage = dt.tensor.export(t._h, view)
    if storage == _thffi.NULL:
        from .._errors import raise_error
        raise_error()
    n = view.ndim
    shape = dl.new("int64_t[]", list(_thffi.unpack(view.size, n)) or 1)
    strides = dl.new("int64_t[]", list(_thffi.unpack(view.stride, n)) or 1)
    if versioned:
        m = dl.new("DLManagedTensorVersioned *")
        m.version.major, m.version.minor = VERSION
        m.deleter = _deleter_versioned
        m.flags = FLAG_IS_COPIED if copied else 0
    else:
        m = dl.new("DLManagedTensor *")
        m.deleter = _deleter
    _fill(m.dl_tensor, view, dt, shape, strides)
    addr = int(dl.cast("uintptr_t", m))
    _live[addr] = (m, shape, strides, dt, storage)
    try:
        return _api.PyCapsule_New(addr, _NAMES[versioned][0], _capsule_destructor)
    except BaseException:
        _release(addr)
        raise


def __dlpack__(self: Tensor, *, stream: Any = None, max_version: Any = None,
               dl_device: Any = None, copy: Any = None) -> Any:
    """The DLPack capsule for this tensor (versioned when max_version allows 1.x)."""
    if stream is not None and stream != -1:
        raise BufferError("__dlpack__(): stream must be None for a CPU tensor")
    if dl_device is not None and tuple(dl_device) != (CPU, 0):
        raise BufferError(f"__dlpack__(): cannot export to device {tuple(dl_device)}; "
                          f"pyth tensors live on the CPU (1, 0)")
    versioned = max_version is not None and int(max_version[0]) >= 1
    src = self.detach().clone() if copy else self
    return to_dlpack(src, versioned=versioned, copied=bool(copy))


def __dlpack_device__(self: Tensor) -> tuple:
    """(device type, device id) as DLPack numbers them: (1, 0) is the CPU."""
    return (CPU, 0)


# Tensor's side of the protocol (pyth/_bind.py binds it)
METHODS: dict[str, Any] = {"__dlpack__": __dlpack__, "__dlpack_device__": __dlpack_device__}


# ---- consuming ---------------------------------------------------------------------------------

def _capsule_of(obj: Any) -> Any:
    if type(obj).__name__ == "PyCapsule":
        return obj
    if not hasattr(obj, "__dlpack__"):
        raise TypeError(f"from_dlpack(): {type(obj).__name__} supports neither __dlpack__ nor "
                        f"is a DLPack capsule")
    if hasattr(obj, "__dlpack_device__"):
        dev = tuple(obj.__dlpack_device__())
        if int(dev[0]) != CPU:
            raise BufferError(f"from_dlpack(): the tensor is on DLPack device {dev}; pyth only "
                              f"reads CPU (1) memory")
    try:
        return obj.__dlpack__(max_version=VERSION)
    except TypeError:  # a producer that predates the versioned protocol
        return obj.__dlpack__()


def from_dlpack(obj: Any) -> Tensor:
    """A tensor sharing the memory of a DLPack producer (an object with __dlpack__, or a
    capsule). The producer is kept alive until the tensor's storage dies; read-only, misaligned
    or non-0/1 bool data is copied (from_numpy's rule)."""
    capsule = _capsule_of(obj)
    for versioned, (name, used) in _NAMES.items():
        if _api.PyCapsule_IsValid(capsule, name):
            break
    else:
        name = _api.PyCapsule_GetName(capsule)
        raise ValueError(f"from_dlpack(): the capsule is named {name!r}; expected an unused "
                         f"'dltensor' or 'dltensor_versioned' capsule")
    ptr = _api.PyCapsule_GetPointer(capsule, name)
    kind = "DLManagedTensorVersioned *" if versioned else "DLManagedTensor *"
    m = dl.cast(kind, ptr)
    # the capsule is ours now: the deleter runs when the owner below is collected
    _api.PyCapsule_SetName(capsule, used)
    owner = dl.gc(m, lambda p: p.deleter(p) if p.deleter else None)
    read_only = False
    if versioned:
        if m.version.major != VERSION[0]:
            raise BufferError(f"from_dlpack(): DLPack version {m.version.major}."
                              f"{m.version.minor} is not supported (pyth speaks 1.x)")
        read_only = bool(m.flags & FLAG_READ_ONLY)
    return _tensor_over(m.dl_tensor, owner, read_only)


def _tensor_over(t_dl, owner: Any, read_only: bool) -> Tensor:
    if t_dl.device.device_type != CPU:
        raise BufferError(f"from_dlpack(): device type {t_dl.device.device_type} is not the "
                          f"CPU (1)")
    key = (t_dl.dtype.code, t_dl.dtype.bits)
    dt = _FROM_DL.get(key)
    if dt is None or t_dl.dtype.lanes != 1:
        raise BufferError(f"from_dlpack(): DLPack dtype (code {key[0]}, bits {key[1]}, lanes "
                          f"{t_dl.dtype.lanes}) has no pyth equivalent")
    ndim = t_dl.ndim
    if not 0 <= ndim <= 64:
        raise BufferError(f"from_dlpack(): bad number of dimensions {ndim}")
    shape = [t_dl.shape[i] for i in range(ndim)]
    if any(s < 0 for s in shape):
        raise BufferError(f"from_dlpack(): negative size in shape {shape}")
    if t_dl.strides == dl.NULL:
        strides, acc = [0] * ndim, 1
        for i in reversed(range(ndim)):
            strides[i] = acc
            acc *= max(shape[i], 1)
    else:
        strides = [t_dl.strides[i] for i in range(ndim)]
    numel = int(np.prod(shape, dtype=np.int64)) if shape else 1
    base = int(dl.cast("uintptr_t", t_dl.data)) + t_dl.byte_offset
    if numel == 0:
        return _empty(dt, shape)
    lo = sum(st * (n - 1) for st, n in zip(strides, shape) if st < 0)
    hi = sum(st * (n - 1) for st, n in zip(strides, shape) if st > 0)
    from .._numpy import borrow_context, borrow_refusal
    bools = _as_bytes_array(base, shape, strides, 1)[..., 0] if dt is _dt.bool_ else None
    if lo < 0 or borrow_refusal(base, dt.itemsize, not read_only, bools) is not None:
        return _copy(dt, base, shape, strides, owner)
    from .._errors import check_ptr
    from ..tensor import _rebuild_tensor
    ptr = dt.storage.newWithDataAndAllocator(_thffi.cast(dt.ctype + " *", base), hi + 1,
                                             _thffi.addressof(lib, "THBorrowedAllocator"),
                                             borrow_context(owner))
    storage = wrap_storage(dt, check_ptr(ptr), True)
    return _rebuild_tensor(storage, 0, tuple(shape), tuple(strides))


def _empty(dt: _dt.dtype, shape: list) -> Tensor:
    from .._prims.creation import empty
    return empty(*shape, dtype=dt) if shape else empty((), dtype=dt)


def _as_bytes_array(base: int, shape: list, strides: list, itemsize: int) -> np.ndarray:
    """The memory as a uint8-per-byte view of shape + (itemsize,), element strides in bytes."""
    from .._numpy import array_view
    return array_view(None, base, tuple(shape) + (itemsize,),
                      tuple(s * itemsize for s in strides) + (1,), np.dtype(np.uint8))


def _copy(dt: _dt.dtype, base: int, shape: list, strides: list, owner: Any) -> Tensor:
    """A fresh tensor with the producer's elements (read-only or negatively strided data)."""
    raw = np.ascontiguousarray(_as_bytes_array(base, shape, strides, dt.itemsize))
    del owner  # the producer may go now
    out = _empty(dt, shape)
    if raw.size:
        _thffi.memmove(out._h.storage.data + 0, _thffi.from_buffer(raw), raw.size)
    if dt is _dt.bool_:
        dt.storage.normalize(out._h.storage)
    return out
