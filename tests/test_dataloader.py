"""pyth.utils.data: datasets, samplers, default_collate and the DataLoader, in the main process
and with worker processes (order, determinism, failures, timeouts, shutdown)."""

import collections
import gc
import multiprocessing
import os
import signal
import time

import numpy as np
import pytest

import pyth
from pyth.utils.data import (BatchSampler, ChainDataset, ConcatDataset, DataLoader, Dataset,
                             IterableDataset, RandomSampler, SequentialSampler, Subset,
                             SubsetRandomSampler, TensorDataset, WeightedRandomSampler,
                             default_collate, get_worker_info, random_split)


@pytest.fixture(autouse=True)
def _no_leaked_workers():
    yield
    if multiprocessing.active_children():
        gc.collect()  # iterators caught in reference cycles shut their workers down
    deadline = time.time() + 10
    while multiprocessing.active_children() and time.time() < deadline:
        time.sleep(0.05)
    assert multiprocessing.active_children() == []
    assert not [n for n in os.listdir("/dev/shm") if n.startswith("pyth_")]


def _ds(n=10):
    return TensorDataset(pyth.arange(n), pyth.arange(n, dtype=pyth.float32) * 2)


def _as_lists(loader):
    return [[part.tolist() for part in batch] for batch in loader]


# ---- datasets, samplers, collate ---------------------------------------------------------------

def test_tensor_dataset_and_combinations():
    ds = _ds(5)
    assert len(ds) == 5 and [v.item() for v in ds[3]] == [3, 6.0]
    with pytest.raises(ValueError, match="Size mismatch"):
        TensorDataset(pyth.ones(3), pyth.ones(4))
    cat = ConcatDataset([ds, _ds(3)])
    assert len(cat) == 8 and cat[5][0].item() == 0 and cat[-1][0].item() == 2
    with pytest.raises(IndexError):
        cat[8]
    assert len(ds + ds) == 10
    sub = Subset(ds, [4, 0])
    assert len(sub) == 2 and sub[0][0].item() == 4


def test_random_split_matches_torch_lengths():
    g = pyth.Generator().manual_seed(3)
    parts = random_split(range(10), [0.3, 0.3, 0.4], generator=g)
    assert [len(p) for p in parts] == [3, 3, 4]
    seen = sorted(i for p in parts for i in p)
    assert seen == list(range(10))
    g2 = pyth.Generator().manual_seed(3)
    assert [list(p) for p in random_split(range(10), [0.3, 0.3, 0.4], generator=g2)] == \
        [list(p) for p in parts]
    torch = pytest.importorskip("torch")
    for n, fr in [(10, [0.33, 0.33, 0.34]), (7, [0.5, 0.5]), (11, [0.1, 0.2, 0.7])]:
        ours = [len(p) for p in random_split(range(n), fr)]
        theirs = [len(p) for p in torch.utils.data.random_split(range(n), fr)]
        assert ours == theirs
    with pytest.raises(ValueError, match="Sum of input lengths"):
        random_split(range(10), [3, 3])


def test_samplers():
    assert list(SequentialSampler(range(4))) == [0, 1, 2, 3]
    g = pyth.Generator().manual_seed(0)
    perm = list(RandomSampler(range(20), generator=g))
    assert sorted(perm) == list(range(20)) and perm != list(range(20))
    rs = RandomSampler(range(5), replacement=True, num_samples=50,
                       generator=pyth.Generator().manual_seed(1))
    draws = list(rs)
    assert len(draws) == 50 == len(rs) and set(draws) <= set(range(5))
    longer = list(RandomSampler(range(3), num_samples=7, generator=g))
    assert len(longer) == 7 and sorted(longer[:3]) == [0, 1, 2]
    with pytest.raises(ValueError, match="num_samples"):
        RandomSampler(range(3), num_samples=0)
    sub = list(SubsetRandomSampler([10, 20, 30], generator=g))
    assert sorted(sub) == [10, 20, 30]
    w = list(WeightedRandomSampler([0, 1, 0, 3], 100, generator=g))
    assert len(w) == 100 and set(w) <= {1, 3} and w.count(3) > w.count(1)
    nr = list(WeightedRandomSampler([1, 1, 1], 3, replacement=False, generator=g))
    assert sorted(nr) == [0, 1, 2]
    with pytest.raises(ValueError, match="num_samples"):
        WeightedRandomSampler([1.0], 0)


def test_batch_sampler_matches_torch():
    torch = pytest.importorskip("torch")
    for n, bs, drop in [(10, 3, False), (10, 3, True), (9, 3, True), (0, 2, False), (5, 7, False)]:
        ours = BatchSampler(SequentialSampler(range(n)), bs, drop)
        theirs = torch.utils.data.BatchSampler(torch.utils.data.SequentialSampler(range(n)), bs, drop)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)
    with pytest.raises(ValueError, match="batch_size"):
        BatchSampler(range(3), 0, False)


Point = collections.namedtuple("Point", "x y")


def test_default_collate_matches_torch():
    torch = pytest.importorskip("torch")
    from torch.utils.data import default_collate as tcollate
    samples = [
        [pyth.ones(2, 3) * i for i in range(4)],
        [1, 2, 3],
        [1.5, 2.5],
        [True, False],
        ["a", "b"],
        [np.arange(3, dtype=np.float32) + i for i in range(2)],
        [np.int32(3), np.int32(4)],
        [{"a": pyth.tensor(i), "b": (i, float(i))} for i in range(3)],
        [Point(pyth.tensor(1.0), 2), Point(pyth.tensor(3.0), 4)],
        [[pyth.tensor(1), 2], [pyth.tensor(3), 4]],
    ]

    def to_torch(x):
        if isinstance(x, pyth.Tensor):
            return torch.from_numpy(x.numpy().copy())
        if isinstance(x, dict):
            return {k: to_torch(v) for k, v in x.items()}
        if isinstance(x, Point):
            return Point(*(to_torch(v) for v in x))
        if isinstance(x, (list, tuple)):
            return type(x)(to_torch(v) for v in x)
        return x

    def compare(a, b):
        if isinstance(b, torch.Tensor):
            assert isinstance(a, pyth.Tensor), (a, b)
            assert a.dtype.name == str(b.dtype).replace("torch.", "")
            assert tuple(a.shape) == tuple(b.shape)
            np.testing.assert_array_equal(a.numpy(), b.numpy())
        elif isinstance(b, dict):
            assert a.keys() == b.keys()
            for k in b:
                compare(a[k], b[k])
        elif isinstance(b, (list, tuple)):
            assert type(a) is type(b) and len(a) == len(b)
            for x, y in zip(a, b):
                compare(x, y)
        else:
            assert a == b

    for batch in samples:
        compare(default_collate(batch), tcollate([to_torch(s) for s in batch]))
    with pytest.raises(RuntimeError, match="equal size"):
        default_collate([pyth.ones(2), pyth.ones(3)])


def test_distributed_sampler_matches_torch():
    torch = pytest.importorskip("torch")
    from pyth.utils.data.distributed import DistributedSampler
    for n, reps, drop in [(10, 3, False), (10, 3, True), (2, 4, False), (12, 4, False)]:
        for rank in range(reps):
            ours = DistributedSampler(range(n), reps, rank, shuffle=False, drop_last=drop)
            theirs = torch.utils.data.DistributedSampler(range(n), reps, rank, shuffle=False,
                                                         drop_last=drop)
            assert list(ours) == list(theirs) and len(ours) == len(theirs)
    shards = [DistributedSampler(range(12), 3, r, seed=5) for r in range(3)]
    first = [list(s) for s in shards]
    assert sorted(sum(first, [])) == list(range(12))
    for s in shards:
        s.set_epoch(1)
    assert [list(s) for s in shards] != first
    with pytest.raises(ValueError, match="Invalid rank"):
        DistributedSampler(range(4), 2, 2)


# ---- DataLoader in the main process ------------------------------------------------------------

def test_loader_batches():
    ds = _ds(10)
    assert _as_lists(DataLoader(ds, batch_size=4)) == [
        [[0, 1, 2, 3], [0, 2, 4, 6]], [[4, 5, 6, 7], [8, 10, 12, 14]], [[8, 9], [16, 18]]]
    assert len(DataLoader(ds, batch_size=4)) == 3
    assert len(list(DataLoader(ds, batch_size=4, drop_last=True))) == 2
    unbatched = list(DataLoader(ds, batch_size=None))
    assert len(unbatched) == 10 and unbatched[3][0].item() == 3
    custom = DataLoader(ds, batch_sampler=[[9, 0], [5]], collate_fn=lambda b: [s[0].item() for s in b])
    assert list(custom) == [[9, 0], [5]]
    assert list(DataLoader(ds, sampler=[3, 1], batch_size=2, collate_fn=len)) == [2]
    with pytest.raises(ValueError, match="mutually exclusive"):
        DataLoader(ds, sampler=[1], shuffle=True)
    with pytest.raises(ValueError, match="mutually exclusive"):
        DataLoader(ds, batch_sampler=[[1]], batch_size=2)
    with pytest.raises(ValueError, match="num_workers"):
        DataLoader(ds, num_workers=-1)
    with pytest.raises(ValueError, match="prefetch_factor"):
        DataLoader(ds, prefetch_factor=2)
    DataLoader(ds, pin_memory=True)  # accepted (no accelerator: nothing to pin to)


def test_shuffle_deterministic_with_generator():
    ds = _ds(20)
    a = _as_lists(DataLoader(ds, batch_size=5, shuffle=True, generator=pyth.Generator().manual_seed(7)))
    b = _as_lists(DataLoader(ds, batch_size=5, shuffle=True, generator=pyth.Generator().manual_seed(7)))
    c = _as_lists(DataLoader(ds, batch_size=5, shuffle=True, generator=pyth.Generator().manual_seed(8)))
    assert a == b and a != c
    assert sorted(i for batch in a for i in batch[0]) == list(range(20))
    pyth.manual_seed(1)
    d = _as_lists(DataLoader(ds, batch_size=5, shuffle=True))
    pyth.manual_seed(1)
    assert _as_lists(DataLoader(ds, batch_size=5, shuffle=True)) == d
    # epochs differ
    loader = DataLoader(ds, batch_size=5, shuffle=True, generator=pyth.Generator().manual_seed(7))
    assert _as_lists(loader) != _as_lists(loader)


class _Range(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))

    def __len__(self):
        return self.n


def test_iterable_dataset_single_process():
    assert [b.tolist() for b in DataLoader(_Range(7), batch_size=3)] == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(DataLoader(_Range(7), batch_size=3)) == 3
    assert [b.tolist() for b in DataLoader(_Range(7), batch_size=3, drop_last=True)] == [[0, 1, 2], [3, 4, 5]]
    assert list(ChainDataset([_Range(2), _Range(1)])) == [0, 1, 0]
    with pytest.raises(ValueError, match="shuffle"):
        DataLoader(_Range(3), shuffle=True)


# ---- worker processes --------------------------------------------------------------------------

class _Slow(Dataset):
    """Sample i takes longer for small i, so workers finish out of order."""

    def __len__(self):
        return 12

    def __getitem__(self, i):
        time.sleep(0.02 * ((12 - i) % 4))
        info = get_worker_info()
        return {"i": i, "x": pyth.full((2,), float(i)), "wid": -1 if info is None else info.id}


def test_workers_keep_single_process_order():
    ds = _Slow()
    single = list(DataLoader(ds, batch_size=2))
    multi = list(DataLoader(ds, batch_size=2, num_workers=3, prefetch_factor=2))
    assert [b["i"].tolist() for b in multi] == [b["i"].tolist() for b in single]
    assert [b["x"].tolist() for b in multi] == [b["x"].tolist() for b in single]
    assert {w for b in multi for w in b["wid"].tolist()} == {0, 1, 2}
    assert all(w == -1 for b in single for w in b["wid"].tolist())
    assert all(b["x"].is_shared() for b in multi)  # handed over through shared memory


def test_workers_shuffle_deterministic():
    ds = _ds(24)
    make = lambda nw: _as_lists(DataLoader(ds, batch_size=5, shuffle=True, num_workers=nw,
                                           generator=pyth.Generator().manual_seed(11)))
    assert make(2) == make(0)


def _init(wid):
    os.environ["PYTH_TEST_WORKER"] = str(wid)


class _Env(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        info = get_worker_info()
        return [int(os.environ.get("PYTH_TEST_WORKER", "-1")), info.id, info.num_workers,
                info.seed, os.getpid()]


def test_worker_info_and_init_fn():
    out = list(DataLoader(_Env(), batch_size=None, num_workers=2, worker_init_fn=_init,
                          generator=pyth.Generator().manual_seed(0)))
    for env_id, wid, n, seed, pid in out:
        assert env_id == wid and n == 2 and pid != os.getpid()
    seeds = {o[1]: o[3] for o in out}
    assert seeds[1] == seeds[0] + 1
    assert get_worker_info() is None


def test_iterable_dataset_with_workers():
    loader = DataLoader(_Range(10), batch_size=2, num_workers=2)
    got = sorted(v for b in loader for v in b.tolist())
    assert got == list(range(10))
    loader = DataLoader(_Range(5), batch_size=None, num_workers=3)
    assert sorted(int(v) for v in loader) == list(range(5))


class _Failing(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5:
            raise KeyError(f"sample {i} is cursed")
        return pyth.tensor(i)


def test_worker_exception_reraised_with_traceback():
    loader = DataLoader(_Failing(), batch_size=2, num_workers=2)
    it = iter(loader)
    assert next(it).tolist() == [0, 1]
    assert next(it).tolist() == [2, 3]
    with pytest.raises(KeyError) as info:
        next(it)
    msg = str(info.value)
    assert "Caught KeyError in DataLoader worker process 0" in msg
    assert "Traceback (most recent call last)" in msg and "sample 5 is cursed" in msg
    assert "__getitem__" in msg


class _Dies(Dataset):
    def __init__(self, how):
        self.how = how

    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 3:
            if self.how == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            os._exit(3)
        return i


@pytest.mark.parametrize("how,what", [("kill", "was killed by signal SIGKILL"),
                                      ("exit", "exited with code 3")])
def test_worker_death_raises_not_hangs(how, what):
    loader = DataLoader(_Dies(how), batch_size=1, num_workers=2)
    start = time.time()
    with pytest.raises(RuntimeError, match=rf"DataLoader worker \(pid \d+ {what}\) exited unexpectedly"):
        list(loader)
    assert time.time() - start < 20


class _Sleepy(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        time.sleep(30 if i == 1 else 0)
        return i


def test_timeout():
    loader = DataLoader(_Sleepy(), batch_size=1, num_workers=1, timeout=1.0)
    start = time.time()
    with pytest.raises(RuntimeError, match="timed out after 1.0 seconds"):
        list(loader)
    assert time.time() - start < 10


def test_early_break_shuts_workers_down():
    loader = DataLoader(_ds(40), batch_size=2, num_workers=2)
    for i, _ in enumerate(loader):
        if i == 2:
            break
    # the fixture checks that no worker outlives the iterator


def test_shutdown_leaves_no_feeder_threads():
    """Once an iterator has shut down, none of the threads that fed its index queues is still
    running: a later fork (the next epoch's workers) must not copy a thread holding a lock."""
    import threading
    before = set(threading.enumerate())
    for _ in range(5):
        assert len(list(DataLoader(_ds(12), batch_size=2, num_workers=2))) == 6
        left = [t for t in set(threading.enumerate()) - before
                if t.name == "QueueFeederThread" and t.is_alive()]
        assert left == []


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux's /proc")
def test_shutdown_leaves_no_os_threads():
    """Not only Python's part of the feeder threads is done when an iterator has shut down: the
    OS threads are gone too (a thread still in its C-level exit can hold the allocator's lock,
    and a fork then copies it held)."""
    list(DataLoader(_ds(4), batch_size=2, num_workers=2))   # any lazily started pools now
    before = set(os.listdir("/proc/self/task"))
    for _ in range(5):
        assert len(list(DataLoader(_ds(12), batch_size=2, num_workers=2))) == 6
        assert set(os.listdir("/proc/self/task")) <= before


def test_persistent_workers():
    loader = DataLoader(_Env(), batch_size=None, num_workers=2, persistent_workers=True)
    first = list(loader)
    second = list(loader)
    assert {o[4] for o in first} == {o[4] for o in second}  # the same worker processes
    assert [o[1] for o in first] == [o[1] for o in second]
    it = loader._iterator
    assert len(multiprocessing.active_children()) == 2
    it._shutdown_workers()


def test_spawn_context():
    loader = DataLoader(_ds(6), batch_size=3, num_workers=1, multiprocessing_context="spawn")
    assert _as_lists(loader) == _as_lists(DataLoader(_ds(6), batch_size=3))


# ---- batches that cannot be sent ----------------------------------------------------------------

_EXPORTED = []   # numpy views that keep a worker's tensors' storages from moving


class _Unsendable(Dataset):
    """Sample 2 cannot be pickled: a lock, a lambda, or a tensor whose storage is exported."""

    def __init__(self, what):
        self.what = what

    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i != 2:
            return pyth.tensor([i])
        if self.what == "lock":
            import threading
            return threading.Lock()
        if self.what == "lambda":
            return lambda: i
        t = pyth.arange(3.0)
        _EXPORTED.append(np.from_dlpack(t))
        return t


@pytest.mark.c_core
@pytest.mark.parametrize("context", ["fork", "spawn"])
@pytest.mark.parametrize("what,error,words", [
    ("lock", TypeError, "pickle"), ("lambda", Exception, "pickle"),
    ("exported", RuntimeError, "share_memory_")])
def test_a_sample_that_cannot_be_pickled_is_a_worker_error(context, what, error, words):
    """The worker's queue pickled in a feeder thread, which printed the error and dropped the
    batch: the loop waited forever (PyTorch 2.13 too). The worker now sends the error, raised
    here naming the worker (the timeout only turns a regression into a failure)."""
    loader = DataLoader(_Unsendable(what), batch_size=None, num_workers=2, timeout=60,
                        multiprocessing_context=context)
    it = iter(loader)
    assert next(it).tolist() == [0] and next(it).tolist() == [1]
    start = time.time()
    with pytest.raises(error, match=words) as info:
        next(it)
    assert "in DataLoader worker process 0" in str(info.value)
    assert time.time() - start < 30


class _LocalError(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        class Cursed(Exception):   # a class local to a function: the exception cannot travel
            pass
        raise Cursed(f"sample {i}")


@pytest.mark.c_core
def test_a_worker_exception_that_cannot_be_pickled_still_arrives():
    loader = DataLoader(_LocalError(), batch_size=None, num_workers=1, timeout=60)
    with pytest.raises(Exception, match="in DataLoader worker process 0") as info:
        next(iter(loader))
    assert "Cursed" in str(info.value)


class _UnpicklableSampler:
    def __iter__(self):
        import threading
        yield threading.Lock()

    def __len__(self):
        return 1


@pytest.mark.c_core
def test_an_index_that_cannot_be_pickled_raises_in_the_main_process():
    loader = DataLoader(_ds(4), batch_size=None, sampler=_UnpicklableSampler(), num_workers=1,
                        timeout=60)
    with pytest.raises(TypeError, match="pickle"):
        next(iter(loader))
