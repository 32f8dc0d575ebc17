"""pyth.save / pyth.load: checkpoints that are read without executing code.

The file (version 1), all integers little-endian:

    0   magic  b"\\x89PYTH-CKPT\\r\\n\\x1a\\n\\0\\0"  (16 bytes; catches text-mode copies)
    16  u32    version (1)
    20  u64    offset of the structure (JSON, UTF-8)
    28  u64    length of the structure
    36  u32    CRC-32 of the structure
    40  u32    number of storages
    ...        zero padding to 64
    64  each storage's raw bytes, in order, each starting at a multiple of 64
    end the structure: {"storages": [[dtype, numel, offset, nbytes, crc32], ...], "root": node}

A node is a JSON list whose first item is a tag (see _Encoder); tensors name their storage by
index, so views saved together share one storage after loading. Nothing in the file names code:
a reader only needs a JSON parser and the dtype table. Every number read from the file is
checked against the file's size before it is used, and each storage's CRC-32 is verified.
Reading a file written by torch.save goes through pyth._torch_format instead.
"""

from __future__ import annotations

import base64
import collections
import io
import json
import mmap as _mmap
import os
import pickle
import struct
import sys
import tempfile
import zlib
from typing import Any, BinaryIO, Union

import numpy as np

from . import dtypes as _dt
from ._size import Size
from ._restricted_pickle import (add_safe_globals, clear_safe_globals,  # noqa: F401
                                 get_safe_globals, require_globals, safe_globals)
from ._th import ffi, lib
from .storage import Storage, wrap_storage
from .storage import new_storage as _new_storage, storage_bytes as _raw
from .tensor import Tensor

MAGIC = b"\x89PYTH-CKPT\r\n\x1a\n\0\0"
VERSION = 1
ALIGN = 64
_HEADER = struct.Struct("<16sIQQII")  # magic, version, struct offset, struct length, crc, count
HEADER_SIZE = 64
MAX_DEPTH = 200  # nesting of containers in a checkpoint

FileLike = Union[str, os.PathLike, BinaryIO]

if sys.byteorder != "little":  # pragma: no cover - every supported machine is little-endian
    raise ImportError("pyth.serialization assumes a little-endian machine")


def _align(n: int) -> int:
    return -(-n // ALIGN) * ALIGN




# ---- saving ------------------------------------------------------------------------------------

# ---- numpy objects (a weights-only load needs their globals allowed: _restricted_pickle) -------

NUMPY_KINDS = "biufc"   # bool, signed and unsigned ints, floats, complex: bytes, no objects


def new_uint8_storage(data: np.ndarray) -> Storage:
    """A uint8 storage holding a copy of the bytes of data (a 1-d uint8 array)."""
    s = _new_storage(_dt.uint8, len(data))
    if len(data):
        ffi.memmove(s._h.data, data.tobytes(), len(data))
    return s


def _numpy_dtype(text: Any) -> np.dtype:
    dt = np.dtype(_text(text))
    if dt.kind not in NUMPY_KINDS or dt.str != text:
        raise ValueError(f"not a numpy dtype of bool, integer, float or complex: {text!r}")
    return dt


def _ndarray(dec: "_Decoder", depth: int, dtype: Any, shape: Any, si: Any) -> np.ndarray:
    from numpy._core.multiarray import _reconstruct
    dt = _numpy_dtype(dtype)
    shape = tuple(_int(v, "an array size") for v in _items(shape))
    if dec.weights_only:
        require_globals((_reconstruct, np.ndarray, np.dtype))
        require_globals((type(dt),), built=True)
    data = _raw(dec.storage(si))
    n = dt.itemsize
    for v in shape:
        n *= v
    if dec.storage(si).dtype is not _dt.uint8 or len(data) != n:
        raise ValueError(f"the array's storage holds {len(data)} bytes, its shape and dtype "
                         f"need {n}")
    return np.frombuffer(data, dt).reshape(shape).copy()


def _npscalar(dec: "_Decoder", depth: int, dtype: Any, data: Any) -> np.generic:
    from numpy._core.multiarray import scalar
    dt = _numpy_dtype(dtype)
    if dec.weights_only:
        require_globals((scalar, np.dtype))
        require_globals((type(dt),), built=True)
    raw = base64.b64decode(_text(data), validate=True)
    if len(raw) != dt.itemsize:
        raise ValueError(f"a {dt} scalar needs {dt.itemsize} bytes, the node holds {len(raw)}")
    return np.frombuffer(raw, dt)[0].copy()


class _Encoder:
    """Turns an object tree into JSON nodes, collecting storages (each once, by identity)."""

    def __init__(self) -> None:
        self.storages: list[Storage] = []
        self._index: dict[int, int] = {}

    def storage(self, s: Storage) -> int:
        i = self._index.get(id(s))
        if i is None:
            i = self._index[id(s)] = len(self.storages)
            self.storages.append(s)
        return i

    def array(self, a: Any) -> list:
        """A numpy array (its bytes in a uint8 storage) or numpy scalar (its bytes inline)."""
        if a.dtype.kind not in NUMPY_KINDS:
            raise TypeError(f"save(): cannot save a numpy array of dtype {a.dtype}; checkpoints "
                            f"hold numpy arrays of bool, integer, float and complex types")
        if isinstance(a, np.generic):
            return ["npscalar", a.dtype.str, base64.b64encode(a.tobytes()).decode("ascii")]
        data = np.frombuffer(np.ascontiguousarray(a).tobytes(), np.uint8)
        storage = new_uint8_storage(data)
        return ["ndarray", a.dtype.str, [int(v) for v in a.shape], self.storage(storage)]

    def node(self, obj: Any, depth: int = 0) -> list:
        if depth > MAX_DEPTH:
            raise ValueError(f"save(): objects nested deeper than {MAX_DEPTH} levels")
        d = depth + 1
        if obj is None:
            return ["none"]
        if isinstance(obj, (np.ndarray, np.generic)):   # (before float: np.float64 is one)
            return self.array(obj)
        if obj is True or obj is False:
            return ["bool", obj]
        if isinstance(obj, Tensor) and _is_parameter(obj):
            return ["parameter", self.node(obj.detach(), d), bool(obj.requires_grad)]
        if isinstance(obj, Tensor):
            return ["tensor", self.storage(obj.storage()), obj.storage_offset(),
                    list(obj.size()), list(obj.stride()), bool(obj.requires_grad)]
        if isinstance(obj, Storage):
            return ["storage", self.storage(obj)]
        if isinstance(obj, _dt.dtype):
            return ["dtype", obj.name]
        if isinstance(obj, Size):
            return ["size", [int(v) for v in obj]]
        if isinstance(obj, int):
            return ["int", str(int(obj))]
        if isinstance(obj, float):
            return ["float", float(obj).hex()]
        if isinstance(obj, str):
            return ["str", obj]
        if isinstance(obj, (bytes, bytearray)):
            return ["bytes", base64.b64encode(bytes(obj)).decode("ascii")]
        if isinstance(obj, dict):
            tag = "odict" if isinstance(obj, collections.OrderedDict) else "dict"
            return [tag, [[self.node(k, d), self.node(v, d)] for k, v in obj.items()]]
        if isinstance(obj, list):
            return ["list", [self.node(v, d) for v in obj]]
        if isinstance(obj, tuple) and type(obj) is tuple:
            return ["tuple", [self.node(v, d) for v in obj]]
        raise TypeError(f"save(): cannot save an object of type {type(obj).__name__}; "
                        f"checkpoints hold dict/list/tuple/str/int/float/bool/None/bytes, "
                        f"tensors, storages, pyth.Size, dtypes and numpy arrays")


def _is_parameter(t: Tensor) -> bool:
    from .nn.parameter import Parameter
    return isinstance(t, Parameter)


def _parameter(dec: "_Decoder", depth: int, node: Any, requires_grad: Any) -> Tensor:
    from .nn.parameter import Parameter
    t = dec.node(node, depth)
    if not isinstance(t, Tensor) or not isinstance(requires_grad, bool):
        raise TypeError("a parameter wraps a tensor node and a bool")
    return Parameter(t, requires_grad=requires_grad)


def _write(out: BinaryIO, obj: Any) -> None:
    enc = _Encoder()
    root = enc.node(obj)
    table = []
    pos = HEADER_SIZE
    start = out.tell()
    out.write(b"\0" * HEADER_SIZE)
    for s in enc.storages:
        data = _raw(s)
        table.append([s.dtype.name, len(s), pos, len(data), zlib.crc32(data)])
        out.write(data)
        pad = _align(pos + len(data)) - (pos + len(data))
        out.write(b"\0" * pad)
        pos += len(data) + pad
    structure = json.dumps({"storages": table, "root": root}, separators=(",", ":"),
                           allow_nan=False).encode()
    out.write(structure)
    header = _HEADER.pack(MAGIC, VERSION, pos, len(structure), zlib.crc32(structure),
                          len(enc.storages))
    out.seek(start)
    out.write(header)
    out.seek(0, io.SEEK_END)


def save(obj: Any, f: FileLike) -> None:
    """Write obj to f (a path or a binary file object) as a pyth checkpoint.

    A path is written atomically: to a temporary file beside it, flushed to disk, then renamed
    over the target, so a crash mid-save leaves any old file intact.
    """
    if hasattr(f, "write"):
        if not (hasattr(f, "seek") and hasattr(f, "tell")):
            raise TypeError("save(): the file object must be seekable")
        start = f.tell()
        buf = io.BytesIO()
        _write(buf, obj)
        f.seek(start)
        f.write(buf.getbuffer())
        return
    path = os.fspath(f)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".pyth-save-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w+b") as out:
            _write(out, obj)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:  # the rename itself reaches the disk once the directory is synced
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


# ---- loading -----------------------------------------------------------------------------------

def _bad(msg: str) -> RuntimeError:
    return RuntimeError(f"checkpoint {msg}")


def _int(v: Any, what: str, lo: int = 0, hi: int | None = None) -> int:
    if type(v) is not int or v < lo or (hi is not None and v > hi):
        raise _bad(f"is corrupt: {what} is {v!r}, expected an integer "
                   f"{'>= ' + str(lo) if hi is None else f'in [{lo}, {hi}]'}")
    return v


class _Decoder:
    """Builds the object tree from JSON nodes, checking each node's shape."""

    def __init__(self, storages: list, loader, weights_only: bool = True) -> None:
        self.weights_only = weights_only
        self._table = storages
        self._loader = loader  # index -> Storage (read, mapped), called once per storage
        self._storages: dict[int, Storage] = {}

    def storage(self, i: Any) -> Storage:
        i = _int(i, "a storage index", 0, len(self._table) - 1 if self._table else -1)
        s = self._storages.get(i)
        if s is None:
            s = self._storages[i] = self._loader(i)
        return s

    def node(self, n: Any, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise _bad(f"is corrupt: objects nested deeper than {MAX_DEPTH} levels")
        if not isinstance(n, list) or not n or not isinstance(n[0], str):
            raise _bad(f"is corrupt: expected a tagged node, found {_short(n)}")
        tag, args = n[0], n[1:]
        handler = _NODES.get(tag)
        if handler is None:
            raise _bad(f"is corrupt: unknown node tag {tag!r}")
        arity = handler[0]
        if len(args) != arity:
            raise _bad(f"is corrupt: node {tag!r} has {len(args)} fields, expected {arity}")
        try:
            return handler[1](self, depth + 1, *args)
        except (TypeError, ValueError, OverflowError, IndexError) as e:
            raise _bad(f"is corrupt: bad {tag!r} node {_short(n)}: {e}") from None


def _short(n: Any) -> str:
    r = repr(n)
    return r if len(r) <= 80 else r[:77] + "..."


def _items(v: Any) -> list:
    if not isinstance(v, list):
        raise TypeError(f"expected a list, found {type(v).__name__}")
    return v


def _pairs(dec: _Decoder, depth: int, items: Any, cls: type) -> dict:
    out = cls()
    for kv in _items(items):
        if not isinstance(kv, list) or len(kv) != 2:
            raise ValueError("a dict item is not a [key, value] pair")
        key = dec.node(kv[0], depth)
        try:
            hash(key)
        except TypeError:
            raise ValueError(f"unhashable dict key of type {type(key).__name__}") from None
        out[key] = dec.node(kv[1], depth)
    return out


def _text(v: Any) -> str:
    if not isinstance(v, str):
        raise TypeError(f"expected a string, found {type(v).__name__}")
    return v


def _tensor(dec: _Decoder, depth: int, si: Any, offset: Any, size: Any, stride: Any,
            requires_grad: Any) -> Tensor:
    from .tensor import _rebuild_tensor
    storage = dec.storage(si)
    if not isinstance(requires_grad, bool):
        raise TypeError("requires_grad is not a bool")
    size, stride = _items(size), _items(stride)
    if any(type(v) is not int for v in list(size) + list(stride)) or type(offset) is not int:
        raise TypeError("sizes, strides and offset must be integers")
    try:
        t = _rebuild_tensor(storage, offset, tuple(size), tuple(stride))
    except (RuntimeError, IndexError, MemoryError) as e:
        raise ValueError(str(e)) from None
    if requires_grad:
        if not t.dtype.is_floating_point:
            raise ValueError(f"requires_grad on a {t.dtype.name} tensor")
        t.requires_grad_(True)
    return t


_NODES = {
    "none": (0, lambda dec, d: None),
    "bool": (1, lambda dec, d, v: v if isinstance(v, bool) else _int(None, "a bool")),
    "int": (1, lambda dec, d, v: int(_text(v)) if len(_text(v)) <= 5000 else _int(v, "an int")),
    "float": (1, lambda dec, d, v: float.fromhex(_text(v))),
    "str": (1, lambda dec, d, v: _text(v)),
    "bytes": (1, lambda dec, d, v: base64.b64decode(_text(v), validate=True)),
    "list": (1, lambda dec, d, v: [dec.node(x, d) for x in _items(v)]),
    "tuple": (1, lambda dec, d, v: tuple(dec.node(x, d) for x in _items(v))),
    "dict": (1, lambda dec, d, v: _pairs(dec, d, v, dict)),
    "odict": (1, lambda dec, d, v: _pairs(dec, d, v, collections.OrderedDict)),
    "size": (1, lambda dec, d, v: Size([_int(x, "a size") for x in _items(v)])),
    "dtype": (1, lambda dec, d, v: _dt._dtype_by_name(_text(v))),
    "storage": (1, lambda dec, d, i: dec.storage(i)),
    "tensor": (5, _tensor),
    "parameter": (2, _parameter),
    "ndarray": (3, _ndarray),
    "npscalar": (2, _npscalar),
}


class _Source:
    """Random access to the checkpoint's bytes: a path (read or mapped) or a file object."""

    def __init__(self, f: FileLike, use_mmap: bool) -> None:
        self._close = None
        self.map = None
        if hasattr(f, "read"):
            if use_mmap:
                raise ValueError("load(mmap=True) needs a file name, not a file object")
            self.file = f
            self.base = f.tell() if hasattr(f, "tell") else 0
            f.seek(0, io.SEEK_END)
            self.size = f.tell() - self.base
        else:
            self.file = open(os.fspath(f), "rb")
            self._close = self.file
            self.base = 0
            self.size = os.fstat(self.file.fileno()).st_size
            if use_mmap and self.size:
                self.map = _mmap.mmap(self.file.fileno(), self.size, access=_mmap.ACCESS_COPY)

    def read(self, offset: int, n: int, what: str) -> bytes:
        if offset + n > self.size:
            raise _bad(f"truncated: {what} needs {n} bytes at offset {offset}, "
                       f"file has {self.size}")
        self.file.seek(self.base + offset)
        data = self.file.read(n)
        if len(data) != n:
            raise _bad(f"truncated: {what} needs {n} bytes at offset {offset}, "
                       f"read {len(data)}")
        return data

    def mapped(self, offset: int, n: int, what: str) -> memoryview:
        """n bytes of the mapping at offset, once the file is seen to still hold them: reading
        pages that a truncation took away would be SIGBUS, not an error."""
        size = os.fstat(self.file.fileno()).st_size
        if offset + n > size:
            raise _bad(f"truncated while loading: {what} needs {n} bytes at offset {offset}, "
                       f"the file now has {size}")
        return memoryview(self.map)[offset:offset + n]

    def read_into(self, offset: int, dest: memoryview) -> int:
        self.file.seek(self.base + offset)
        got = 0
        while got < len(dest):
            k = self.file.readinto(dest[got:])
            if not k:
                break
            got += k
        return got

    def close(self) -> None:
        if self._close is not None:
            self._close.close()


def _header(src: _Source) -> tuple:
    head = src.read(0, min(HEADER_SIZE, src.size), "the header")
    if len(head) < len(MAGIC) or head[:len(MAGIC)] != MAGIC:
        raise _bad("is not a pyth checkpoint (bad magic number)")
    if len(head) < HEADER_SIZE:
        raise _bad(f"truncated: the header needs {HEADER_SIZE} bytes at offset 0, "
                   f"file has {src.size}")
    _, version, off, length, crc, count = _HEADER.unpack_from(head)
    if version != VERSION:
        raise _bad(f"has version {version}; this pyth reads version {VERSION}")
    if off < HEADER_SIZE or off > src.size or length > src.size - off:
        raise _bad(f"truncated: the structure needs {length} bytes at offset {off}, "
                   f"file has {src.size}")
    raw = src.read(off, length, "the structure")
    if zlib.crc32(raw) != crc:
        raise _bad(f"is corrupt: the structure at offset {off} fails its checksum")
    try:
        doc = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise _bad(f"is corrupt: the structure does not parse: {e}") from None
    if not isinstance(doc, dict) or set(doc) != {"storages", "root"}:
        raise _bad("is corrupt: the structure is not {storages, root}")
    table = doc["storages"]
    if not isinstance(table, list) or len(table) != count:
        raise _bad(f"is corrupt: the header announces {count} storages, the structure lists "
                   f"{len(table) if isinstance(table, list) else 'none'}")
    return table, doc["root"], off


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not allowed")


def _check_entry(i: int, entry: Any, data_end: int) -> tuple:
    if not isinstance(entry, list) or len(entry) != 5 or not isinstance(entry[0], str):
        raise _bad(f"is corrupt: storage {i} is described as {_short(entry)}")
    name, numel, offset, nbytes, crc = entry
    try:
        dt = _dt._dtype_by_name(name)
    except (TypeError, ValueError, KeyError):
        raise _bad(f"is corrupt: storage {i} has unknown dtype {name!r}") from None
    numel = _int(numel, f"storage {i}'s element count")
    offset = _int(offset, f"storage {i}'s offset", HEADER_SIZE)
    nbytes = _int(nbytes, f"storage {i}'s byte count")
    crc = _int(crc, f"storage {i}'s checksum", 0, 0xFFFFFFFF)
    if nbytes != numel * dt.itemsize:
        raise _bad(f"is corrupt: storage {i} has {numel} {dt.name} elements but {nbytes} bytes")
    if offset % ALIGN:
        raise _bad(f"is corrupt: storage {i}'s offset {offset} is not {ALIGN}-byte aligned")
    if offset + nbytes > data_end:
        raise _bad(f"truncated: storage {i} needs {nbytes} bytes at offset {offset}, "
                   f"file has {data_end}")
    return dt, numel, offset, nbytes, crc




def _mapped_storage(dt: _dt.dtype, n: int, view: memoryview) -> Storage:
    """A storage over part of a private file mapping (no copy); it keeps the mapping alive."""
    from ._errors import check_ptr
    from ._numpy import borrow_context
    if n == 0:
        return _new_storage(dt, 0)
    owner = ffi.from_buffer(view)  # pins the mapping until the storage lets go
    ptr = dt.storage.newWithDataAndAllocator(ffi.cast(dt.ctype + " *", owner), n,
                                             ffi.addressof(lib, "THBorrowedAllocator"),
                                             borrow_context(owner))
    return wrap_storage(dt, check_ptr(ptr), True)


def _check_disjoint(entries: list) -> None:
    """save writes each storage once, in its own bytes: ranges that overlap are forged."""
    spans = sorted((offset, offset + nbytes, i) for i, (_, _, offset, nbytes, _) in
                   enumerate(entries) if nbytes)
    for (a0, a1, i), (b0, _, j) in zip(spans, spans[1:]):
        if b0 < a1:
            raise _bad(f"is corrupt: storages {i} and {j} overlap (bytes {a0}-{a1} and from "
                       f"{b0})")


def _storage_loader(src: _Source, table: list, data_end: int):
    entries = [_check_entry(i, e, data_end) for i, e in enumerate(table)]
    _check_disjoint(entries)

    def load(i: int) -> Storage:
        dt, numel, offset, nbytes, crc = entries[i]
        if src.map is not None:
            view = src.mapped(offset, nbytes, f"storage {i}")
            if zlib.crc32(view) != crc:
                raise _bad(f"is corrupt: storage {i} ({nbytes} bytes at offset {offset}) "
                           f"fails its checksum")
            s = _mapped_storage(dt, numel, view)
        else:
            s = _new_storage(dt, numel)
            got = src.read_into(offset, _raw(s)) if nbytes else 0
            if got != nbytes:
                raise _bad(f"truncated: storage {i} needs {nbytes} bytes at offset {offset}, "
                           f"read {got}")
            if zlib.crc32(_raw(s)) != crc:
                raise _bad(f"is corrupt: storage {i} ({nbytes} bytes at offset {offset}) "
                           f"fails its checksum")
        s.dtype.storage.normalize(s._h)
        return s

    return load


def _is_zip(f: FileLike) -> bool:
    if hasattr(f, "read"):
        pos = f.tell()
        head = f.read(4)
        f.seek(pos)
    else:
        with open(os.fspath(f), "rb") as fh:
            head = fh.read(4)
    return head == b"PK\x03\x04"


def load(f: FileLike, map_location: Any = None, pickle_module: Any = None, *,
         weights_only: bool | None = None, mmap: bool | None = None,
         **pickle_load_args: Any) -> Any:
    """Read a checkpoint written by pyth.save (or by torch.save, the zip format), with
    torch.load's arguments.

    weights_only (True when None, as in PyTorch) refuses the numpy objects a checkpoint may
    hold unless their globals were allowed (add_safe_globals, safe_globals); weights_only=False
    loads them. Either way nothing in the file is ever executed, so pickle_module cannot be
    used, and of the pickle arguments only `encoding` (which pyth's own format has no use for)
    is accepted.

    mmap=True maps the storages from the file instead of reading them (copy on write: writes to
    the loaded tensors never reach the file). The file must then keep its bytes while the
    tensors live: one truncated underneath during the load raises RuntimeError, but reading a
    loaded tensor whose pages a later truncation took away is SIGBUS, as in PyTorch and numpy
    (pyth.save replaces a file by renaming a new one over it, which mapped tensors survive).
    map_location may be None, "cpu", a pyth.device
    for the CPU, or a dict/callable as in PyTorch that must map to the CPU. Damaged files raise
    RuntimeError saying what is wrong and where; nothing in the file is ever executed.
    """
    _check_map_location(map_location)
    for k in pickle_load_args:
        if k != "encoding":
            raise TypeError(f"load() got an unexpected keyword argument '{k}'")
    if weights_only is None:   # as torch.load: True, unless a pickle module is given
        weights_only = pickle_module is None
    if type(weights_only) is not bool:
        raise TypeError(f"load(): weights_only must be a bool, got {type(weights_only).__name__}")
    if pickle_module is not None:
        if weights_only:
            raise RuntimeError("Can not safely load weights when explicit pickle_module is "
                               "specified")
        if pickle_module is not pickle:
            raise ValueError("load(): pyth reads checkpoints without executing code, with its "
                             "own reader: pickle_module can only be the pickle module")
    mmap = bool(mmap)
    if _is_zip(f):
        from ._torch_format import load_torch_zip
        return load_torch_zip(f, weights_only)
    src = _Source(f, mmap)
    try:
        table, root, data_end = _header(src)
        dec = _Decoder(table, _storage_loader(src, table, data_end), weights_only)
        try:
            return dec.node(root)
        except RecursionError:
            raise _bad("is corrupt: objects nested too deeply") from None
    finally:
        src.close()


def _check_map_location(loc: Any) -> None:
    if loc is None or callable(loc):
        return
    from .device import device
    if isinstance(loc, dict):
        values = list(loc.values())
    else:
        values = [loc]
    for v in values:
        if str(device(v) if isinstance(v, str) else v).split(":")[0] != "cpu":
            raise RuntimeError(f"load(): map_location {v!r}: pyth only has the CPU device")

