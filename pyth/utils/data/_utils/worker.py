"""The DataLoader worker process: take tasks from its index queue, fetch, send results back.

Results travel through pyth.multiprocessing's queues, which pickle in put and pass tensors
through shared memory. An exception, including a batch that cannot
be pickled, becomes an ExceptionWrapper carrying the worker's traceback, re-raised in the main
process.
"""

from __future__ import annotations

import os
import queue
import random
import sys
import traceback
from dataclasses import dataclass
from typing import Any, Callable

_worker_info = None


@dataclass(frozen=True)
class WorkerInfo:
    """What a worker knows about itself (get_worker_info() inside a worker)."""
    id: int
    num_workers: int
    seed: int
    dataset: Any


def get_worker_info() -> WorkerInfo | None:
    """This worker's WorkerInfo, or None in the main process."""
    return _worker_info


class ExceptionWrapper:
    """An exception caught in a worker, with its formatted traceback, to raise elsewhere."""

    def __init__(self, exc_info: tuple, where: str) -> None:
        self.exc_type = exc_info[0]
        self.msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self) -> None:
        msg = (f"Caught {self.exc_type.__name__} {self.where}.\n"
               f"Original {self.msg}")
        if self.exc_type is KeyError:  # KeyError quotes its message
            msg = _KeyErrorMessage(msg)
        try:
            exc = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exc


class _KeyErrorMessage(str):
    def __repr__(self) -> str:
        return str(self)


@dataclass(frozen=True)
class ResumeIteration:
    """Sent to persistent workers at the start of a new epoch."""
    seed: int | None = None


@dataclass(frozen=True)
class IterableDatasetStopIteration:
    """A worker's iterable dataset is exhausted."""
    worker_id: int


def _send(result_queue: Any, idx: int, data: Any, worker_id: int) -> None:
    """Puts (idx, data); a batch that cannot be pickled (a lambda, a lock, a tensor whose
    storage cannot be shared) is sent as this worker's error instead, so the main process raises
    it rather than waiting forever (the queue pickles in put: pyth.multiprocessing.queues)."""
    where = f"in DataLoader worker process {worker_id}"
    try:
        result_queue.put((idx, data))
        return
    except Exception:
        error = ExceptionWrapper(sys.exc_info(), where)
    try:
        result_queue.put((idx, error))
    except Exception:   # the exception itself cannot be pickled (a class local to a function)
        error.exc_type = RuntimeError
        result_queue.put((idx, error))


def worker_loop(kind: str, dataset: Any, index_queue: Any, result_queue: Any, done_event: Any,
                auto_collation: bool, collate_fn: Callable, drop_last: bool, base_seed: int,
                init_fn: Callable | None, worker_id: int, num_workers: int) -> None:
    global _worker_info
    from ....random import manual_seed
    from .fetch import make_fetcher
    parent = os.getppid()
    try:
        seed = base_seed + worker_id
        random.seed(seed)
        manual_seed(seed)
        _worker_info = WorkerInfo(worker_id, num_workers, seed, dataset)
        init_error = None
        fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = make_fetcher(kind, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_error = ExceptionWrapper(sys.exc_info(),
                                          f"in DataLoader worker process {worker_id}")
        exhausted = False
        while True:
            try:
                task = index_queue.get(timeout=5.0)
            except queue.Empty:
                if done_event.is_set() or os.getppid() != parent:
                    break
                continue
            if isinstance(task, ResumeIteration):
                result_queue.put((task, None))
                exhausted = False
                if init_error is None:
                    fetcher = make_fetcher(kind, dataset, auto_collation, collate_fn, drop_last)
                continue
            if task is None:  # shut down
                break
            if done_event.is_set() or exhausted:
                continue
            idx, index = task
            if init_error is not None:
                data, init_error = init_error, None
            else:
                try:
                    data = fetcher.fetch(index)
                except StopIteration:
                    if kind == "iterable":
                        data = IterableDatasetStopIteration(worker_id)
                        exhausted = True
                    else:
                        data = ExceptionWrapper(sys.exc_info(),
                                                f"in DataLoader worker process {worker_id}")
                except Exception:
                    data = ExceptionWrapper(sys.exc_info(),
                                            f"in DataLoader worker process {worker_id}")
            _send(result_queue, idx, data, worker_id)
            del data
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        result_queue.cancel_join_thread()
        result_queue.close()
