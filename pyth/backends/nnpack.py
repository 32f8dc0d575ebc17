"""pyth.backends.nnpack: whether NNPACK's convolutions are in the build: no (pyth's are
im2col + OpenBLAS); its flag is kept as set, as PyTorch keeps it."""

from __future__ import annotations

import contextlib
from typing import Iterator

from .._missing import attribute_error

__all__ = ["flags", "is_available", "set_flags"]

_enabled = [True]


def is_available() -> bool:
    """Whether NNPACK is in this build: no."""
    return False


def set_flags(_enabled_value: bool) -> tuple:
    """Set NNPACK's enabled flag; returns the flags as they were."""
    previous = (_enabled[0],)
    _enabled[0] = _enabled_value
    return previous


@contextlib.contextmanager
def flags(enabled: bool = False) -> Iterator[None]:
    """Set NNPACK's enabled flag for a with block, restoring it after."""
    previous = set_flags(enabled)
    try:
        yield
    finally:
        set_flags(*previous)


__getattr__ = attribute_error(__name__)
