"""Forged and honest PyTorch checkpoints, assembled by hand (no PyTorch needed), and a check
that the objects a forged pickle could reach are unchanged. Users: test_checkpoint_hardening.py
and the children it starts (which import this, not the test module, to stay quick).
"""

from __future__ import annotations

import collections
import io
import pickle
import struct
import zipfile
from typing import Any

import numpy as np

import pyth
from pyth import _torch_format as tf


# ==== a small pickle assembler ==================================================================

class G:
    """A global in an assembled pickle: GLOBAL module name."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name


def enc(v: Any) -> bytes:
    """The opcodes pushing v (None, bool, int, float, str, bytes, tuple, list, dict, G)."""
    if v is None:
        return pickle.NONE
    if v is True or v is False:
        return pickle.NEWTRUE if v else pickle.NEWFALSE
    if isinstance(v, int):
        if -(2 ** 31) <= v < 2 ** 31:
            return pickle.BININT + struct.pack("<i", v)
        raw = v.to_bytes((v.bit_length() + 8) // 8, "little", signed=True)
        return pickle.LONG1 + bytes([len(raw)]) + raw
    if isinstance(v, float):
        return pickle.BINFLOAT + struct.pack(">d", v)
    if isinstance(v, str):
        raw = v.encode()
        return pickle.BINUNICODE + struct.pack("<I", len(raw)) + raw
    if isinstance(v, bytes):
        return pickle.SHORT_BINBYTES + bytes([len(v)]) + v
    if isinstance(v, G):
        return pickle.GLOBAL + f"{v.module}\n{v.name}\n".encode()
    if isinstance(v, tuple):
        return pickle.MARK + b"".join(enc(x) for x in v) + pickle.TUPLE
    if isinstance(v, list):
        return pickle.EMPTY_LIST + pickle.MARK + b"".join(enc(x) for x in v) + pickle.APPENDS
    if isinstance(v, dict):
        body = b"".join(enc(k) + enc(x) for k, x in v.items())
        return pickle.EMPTY_DICT + (pickle.MARK + body + pickle.SETITEMS if body else b"")
    raise TypeError(type(v))


def reduce_(fn: G, *args: Any) -> bytes:
    return enc(fn) + enc(tuple(args)) + pickle.REDUCE


def tensor_op(storage_type: str, key: str, numel: int, size: tuple, stride: tuple) -> bytes:
    """torch.save's opcodes for one tensor: _rebuild_tensor_v2 over a persistent storage."""
    pid = enc(("storage", G("torch", storage_type), key, "cpu", numel)) + pickle.BINPERSID
    args = (pickle.MARK + pid + enc(0) + enc(size) + enc(stride) + enc(False)
            + reduce_(G("collections", "OrderedDict")) + pickle.TUPLE)
    return enc(G("torch._utils", "_rebuild_tensor_v2")) + args + pickle.REDUCE


def as_zip(pkl: bytes, members: dict | None = None) -> bytes:
    """A PyTorch zip checkpoint of data.pkl pkl and storage members {key: bytes}."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("archive/data.pkl", pkl)
        z.writestr("archive/byteorder", "little")
        z.writestr("archive/version", "3\n")
        for k, v in (members or {}).items():
            z.writestr(f"archive/data/{k}", v)
    return buf.getvalue()


HONEST_VALUES = np.arange(1000, dtype=np.float32) * 0.5  # 4,000 bytes, as in the attack


def honest_by_hand() -> bytes:
    """A state dict {"w": 1000 float32, "i": 6 int64 as 2x3} written as torch.save writes it."""
    pkl = (pickle.PROTO + b"\x02" + reduce_(G("collections", "OrderedDict")) + pickle.MARK
           + enc("w") + tensor_op("FloatStorage", "0", 1000, (1000,), (1,))
           + enc("i") + tensor_op("LongStorage", "1", 6, (2, 3), (3, 1))
           + pickle.SETITEMS + pickle.STOP)
    return as_zip(pkl, {"0": HONEST_VALUES.tobytes(), "1": np.arange(6, dtype=np.int64).tobytes()})


def check_honest(out: Any) -> None:
    assert isinstance(out, collections.OrderedDict) and list(out) == ["w", "i"]
    assert out["w"].dtype is pyth.float32 and out["w"].shape == (1000,)
    np.testing.assert_array_equal(out["w"].numpy(), HONEST_VALUES)
    assert out["i"].dtype is pyth.int64 and out["i"].tolist() == [[0, 1, 2], [3, 4, 5]]


def load_bytes(data: bytes) -> Any:
    return pyth.load(io.BytesIO(data))


# ==== the process-wide objects a forged pickle must not change ==================================

def shared_state() -> dict:
    """A snapshot of everything the allow-list hands out and what reads depend on."""
    snap: dict = {}
    for d in pyth.ALL_DTYPES:
        snap[("dtype", d.name)] = dict(vars(d))
        snap[("class", d.name)] = (d.storage_class.dtype, d.tensor_class.dtype)
    for key, obj in tf._ALLOWED.items():
        if isinstance(obj, tf._StorageType):
            snap[key] = (obj.dtype, obj.untyped)
        elif callable(obj) and not isinstance(obj, type):
            snap[key] = (dict(vars(obj)), obj.__defaults__, obj.__kwdefaults__, obj.__code__)
        elif isinstance(obj, type):
            snap[key] = dict(vars(obj))
        else:
            snap[key] = obj
    snap["allowed"] = dict(tf._ALLOWED)
    return snap


SNAPSHOT = shared_state()
HONEST = honest_by_hand()


def assert_unchanged() -> None:
    """Nothing shared changed, and an honest checkpoint still loads exactly."""
    assert shared_state() == SNAPSHOT
    check_honest(load_bytes(HONEST))


# ==== forged pickles: the examples ==============================================================


def build_on(target: bytes, state: Any, op: str = "BUILD") -> bytes:
    """A pickle pushing target, then applying op with state; the result is target."""
    if op == "BUILD":
        body = target + enc(state) + pickle.BUILD
    elif op == "SETITEM":
        body = target + enc("itemsize") + enc(state) + pickle.SETITEM
    elif op == "SETITEMS":
        body = target + pickle.MARK + enc("dtype") + enc(state) + pickle.SETITEMS
    elif op == "APPEND":
        body = target + enc(state) + pickle.APPEND
    elif op == "APPENDS":
        body = target + pickle.MARK + enc(state) + pickle.APPENDS
    else:  # ADDITEMS
        body = target + pickle.MARK + enc(1) + pickle.ADDITEMS
    return pickle.PROTO + b"\x02" + body + pickle.POP + pickle.NONE + pickle.STOP
