"""Grad modes: whether ops record the graph, per thread.

`no_grad`, `enable_grad`, `set_grad_enabled` and `inference_mode` are context managers and
decorators, as in PyTorch. The state is one thread-local flag; an op looks at it only after it
has found an input that requires grad, so code that never asks for gradients never reads it.
"""

from __future__ import annotations

import functools
import threading
from typing import Any, Callable


class _State(threading.local):
    enabled = True     # class attributes: a new thread starts with grad enabled
    inference = False


state = _State()


def is_grad_enabled() -> bool:
    return state.enabled


def is_inference_mode_enabled() -> bool:
    return state.inference


class _Mode:
    """A context manager that is also a decorator (a fresh instance per call)."""

    def __call__(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self._clone():
                return fn(*args, **kwargs)
        return wrapper

    def _clone(self) -> _Mode:
        return type(self)()

    def __enter__(self) -> None:
        self._prev = state.enabled
        state.enabled = self._value()

    def __exit__(self, *exc: object) -> None:
        state.enabled = self._prev

    def _value(self) -> bool:
        raise NotImplementedError


class no_grad(_Mode):
    """Ops run inside record nothing: `with pyth.no_grad(): w -= lr * w.grad`."""

    def _value(self) -> bool:
        return False


class enable_grad(_Mode):
    """Turns recording back on inside no_grad."""

    def _value(self) -> bool:
        return True


class set_grad_enabled(_Mode):
    """set_grad_enabled(False) turns recording off now (a function call) or inside a with."""

    def __init__(self, mode: bool) -> None:
        self.mode = bool(mode)
        self._prev = state.enabled
        state.enabled = self.mode

    def _clone(self) -> _Mode:
        return set_grad_enabled(self.mode)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        state.enabled = self._prev

    def __call__(self, fn: Callable) -> Callable:
        state.enabled = self._prev  # used as a decorator: not a call that changes the mode
        return super().__call__(fn)


class inference_mode(_Mode):
    """Like no_grad (pyth keeps no extra per-tensor state that it could skip)."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)

    def __call__(self, fn: Callable) -> Callable:
        if not callable(fn) or isinstance(fn, bool):
            raise TypeError("inference_mode(): expected a callable")
        return super().__call__(fn)

    def _clone(self) -> _Mode:
        return inference_mode(self.mode)

    def __enter__(self) -> None:
        self._prev, self._prev_inf = state.enabled, state.inference
        if self.mode:
            state.enabled, state.inference = False, True

    def __exit__(self, *exc: object) -> None:
        state.enabled, state.inference = self._prev, self._prev_inf
