"""Queues that pickle in put: an object that cannot cross (a tensor whose storage cannot move to
shared memory, a sample holding a lock) raises in the caller of put.

multiprocessing's Queue pickles each item later, in its feeder thread; an item that fails
there is printed and dropped, and the receiver waits for it forever. These queues pickle the
item at once (tensors move to shared memory then) and hand the feeder the finished bytes, so a
failure is the put's exception and nothing is ever lost in the background. SimpleQueue already
pickles in put and is multiprocessing's own.
"""

from __future__ import annotations

import multiprocessing as _mp
import multiprocessing.queues as _queues
from multiprocessing.reduction import ForkingPickler
from typing import Any


class _Pickled:
    """An item already pickled by the sender (the feeder thread only sends its bytes)."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data

    def __reduce__(self) -> tuple:
        return (_Pickled, (self.data,))


def _take_back(item: _Pickled) -> None:
    """Undo what pickling item shared, for a put that did not enqueue it (queue full or
    closed): its descriptors wait in this process's resource sharer for a receiver that will
    never come, so they are received here and closed with the objects they rebuild."""
    try:
        ForkingPickler.loads(item.data)
    except Exception:   # nothing rebuilt, nothing held: the put's own error is what matters
        pass


class _PicklingPut:
    """put pickles in the caller; get unpickles what put pickled."""

    def put(self, obj: Any, block: bool = True, timeout: float | None = None) -> None:
        item = _Pickled(bytes(ForkingPickler.dumps(obj)))
        try:
            super().put(item, block, timeout)  # type: ignore[misc]
        except BaseException:
            _take_back(item)
            raise

    def get(self, block: bool = True, timeout: float | None = None) -> Any:
        item = super().get(block, timeout)  # type: ignore[misc]
        return ForkingPickler.loads(item.data) if isinstance(item, _Pickled) else item


class Queue(_PicklingPut, _queues.Queue):
    """multiprocessing.Queue whose put raises when obj cannot be pickled or shared."""

    def __init__(self, maxsize: int = 0, *, ctx: Any = None) -> None:
        super().__init__(maxsize, ctx=ctx if ctx is not None else _mp.get_context())


class JoinableQueue(_PicklingPut, _queues.JoinableQueue):
    """multiprocessing.JoinableQueue whose put raises when obj cannot be pickled or shared."""

    def __init__(self, maxsize: int = 0, *, ctx: Any = None) -> None:
        super().__init__(maxsize, ctx=ctx if ctx is not None else _mp.get_context())


class _Context:
    """A multiprocessing context whose Queue and JoinableQueue are the ones above."""

    def Queue(self, maxsize: int = 0) -> Queue:  # noqa: N802 (multiprocessing's name)
        return Queue(maxsize, ctx=self)

    def JoinableQueue(self, maxsize: int = 0) -> JoinableQueue:  # noqa: N802
        return JoinableQueue(maxsize, ctx=self)


_CONTEXTS: dict[str, Any] = {}


def get_context(method: str | None = None) -> Any:
    """multiprocessing.get_context(method), with pickling queues (the same context otherwise:
    its Process, Pipe, Lock, ... are multiprocessing's)."""
    base = _mp.get_context(method)
    name = base.get_start_method()
    ctx = _CONTEXTS.get(name)
    if ctx is None:
        cls = type(base)
        ctx = _CONTEXTS[name] = type(cls.__name__, (_Context, cls), {})()
    return ctx
