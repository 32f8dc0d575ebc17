"""Leaks: many create/view/copy/free cycles and many failing calls leave nothing behind.

Three meters, read after gc.collect():
  - pyth.memory_stats(): live bytes and allocations of every allocator (storage data);
  - lib.THAlloc_liveCount(): the core's metadata blocks (tensor and storage headers, size
    arrays, allocator contexts), which memory_stats does not see;
  - the process's resident set (/proc/self/statm), which catches anything else, including
    Python-side references that keep C objects alive.
Each workload runs once to warm caches, then for real; the meters must return exactly to the
baseline (RSS: within a small bound). Every error path listed in FAILING_CALLS is exercised.
"""

from __future__ import annotations

import gc
import os

import numpy as np
import pytest
from pyth._th import lib

import pyth
from pyth import _numpy

CYCLES = 100_000
FAILURES = 10_000
RSS_SLACK_MB = 16
UNDER_ASAN = "libasan" in os.environ.get("LD_PRELOAD", "")


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def meters() -> dict:
    gc.collect()
    st = pyth.memory_stats()
    out = {"blocks": lib.THAlloc_liveCount(), "borrowed_arrays": len(_numpy._borrowed),
           "live_bytes": st["live_bytes"], "live_allocations": st["live_allocations"]}
    for name, a in st["allocators"].items():
        out[f"{name}.live_bytes"] = a["live_bytes"]
        out[f"{name}.live_allocations"] = a["live_allocations"]
    return out


pytestmark = pytest.mark.usefixtures("frozen_gc")  # conftest.py: keeps gc.collect() cheap


def assert_no_growth(workload, n: int) -> None:
    workload(max(n // 50, 10))  # warm up: caches, interned objects, allocator pools
    before, rss0 = meters(), rss_mb()
    workload(n)
    after, rss1 = meters(), rss_mb()
    grown = {k: (before[k], after[k]) for k in before if before[k] != after[k]}
    assert not grown, f"not back to baseline after {n} iterations: {grown}"
    if not UNDER_ASAN:  # ASan's quarantine holds freed memory on purpose (up to 256 MB)
        assert rss1 - rss0 < RSS_SLACK_MB, f"RSS grew by {rss1 - rss0:.1f} MB over {n} iterations"


# ---- create / view / copy / free -----------------------------------------------------------------

_DTYPES = [pyth.float32, pyth.int64, pyth.uint8, pyth.float16, pyth.bfloat16, pyth.bool,
           pyth.float64, pyth.int16]


def _cycles(n: int) -> None:
    """n cycles, each: create, view, copy, free (the kinds of each rotate)."""
    arr = np.arange(12, dtype=np.float32).reshape(3, 4)
    for i in range(n):
        dt = _DTYPES[i % len(_DTYPES)]
        k = i % 7
        if k == 0:
            t = pyth.zeros(3, 4, dtype=dt)  # not empty(): garbage is no valid bool
            c = t.t().narrow(0, 1, 2).clone()
        elif k == 1:
            t = pyth.zeros(3, 4, dtype=dt)
            c = pyth.empty(2, 2, dtype=pyth.float64).copy_(t[1:, ::2])
        elif k == 2:
            t = pyth.zeros(12, dtype=dt)
            c = t.unfold(0, 4, 2).diagonal().to(pyth.int32)
        elif k == 3:
            t = pyth.from_numpy(arr).t()  # borrowed memory, released with the last view
            c = t.reshape(12)  # a copy: t is not viewable
        elif k == 4:
            t = pyth.ones(3, 4, dtype=dt)
            c = t[[0, 2]]
        elif k == 5:
            t = pyth.ones(4, dtype=dt)
            c = t.expand(2, 4).contiguous().storage()
        else:
            s = dt.storage_class(5)
            t = dt.tensor_class(s).set_(s, 1, (2, 2), (1, 1))
            c = t.resize_(3).numpy() if dt is not pyth.bfloat16 else t.clone()
        del t, c


def test_create_view_copy_free_cycles_return_to_baseline():
    assert_no_growth(_cycles, CYCLES)


def test_pointwise_cycles_return_to_baseline():
    """Every form of a pointwise op (new result, out=, in-place, casting through a temporary,
    operands that partially overlap the output and are refused)."""
    def work(n):
        for i in range(n):
            a = pyth.ones(4, 4)
            b = pyth.arange(4, dtype=pyth.int32)
            r = a + b
            pyth.mul(a, 2, out=r)
            pyth.exp(b, out=pyth.empty(0, dtype=pyth.float64))  # cast through a temporary
            with pytest.raises(RuntimeError, match="single memory location"):
                a.add_(a.t())  # partial overlap: refused after the output was checked
            with pytest.raises(RuntimeError, match="single memory location"):
                pyth.where(a > 2, a, a.t(), out=a)
            r.clamp_(0, 5)
            del a, b, r
    assert_no_growth(work, CYCLES // 10)


def test_mapped_and_shared_storages_return_to_baseline(tmp_path):
    path = str(tmp_path / "m.bin")

    def work(n):
        for i in range(n):
            m = pyth.FloatStorage.from_file(path, shared=True, size=16)
            t = pyth.FloatTensor(m).view(4, 4)
            t.fill_(i)
            s = pyth.FloatStorage(8).share_memory_()
            pyth.FloatTensor(s).copy_(t[0].repeat(2) if hasattr(t, "repeat") else t.view(16)[:8])
            del m, t, s
    assert_no_growth(work, 2_000)


# ---- failing calls: every error path frees what it took -----------------------------------------

def _failing_calls(tmpdir: str):
    small = os.path.join(tmpdir, "small.bin")
    with open(small, "wb") as f:
        f.write(b"\0" * 8)
    v = pyth.arange(5.)
    m = pyth.arange(6.).view(2, 3)
    i = pyth.tensor([1, 2, 3])
    e = pyth.zeros(3).expand(3, 3)
    borrowed = pyth.from_numpy(np.zeros(2, np.float32))
    return [
        lambda: pyth.empty(-1),                                  # size checks
        lambda: pyth.empty(2**62, 4),                            # numel overflow
        lambda: pyth.FloatStorage(2**62),                        # bytes overflow
        lambda: pyth.empty(2**42),                               # allocation failure
        lambda: pyth.FloatStorage.from_file(os.path.join(tmpdir, "none"), size=4),  # open fails
        lambda: pyth.FloatStorage.from_file(small, size=100),    # context made, map refused
        lambda: pyth.FloatStorage.from_file(small, shared=True, size=-1),  # context, bad size
        lambda: pyth.FloatStorage.from_file(tmpdir),             # mmap of a directory fails
        lambda: v.narrow(0, 4, 2),                               # view checks after new header
        lambda: v.unfold(0, 9, 1),
        lambda: m.t().view(6),
        lambda: m.expand(3, 2),
        lambda: m.permute(0, 0),
        lambda: v.as_strided((10,), (1,)),
        lambda: m.diagonal(0, 1, 1),
        lambda: pyth.zeros(3).copy_(pyth.zeros(4)),
        lambda: e.copy_(pyth.ones(3, 3)),
        lambda: v[[0, 9]],
        lambda: m[[0, 1], [0, 1, 2]],
        lambda: m.__setitem__([0, 1], pyth.zeros(5)),
        lambda: pyth.add(m, pyth.zeros(4)),                      # broadcast error
        lambda: i // pyth.zeros(3, dtype=pyth.int64),            # error after the result exists
        lambda: pyth.remainder(i, 0, out=pyth.zeros(3, dtype=pyth.int64)),
        lambda: pyth.add(v, v, out=pyth.zeros(5, dtype=pyth.int32)),   # cast refused
        lambda: pyth.add(v, v, out=borrowed),                    # resize of borrowed refused
        lambda: i.add_(1.5),
        lambda: pyth.zeros(3).add_(pyth.zeros(2, 3)),
        lambda: i.div_(2),                                       # temporary, then refused
        lambda: e.add_(1),
        lambda: pyth.from_numpy(np.zeros(3)[::-1]),
        lambda: borrowed.storage().resize_(10),
        lambda: pyth.FloatTensor().set_(borrowed.storage(), 0, (5,)),
        lambda: pyth.tensor([[1, 2], [3]]),
        lambda: pyth.IntTensor(2).fill_(2**40),
        lambda: v.fill_("x"),
    ]


def test_failing_calls_return_to_baseline(tmp_path):
    calls = _failing_calls(str(tmp_path))

    def work(n):
        for k in range(n):
            with pytest.raises((IndexError, RuntimeError, TypeError, ValueError, MemoryError)):
                calls[k % len(calls)]()
    assert_no_growth(work, FAILURES)
    assert len(calls) >= 30


def test_the_meters_can_see_a_leak():
    """The test is able to fail: a deliberately leaked tensor header and storage show up."""
    before = meters()
    from pyth.tensor import c_sizes
    ptr = lib.THFloatTensor_newWithSize(1, c_sizes([8]))
    try:
        after = meters()
        assert after["blocks"] > before["blocks"]
        assert after["default.live_bytes"] == before["default.live_bytes"] + 32
    finally:
        lib.THFloatTensor_free(ptr)
    assert meters() == before
