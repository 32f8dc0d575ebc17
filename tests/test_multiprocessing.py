"""pyth.multiprocessing: tensors travel through POSIX shared memory (by descriptor or by path),
writes are seen across processes, and nothing is left in /dev/shm or the fd table."""

import gc
import os
import signal

import pytest

import pyth
import pyth.multiprocessing as mp


def _shm_entries():
    try:
        return {n for n in os.listdir("/dev/shm") if n.startswith("pyth_")}
    except FileNotFoundError:
        return set()


def _fds():
    """Descriptors of this process that hold pyth shared memory."""
    n = 0
    for f in os.listdir("/proc/self/fd"):
        try:
            n += "/dev/shm/pyth_" in os.readlink(f"/proc/self/fd/{f}")
        except OSError:
            pass
    return n


@pytest.fixture(autouse=True)
def _no_leftovers():
    before = _shm_entries()
    yield
    gc.collect()
    assert _shm_entries() <= before


def _fill(t, value):
    t.fill_(value)


def _send_back(q_in, q_out):
    t = q_in.get()
    q_out.put((t.is_shared(), t.storage().allocator_name(), t.sum().item()))
    t.add_(1)
    q_out.put("done")


def _echo_shared(q_in, q_out):
    x, y = q_in.get()
    q_out.put((x.storage() is y.storage(), x.data_ptr() - y.data_ptr()))
    fresh = pyth.arange(5, dtype=pyth.float64)
    q_out.put(fresh)
    q_out.put(q_in.get())  # wait: the parent must receive `fresh` before this process exits


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_child_writes_seen_by_parent(method):
    ctx = mp.get_context(method)
    t = pyth.zeros(4, 3)
    if method == "fork":  # a forked child gets a copy of memory that is not shared already
        t.share_memory_()
    view = t[1]  # spawn pickles the arguments: the reducer moves the storage to shared memory
    p = ctx.Process(target=_fill, args=(view, 7.0))
    p.start()
    p.join(60)
    assert p.exitcode == 0
    assert t.is_shared() and t.storage().allocator_name() == "shared"
    assert t[1].tolist() == [7, 7, 7] and t[0].tolist() == [0, 0, 0]


def _round_trip(t):
    """Send t to a forked _send_back child; its report, after it has added 1 to t."""
    ctx = mp.get_context("fork")
    q_in, q_out = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=_send_back, args=(q_in, q_out))
    p.start()
    q_in.put(t)
    report = q_out.get(timeout=30)
    assert q_out.get(timeout=30) == "done"
    p.join(30)
    return report


def test_queue_tensor_is_shared_and_both_ways():
    t = pyth.arange(6, dtype=pyth.float32)
    assert _round_trip(t) == (True, "shared", 15)
    assert t.tolist() == [1, 2, 3, 4, 5, 6]  # the child's add_ reached us


def test_views_share_one_storage_and_received_tensor_is_shared():
    ctx = mp.get_context("fork")
    q_in, q_out = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=_echo_shared, args=(q_in, q_out))
    p.start()
    base = pyth.arange(10, dtype=pyth.int64)
    q_in.put((base[2:], base))
    same, delta = q_out.get(timeout=30)
    fresh = q_out.get(timeout=30)
    q_in.put("bye")
    assert q_out.get(timeout=30) == "bye"
    p.join(30)
    assert same and delta == 16
    assert fresh.is_shared() and fresh.tolist() == [0, 1, 2, 3, 4]


def test_file_system_strategy():
    assert mp.get_sharing_strategy() == "file_descriptor"
    assert mp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    with pytest.raises(ValueError):
        mp.set_sharing_strategy("carrier pigeon")
    mp.set_sharing_strategy("file_system")
    try:
        t = pyth.ones(5, dtype=pyth.float64)
        assert _round_trip(t) == (True, "shared", 5.0)
        assert t.tolist() == [2.0] * 5
    finally:
        mp.set_sharing_strategy("file_descriptor")


class _FdCounting(pyth.utils.data.Dataset):
    """Items that carry the worker's count of open descriptors when made."""

    def __len__(self):
        return 1500

    def __getitem__(self, i):
        return pyth.full((256,), float(len(os.listdir("/proc/self/fd"))))


def test_file_system_senders_let_go_once_received():
    """A worker sending batches by path held every one for good: one descriptor and its memory
    per batch, until 'Too many open files'. Receipts let the sender go once received."""
    mp.set_sharing_strategy("file_system")
    try:
        loader = pyth.utils.data.DataLoader(_FdCounting(), batch_size=1, num_workers=1,
                                            multiprocessing_context="fork")
        counts = [int(b[0, 0]) for b in loader]
    finally:
        mp.set_sharing_strategy("file_descriptor")
    assert len(counts) == 1500
    assert max(counts[500:]) <= counts[100] + 8     # flat, not one more per batch


class _Small(pyth.utils.data.Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, i):
        return pyth.full((64,), float(i))


def test_file_system_receivers_forget_books_of_exited_senders():
    """The receiver maps each sender's receipt book once, without keeping a descriptor, and
    drops the books of senders that have exited: fresh workers every epoch cost nothing."""
    from pyth.multiprocessing import _receipts
    mp.set_sharing_strategy("file_system")
    try:
        fds = []
        for _ in range(6):
            loader = pyth.utils.data.DataLoader(_Small(), batch_size=4, num_workers=2,
                                                multiprocessing_context="fork")
            assert sum(float(b.sum()) for b in loader) == 64 * sum(range(16))
            del loader
            gc.collect()
            fds.append(len(os.listdir("/proc/self/fd")))
    finally:
        mp.set_sharing_strategy("file_descriptor")
    assert fds[-1] <= fds[1] + 2, fds            # flat, not two more per epoch
    assert len(_receipts._books_seen) <= 2        # the last epoch's workers' books at most


def test_file_system_receipts_in_one_process():
    import pickle
    from multiprocessing.reduction import ForkingPickler

    from pyth.multiprocessing import _receipts
    mp.set_sharing_strategy("file_system")
    try:
        t = pyth.arange(6.0)
        payload = bytes(ForkingPickler.dumps(t))
        book = _receipts.book()
        key = id(t.storage())
        assert key in book.waiting                 # held until received
        del t
        gc.collect()
        r = pickle.loads(payload)                   # the path still opens: the book held it
        assert r.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
        slot = book.waiting[key][1][0]
        assert book.flags[slot] == 1                 # signed
        book.settle()                                # (each send settles first)
        assert key not in book.waiting and slot in book.free
        ForkingPickler.dumps(pyth.ones(2))           # the slot is used again, cleared
        assert book.flags[slot] == 0 and slot not in book.free
        # a storage sent twice is held until both are received
        u = pyth.ones(3)
        p1, p2 = bytes(ForkingPickler.dumps(u)), bytes(ForkingPickler.dumps(u))
        assert len(book.waiting[id(u.storage())][1]) == 2
        pickle.loads(p1)
        book.settle()
        assert len(book.waiting[id(u.storage())][1]) == 1
        pickle.loads(p2)
        book.settle()
        assert id(u.storage()) not in book.waiting
        # no slot left: kept for good, as before receipts
        free, book.free = book.free, []
        try:
            v = pyth.ones(4)
            payload = bytes(ForkingPickler.dumps(v))
            assert any(s is v.storage() or s._h == v.storage()._h for s in book.kept)
            assert pickle.loads(payload).tolist() == [1.0] * 4
        finally:
            book.free = free
        # a forked child keeps a book of its own
        rd, wr = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.write(wr, b"1" if _receipts.book() is not book and
                         _receipts.book().pid == os.getpid() else b"0")
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        assert os.read(rd, 1) == b"1"
    finally:
        mp.set_sharing_strategy("file_descriptor")


def _square(t):
    return t * t


def test_pool_and_every_dtype():
    ctx = mp.get_context("fork")
    items = [pyth.arange(4).to(dt) for dt in pyth.ALL_DTYPES]
    with ctx.Pool(2) as pool:
        out = pool.map(_square, items)
    for a, b in zip(items, out):
        assert b.dtype is a.dtype and b.tolist() == (a * a).tolist()
        assert b.is_shared()


def _hold_and_die(q_in, q_out):
    t = q_in.get()
    q_out.put(t.numel())
    signal.pause()


def test_killed_child_leaves_nothing():
    ctx = mp.get_context("fork")
    fds = _fds()
    q_in, q_out = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=_hold_and_die, args=(q_in, q_out))
    p.start()
    t = pyth.ones(1000)
    q_in.put(t)
    assert q_out.get(timeout=30) == 1000
    assert _fds() == fds + 1
    assert _shm_entries() == set()  # shared memory never has a name
    os.kill(p.pid, signal.SIGKILL)
    p.join(30)
    assert p.exitcode == -signal.SIGKILL
    q_in.close()
    q_out.close()
    q_in.join_thread()
    q_out.join_thread()
    del t
    gc.collect()
    assert _fds() == fds


def test_zero_size_and_fd_released():
    ctx = mp.get_context("fork")
    fds = _fds()
    t = pyth.empty(0, 4)
    t.storage().share_memory_()
    assert _shm_entries() == set()
    q = ctx.Queue()
    q.put(t)
    got = q.get(timeout=30)
    assert got.shape == (0, 4)
    big = pyth.ones(100)
    big.storage().share_memory_()
    assert _fds() == fds + 2  # one descriptor per shared storage (sent and received)
    del big, t, got
    gc.collect()
    q.close()
    q.join_thread()
    assert _fds() == fds


def test_non_leaf_refused():
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    x = pyth.ones(2, requires_grad=True)
    from multiprocessing.reduction import ForkingPickler
    with pytest.raises(RuntimeError, match="non-leaf"):
        ForkingPickler.dumps(x * 2)
    ForkingPickler.dumps(x)  # a leaf is fine (requires_grad travels)
    q.close()


# ---- put raises in the caller ------------------------------------------------------------------

def _queues():
    return [mp.Queue(), mp.JoinableQueue(), mp.get_context("spawn").Queue(),
            mp.get_context("fork").JoinableQueue()]


@pytest.mark.c_core
def test_put_of_a_tensor_whose_storage_cannot_be_shared_raises_in_the_caller():
    """np.from_dlpack(t) pins t's memory; put returned and the feeder thread printed the
    share_memory_() error, and get never returned. put itself raises now, and the queue goes on
    working."""
    np = pytest.importorskip("numpy")
    for q in _queues():
        t = pyth.arange(4.0)
        view = np.from_dlpack(t)
        with pytest.raises(RuntimeError, match="share_memory_.*exported"):
            q.put(t)
        with pytest.raises(TypeError, match="pickle"):
            q.put({"lock": __import__("threading").Lock()})
        q.put(pyth.arange(3.0))
        assert q.get(timeout=30).tolist() == [0.0, 1.0, 2.0]
        assert view.tolist() == [0.0, 1.0, 2.0, 3.0]
        del view
        q.put(t)   # the export released: shareable now
        assert q.get(timeout=30).tolist() == [0.0, 1.0, 2.0, 3.0]
        q.close()
        q.join_thread()


@pytest.mark.c_core
@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_a_put_that_fails_after_pickling_keeps_no_descriptor(method):
    """put pickles first (the storage moves to shared memory, its descriptor is handed to the
    resource sharer), then finds the queue full or closed: the descriptor comes back."""
    import queue as std_queue
    fds = _fds()
    q = mp.get_context(method).Queue(maxsize=1)
    q.put(pyth.ones(3))
    for _ in range(3):
        with pytest.raises(std_queue.Full):
            q.put(pyth.ones(5), block=False)
    assert q.get(timeout=30).tolist() == [1.0, 1.0, 1.0]
    gc.collect()
    assert _fds() == fds
    q.close()
    with pytest.raises(ValueError, match="closed"):
        q.put(pyth.ones(2))
    gc.collect()
    assert _fds() == fds
    q.join_thread()


def _send_sevens(q, done):
    q.put(pyth.ones(2) * 7)
    done.wait(30)


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_pickling_queues_carry_tensors_between_processes(method):
    ctx = mp.get_context(method)
    assert ctx.get_start_method() == method
    q, done = ctx.Queue(), ctx.Event()
    assert isinstance(q, mp.Queue)
    p = ctx.Process(target=_send_sevens, args=(q, done))
    p.start()
    try:
        assert q.get(timeout=60).tolist() == [7.0, 7.0]
    finally:
        done.set()
        p.join(30)
    assert p.exitcode == 0
