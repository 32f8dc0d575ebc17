"""Helpers for the issue-17 surface tests: the same data in pyth and torch, in the layouts that
break naive code (contiguous, transposed, stepped, expanded, zero-size), and one comparison
that checks dtype, shape and values (NaN equal to NaN)."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import pyth

NAMES = ["uint8", "int8", "int16", "int32", "int64", "float32", "float64", "float16",
         "bfloat16", "bool"]
FLOATS = ["float32", "float64", "float16", "bfloat16"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]
TOL = {"float64": (1e-9, 1e-10), "float32": (1e-4, 1e-5), "float16": (1e-2, 1e-2),
       "bfloat16": (2e-2, 2e-2)}


def torch_or_skip():
    return pytest.importorskip("torch")


def rng(*key):
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def sample(shape, name, key=(), lo=-5, hi=5):
    """float64 numpy values suited to dtype name (small integers for int types, 0/1 for bool)."""
    g = rng(shape, name, *key)
    if name == "bool":
        return g.integers(0, 2, size=shape).astype(np.float64)
    if name in INTS:
        lo_ = 0 if name == "uint8" else lo
        return g.integers(lo_, hi + 1, size=shape).astype(np.float64)
    return np.round(g.uniform(lo, hi, size=shape), 2)


def make_pair(values: np.ndarray, name: str):
    """(pyth tensor, torch tensor) holding the same values in dtype name."""
    torch = torch_or_skip()
    if name == "bfloat16":
        p = pyth.tensor(values.astype(np.float32)).to(pyth.bfloat16)
        t = torch.tensor(values.astype(np.float32)).to(torch.bfloat16)
    else:
        p = pyth.tensor(values.astype(name if name != "bool" else bool))
        t = torch.tensor(values.astype(name if name != "bool" else bool))
    return p, t


def layouts(p, t):
    """(label, pyth view, torch view): the same view of each (p, t must be at least 2-D)."""
    yield "contiguous", p, t
    if p.dim() >= 2:
        yield "transposed", p.transpose(0, 1), t.transpose(0, 1)
        yield "stepped", p[:, ::2], t[:, ::2]
    yield "expanded", p[:1].expand(*p.shape), t[:1].expand(*t.shape)


def to_numpy(x):
    """float64 (or bool / int64) numpy array of a pyth or torch tensor."""
    if not isinstance(x, pyth.Tensor):
        x = x.detach()
        if str(x.dtype) == "torch.bfloat16":
            x = x.float()
        return x.numpy().astype(np.float64) if x.dtype.is_floating_point else x.numpy()
    if x.dtype is pyth.bfloat16:
        x = x.float()
    return x.numpy().astype(np.float64) if x.dtype.is_floating_point else x.numpy()


def dtype_name(x) -> str:
    return str(x.dtype).rsplit(".", 1)[-1]


def assert_same(p, t, rtol=None, atol=None):
    """p (pyth) equals t (torch): dtype, shape, values; tuples/lists element by element."""
    if isinstance(t, (tuple, list)):
        assert isinstance(p, (tuple, list)) and len(p) == len(t), (p, t)
        for a, b in zip(p, t):
            assert_same(a, b, rtol, atol)
        return
    if not hasattr(t, "dtype"):
        assert p == t, (p, t)
        return
    assert dtype_name(p) == dtype_name(t), (p.dtype, t.dtype)
    assert tuple(p.shape) == tuple(t.shape), (p.shape, t.shape)
    a, b = to_numpy(p), to_numpy(t)
    r, at = TOL.get(dtype_name(t), (0, 0))
    np.testing.assert_allclose(a, b, rtol=rtol if rtol is not None else r,
                               atol=atol if atol is not None else at, equal_nan=True)


def expected_error(exc: BaseException) -> type:
    """The exception class pyth must raise where torch raised exc (NotImplementedError counts
    as its base RuntimeError)."""
    return RuntimeError if isinstance(exc, NotImplementedError) else type(exc)


def check_call(fp, ft, rtol=None, atol=None):
    """Calls ft(); when it raises, fp() must raise the matching class; else results agree."""
    try:
        want = ft()
    except Exception as e:  # noqa: BLE001
        with pytest.raises(expected_error(e)):
            fp()
        return None
    got = fp()
    assert_same(got, want, rtol, atol)
    return got
