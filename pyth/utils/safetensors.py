"""The safetensors file format (Hugging Face), read and written without the safetensors package.

A file is: u64 little-endian N, then N bytes of JSON {name: {"dtype", "shape",
"data_offsets": [begin, end]}, "__metadata__": {str: str}}, then the tensors' raw little-endian
bytes (offsets relative to the end of the header). Files written here load with the
`safetensors` package and the other way round; every offset is checked before use.
"""

from __future__ import annotations

import json
import mmap
import os
import struct
from typing import Any, Iterator

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor

_NAMES = {"bool": "BOOL", "uint8": "U8", "int8": "I8", "int16": "I16", "int32": "I32",
          "int64": "I64", "float16": "F16", "bfloat16": "BF16", "float32": "F32",
          "float64": "F64"}
_DTYPES = {v: _dt._dtype_by_name(k) for k, v in _NAMES.items()}
MAX_HEADER = 100 * 1000 * 1000


def _bytes_of(t: Tensor) -> bytes:
    from .._th import ffi
    c = t.detach().contiguous()
    n = c.numel() * c.element_size()
    if n == 0:
        return b""
    return bytes(ffi.buffer(c._h.storage.data + c.storage_offset(), n))


def save(tensors: dict, metadata: dict | None = None) -> bytes:
    """The safetensors bytes of a {name: tensor} dict."""
    if not isinstance(tensors, dict):
        raise TypeError(f"save_file(): expected a dict of tensors, got {type(tensors).__name__}")
    header: dict[str, Any] = {}
    if metadata is not None:
        if not isinstance(metadata, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise ValueError("save_file(): metadata must be a dict of str to str")
        header["__metadata__"] = dict(metadata)
    chunks, pos = [], 0
    for name in sorted(tensors):
        t = tensors[name]
        if not isinstance(name, str) or name == "__metadata__":
            raise ValueError(f"save_file(): bad tensor name {name!r}")
        if not isinstance(t, Tensor):
            raise TypeError(f"save_file(): {name!r} is a {type(t).__name__}, not a Tensor")
        data = _bytes_of(t)
        header[name] = {"dtype": _NAMES[t.dtype.name], "shape": list(t.shape),
                        "data_offsets": [pos, pos + len(data)]}
        chunks.append(data)
        pos += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(chunks)


def save_file(tensors: dict, filename: str | os.PathLike, metadata: dict | None = None) -> None:
    """Write a {name: tensor} dict to filename (atomically: temporary file, then rename)."""
    data = save(tensors, metadata)
    path = os.fspath(filename)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _bad(msg: str) -> RuntimeError:
    return RuntimeError(f"safetensors: {msg}")


def _parse(buf: Any) -> tuple[dict, dict, int]:
    """(entries {name: (dtype, shape, begin, end)}, metadata, data start), all checked."""
    size = len(buf)
    if size < 8:
        raise _bad(f"file truncated: {size} bytes, the header length alone needs 8")
    (n,) = struct.unpack_from("<Q", buf, 0)
    if n > MAX_HEADER:
        raise _bad(f"header of {n} bytes is larger than the limit of {MAX_HEADER}")
    if 8 + n > size:
        raise _bad(f"file truncated: the header needs {n} bytes at offset 8, file has {size}")
    try:
        header = json.loads(bytes(buf[8:8 + n]).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise _bad(f"header does not parse: {e}") from None
    if not isinstance(header, dict):
        raise _bad("header is not a JSON object")
    meta = header.pop("__metadata__", None) or {}
    if not isinstance(meta, dict) or not all(isinstance(v, str) for v in meta.values()):
        raise _bad("__metadata__ is not a dict of str to str")
    start, data_len = 8 + n, size - 8 - n
    entries, spans = {}, []
    for name, e in header.items():
        if not isinstance(e, dict) or set(e) != {"dtype", "shape", "data_offsets"}:
            raise _bad(f"tensor {name!r}: entry must have exactly dtype, shape, data_offsets")
        dt = _DTYPES.get(e["dtype"])
        if dt is None:
            raise _bad(f"tensor {name!r}: dtype {e['dtype']!r} is not supported by pyth")
        shape, offs = e["shape"], e["data_offsets"]
        if not isinstance(shape, list) or not all(type(s) is int and s >= 0 for s in shape):
            raise _bad(f"tensor {name!r}: bad shape {shape!r}")
        if (not isinstance(offs, list) or len(offs) != 2
                or not all(type(o) is int for o in offs) or not 0 <= offs[0] <= offs[1]):
            raise _bad(f"tensor {name!r}: bad data_offsets {offs!r}")
        numel = 1
        for s in shape:
            numel *= s
        if numel * dt.itemsize != offs[1] - offs[0]:
            raise _bad(f"tensor {name!r}: shape {shape} of {e['dtype']} needs "
                       f"{numel * dt.itemsize} bytes, data_offsets span {offs[1] - offs[0]}")
        if offs[1] > data_len:
            raise _bad(f"file truncated: tensor {name!r} needs bytes {offs[0]}..{offs[1]} of "
                       f"the data, which has {data_len}")
        entries[name] = (dt, shape, offs[0], offs[1])
        spans.append((offs[0], offs[1], name))
    spans.sort()
    pos = 0
    for b, e, name in spans:
        if b != pos:
            raise _bad(f"tensor {name!r} starts at data offset {b}, expected {pos} "
                       f"(overlapping or gapped data)")
        pos = e
    if pos != data_len:
        raise _bad(f"{data_len - pos} bytes after the last tensor's data")
    return entries, meta, start


def _tensor(dt: _dt.dtype, shape: list, raw: Any) -> Tensor:
    """A new tensor holding raw; its buffer's length (from the C element type) must be raw's."""
    from .._th import ffi
    from .._prims.creation import empty
    from ..serialization import _raw
    out = empty(*shape, dtype=dt) if shape else empty((), dtype=dt)
    dest = _raw(out.storage())
    if len(dest) != len(raw):
        raise _bad(f"a {dt.name} tensor of shape {shape} has {len(dest)} bytes, its data "
                   f"{len(raw)}")
    if len(raw):
        ffi.memmove(ffi.from_buffer(dest), ffi.from_buffer(raw), len(raw))
        dt.storage.normalize(out._h.storage)
    return out


def load(data: bytes) -> dict:
    """{name: tensor} from safetensors bytes."""
    entries, _, start = _parse(memoryview(data))
    return {k: _tensor(dt, shape, memoryview(data)[start + b:start + e])
            for k, (dt, shape, b, e) in entries.items()}


class safe_open:
    """Lazy access to a safetensors file: keys() and metadata() read only the header;
    get_tensor(name) reads that tensor's bytes. Use as a context manager.

    The file is mapped; get_tensor copies out of the mapping after checking that the file
    still holds the tensor's bytes (a file truncated underneath raises RuntimeError instead of
    the SIGBUS that touching the lost pages would be). After close() every method raises.
    """

    def __init__(self, filename: str | os.PathLike, framework: str = "pyth",
                 device: str = "cpu") -> None:
        if str(device) != "cpu":
            raise RuntimeError(f"safe_open(): device {device!r}: pyth only has the CPU")
        self._file = open(os.fspath(filename), "rb")
        try:
            size = os.fstat(self._file.fileno()).st_size
            self._map = mmap.mmap(self._file.fileno(), size, access=mmap.ACCESS_READ) \
                if size else b""
            self._entries, self._meta, self._start = _parse(self._map)
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> "safe_open":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        m = getattr(self, "_map", None)
        if isinstance(m, mmap.mmap):
            m.close()
        self._map = None
        self._file.close()

    def _open(self, what: str) -> None:
        if self._map is None:
            raise _bad(f"File is closed: {what} needs an open safe_open")

    def keys(self) -> list:
        self._open("keys()")
        return sorted(self._entries)

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def metadata(self) -> dict:
        self._open("metadata()")
        return dict(self._meta)

    def get_tensor(self, name: str) -> Tensor:
        self._open(f"get_tensor({name!r})")
        if name not in self._entries:
            raise KeyError(f"safe_open(): no tensor named {name!r}")
        dt, shape, b, e = self._entries[name]
        size = os.fstat(self._file.fileno()).st_size
        if self._start + e > size:
            raise _bad(f"file truncated after it was opened: tensor {name!r} needs bytes "
                       f"{self._start + b}..{self._start + e}, the file now has {size}")
        view = memoryview(self._map)[self._start + b:self._start + e]
        try:
            return _tensor(dt, shape, view)
        finally:
            view.release()


def load_file(filename: str | os.PathLike, device: str = "cpu") -> dict:
    """{name: tensor} from a safetensors file."""
    with safe_open(filename, device=device) as f:
        return {k: f.get_tensor(k) for k in f.keys()}


del np
