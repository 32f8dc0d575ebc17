"""DataLoader: batches from a dataset, in the main process or in worker processes.

With num_workers > 0 each worker gets tasks (task number, batch of indices) on its own queue,
round robin, and sends (task number, batch) back on one result queue; the main process keeps
prefetch_factor tasks per worker in flight and yields results in task order, so the batches
come in exactly the single-process order. Batches cross through shared memory
(pyth.multiprocessing). A worker's exception is re-raised here with its traceback (a batch
that cannot be pickled to be sent is the worker's exception too); a worker
that dies is noticed within a second (RuntimeError naming its pid and exit signal).
"""

from __future__ import annotations

import itertools
import multiprocessing as _mp
import os
import queue
import signal
import time
from typing import Any, Callable, Iterator

from ... import multiprocessing as _pmp  # its queues; importing it registers the reducers
from ... import random as _random
from ._utils.collate import default_collate, default_convert
from ._utils.fetch import make_fetcher
from ._utils.worker import (ExceptionWrapper, IterableDatasetStopIteration, ResumeIteration,
                            worker_loop)
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

_POLL = 1.0  # seconds between checks that the workers are alive
_JOIN = 2.0  # seconds the workers get to finish on shutdown before they are terminated


class _InfiniteConstantSampler:
    """Iterable datasets have no indices: each task just asks for the next batch."""

    def __iter__(self) -> Iterator[None]:
        while True:
            yield None


class DataLoader:
    """Iterate over a dataset in batches (PyTorch's DataLoader arguments and defaults)."""

    def __init__(self, dataset: Any, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Any = None, batch_sampler: Any = None, num_workers: int = 0,
                 collate_fn: Callable | None = None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable | None = None, multiprocessing_context: Any = None,
                 generator: Any = None, *, prefetch_factor: int | None = None,
                 persistent_workers: bool = False, pin_memory_device: str = "",
                 in_order: bool = True) -> None:
        if not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing, otherwise set "
                             "prefetch_factor to None.")
        if prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers, self.prefetch_factor = num_workers, prefetch_factor
        self.pin_memory, self.timeout = pin_memory, timeout  # pin_memory: no accelerator, no-op
        self.worker_init_fn, self.generator = worker_init_fn, generator
        self.persistent_workers = persistent_workers
        self.multiprocessing_context = multiprocessing_context
        self._kind = "iterable" if isinstance(dataset, IterableDataset) else "map"
        if self._kind == "iterable":
            if shuffle not in (None, False):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None or batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                                 "and batch_sampler options")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None:
            if self._kind == "iterable":
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size, self.drop_last = batch_size, drop_last
        self.sampler, self.batch_sampler = sampler, batch_sampler
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn = collate_fn
        self._iterator = None

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Any:
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self) -> int:
        if self._kind == "iterable":
            n = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self._index_sampler)

    def __iter__(self) -> "_BaseIter":
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        if self.persistent_workers:
            if self._iterator is None:
                self._iterator = _MultiProcessIter(self)
            else:
                self._iterator._reset(self)
            return self._iterator
        return _MultiProcessIter(self)


class _BaseIter:
    def __init__(self, loader: DataLoader) -> None:
        self._loader = loader
        self._reset_common(loader)

    def _reset_common(self, loader: DataLoader) -> None:
        self._sampler_iter = iter(loader._index_sampler)
        self._base_seed = int(_random.randint(0, 2 ** 62, (), generator=loader.generator).item())

    def __iter__(self) -> "_BaseIter":
        return self

    def __len__(self) -> int:
        return len(self._loader)

    def _next_index(self) -> Any:
        return next(self._sampler_iter)


class _SingleProcessIter(_BaseIter):
    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        self._fetcher = make_fetcher(loader._kind, loader.dataset, loader._auto_collation,
                                     loader.collate_fn, loader.drop_last)

    def __next__(self) -> Any:
        return self._fetcher.fetch(self._next_index())


class _MultiProcessIter(_BaseIter):
    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        ctx = loader.multiprocessing_context
        if ctx is None:
            ctx = _mp.get_context()
        elif isinstance(ctx, str):
            ctx = _mp.get_context(ctx)
        self._n = loader.num_workers
        self._timeout = loader.timeout
        self._done = ctx.Event()
        # pyth's queues pickle in put: a batch a worker cannot send is that worker's error
        # (sent instead), an index the main process cannot send raises here; with
        # multiprocessing's own queues both failed in a feeder thread and the loop hung
        self._results = _pmp.Queue(ctx=ctx)
        self._index_queues, self._workers = [], []
        self._shutdown = False
        for wid in range(self._n):
            iq = _pmp.Queue(ctx=ctx)
            iq.cancel_join_thread()
            w = ctx.Process(target=worker_loop, daemon=True,
                            args=(loader._kind, loader.dataset, iq, self._results, self._done,
                                  loader._auto_collation, loader.collate_fn, loader.drop_last,
                                  self._base_seed, loader.worker_init_fn, wid, self._n))
            w.start()
            self._index_queues.append(iq)
            self._workers.append(w)
        self._start_epoch(first=True)

    # ---- epochs ----
    def _start_epoch(self, first: bool) -> None:
        self._send_idx = self._rcvd_idx = 0
        self._task_info: dict[int, tuple] = {}  # task -> (worker,) pending, (worker, data) done
        self._active = [True] * self._n
        self._cycle = itertools.cycle(range(self._n))
        if not first:  # persistent workers: wait until each has left the old epoch
            for iq in self._index_queues:
                iq.put(ResumeIteration())
            acks = 0
            while acks < self._n:
                tag, _ = self._get()
                if isinstance(tag, ResumeIteration):
                    acks += 1
        for _ in range(self._loader.prefetch_factor * self._n):
            self._try_put()

    def _reset(self, loader: DataLoader) -> None:
        self._reset_common(loader)
        self._start_epoch(first=False)

    # ---- tasks ----
    @property
    def _tasks_outstanding(self) -> int:
        return sum(1 for info in self._task_info.values() if len(info) == 1)

    def _try_put(self) -> None:
        if self._tasks_outstanding >= self._loader.prefetch_factor * self._n:
            return
        for _ in range(self._n):
            wid = next(self._cycle)
            if self._active[wid]:
                break
        else:
            return
        try:
            index = self._next_index()
        except StopIteration:
            return
        self._index_queues[wid].put((self._send_idx, index))
        self._task_info[self._send_idx] = (wid,)
        self._send_idx += 1

    def _get(self) -> tuple:
        """The next message from the workers; RuntimeError if one died or timeout passed."""
        waited = 0.0
        while True:
            step = _POLL if not self._timeout else min(_POLL, self._timeout - waited)
            try:
                return self._results.get(timeout=max(step, 0.01))
            except queue.Empty:
                waited += step
            except (OSError, EOFError, ConnectionError) as e:
                # a worker that died mid-message breaks the pipe a moment before is_alive()
                # sees it gone: give its death that moment, so the error says which died
                deadline = time.monotonic() + 2.0
                while all(w.is_alive() for w in self._workers) and time.monotonic() < deadline:
                    time.sleep(0.01)
                self._check_workers()
                self._shutdown_workers()
                raise RuntimeError(f"DataLoader: receiving a batch from a worker failed: "
                                   f"{e}") from e
            self._check_workers()
            if self._timeout and waited >= self._timeout:
                self._shutdown_workers()
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")

    def _check_workers(self) -> None:
        dead = [w for w in self._workers if not w.is_alive()]
        if dead and not self._shutdown:
            self._shutdown_workers()
            desc = ", ".join(f"pid {w.pid} {_how(w.exitcode)}" for w in dead)
            raise RuntimeError(f"DataLoader worker ({desc}) exited unexpectedly")

    def __next__(self) -> Any:
        while True:
            if self._shutdown:
                raise StopIteration
            # skip tasks of workers whose iterable dataset ended (they never answer them)
            while self._rcvd_idx < self._send_idx:
                info = self._task_info[self._rcvd_idx]
                if len(info) == 2 or self._active[info[0]]:
                    break
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            if self._rcvd_idx >= self._send_idx:
                self._try_put()
                if self._rcvd_idx >= self._send_idx:  # nothing left to do this epoch
                    if not self._loader.persistent_workers:
                        self._shutdown_workers()
                    raise StopIteration
                continue
            info = self._task_info[self._rcvd_idx]
            if len(info) == 2:
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
                return self._process(info[1])
            idx, data = self._get()
            if isinstance(idx, ResumeIteration):
                continue
            if isinstance(data, IterableDatasetStopIteration):
                self._active[data.worker_id] = False
                continue
            if idx != self._rcvd_idx:  # out of order: keep it for later
                self._task_info[idx] += (data,)
                continue
            del self._task_info[idx]
            self._rcvd_idx += 1
            return self._process(data)

    def _process(self, data: Any) -> Any:
        self._try_put()
        if isinstance(data, ExceptionWrapper):
            self._shutdown_workers()
            data.reraise()
        return data

    # ---- shutdown ----
    def _shutdown_workers(self) -> None:
        if self._shutdown:
            return
        self._shutdown = True
        try:
            self._done.set()
            for iq in self._index_queues:
                try:
                    iq.put(None)
                except (OSError, ValueError):
                    pass
            deadline = time.monotonic() + _JOIN  # for all workers together
            for w in self._workers:
                w.join(timeout=max(0.0, deadline - time.monotonic()))
            for w in self._workers:
                if w.is_alive():  # busy in user code, or stuck: stop it
                    w.terminate()
                    w.join(timeout=1.0)
                if w.is_alive():
                    w.kill()
                    w.join(timeout=1.0)
            for iq in self._index_queues:
                iq.close()
            for iq in self._index_queues:   # their feeder threads gone before the next fork
                _join_feeder(iq)
            self._results.cancel_join_thread()
            self._results.close()
        except Exception:
            for w in self._workers:
                if w.is_alive():
                    w.kill()

    def __del__(self) -> None:
        try:
            self._shutdown_workers()
        except Exception:
            pass


def _join_feeder(q: Any) -> None:
    """Wait (briefly) for a closed queue's feeder thread to exit. A thread still running while
    the next loader forks its workers could hold a lock the children then wait on forever
    (glibc's malloc guards fork, but not every allocator, ASan's for one, does)."""
    t = getattr(q, "_thread", None)   # multiprocessing.Queue's feeder, None if never started
    if t is not None:
        _join_thread(t, _JOIN)


def _join_thread(t: Any, timeout: float) -> None:
    """Join a thread and then wait until the OS has removed it. ``join()`` returns when Python
    is done with the thread, but the thread still runs its C-level exit after that (ASan, for
    one, drains the thread's allocator caches then, under the allocator's lock): a fork in
    that window copies the lock held. Linux lists a process's live threads in /proc/self/task."""
    deadline = time.monotonic() + timeout
    t.join(timeout)
    tid = getattr(t, "native_id", None)
    if tid is None or t.is_alive() or not os.path.isdir("/proc/self/task"):
        return
    while os.path.exists(f"/proc/self/task/{tid}") and time.monotonic() < deadline:
        time.sleep(0.0005)


def _how(exitcode: Any) -> str:
    if exitcode is None:
        return "is still running"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = str(-exitcode)
        return f"was killed by signal {name}"
    return f"exited with code {exitcode}"

