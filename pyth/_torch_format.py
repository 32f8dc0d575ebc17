"""Reading checkpoints that torch.save wrote (the zip format of PyTorch >= 1.6), without PyTorch.

The zip holds <name>/data.pkl (a pickle whose storages are persistent ids naming zip members
<name>/data/<key>) and the raw storages. The pickle is read by pyth._restricted_pickle, which
admits only the globals of _ALLOWED (the tensor-rebuild functions, the storage types, dtypes,
Size, plain containers and numpy arrays of numbers, each numpy global only in a load with
weights_only=False or after add_safe_globals allowed it; anything else is refused by name before
it could be imported, so
loading never runs code) and changes no object but the containers it made in this load (so a
pickle cannot set state on pyth's dtypes or on this module's storage types). Each storage's
buffer is sized by the element size of its C type and checked against its zip member's length.
"""

from __future__ import annotations

import collections
import os
import struct
import zipfile
from typing import Any

import numpy as np
from numpy._core.multiarray import _reconstruct as _np_reconstruct, scalar as _np_scalar

from . import dtypes as _dt
from ._restricted_pickle import Pending, RestrictedUnpickler, UnpicklingError, require_globals
from ._size import Size
from .storage import new_storage as _new_storage, storage_bytes as _raw
from .storage import Storage
from .tensor import Tensor


def _bad(msg: str) -> RuntimeError:
    return RuntimeError(f"PyTorch checkpoint {msg}")


class _StorageType:
    """Stands for torch.<X>Storage in the pickle: which dtype the storage bytes hold.

    Immutable: one instance per name serves every load in the process."""

    __slots__ = ("dtype", "untyped")

    def __init__(self, dt: _dt.dtype, untyped: bool = False) -> None:
        object.__setattr__(self, "dtype", dt)
        object.__setattr__(self, "untyped", untyped)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"attribute {name!r} of a PyTorch storage type is not writable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"attribute {name!r} of a PyTorch storage type is not writable")

    def __repr__(self) -> str:
        return "torch.UntypedStorage" if self.untyped else f"torch storage of {self.dtype.name}"


_STORAGE_NAMES = {"ByteStorage": "uint8", "CharStorage": "int8", "ShortStorage": "int16",
                  "IntStorage": "int32", "LongStorage": "int64", "FloatStorage": "float32",
                  "DoubleStorage": "float64", "HalfStorage": "float16",
                  "BFloat16Storage": "bfloat16", "BoolStorage": "bool"}
_TORCH_DTYPES = {"uint8": "uint8", "int8": "int8", "int16": "int16", "short": "int16",
                 "int32": "int32", "int": "int32", "int64": "int64", "long": "int64",
                 "float32": "float32", "float": "float32", "float64": "float64",
                 "double": "float64", "float16": "float16", "half": "float16",
                 "bfloat16": "bfloat16", "bool": "bool"}


def _int(v: Any, what: str) -> int:
    if type(v) is not int:
        raise _bad(f"is corrupt: {what} is {type(v).__name__}, expected int")
    return v


def _rebuild_tensor_v2(storage: Any, offset: Any, size: Any, stride: Any,
                       requires_grad: Any = False, backward_hooks: Any = None,
                       metadata: Any = None) -> Tensor:
    from .tensor import _rebuild_tensor
    if not isinstance(storage, Storage):
        raise _bad(f"is corrupt: a tensor's storage is a {type(storage).__name__}")
    if not isinstance(size, tuple) or not isinstance(stride, tuple):
        raise _bad("is corrupt: a tensor's size or stride is not a tuple")
    try:
        t = _rebuild_tensor(storage, _int(offset, "an offset"), size, stride)
    except (TypeError, ValueError, IndexError, RuntimeError, MemoryError) as e:
        raise _bad(f"is corrupt: a tensor does not fit its storage: {e}") from None
    if requires_grad is True and t.dtype.is_floating_point:
        t.requires_grad_(True)
    return t


def _rebuild_parameter(data: Any, requires_grad: Any, backward_hooks: Any,
                       *state: Any) -> Any:
    from .nn.parameter import Parameter
    if not isinstance(data, Tensor):
        raise _bad(f"is corrupt: a parameter's data is a {type(data).__name__}")
    return Parameter(data.detach(), requires_grad=bool(requires_grad))


def _torch_size(*args: Any) -> Size:
    values = args[0] if len(args) == 1 else ()
    if not isinstance(values, (tuple, list)) or not all(type(v) is int for v in values):
        raise _bad("is corrupt: bad torch.Size")
    return Size(values)


def _device(*args: Any) -> str:
    if not args or not isinstance(args[0], str) or not args[0].startswith("cpu"):
        raise _bad(f"holds a tensor on device {args!r}; pyth only reads CPU checkpoints")
    return "cpu"


def _codecs_encode(text: Any, encoding: Any = "utf-8") -> bytes:  # bytes in protocol-2 pickles
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
        raise _bad("is corrupt: bad _codecs.encode call")
    return text.encode("latin1")


# ---- numpy arrays and scalars: numpy pickles them as _reconstruct / dtype calls, then BUILD ----

_NUMPY_KINDS = "biufc"   # bool, ints, floats, complex: their bytes are all there is


class _NumpyDtype(Pending):
    """numpy.dtype(spec, align, copy), then BUILD (version, byte order, ...): a dtype of
    numbers only."""

    __slots__ = ("dtype", "weights_only")

    def __init__(self, spec: Any, weights_only: bool) -> None:
        if not isinstance(spec, str):
            raise _bad(f"is corrupt: a numpy dtype named by {type(spec).__name__}")
        dt = np.dtype(spec)
        if dt.kind not in _NUMPY_KINDS:
            raise UnpicklingError(f"PyTorch checkpoint refused: a numpy array of dtype {dt}; "
                                  f"pyth reads numpy arrays of bool, integer, float and complex "
                                  f"types")
        self.dtype, self.weights_only = dt, weights_only

    def pickle_build(self, state: Any) -> None:
        if type(state) is not tuple or len(state) < 2 or state[1] not in ("<", ">", "|", "="):
            raise _bad(f"is corrupt: bad numpy dtype state {str(state)[:80]}")
        self.dtype = self.dtype.newbyteorder(state[1]) if state[1] != "|" else self.dtype
        if self.weights_only:
            require_globals((type(self.dtype),), built=True)


class _NumpyArray(Pending):
    """numpy._core.multiarray._reconstruct(ndarray, (0,), b'b'), then BUILD (version, shape,
    dtype, fortran order, bytes): the array, made once its state arrives."""

    __slots__ = ("array",)

    def __init__(self) -> None:
        self.array = None

    def pickle_build(self, state: Any) -> None:
        if type(state) is not tuple or len(state) != 5 or not isinstance(state[2], _NumpyDtype):
            raise _bad(f"is corrupt: bad numpy array state {str(state)[:80]}")
        _, shape, dt, fortran, raw = state
        if type(shape) is not tuple or any(type(n) is not int or n < 0 for n in shape) or \
                not isinstance(raw, (bytes, bytearray)) or type(fortran) is not bool:
            raise _bad(f"is corrupt: bad numpy array state {str(state)[:80]}")
        n = dt.dtype.itemsize
        for k in shape:
            n *= k
        if len(raw) != n:
            raise _bad(f"is corrupt: a numpy array of shape {list(shape)} and dtype "
                       f"{dt.dtype} needs {n} bytes, the pickle holds {len(raw)}")
        flat = np.frombuffer(bytes(raw), dt.dtype)
        self.array = flat.reshape(shape, order="F" if fortran else "C").copy()


def _numpy_globals(weights_only: bool) -> dict:
    """The numpy globals a reader admits, which a weights-only load checks against the
    allow-list when the pickle names them (as PyTorch's does)."""
    def checked(g: Any, fn: Any) -> Any:
        def named() -> Any:
            if weights_only:
                require_globals((g,))
            return fn
        return named

    def reconstruct(cls: Any, shape: Any, typecode: Any) -> _NumpyArray:
        if cls is not _NDARRAY:
            raise _bad("is corrupt: numpy _reconstruct of something other than ndarray")
        return _NumpyArray()

    def scalar(dt: Any, raw: Any = None) -> Any:
        if not isinstance(dt, _NumpyDtype) or not isinstance(raw, (bytes, bytearray)) or \
                len(raw) != dt.dtype.itemsize:
            raise _bad("is corrupt: bad numpy scalar")
        return np.frombuffer(bytes(raw), dt.dtype)[0].copy()

    out = {}
    for module in ("numpy._core.multiarray", "numpy.core.multiarray"):
        out[(module, "_reconstruct")] = checked(_np_reconstruct, reconstruct)
        out[(module, "scalar")] = checked(_np_scalar, scalar)
    out[("numpy", "ndarray")] = checked(np.ndarray, _NDARRAY)
    out[("numpy", "dtype")] = checked(np.dtype, lambda spec, align=False, copy=True: _NumpyDtype(
        spec, weights_only))
    return out


class _NdarrayType:
    """Stands for numpy.ndarray in the pickle (the class _reconstruct is given)."""

    __slots__ = ()


_NDARRAY = _NdarrayType()


def _empty_bytes(*args: Any) -> bytes:   # protocol 2 writes b"" as a call of bytes()
    if args:
        raise _bad("is corrupt: bytes() called with arguments")
    return b""


def _allowed() -> dict:
    table: dict = {
        ("collections", "OrderedDict"): collections.OrderedDict,
        ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor_v2,
        ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
        ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter,
        ("torch", "Size"): _torch_size,
        ("torch", "device"): _device,
        ("_codecs", "encode"): _codecs_encode,
        ("__builtin__", "bytes"): _empty_bytes,
        ("builtins", "bytes"): _empty_bytes,
        ("torch", "UntypedStorage"): _StorageType(_dt.uint8, untyped=True),
    }
    for name, dname in _STORAGE_NAMES.items():
        table[("torch", name)] = _StorageType(_dt._dtype_by_name(dname))
    for name, dname in _TORCH_DTYPES.items():
        table[("torch", name)] = _dt._dtype_by_name(dname)
    return table


_ALLOWED = _allowed()


class _Reader:
    """One data.pkl: globals from _ALLOWED, persistent ids read as storages of the archive."""

    def __init__(self, archive: zipfile.ZipFile, prefix: str, weights_only: bool = True) -> None:
        self._zip, self._prefix = archive, prefix
        self._storages: dict[str, Storage] = {}
        self._numpy = _numpy_globals(weights_only)

    def load(self, data: bytes) -> Any:
        return RestrictedUnpickler(data, self.find_class, self.persistent_load,
                                   "PyTorch checkpoint").load()

    def find_class(self, module: str, name: str) -> Any:
        obj = _ALLOWED.get((module, name))
        if obj is None and (module, name) in self._numpy:
            obj = self._numpy[(module, name)]()
        if obj is None:
            raise UnpicklingError(
                f"PyTorch checkpoint refused: the pickle names the global {module}.{name}, "
                f"which is not a tensor-rebuild function, storage type or plain container")
        return obj

    def persistent_load(self, pid: Any) -> Storage:
        if (type(pid) is not tuple or len(pid) != 5 or pid[0] != "storage"
                or not isinstance(pid[1], _StorageType) or not isinstance(pid[2], str)):
            raise _bad(f"is corrupt: bad persistent id {str(pid)[:80]}")
        _, stype, key, location, numel = pid
        if not isinstance(location, str) or not location.startswith("cpu"):
            raise _bad(f"holds storage {key} on {location!r}; pyth only reads CPU checkpoints")
        s = self._storages.get(key)
        if s is None:
            s = self._storages[key] = self._read_storage(stype.dtype, key, _int(numel, "numel"))
        elif s.dtype is not stype.dtype:
            raise _bad(f"is corrupt: storage {key} is read as {s.dtype.name} and as "
                       f"{stype.dtype.name}")
        return s

    def _read_storage(self, dt: _dt.dtype, key: str, numel: int) -> Storage:
        member = f"{self._prefix}/data/{key}"
        try:
            info = self._zip.getinfo(member)
        except KeyError:
            raise _bad(f"is corrupt: storage {key} ({member}) is missing") from None
        itemsize = dt.storage.elementSize()  # the C type's, not a Python attribute
        if info.file_size % itemsize:
            raise _bad(f"is corrupt: storage {key} has {info.file_size} bytes, not a whole "
                       f"number of {dt.name} elements")
        n = info.file_size // itemsize
        if numel < 0 or numel > n:  # untyped storages count bytes, typed ones elements
            raise _bad(f"is corrupt: storage {key} declares {numel} elements, the archive "
                       f"holds {n}")
        s = _new_storage(dt, n)
        dest, got = _raw(s), 0
        if len(dest) != info.file_size:
            raise _bad(f"is corrupt: storage {key} has {info.file_size} bytes, its buffer "
                       f"{len(dest)}")
        with self._zip.open(info) as f:
            while got < len(dest):
                k = f.readinto(dest[got:])
                if not k:
                    break
                got += k
        if got != info.file_size:
            raise _bad(f"truncated: storage {key} needs {info.file_size} bytes, read {got}")
        dt.storage.normalize(s._h)
        return s


def _retype(obj: Any, depth: int = 0) -> Any:
    """obj with each numpy array the pickle built in its place (untyped storages became typed
    by the tensor rebuild already)."""
    if depth > 1000:
        raise RecursionError
    t = type(obj)
    if t is _NumpyArray:
        if obj.array is None:
            raise _bad("is corrupt: a numpy array without its state")
        return obj.array
    if t is list:
        obj[:] = [_retype(v, depth + 1) for v in obj]
    elif t is dict or t is collections.OrderedDict:
        for k, v in obj.items():
            obj[k] = _retype(v, depth + 1)
    elif t is tuple:
        return tuple(_retype(v, depth + 1) for v in obj)
    return obj


def load_torch_zip(f: Any, weights_only: bool = True) -> Any:
    """The object stored by torch.save in f (a path or binary file object); weights_only: the
    numpy globals need the allow-list (see _numpy_globals)."""
    try:
        archive = zipfile.ZipFile(f if hasattr(f, "read") else os.fspath(f))
    except (zipfile.BadZipFile, OSError, ValueError, struct.error, EOFError) as e:
        raise _bad(f"is not a readable zip archive: {e}") from None
    with archive:
        pkl = [n for n in archive.namelist() if n.endswith("/data.pkl") and n.count("/") == 1]
        if len(pkl) != 1:
            raise _bad("is corrupt: expected exactly one <name>/data.pkl in the archive")
        prefix = pkl[0][:-len("/data.pkl")]
        try:
            order = archive.read(f"{prefix}/byteorder").decode().strip()
        except KeyError:
            order = "little"
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, UnicodeDecodeError) as e:
            raise _bad(f"is corrupt: {e}") from None
        if order != "little":
            raise _bad(f"was written on a {order}-endian machine; pyth reads little-endian ones")
        try:
            data = archive.read(pkl[0])
            return _retype(_Reader(archive, prefix, weights_only).load(data))
        except RuntimeError:
            raise
        except (EOFError, TypeError, ValueError, AttributeError,
                KeyError, IndexError, struct.error, zipfile.BadZipFile, OSError,
                UnicodeDecodeError, OverflowError) as e:
            raise _bad(f"is corrupt: {type(e).__name__}: {e}") from None
        except RecursionError:
            raise _bad("is corrupt: objects nested too deeply") from None
