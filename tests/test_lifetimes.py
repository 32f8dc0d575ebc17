"""Lifetimes: who keeps whose memory alive (API.md "Storage", "Tensor", "numpy").

Each test drops the owning object, forces a collection and churns the allocator (so freed
memory would be reused and overwritten), then compares values with a numpy reference computed
up front. Refcounts are read from the C structs through the wrappers' handles (`t._h`, `s._h`);
memory_stats() checks that nothing is leaked once everything is gone.
"""

from __future__ import annotations

import sys
import threading
import time
import weakref

import numpy as np
import pytest
from _support import memory_counter, memory_now, settle

import pyth

pytestmark = pytest.mark.usefixtures("frozen_gc")  # conftest.py: keeps gc.collect() cheap


def churn():
    """Allocate and write memory so that anything freed too early gets overwritten."""
    junk = [pyth.full((257,), -999.0, dtype=pyth.float64) for _ in range(50)]
    junk += [np.full(257, -999.0) for _ in range(50)]
    del junk


def storage_refcount(t):
    return t._h.storage.refcount


def arange_tensor(shape, dtype=pyth.float64):
    n = int(np.prod(shape))
    return pyth.tensor(np.arange(n, dtype=np.float64).reshape(shape), dtype=dtype)


# ---- views outlive their bases ------------------------------------------------------------


VIEWS = {
    "narrow": (lambda t: t.narrow(1, 2, 3), lambda a: a[:, 2:5]),
    "select": (lambda t: t.select(0, 3), lambda a: a[3]),
    "transpose": (lambda t: t.transpose(0, 1), lambda a: a.T),
    "t": (lambda t: t.t(), lambda a: a.T),
    "slice_step": (lambda t: t[1::2, ::3], lambda a: a[1::2, ::3]),
    "view": (lambda t: t.view(-1), lambda a: a.reshape(-1)),
    "expand": (lambda t: t[2:3].expand(4, 6), lambda a: np.broadcast_to(a[2:3], (4, 6))),
    "unsqueeze": (lambda t: t.unsqueeze(1), lambda a: a[:, None]),
    "permute": (lambda t: t.view(5, 2, 3).permute(2, 0, 1),
                lambda a: a.reshape(5, 2, 3).transpose(2, 0, 1)),
    "diagonal": (lambda t: t.diagonal(), lambda a: np.diagonal(a)),
    "unfold": (lambda t: t[0].unfold(0, 2, 2), lambda a: a[0].reshape(3, 2)),
    "index_int": (lambda t: t[4, 5], lambda a: a[4, 5]),
    "as_strided": (lambda t: t.as_strided((3, 3), (7, 1), 1),
                   lambda a: np.lib.stride_tricks.as_strided(a.reshape(-1)[1:], (3, 3), (56, 8))),
}


@pytest.mark.parametrize("which", list(VIEWS))
@pytest.mark.parametrize("dtype", ["float64", "int32", "float16", "bfloat16"])
def test_view_outlives_base(which, dtype):
    make_view, ref_view = VIEWS[which]
    ref = np.arange(30, dtype=np.float64).reshape(5, 6)
    t = pyth.tensor(ref, dtype=getattr(pyth, dtype))
    v = make_view(t)
    want = np.array(ref_view(ref)).tolist()
    del t
    settle()
    churn()
    assert v.tolist() == want
    # the view still writes into live memory
    v.fill_(7)
    churn()
    assert np.array(v.tolist()).tolist() == np.full(np.shape(want), 7.0).tolist()


def test_chain_of_views_outlives_everything():
    ref = np.arange(4 * 5 * 6, dtype=np.float64).reshape(4, 5, 6)
    v = pyth.tensor(ref)
    r = ref
    steps = [(lambda x: x.transpose(0, 2), lambda a: a.transpose(2, 1, 0)),
             (lambda x: x.narrow(0, 1, 4), lambda a: a[1:5]),
             (lambda x: x[::2], lambda a: a[::2]),
             (lambda x: x.select(2, 1), lambda a: a[:, :, 1]),
             (lambda x: x.unsqueeze(0), lambda a: a[None]),
             (lambda x: x.expand(3, 2, 5), lambda a: np.broadcast_to(a, (3, 2, 5)))]
    for f, g in steps:
        v = f(v)  # drops the previous link
        r = g(r)
        settle()
    churn()
    assert v.tolist() == np.array(r).tolist()
    # only this last view and its root base (v._base, which a view keeps alive as PyTorch's
    # does) hold the storage: the intermediate links are gone
    assert v._base is not None and v._base._base is None
    assert storage_refcount(v) == 2


def test_iteration_rows_outlive_base():
    t = arange_tensor((4, 3))
    rows = list(t)
    del t
    settle()
    churn()
    assert [r.tolist() for r in rows] == np.arange(12.0).reshape(4, 3).tolist()


# ---- storages and tensors ------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "bfloat16"])
def test_storage_outlives_tensor(dtype):
    dt = getattr(pyth, dtype)
    t = pyth.tensor([[1, 0, 3], [4, 5, 0]], dtype=dt)
    want = np.array([1, 0, 3, 4, 5, 0]).astype(bool if dtype == "bool" else float).tolist()
    s = t.storage()
    assert storage_refcount(t) == 2  # the tensor and the storage wrapper
    del t
    settle()
    churn()
    assert s._h.refcount == 1
    assert s.tolist() == want
    s[0] = 0
    assert s[0] == 0


def test_storage_of_a_view_outlives_it():
    t = arange_tensor((6, 6)).t()[1:4]
    s = t.storage()
    off = t.storage_offset()
    del t
    settle()
    churn()
    assert len(s) == 36
    assert s.tolist() == list(map(float, range(36)))
    assert off == 1


def test_tensor_outlives_storage_object():
    s = pyth.FloatStorage([1, 2, 3, 4])
    t = pyth.FloatTensor(s)
    v = t[1:3]
    ptr = s.data_ptr()
    assert s._h.refcount == 3
    del s
    settle()
    churn()
    assert storage_refcount(t) == 2
    assert t.tolist() == [1.0, 2.0, 3.0, 4.0]
    assert v.tolist() == [2.0, 3.0]
    assert t.data_ptr() == ptr
    # a fresh storage object for the same memory
    s2 = t.storage()
    assert s2.data_ptr() == ptr and s2.tolist() == [1.0, 2.0, 3.0, 4.0]
    s2[0] = 10
    assert t[0].item() == 10.0


def test_set_keeps_the_new_storage_and_drops_the_old():
    old = pyth.FloatStorage([9, 9])
    t = pyth.FloatTensor(old)
    old_ref = weakref.ref(old)
    new = pyth.FloatStorage([1, 2, 3])
    rc_new = new._h.refcount
    t.set_(new)
    assert new._h.refcount == rc_new + 1
    assert old._h.refcount == 1  # only the Python object now
    del new, old
    settle()
    churn()
    assert old_ref() is None
    assert t.tolist() == [1.0, 2.0, 3.0]
    u = pyth.FloatTensor()
    u.set_(t)
    del t
    settle()
    churn()
    assert u.tolist() == [1.0, 2.0, 3.0]
    assert storage_refcount(u) == 1


def test_refcounts_follow_views():
    t = pyth.zeros(4, 5)
    assert t._h.refcount == 1
    base = storage_refcount(t)
    views = [t[1:], t.t(), t.view(20), t.narrow(0, 0, 2), t[0], t.expand(2, 4, 5)]
    assert storage_refcount(t) == base + len(views)
    for v in views:
        assert v._h.storage == t._h.storage  # the same C storage
        assert v._h.refcount == 1
    del v
    assert t.contiguous() is t
    assert storage_refcount(t) == base + len(views)
    c = t.clone()
    assert c._h.storage != t._h.storage and storage_refcount(c) == 1
    del views[:3]
    settle()
    assert storage_refcount(t) == base + 3
    del views
    settle()
    assert storage_refcount(t) == base


def test_storage_wrapper_refcount():
    t = pyth.zeros(3)
    rc = storage_refcount(t)
    s = t.storage()
    assert storage_refcount(t) == rc + 1
    assert s.data_ptr() == t.data_ptr()
    del s
    settle()
    assert storage_refcount(t) == rc


# ---- numpy ----------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float64", "float32", "int16", "uint8", "bool", "float16"])
def test_numpy_keeps_storage_alive(dtype):
    ref = (np.arange(600) % 7).reshape(20, 30).astype(dtype)
    before = memory_now()
    t = pyth.tensor(ref)
    a = t.numpy()
    b = t.t()[::3].numpy()
    assert a.ctypes.data == t.data_ptr()  # zero-copy
    del t
    settle()
    churn()
    assert np.array_equal(a, ref)
    assert np.array_equal(b, ref.T[::3])
    a[0, 0] = 1
    assert b[0, 0] == 1  # still the same memory
    assert memory_counter(memory_now(), "default") - memory_counter(before, "default") == ref.nbytes
    del a
    settle()
    churn()
    assert np.array_equal(b[1:], ref.T[::3][1:])
    del b
    end = memory_now()
    assert memory_counter(end, "default") == memory_counter(before, "default")
    assert memory_counter(end, None, "live_allocations") == memory_counter(before, None, "live_allocations")


def test_asarray_keeps_storage_alive():
    ref = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = pyth.tensor(ref)
    a = np.asarray(t)
    assert a.ctypes.data == t.data_ptr()
    del t
    settle()
    churn()
    assert np.array_equal(a, ref)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int8", "bool", "float16"])
def test_from_numpy_keeps_array_alive(dtype):
    before = memory_now()
    a = (np.arange(40) % 5).astype(dtype).reshape(8, 5)
    ref = a.copy()
    w = weakref.ref(a)
    t = pyth.from_numpy(a)
    assert t.data_ptr() == a.ctypes.data
    del a
    settle()
    assert w() is not None
    churn()
    assert t.tolist() == ref.tolist()
    mid = memory_now()
    assert memory_counter(mid, "numpy") - memory_counter(before, "numpy") == ref.nbytes
    assert memory_counter(mid, "numpy", "live_allocations") - memory_counter(before, "numpy", "live_allocations") == 1
    # writes go to the array
    t[0, 0] = 1
    assert w()[0, 0] == 1
    v = t[2:].t()
    del t
    settle()
    assert w() is not None  # the view keeps it too
    del v
    settle()
    assert w() is None
    end = memory_now()
    assert memory_counter(end, "numpy") == memory_counter(before, "numpy")
    assert memory_counter(end, "numpy", "live_allocations") == memory_counter(before, "numpy", "live_allocations")


def test_from_numpy_of_a_view_keeps_the_base_alive():
    base = np.arange(24, dtype=np.float64)  # owns its data
    wb = weakref.ref(base)
    t = pyth.from_numpy(base.reshape(4, 6)[1:, ::2])
    del base
    settle()
    churn()
    assert wb() is not None
    assert t.tolist() == np.arange(24.0).reshape(4, 6)[1:, ::2].tolist()
    del t
    settle()
    assert wb() is None


def test_from_numpy_holds_no_needless_references():
    a = np.arange(10.0)
    rc = sys.getrefcount(a)
    t = pyth.from_numpy(a)
    assert sys.getrefcount(a) >= rc + 1
    del t
    settle()
    assert sys.getrefcount(a) == rc


def test_round_trip_numpy_pyth_numpy():
    a = np.arange(10.0)
    wa = weakref.ref(a)
    b = pyth.from_numpy(a).numpy()
    del a
    settle()
    churn()
    assert b.tolist() == list(map(float, range(10)))
    assert wa() is not None
    del b
    settle()
    assert wa() is None


def test_many_from_numpy_and_numpy_return_to_baseline():
    before = memory_now()
    keep = []
    for i in range(300):
        a = np.full((i % 11 + 1, 3), float(i))
        t = pyth.from_numpy(a)
        keep.append((t.t(), t.numpy(), pyth.tensor(a).numpy()))
        del a, t
        if i % 4:
            keep.pop(0)
    settle()
    assert memory_counter(memory_now(), "numpy") > memory_counter(before, "numpy")
    del keep
    end = memory_now()
    for a in ("default", "numpy"):
        for k in ("live_bytes", "live_allocations"):
            assert memory_counter(end, a, k) == memory_counter(before, a, k), (a, k)


# ---- threads --------------------------------------------------------------------------------


def test_threaded_views_and_copies_stress():
    settle()
    before = pyth.memory_stats()
    rows, cols = 64, 48
    ref = np.arange(rows * cols, dtype=np.float64).reshape(rows, cols)
    shared = pyth.tensor(ref)
    out = pyth.zeros(8, 16, cols, dtype=pyth.float64)  # each thread writes its own slab
    errors: list = []
    counts = [0] * 8
    stop = time.monotonic() + 2.0

    def work(k: int) -> None:
        rng = np.random.default_rng(k)
        try:
            mine = out.select(0, k)
            it = 0
            while time.monotonic() < stop:
                i = int(rng.integers(0, rows - 16))
                j = int(rng.integers(0, cols - 8))
                v = shared.narrow(0, i, 16)
                w = v.transpose(0, 1)
                x = w[j:j + 8:2]
                c = x.clone()
                f = x.float()
                e = shared[i:i + 1].expand(3, cols)
                s = shared.storage()
                mine.copy_(v)  # a copy into a disjoint region of one shared storage
                if it % 8 == 0:
                    assert np.array_equal(c.numpy(), ref[i:i + 16].T[j:j + 8:2])
                    assert np.array_equal(f.numpy(), ref[i:i + 16].T[j:j + 8:2].astype(np.float32))
                    assert np.array_equal(e.numpy(), np.broadcast_to(ref[i:i + 1], (3, cols)))
                    assert len(s) == rows * cols
                    assert np.array_equal(mine.numpy(), ref[i:i + 16])
                a = pyth.from_numpy(ref[i:i + 2]).t().contiguous().numpy()
                assert a.shape == (cols, 2)
                del v, w, x, c, f, e, s, a
                it += 1
            mine.copy_(shared.narrow(0, k, 16))
            counts[k] = it
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    assert not any(th.is_alive() for th in threads)
    assert not errors, errors[0]
    assert all(c > 0 for c in counts)
    assert np.array_equal(shared.numpy(), ref)  # never written
    for k in range(8):
        assert np.array_equal(out[k].numpy(), ref[k:k + 16]), k
    assert storage_refcount(shared) == 1  # every view from the threads is gone
    del shared, out
    settle()
    end = pyth.memory_stats()
    for a in ("default", "numpy"):
        for key in ("live_bytes", "live_allocations"):
            assert memory_counter(end, a, key) == memory_counter(before, a, key), (a, key)


def test_threaded_refcount_hammer():
    """Retain/free from many threads at once must leave the count exact."""
    t = pyth.ones(10)
    base = storage_refcount(t)
    barrier = threading.Barrier(8)
    held: list = [None] * 8

    def work(k: int) -> None:
        barrier.wait()
        mine = []
        for _ in range(2000):
            mine.append(t[1:])
            if len(mine) > 50:
                mine.clear()
        held[k] = mine

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert storage_refcount(t) == base + sum(len(h) for h in held)
    held.clear()
    settle()
    assert storage_refcount(t) == base
