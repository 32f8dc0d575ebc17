"""Oracle tests for the allocators behind storages (API.md "Storage", "Introspection").

Mapped files are checked against the file's bytes read back with numpy; shared memory against
what a forked child process writes; the counters of pyth.memory_stats() against the byte
counts the storages must hold (n elements * element size).
"""

from __future__ import annotations

import glob
import os
import threading

import numpy as np
import pytest
from _support import memory_counter, memory_now, settle
from pyth._th import ffi, lib

import pyth
from pyth._errors import check

ALLOCATORS = ("default", "mapped", "shared", "numpy")
COUNTERS = ("live_bytes", "peak_bytes", "live_allocations")


pytestmark = pytest.mark.usefixtures("frozen_gc")  # conftest.py: keeps gc.collect() cheap


def write_floats(path, values):
    np.asarray(values, dtype=np.float32).tofile(path)


def read_floats(path):
    return np.fromfile(path, dtype=np.float32).tolist()


def my_shm_names():
    return glob.glob(f"/dev/shm/pyth_{os.getpid()}_*")


# ---- from_file ----------------------------------------------------------------------------


def test_from_file_shared_writes_reach_the_file(tmp_path):
    path = tmp_path / "data.bin"
    vals = [1.5, -2.0, 3.25, 4.0, 5.0, 6.0]
    write_floats(path, vals)
    s = pyth.FloatStorage.from_file(str(path), shared=True, size=6)
    assert isinstance(s, pyth.FloatStorage)
    assert len(s) == 6
    assert s.tolist() == vals
    assert s.allocator_name() == "mapped"
    s[0] = 42.0
    s[-1] = -7.5
    assert read_floats(path) == [42.0, -2.0, 3.25, 4.0, 5.0, -7.5]
    # through a tensor view, too
    t = pyth.FloatTensor(s)
    t.fill_(0.5)
    assert read_floats(path) == [0.5] * 6
    del s, t
    settle()
    assert read_floats(path) == [0.5] * 6


def test_from_file_shared_sees_file_writes(tmp_path):
    path = tmp_path / "data.bin"
    write_floats(path, [0, 0, 0, 0])
    s = pyth.FloatStorage.from_file(str(path), shared=True, size=4)
    with open(path, "r+b") as f:
        f.seek(8)
        f.write(np.float32(9.0).tobytes())
    assert s.tolist() == [0.0, 0.0, 9.0, 0.0]


def test_from_file_private_writes_stay_private(tmp_path):
    path = tmp_path / "data.bin"
    vals = [1.0, 2.0, 3.0, 4.0]
    write_floats(path, vals)
    s = pyth.FloatStorage.from_file(str(path), shared=False, size=4)
    assert s.allocator_name() == "mapped"
    assert s.tolist() == vals
    s[1] = 100.0
    s.fill_(-1.0)
    s[2] = 8.0
    assert s.tolist() == [-1.0, -1.0, 8.0, -1.0]
    assert read_floats(path) == vals
    del s
    settle()
    assert read_floats(path) == vals
    # a second private mapping sees the file, not the first one's writes
    s2 = pyth.FloatStorage.from_file(str(path), shared=False, size=4)
    assert s2.tolist() == vals


@pytest.mark.parametrize("cls_name,np_dtype", [("DoubleStorage", np.float64),
                                                ("LongStorage", np.int64),
                                                ("ByteStorage", np.uint8),
                                                ("ShortStorage", np.int16)])
def test_from_file_other_types(tmp_path, cls_name, np_dtype):
    path = tmp_path / "data.bin"
    arr = np.arange(10, dtype=np_dtype) * 3
    arr.tofile(path)
    s = getattr(pyth, cls_name).from_file(str(path), shared=True, size=10)
    assert s.tolist() == arr.tolist()
    s[3] = 1
    assert np.fromfile(path, dtype=np_dtype)[3] == 1


def test_from_file_prefix_of_longer_file(tmp_path):
    path = tmp_path / "data.bin"
    write_floats(path, range(10))
    s = pyth.FloatStorage.from_file(str(path), shared=False, size=3)
    assert s.tolist() == [0.0, 1.0, 2.0]


def test_from_file_missing_raises(tmp_path):
    path = tmp_path / "nope.bin"
    with pytest.raises(RuntimeError, match=r"nope\.bin"):
        pyth.FloatStorage.from_file(str(path), shared=False, size=4)
    assert not path.exists()


def test_from_file_too_short_raises(tmp_path):
    path = tmp_path / "short.bin"
    write_floats(path, [1.0, 2.0])  # 8 bytes
    with pytest.raises(RuntimeError, match=r"(?s)short\.bin.*(8|16)"):
        pyth.FloatStorage.from_file(str(path), shared=False, size=4)
    assert read_floats(path) == [1.0, 2.0]  # untouched


def test_from_file_shared_creates_and_extends(tmp_path):
    # as TH / PyTorch: a shared mapping creates the file or grows it to size elements
    path = tmp_path / "new.bin"
    s = pyth.FloatStorage.from_file(str(path), shared=True, size=5)
    assert len(s) == 5
    assert os.path.getsize(path) == 20
    s.fill_(2.0)
    assert read_floats(path) == [2.0] * 5
    path2 = tmp_path / "short.bin"
    write_floats(path2, [7.0])
    s2 = pyth.FloatStorage.from_file(str(path2), shared=True, size=3)
    assert os.path.getsize(path2) == 12
    assert s2.tolist() == [7.0, 0.0, 0.0]


def test_from_file_errors_do_not_leak(tmp_path):
    before = memory_now()
    for _ in range(20):
        with pytest.raises(RuntimeError):
            pyth.FloatStorage.from_file(str(tmp_path / "missing.bin"), shared=False, size=4)
    after = memory_now()
    assert memory_counter(after, "mapped") == memory_counter(before, "mapped")
    assert memory_counter(after, "mapped", "live_allocations") == memory_counter(before, "mapped", "live_allocations")


def test_mapped_storage_cannot_resize(tmp_path):
    path = tmp_path / "data.bin"
    write_floats(path, [1, 2, 3, 4])
    s = pyth.FloatStorage.from_file(str(path), shared=True, size=4)
    with pytest.raises(RuntimeError, match=r"(?i)resize"):
        s.resize_(8)
    assert len(s) == 4
    assert s.tolist() == [1.0, 2.0, 3.0, 4.0]


# ---- set_ beyond a storage that cannot grow -------------------------------------------------


def test_set_beyond_mapped_storage_raises(tmp_path):
    path = tmp_path / "data.bin"
    write_floats(path, [1, 2, 3, 4])
    s = pyth.FloatStorage.from_file(str(path), shared=True, size=4)
    t = pyth.FloatTensor()
    with pytest.raises(RuntimeError):
        t.set_(s, 0, (5,))
    with pytest.raises(RuntimeError):
        t.set_(s, 2, (3,))
    with pytest.raises(RuntimeError):
        t.set_(s, 0, (2, 2), (1, 3))
    assert len(s) == 4
    # within bounds is fine and shares the mapping
    t.set_(s, 1, (3,))
    assert t.tolist() == [2.0, 3.0, 4.0]
    t.set_(s, 0, (2, 2), (1, 2))
    assert t.tolist() == [[1.0, 3.0], [2.0, 4.0]]
    t[0, 1] = 30.0
    assert read_floats(path) == [1.0, 2.0, 30.0, 4.0]


def test_set_beyond_numpy_storage_raises():
    a = np.arange(6, dtype=np.float64)
    base = pyth.from_numpy(a)
    s = base.storage()
    assert s.allocator_name() == "numpy"
    t = pyth.DoubleTensor()
    with pytest.raises(RuntimeError):
        t.set_(s, 0, (7,))
    with pytest.raises(RuntimeError):
        t.set_(s, 4, (3,))
    with pytest.raises(RuntimeError, match=r"(?i)resize"):
        s.resize_(100)
    assert len(s) == 6
    t.set_(s, 3, (3,))
    t[0] = -1.0
    assert a.tolist() == [0.0, 1.0, 2.0, -1.0, 4.0, 5.0]


def test_set_grows_default_storage():
    s = pyth.FloatStorage([1.0, 2.0, 3.0])
    t = pyth.FloatTensor()
    t.set_(s, 0, (10,))
    assert len(s) >= 10
    assert t.tolist()[:3] == [1.0, 2.0, 3.0]
    assert t.storage().data_ptr() == s.data_ptr()


# ---- shared memory ------------------------------------------------------------------------


@pytest.mark.parametrize("cls_name", ["FloatStorage", "LongStorage", "HalfStorage",
                                      "BoolStorage", "BFloat16Storage"])
def test_share_memory_moves_data(cls_name):
    cls = getattr(pyth, cls_name)
    vals = [1, 0, 1, 1, 0, 1, 0] if cls_name == "BoolStorage" else [1, 2, 3, 4, 5, 6, 7]
    s = cls(vals)
    want = s.tolist()
    assert not s.is_shared()
    assert s.allocator_name() == "default"
    r = s.share_memory_()
    assert r is s
    assert s.is_shared()
    assert s.allocator_name() == "shared"
    assert s.tolist() == want
    ptr = s.data_ptr()
    s.share_memory_()  # second time: nothing to do
    assert s.data_ptr() == ptr
    assert s.tolist() == want


def test_share_memory_views_follow():
    s = pyth.FloatStorage([0, 1, 2, 3, 4, 5])
    t = pyth.FloatTensor(s)
    v = t.narrow(0, 2, 3)
    s.share_memory_()
    assert t.data_ptr() == s.data_ptr()
    assert v.data_ptr() == s.data_ptr() + 2 * 4
    assert v.tolist() == [2.0, 3.0, 4.0]
    v[0] = 20.0
    assert s[2] == 20.0
    assert t.storage().is_shared()
    assert t.storage().allocator_name() == "shared"


def test_tensor_storage_share_memory():
    t = pyth.arange(12, dtype=pyth.int32).view(3, 4)
    t.storage().share_memory_()
    assert t.storage().is_shared()
    assert t.tolist() == np.arange(12).reshape(3, 4).tolist()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_shared_memory_is_shared_with_a_forked_child():
    shared = pyth.FloatStorage([0.0, 0.0, 0.0])
    shared.share_memory_()
    private = pyth.FloatStorage([0.0, 0.0, 0.0])
    pid = os.fork()
    if pid == 0:  # child
        try:
            shared[1] = 5.0
            private[1] = 5.0
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert shared.tolist() == [0.0, 5.0, 0.0]
    assert private.tolist() == [0.0, 0.0, 0.0]


def test_shared_memory_leaves_no_names_behind():
    before = set(my_shm_names())
    for n in (0, 1, 1000):
        s = pyth.FloatStorage(n)
        s.share_memory_()
        assert s.is_shared()
        assert len(s) == n
        del s
        settle()
    leftover = set(my_shm_names()) - before
    for name in leftover:  # do not leave the leak in /dev/shm
        os.unlink(name)
    assert not leftover, f"shared-memory objects not unlinked: {sorted(leftover)}"


def test_shared_memory_counters():
    before = memory_now()
    s = pyth.DoubleStorage(1000)
    mid = memory_now()
    assert memory_counter(mid, "default") - memory_counter(before, "default") == 8000
    s.share_memory_()
    after = memory_now()
    assert memory_counter(after, "shared") - memory_counter(before, "shared") == 8000
    n_shared = memory_counter(after, "shared", "live_allocations") - memory_counter(before, "shared", "live_allocations")
    assert n_shared == 1
    assert memory_counter(after, "default") == memory_counter(before, "default")
    del s
    end = memory_now()
    for a in ALLOCATORS:
        assert memory_counter(end, a) == memory_counter(before, a), a
        assert memory_counter(end, a, "live_allocations") == memory_counter(before, a, "live_allocations"), a


# ---- allocator names ----------------------------------------------------------------------


def test_allocator_names(tmp_path):
    assert pyth.FloatStorage(4).allocator_name() == "default"
    assert pyth.zeros(3, 3).storage().allocator_name() == "default"
    a = np.ones(5, dtype=np.float32)
    assert pyth.from_numpy(a).storage().allocator_name() == "numpy"
    # pyth.tensor copies: default memory
    assert pyth.tensor(a).storage().allocator_name() == "default"
    path = tmp_path / "f.bin"
    write_floats(path, [1, 2])
    assert pyth.FloatStorage.from_file(str(path), shared=False, size=2).allocator_name() == "mapped"
    s = pyth.FloatStorage(2)
    s.share_memory_()
    assert s.allocator_name() == "shared"


# ---- memory_stats -------------------------------------------------------------------------


def test_memory_stats_shape():
    st = pyth.memory_stats()
    assert isinstance(st, dict)
    for k in COUNTERS:
        assert isinstance(st[k], int) and st[k] >= 0, k
    assert st["peak_bytes"] >= st["live_bytes"]
    per = st["allocators"]
    for a in ALLOCATORS:
        assert a in per, a
        for k in COUNTERS:
            assert isinstance(per[a][k], int) and per[a][k] >= 0, (a, k)
        assert per[a]["peak_bytes"] >= per[a]["live_bytes"]
    # the totals are the sum over allocators
    assert st["live_bytes"] == sum(v["live_bytes"] for v in per.values())
    assert st["live_allocations"] == sum(v["live_allocations"] for v in per.values())


def test_memory_stats_returns_a_snapshot():
    a = pyth.memory_stats()
    keep = pyth.FloatStorage(256)
    b = pyth.memory_stats()
    assert b["live_bytes"] - a["live_bytes"] == 1024
    del keep


@pytest.mark.parametrize("name,itemsize", [("float32", 4), ("float64", 8), ("int16", 2),
                                           ("bfloat16", 2), ("bool", 1), ("int64", 8)])
def test_memory_stats_counts_tensors(name, itemsize):
    dt = getattr(pyth, name)
    before = memory_now()
    t = pyth.zeros(100, 30, dtype=dt)
    after = memory_now()
    n = 3000 * itemsize
    assert memory_counter(after) - memory_counter(before) == n
    assert memory_counter(after, "default") - memory_counter(before, "default") == n
    assert memory_counter(after, None, "live_allocations") - memory_counter(before, None, "live_allocations") == 1
    assert memory_counter(after, None, "peak_bytes") >= memory_counter(after)
    assert after["total_allocations"] - before["total_allocations"] >= 1
    # views add no memory
    views = [t.t(), t[::2], t.narrow(1, 3, 4), t.view(-1), t.unsqueeze(0).expand(3, 100, 30)]
    assert memory_counter(memory_now()) == memory_counter(after)
    del t
    assert memory_counter(memory_now()) == memory_counter(after)  # the views keep the storage alive
    del views
    end = memory_now()
    for k in ("live_bytes", "live_allocations"):
        assert memory_counter(end, None, k) == memory_counter(before, None, k), k
        assert memory_counter(end, "default", k) == memory_counter(before, "default", k), k


def test_memory_stats_peak():
    before = memory_now()
    big = pyth.empty(1 << 20, dtype=pyth.float64)  # 8 MiB, far above anything else alive
    peak_with = memory_now()["peak_bytes"]
    assert peak_with >= before["live_bytes"] + 8 * (1 << 20)
    del big
    end = memory_now()
    assert end["peak_bytes"] >= peak_with
    assert end["live_bytes"] == before["live_bytes"]


def test_memory_stats_follows_resize():
    before = memory_now()
    s = pyth.FloatStorage(100)
    s.resize_(1000)
    assert memory_counter(memory_now(), "default") - memory_counter(before, "default") == 4000
    s.resize_(10)
    assert memory_counter(memory_now(), "default") - memory_counter(before, "default") == 40
    assert (memory_counter(memory_now(), "default", "live_allocations")
            - memory_counter(before, "default", "live_allocations")) == 1
    s.resize_(0)
    assert memory_counter(memory_now(), "default") == memory_counter(before, "default")
    del s
    end = memory_now()
    assert memory_counter(end, "default") == memory_counter(before, "default")
    assert memory_counter(end, "default", "live_allocations") == memory_counter(before, "default", "live_allocations")


def test_memory_stats_mapped(tmp_path):
    path = tmp_path / "data.bin"
    write_floats(path, range(50))
    before = memory_now()
    s = pyth.FloatStorage.from_file(str(path), shared=False, size=50)
    mid = memory_now()
    assert memory_counter(mid, "mapped") - memory_counter(before, "mapped") == 200
    assert memory_counter(mid, "mapped", "live_allocations") - memory_counter(before, "mapped", "live_allocations") == 1
    assert memory_counter(mid, "default") == memory_counter(before, "default")
    t = pyth.FloatTensor(s)[10:20]
    del s
    assert memory_counter(memory_now(), "mapped") - memory_counter(before, "mapped") == 200
    del t
    end = memory_now()
    assert memory_counter(end, "mapped") == memory_counter(before, "mapped")
    assert memory_counter(end, "mapped", "live_allocations") == memory_counter(before, "mapped", "live_allocations")


def test_memory_stats_numpy():
    before = memory_now()
    a = np.arange(64, dtype=np.int32)
    t = pyth.from_numpy(a)
    mid = memory_now()
    assert memory_counter(mid, "numpy") - memory_counter(before, "numpy") == 256
    assert memory_counter(mid, "numpy", "live_allocations") - memory_counter(before, "numpy", "live_allocations") == 1
    assert memory_counter(mid, "default") == memory_counter(before, "default")
    del a, t
    end = memory_now()
    assert memory_counter(end, "numpy") == memory_counter(before, "numpy")
    assert memory_counter(end, "numpy", "live_allocations") == memory_counter(before, "numpy", "live_allocations")


def test_counters_return_to_baseline_after_many_tensors():
    before = memory_now()
    keep = []
    for i in range(200):
        t = pyth.ones(i % 17 + 1, 7, dtype=pyth.float64)
        u = t.float().t().contiguous()
        keep.append((t, u, u.clone(), t.storage()))
        if i % 3 == 0:
            keep.pop(0)
    assert memory_counter(memory_now()) > memory_counter(before)
    del keep, t, u
    end = memory_now()
    for k in ("live_bytes", "live_allocations"):
        assert memory_counter(end, None, k) == memory_counter(before, None, k), k


@pytest.mark.parametrize("nbytes, align", [(4, 64), ((4 << 20) - 1, 64), (4 << 20, 2 << 20),
                                           (64 << 20, 2 << 20)])
def test_default_allocator_alignment(nbytes, align):
    # 64 bytes (a cache line, an AVX-512 vector) always; 2 MiB from 4 MiB up, so the block can
    # sit on transparent huge pages (lib/THAllocator.c)
    s = pyth.ByteStorage(nbytes)
    assert s.data_ptr() % align == 0
    t = pyth.empty(nbytes // 4, dtype=pyth.float32)
    assert t.data_ptr() % (align if nbytes // 4 * 4 >= 4 << 20 else 64) == 0
    r = t + t  # a result allocated by the short path
    assert r.data_ptr() % (align if nbytes // 4 * 4 >= 4 << 20 else 64) == 0
    s.resize_(nbytes + 1)  # the realloc path
    assert s.data_ptr() % (2 << 20 if nbytes + 1 >= 4 << 20 else 64) == 0


# ---- per-thread counters (the allocation counts) ---------------------------------------------


def _counter(slot: int) -> int:
    out = ffi.new("int64_t *")
    check(lib.THThreadCounter_sum(slot, out))
    return out[0]


def test_thread_counters_add_up_every_threads_part():
    """A thread's part survives its exit: the sum is the same before and after the join."""
    slot = lib.TH_THREAD_COUNTERS - 1   # unused by the allocators
    base = _counter(slot)
    started, go = threading.Barrier(5), threading.Event()

    def add(n):
        check(lib.THThreadCounter_add(slot, n))
        started.wait(10)
        go.wait(10)

    threads = [threading.Thread(target=add, args=(10 ** i,)) for i in range(4)]
    for t in threads:
        t.start()
    started.wait(10)
    assert _counter(slot) - base == 1111   # living threads' parts
    go.set()
    for t in threads:
        t.join()
    check(lib.THThreadCounter_add(slot, 5))
    assert _counter(slot) - base == 1116   # exited threads' parts, and this one's
    check(lib.THThreadCounter_add(slot, -1116))
    assert _counter(slot) == base


@pytest.mark.parametrize("slot", [-1, 16, 2**31 - 1])
def test_thread_counter_slots_are_checked(slot):
    with pytest.raises(IndexError, match=rf"thread counter {slot} out of range \[0, 16\)"):
        check(lib.THThreadCounter_add(slot, 1))
    with pytest.raises(IndexError, match="out of range"):
        check(lib.THThreadCounter_sum(slot, ffi.new("int64_t *")))


def test_allocation_counts_from_many_threads():
    """Storages made on threads that exit, some freed there and some here, counted exactly."""
    before = memory_now()
    kept, lock = [], threading.Lock()

    def work():
        mine = [pyth.FloatStorage(n) for n in (3, 300, 30_000)]
        with lock:
            kept.append(mine.pop())
        del mine

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    mid = memory_now()
    for name in (None, "default"):
        assert memory_counter(mid, name, "live_allocations") - memory_counter(
            before, name, "live_allocations") == 6
        assert memory_counter(mid, name) - memory_counter(before, name) == 6 * 120_000
    assert mid["total_allocations"] - before["total_allocations"] == 18
    assert mid["allocators"]["default"]["total_allocations"] - before["allocators"]["default"][
        "total_allocations"] == 18
    del kept[:]
    end = memory_now()
    assert memory_counter(end, None, "live_allocations") == memory_counter(
        before, None, "live_allocations")
    assert end["live_bytes"] == before["live_bytes"]
