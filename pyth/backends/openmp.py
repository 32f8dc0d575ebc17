"""pyth.backends.openmp: whether the C core was built with OpenMP (it is: pyth.threads sets
its thread count)."""

from __future__ import annotations

from .._missing import attribute_error

__all__ = ["is_available"]


def is_available() -> bool:
    """Whether pyth's kernels split work between OpenMP threads: yes."""
    return True


__getattr__ = attribute_error(__name__)
