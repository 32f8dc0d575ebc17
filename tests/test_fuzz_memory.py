"""Fuzzing the memory rules of the core: geometry near the int64 limits, exports
that outlive mutations of their tensor, threads that mutate structure under other threads'
ops, and foreign numpy memory (read-only, misaligned, odd bool bytes).

Each property holds for any drawn case: a call ends in the right answer or a typed exception
(never a crash, which the sanitized run of this suite would also catch as a bad access).
"""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest
from _support import DTYPE_NAMES, NP_CARRIER, pdt
from hypothesis import assume, given
from hypothesis import strategies as st
from pyth._th import lib

import pyth

TYPED = (IndexError, RuntimeError, TypeError, ValueError, MemoryError)
I64 = 2**63 - 1

# ---- geometry near the limits -----------------------------------------------------------------

# values that probe the edges of int64 arithmetic: small, near 2^31, 2^32, 2^62, 2^63
EDGE = st.one_of(st.integers(0, 8), st.sampled_from([2**31 - 1, 2**31, 2**32, 2**62 - 1, 2**62,
                                                    2**62 + 1, I64 - 2, I64 - 1, I64]),
                 st.integers(0, I64))


@given(size=st.lists(EDGE, min_size=0, max_size=4), stride=st.lists(EDGE, min_size=4,
                                                                    max_size=4),
       offset=EDGE, n=st.integers(0, 64))
def test_as_strided_at_the_edges_is_inside_or_refused(size, stride, offset, n):
    base = pyth.arange(float(n))
    try:
        v = base.as_strided(size, stride[:len(size)], offset)
    except TYPED:
        return
    # accepted: every element it reaches lies inside the storage, so reading and writing work
    v.fill_(1)    # a stride-0 dim of 2^40 is one element written once
    if v.numel() <= 2**20:
        assert v.sum().item() == v.numel()
    elif v.numel():   # only stride-0 dims make a view this large: its corners show the reach
        assert v[(0,) * v.dim()].item() == 1 and v[(-1,) * v.dim()].item() == 1
    assert len(v.storage()) == n


@given(start=EDGE, length=EDGE, n=st.integers(0, 16), neg=st.booleans())
def test_narrow_at_the_edges(start, length, n, neg):
    t = pyth.arange(float(n))
    s = -start if neg else start
    b = s + n if s < 0 else s
    ok = -n <= s <= n and 0 <= length and b + length <= n
    try:
        v = t.narrow(0, s, length)
    except TYPED:
        assert not ok
        return
    assert ok and v.tolist() == t.tolist()[b:b + length]


@given(sizes=st.lists(EDGE, min_size=1, max_size=4), zero=st.integers(0, 3),
       op=st.sampled_from(["sum", "prod", "amax", "mean", "sort", "cumsum", "logsumexp",
                           "argmax", "var", "std"]), dim=st.integers(-4, 3))
def test_empty_tensors_with_huge_dims(sizes, zero, op, dim):
    sizes[zero % len(sizes)] = 0
    try:
        t = pyth.zeros(1).as_strided(sizes, [0] * len(sizes))
    except TYPED:
        return
    if op not in ("sort", "cumsum") and -len(sizes) <= dim < len(sizes):
        # a reduction's result keeps the other dims: (0, 2^31) summed over dim 0 is a real
        # 2^31-element tensor (8 GiB of zeros), which the machine may not have room for
        rest = sizes[:dim % len(sizes)] + sizes[dim % len(sizes) + 1:]
        assume(math.prod(rest) <= 2**24)
    try:
        r = getattr(t, op)(dim)
    except TYPED:
        return
    r = r[0] if isinstance(r, tuple) else r
    assert r.numel() <= 2**31  # nothing huge was materialised


# ---- exports that outlive mutations -------------------------------------------------------------

MUTATIONS = {
    "resize_grow": lambda t: t.resize_(min(t.numel() * 4 + 100, 20000)),
    "resize_shrink": lambda t: t.resize_(1),
    "storage_resize": lambda t: t.storage().resize_(3),
    "set_empty": lambda t: t.set_(),
    "set_other": lambda t: t.set_(pyth.zeros(7).storage()),
    "share": lambda t: t.storage().share_memory_(),
    "out_resize": lambda t: pyth.add(pyth.ones(min(t.numel() + 50, 20000)), 1, out=t),
}


@given(n=st.integers(1, 200), muts=st.lists(st.sampled_from(sorted(MUTATIONS)), max_size=4),
       via=st.sampled_from(["numpy", "asarray", "view_numpy"]))
def test_exports_stay_valid_through_mutations(n, muts, via):
    t = pyth.arange(float(n))
    a = {"numpy": t.numpy, "asarray": lambda: np.asarray(t),
         "view_numpy": lambda: t[n // 2:].numpy()}[via]()
    before = a.copy()
    for m in muts:
        try:
            MUTATIONS[m](t)
        except TYPED:
            pass
    # the array still reads and writes the memory it was given (an out= write may have
    # changed values through the tensor, which is legitimate)
    if "out_resize" not in muts:
        assert np.array_equal(a, before)
    a[...] = 7
    assert (a == 7).all()
    del a
    assert lib.THCall_active() == 1


# ---- threads mutating structure -----------------------------------------------------------------

READS = {
    "sum": lambda t: t.sum(),
    "tolist": lambda t: t.tolist(),
    "storage": lambda t: t.storage(),
    "slice": lambda t: t[1:].clone(),
    "numpy": lambda t: t.numpy().sum(),
    "shape": lambda t: (t.shape, t.stride(), t.storage_offset()),
    "index": lambda t: t[pyth.tensor([0])] if t.numel() else t,
}


@given(reads=st.lists(st.sampled_from(sorted(READS)), min_size=1, max_size=3),
       muts=st.lists(st.sampled_from(sorted(MUTATIONS)), min_size=1, max_size=3),
       rounds=st.integers(5, 40))
def test_threads_mutating_structure(reads, muts, rounds):
    t = pyth.arange(300.)
    stop = threading.Event()

    def reader():
        while not stop.is_set():
            for r in reads:
                try:
                    READS[r](t)
                except TYPED:
                    pass

    th = threading.Thread(target=reader)
    th.start()
    try:
        for i in range(rounds):
            try:
                MUTATIONS[muts[i % len(muts)]](t)
            except TYPED:
                pass
            if t.numel() == 0:
                t.set_(pyth.arange(float(10 + i)).storage())
    finally:
        stop.set()
        th.join()
    assert lib.THCall_active() == 1


# ---- foreign numpy memory ----------------------------------------------------------------------

@given(name=st.sampled_from([d for d in DTYPE_NAMES if d != "bfloat16"]),
       n=st.integers(1, 40), shift=st.integers(0, 7), readonly=st.booleans(),
       step=st.integers(1, 3))
def test_foreign_memory_is_honoured(name, n, shift, readonly, step):
    dt = NP_CARRIER[name]
    raw = np.zeros(n * step * dt.itemsize + shift + 8, np.uint8)
    a = raw[shift:shift + n * step * dt.itemsize].view(dt)[::step]
    a[...] = np.arange(n) % 2 if name == "bool" else np.arange(n).astype(dt)
    if readonly:
        a.flags.writeable = False
    snapshot = raw.copy()
    t = pyth.from_numpy(a)
    assert t.dtype is pdt(name)
    assert t.data_ptr() % dt.itemsize == 0
    assert t.tolist() == a.tolist()
    shares = t.data_ptr() == a.ctypes.data
    assert shares == (not readonly and a.ctypes.data % dt.itemsize == 0)
    t.fill_(1)
    if not shares:
        assert np.array_equal(raw, snapshot)  # never written through a copy's source


@given(raw=st.lists(st.integers(0, 255), min_size=1, max_size=40))
def test_bool_bytes_read_as_non_zero_is_true(raw):
    b = np.array(raw, np.uint8)
    t = pyth.from_numpy(b.view(bool))
    truth = [x != 0 for x in raw]
    assert t.tolist() == truth
    assert t.sum().item() == sum(truth)
    assert pyth.logical_not(t).tolist() == [not x for x in truth]
    assert t.any().item() == any(truth) and t.all().item() == all(truth)
