"""Work: the handle an async_op=True collective returns (wait() completes it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Callable

from ._mpi import mpi


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

    def wait(self, timeout: Any = None) -> bool:
        """Block until the operation completed on this rank (its outputs are then valid)."""
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

    def _complete(self) -> None:
        self._done = True
        finish, self._finish = self._finish, None
        self._requests = []
        self._keep = []
        if finish is not None:
            self._value = finish()

    def __repr__(self) -> str:
        return f"<pyth.distributed.Work {self._name} {'done' if self._done else 'pending'}>"


def run(work: Work, async_op: bool) -> Any:
    """The handle for async_op, else wait here and return None."""
    if async_op:
        return work
    work.wait()
    return None
