"""pyth.multiprocessing: the standard multiprocessing module, with tensors and storages passed
through POSIX shared memory instead of being copied through the pipe.

Everything multiprocessing has (Process, Queue, Pool, get_context with fork, spawn and
forkserver, ...) is here unchanged; importing this package registers reducers with
multiprocessing's pickler, so a tensor put on a queue or passed to a child moves its storage
into shared memory (share_memory_(), in place) and the other side maps the same memory.

Strategies (set_sharing_strategy): "file_descriptor" (default) passes the shared memory's
descriptor; "file_system" passes a path naming it (/proc/<pid>/fd/<n>), the sender holding the
storage until the receiver signs for it (_receipts.py). Shared memory never has a
name in /dev/shm, so nothing is left behind there, whichever way a process ends.

Queue and JoinableQueue (here and from get_context()) pickle in put (queues.py): an object that
cannot cross raises in the caller, never in multiprocessing's background feeder thread.
"""

from __future__ import annotations

import multiprocessing as _mp
from multiprocessing import *  # noqa: F401,F403

from .queues import JoinableQueue, Queue, get_context  # noqa: F811 (pickling in put)
from .reductions import (get_all_sharing_strategies, get_sharing_strategy, init_reductions,
                         set_sharing_strategy)

__all__ = list(getattr(_mp, "__all__", [])) + [
    "set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies"]

init_reductions()
