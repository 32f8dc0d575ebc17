"""Threads: 8 Python threads hammer shared tensors and their views for a few seconds.

cffi releases the GIL around every C call, so the core really runs concurrently: refcounts
(C11 atomics), allocator counters, thread-local error messages, OpenMP teams started from
several threads, the numpy bridge's release callback. Every thread checks its results exactly
against numpy values computed up front; afterwards the shared tensors' refcounts
(`t._h.refcount`, `t._h.storage.refcount`), memory_stats(), the core's metadata blocks and
the numpy bridge's table are back to their baselines.
"""

from __future__ import annotations

import gc
import re
import sys
import threading
import time

import numpy as np
import pytest
from pyth._th import ffi, lib

import pyth
from pyth import _numpy

THREADS = 8
SECONDS = 3.0


def meters() -> dict:
    gc.collect()
    st = pyth.memory_stats()
    return {"blocks": lib.THAlloc_liveCount(), "borrowed": len(_numpy._borrowed),
            "live_bytes": st["live_bytes"], "live_allocations": st["live_allocations"]}


@pytest.fixture
def fast_switching():
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # interleave Python code between C calls as much as possible
    yield
    sys.setswitchinterval(old)


def run_threads(worker, n: int = THREADS, seconds: float = SECONDS) -> list:
    """Runs worker(k, deadline) in n threads; returns the exceptions they raised."""
    errors: list = []
    start = threading.Barrier(n)
    deadline = time.monotonic() + seconds

    def body(k):
        try:
            start.wait()
            worker(k, deadline)
        except BaseException as e:  # noqa: BLE001  (reported by the test)
            errors.append((k, e))
    threads = [threading.Thread(target=body, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=seconds + 60)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    return errors


def test_shared_tensors_views_and_ops_from_8_threads(fast_switching):
    big_np = np.arange(256 * 256, dtype=np.float64).reshape(256, 256) % 97  # > grain: OpenMP
    small_np = np.arange(60, dtype=np.int32).reshape(3, 4, 5)
    shared_np = np.arange(1000, dtype=np.float32)
    big = pyth.tensor(big_np)
    small = pyth.tensor(small_np)
    borrowed = pyth.from_numpy(shared_np)  # memory borrowed from numpy, shared by all
    out = pyth.zeros(THREADS, 64)  # each thread writes its own row
    expected = {
        "big_t_plus": big_np.T + big_np,
        "big_sq": big_np * big_np - 3,
        "small_perm": small_np.transpose(2, 0, 1)[:, 1:, ::2].copy(),
        "small_sum": small_np[:, :, 0] + small_np[:, 0, :1],
        "borrowed": shared_np[100:200:3] * 2,
    }
    base = meters()
    refs = {name: (t._h.refcount, t._h.storage.refcount)
            for name, t in {"big": big, "small": small, "borrowed": borrowed, "out": out}.items()}

    done = [0] * THREADS

    def worker(k, deadline):
        i = 0
        row = out[k]
        while time.monotonic() < deadline:
            op = (i + k) % 8
            if op == 0:
                r = big.t() + big  # transposed operand, tiled and threaded
                assert np.array_equal(r.numpy(), expected["big_t_plus"])
            elif op == 1:
                r = pyth.sub(big * big, 3)
                assert np.array_equal(r.numpy(), expected["big_sq"])
            elif op == 2:
                v = small.permute(2, 0, 1)[:, 1:, ::2]
                assert np.array_equal(v.contiguous().numpy(), expected["small_perm"])
            elif op == 3:
                r = small.select(2, 0) + small[:, 0, :1]
                assert np.array_equal(r.numpy(), expected["small_sum"])
            elif op == 4:
                r = borrowed[100:200:3] * 2
                assert np.array_equal(r.numpy(), expected["borrowed"])
                a = pyth.from_numpy(shared_np[::7])  # more borrowers of the same array
                assert a.numel() == 143 and a[1].item() == 7.0
            elif op == 5:
                row.fill_(float(k))
                row.add_(float(i % 5))
                assert np.array_equal(row.numpy(), np.full(64, k + i % 5, np.float32))
            elif op == 6:
                views = [big[j % 256] for j in range(50)] + [small.expand(2, 3, 4, 5)] * 5
                s = big.storage()
                assert s.data_ptr() == big.data_ptr()
                del views, s
            else:
                # thread-local errors: each thread's message names its own sizes
                n = 10 + k
                with pytest.raises(RuntimeError, match=rf"start 5 \+ length {n} exceeds size 7"):
                    pyth.zeros(7).narrow(0, 5, n)
                with pytest.raises(IndexError, match=rf"index {n} is out of range"):
                    small.select(1, n)
            i += 1
        done[k] = i

    errors = run_threads(worker)
    assert not errors, errors[:3]
    assert sum(done) >= THREADS * 8, f"too little work to mean anything: {done}"
    assert np.array_equal(big.numpy(), big_np)
    assert np.array_equal(shared_np, np.arange(1000, dtype=np.float32))
    for name, t in {"big": big, "small": small, "borrowed": borrowed, "out": out}.items():
        assert (t._h.refcount, t._h.storage.refcount) == refs[name], name
    assert meters() == base


def test_refcount_churn_on_one_storage(fast_switching):
    """Retain/free races: 8 threads make and drop views and storages of one tensor."""
    t = pyth.arange(1000.)
    before = (t._h.refcount, t._h.storage.refcount)
    base = meters()

    def worker(k, deadline):
        while time.monotonic() < deadline:
            views = [t.narrow(0, j, 10) for j in range(k, 900, 37)]
            views += [v.t() if v.dim() == 2 else v.unsqueeze(0) for v in views]
            clones = [v.clone() for v in views[:3]]
            st = [v.storage() for v in views[:5]]
            assert all(s.data_ptr() == t.data_ptr() for s in st)
            assert clones[0][0].item() == float(k)
            del views, clones, st

    errors = run_threads(worker)
    assert not errors, errors[:3]
    assert (t._h.refcount, t._h.storage.refcount) == before
    assert meters() == base


def test_concurrent_failures_keep_their_own_messages(fast_switching):
    """The error kind and message are thread-local: failures in 8 threads at once never see
    another thread's message (or an empty one)."""
    def worker(k, deadline):
        v = pyth.zeros(5 + k)
        while time.monotonic() < deadline:
            try:
                v.narrow(0, 0, 100 + k)
            except RuntimeError as e:
                assert re.search(rf"length {100 + k} exceeds size {5 + k} of dim 0", str(e)), e
            try:
                pyth.FloatStorage(-(k + 1))
            except ValueError as e:
                assert f"negative storage size {-(k + 1)}" in str(e), e

    errors = run_threads(worker, seconds=1.5)
    assert not errors, errors[:3]


@pytest.mark.parametrize("plan", ["AUTO", "ONE", "SLABS", "POOL"])
def test_products_from_threads_stay_exact(plan):
    """Products from 4 threads at once, in each of the ways lib/THBlas.c runs them (auto: as
    the timing falls, with pointwise teams coming and going); every result matches numpy, and
    OpenBLAS is back to one thread afterwards."""
    rng = np.random.default_rng(3)
    mats = {n: rng.standard_normal((n, n)) for n in (96, 160, 256)}
    want = {n: m @ m.T for n, m in mats.items()}
    ts = {n: pyth.from_numpy(m) for n, m in mats.items()}
    wave = pyth.ones(1 << 21)

    def worker(k, deadline):
        i = 0
        while time.monotonic() < deadline:
            n = (96, 160, 256)[(i + k) % 3]
            if k == 0 and i % 4 == 0:
                wave.sin_()   # a team: auto's next products in slabs
            r = ts[n] @ ts[n].t()
            np.testing.assert_allclose(r.numpy(), want[n], rtol=1e-12, atol=1e-9)
            i += 1

    prev = ffi.new("int *")
    lib.THBlas_forcePlan(getattr(lib, f"TH_GEMM_{plan}"), prev)
    try:
        errors = run_threads(worker, n=4, seconds=0.7)
    finally:
        lib.THBlas_forcePlan(prev[0], ffi.NULL)
    assert not errors, errors[:3]
    assert lib.THBlas_getNumThreads() == 1


# An LSTM language model step (batch 20, hidden 256) runs ops far below the grain: a thread team
# there costs more than the op, and on a loaded 2-core machine a second thread waits for a core.
@pytest.mark.parametrize("what,elements,nbytes", [
    ("20x1024 float32 gate add (three operands)", 20 * 1024, 3 * 4),
    ("20x256 float32 tanh (two operands, transcendental)", 20 * 256, 2 * 4 * 4),
    ("sum of 4096 float32", 4096, 4),
    ("sum of 20x10000 float32 logits", 20 * 10000, 4),
])
def test_lstm_step_ops_stay_on_one_thread(what, elements, nbytes):
    old = pyth.get_num_threads()
    pyth.set_num_threads(2)
    try:
        assert lib.THParallel_worth(elements, nbytes) == 0, what
        assert lib.THParallel_worth(1 << 20, 3 * 4) == 1   # a large add does split
    finally:
        pyth.set_num_threads(old)


def test_set_num_threads_keeps_openblas_at_one_thread():
    """pyth's OpenMP team is the process's one pool: whatever set_num_threads says, OpenBLAS
    is left at one thread between calls, so the two pools never hold the cores together."""
    old = pyth.get_num_threads()
    a = pyth.from_numpy(np.random.default_rng(5).standard_normal((300, 300)))
    try:
        for n in (1, 2, 1):
            pyth.set_num_threads(n)
            assert pyth.get_num_threads() == n
            (a @ a).sum()
            assert lib.THBlas_getNumThreads() == 1
    finally:
        pyth.set_num_threads(old)


def test_conv_results_match_at_one_and_two_threads():
    """The batch split between threads changes nothing a user can see: forward and both
    gradients of a 3x3 convolution agree at 1 and 2 threads (to rounding: a product split
    into slabs may sum in another order), and with PyTorch."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    x_np = rng.standard_normal((6, 8, 13, 11))
    w_np = rng.standard_normal((5, 8, 3, 3))
    old = pyth.get_num_threads()
    got = []
    try:
        for n in (1, 2):
            pyth.set_num_threads(n)
            x = pyth.from_numpy(x_np.copy()).requires_grad_(True)
            w = pyth.from_numpy(w_np.copy()).requires_grad_(True)
            y = pyth.nn.functional.conv2d(x, w, padding=1)
            (y * y).sum().backward()
            got.append((y.detach().numpy(), x.grad.numpy(), w.grad.numpy()))
    finally:
        pyth.set_num_threads(old)
    tx = torch.from_numpy(x_np).requires_grad_(True)
    tw = torch.from_numpy(w_np).requires_grad_(True)
    ty = torch.nn.functional.conv2d(tx, tw, padding=1)
    (ty * ty).sum().backward()
    want = (ty.detach().numpy(), tx.grad.numpy(), tw.grad.numpy())
    for one, two, ref in zip(*got, want):
        np.testing.assert_allclose(one, two, rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(one, ref, rtol=1e-10, atol=1e-10)
