"""Work: the handle an async_op=True collective returns (wait() completes it), and the Future
its get_future() gives (torch.futures.Future's calls)."""

from __future__ import annotations

import datetime
import time
from collections.abc import Sequence
from typing import Any, Callable

from ._mpi import mpi


def _seconds(timeout: Any) -> float | None:
    """A wait's timeout (None, seconds, or a datetime.timedelta) in seconds."""
    if timeout is None:
        return None
    if isinstance(timeout, datetime.timedelta):
        return timeout.total_seconds()
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError(f"wait(): timeout must be a datetime.timedelta or seconds, got "
                        f"{type(timeout).__name__}")
    return float(timeout)


class Work:
    """Outstanding MPI requests plus what to do once they complete (copy staged outputs back,
    divide an AVG, check a receive's size). wait() blocks until then and returns True."""

    def __init__(self, name: str, requests: Sequence[Any], finish: Callable[[], Any] | None = None,
                 result: Sequence[Any] = (), statuses: Sequence[Any] | None = None,
                 keep: Sequence[Any] = ()) -> None:
        self._name = name
        self._keep = list(keep)   # the buffers MPI reads or writes, alive until completion
        self._requests = list(requests)
        self._statuses = statuses
        self._finish = finish
        self._result = list(result)
        self._done = False
        self._value: Any = None
        self._future: Future | None = None

    def wait(self, timeout: Any = None) -> bool:
        """Block until the operation completed on this rank (its outputs are then valid). With
        a timeout (seconds or a timedelta) a RuntimeError says when it has not completed by
        then; the operation stays pending and can be waited for again."""
        limit = _seconds(timeout)
        if not self._done and limit is not None:
            deadline, pause = time.monotonic() + limit, 5e-5
            while not self.is_completed():
                if time.monotonic() >= deadline:
                    raise RuntimeError(f"{self._name}: timed out after {limit:g} s waiting for "
                                       "the other ranks")
                time.sleep(pause)
                pause = min(pause * 2, 0.01)
        if not self._done:
            MPI = mpi()
            try:
                if self._statuses is not None:
                    MPI.Request.Waitall(self._requests, self._statuses)
                else:
                    MPI.Request.Waitall(self._requests)
            except MPI.Exception as e:
                self._done = True
                raise RuntimeError(f"{self._name}: MPI error: {e.Get_error_string()}") from None
            self._complete()
        return True

    def is_completed(self) -> bool:
        """Whether the operation finished (without blocking)."""
        if not self._done and mpi().Request.Testall(self._requests, self._statuses):
            self._complete()
        return self._done

    def is_success(self) -> bool:
        return self._done

    def exception(self) -> Any:
        return None

    def result(self) -> list:
        """The output tensors of the operation."""
        self.wait()
        return list(self._result)

    def get_future(self) -> Future:
        """A Future of the output tensors (the same object on every call)."""
        if self._future is None:
            self._future = Future(self)
        return self._future

    def _complete(self) -> None:
        self._done = True
        finish, self._finish = self._finish, None
        self._requests = []
        self._keep = []
        if finish is not None:
            self._value = finish()
        if self._future is not None:
            self._future._run_callbacks()

    def __repr__(self) -> str:
        return f"<pyth.distributed.Work {self._name} {'done' if self._done else 'pending'}>"


def run(work: Work, async_op: bool) -> Any:
    """The handle for async_op, else wait here and return None."""
    if async_op:
        return work
    work.wait()
    return None


class Future:
    """torch.futures.Future for a Work (or a value): wait() / value() give the Work's output
    tensors, then(fn) chains fn(this future) into a new Future. MPI makes progress only inside
    MPI calls, so callbacks run when the Work completes on this rank: in a wait() (of the
    Future or the Work) or an is_completed() / done() that finds it finished."""

    def __init__(self, work: Work | None = None, parent: Future | None = None) -> None:
        self._work = work
        self._parent = parent     # then()'s future completes when its parent does
        self._callbacks: list = []
        self._has_value = False
        self._value: Any = None

    def done(self) -> bool:
        if self._work is not None and not self._has_value:
            self._work.is_completed()
        elif self._parent is not None and not self._has_value:
            self._parent.done()
        return self._has_value or (self._work is not None and self._work._done)

    def wait(self) -> Any:
        if self._work is not None:
            self._work.wait()
            return list(self._work._result)
        if not self._has_value and self._parent is not None:
            self._parent.wait()
        if not self._has_value:
            raise RuntimeError("wait(): this Future has no value yet (set_result() gives it "
                               "one)")
        return self._value

    def value(self) -> Any:
        if not self.done():
            raise RuntimeError("value(): the Future is not completed yet; use wait()")
        return self.wait()

    def set_result(self, result: Any) -> None:
        if self._work is not None or self._has_value:
            raise RuntimeError("set_result(): this Future already has its value")
        self._value, self._has_value = result, True
        self._run_callbacks()

    def then(self, callback: Callable[[Future], Any]) -> Future:
        """A Future of callback(self), run once this one completes."""
        nxt = Future(parent=self)
        self.add_done_callback(lambda f: nxt.set_result(callback(f)))
        return nxt

    def add_done_callback(self, callback: Callable[[Future], Any]) -> None:
        self._callbacks.append(callback)
        if self.done():
            self._run_callbacks()

    def _run_callbacks(self) -> None:
        callbacks, self._callbacks = self._callbacks, []
        for cb in callbacks:
            cb(self)
