"""A smoke run of the core for scripts/valgrind.sh: every layer once, quickly (valgrind runs
Python ~30x slower). Covers all ten dtypes, views, copies, pointwise kernels (including the
tiled and OpenMP paths), indexing, the numpy bridge, mapped files, shared memory, overlapping
operands and a sample of error paths. PYTH_VG_SELFTEST=1 adds a deliberate leak of a C tensor,
which the script must report (so the gate is known to be able to fail)."""

from __future__ import annotations

import gc
import os
import tempfile

import numpy as np
from pyth._th import lib

import pyth

DTYPES = [pyth.uint8, pyth.int8, pyth.int16, pyth.int32, pyth.int64, pyth.float32,
          pyth.float64, pyth.float16, pyth.bfloat16, pyth.bool]


def expect_error(fn, exc=(IndexError, RuntimeError, TypeError, ValueError, MemoryError)):
    try:
        fn()
    except exc:
        return
    raise AssertionError(f"{fn} did not raise")


def views_and_copies():
    for dt in DTYPES:
        t = pyth.ones(4, 5, dtype=dt)
        v = t.t()[1:, ::2].unsqueeze(0).expand(2, 4, 2)
        c = v.clone()
        assert c.shape == (2, 4, 2)
        for other in DTYPES:
            pyth.empty(4, 5, dtype=other).copy_(t.t().t())
        t.view(20).unfold(0, 4, 3).diagonal()
        t.reshape(5, 4).flatten()
        t.resize_(30)
        s = t.storage()
        s.resize_(50)
        t.set_(s, 2, (3, 3), (3, 1))
        assert t.numel() == 9


def pointwise():
    a = pyth.arange(1, 13, dtype=pyth.float32).view(3, 4)
    b = pyth.arange(4, dtype=pyth.int32)
    for name in ("exp", "log", "sqrt", "sin", "tanh", "sigmoid", "erfinv", "lgamma", "floor",
                 "abs", "neg", "sign", "isnan", "logical_not"):
        getattr(pyth, name)(a)
    for name in ("add", "sub", "mul", "div", "pow", "fmod", "remainder", "floor_divide",
                 "maximum", "minimum", "atan2", "eq", "lt", "logical_xor"):
        getattr(pyth, name)(a, b)
    for dt in DTYPES:
        x = pyth.ones(3, 4, dtype=dt)
        x + x.t().t()
        assert (x == 1).dtype is pyth.bool
        x.mul_(x)
    i = pyth.arange(12).view(3, 4)
    for r in (i & 3, i << 2, i >> 1, ~i, i // 3, i % 5, i ** 2):
        assert r.shape == (3, 4)
    pyth.where(a > 3, a, b)
    pyth.clamp(a, 2, 5)
    pyth.lerp(a, a * 2, 0.5)
    pyth.addcmul(a, a, a, value=2)
    pyth.addcdiv(a, a, a + 1)
    pyth.exp(b, out=pyth.empty(0, dtype=pyth.float64))
    big = pyth.ones(256, 256)  # above the grain size: OpenMP, and tiled for the transpose
    big + big.t()
    expect_error(lambda: big.add_(big.t()))  # partial overlap: refused
    expect_error(lambda: pyth.where(big > 1, big.t(), big, out=big))
    h = pyth.ones(300, 300, dtype=pyth.float16)
    pyth.exp(h.t())


def indexing():
    t = pyth.arange(60.).view(3, 4, 5)
    t[1, ::2, None, ...]
    t[[0, 2], :, [1, 3]]
    t[t > 30]
    t[pyth.tensor([True, False, True])]
    t[:, [1, 1]] = 7
    t[t < 5] = pyth.zeros(5)
    t[0, 1:3] = pyth.ones(2, 5)


def numpy_bridge():
    for dt in DTYPES:
        if dt is pyth.bfloat16:
            continue
        t = pyth.ones(3, 4, dtype=dt)
        a = t.numpy()
        a2 = np.asarray(t.t())
        del t
        a.sum(), a2.sum()
    arr = np.arange(24.).reshape(4, 6)
    f = pyth.from_numpy(arr[::2, 1::2])
    g = pyth.from_numpy(arr.T)
    f.copy_(g[:2, :3])  # two storages over one ndarray: overlap found by address
    del arr
    pyth.tensor(np.arange(5)[::-1])


def files_and_shared():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.bin")
        m = pyth.FloatStorage.from_file(path, shared=True, size=64)
        pyth.FloatTensor(m).fill_(3)
        del m
        p = pyth.FloatStorage.from_file(path, shared=False)
        pyth.FloatTensor(p).add_(1)
        expect_error(lambda: pyth.FloatStorage.from_file(path, size=1000))
        expect_error(lambda: pyth.FloatStorage.from_file(d))
        expect_error(lambda: pyth.FloatStorage.from_file(os.path.join(d, "none")))
    s = pyth.FloatStorage(10).share_memory_()
    pyth.FloatTensor(s).fill_(1)


def errors():
    v = pyth.arange(5.)
    m = pyth.arange(6.).view(2, 3)
    e = pyth.zeros(3).expand(3, 3)
    for fn in (lambda: pyth.empty(-1), lambda: pyth.empty(2**62, 4),
               lambda: pyth.FloatStorage(2**62), lambda: v.narrow(0, 4, 2),
               lambda: m.t().view(6), lambda: m.expand(3, 2), lambda: m.permute(0, 0),
               lambda: v.as_strided((10,), (1,)), lambda: e.copy_(pyth.ones(3, 3)),
               lambda: v[[0, 9]], lambda: pyth.add(m, pyth.zeros(4)),
               lambda: pyth.tensor([1, 2]) // pyth.zeros(2, dtype=pyth.int64),
               lambda: pyth.add(v, v, out=pyth.from_numpy(np.zeros(2, np.float32))),
               lambda: pyth.tensor([1]).div_(2), lambda: e.add_(1),
               lambda: pyth.tensor([[1, 2], [3]])):
        expect_error(fn)
    t = pyth.zeros(10)
    t.storage().resize_(2)
    for fn in (t.clone, lambda: t + 1, t.numpy, lambda: t[[0, 7]], lambda: t.fill_(1)):
        expect_error(fn)


def main():
    for part in (views_and_copies, pointwise, indexing, numpy_bridge, files_and_shared, errors):
        part()
        gc.collect()
    if os.environ.get("PYTH_VG_SELFTEST") == "1":
        from pyth.tensor import c_sizes
        leaked = lib.THFloatTensor_newWithSize(1, c_sizes([100]))  # deliberately never freed
        leaked = None  # noqa: F841  (the only pointer is dropped: a definite leak)
    gc.collect()
    stats = pyth.memory_stats()
    assert stats["live_bytes"] == 0 or os.environ.get("PYTH_VG_SELFTEST") == "1", stats
    print("valgrind smoke: done")


if __name__ == "__main__":
    main()
